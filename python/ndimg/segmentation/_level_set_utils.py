"""The level-set helpers of skimage/segmentation/morphsnakes.py: the initial level sets (disk_level_set,
checkerboard_level_set, and init_level_set, which the morphological snakes take by name) and the edge map
inverse_gaussian_gradient (ndimg.ndimage's Gaussian gradient magnitude, then pointwise on the engine's
threads)."""
from __future__ import annotations

import numpy as np

from .._blocks import blockwise
from .._engine import engine_aware, xp_of
from ..ndimage._separable import gaussian_gradient_magnitude


def disk_level_set(image_shape, *, center=None, radius=None):
    """int8 array of `image_shape`: 1 strictly inside the (hyper)sphere of `radius` (default 3/8 of the
    smallest side) around `center` (default the middle element), else 0."""
    if center is None:
        center = tuple(i // 2 for i in image_shape)
    if radius is None:
        radius = min(image_shape) * 3.0 / 8.0
    ndim = len(image_shape)
    if np.shape(center) not in ((), (1,), (ndim,)) or ndim == 0:
        # other centres broadcast against scikit-image's transposed grid: its own steps
        grid = np.mgrid[[slice(i) for i in image_shape]]
        phi = radius - np.sqrt(np.sum(((grid.T - center).T) ** 2, 0))
        return np.int8(phi > 0)
    # scikit-image's coordinates minus the centre, one open axis each (the same values, summed in the same
    # axis order, without the grid's ndim full-size arrays)
    center = np.broadcast_to(np.asarray(center), (ndim,))
    axes = np.ogrid[[slice(i) for i in image_shape]]
    total = (axes[0] - center[0]) ** 2
    for a, c in zip(axes[1:], center[1:]):
        total = total + (a - c) ** 2
    phi = radius - np.sqrt(np.broadcast_to(total, tuple(image_shape)))
    return np.int8(phi > 0)


def checkerboard_level_set(image_shape, square_size=5):
    """int8 array of `image_shape`: squares of `square_size` alternately 0 and 1, 0 at the origin."""
    if len(image_shape) == 0:   # no axis: scikit-image's empty grid reduced
        grid = np.mgrid[[slice(i) for i in image_shape]]
        return np.int8(np.bitwise_xor.reduce((grid // square_size) & 1, axis=0))
    # each axis's parity once, combined by broadcasting (the grid's values, without its full-size arrays)
    parity = [(a // square_size) & 1 for a in np.ogrid[[slice(i) for i in image_shape]]]
    board = parity[0]
    for p in parity[1:]:
        board = board ^ p
    return np.int8(np.broadcast_to(board, tuple(image_shape)))


def init_level_set(init_level_set, image_shape):
    """The morphological snakes' initial level set: 'checkerboard', 'disk', or the array given."""
    if isinstance(init_level_set, str):
        if init_level_set == "checkerboard":
            return checkerboard_level_set(image_shape)
        if init_level_set == "disk":
            return disk_level_set(image_shape)
        raise ValueError("`init_level_set` not in ['checkerboard', 'disk']")
    return init_level_set


@engine_aware("image")
def inverse_gaussian_gradient(image, alpha=100.0, sigma=5.0):
    """1 / sqrt(1 + alpha * |grad G_sigma * image|): near 0 on edges, near 1 in flat regions (the Gaussian
    gradient magnitude with mode 'nearest', in the input's dtype as scipy's)."""
    gradnorm = gaussian_gradient_magnitude(image, sigma, mode="nearest")
    xp = xp_of(gradnorm)
    if xp is not np or gradnorm.ndim == 0 or not gradnorm.flags.c_contiguous:
        return 1.0 / xp.sqrt(1.0 + alpha * gradnorm)
    # the result's dtype from NumPy's own promotion of the same expression
    dtype = (1.0 / np.sqrt(1.0 + alpha * gradnorm.reshape(-1)[:1])).dtype
    out = np.empty(gradnorm.shape, dtype)

    def edge_map(o, g):
        o[...] = 1.0 / np.sqrt(1.0 + alpha * g)

    blockwise(edge_map, out, gradnorm)
    return out

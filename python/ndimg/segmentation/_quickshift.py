"""Quick shift (skimage.segmentation.quickshift): scikit-image's preparation (Lab, smoothing, ratio) and
tie-breaking noise here, Lab on the host by scikit-image's own NumPy operations for both engines; the
densities and parents in C++ (cpp/src/segmentation/quickshift*) with its arithmetic, so the labels equal its
labels, on both engines (the noise is drawn by NumPy, as scikit-image draws it, and uploaded for the CUDA
engine); the trees are flattened by pointer jumping over xp."""
from __future__ import annotations

import numbers

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from .._rules import as_image, img_as_float, supported_float_type


def _seed(rng):
    """scikit-image's Cython entry takes the seed as a C int: no Generator, no None."""
    if isinstance(rng, (numbers.Integral, float, np.floating)) and not isinstance(rng, np.timedelta64):
        value = int(rng)
        if not -2**31 <= value < 2**31:
            raise OverflowError("value too large to convert to int")
        return value
    raise TypeError("an integer is required")


@engine_aware("image")
def quickshift(image, ratio=1.0, kernel_size=5, max_dist=10, return_tree=False, sigma=0, convert2lab=True, rng=42,
               *, channel_axis=-1):
    """Segment image using quickshift clustering in Color-(x,y) space (skimage.segmentation.quickshift)."""
    image = as_image(image)
    xp = xp_of(image)
    image = img_as_float(xp.atleast_3d(image))
    dtype = supported_float_type(image.dtype)
    image = image.astype(dtype, copy=False)
    if image.ndim > 3:
        raise ValueError("Only 2D color images are supported")
    image = xp.moveaxis(image, source=channel_axis, destination=-1)
    if convert2lab:
        if image.shape[-1] != 3:
            raise ValueError("Only RGB images can be converted to Lab space.")
        from ..color._colorconv import rgb2lab_numpy

        # on the CPU scikit-image's own Lab (the densities' near-ties hang on its last bits)
        # on the host for either engine: the device's pow and cbrt round some values the other way, and one
        # unit in the last place of Lab decides near-tied parents (the densities and parents stay on the device)
        image = xp.asarray(rgb2lab_numpy(image if xp is np else image.get()))
    if kernel_size < 1:
        raise ValueError("`kernel_size` should be >= 1.")
    from ..filters import gaussian

    image = gaussian(image, sigma=[sigma, sigma, 0], mode="reflect", channel_axis=-1)
    image = xp.ascontiguousarray(image * ratio)
    dtype = image.dtype   # the Cython entry's float type (float64 unless everything was float32)
    if dtype not in (np.float32, np.float64):
        image, dtype = image.astype(np.float64), np.dtype(np.float64)
    kernel_size = dtype.type(kernel_size)
    max_dist = dtype.type(max_dist)
    seed = _seed(rng)
    height, width = image.shape[:2]
    if not np.isfinite(kernel_size) or kernel_size >= 1e6:
        raise ValueError("`kernel_size` must be finite and below 1e6")
    densities = np.zeros((height, width), dtype=dtype)
    densities += np.random.default_rng(seed).normal(scale=0.00001, size=(height, width)).astype(dtype, copy=False)
    densities = xp.asarray(densities)
    parent = xp.empty((height, width), dtype=np.int64)
    dist_parent = xp.empty((height, width), dtype=dtype)
    if parent.size:
        _core.quickshift(image, float(kernel_size), densities, parent, dist_parent, stream=stream_ptr(parent))
    flat = parent.ravel().copy()
    too_far = dist_parent.ravel() > max_dist
    flat[too_far] = xp.arange(width * height)[too_far]
    old = xp.zeros_like(flat)
    while (old != flat).any():   # every pixel to the root of its tree
        old = flat
        flat = flat[flat]
    labels = xp.unique(flat, return_inverse=True)[1].reshape(height, width).astype(np.intp, copy=False)
    if return_tree:
        return labels, parent.astype(np.intp, copy=False), dist_parent
    return labels

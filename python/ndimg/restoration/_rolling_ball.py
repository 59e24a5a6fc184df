"""skimage.restoration's rolling-ball background (skimage/restoration/_rolling_ball.py): a min-plus filter
of the image with the ball's (or any kernel's) height profile, on ndimg's patch primitive."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, get_num_threads, set_num_threads, stream_ptr, xp_of
from .._rules import as_image, supported_float_type
from ..ndimage._footprint import to_host
from ..morphology._footprints import warn_user
from ..morphology._misc import DEPRECATED


def renamed_workers(old_name, value, workers, fn_name):
    """scikit-image 0.26's rename of `old_name` to `workers`: a value given for the old name warns and is used
    as workers; both given is a ValueError."""
    if DEPRECATED == value:
        return workers
    warn_user(f"Parameter `{old_name}` is deprecated since version 0.26 and will be removed in 0.28 (or later). To "
              f"avoid this warning, please use the parameter `workers` instead. For more details, see the "
              f"documentation of `{fn_name}`.", FutureWarning)
    if workers is not None:
        raise ValueError(f"Both deprecated parameter `{old_name}` and new parameter `workers` are used. Use only the "
                         f"latter to avoid conflicting values.")
    return value


@engine_aware("image")
def rolling_ball(image, *, radius=100, kernel=None, nansafe=False, num_threads=DEPRECATED, workers=None):
    """Background intensity of an n-D image by rolling a ball (or `kernel`) under it
    (skimage.restoration.rolling_ball); `workers` CPU threads (None: all of ndimg's; the GPU ignores it)."""
    workers = renamed_workers("num_threads", num_threads, workers, "rolling_ball")
    image = as_image(image)
    xp = xp_of(image)
    float_type = supported_float_type(image.dtype)
    img = image.astype(float_type, copy=False)
    if kernel is None:
        kernel = ball_kernel(radius, image.ndim)
    kernel = np.asarray(to_host(kernel)).astype(float_type)
    if kernel.ndim != image.ndim:
        raise ValueError("kernel must have the image's number of dimensions")
    centre = np.asarray(kernel.shape) // 2
    # how far below the kernel's centre each of its elements lies (never a minimum where the kernel is +inf)
    diff = kernel[tuple(centre)] - kernel
    diff[kernel == np.inf] = np.inf
    padded = xp.ascontiguousarray(xp.pad(img, [(int(c), int(c)) for c in centre], constant_values=np.inf,
                                         mode="constant"))
    out = xp.empty(image.shape, dtype=float_type)
    previous = None
    if workers is not None and workers > 0 and workers != get_num_threads():
        previous = get_num_threads()
        set_num_threads(int(workers))
    try:
        _core.rolling_ball(padded, xp.asarray(diff), out, bool(nansafe), stream=stream_ptr(out))
    finally:
        if previous is not None:
            set_num_threads(previous)
    return out.astype(image.dtype, copy=False)


def _sum_of_squares(axes):
    """sum_i axes[i]^2 over the grid the 1-D coordinate arrays span, by broadcasting (summed in axis order,
    as a sum over a stacked last axis of the coordinates adds them)."""
    ndim = len(axes)
    if ndim == 0:   # scikit-image's np.stack of no coordinates
        raise ValueError("the kernel needs at least one dimension")
    total = 0
    for i, a in enumerate(axes):
        total = total + (a**2).reshape((1,) * i + (-1,) + (1,) * (ndim - i - 1))
    return np.broadcast_to(total, tuple(len(a) for a in axes)).astype(float)


def ball_kernel(radius, ndim):
    """The height profile of a ball of `radius` in `ndim` dimensions, +inf outside it
    (skimage.restoration.ball_kernel)."""
    half = np.ceil(radius)
    squares = _sum_of_squares([np.arange(-half, half + 1)] * ndim)
    kernel = np.sqrt(np.clip(radius**2 - squares, 0, None))
    kernel[np.sqrt(squares) > radius] = np.inf
    return kernel


def ellipsoid_kernel(shape, intensity):
    """The height profile of an ellipsoid of semi-axes shape // 2 (at least 1) and height `intensity`, +inf
    outside it (skimage.restoration.ellipsoid_kernel)."""
    semi_axis = np.clip(np.asarray(shape) // 2, 1, None)
    scaling = 1 - _sum_of_squares([np.arange(-x, x + 1) / x for x in semi_axis])
    kernel = intensity * np.sqrt(np.clip(scaling, 0, None))
    kernel[scaling < 0] = np.inf
    return kernel

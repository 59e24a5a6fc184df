"""skimage.filters.correlate_sparse: correlation that touches only the kernel's nonzero entries."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, xp_of
from .._rules import array_argument, check_extendable, supported_float_type
from ..ndimage._footprint import tap_offsets, to_host
from .._engine import stream_ptr
from ..ndimage._support import mode_code

# skimage pads with np.pad after renaming ndimage modes; each np.pad mode it can reach is one of ours.
_MODES = {"reflect": "reflect", "mirror": "mirror", "nearest": "nearest", "wrap": "wrap",
          "constant": "constant", "symmetric": "reflect", "edge": "nearest"}


@engine_aware("image")
def correlate_sparse(image, kernel, mode="reflect"):
    """Correlation of `image` with `kernel` (skimage.filters.correlate_sparse): zero entries cost
    nothing. mode='valid' returns only the part where the kernel lies inside the image."""
    image = array_argument(image)
    kernel = to_host(kernel)
    float_dtype = supported_float_type(image.dtype)
    image = image.astype(float_dtype, copy=False)
    if kernel.ndim != image.ndim:
        raise ValueError("kernel must have as many dimensions as image")
    nonzero = kernel != 0
    if mode == "valid":
        shape = tuple(s - w + 1 for s, w in zip(image.shape, kernel.shape))
        if min(shape, default=1) < 1:
            raise ValueError("kernel larger than image in mode 'valid'")
        offsets, idx = tap_offsets(nonzero, [-(w // 2) for w in kernel.shape])  # taps at +index
        code = 0
    else:
        if any(w % 2 == 0 for w in kernel.shape):
            raise ValueError(f"Window size for `threshold_sauvola` or `threshold_niblack` must not be even on "
                             f"any dimension. Got {kernel.shape}")
        if mode not in _MODES:
            raise ValueError(f"mode {mode!r} is not supported")
        if mode != "constant":
            check_extendable(image.shape)
        shape = image.shape
        offsets, idx = tap_offsets(nonzero, [0] * kernel.ndim)
        code = mode_code(_MODES[mode])
    values = kernel[idx].astype(float_dtype).astype(np.float64).tolist()
    out = xp_of(image).empty(shape, dtype=float_dtype)
    _core.correlate(image, out, offsets, values, code, 0.0, stream_ptr(out))
    return out

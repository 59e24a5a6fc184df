"""Edge filters with small non-separable stencils (skimage.filters.roberts*, laplace), and the stencils
primitive's front that the edge filters share (filters/_edges.py)."""
from __future__ import annotations

import functools

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from .._rules import array_argument, check_nD, img_as_float, supported_float_type
from ..ndimage._footprint import tap_offsets
from ..ndimage._rank import _min_or_max_filter
from ..ndimage._support import mode_code, real_cval

_ROBERTS_POS = np.array([[1.0, 0.0], [0.0, -1.0]])
_ROBERTS_NEG = np.array([[0.0, 1.0], [-1.0, 0.0]])


def _as_float(image):
    """Floats keep their precision (float16 -> float32); everything else goes through img_as_float."""
    if image.dtype.kind == "f":
        return image.astype(supported_float_type(image.dtype), copy=False)
    return img_as_float(image)


def _masked(result, mask):
    """Zero the result outside `mask` eroded by a full 3**ndim box (border counts as outside), so that
    masked-out pixels do not leak into it."""
    if mask is not None:
        xp = xp_of(result)
        keep = (xp.asarray(mask) != 0).astype(np.uint8)
        result *= _min_or_max_filter(keep, 3, None, None, "constant", 0, 0, True, None)
    return result


def _convolution_taps(kernel):
    """scipy.ndimage.convolve's taps of an n-D kernel: (offsets per tap, weight) in its C order, weights with
    |w| <= DBL_EPSILON left out, even sizes shifted as scipy shifts them."""
    kernel = np.asarray(kernel, np.float64)
    return _taps_of(kernel.shape, kernel.tobytes())


@functools.lru_cache(maxsize=64)
def _taps_of(shape, data):
    w = np.frombuffer(data, np.float64).reshape(shape)[(slice(None, None, -1),) * len(shape)]
    origins = [-(1 - (n & 1)) for n in w.shape]
    offsets, idx = tap_offsets(np.abs(w) > np.finfo(np.float64).eps, origins)
    return tuple(zip(zip(*[iter(offsets)] * w.ndim), w[idx].tolist()))


@functools.lru_cache(maxsize=128)
def _flat_taps(taps):
    """_core.stencils' arguments for a tuple of _convolution_taps results: offsets, weights, taps per stencil."""
    offsets = tuple(o for st in taps for offs, _ in st for o in offs)
    weights = tuple(w for st in taps for _, w in st)
    return offsets, weights, tuple(len(st) for st in taps)


def stencils(image, taps, mode, cval, scale=None, scale_in_double=False):
    """n-D stencils in one sweep on either engine (_core.stencils; a float32/float64 image): `taps` a
    tuple of _convolution_taps results, each summed in double as scipy's convolve sums and rounded to the
    image's dtype; several give sqrt(sum of their squares) / `scale` in that dtype (the division in float64,
    rounded, with scale_in_double)."""
    xp = xp_of(image)
    out = xp.empty(image.shape, image.dtype)
    if any(s % image.itemsize for s in image.strides):  # views that DLPack cannot describe
        image = xp.ascontiguousarray(image)
    offsets, weights, counts = _flat_taps(taps)
    _core.stencils(image, out, offsets, weights, counts, mode_code(mode), real_cval(cval),
                   1.0 if scale is None else float(scale), scale_in_double, stream=stream_ptr(out))
    return out


def _magnitude(parts, xp):
    """sqrt(sum of the parts' squares) / sqrt(ndim), every step in the float dtype, into parts[0] (roberts'
    masked diagonals; one part is returned as it is)."""
    output = parts[0]
    if len(parts) > 1:
        scale = np.sqrt(output.ndim, dtype=output.dtype)
        if xp is np:  # one sweep on the thread pool, the same operations in the same order as below
            _core.root_sum_squares(parts, output, float(scale))
        else:
            output *= output
            for res in parts[1:]:
                res *= res
                output += res
            xp.sqrt(output, out=output)
            output /= scale
    return output


_ROBERTS_TAPS = (_convolution_taps(_ROBERTS_POS), _convolution_taps(_ROBERTS_NEG))


def _stencil(image, weights, mask):
    """scipy's convolve with `weights` (reflect mode) of the image as float, masked."""
    return _masked(stencils(_as_float(image), (_convolution_taps(weights),), "reflect", 0.0), mask)


@engine_aware("image", "mask")
def roberts_pos_diag(image, mask=None):
    """Roberts' cross kernel [[1, 0], [0, -1]] (skimage.filters.roberts_pos_diag)."""
    check_nD(image, 2)  # first: it takes scalars and None as 0-d arrays
    image = array_argument(image)
    return _stencil(image, _ROBERTS_POS, mask)


@engine_aware("image", "mask")
def roberts_neg_diag(image, mask=None):
    """Roberts' cross kernel [[0, 1], [-1, 0]] (skimage.filters.roberts_neg_diag)."""
    check_nD(image, 2)  # first: it takes scalars and None as 0-d arrays
    image = array_argument(image)
    return _stencil(image, _ROBERTS_NEG, mask)


@engine_aware("image", "mask")
def roberts(image, mask=None):
    """Edge magnitude of Roberts' cross operator (skimage.filters.roberts)."""
    check_nD(image, 2)  # first: it takes scalars and None as 0-d arrays
    image = array_argument(image)
    if mask is None:  # both kernels, the magnitude and its float64 division in one sweep
        return stencils(_as_float(image), _ROBERTS_TAPS, "reflect", 0.0, np.sqrt(2), scale_in_double=True)
    # scikit-image masks each diagonal before the magnitude (a masked overflowing square is 0, not NaN)
    pos = roberts_pos_diag.__wrapped_impl__(image, mask)
    neg = roberts_neg_diag.__wrapped_impl__(image, mask)
    return _magnitude([pos, neg], xp_of(image))


def _laplacian_kernel(ndim):
    k = np.zeros((3,) * ndim)
    centre = (1,) * ndim
    for d in range(ndim):
        for side in (0, 2):
            k[centre[:d] + (side,) + centre[d + 1:]] = -1.0
    k[centre] = 2.0 * ndim
    return k


@engine_aware("image", "mask")
def laplace(image, ksize=3, mask=None):
    """Discrete Laplacian (the 3**ndim stencil, whatever `ksize`, as skimage.filters.laplace)."""
    image = array_argument(image)
    if image.ndim == 0:  # scikit-image's kernel construction transforms no axis
        raise ValueError("at least 1 axis must be transformed")
    return _stencil(image, _laplacian_kernel(image.ndim), mask)

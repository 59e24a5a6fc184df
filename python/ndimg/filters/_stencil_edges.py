"""Edge filters with small non-separable stencils (skimage.filters.roberts*, laplace)."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, xp_of
from .._rules import array_argument, check_nD, img_as_float, supported_float_type
from ..ndimage._correlate import _correlate_or_convolve
from ..ndimage._rank import _min_or_max_filter

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


def _stencil(image, weights, mask):
    return _masked(_correlate_or_convolve(_as_float(image), weights, None, "reflect", 0.0, 0, True, None), mask)


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
    xp = xp_of(image)
    pos = roberts_pos_diag.__wrapped_impl__(image, mask)
    neg = roberts_neg_diag.__wrapped_impl__(image, mask)
    if xp is np:  # one threaded sweep into pos instead of four single-threaded NumPy temporaries
        _core.root_sum_squares([pos, neg], pos, float(np.sqrt(2)))
        return pos
    out = xp.sqrt(pos * pos + neg * neg)
    out /= np.sqrt(2)
    return out


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

"""skimage.restoration.unwrap_phase: 1-D by running period counts, 2-D and 3-D by reliability-sorted edges
(restoration::unwrap_phase in C++, in scikit-image's order so that results agree); masked arrays keep
their mask. CuPy input: the reliabilities, edges, their sort and the result on the device, the sequential
merge of groups (and C's rand()) on the host; a NumPy masked array stays on the CPU (CuPy has none)."""
from __future__ import annotations

import operator
import warnings

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of


def _unwrap_1d(image, xp):
    """Each step beyond pi in magnitude counts one period against its sign; the running count restores them."""
    steps = xp.diff(image)
    periods = xp.cumsum((steps < -np.pi).astype(np.int64) - (steps > np.pi))
    out = xp.empty_like(image)
    out[:1] = image[:1]
    out[1:] = image[1:] + 2 * np.pi * periods
    return out


def _reseed(rng):
    """scikit-image seeds C's generator with 0 when no rng is given and leaves it as it is otherwise (the
    value must still convert to a C unsigned int)."""
    if rng is None:
        return True
    value = operator.index(rng)
    if not 0 <= value < 2**32:
        raise OverflowError("value too large to convert to unsigned int" if value > 0 else
                            "can't convert negative value to unsigned int")
    return False


@engine_aware("image", native=False)
def unwrap_phase(image, wrap_around=False, rng=None):
    """Recover the phase from its values wrapped into [-pi, pi) (skimage 0.26), 1-D to 3-D, masked arrays
    too; `wrap_around` connects the first and last slices of an axis."""
    xp = xp_of(image)
    if image.ndim not in (1, 2, 3):
        raise ValueError("Image must be 1, 2, or 3 dimensional")
    if isinstance(wrap_around, bool):
        wrap_around = [wrap_around] * image.ndim
    elif hasattr(wrap_around, "__getitem__") and not isinstance(wrap_around, str):
        if len(wrap_around) != image.ndim:
            raise ValueError("Length of `wrap_around` must equal the dimensionality of image")
        wrap_around = [bool(w) for w in wrap_around]
    else:
        raise ValueError("`wrap_around` must be a bool or a sequence with length equal to the dimensionality of "
                         "image")
    masked = np.ma.isMaskedArray(image)
    if image.ndim == 1:
        if masked:
            raise ValueError("1D masked images cannot be unwrapped")
        if wrap_around[0]:
            raise ValueError("`wrap_around` is not supported for 1D images")
    if image.ndim in (2, 3) and 1 in image.shape:
        warnings.warn("Image has a length 1 dimension. Consider using an array of lower dimensionality to use a "
                      "more efficient algorithm", stacklevel=2)
    mask = np.require(np.ma.getmaskarray(image), np.uint8, ["C"]) if masked else \
        xp.zeros(image.shape, dtype=np.uint8)
    data = xp.asarray(np.ma.getdata(image) if masked else image, dtype=np.float64, order="C")
    if image.ndim == 1:
        out = _unwrap_1d(data, xp)
    else:
        reseed = _reseed(rng)
        out = xp.empty(image.shape, dtype=np.float64)
        flags = [False] * (3 - image.ndim) + wrap_around
        _core.unwrap_phase(data, mask, out, *flags, reseed, stream=stream_ptr(out))
    if masked:
        return np.ma.array(out, mask=mask, fill_value=image.fill_value)
    return out

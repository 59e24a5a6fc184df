"""skimage.exposure.match_histograms on the ndimg engines: the source's and the template's value counts (the
core's integer histogram where the values are integers; otherwise the core's radix-sorted groups, or a sort of
the template), their quantiles matched by NumPy's interpolation, and the result gathered per pixel on every
core. On the GPU a float source's quantiles (one per distinct value: millions) are matched on the device."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from .._prim import histogram, unique
from .._rules import supported_float_type
from ..filters._thresholding import _to_host
from ._exposure import _channel_last, _check_allocation, _gather, _minmax


def _value_counts(a):
    """(values, counts) of an integer array's values that occur, increasing (np.unique's), from the core's
    histogram over [min, max]."""
    lo, hi = _minmax(a)
    _check_allocation(int(hi) - int(lo) + 1)
    counts = _to_host(histogram.integer_counts(a, lo=lo, nbins=int(hi) - int(lo) + 1))
    values = np.flatnonzero(counts)
    return values + lo, counts[values], lo


def _bincount(a):
    """np.bincount(a.ravel()): TypeError/ValueError as NumPy gives them for non-integer or negative values."""
    if a.dtype.kind not in "biu":
        raise TypeError(f"Cannot cast array data from {a.dtype!r} to dtype('int64') according to the rule 'safe'")
    if a.size == 0:
        return np.zeros(0, dtype=np.int64)
    if a.dtype.kind in "bu" and a.dtype.itemsize <= 2:   # the dtype's range, trimmed after the largest value
        nbins = 2 if a.dtype.kind == "b" else 1 << (8 * a.dtype.itemsize)
        counts = _to_host(histogram.integer_counts(a, lo=0, nbins=nbins))
        return counts[:np.flatnonzero(counts)[-1] + 1]
    lo, hi = _minmax(a)
    if lo < 0:
        raise ValueError("'list' argument must have no negative elements")
    _check_allocation(int(hi) + 1)
    return _to_host(histogram.integer_counts(a, lo=0, nbins=int(hi) + 1))


def _group_starts(s):
    """Where each group of equal values of sorted `s` starts, as np.unique groups them (NaNs, sorted last,
    one group)."""
    new = np.empty(s.size, dtype=bool)
    new[:1] = True
    np.not_equal(s[1:], s[:-1], out=new[1:])
    if s.dtype.kind in "fc" and s.size and np.isnan(s[-1]):
        nan = np.isnan(s)
        new[1:] &= ~(nan[1:] & nan[:-1])
    return new


def _interp(x, xq, fq):
    """np.interp(x, xq, fq) for increasing xq (at least one point) and x without NaN, in whole-array operations
    of x's library: NumPy's arithmetic step by step (slope, then slope * (x - x0) + y0, each rounded on its
    own, with its fallbacks where that is NaN), so a device gives NumPy's values bit for bit (one fused
    kernel would contract the product and the sum)."""
    xp = xp_of(x)
    n = xq.size
    if n == 0:
        raise ValueError("array of sample points is empty")
    if n == 1:
        return xp.broadcast_to(fq[:1], x.shape).copy()
    j = xp.searchsorted(xq, x, side="right") - 1             # xq[j] <= x < xq[j + 1]
    k = xp.clip(j, 0, n - 2)
    x0, x1, y0, y1 = xq[k], xq[k + 1], fq[k], fq[k + 1]
    slope = (y1 - y0) / (x1 - x0)
    out = slope * (x - x0) + y0
    other = slope * (x - x1) + y1                              # NumPy's second try where the first is NaN
    other = xp.where(xp.isnan(other) & (y0 == y1), y0, other)
    out = xp.where(xp.isnan(out), other, out)
    out = xp.where(x == x0, y0, out)                           # NumPy's guard against non-finite slopes
    out = xp.where(j < 0, fq[0], out)                          # left of the points, and at or right of the last
    return xp.where(j >= n - 1, fq[n - 1], out)


def _match_cumulative_cdf(source, template, dtype=None):
    """scikit-image's matched values of `source` (float64; `dtype`: cast to it, through the table where
    there is one)."""
    xp = xp_of(source)
    if source.dtype.kind == "u":
        src_counts = _bincount(source)
        tmpl_counts = _bincount(template)
        tmpl_values = np.nonzero(tmpl_counts)[0]
        tmpl_counts = tmpl_counts[tmpl_values]
        src_quantiles = np.cumsum(src_counts) / source.size
        tmpl_quantiles = np.cumsum(tmpl_counts) / template.size
        return _gather(np.interp(src_quantiles, tmpl_quantiles, tmpl_values).astype(dtype or np.float64), source)
    if template.dtype.kind in "iu" and template.size:
        tmpl_values, tmpl_counts, _ = _value_counts(template)
    elif xp is np and template.dtype.kind == "f":
        t = np.sort(template, axis=None)
        starts = np.flatnonzero(_group_starts(t))
        tmpl_values, tmpl_counts = t[starts], np.diff(np.append(starts, t.size))
    else:
        tmpl_values, tmpl_counts = xp.unique(template.reshape(-1), return_counts=True)
    if source.dtype.kind in "iu" and source.size:
        src_values, src_counts, lo = _value_counts(source)
        src_quantiles = np.cumsum(src_counts) / source.size
        table = np.zeros(int(src_values[-1] - lo) + 1)
        table[src_values - lo] = np.interp(src_quantiles, np.cumsum(_to_host(tmpl_counts)) / template.size,
                                           _to_host(tmpl_values))
        return _gather(table, source.astype(np.int64) - lo)
    if xp is not np and source.size and source.dtype.kind != "c" and tmpl_values.dtype.kind != "c":   # (complex: np.interp's)
        _, src_lookup, src_counts = xp.unique(source.reshape(-1), return_inverse=True, return_counts=True)
        values = _interp(xp.cumsum(src_counts) / source.size, xp.cumsum(xp.asarray(tmpl_counts)) / template.size,
                         xp.asarray(tmpl_values, dtype=np.float64))
        return values[src_lookup.reshape(-1)].reshape(source.shape)
    tmpl_values, tmpl_counts = _to_host(tmpl_values), _to_host(tmpl_counts)
    tmpl_quantiles = np.cumsum(tmpl_counts) / template.size
    if xp is np and source.dtype.kind in "bf":
        src_lookup, src_counts = unique.inverse_counts(source)
    else:
        _, src_lookup, src_counts = xp.unique(source.reshape(-1), return_inverse=True, return_counts=True)
        src_counts = _to_host(src_counts)
    interp_a_values = np.interp(np.cumsum(src_counts) / source.size, tmpl_quantiles, tmpl_values)
    return _gather(interp_a_values, src_lookup.reshape(-1)).reshape(source.shape)


@engine_aware("image", "reference")
def match_histograms(image, reference, *, channel_axis=None):
    image, axis = _channel_last(image, channel_axis)
    reference, _ = _channel_last(reference, channel_axis)
    xp = xp_of(image)
    if image.ndim != reference.ndim:
        raise ValueError("Image and reference must have the same number of channels.")
    if channel_axis is not None:
        if image.shape[-1] != reference.shape[-1]:
            raise ValueError("Number of channels in the input image and reference image must match!")
        matched = xp.empty(image.shape, dtype=image.dtype)
        for channel in range(image.shape[-1]):
            # each channel gathered contiguously, on every core (a strided view is one NumPy call)
            matched[..., channel] = _match_cumulative_cdf(xp.ascontiguousarray(image[..., channel]),
                                                          reference[..., channel], image.dtype)
    else:
        matched = _match_cumulative_cdf(image, reference)
    if matched.dtype.kind == "f":
        matched = matched.astype(supported_float_type(image.dtype), copy=False)
    return matched if axis is None else xp.moveaxis(matched, -1, axis)

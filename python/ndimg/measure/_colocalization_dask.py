"""The colocalization coefficients of Dask arrays, chunk-correct and lazy.

Each chunk of the images (and of the mask) gives the sums, extremes and counts of its selected values
(the mask's pixels, or all), in the dtypes the in-memory code sums in (NumPy's sum of uint8 squares wraps
alike in every chunk; the integer totals are exact). The merged partials go through the in-memory code's
checks in its order (values that are not 0 or 1, negative values) and its formulas. Pearson's r takes a
second pass for the sums of products about the merged means (in float64, rounded to the input's float type
as scipy's result is). Results are 0-d Dask arrays (Pearson's: a tuple of two).
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from .._engine import xp_of
from ..filters._thresholding_dask import blocks, delayed, scalar, tree
from . import _colocalization as c


def _not_binary(x):
    return x.dtype != bool and bool(xp_of(x).any((x != 1) & (x != 0)))


def _selected(arrays, mask):
    return [a.reshape(-1) for a in arrays] if mask is None else [a[mask.astype(bool)] for a in arrays]


def _merge(parts):
    """Partials {name: value} merged: flags or-ed, counts and sums added, extremes kept (NaN wins, as NumPy's
    min and max give it), Nones (no value selected) skipped."""
    out = {}
    for p in parts:
        for k, v in p.items():
            if v is None or out.get(k) is None:
                out[k] = v if out.get(k) is None else out[k]
            elif k.startswith("bad"):
                out[k] = out[k] or v
            elif k[:3] in ("min", "max"):
                pick = min if k[:3] == "min" else max
                out[k] = out[k] if np.isnan(out[k]) else v if np.isnan(v) else pick(out[k], v)
            else:
                out[k] = out[k] + v
    return out


def _extreme(fn, x):
    """min/max of the chunk's selected values as a host scalar (NaN kept), None for none."""
    return fn(x).item() if x.size else None


def _on_chunks(part, slots, *args):
    """part(*extra, *chunks) with None for the absent arrays (slots: which are present)."""
    extra, chunks = args[:len(args) - sum(slots)], iter(args[len(args) - sum(slots):])
    return part(*extra, *(next(chunks) if s else None for s in slots))


def _reduce(part, *arrays, extra=()):
    """The delayed merge of part(*extra, *chunks) over the aligned chunks of `arrays` (None: absent; `extra`:
    delayed values computed first)."""
    call = functools.partial(_on_chunks, part, tuple(a is not None for a in arrays))
    return tree((delayed(call)(*extra, *bs) for bs in blocks(*(a for a in arrays if a is not None))), _merge)


def _dask_inputs(*arrays):
    """The arrays as Dask arrays; in-memory ones on the library of the first Dask array's chunks (a host mask
    for a Dask image of GPU chunks goes to the GPU, as its chunks meet the image's)."""
    import dask.array as da

    first = next((a for a in arrays if isinstance(a, da.Array)), None)
    xp = np if first is None else xp_of(first._meta)
    return [None if a is None else da.asarray(xp.asarray(a) if isinstance(a, np.ndarray) else a) for a in arrays]


def _finish(fn, dtype, merged):
    out = fn(merged)
    return out if hasattr(out, "shape") else np.asarray(out, dtype)


def _lazy(fn, dtype, merged, like=None):
    """fn(merged partials) as a 0-d Dask array; `like`: a device result (else NumPy, as the in-memory
    function's Python numbers)."""
    return scalar(delayed(functools.partial(_finish, fn, dtype))(merged), np.dtype(dtype), like=like)


def _check_mask(m):
    if m.get("badmask"):
        c._binary(np.array([2]), "mask", np)   # the in-memory error


def _min_or_raise(value, dtype):
    """The merged minimum; none selected: NumPy's error for the minimum of nothing."""
    return np.empty(0, dtype).min() if value is None else value


# ---- manders_coloc_coeff ----
def _coloc_part(image0, image1_mask, mask):
    a, b = _selected([image0, image1_mask.astype(bool)], mask)
    xp = xp_of(a)
    return dict(bad1=_not_binary(image1_mask), badmask=mask is not None and _not_binary(mask),
                min0=_extreme(xp.min, a), total=xp.sum(a), inter=xp.sum(a * b))


def _coloc(dtype, image_dtype, m):
    if m["bad1"]:
        c._binary(np.array([2]), "image1_mask", np)
    _check_mask(m)
    if _min_or_raise(m["min0"], image_dtype) < 0:
        raise ValueError("image contains negative values")
    if m["total"] == 0:
        return xp_of(m["total"]).asarray(0, dtype=dtype)
    return m["inter"] / m["total"]


def manders_coloc_coeff(image0, image1_mask, mask=None):
    image0, image1_mask, mask = _dask_inputs(image0, image1_mask, mask)
    c._same_shape(*(a for a in (image0, image1_mask, mask) if a is not None))
    dtype = np.asarray(c.manders_coloc_coeff(np.ones(2, image0.dtype), np.ones(2, bool))).dtype
    merged = _reduce(_coloc_part, image0, image1_mask, mask)
    return _lazy(functools.partial(_coloc, dtype, image0.dtype), dtype, merged, image0)


# ---- manders_overlap_coeff ----
def _overlap_part(image0, image1, mask):
    a, b = _selected([image0, image1], mask)
    xp = xp_of(a)
    return dict(badmask=mask is not None and _not_binary(mask), min0=_extreme(xp.min, a), min1=_extreme(xp.min, b),
                s00=xp.sum(xp.square(a)), s11=xp.sum(xp.square(b)), s01=xp.sum(xp.multiply(a, b)))


def _overlap(dtypes, m):
    _check_mask(m)
    if _min_or_raise(m["min0"], dtypes[0]) < 0:
        raise ValueError("image0 contains negative values")
    if _min_or_raise(m["min1"], dtypes[1]) < 0:
        raise ValueError("image1 contains negative values")
    return m["s01"] / (m["s00"] * m["s11"]) ** 0.5


def manders_overlap_coeff(image0, image1, mask=None):
    image0, image1, mask = _dask_inputs(image0, image1, mask)
    c._same_shape(*(a for a in (image0, image1, mask) if a is not None))
    dtype = np.asarray(c.manders_overlap_coeff(np.ones(2, image0.dtype), np.ones(2, image1.dtype))).dtype
    merged = _reduce(_overlap_part, image0, image1, mask)
    return _lazy(functools.partial(_overlap, (image0.dtype, image1.dtype)), dtype, merged, image0)


# ---- intersection_coeff ----
def _intersection_part(image0_mask, image1_mask, mask):
    a, b = _selected([image0_mask.astype(bool), image1_mask.astype(bool)], mask)
    xp = xp_of(a)
    return dict(bad0=_not_binary(image0_mask), bad1=_not_binary(image1_mask),
                badmask=mask is not None and _not_binary(mask),
                n0=int(xp.count_nonzero(a)), both=int(xp.count_nonzero(xp.logical_and(a, b))))


def _intersection(m):
    for name in ("image0_mask", "image1_mask"):
        if m["bad" + name[5]]:
            c._binary(np.array([2]), name, np)
    _check_mask(m)
    return 0.0 if m["n0"] == 0 else m["both"] / m["n0"]


def intersection_coeff(image0_mask, image1_mask, mask=None):
    image0_mask, image1_mask, mask = _dask_inputs(image0_mask, image1_mask, mask)
    c._same_shape(*(a for a in (image0_mask, image1_mask, mask) if a is not None))
    merged = _reduce(_intersection_part, image0_mask, image1_mask, mask)
    return _lazy(_intersection, np.float64, merged)


# ---- pearson_corr_coeff ----
def _pearson_dtype(*dtypes):
    dtype = np.result_type(*dtypes)
    return np.dtype(np.float64) if dtype.kind not in "fc" else dtype


def _moments_part(dtype, image0, image1, mask):
    x, y = (v.astype(dtype, copy=False) for v in _selected([image0, image1], mask))
    xp = xp_of(x)
    return dict(badmask=mask is not None and _not_binary(mask), n=int(x.size),
                sx=float(xp.sum(x, dtype=np.float64)), sy=float(xp.sum(y, dtype=np.float64)),
                minx=_extreme(xp.min, x), maxx=_extreme(xp.max, x), miny=_extreme(xp.min, y), maxy=_extreme(xp.max, y))


def _means(dtype, m):
    _check_mask(m)
    if m["n"] < 2:
        raise ValueError("`x` and `y` must have length at least 2.")
    return dtype.type(m["sx"] / m["n"]), dtype.type(m["sy"] / m["n"])


def _products_part(dtype, means, image0, image1, mask):
    x, y = (v.astype(dtype, copy=False) for v in _selected([image0, image1], mask))
    xp = xp_of(x)
    xm, ym = (x - means[0]).astype(np.float64), (y - means[1]).astype(np.float64)
    return dict(sxy=float(xp.sum(xm * ym)), sxx=float(xp.sum(xm * xm)), syy=float(xp.sum(ym * ym)))


def _pearson(dtype, m, means, p):
    """scipy.stats.pearsonr's r and p-value from the merged sums (its warnings and special cases)."""
    from scipy.stats import ConstantInputWarning, NearConstantInputWarning

    if m["minx"] == m["maxx"] or m["miny"] == m["maxy"]:   # all equal (a NaN: never)
        warnings.warn(ConstantInputWarning("An input array is constant; the correlation coefficient is not "
                                           "defined."), stacklevel=2)
        return np.array([np.nan, np.nan])
    normx, normy = np.sqrt(p["sxx"]), np.sqrt(p["syy"])
    threshold = np.finfo(dtype).eps ** 0.75
    if normx < threshold * abs(float(means[0])) or normy < threshold * abs(float(means[1])):
        warnings.warn(NearConstantInputWarning("An input array is nearly constant; the computed correlation "
                                               "coefficient may be inaccurate."), stacklevel=2)
    r = float(np.clip(dtype.type(p["sxy"] / (normx * normy)), -1.0, 1.0))
    if m["n"] == 2:
        return np.array([float(np.round(r)), np.nan if np.isnan(r) else 1.0])
    return np.array([r, c._p_value(r, m["n"], dtype)])


def pearson_corr_coeff(image0, image1, mask=None):
    import dask.array as da

    image0, image1, mask = _dask_inputs(image0, image1, mask)
    c._same_shape(*(a for a in (image0, image1, mask) if a is not None))
    dtype = _pearson_dtype(image0.dtype, image1.dtype)
    if dtype.kind == "c":
        raise ValueError("This function does not support complex data")
    merged = _reduce(functools.partial(_moments_part, dtype), image0, image1, mask)
    means = delayed(functools.partial(_means, dtype))(merged)
    products = _reduce(functools.partial(_products_part, dtype), image0, image1, mask, extra=(means,))
    both = delayed(functools.partial(_pearson, dtype))(merged, means, products)
    out = da.from_delayed(both, shape=(2,), dtype=np.float64)
    return out[0], out[1]

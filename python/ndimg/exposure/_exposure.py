"""skimage.exposure's histograms, equalization, intensity rescaling and the gamma/log/sigmoid corrections on
the ndimg engines.

Histograms are counted by the core (``ndimg._prim.histogram``) on the image's engine; the pointwise maps are
scikit-image's expressions, evaluated in the same dtypes (so the same roundings), over blocks on the CPU
engine's threads (``ndimg._blocks``) or whole on CuPy. Maps of integer images go through lookup tables built
with those expressions over the values the image can hold.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._blocks import blockable, blockwise
from .._engine import engine_aware, is_gpu_array, xp_of
from .._prim import histogram as _hist
from .._prim import reduce
from .._rules import channel_as_last_axis, check_allocation, supported_float_type
from ..filters._thresholding import _Bins, _check_nbins, _to_host
from ..util._dtype import cast_like_host, dtype_range, limits_of

__all__ = ["histogram", "cumulative_distribution", "equalize_hist", "rescale_intensity", "adjust_gamma",
           "adjust_log", "adjust_sigmoid", "is_low_contrast"]

# exposure's range names beside scikit-image's dtype_range (keyed by scalar types)
DTYPE_RANGE = dict(dtype_range)
DTYPE_RANGE.update((d.__name__, limits) for d, limits in dtype_range.items())
DTYPE_RANGE.update({"uint10": (0, 2**10 - 1), "uint12": (0, 2**12 - 1), "uint14": (0, 2**14 - 1),
                    "bool": dtype_range[bool], "float": dtype_range[np.float64]})


_dtype_limits = limits_of


# ---------------------------------------------------------------------------------------------------
# Pointwise maps on every core
# ---------------------------------------------------------------------------------------------------

def _pointwise(fn, image, dtype):
    """fn(image) for an elementwise fn whose result is cast to `dtype`: over blocks on the CPU engine's
    threads for C-contiguous NumPy arrays, else whole."""
    if blockable(image) and image.size > 1 << 16:
        out = np.empty(image.shape, dtype)
        blockwise(lambda s, d: np.copyto(d, fn(s), casting="unsafe"), image, out)
        return out
    return xp_of(image).asarray(fn(image)).astype(dtype, copy=False)


def _gather(table, index):
    """table[index] for an integer `index` array whose values lie in the table, on every core."""
    xp = xp_of(index)
    if xp is not np:
        return xp.asarray(table)[index]
    table = np.asarray(table)
    return _pointwise(lambda s: np.take(table, s), index, table.dtype)


def _raw_index(image):
    """`image` as indices into a table over every value of its 8- or 16-bit integer (or bool) dtype: its bit
    patterns (signed values wrap), with the dtype's values in that table's order."""
    dt = image.dtype
    unsigned = np.dtype(f"u{dt.itemsize}")
    values = np.arange(2 if dt.kind == "b" else 1 << (8 * dt.itemsize), dtype=unsigned).view(dt)
    return image.view(unsigned), values


def _lut_map(fn, image, dtype):
    """fn(image) for an elementwise fn, through a table for 8/16-bit integer and bool images: fn evaluated
    (in the image's dtype: the same values) on the values between the image's minimum and maximum, the
    only ones it can meet; else pointwise. GPU images always take the table, evaluated on the host: CUDA's
    pow/log2/exp are up to 2 ulp from the host libm's, enough to move a value across an integer (the casts
    truncate)."""
    if image.dtype.kind in "biu" and image.dtype.itemsize <= 2 and (
            image.size > 1 << 12 or image.size and is_gpu_array(image)):
        index, values = _raw_index(image)
        lo, hi = _minmax(image)
        present = values[(values >= lo) & (values <= hi)]
        table = np.zeros(values.size, dtype)
        table[present.view(index.dtype)] = np.asarray(fn(present)).astype(dtype)
        return _gather(table, index)
    return _pointwise(fn, image, dtype)


def _minmax(image):
    """(np.min(image), np.max(image)) as Python scalars, from one pass of the core (NaN propagates)."""
    if image.size == 0 or image.dtype.kind not in "biuf" or image.dtype.itemsize == 8 and image.dtype.kind in "iu":
        xp = xp_of(image)
        return _to_host(xp.min(image))[()], _to_host(xp.max(image))[()]
    return stats_minmax(reduce.image_stats(image), image.dtype)


def stats_minmax(st, dtype):
    """(np.min, np.max) of an image of `dtype` from its statistics (reduce.image_stats' fields)."""
    if dtype.kind == "b":
        return bool(st.imin), bool(st.imax)
    if dtype.kind in "iu":
        if dtype == np.uint64:   # int64 bit patterns
            return st.imin % (1 << 64), st.imax % (1 << 64)
        return st.imin, st.imax
    if st.n_nan:
        return np.nan, np.nan
    lo = -np.inf if st.n_neginf else (st.min if st.n_finite else np.inf)
    hi = np.inf if st.n_posinf else (st.max if st.n_finite else -np.inf)
    return lo, hi


def _has_negative(image):
    """np.any(image < 0)."""
    if image.size == 0 or image.dtype.kind in "bu":
        return False
    lo, _ = _minmax(image)
    return bool(lo < 0)


# ---------------------------------------------------------------------------------------------------
# Histograms
# ---------------------------------------------------------------------------------------------------

def check_histogram_call(shape, source_range, channel_axis):
    """scikit-image's warning for a flattened colour image and its check of source_range."""
    if len(shape) == 3 and shape[-1] < 4 and channel_axis is None:
        warnings.warn("This might be a color image. The histogram will be computed on the flattened image. You "
                      "can instead apply this function to each color channel, or set channel_axis.",
                      UserWarning, stacklevel=4)
    if source_range not in ["image", "dtype"]:
        raise ValueError(f"Incorrect value for `source_range` argument: {source_range}")


def _bins(image, nbins, source_range):
    """The bins skimage.exposure.histogram counts `image` in (an ndimg.filters._thresholding._Bins: counts
    any part of the image with .count(part), .centers as NumPy)."""
    st = reduce.image_stats(image) if source_range == "image" and image.size and image.dtype.kind in "biuf" else None
    return bins_for(image.dtype, image.size, st, nbins, source_range)


def bins_for(dtype, size, st, nbins, source_range):
    """_bins from the image's dtype, size and statistics ``st`` (reduce.image_stats; None for an empty
    image or source_range 'dtype')."""
    if source_range == "image":
        if dtype.kind in "iu" and st is not None:
            _check_allocation(int(stats_minmax(st, dtype)[1]) - int(stats_minmax(st, dtype)[0]) + 1)
        return _Bins(dtype, size, st, nbins)
    # 'dtype': the dtype's nominal range (numpy.histogram's given range for non-integers)
    b = object.__new__(_Bins)
    b.dtype = dtype
    lo, hi = _dtype_limits(dtype)
    if dtype.kind in "iu":
        b.lo, b.n = int(lo), int(hi) - int(lo) + 1
        _check_allocation(b.n)
        b.centers = np.arange(lo, hi + 1)
        return b
    if dtype.kind == "b":   # numpy.histogram's range=(False, True)
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` "
                        "operator, or the logical_xor function instead.")
    b.nbins = nbins = _check_nbins(nbins)
    first, last = lo + 0.0, hi + 0.0
    bin_type = np.result_type(first, last, np.empty(0, dtype))
    b.range = (first, last)
    b.edges = np.linspace(first, last, nbins + 1, endpoint=True, dtype=bin_type)
    b.centers = (b.edges[:-1] + b.edges[1:]) / 2.0
    return b


def _counts(bins, part, normalize):
    counts = bins.count(part)
    return counts / np.sum(counts) if normalize else counts


def _check_allocation(n):
    """NumPy's errors where the reference would allocate `n` counts (and centers) it cannot hold."""
    check_allocation((n,), np.int64, extra_bytes_per_element=8)


_channel_last = channel_as_last_axis


def _moveaxis(a, source, destination):
    """np.moveaxis for NumPy, CuPy and Dask arrays."""
    if type(a).__module__.startswith("dask"):
        import dask.array as da

        return da.moveaxis(a, source, destination)
    return xp_of(a).moveaxis(a, source, destination)


@engine_aware("image")
def histogram(image, nbins=256, source_range="image", normalize=False, *, channel_axis=None):
    image, _ = _channel_last(image, channel_axis)
    xp = xp_of(image)
    sh = image.shape
    check_histogram_call(sh, source_range, channel_axis)
    if image.dtype.kind in "cO":
        if source_range == "image":   # numpy's histogram (the core takes no complex values)
            from ..filters._thresholding import _histogram

            hist, centers = _histogram(image, nbins, normalize)
            return xp.asarray(hist), xp.asarray(centers)
        raise KeyError(image.dtype.type)
    if channel_axis is None and source_range == "image" and image.dtype.kind in "iu" and image.dtype.itemsize <= 2 \
            and image.size:
        # one pass: every value of the dtype counted, then the span from the smallest to the largest present
        lo = int(np.iinfo(image.dtype).min)
        counts = _to_host(_hist.integer_counts(image, lo=lo, nbins=1 << (8 * image.dtype.itemsize)))
        first, last = np.flatnonzero(counts)[[0, -1]]
        hist = counts[first:last + 1]
        return xp.asarray(hist / np.sum(hist) if normalize else hist), xp.asarray(np.arange(lo + first, lo + last + 1))
    bins = _bins(image, nbins, source_range)
    if channel_axis is not None:
        hist = np.stack([_counts(bins, image[..., c], normalize) for c in range(sh[-1])], axis=0)
    else:
        hist = _counts(bins, image, normalize)
    return xp.asarray(hist), xp.asarray(bins.centers)


@engine_aware("image")
def cumulative_distribution(image, nbins=256):
    hist, centers = histogram(image, nbins)
    xp = xp_of(hist)
    cdf = hist.cumsum()
    cdf = cdf / float(_to_host(cdf[-1]))
    return cdf.astype(supported_float_type(image.dtype), copy=False), xp.asarray(centers)


def _interp(x, xp_, fp, dtype):
    """np.interp(x, xp_, fp) (increasing, near-equally spaced xp_) cast to `dtype`, on every core: the
    interval from the spacing, corrected against the points, then NumPy's slope * (x - xp[j]) + fp[j]."""
    xp_ = np.asarray(xp_, dtype=np.float64)
    fp = np.asarray(fp, dtype=np.float64)
    n = xp_.size
    if n == 1:   # NumPy: fp[0] for every x, NaN included
        return _pointwise(lambda s: np.full(s.shape, fp[0]), x, dtype)
    lo, hi = xp_[0], xp_[-1]
    inv = (n - 1) / (hi - lo)
    slopes = np.append((fp[1:] - fp[:-1]) / (xp_[1:] - xp_[:-1]), 0.0)   # x == xp[-1]: fp[-1]
    points = np.append(xp_, np.inf)

    def f(s):
        shape = s.shape
        s = s.astype(np.float64, copy=False).reshape(-1)
        xc = np.clip(s, lo, hi)   # below/above the points: fp[0]/fp[-1]; NaN stays
        j = ((np.fmin(np.fmax(s, lo), hi) - lo) * inv).astype(np.intp)
        np.minimum(j, n - 1, out=j)
        j -= xc < points[j]
        j += xc >= points[j + 1]
        return (slopes[j] * (xc - xp_[j]) + fp[j]).reshape(shape)

    return _pointwise(f, x, dtype)


@engine_aware("image", "mask")
def equalize_hist(image, nbins=256, mask=None):
    xp = xp_of(image)
    if mask is not None:
        mask = xp.array(mask, dtype=bool)
        cdf, centers = cumulative_distribution(image[mask], nbins)
    else:
        cdf, centers = cumulative_distribution(image, nbins)
    return equalize_with(image, _to_host(cdf), _to_host(centers), supported_float_type(image.dtype))


def equalize_with(image, cdf, centers, out_type):
    """np.interp(image, centers, cdf) as `out_type` (host `cdf` and `centers`), on the image's engine."""
    xp = xp_of(image)
    if image.dtype.kind in "iu" and image.dtype.itemsize <= 2:
        # every value of the dtype through np.interp once: a table (interp at the centers is exact)
        index, values = _raw_index(image)
        return _gather(np.interp(values, centers, cdf).astype(out_type), index)
    if image.dtype.kind in "iu":
        lo, hi = int(centers[0]), int(centers[-1])
        table = np.interp(np.arange(lo, hi + 1), centers, cdf).astype(out_type)
        return _gather(table, (image.clip(lo, hi).astype(np.int64) - lo))
    if xp is not np:   # CuPy's interpolation, in float64 as NumPy's
        out = xp.interp(image.ravel().astype(np.float64), xp.asarray(centers, dtype=np.float64),
                        xp.asarray(cdf, dtype=np.float64))
        return out.reshape(image.shape).astype(out_type, copy=False)
    return _interp(image, centers, cdf, out_type)


# ---------------------------------------------------------------------------------------------------
# Intensity rescaling
# ---------------------------------------------------------------------------------------------------

def intensity_range(image, range_values="image", clip_negative=False, minmax=_minmax):
    if range_values == "dtype":
        range_values = image.dtype.type
    if range_values == "image":
        i_min, i_max = minmax(image)
    elif range_values in DTYPE_RANGE:
        i_min, i_max = DTYPE_RANGE[range_values]
        if clip_negative:
            i_min = 0
    else:
        i_min, i_max = range_values
    return i_min, i_max


def _output_dtype(dtype_or_range, image_dtype):
    if type(dtype_or_range) in [list, tuple, np.ndarray]:
        return supported_float_type(image_dtype)
    if type(dtype_or_range) == type:  # noqa: E721 - scikit-image's test
        return dtype_or_range
    if dtype_or_range in DTYPE_RANGE:
        try:
            return np.dtype(dtype_or_range).type
        except TypeError:  # uint10, uint12, uint14
            return np.uint16
    raise ValueError("Incorrect value for out_range, should be a valid image data type or a pair of values, "
                     f"got {dtype_or_range}.")


@engine_aware("image")
def rescale_intensity(image, in_range="image", out_range="dtype"):
    f, out_dtype = rescale_map(image, in_range, out_range)
    return _lut_map(f, image, out_dtype)


def rescale_map(image, in_range, out_range, minmax=_minmax):
    """(f, dtype): rescale_intensity as an elementwise map f (its result of dtype `dtype`), the ranges taken
    from the image (its extremes by ``minmax(image)``) as scikit-image takes them."""
    if out_range in ["dtype", "image"]:
        out_dtype = _output_dtype(image.dtype.type, image.dtype)
    else:
        out_dtype = _output_dtype(out_range, image.dtype)
    imin, imax = map(float, intensity_range(image, in_range, minmax=minmax))
    omin, omax = map(float, intensity_range(image, out_range, clip_negative=(imin >= 0), minmax=minmax))
    if np.any(np.isnan([imin, imax, omin, omax])):
        warnings.warn("One or more intensity levels are NaN. Rescaling will broadcast NaN to the full image. "
                      "Provide intensity levels yourself to avoid this. E.g. with np.nanmin(image), "
                      "np.nanmax(image).", UserWarning, stacklevel=4)
    if imin != imax:
        def f(s):
            s = (s.clip(imin, imax) - imin) / (imax - imin)
            return cast_like_host(s * (omax - omin) + omin, out_dtype)
    else:
        def f(s):
            return cast_like_host(s.clip(imin, imax).clip(omin, omax), out_dtype)
    return f, out_dtype


# ---------------------------------------------------------------------------------------------------
# Gamma, log and sigmoid corrections
# ---------------------------------------------------------------------------------------------------

def _assert_non_negative(image):
    if not hasattr(image, "dtype"):
        image < 0   # noqa: B015 - scikit-image compares whatever it is given (TypeError for lists)
    if _has_negative(image):
        raise ValueError("Image Correction methods work correctly only on images with non-negative values. Use "
                         "skimage.exposure.rescale_intensity.")


def _scale(dtype):
    lo, hi = _dtype_limits(dtype, clip_negative=True)
    return float(hi - lo)


@engine_aware("image")
def adjust_gamma(image, gamma=1, gain=1):
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    dtype = image.dtype.type
    if dtype is np.uint8:
        lut = 255 * gain * (np.linspace(0, 1, 256) ** gamma)
        lut = np.minimum(np.rint(lut), 255).astype("uint8")
        return _gather(lut, image)
    _assert_non_negative(image)
    scale = _scale(image.dtype)
    # x ** 1 is x in IEEE arithmetic (the host's pow): not left to CUDA's pow, whose error moves integers
    power = (lambda v: v) if gamma == 1 else (lambda v: v ** gamma)
    return _lut_map(lambda s: cast_like_host(power(s / scale) * scale * gain, dtype), image, dtype)


@engine_aware("image")
def adjust_log(image, gain=1, inv=False):
    _assert_non_negative(image)
    dtype = image.dtype.type
    scale = _scale(image.dtype)
    if inv:
        return _lut_map(lambda s: cast_like_host((2 ** (s / scale) - 1) * scale * gain, dtype), image, dtype)
    return _lut_map(lambda s: cast_like_host(np.log2(1 + s / scale) * scale * gain, dtype), image, dtype)


@engine_aware("image")
def adjust_sigmoid(image, cutoff=0.5, gain=10, inv=False):
    _assert_non_negative(image)
    dtype = image.dtype.type
    scale = _scale(image.dtype)
    if inv:
        return _lut_map(lambda s: cast_like_host((1 - 1 / (1 + np.exp(gain * (cutoff - s / scale)))) * scale, dtype),
                        image, dtype)
    return _lut_map(lambda s: cast_like_host((1 / (1 + np.exp(gain * (cutoff - s / scale)))) * scale, dtype),
                    image, dtype)


# ---------------------------------------------------------------------------------------------------
# Low contrast
# ---------------------------------------------------------------------------------------------------

def _percentiles(image, q):
    """np.percentile(image, q) (linear method): from the counts of each value for 8/16-bit integers, the
    two order statistics NumPy interpolates between and its interpolation; else NumPy's/CuPy's."""
    xp = xp_of(image)
    if xp is np and image.dtype.kind == "f" and image.size:
        # NumPy's percentile of the sorted values (its selection, on sorted input, is one cheap pass; a full
        # sort is faster than the selection on unsorted input)
        return np.percentile(np.sort(image, axis=None), q)
    if image.dtype.kind not in "iu" or image.dtype.itemsize > 2 or image.size == 0:
        return _to_host(xp.percentile(image, xp.asarray(q, dtype=np.float64)))
    lo, hi = _minmax(image)
    cum = np.cumsum(_to_host(_hist.integer_counts(image, lo=lo, nbins=hi - lo + 1)))
    below, above, t = percentile_ranks(image.size, q)
    # the k-th smallest value: the first value whose cumulative count exceeds k
    a = (lo + np.searchsorted(cum, below, side="right")).astype(image.dtype)
    b = (lo + np.searchsorted(cum, above, side="right")).astype(image.dtype)
    return lerp(a, b, t)


def percentile_ranks(n, q):
    """For np.percentile's linear method over n values: the ranks of the two order statistics each
    percentile in `q` lies between, and the fraction t of the way (NumPy's arithmetic)."""
    q = np.true_divide(q, 100)
    if not np.all((q >= 0) & (q <= 1)):
        raise ValueError("Percentiles must be in the range [0, 100]")
    virtual = (n - 1) * q   # NumPy's virtual index of the linear method
    below = np.clip(np.floor(virtual), 0, n - 1)
    return below.astype(np.int64), np.minimum(below + 1, n - 1).astype(np.int64), virtual - np.floor(virtual)


def lerp(a, b, t):
    """NumPy's _lerp of order statistics `a`, `b` (arrays of the image's dtype): a + (b - a) * t, from the
    other end where t >= 0.5."""
    diff = b - a
    return np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)


@engine_aware("image")
def is_low_contrast(image, fraction_threshold=0.05, lower_percentile=1, upper_percentile=99, method="linear"):
    xp = xp_of(image)
    image = xp.asarray(image) if xp is not np else np.asanyarray(image)
    if image.dtype == bool:
        lo, hi = _minmax(image) if image.size else (xp.min(image), xp.max(image))
        return not ((hi == 1) and (lo == 0))
    if image.ndim == 3 and image.shape[2] in (3, 4):
        from .. import color

        if image.shape[2] == 4:
            image = color.rgba2rgb(image)
        image = color.rgb2gray(image)
    dlimits = _dtype_limits(image.dtype, clip_negative=False)
    limits = _percentiles(image, [lower_percentile, upper_percentile])
    ratio = (limits[1] - limits[0]) / (dlimits[1] - dlimits[0])
    return ratio < fraction_threshold

"""skimage.filters' thresholding methods on the ndimg engines.

Everything that touches every pixel (statistics, histograms, Li's class sums, hysteresis labelling, local
mean/std) runs in the core on the image's engine; the methods' O(nbins) logic runs here on the small
histogram, in the same float32 arithmetic as scikit-image so that ties break the same way.
"""
from __future__ import annotations

import inspect
import math
import numbers
import operator
import types
import warnings
from collections import OrderedDict
from collections.abc import Iterable

import numpy as np

from .._engine import engine_aware, is_gpu_array, xp_of
from .._prim import histogram, label, reduce, threshold
from .._rules import array_argument, as_image, check_allocation, check_extendable, supported_float_type

__all__ = ["try_all_threshold", "threshold_otsu", "threshold_yen", "threshold_isodata", "threshold_li",
           "threshold_local", "threshold_minimum", "threshold_mean", "threshold_niblack", "threshold_sauvola",
           "threshold_triangle", "apply_hysteresis_threshold", "threshold_multiotsu"]


# ---------------------------------------------------------------------------------------------------
# Image primitives (core) and skimage.exposure.histogram(image.ravel(), nbins, source_range='image')
# ---------------------------------------------------------------------------------------------------

def _to_host(a):
    """A device array copied to the host; anything else (NumPy, the Python objects of object arrays) as is."""
    return a.get() if hasattr(a, "__cuda_array_interface__") else a


def _first(image):
    """The first pixel in C order as image.ravel()[0] gives it (IndexError on an empty image)."""
    v = _to_host(image[(0,) * image.ndim])  # a device array's is a 0-d array; an object array's, its object
    return v[()] if isinstance(v, np.ndarray) else v


def _all_equal(dtype, size, st):
    """np.all(image == image.ravel()[0]) from the image statistics."""
    if dtype.kind == "f":
        if st.n_nan:
            return False
        return (st.n_finite == size and st.min == st.max) or st.n_posinf == size or st.n_neginf == size
    return st.imin == st.imax


def _check_nbins(nbins):
    if isinstance(nbins, str):  # NumPy's bin estimators ('auto', ...): not taken here
        raise ValueError(f"{nbins!r} is not a valid estimator for `bins`")
    try:
        nbins = operator.index(nbins)
    except TypeError as e:
        raise TypeError("`bins` must be an integer, a string, or an array") from e
    if nbins < 1:
        raise ValueError("`bins` must be positive, when an integer")
    return nbins


class _Bins:
    """The bins skimage.exposure.histogram(image.ravel(), nbins, source_range='image') counts a real image
    in, fixed by its dtype, size and statistics ``st`` (None for an empty image). ``count(part)`` counts
    any part of the image into them (the whole image, or one chunk of a Dask array: the counts add up)."""

    def __init__(self, dtype, size, st, nbins):
        self.dtype = dtype
        if dtype.kind in "iu":
            if size == 0:
                raise ValueError("zero-size array to reduction operation minimum which has no identity")
            self.lo, self.n = st.imin, st.imax - st.imin + 1
            self.centers = np.arange(st.imin, st.imax + 1)
            return
        self.nbins = nbins = _check_nbins(nbins)
        if size == 0:
            first, last = 0, 1
        else:
            if st.n_nan or st.n_posinf or st.n_neginf:
                lo = np.nan if st.n_nan else (-np.inf if st.n_neginf else st.min)
                hi = np.nan if st.n_nan else (np.inf if st.n_posinf else st.max)
                raise ValueError(f"autodetected range of [{lo}, {hi}] is not finite")
            if dtype.kind == "f":
                first, last = dtype.type(st.min), dtype.type(st.max)
            else:  # bool, binned as uint8 by numpy.histogram
                first, last = np.uint8(st.imin), np.uint8(st.imax)
        if dtype == np.float16:
            # NumPy bins float16 in float16 arithmetic, which neither the core nor CuPy (it bins differently
            # near the edges) models: NumPy's own histogram over the image's range, as on the whole image
            self.range = (first, last)
            self.edges = np.histogram_bin_edges(np.empty(0, dtype), bins=nbins, range=self.range)
        else:
            if first == last:
                first, last = first - 0.5, last + 0.5
            bin_type = np.result_type(first, last, np.uint8 if dtype == bool else dtype)
            if np.issubdtype(bin_type, np.integer):
                bin_type = np.result_type(bin_type, float)
            self.edges = np.linspace(first, last, nbins + 1, endpoint=True, dtype=bin_type)
            if np.any(self.edges[:-1] >= self.edges[1:]):  # NumPy's check, before the counts are allocated
                raise ValueError(f"Too many bins for data range. Cannot create {nbins} finite-sized bins.")
        self.centers = (self.edges[:-1] + self.edges[1:]) / 2.0

    def count(self, part):
        """The int64 counts (NumPy) of ``part``'s values in these bins, on its engine."""
        if self.dtype.kind in "iu":
            return _to_host(histogram.integer_counts(part, lo=self.lo, nbins=self.n))
        if part.dtype == bool:
            part = part.view(np.uint8)
        if self.dtype == np.float16:
            return np.histogram(_to_host(part).ravel(), bins=self.nbins, range=self.range)[0]
        return _to_host(histogram.uniform_counts(part, edges=self.edges))


def _histogram(image, nbins=256, normalize=False):
    """(counts, bin_centers) as NumPy arrays, like skimage.exposure.histogram with source_range='image'."""
    if image.dtype.kind in "cO":
        # NumPy bins complex values in complex arithmetic, which the core does not model: NumPy's (CuPy's
        # histogram takes no complex values)
        xp = np if image.dtype.kind == "c" else xp_of(image)
        counts, edges = xp.histogram(_to_host(image).ravel() if xp is np else image.ravel(), bins=_check_nbins(nbins))
        counts, edges = _to_host(counts), _to_host(edges)
        centers = (edges[:-1] + edges[1:]) / 2.0
    else:
        bins = _Bins(image.dtype, image.size, reduce.image_stats(image) if image.size else None, nbins)
        counts, centers = bins.count(image), bins.centers
    return (_normalized(counts) if normalize else counts), centers


def _normalized(counts):
    return counts / np.sum(counts)


def _trimmed_hist(hist):
    """A given histogram (counts, or (counts, centers)) as NumPy arrays, trimmed of empty end bins (as
    skimage's _validate_image_histogram)."""
    if isinstance(hist, (tuple, list)):
        counts, centers = (_to_host(h) if hasattr(h, "__cuda_array_interface__") else np.asarray(h) for h in hist)
    else:
        counts = _to_host(hist) if hasattr(hist, "__cuda_array_interface__") else np.asarray(hist)
        centers = np.arange(counts.size)
    if counts[0] == 0 or counts[-1] == 0:
        nz = np.flatnonzero(counts > 0)
        start, end = (nz[0], nz[-1] + 1) if nz.size else (0, 0)
        counts, centers = counts[start:end], centers[start:end]
    return counts, centers


def _counts_and_centers(image, hist, nbins=None, normalize=False):
    """skimage's _validate_image_histogram: a given histogram (trimmed of empty end bins) or the image's."""
    if image is None and hist is None:
        raise Exception("Either image or hist must be provided.")
    counts, centers = _trimmed_hist(hist) if hist is not None else _histogram(image, nbins, normalize=normalize)
    return counts.astype(np.float32, copy=False), centers


def _warn_rgb(image, name):
    if image is not None and image.ndim > 2 and image.shape[-1] in (3, 4):
        warnings.warn(f"{name} is expected to work correctly only for grayscale images; image shape "
                      f"{image.shape} looks like that of an RGB image.", UserWarning, stacklevel=3)


# ---------------------------------------------------------------------------------------------------
# Global thresholds
# ---------------------------------------------------------------------------------------------------

@engine_aware("image")
def threshold_otsu(image=None, nbins=256, *, hist=None):
    _warn_rgb(image, "threshold_otsu")
    if image is not None:
        first = _first(image)
        if bool((image == first).all()) if image.dtype.kind in "cO" else \
                _all_equal(image.dtype, image.size, reduce.image_stats(image)):  # the reductions take no complex values
            return first
    return _otsu(*_counts_and_centers(image, hist, nbins))


def _otsu(counts, centers):
    """Otsu's threshold of a (float32) histogram."""
    # class weights and means for every split "bins <= i | bins > i"
    w_low = np.cumsum(counts)
    w_high = np.cumsum(counts[::-1])[::-1]
    m_low = np.cumsum(counts * centers) / w_low
    m_high = (np.cumsum((counts * centers)[::-1]) / w_high[::-1])[::-1]
    between = w_low[:-1] * w_high[1:] * (m_low[:-1] - m_high[1:]) ** 2
    return centers[np.argmax(between)]


@engine_aware("image")
def threshold_yen(image=None, nbins=256, *, hist=None):
    return _yen(*_counts_and_centers(image, hist, nbins))


def _yen(counts, centers):
    if centers.size == 1:
        return centers[0]
    pmf = counts / counts.sum()
    cum = np.cumsum(pmf)
    sq_low = np.cumsum(pmf ** 2)
    sq_high = np.cumsum(pmf[::-1] ** 2)[::-1]
    crit = np.log(((sq_low[:-1] * sq_high[1:]) ** -1) * (cum[:-1] * (1.0 - cum[:-1])) ** 2)
    return centers[crit.argmax()]


@engine_aware("image")
def threshold_isodata(image=None, nbins=256, return_all=False, *, hist=None):
    found = _isodata(*_counts_and_centers(image, hist, nbins))
    xp = np if image is None else xp_of(image)  # return_all: an array of the image's library
    return xp.asarray(found) if return_all else found[0]


def _isodata(counts, centers):
    """Every bin center that is the mean of the two class means it splits (within a bin width)."""
    if len(centers) == 1:
        return centers
    n_low = np.cumsum(counts)
    n_high = n_low[-1] - n_low
    cum_intensity = np.cumsum(counts * centers)
    mean_low = cum_intensity[:-1] / n_low[:-1]
    mean_high = (cum_intensity[-1] - cum_intensity[:-1]) / n_high[:-1]
    midpoint = (mean_low + mean_high) / 2.0
    width = centers[1] - centers[0]
    gap = midpoint - centers[:-1]
    return centers[:-1][(gap >= 0) & (gap < width)]


@engine_aware("image")
def threshold_li(image, *, tolerance=None, initial_guess=None, iter_callback=None):
    if not hasattr(image, "dtype"):  # scikit-image indexes and compares it as an array
        raise TypeError(f"threshold_li takes an array, not {type(image).__name__}")
    if image.size == 0:
        return np.nan
    xp = xp_of(image)
    st = reduce.image_stats(image)
    work, moved = image, False
    if image.dtype == np.float16:   # the core reads float32
        work = image.astype(np.float32)
        if st.n_finite and np.isfinite(st.min):
            # scikit-image shifts the image to start at 0 in float16: Li iterates over those rounded values
            with np.errstate(all="ignore"):
                work = (image - np.float16(st.min)).astype(np.float32)
            moved = True
            st = types.SimpleNamespace(**{k: getattr(st, k) for k in _STATS})
            st.sum = float(reduce.image_stats(work).sum) + st.n_finite * float(st.min)

    def shifted(image_min):
        values = work[xp.isfinite(work)] if work.dtype.kind == "f" else work.ravel()
        return values if moved else values - image_min

    def split(shift, t):
        s = reduce.split_sums(work, shift=0.0 if moved else shift, t=t)
        return s.sum_above, s.n_above, s.sum_below, s.n_below

    return _li(image.dtype, image.size, st, tolerance, initial_guess, iter_callback,
               first=lambda: _first(image), histogram=lambda: _histogram(image), shifted=shifted,
               min_gap=lambda shift: reduce.min_gap(work, shift=0.0 if moved else shift), split=split)


_STATS = ("min", "max", "sum", "imin", "imax", "n_nan", "n_posinf", "n_neginf", "n_finite")


def _li(dtype, size, st, tolerance, initial_guess, iter_callback, *, first, histogram, shifted, min_gap, split):
    """Li's iterative minimum cross-entropy threshold of a non-empty image of ``dtype`` and ``size`` with
    statistics ``st``, reading the image through callables: ``first()`` its first value, ``histogram()``
    its (integer) histogram, ``shifted(image_min)`` its finite values minus image_min, ``min_gap(shift)``
    and ``split(shift, t)`` (the sums and counts above and at or below t: reduce.split_sums)."""
    kind = dtype.kind
    n = size - st.n_nan
    if n == 0:
        return np.nan
    # constant (NaN aside): return that value, infinities included
    if st.n_posinf == n or st.n_neginf == n or (st.n_finite == n and (
            (kind == "f" and st.min == st.max) or (kind != "f" and st.imin == st.imax))):
        if st.n_nan == 0:
            return first()
        return dtype.type(np.inf if st.n_posinf else -np.inf if st.n_neginf else st.min)  # the first non-NaN
    if st.n_finite == 0:
        return 0.0
    if kind == "b":
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported")
    integer = kind in "iu"
    dt = dtype.type
    image_min = dt(st.imin if integer else st.min)
    # Li takes logarithms of class means: values are shifted to start at 0 (in the image's dtype, so integer
    # images wrap where the span exceeds the dtype, as in scikit-image)
    if integer:
        counts, centers = histogram()
        shifted_centers = (centers - centers[0]).astype(dtype)
        lo = int(shifted_centers.min())
        counts_s = np.zeros(int(shifted_centers.max()) - lo + 1, dtype=np.int64)
        np.add.at(counts_s, shifted_centers.astype(np.int64) - lo, counts)
        keep = np.flatnonzero(counts_s)
        counts = counts_s[keep[0]:keep[-1] + 1]
        centers = np.arange(lo + keep[0], lo + keep[-1] + 1)
        span = centers[-1]
        tolerance = tolerance or 0.5
        mean = float(np.dot(counts, centers.astype(np.float64))) / size
    else:
        span = dt(dt(st.max) - image_min)
        if not tolerance:
            gap = min_gap(image_min)
            if gap == np.inf:  # one finite value (beside infinities): np.min of no differences
                raise ValueError("zero-size array to reduction operation minimum which has no identity")
            tolerance = dt(gap) / 2
        mean = dt((st.sum - st.n_finite * float(image_min)) / st.n_finite)
    if initial_guess is None:
        t_next = mean
    elif callable(initial_guess):
        t_next = initial_guess(shifted(image_min))
    elif np.isscalar(initial_guess):
        t_next = initial_guess - float(image_min)
        if not 0 < t_next < span:
            raise ValueError(f"The initial guess for threshold_li must be within the range of the image. Got "
                             f"{initial_guess} for image min {image_min} and max {span + image_min}.")
        t_next = dt(t_next)
    else:
        raise TypeError("Incorrect type for `initial_guess`; should be a floating point value, or a function "
                        "mapping an array to a floating point value.")
    t_curr = -2 * tolerance
    if iter_callback is not None:
        iter_callback(t_next + image_min)
    if integer:
        weights = counts.astype(np.float32)
        while abs(t_next - t_curr) > tolerance:
            t_curr = t_next
            fore = centers > t_curr
            mean_fore = np.average(centers[fore], weights=weights[fore])
            mean_back = np.average(centers[~fore], weights=weights[~fore])
            if mean_back == 0:
                break
            t_next = (mean_back - mean_fore) / (np.log(mean_back) - np.log(mean_fore))
            if iter_callback is not None:
                iter_callback(t_next + image_min)
    else:
        while abs(t_next - t_curr) > tolerance:
            t_curr = t_next
            s_fore, n_fore, s_back, n_back = split(image_min, t_curr)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean_fore = dt(s_fore / n_fore) if n_fore else dt(np.nan)
                mean_back = dt(s_back / n_back) if n_back else dt(np.nan)
                if mean_back == 0.0:
                    break
                t_next = (mean_back - mean_fore) / (np.log(mean_back) - np.log(mean_fore))
            if iter_callback is not None:
                iter_callback(t_next + image_min)
    return t_next + image_min


@engine_aware("image")
def threshold_minimum(image=None, nbins=256, max_num_iter=10000, *, hist=None):
    return _minimum(*_counts_and_centers(image, hist, nbins), max_num_iter)


def _minimum(counts, centers, max_num_iter):
    from ..ndimage import uniform_filter1d

    smooth = counts.astype(np.float32, copy=False)
    peaks = []
    counter = 0
    for counter in range(max_num_iter):
        smooth = uniform_filter1d(smooth, 3)  # O(nbins) on the host histogram
        peaks = _local_maxima(smooth)
        if len(peaks) < 3:
            break
    if len(peaks) != 2:
        raise RuntimeError("Unable to find two maxima in histogram")
    elif counter == max_num_iter - 1:
        raise RuntimeError("Maximum iteration reached for histogramsmoothing")
    lowest = np.argmin(smooth[peaks[0]:peaks[1] + 1])
    return centers[peaks[0] + lowest]


def _local_maxima(h):
    """Indices where a rise (or the start) turns into a fall; flat steps keep the current direction."""
    step = np.sign(np.diff(h))
    moves = np.flatnonzero(step)
    direction = step[moves]
    before = np.concatenate([[1], direction[:-1]])
    return moves[(direction < 0) & (before > 0)].tolist()


@engine_aware("image")
def threshold_mean(image):
    image = as_image(image)  # np.mean takes lists and scalars
    xp = xp_of(image)
    if image.size == 0 or image.dtype == np.float16 or image.dtype.kind not in "biuf":  # complex, objects: NumPy's
        return xp.mean(image)
    m = reduce.mean(image)  # a GPU image's stays there: a 0-d array, as cuCIM's, and no synchronisation
    return m[()] if xp is np else m


@engine_aware("image")
def threshold_triangle(image, nbins=256):
    return _triangle(*_histogram(image, nbins), lambda: _first(image))


def _triangle(counts, centers, first):
    """The triangle threshold of a histogram; ``first()`` gives the image's first value (its threshold
    when all its values fall in one bin)."""
    nbins = len(counts)
    peak = np.argmax(counts)
    height = counts[peak]
    nz = np.flatnonzero(counts)
    low, high = nz[0], nz[-1]
    if low == high:
        return first()
    flip = peak - low < high - peak
    if flip:
        counts = counts[::-1]
        low = nbins - high - 1
        peak = nbins - peak - 1
    width = peak - low
    x = np.arange(width)
    y = counts[x + low]
    norm = np.sqrt(height ** 2 + width ** 2)
    height = height / norm
    width = width / norm
    level = np.argmax(height * x - width * y) + low
    if flip:
        level = nbins - level - 1
    return centers[level]


@engine_aware("image")
def threshold_multiotsu(image=None, classes=3, nbins=256, *, hist=None):
    _warn_rgb(image, "threshold_multiotsu")
    thresholds = _multiotsu(*_counts_and_centers(image, hist, nbins, normalize=True), classes)
    return thresholds if image is None else xp_of(image).asarray(thresholds)


def _multiotsu(prob, centers, classes):
    prob = prob.astype(np.float32, copy=False)
    nvalues = np.count_nonzero(prob)
    if nvalues < classes:
        raise ValueError(f"After discretization into bins, the input image has only {nvalues} different values. "
                         f"It cannot be thresholded in {classes} classes. If there are more unique values before "
                         f"discretization, try increasing the number of bins (`nbins`).")
    if nvalues == classes:
        idx = np.flatnonzero(prob)[:-1]
    else:
        idx = threshold.multiotsu_indices(prob, thresh_count=int(classes) - 1)
    return centers[idx]


# ---------------------------------------------------------------------------------------------------
# Local thresholds
# ---------------------------------------------------------------------------------------------------

@engine_aware("image")
def threshold_local(image, block_size=3, method="gaussian", offset=0, mode="reflect", param=None, cval=0):
    if np.isscalar(block_size):
        block_size = (block_size,) * image.ndim
    elif len(block_size) != image.ndim:
        raise ValueError("len(block_size) must equal image.ndim.")
    block_size = tuple(block_size)
    if any(b % 2 == 0 for b in block_size):
        raise ValueError(f"block_size must be odd! Given block_size {block_size} contains even values.")
    xp = xp_of(image)
    float_dtype = supported_float_type(image.dtype)
    image = image.astype(float_dtype, copy=False)
    out = xp.zeros(image.shape, dtype=float_dtype)
    from .. import ndimage as nd

    if method == "generic":  # a Python callable per pixel: ndimg's generic_filter, on the host
        out[...] = xp.asarray(nd.generic_filter(image.get() if xp is not np else image, param, block_size, mode=mode,
                                                cval=cval))
    elif method == "gaussian":
        sigma = tuple((b - 1) / 6.0 for b in block_size) if param is None else param
        if np.any(np.asarray(sigma) < 0):  # scikit-image's gaussian refuses them
            raise ValueError("Sigma values less than zero are not valid")
        nd.gaussian_filter(image, sigma, output=out, mode=mode, cval=cval, truncate=4.0)
    elif method == "mean":
        nd.uniform_filter(image, block_size, output=out, mode=mode, cval=cval)
    elif method == "median":
        nd.median_filter(image, block_size, output=out, mode=mode, cval=cval)
    else:
        raise ValueError("Invalid method specified. Please use `generic`, `gaussian`, `mean`, or `median`.")
    return out - offset


def _local(image, window_size, *, kind, k, r):
    xp = xp_of(image)
    w = tuple(window_size) if isinstance(window_size, Iterable) else (window_size,) * image.ndim
    for s in w:
        if s % 2 == 0:
            raise ValueError(f"Window size for `threshold_sauvola` or `threshold_niblack` must not be even on "
                             f"any dimension. Got {w}")
    # np.pad's checks on scikit-image's padding, in its order
    if image.ndim == 0 or not all(isinstance(s, (int, np.integer)) for s in w):
        raise TypeError("`pad_width` must be of integral type.")
    if len(w) != image.ndim:
        raise ValueError(f"window_size must have one entry per image axis, got {w} for a "
                         f"{image.ndim}-dimensional image")
    check_extendable(image.shape)
    float_dtype = supported_float_type(image.dtype)
    # scikit-image pads the image by the window and keeps two float64 integral images of the padded size
    check_allocation([n + s for n, s in zip(image.shape, w)], float_dtype, 16)
    if image.dtype == np.float16 or image.dtype.kind not in "biuf":  # object arrays of numbers too
        image = image.astype(float_dtype)
    return threshold.local_threshold(image, window=w, kind=kind, k=k, r=r,
                                     out=xp.empty(image.shape, dtype=float_dtype))


@engine_aware("image")
def threshold_niblack(image, window_size=15, k=0.2):
    return _local(image, window_size, kind=threshold.LocalKind.niblack, k=k, r=1.0)


_DTYPE_RANGE = {np.bool_: (False, True), np.float16: (-1, 1), np.float32: (-1, 1), np.float64: (-1, 1)}


@engine_aware("image")
def threshold_sauvola(image, window_size=15, k=0.2, r=None):
    if r is None:
        t = image.dtype.type
        if t not in _DTYPE_RANGE and image.dtype.kind not in "iu":
            raise KeyError(t)  # scikit-image's dtype_limits knows no range for it
        imin, imax = _DTYPE_RANGE[t] if t in _DTYPE_RANGE else (np.iinfo(t).min, np.iinfo(t).max)
        r = 0.5 * (imax - imin)
    return _local(image, window_size, kind=threshold.LocalKind.sauvola, k=k, r=r)


# ---------------------------------------------------------------------------------------------------
# Hysteresis
# ---------------------------------------------------------------------------------------------------

def _as_compared(high, dtype):
    """The upper threshold as NumPy compares it with an image of `dtype`: a Python number in a float image's
    own type (NEP 50: 0.7 is float16's 0.7002 for a float16 image); low, through np.clip, is a float64."""
    return dtype.type(high) if type(high) in (int, float) and dtype.kind == "f" else high


@engine_aware("image", "low", "high")
def apply_hysteresis_threshold(image, low, high):
    if isinstance(image, numbers.Number):  # compared with the thresholds as NumPy compares numbers
        image = np.asarray(image)
    elif not hasattr(image, "dtype"):
        raise TypeError(f"'>' not supported between instances of {type(image).__name__!r} and 'float'")
    xp = xp_of(image)
    if image.size == 0:  # scikit-image's labelling reduces over the pixels
        raise ValueError("zero-size array to reduction operation minimum which has no identity")
    # host thresholds clip on the host for any image (NumPy's errors for non-numbers, as scikit-image)
    low = xp.minimum(xp.asarray(low), xp.asarray(high)) if is_gpu_array(low) or is_gpu_array(high) \
        else np.clip(low, a_min=None, a_max=high)
    if xp is not np:  # host array thresholds (lists) compare with a device image as device arrays
        low, high = (xp.asarray(t) if np.ndim(t) else t for t in (low, high))
    high = _as_compared(high, image.dtype)
    out = xp.empty(image.shape, dtype=bool)
    if np.ndim(low) == 0 and np.ndim(high) == 0 and image.dtype.kind in "biuf":
        if image.ndim == 0:  # a NumPy bool scalar, as scikit-image
            return image > high
        return label.seeded_components(image, low=low, high=high, out=out)
    # array thresholds: the per-pixel classes (0, 1: above low, 2: above high) go to the core as uint8
    cls = (image > low).astype(np.uint8) + (image > high)
    cls = xp.broadcast_to(cls, xp.broadcast_shapes(image.shape, cls.shape)) if cls.shape != image.shape else cls
    out = xp.empty(cls.shape, dtype=bool)
    return label.seeded_components(cls, low=0, high=1, out=out)


# ---------------------------------------------------------------------------------------------------
# try_all_threshold (matplotlib, host)
# ---------------------------------------------------------------------------------------------------

def try_all_threshold(image, figsize=(8, 5), verbose=True):
    from matplotlib import pyplot as plt

    image = np.asarray(array_argument(image, "reshape"))  # a NumPy scalar becomes 0-d; lists are refused
    if not image.dtype.isnative:
        image = image.astype(image.dtype.newbyteorder("="))

    def binarize(func):
        def apply(im, **kw):
            return im > func(im, **kw)

        apply.__orifunc__ = getattr(func, "__orifunc__", "skimage.filters.thresholding." + func.__name__)
        apply.__signature__ = inspect.signature(func)
        return apply

    methods = OrderedDict([("Isodata", binarize(threshold_isodata)), ("Li", binarize(threshold_li)),
                           ("Mean", binarize(threshold_mean)), ("Minimum", binarize(threshold_minimum)),
                           ("Otsu", binarize(threshold_otsu)), ("Triangle", binarize(threshold_triangle)),
                           ("Yen", binarize(threshold_yen))])
    hist = _histogram(image, 256)
    num_cols = 2
    num_rows = math.ceil((len(methods) + 1.0) / num_cols)
    fig, ax = plt.subplots(num_rows, num_cols, figsize=figsize, sharex=True, sharey=True)
    ax = ax.reshape(-1)
    ax[0].imshow(image, cmap=plt.cm.gray)
    ax[0].set_title("Original")
    for i, (name, func) in enumerate(methods.items(), start=1):
        ax[i].set_title(name)
        # the three histogram-based methods that accept it reuse the histogram computed once
        kw = dict(hist=hist) if "hist" in inspect.signature(func).parameters else {}
        try:
            ax[i].imshow(func(image, **kw), cmap=plt.cm.gray)
        except Exception as e:
            ax[i].text(0.5, 0.5, f"{type(e).__name__}", ha="center", va="center", transform=ax[i].transAxes)
        if verbose:
            print(func.__orifunc__)
    for a in ax:
        a.axis("off")
    fig.tight_layout()
    return fig, ax

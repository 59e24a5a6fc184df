"""Pixel-wise comparison metrics (skimage.metrics.simple_metrics)."""
from __future__ import annotations

import warnings

import numpy as np

from .._engine import engine_aware, xp_of
from .._prim.histogram import joint_uniform_counts
from .._prim.reduce import diff_sums, image_stats
from ._common import as_floats, check_shape_equality, dtype_range, entropy, scalar


def _diff_sums(image0, image1):
    """The images' DiffSums in the float type scikit-image promotes their pair of dtypes to: one threaded
    pass, no float copies where both have one dtype (the primitive computes in that dtype's float type)."""
    if image0.dtype != image1.dtype or image0.dtype == np.float16 or image0.dtype.kind not in "biuf":
        image0, image1 = as_floats(image0, image1)  # objects become float64; complex is refused, as there
    return diff_sums(image0, image1)


def _value_range(image):
    """(min, max) of a non-empty image as NumPy's min()/max() give them (NaN when there is one), from one
    threaded pass on the host (GPU: one reduction and one synchronisation, not two of each)."""
    if image.size == 0 or image.dtype.kind not in "biuf" or image.dtype == np.uint64:  # NumPy's own rules
        return image.min(), image.max()
    return stats_range(image.dtype, image_stats(image))


def stats_range(dtype, st):
    """(min, max) as NumPy's min()/max() give them, from an image's statistics."""
    if dtype.kind != "f":
        if dtype == np.uint64:  # extremes kept as int64 bit patterns
            return st.imin % (1 << 64), st.imax % (1 << 64)
        return st.imin, st.imax
    if st.n_nan:
        return np.nan, np.nan
    return (-np.inf if st.n_neginf else st.min), (np.inf if st.n_posinf else st.max)


def _mean(total, n, xp):
    """total / n in float64: NumPy's float64 scalar, a 0-d array of a GPU library."""
    m = np.float64(total) / n
    return m if xp is np else xp.asarray(m)


def _mse(image0, image1):
    if image0.size == 0:  # NumPy's nan and its warning for a mean of nothing
        d = image0 - image1
        return xp_of(image0, image1).mean(d * d, dtype=np.float64)
    return _mean(_diff_sums(image0, image1).sum_sq_diff, image0.size, xp_of(image0, image1))


@engine_aware("image0", "image1")
def mean_squared_error(image0, image1):
    """Mean of the squared difference of two images of equal shape, in float64.

    Both images are promoted to the float type of their dtype pair (float32 for float16/float32 pairs,
    float64 otherwise) before subtracting, as in scikit-image.
    """
    check_shape_equality(image0, image1)
    return scalar(_mse(image0, image1))


@engine_aware("image_true", "image_test")
def normalized_root_mse(image_true, image_test, *, normalization="euclidean"):
    """Root mean squared error divided by 'euclidean' (root mean square of ``image_true``), 'min-max'
    (its range) or 'mean' (its mean)."""
    check_shape_equality(image_true, image_test)
    xp = xp_of(image_true, image_test)
    normalization = normalization.lower()
    if normalization == "euclidean" and image_true.size:  # both means from one pass
        sums = _diff_sums(image_true, image_test)
        return scalar(rmse_ratio(sums.sum_sq_diff, sums.sum_sq_a, image_true.size, xp))
    image_true, image_test = as_floats(image_true, image_test)
    if normalization == "euclidean":
        denom = xp.sqrt(xp.mean(image_true * image_true, dtype=np.float64))
    elif normalization == "min-max":
        denom = image_true.max() - image_true.min()
    elif normalization == "mean":
        denom = image_true.mean()
    else:
        raise ValueError("Unsupported norm_type")
    return scalar(xp.sqrt(_mse(image_true, image_test)) / denom)


def rmse_ratio(sum_sq_diff, sum_sq_a, n, xp):
    """The root mean square of a - b over that of a, from their sums."""
    return xp.sqrt(_mean(sum_sq_diff, n, xp)) / xp.sqrt(_mean(sum_sq_a, n, xp))


def nominal_bounds(image_true, image_test):
    """The nominal (min, max) of image_true's dtype, for peak_signal_noise_ratio's default data_range."""
    if image_true.dtype != image_test.dtype:
        warnings.warn("Inputs have mismatched dtype.  Setting data_range based on image_true.", stacklevel=4)
    return dtype_range(image_true.dtype)


def nominal_range(dmin, dmax, true_min, true_max):
    """The default data_range from the nominal bounds and image_true's (min, max): the whole nominal range,
    or its maximum alone without negative values."""
    if true_max > dmax or true_min < dmin:
        raise ValueError("image_true has intensity values outside the range expected for its data type. "
                         "Please manually specify the data_range.")
    return dmax if true_min >= 0 else dmax - dmin


def psnr(data_range, err, xp):
    return 10 * xp.log10(float(data_range)**2 / err)


@engine_aware("image_true", "image_test")
def peak_signal_noise_ratio(image_true, image_test, *, data_range=None):
    """10 log10(data_range^2 / MSE); data_range defaults to the nominal range of ``image_true``'s dtype
    (its maximum alone when the image has no negative values)."""
    check_shape_equality(image_true, image_test)
    xp = xp_of(image_true, image_test)
    if data_range is None:
        data_range = nominal_range(*nominal_bounds(image_true, image_test), *_value_range(image_true))
    return scalar(psnr(data_range, _mse(image_true, image_test), xp))


@engine_aware("image0", "image1")
def normalized_mutual_information(image0, image1, *, bins=100):
    """(H(A) + H(B)) / H(A, B) from the joint histogram of the two images (``bins`` per axis); images of
    different shapes (same ndim) are compared after zero-padding the smaller at the end of each axis."""
    if image0.dtype.kind == "c" or image1.dtype.kind == "c":  # scikit-image's entropy has no complex loop
        raise TypeError("ufunc 'entr' not supported for the input types, and the inputs could not be safely coerced "
                        "to any supported types according to the casting rule ''safe''")
    if image0.ndim != image1.ndim:
        raise ValueError(f"NMI requires images of same number of dimensions. Got {image0.ndim}D for "
                         f"`image0` and {image1.ndim}D for `image1`.")
    xp = xp_of(image0, image1)
    if image0.shape != image1.shape:
        shape = np.maximum(image0.shape, image1.shape)
        image0, image1 = (xp.pad(im, [(0, s - n) for s, n in zip(shape, im.shape)]) for im in (image0, image1))
    return scalar(nmi(_joint_density(image0, image1, bins)))


def nmi(hist):
    """(H(A) + H(B)) / H(A, B) of a joint histogram."""
    h0 = entropy(hist.sum(axis=0))
    h1 = entropy(hist.sum(axis=1))
    return (h0 + h1) / entropy(hist)


def joint_dtype(image0, image1, bins):
    """The dtype (histogramdd's stacked sample's) the joint-histogram primitive counts the pairs in, or None
    where histogramdd itself takes them (other bins than a positive integer; float16 and object images)."""
    dtype = np.result_type(image0.dtype, image1.dtype)
    if not isinstance(bins, (int, np.integer)) or bins < 1 or dtype == np.float16 or dtype.kind == "O":
        return None
    return dtype


def joint_edges(lo, hi, dtype, bins):
    """numpy.histogramdd's ``bins`` equal bins of one axis of the pairs, whose values range over [lo, hi],
    held in ``dtype``."""
    lo, hi = dtype.type(lo), dtype.type(hi)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise ValueError(f"autodetected range of [{lo}, {hi}] is not finite")
    return np.linspace(*((lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)), int(bins) + 1)


def _joint_density(image0, image1, bins):
    """numpy.histogramdd of the pairs (image0, image1) with ``bins`` equal bins per axis and density=True,
    as scikit-image takes it: the density cancels in the entropies but for rounding, and float32 images get
    float32 edges, whose widths (the density's divisors) differ in their last place. An integer ``bins``
    is counted by the joint-histogram primitive; other bins (and float16, object, empty images) go to histogramdd."""
    xp = xp_of(image0, image1)
    dtype = joint_dtype(image0, image1, bins)
    if dtype is None or image0.size == 0:
        sample = xp.stack([image0.reshape(-1), image1.reshape(-1)], axis=1)
        return xp.histogramdd(sample, bins=bins, density=True)[0]
    image0, image1 = (xp.asarray(im, dtype=dtype) for im in (image0, image1))
    edges = [joint_edges(im.min().item(), im.max().item(), dtype, bins) for im in (image0, image1)]
    return density(joint_uniform_counts(image0, image1, edges0=edges[0], edges1=edges[1]), edges, xp)


def density(counts, edges, xp):
    """histogramdd's density of joint ``counts`` over the bins of ``edges`` (two NumPy arrays)."""
    hist = counts.astype(np.float64)
    s = hist.sum()
    hist = hist / xp.asarray(np.diff(edges[0])).reshape(-1, 1)
    hist = hist / xp.asarray(np.diff(edges[1])).reshape(1, -1)
    hist /= s
    return hist

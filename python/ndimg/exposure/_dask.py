"""ndimg.exposure's global functions over Dask arrays, chunk-correct.

The histogram and the cumulative distribution are counted per chunk on the chunk's engine into the whole
image's bins (from the merged statistics of the chunks) and summed: lazy Dask arrays out. equalize_hist maps
each chunk through the whole image's distribution; rescale_intensity takes the whole image's extremes (one
reduction, computed first) and maps each chunk. match_histograms, is_low_contrast and equalize_adapthist
take no Dask arrays (NotImplementedError, from the registry).
"""
from __future__ import annotations

import numpy as np

from ..filters._thresholding_dask import add, blocks, delayed, known, stats, tree
from . import _exposure as _e


def _not_complex(image, name):
    if image.dtype.kind in "cO":
        raise NotImplementedError(f"ndimg.exposure.{name} does not take Dask arrays of {image.dtype}: compute() "
                                  f"the array first")


def _chunk_counts(bins, chunk, channels):
    if channels:
        return np.stack([bins.count(chunk[..., c]) for c in range(chunk.shape[-1])])
    return bins.count(chunk)


def _finish(counts, normalize):
    return counts / counts.sum(axis=-1, keepdims=True) if normalize else counts


def _centers(bins):
    return bins.centers


def _counts_and_bins(image, nbins, source_range, channels, mask=None):
    """The delayed summed counts (per channel with `channels`) and the delayed bins of a Dask image (of
    its elements under `mask`, a Dask array of its shape)."""
    dtype = image.dtype
    st = stats(image) if source_range == "image" else None
    if mask is not None:   # the masked elements' statistics and counts, chunk by chunk
        from ..filters._thresholding_dask import Stats, reduction

        st = reduction(lambda c, m: Stats.of(c[m]) if m.any() else None,
                       lambda parts: Stats.merge([p for p in parts if p is not None]), image, mask.astype(bool))
    size = image.size if mask is None else 1   # bins_for only tells an empty image (size 0) apart
    bins = delayed(_e.bins_for)(dtype, size, st, nbins, source_range)
    if mask is None:
        parts = (delayed(_chunk_counts)(bins, b, channels) for (b,) in blocks(image))
    else:
        parts = (delayed(lambda bn, b, m: bn.count(b[m.astype(bool)]))(bins, b, m) for b, m in blocks(image, mask))
    return tree(parts, add), bins


def _centers_dtype(dtype):
    if dtype.kind in "iu":
        return np.dtype(np.int64)
    return np.dtype(dtype) if dtype.kind == "f" else np.dtype(np.float64)


def _length(dtype, nbins, source_range):
    """The number of bins before the data is seen (NaN where the data's range decides)."""
    if dtype.kind in "iu":
        if source_range == "image":
            return np.nan
        lo, hi = _e._dtype_limits(dtype)
        return int(hi) - int(lo) + 1
    return _e._check_nbins(nbins)


def histogram(image, nbins=256, source_range="image", normalize=False, *, channel_axis=None):
    import dask.array as da

    image, _ = _e._channel_last(image, channel_axis)
    _e.check_histogram_call(image.shape, source_range, channel_axis)
    _not_complex(image, "histogram")
    if image.size == 0:
        return tuple(known(r) for r in _e.histogram(np.empty(image.shape, image.dtype), nbins, source_range,
                                                     normalize, channel_axis=-1 if channel_axis is not None else None))
    channels = channel_axis is not None
    if channels:   # each chunk holds every channel
        image = image.rechunk({image.ndim - 1: -1})
    n = _length(image.dtype, nbins, source_range)
    counts, bins = _counts_and_bins(image, nbins, source_range, channels)
    centers_dtype = _centers_dtype(image.dtype)
    shape = ((image.shape[-1], n) if channels else (n,))
    hist = da.from_delayed(delayed(_finish)(counts, normalize), shape=shape,
                           dtype=np.float64 if normalize else np.int64)
    return hist, da.from_delayed(delayed(_centers)(bins), shape=(n,), dtype=centers_dtype)


def _cdf(counts, dtype):
    cdf = counts.cumsum()
    return (cdf / float(cdf[-1])).astype(dtype, copy=False)


def cumulative_distribution(image, nbins=256):
    import dask.array as da

    _not_complex(image, "cumulative_distribution")
    if image.size == 0:
        return tuple(known(r) for r in _e.cumulative_distribution(np.empty(image.shape, image.dtype), nbins))
    _e.check_histogram_call(image.shape, "image", None)
    counts, bins = _counts_and_bins(image, nbins, "image", False)
    n = _length(image.dtype, nbins, "image")
    dtype = _e.supported_float_type(image.dtype)
    cdf = da.from_delayed(delayed(_cdf)(counts, dtype), shape=(n,), dtype=dtype)
    return cdf, da.from_delayed(delayed(_centers)(bins), shape=(n,), dtype=_centers_dtype(image.dtype))


def _equalize_chunk(chunk, counts, bins, out_type):
    cdf = _cdf(counts, _e.supported_float_type(bins.dtype))
    return _e.equalize_with(chunk, cdf, bins.centers, out_type)


def equalize_hist(image, nbins=256, mask=None):
    import dask.array as da

    _not_complex(image, "equalize_hist")
    out_type = _e.supported_float_type(image.dtype)
    if mask is not None:
        mask = da.asarray(mask).astype(bool)
    else:
        _e.check_histogram_call(image.shape, "image", None)
    counts, bins = _counts_and_bins(image, nbins, "image", False, mask=mask)
    return image.map_blocks(_equalize_chunk, counts, bins, out_type, dtype=out_type)


def _rescale_chunk(chunk, st, dtype, in_range, out_range):
    image = np.empty(0, dtype)   # the ranges need the whole image's dtype and extremes only
    f, out_dtype = _e.rescale_map(image, in_range, out_range, minmax=lambda _: _e.stats_minmax(st, dtype))
    return _e._lut_map(f, chunk, out_dtype)


def rescale_intensity(image, in_range="image", out_range="dtype"):
    _not_complex(image, "rescale_intensity")
    if image.size == 0:
        return known(_e.rescale_intensity(np.empty(image.shape, image.dtype), in_range, out_range))
    # the output dtype from the arguments alone (its ranges are never needed for it)
    _, out_dtype = _e.rescale_map(np.empty(0, image.dtype), in_range, out_range, minmax=lambda _: (0, 1))
    st = stats(image) if "image" in (in_range, out_range) else None
    return image.map_blocks(_rescale_chunk, st, image.dtype, in_range, out_range, dtype=out_dtype)

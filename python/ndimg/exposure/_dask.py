"""ndimg.exposure's global functions over Dask arrays, chunk-correct.

The histogram and the cumulative distribution are counted per chunk on the chunk's engine into the whole
image's bins (from the merged statistics of the chunks) and summed: lazy Dask arrays out. equalize_hist maps
each chunk through the whole image's distribution; rescale_intensity takes the whole image's extremes (one
reduction) and maps each chunk. CLAHE computes the tiles' maps on chunks holding whole tiles, then
interpolates each chunk at its place in the image (RGB(A): the HSV value, through ndimg.color on Dask).
match_histograms merges the chunks' distinct values and counts (of the image and the reference), matches their
quantiles, and looks each chunk's values up. is_low_contrast selects the percentiles' order statistics across
chunks, 16 bits of their sort keys a pass. The pointwise corrections run per chunk (registry halo 0).
"""
from __future__ import annotations

import numpy as np

from .._engine import xp_of
from ..filters._thresholding import _to_host
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


def _finish(counts, normalize, xp):
    return xp.asarray(counts / counts.sum(axis=-1, keepdims=True) if normalize else counts)


def _centers(bins, xp):
    return xp.asarray(bins.centers)


def _meta(like, dtype, ndim=None):
    """An empty array of the chunks' library of `like` (NumPy or CuPy): the meta of a Dask result, given so
    that Dask never infers it from a call on an empty chunk (a failing call makes it NumPy)."""
    import dask.array as da

    return da.utils.meta_from_array(like._meta, ndim=like.ndim if ndim is None else ndim, dtype=dtype)


def _result(value, shape, dtype, like):
    """A delayed result of the chunks' library (NumPy or CuPy, as `like`'s) as a Dask array."""
    import dask.array as da

    return da.from_delayed(value, shape=shape, dtype=dtype, meta=_meta(like, dtype, len(shape)))


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
    xp = xp_of(image._meta)
    hist = _result(delayed(_finish)(counts, normalize, xp), shape, np.float64 if normalize else np.int64, image)
    return hist, _result(delayed(_centers)(bins, xp), (n,), centers_dtype, image)


def _cdf(counts, dtype, xp=np):
    cdf = counts.cumsum()
    return xp.asarray((cdf / float(cdf[-1])).astype(dtype, copy=False))


def cumulative_distribution(image, nbins=256):
    _not_complex(image, "cumulative_distribution")
    if image.size == 0:
        return tuple(known(r) for r in _e.cumulative_distribution(np.empty(image.shape, image.dtype), nbins))
    _e.check_histogram_call(image.shape, "image", None)
    counts, bins = _counts_and_bins(image, nbins, "image", False)
    n = _length(image.dtype, nbins, "image")
    dtype = _e.supported_float_type(image.dtype)
    xp = xp_of(image._meta)
    cdf = _result(delayed(_cdf)(counts, dtype, xp), (n,), dtype, image)
    return cdf, _result(delayed(_centers)(bins, xp), (n,), _centers_dtype(image.dtype), image)


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


# ---------------------------------------------------------------------------------------------------
# CLAHE: the tiles' maps from chunks holding whole tiles, then each chunk interpolated at its origin
# ---------------------------------------------------------------------------------------------------

def _tile_chunks(chunks, s, k):
    """Chunks of an axis of `s` elements near `chunks` whose starts are multiples of the tile length `k`
    and whose last chunk is longer than a tile (or the whole axis): each chunk holds whole tiles, and the
    reflection past the image's end stays inside the last chunk, as on the whole image."""
    step = max(k, int(round(max(chunks) / k)) * k)
    sizes, at = [], 0
    while s - at > step:
        sizes.append(step)
        at += step
    rest = s - at
    if rest <= k and sizes:
        sizes[-1] += rest
    else:
        sizes.append(rest)
    return tuple(sizes)


def _u16_chunk(chunk, st, dtype):
    """img_as_uint of a chunk of 32/64-bit integers, narrowed as the whole image would be (its maximum)."""
    from ..util._dtype import _converter, _map

    vmax = _e.stats_minmax(st, dtype)[1]
    return _map(chunk, np.dtype(np.uint16), _converter(chunk, np.dtype(np.uint16), vmax))


def _raw_chunk(chunk):
    return _e._raw_index(chunk)[0]


def _counts_sum(parts):
    return add(parts)


def _bins(counts, u16, nbins):
    from ._adapthist import _bins_table

    return _bins_table(counts, u16, nbins)


def _maps_chunk(chunk, bins, kernel, clim, nbins):
    from ._adapthist import tile_maps

    return tile_maps(chunk, bins, kernel, clim, nbins)


def _apply_chunk(chunk, bins, maps, kernel, full_shape, block_info=None):
    from ._adapthist import interpolate

    origin = [lo for lo, _ in block_info[0]["array-location"]]
    return interpolate(chunk, bins, kernel, origin, full_shape, maps)


def _final_chunk(chunk, st, float_dtype):
    from ._adapthist import final_table

    lo, hi = _e.stats_minmax(st, np.dtype(np.uint16))
    return _e._gather(final_table(lo, hi, float_dtype), chunk)


def equalize_adapthist(image, kernel_size=None, clip_limit=0.01, nbins=256):
    from ._adapthist import _as_uint16, parameters, raw_counts
    from ._adapthist import equalize_adapthist as in_memory

    if image.ndim == 3 and image.shape[-1] in (3, 4):   # scikit-image's adapt_rgb(hsv_value)
        import dask.array as da

        from .. import color

        hsv = color.rgb2hsv(image[:, :, :3])
        value = equalize_adapthist(hsv[..., 2], kernel_size, clip_limit, nbins).astype(hsv.dtype)
        rgb = color.hsv2rgb(da.stack([hsv[..., 0], hsv[..., 1], value], axis=-1))
        return rgb.rechunk(image.chunks) if rgb.shape == image.shape else rgb
    _not_complex(image, "equalize_adapthist")
    if image.size == 0:
        return known(in_memory(np.empty(image.shape, image.dtype), kernel_size, clip_limit, nbins))
    dt = image.dtype
    float_dtype = _e.supported_float_type(dt)
    kernel, clim = parameters(image.shape, kernel_size, clip_limit, nbins)
    # the raw uint8/uint16 values each chunk's pixels hold, and the uint16 value of each raw value
    if dt.kind in "bui" and dt.itemsize <= 2:
        raw_dtype = np.dtype(f"u{dt.itemsize}")
        raw = image if dt == np.uint16 else image.map_blocks(_raw_chunk, dtype=raw_dtype, meta=_meta(image, raw_dtype))
        u16 = None if dt == np.uint16 else _as_uint16(np.empty(0, dt))[1]
    elif dt.kind in "iu":
        raw = image.map_blocks(_u16_chunk, stats(image), dt, dtype=np.uint16, meta=_meta(image, np.uint16))
        u16 = None
    else:
        from ..util._dtype import convert

        # each chunk refuses values outside [-1, 1]
        raw = image.map_blocks(convert, np.uint16, dtype=np.uint16, meta=_meta(image, np.uint16))
        u16 = None
    counts = tree((delayed(raw_counts)(b) for (b,) in blocks(raw)), _counts_sum)
    bins = delayed(_bins)(counts, u16, nbins)
    tiled = raw.rechunk(tuple(_tile_chunks(c, s, k) for c, s, k in zip(raw.chunks, raw.shape, kernel)))
    maps = tiled.map_blocks(_maps_chunk, bins, kernel, clim, nbins, dtype=np.uint16, new_axis=raw.ndim,
                            meta=_meta(raw, np.uint16, raw.ndim + 1),
                            chunks=tuple(tuple(-(-c // k) for c in cs) for cs, k in zip(tiled.chunks, kernel))
                            + ((int(nbins),),))
    whole = maps.rechunk(maps.shape).to_delayed().ravel()[0]
    out = raw.map_blocks(_apply_chunk, bins, whole, kernel, raw.shape, dtype=np.uint16, meta=_meta(raw, np.uint16))
    return out.map_blocks(_final_chunk, stats(out), float_dtype, dtype=float_dtype, meta=_meta(raw, float_dtype))



# ---------------------------------------------------------------------------------------------------
# match_histograms: the whole image's and reference's distinct values and counts merged from the chunks'
# ---------------------------------------------------------------------------------------------------

def _chunk_values(chunk, channels):
    """Per channel (or for the whole chunk) its distinct values and their counts, on the host."""
    xp = xp_of(chunk)
    planes = [chunk[..., c] for c in range(chunk.shape[-1])] if channels else [chunk]
    return [tuple(_to_host(r) for r in xp.unique(p.reshape(-1), return_counts=True)) for p in planes]


def _merge_values(parts):
    out = []
    for per_channel in zip(*parts):
        values = np.concatenate([v for v, _ in per_channel])
        counts = np.concatenate([c for _, c in per_channel])
        u, inverse = np.unique(values, return_inverse=True)   # NaNs one value, as np.unique of the whole
        out.append((u, np.bincount(inverse.reshape(-1), weights=counts, minlength=u.size).astype(np.int64)))
    return out


def _tables(src, tmpl, src_dtype, tmpl_dtype, src_size, tmpl_size):
    """Per channel (source values, matched values): scikit-image's quantile matching of the merged counts."""
    if src_dtype.kind == "u":   # scikit-image counts both with np.bincount: its errors
        from ._histogram_matching import _bincount

        for t, _ in tmpl:
            _bincount(t.astype(tmpl_dtype))
    out = []
    for (sv, sc), (tv, tc) in zip(src, tmpl):
        out.append((sv, np.interp(np.cumsum(sc) / src_size, np.cumsum(tc) / tmpl_size, tv)))
    return out


def _match_chunk(chunk, tables, channels, out_dtype):
    xp = xp_of(chunk)
    planes = [chunk[..., c] for c in range(chunk.shape[-1])] if channels else [chunk]
    out = []
    for plane, (values, matched) in zip(planes, tables):
        # each value's place among the sorted distinct values (NaN last, -0.0 with 0.0, as np.unique)
        at = xp.searchsorted(xp.asarray(values), plane.reshape(-1))
        out.append(xp.asarray(matched)[at].reshape(plane.shape))
    result = xp.stack(out, axis=-1).astype(chunk.dtype) if channels else out[0]
    return result.astype(out_dtype) if result.dtype.kind == "f" else result


def match_histograms(image, reference, *, channel_axis=None):
    import dask.array as da

    chunks = image.chunks
    image, axis = _e._channel_last(image, channel_axis)
    reference, _ = _e._channel_last(da.asarray(reference), channel_axis)
    if image.ndim != reference.ndim:
        raise ValueError("Image and reference must have the same number of channels.")
    channels = channel_axis is not None
    if channels:
        if image.shape[-1] != reference.shape[-1]:
            raise ValueError("Number of channels in the input image and reference image must match!")
        image = image.rechunk({image.ndim - 1: -1})
        reference = reference.rechunk({reference.ndim - 1: -1})
    for a in (image, reference):
        _not_complex(a, "match_histograms")
    src = tree((delayed(_chunk_values)(b, channels) for (b,) in blocks(image)), _merge_values)
    tmpl = tree((delayed(_chunk_values)(b, channels) for (b,) in blocks(reference)), _merge_values)
    n = image.shape[-1] if channels else 1
    tables = delayed(_tables)(src, tmpl, image.dtype, reference.dtype, image.size // n, reference.size // n)
    out_dtype = _e.supported_float_type(image.dtype)
    dtype = image.dtype if channels and image.dtype.kind != "f" else out_dtype
    matched = image.map_blocks(_match_chunk, tables, channels, out_dtype, dtype=dtype)
    return (matched if axis is None else da.moveaxis(matched, -1, axis)).rechunk(chunks)


# ---------------------------------------------------------------------------------------------------
# is_low_contrast: NumPy's percentiles from order statistics selected across chunks, 16 key bits a pass
# ---------------------------------------------------------------------------------------------------

def _sort_keys(chunk):
    """Unsigned keys of a real chunk's values whose order is theirs (floats by their bits: negatives
    reversed below the positives), flat."""
    xp = xp_of(chunk)
    dt = chunk.dtype
    u = np.dtype(f"u{dt.itemsize}")
    keys = xp.ascontiguousarray(chunk).reshape(-1).view(u)
    sign = u.type(1 << (8 * dt.itemsize - 1))
    if dt.kind == "f":
        return xp.where((keys & sign) != 0, ~keys, keys | sign)
    return keys ^ sign if dt.kind == "i" else keys


def _key_value(key, dt):
    u = np.dtype(f"u{dt.itemsize}")
    sign = u.type(1 << (8 * dt.itemsize - 1))
    key = u.type(key)
    if dt.kind == "f":
        key = (key ^ sign) if key & sign else ~key
    elif dt.kind == "i":
        key = key ^ sign
    return np.array(key, dtype=u).view(dt)[()]


def _digit_counts(chunk, ranks, shift, width):
    """Per prefix of `ranks` (the key bits above `shift` + `width` found so far; None: none yet) the counts
    of the next `width` key bits of the chunk's elements under that prefix."""
    xp = xp_of(chunk)
    keys = _sort_keys(chunk)
    out = {}
    for _, prefix in ranks:
        if prefix in out:
            continue
        sel = keys if prefix is None else keys[(keys >> (shift + width)) == prefix]
        digits = ((sel >> shift) & ((1 << width) - 1)).astype(np.int64)
        out[prefix] = _to_host(xp.bincount(digits, minlength=1 << width))
    return out


def _add_counts(parts):
    return {p: sum(part[p] for part in parts) for p in parts[0]}


def _advance(ranks, counts, width):
    """Each (rank, prefix) one digit further: the digit whose cumulative count passes the rank."""
    out = []
    for k, prefix in ranks:
        cum = np.cumsum(counts[prefix])
        digit = int(np.searchsorted(cum, k, side="right"))
        out.append((k - (int(cum[digit - 1]) if digit else 0), (0 if prefix is None else prefix) << width | digit))
    return out


def _low_contrast(ranks, t, st, dtype, limits, fraction_threshold):
    if st.n_nan:   # NumPy's percentile of values with NaN
        return np.False_
    values = np.array([_key_value(key, dtype) for _, key in ranks], dtype=dtype)
    lo, hi = _e.lerp(values[0::2], values[1::2], t)
    return (hi - lo) / (limits[1] - limits[0]) < fraction_threshold


def _bool_low_contrast(st):
    return not ((st.imax == 1) and (st.imin == 0))


def is_low_contrast(image, fraction_threshold=0.05, lower_percentile=1, upper_percentile=99, method="linear"):
    from ..filters._thresholding_dask import scalar

    if image.size == 0:
        return known(np.asarray(_e.is_low_contrast(np.empty(image.shape, image.dtype), fraction_threshold,
                                                   lower_percentile, upper_percentile, method)))
    if image.dtype == bool:
        return scalar(delayed(_bool_low_contrast)(stats(image)), np.dtype(bool))
    if image.ndim == 3 and image.shape[2] in (3, 4):
        from .. import color

        if image.shape[2] == 4:
            image = color.rgba2rgb(image)
        image = color.rgb2gray(image)
    _not_complex(image, "is_low_contrast")
    dt = image.dtype
    limits = _e._dtype_limits(dt, clip_negative=False)
    below, above, t = _e.percentile_ranks(image.size, [lower_percentile, upper_percentile])
    ranks = [(int(k), None) for pair in zip(below, above) for k in pair]   # (rank left to find, key prefix)
    bits = 8 * dt.itemsize
    width = min(16, bits)
    for shift in range(bits - width, -1, -width):
        counts = tree((delayed(_digit_counts)(b, ranks, shift, width) for (b,) in blocks(image)), _add_counts)
        ranks = delayed(_advance)(ranks, counts, width)
    return scalar(delayed(_low_contrast)(ranks, t, stats(image), dt, limits, fraction_threshold), np.dtype(bool))

"""skimage.feature.peak_local_max and corner_peaks (scikit-image 0.26's peak.py and corner.py).

The peak mask (maximum filter, comparisons, border) runs on the image's engine; the candidates, usually few
next to the pixels, come to the host, where they are ordered (a stable sort by decreasing value, as
scikit-image's argsort of the negated values) and thinned by the greedy minimum-distance selection
(``_prim.feature_deriv.ensure_spacing``, C++). Coordinates go back as an array of the image's library.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._engine import engine_aware, xp_of
from .._prim.feature_deriv import ensure_spacing
from ..ndimage._binary import binary_opening
from ..ndimage._footprint import to_host
from ..ndimage._label import find_objects
from ..ndimage._rank import maximum_filter


def _scalar(x):
    """A 0-d reduction as the NumPy scalar NumPy's reduction gives (its dtype kept for later comparisons)."""
    return np.asarray(to_host(x))[()]


def _peak_mask(image, footprint, threshold, mask=None):
    """Pixels equal to the maximum of their footprint (nearest boundary) and above `threshold`; none for a
    flat image (or flat label region), except a region's isolated pixels (skimage's _get_peak_mask)."""
    if footprint.size == 1 or image.size == 1:
        return image > threshold
    image_max = maximum_filter.__wrapped_impl__(image, footprint=footprint, mode='nearest')
    out = image == image_max
    xp = xp_of(image)
    trivial = bool(xp.all(out)) if mask is None else bool(xp.all(out[mask]))
    if trivial:
        out[...] = False
        if mask is not None:
            isolated = xp.logical_xor(mask, binary_opening.__wrapped_impl__(mask))
            out[isolated] = True
    out &= image > threshold
    return out


def _exclude_border(label, border_width):
    for i, width in enumerate(border_width):
        if width == 0:
            continue
        label[(slice(None),) * i + (slice(None, width),)] = 0
        label[(slice(None),) * i + (slice(-width, None),)] = 0
    return label


def _order_key(values):
    """uint64 keys below 2**32 whose increasing order is np.argsort(-values, kind="stable")'s order of values
    of at most 32 bits, ties aside: the negated value's order-preserving bits. Negation wraps unsigned values
    as NumPy's does; -0.0 ties with 0.0 and NaNs come last."""
    xp = xp_of(values)
    neg = -values
    if neg.dtype.kind == "f":
        neg = neg.astype(np.float32) + np.float32(0)   # float16 exactly; -0.0 becomes 0.0
        neg = xp.where(xp.isnan(neg), np.float32(np.nan), neg)   # one NaN (the positive one): last
        bits = neg.view(np.uint32)
        key = xp.where(bits >> np.uint32(31) != 0, ~bits, bits | np.uint32(0x80000000))
    elif neg.dtype.kind == "i":
        key = neg.astype(np.int64) + np.int64(2**31)
    else:
        key = neg
    return key.astype(np.uint64)


def descending_order(values):
    """np.argsort(-values, kind="stable") for values of at most 32 bits, by one sort of unique 64-bit keys
    (_order_key, then the position): any sort gives it, CuPy's on the GPU."""
    xp = xp_of(values)
    return xp.argsort((_order_key(values) << np.uint64(32)) | xp.arange(len(values), dtype=np.uint64))


def _host_peaks(image, mask):
    """_high_intensity_peaks' ordered candidates of a C-contiguous host image of at most 32-bit values and
    fewer than 2**32 pixels: the keys with the flat indices as ties (C order) sorted as plain numbers, the
    indices read back from them (no per-pixel coordinates or argsort gathers before the order is known)."""
    flat = np.flatnonzero(mask)
    keys = (_order_key(image.reshape(-1)[flat]) << np.uint64(32)) | flat.astype(np.uint64)
    flat = (np.sort(keys) & np.uint64(0xFFFFFFFF)).astype(np.intp)
    return np.stack(np.unravel_index(flat, image.shape), axis=-1)


def _device_order(xp, image, coord):
    """Whether candidates are ordered where they are (CuPy), not on the host."""
    return xp is not np and image.dtype.itemsize <= 4 and image.dtype != bool and len(coord) < 2**32


def _high_intensity_peaks(image, mask, num_peaks, min_distance, p_norm, axes=None, device=False):
    """Host (k, ndim) coordinates of the mask's pixels, highest value first (ties in C order), thinned to
    `min_distance` and cut to `num_peaks` (skimage's _get_high_intensity_peaks). `axes`: the image is a
    transpose, coordinates (and C order) are those of ``image.transpose(axes)``. `device`: without a
    min_distance selection, CuPy candidates are ordered on the GPU and stay there."""
    xp = xp_of(image)
    if (xp is np and axes is None and image.ndim and image.flags.c_contiguous and image.dtype.itemsize <= 4
            and image.dtype != bool and image.size < 2**32):
        return _thin(_host_peaks(image, mask), num_peaks, min_distance, p_norm)
    coord = xp.nonzero(mask)
    if device and axes is None and min_distance <= 1 and coord and _device_order(xp, image, coord[0]):
        values = image[coord]
        coord = xp.stack(coord, axis=-1).astype(np.intp, copy=False)[descending_order(values)]
        if len(coord) > num_peaks:
            coord = coord[:num_peaks]
        return coord
    intensities = to_host(image[coord])
    coord = np.stack([to_host(c) for c in coord], axis=-1) if coord else np.empty((0, 0), np.intp)
    coord = coord.astype(np.intp, copy=False).reshape(len(intensities), image.ndim)
    if axes is not None and len(coord):
        coord = coord[:, axes]
        order = np.argsort(np.ravel_multi_index(tuple(coord.T), [image.shape[a] for a in axes]), kind="stable")
        coord, intensities = coord[order], intensities[order]
    return _select(coord, intensities, num_peaks, min_distance, p_norm)


def _select(coord, intensities, num_peaks, min_distance, p_norm):
    """Candidates (host coordinates in C order and their values) ordered by decreasing value (a stable sort
    of the negated values: unsigned ones wrap, as scikit-image's), thinned and cut."""
    if intensities.dtype == bool:
        raise TypeError("The numpy boolean negative, the `-` operator, is not supported, use the `~` operator "
                        "or the logical_not function instead.")
    small = intensities.dtype.itemsize <= 4 and len(intensities) < 2**32   # unique keys sort faster
    coord = coord[descending_order(intensities) if small else np.argsort(-intensities, kind="stable")]
    return _thin(coord, num_peaks, min_distance, p_norm)


def _thin(coord, num_peaks, min_distance, p_norm):
    """Ordered candidates thinned to `min_distance` and cut to `num_peaks`."""
    max_out = int(num_peaks) if np.isfinite(num_peaks) else None
    if min_distance > 1 and len(coord):
        if max_out is not None and max_out < 1:
            coord = coord[:0]   # scikit-image keeps none (num_peaks < 1)
        else:
            coord = coord[ensure_spacing(coord, spacing=min_distance, p_norm=p_norm, inclusive=False,
                                         max_out=max_out)]
    if len(coord) > num_peaks:
        coord = coord[:num_peaks]
    return coord


def _border_width(image, min_distance, exclude_border):
    if isinstance(exclude_border, bool):
        return (min_distance if exclude_border else 0,) * image.ndim
    if isinstance(exclude_border, int):
        if exclude_border < 0:
            raise ValueError("`exclude_border` cannot be a negative value")
        return (exclude_border,) * image.ndim
    if isinstance(exclude_border, tuple):
        if len(exclude_border) != image.ndim:
            raise ValueError("`exclude_border` should have the same length as the dimensionality of the image.")
        for exclude in exclude_border:
            if not isinstance(exclude, int):
                raise ValueError("`exclude_border`, when expressed as a tuple, must only contain ints.")
            if exclude < 0:
                raise ValueError("`exclude_border` can not be a negative value")
        return exclude_border
    raise TypeError("`exclude_border` must be bool, int, or tuple with the same length as the dimensionality "
                    "of the image.")


def _threshold(threshold_abs, threshold_rel, lo, hi):
    """threshold_abs (None: the image's minimum `lo`), raised to threshold_rel times its maximum `hi`; the
    reductions are computed only where needed (in memory or as Dask results)."""
    threshold = threshold_abs if threshold_abs is not None else _scalar(lo)
    if threshold_rel is not None:
        threshold = max(threshold, threshold_rel * _scalar(hi))
    return threshold


def _peak_local_max(image, min_distance, threshold_abs, threshold_rel, exclude_border, num_peaks, footprint,
                    labels, num_peaks_per_label, p_norm, axes=None, device=False):
    """Host (k, ndim) intp coordinates of peak_local_max (without labels, `axes` and `device` as
    _high_intensity_peaks takes them)."""
    xp = xp_of(image)
    if (footprint is None or np.asarray(to_host(footprint)).size == 1) and min_distance < 1:
        warnings.warn("When min_distance < 1, peak_local_max acts as finding image > max(threshold_abs, "
                      "threshold_rel * max(image)).", RuntimeWarning, stacklevel=4)
    border_width = _border_width(image, min_distance, exclude_border)
    if image.size == 0:
        raise ValueError("zero-size array to reduction operation minimum which has no identity")
    threshold = _threshold(threshold_abs, threshold_rel, image.min() if threshold_abs is None else None,
                           image.max() if threshold_rel is not None else None)
    if footprint is None:
        footprint = np.ones((2 * min_distance + 1,) * image.ndim, dtype=bool)
    else:
        footprint = np.asarray(to_host(footprint))
    if labels is None:
        mask = _exclude_border(_peak_mask(image, footprint, threshold), border_width)
        return _high_intensity_peaks(image, mask, num_peaks, min_distance, p_norm, axes, device)

    if not np.can_cast(labels.dtype, int, casting="safe"):
        raise TypeError(f"Cannot cast array data from {labels.dtype!r} to dtype('int64') according to the rule "
                        "'safe'")
    _labels = _exclude_border(labels.astype(int), border_width)
    bg_val = (np.finfo if image.dtype.kind == "f" else np.iinfo)(image.dtype).min
    found = []
    for label_idx, roi in enumerate(find_objects.__wrapped_impl__(_labels)):
        if roi is None:
            continue
        label_mask = labels[roi] == label_idx + 1
        img_object = image[roi].copy()
        img_object[xp.logical_not(label_mask)] = bg_val
        mask = _peak_mask(img_object, footprint, threshold, label_mask)
        coords = _high_intensity_peaks(img_object, mask, num_peaks_per_label, min_distance, p_norm)
        found.append(coords + np.array([s.start for s in roi], dtype=np.intp))
    coordinates = np.vstack(found) if found else np.empty((0, 2), dtype=int)
    if len(coordinates) > num_peaks:
        out = xp.zeros(image.shape, dtype=bool)
        out[tuple(xp.asarray(c) for c in coordinates.T)] = True
        coordinates = _high_intensity_peaks(image, out, num_peaks, min_distance, p_norm)
    return coordinates


@engine_aware("image", "labels")
def peak_local_max(image, min_distance=1, threshold_abs=None, threshold_rel=None, exclude_border=True,
                   num_peaks=np.inf, footprint=None, labels=None, num_peaks_per_label=np.inf, p_norm=np.inf):
    """Coordinates (k, ndim) of the local maxima of an n-D image, highest first, as
    ``skimage.feature.peak_local_max``: the same peaks in the same order."""
    xp = xp_of(image)
    coords = _peak_local_max(image, min_distance, threshold_abs, threshold_rel, exclude_border, num_peaks,
                             footprint, labels, num_peaks_per_label, p_norm, device=True)
    return coords if xp is np else xp.asarray(coords)


def _suppress_connected(coords, min_distance, p_norm, num_peaks):
    """Each peak in order removes the later ones within `min_distance` (at that distance too, as scipy's
    KD-tree ball query); then the first `num_peaks` (None: all)."""
    if len(coords):
        coords = coords[ensure_spacing(coords, spacing=min_distance, p_norm=p_norm, inclusive=True)][:num_peaks]
    return coords


@engine_aware("image", "labels")
def corner_peaks(image, min_distance=1, threshold_abs=None, threshold_rel=None, exclude_border=True, indices=True,
                 num_peaks=np.inf, footprint=None, labels=None, *, num_peaks_per_label=np.inf, p_norm=np.inf):
    """peak_local_max's peaks with connected peaks of one value suppressed: each peak, in order, removes the
    later ones within `min_distance` (``skimage.feature.corner_peaks``)."""
    xp = xp_of(image)
    if np.isinf(num_peaks):
        num_peaks = None
    coords = _peak_local_max(image, min_distance, threshold_abs, threshold_rel, exclude_border, np.inf,
                             footprint, labels, num_peaks_per_label, np.inf)
    coords = _suppress_connected(coords, min_distance, p_norm, num_peaks)
    if indices:
        return coords if xp is np else xp.asarray(coords)
    peaks = xp.zeros(image.shape, dtype=bool)
    peaks[tuple(xp.asarray(c) for c in coords.T)] = True
    return peaks

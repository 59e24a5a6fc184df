"""SLIC superpixels (skimage.segmentation.slic): scikit-image's preparation (scaling, Lab, smoothing,
seeds on a grid or, with a mask, by k-means) here; the k-means iterations and the connectivity pass in
C++ (cpp/src/segmentation/slic*) with scikit-image's arithmetic, so the labels equal its labels, on both
engines. On CUDA the preparation runs over CuPy and the k-means loop on the device; the seeds (k-means of
the mask's coordinates with a mask) and the connectivity pass (a sequential breadth-first search in raster
order) run on the host, the labels copied there and back."""
from __future__ import annotations

import math
import warnings
from collections.abc import Iterable

import numpy as np
from scipy.cluster.vq import kmeans2
from scipy.spatial.distance import pdist, squareform

from .. import _core
from .._blocks import blockable, blockwise
from .._engine import engine_aware, stream_ptr, xp_of
from .._rules import channel_as_last_axis, img_as_float, supported_float_type




def _channel_last(image, channel_axis):
    """scikit-image's channel_as_last_axis as its decorated functions see it: (image, channel_axis), the axis
    -1 where it was moved."""
    image, back = channel_as_last_axis(image, channel_axis)
    return image, channel_axis if back is None else -1


# The pointwise passes over the image on the CPU engine's threads (ndimg._blocks), each element computed by
# the same NumPy operation as scikit-image's whole-array one.
def _extremes(values):
    if not (blockable(values) and values.size > 1 << 18):
        return values.min(), values.max()
    parts = []
    blockwise(lambda b: parts.append((b.min(), b.max())), values)
    mins, maxs = zip(*parts)
    return np.min(mins), np.max(maxs)   # NaN propagates as through the whole array's


def _rescale(image, imin, imax):
    """image -= imin, then image /= imax - imin where they differ, in place."""
    def run(b):
        b -= imin
        if imax != imin:
            b /= imax - imin

    blockwise(run, image) if blockable(image) else run(image)


def _scaled(image, ratio, dtype):
    """A C-contiguous image * ratio (a Python float: NumPy multiplies in the image's type) of `dtype`."""
    if not (blockable(image) and image.dtype == dtype):
        return xp_of(image).ascontiguousarray(image * ratio, dtype=dtype)
    out = np.empty_like(image)
    blockwise(lambda a, o: np.multiply(a, ratio, out=o), image, out)
    return out


def _mask_centroids(mask, n_centroids, multichannel):
    """scikit-image's seeds on a mask: k-means (5 iterations) from points drawn by RandomState(123), and the
    mean distance of each seed to its nearest one."""
    coord = np.array(np.nonzero(mask), dtype=float).T
    rng = np.random.RandomState(123)   # scikit-image's fixed legacy seed: its seeds, hence its labels
    idx_full = np.arange(len(coord), dtype=int)
    idx = np.sort(rng.choice(idx_full, min(n_centroids, len(coord)), replace=False))
    dense_factor = 10
    ndim_spatial = mask.ndim - 1 if multichannel else mask.ndim
    n_dense = int((dense_factor**ndim_spatial) * n_centroids)
    idx_dense = np.sort(rng.choice(idx_full, n_dense, replace=False)) if len(coord) > n_dense else Ellipsis
    centroids, _ = kmeans2(coord[idx_dense], coord[idx], iter=5)
    dist = squareform(pdist(centroids))
    np.fill_diagonal(dist, np.inf)
    closest = dist.argmin(-1)
    return centroids, abs(centroids - centroids[closest, :]).mean(0)


def _grid_centroids(shape, n_centroids):
    from ..util import regular_grid

    slices = regular_grid(shape, n_centroids)
    axes = [np.arange(n)[s] for n, s in zip(shape, slices)]
    centroids = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], axis=-1)
    steps = np.asarray([float(s.step) if s.step is not None else 1.0 for s in slices])
    return centroids, steps, [int(s.step if s.step is not None else 1) for s in slices]


def _per_axis(value, name, is_2d, dtype, spacing_size=None):
    """spacing/sigma given per spatial axis: as (z, y, x), scikit-image's warnings and errors (a 2-D sigma of
    the wrong size only warns: scikit-image tests the size of the spacing there, always 3 by then)."""
    value = np.asarray(value, dtype=dtype)
    if is_2d:
        if value.size != 2:
            if (value.size if spacing_size is None else spacing_size) == 3:
                warnings.warn(f"Input image is 2D: {name} number of elements must be 2. In the future, a ValueError "
                              "will be raised.", FutureWarning, stacklevel=3)
            else:
                raise ValueError(f"Input image is 2D, but {name} has {value.size} elements (expected 2).")
        else:
            value = np.insert(value, 0, 1 if name == "spacing" else 0)
    elif value.size != 3:
        raise ValueError(f"Input image is 3D, but {name} has {value.size} elements (expected 3).")
    return value


@engine_aware("image", "mask")
def slic(image, n_segments=100, compactness=10.0, max_num_iter=10, sigma=0, spacing=None, convert2lab=None,
         enforce_connectivity=True, min_size_factor=0.5, max_size_factor=3, slic_zero=False, start_label=1,
         mask=None, *, channel_axis=-1):
    """Segments image using k-means clustering in Color-(x,y,z) space (skimage.segmentation.slic)."""
    xp = xp_of(image, mask)
    image, channel_axis = _channel_last(image, channel_axis)
    if image.ndim == 2 and channel_axis is not None:   # a list fails here (no move made it an array), as there
        raise ValueError(f"channel_axis={channel_axis} indicates multichannel, which is not supported for a "
                         "two-dimensional image; use channel_axis=None if the image is grayscale")
    given = xp.asarray(image)
    image = img_as_float(given)
    dtype = supported_float_type(image.dtype)
    # a copy to scale in place (the caller's array untouched): one only where the conversion made none
    shares = np.shares_memory if xp is np else xp.may_share_memory   # CuPy's exact test sorts every address
    image = image.astype(dtype, copy=shares(image, given))
    if mask is not None:
        mask = xp.ascontiguousarray(mask, dtype=bool)
        mask_ = xp.broadcast_to(xp.expand_dims(mask, axis=channel_axis), image.shape) if channel_axis is not None \
            else mask
        values = image[mask_]
    else:
        values = image
    imin, imax = _extremes(values)
    if np.isnan(imin):
        raise ValueError("unmasked NaN values in image are not supported")
    if np.isinf(imin) or np.isinf(imax):
        raise ValueError("unmasked infinite values in image are not supported")
    _rescale(image, imin, imax)

    multichannel = channel_axis is not None
    is_2d = image.ndim == 2 or (image.ndim == 3 and multichannel)
    if image.ndim == 2:
        image = image[np.newaxis, ..., np.newaxis]
    elif image.ndim == 3 and multichannel:
        image = image[np.newaxis, ...]
    elif image.ndim == 3:
        image = image[..., np.newaxis]
    if multichannel and (convert2lab or convert2lab is None):
        if image.shape[channel_axis] != 3 and convert2lab:
            raise ValueError("Lab colorspace conversion requires a RGB image.")
        elif image.shape[channel_axis] == 3:
            from ..color import rgb2lab

            image = rgb2lab(image)
    if start_label not in [0, 1]:
        raise ValueError("start_label should be 0 or 1.")

    use_mask = mask is not None
    if use_mask:
        mask = mask.view("uint8")
        if mask.ndim == 2:
            mask = xp.ascontiguousarray(mask[np.newaxis, ...])
        if mask.shape != image.shape[:3]:
            raise ValueError("image and mask should have the same shape.")
        centroids, steps = _mask_centroids(mask if xp is np else mask.get(), n_segments, multichannel)
    else:
        centroids, steps, _ = _grid_centroids(image.shape[:3], n_segments)

    if spacing is None:
        spacing = np.ones(3, dtype=dtype)
    elif isinstance(spacing, Iterable):
        spacing = np.ascontiguousarray(_per_axis(spacing, "spacing", is_2d, dtype), dtype=dtype)
    else:
        raise TypeError("spacing must be None or iterable.")
    if np.isscalar(sigma):
        sigma = np.array([sigma, sigma, sigma], dtype=dtype) / spacing
    elif isinstance(sigma, Iterable):
        sigma = _per_axis(sigma, "sigma", is_2d, dtype, spacing.size)
    if (sigma > 0).any():
        from ..filters import gaussian

        image = gaussian(image, sigma=list(sigma) + [0], mode="reflect")

    n_centroids = centroids.shape[0]
    segments = xp.asarray(np.ascontiguousarray(
        np.concatenate([centroids, np.zeros((n_centroids, image.shape[3]))], axis=-1), dtype=dtype))
    step = float(max(steps))
    image = _scaled(image, 1.0 / compactness, dtype)
    # the windows' half-widths: the grid's steps for n_segments seeds (scikit-image's, also with a mask)
    _, _, grid_steps = _grid_centroids(image.shape[:3], n_centroids)
    spacing_ = [float(s) for s in np.asarray(spacing, dtype=np.float64).ravel()]
    labels = xp.empty(image.shape[:3], dtype=np.int64)
    m = mask if use_mask else xp.zeros((0, 0, 0), np.uint8)
    max_num_iter = int(max_num_iter)
    for ignore_color in ((True, False) if use_mask else (False,)):
        labels.fill(start_label - 1)
        _core.slic_iterate(image, m, use_mask, segments, step, grid_steps, max_num_iter, spacing_, bool(slic_zero),
                           int(start_label), ignore_color, labels, stream=stream_ptr(labels))
    if enforce_connectivity:
        segment_size = (int(mask.sum()) if use_mask else math.prod(image.shape[:3])) / n_centroids
        min_size = int(min_size_factor * segment_size)
        max_size = int(max_size_factor * segment_size)
        host = labels if xp is np else labels.get()   # skimage's sequential search: the host's
        out = np.empty_like(host)
        _core.slic_enforce_connectivity(host, min_size, max_size, int(start_label), out)
        labels = xp.asarray(out)
    labels = labels.astype(np.intp, copy=False)
    return labels[0] if is_2d else labels

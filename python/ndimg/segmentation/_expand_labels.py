"""skimage.segmentation.expand_labels (skimage/segmentation/_expand_labels.py): every background element
within `distance` of a label takes the label of its nearest labelled element, from the exact Euclidean
distance transform's nearest features (ndimg's EDT, scipy's tie-breaking) on the input's engine."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._blocks import blockwise
from .._engine import engine_aware, stream_ptr, xp_of
from ..ndimage._distance import _sampling, distance_transform_edt


@engine_aware("label_image", native=False)
def expand_labels(label_image, distance=1, spacing=1):
    """Labels grown by up to `distance` (Euclidean, `spacing` per axis) into the background (0), each
    background element taking its nearest label; labels never overwrite each other."""
    xp = xp_of(label_image)
    background = label_image == 0
    if not hasattr(label_image, "ndim") or label_image.ndim == 0 or label_image.size == 0 or not bool(background.any()) or bool(background.all()):
        # nothing to grow (or a shape the core does not take): scikit-image's steps as they are
        distances, nearest = distance_transform_edt(background, sampling=spacing, return_indices=True)
        labels_out = xp.zeros_like(label_image)
        dilate_mask = distances <= distance
        labels_out[dilate_mask] = label_image[tuple(ind[dilate_mask] for ind in nearest)]
        return labels_out
    sampling = _sampling(spacing, label_image.ndim)
    dist = xp.empty(label_image.shape, np.float64)
    # the flat index of each element's nearest labelled element
    feat = xp.empty(label_image.shape, np.int32 if label_image.size <= 2**31 - 1 else np.int64)
    _core.edt_features(xp.ascontiguousarray(background), sampling, dist, feat, stream=stream_ptr(dist))
    flat = label_image.reshape(-1)
    labels_out = xp.empty(label_image.shape, label_image.dtype)
    zero = label_image.dtype.type(0)
    if xp is not np:
        labels_out[...] = xp.where(dist <= distance, flat[feat], zero)
        return labels_out
    def grow(o, d, f):
        np.copyto(o, zero)
        near = d <= distance
        o[near] = flat[f[near]]

    blockwise(grow, labels_out, dist, feat)
    return labels_out

"""skimage.restoration.inpaint_biharmonic: the masked pixels solve the biharmonic equation, a sparse linear
system (scipy.sparse, SuperLU as scikit-image calls it) assembled with array operations: the masked pixels
grouped by their distance to the array's edges, one stencil per group (the Laplacian applied twice to a
unit impulse on the neighbourhood cropped at the edges, as scikit-image builds it)."""
from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import spsolve

from .._engine import engine_aware, xp_of
from .._rules import img_as_float, supported_float_type
from ..ndimage import binary_dilation, find_objects, generate_binary_structure, laplace
from ..measure import label
from ..transform._warps import _channel_last

_RADIUS = 2   # the biharmonic stencil's reach: the Laplacian's twice


def _stencil(shape, centre, dtype):
    """(offsets from the centre (taps, ndim), coefficients) of the biharmonic stencil on a neighbourhood of
    `shape` around `centre`: laplace(laplace(impulse)) with its reflecting edges."""
    impulse = np.zeros(shape, dtype=dtype)
    impulse[centre] = 1
    coef = laplace(laplace(impulse))
    idx = np.nonzero(coef)
    return np.stack(idx, axis=1) - np.asarray(centre), coef[idx]


def _inpaint_region(mask, out):
    """Solve for out's masked pixels (out: (..., channels), C-contiguous; mask: its spatial shape), in place.
    Rows: the masked pixels within the stencil's reach of an edge, then the others (scikit-image's order);
    columns: the same pixels in the same order."""
    shape, ndim = mask.shape, mask.ndim
    n_channels = out.shape[-1]
    out_flat = out.reshape(-1, n_channels)
    mask_flat = mask.reshape(-1)
    pts = np.stack(np.nonzero(mask), axis=1)
    lo = np.minimum(pts, _RADIUS)                              # reach towards each edge, at most the radius
    hi = np.minimum(np.asarray(shape) - 1 - pts, _RADIUS)
    near_edge = ((lo < _RADIUS) | (hi < _RADIUS)).any(axis=1)
    order = np.concatenate((np.flatnonzero(near_edge), np.flatnonzero(~near_edge)))
    pts, lo, hi = pts[order], lo[order], hi[order]
    n_mask = len(pts)
    flat = np.ravel_multi_index(tuple(pts.T), shape)
    column = np.full(mask.size, -1, dtype=np.intp)
    column[flat] = np.arange(n_mask)
    strides = np.asarray([int(np.prod(shape[a + 1:])) for a in range(ndim)], dtype=np.intp)
    key = ((lo * (_RADIUS + 1) + hi) * (_RADIUS + 1) ** (2 * np.arange(ndim))).sum(axis=1)
    rows, cols, vals = [], [], []
    rhs = np.zeros((n_mask, n_channels), dtype=out.dtype)
    for k in np.unique(key):
        members = np.flatnonzero(key == k)
        l, h = lo[members[0]], hi[members[0]]
        offsets, coefs = _stencil(tuple(l + h + 1), tuple(l), out.dtype)
        neighbours = flat[members, None] + offsets @ strides                 # (points, taps)
        unknown = mask_flat[neighbours]
        r = np.broadcast_to(members[:, None], neighbours.shape)
        c = np.broadcast_to(coefs, neighbours.shape)
        rows.append(r[unknown])
        cols.append(column[neighbours[unknown]])
        vals.append(c[unknown])
        # the known neighbours' terms only (an unknown pixel's value may be inf: never multiplied by 0),
        # subtracted tap after tap as scikit-image does (the system can be ill-conditioned in float32)
        part = np.zeros((len(members), n_channels), dtype=out.dtype)
        for t in range(len(coefs)):
            term = coefs[t] * out_flat[neighbours[:, t]]
            term[unknown[:, t]] = 0
            part -= term
        rhs[members] = part
    matrix = sparse.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                              shape=(n_mask, n_mask))
    result = spsolve(matrix, rhs, use_umfpack=False, permc_spec="MMD_ATA")
    if result.ndim == 1:
        result = result[:, np.newaxis]
    out_flat[flat] = result


@engine_aware("image", "mask")
@_channel_last
def inpaint_biharmonic(image, mask, *, split_into_regions=False, channel_axis=None):
    """Inpaint the masked pixels of an n-D image with the biharmonic equation (skimage 0.26)."""
    if xp_of(image, mask) is not np:
        raise TypeError("inpaint_biharmonic: the GPU engine is not built yet (its sparse solve runs on the "
                        "host); pass NumPy arrays")
    if image.ndim < 1:
        raise ValueError("Input array has to be at least 1D")
    multichannel = channel_axis is not None
    if (image.shape[:-1] if multichannel else image.shape) != mask.shape:
        raise ValueError("Input arrays have to be the same shape")
    if np.ma.isMaskedArray(image):
        raise TypeError("Masked arrays are not supported")
    image = img_as_float(image)
    image = image.astype(supported_float_type(image.dtype), copy=False)
    mask = mask.astype(bool, copy=False)
    if not multichannel:
        image = image[..., np.newaxis]
    out = np.copy(image, order="C")
    known = image[~mask]
    limits = (known.min(axis=0), known.max(axis=0))
    if split_into_regions:
        regions = label(binary_dilation(mask, structure=generate_binary_structure(mask.ndim, 1)))
        regions *= mask
        for idx, box in enumerate(find_objects(regions), 1):
            if box is None:
                continue
            roi = tuple(slice(max(s.start - _RADIUS, 0), min(s.stop + _RADIUS, n)) for s, n in zip(box, mask.shape))
            part = np.ascontiguousarray(out[roi])
            _inpaint_region(regions[roi] == idx, part)
            out[roi] = part
    elif mask.any():
        _inpaint_region(mask, out)
    np.clip(out, limits[0], limits[1], out=out)
    return out if multichannel else out[..., 0]

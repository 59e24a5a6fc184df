"""skimage.restoration.inpaint_biharmonic: the masked pixels solve the biharmonic equation, a sparse linear
system assembled with array operations over NumPy or CuPy alike: the masked pixels grouped by their distance
to the array's edges, one stencil per group (the Laplacian applied twice to a unit impulse on the
neighbourhood cropped at the edges, as scikit-image builds it).

The solve is the one step that differs by engine (``_solve``). On the CPU: scipy.sparse's SuperLU with
scikit-image's arguments, its rounding to the bit. On the CUDA engine the matrix is built on the device
(cupyx.scipy.sparse) and solved by cuSOLVER's sparse QR (cupyx's spsolve), in float64 whatever the image's
float type: the system is not symmetric (the stencils are cropped at the edges), so conjugate gradients do
not apply, and its condition grows with the hole's size to the 4th power, which lsqr would square; a direct
solve in float64 leaves only scikit-image's own float32 rounding (SuperLU in float32) between the engines."""
from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import spsolve

from .._engine import engine_aware, xp_of
from .._rules import img_as_float, supported_float_type
from ..ndimage import binary_dilation, find_objects, generate_binary_structure, laplace
from ..ndimage._footprint import to_host
from ..measure import label
from ..transform._warps import _channel_last

_RADIUS = 2   # the biharmonic stencil's reach: the Laplacian's twice
_SIDES = _RADIUS + 1   # an edge distance clipped to the radius: 0.._RADIUS


def _stencil(shape, centre, dtype):
    """(offsets from the centre (taps, ndim), coefficients) of the biharmonic stencil on a neighbourhood of
    `shape` around `centre`: laplace(laplace(impulse)) with its reflecting edges (tiny: on the host)."""
    impulse = np.zeros(shape, dtype=dtype)
    impulse[centre] = 1
    coef = laplace(laplace(impulse))
    idx = np.nonzero(coef)
    return np.stack(idx, axis=1) - np.asarray(centre), coef[idx]


def _solve(rows, cols, vals, rhs):
    """The unknowns (n, channels) of the system of COO triplets (rows, cols, vals) with right-hand sides rhs
    (n, channels), in rhs's dtype."""
    xp = xp_of(rhs)
    n = rhs.shape[0]
    if xp is not np and not bool(xp.isfinite(rhs).all()):
        # non-finite known values: which unknowns turn inf or NaN is the factorization's own (SuperLU's LU
        # and cuSOLVER's QR spread them differently), so such a system is solved as scikit-image solves it
        return xp.asarray(_solve(rows.get(), cols.get(), vals.get(), rhs.get()))
    if xp is np:
        # use_umfpack=False keeps float32 in float32, as scikit-image calls it
        matrix = sparse.csr_array((vals, (rows, cols)), shape=(n, n))
        result = spsolve(matrix, rhs, use_umfpack=False, permc_spec="MMD_ATA")
        return result[:, np.newaxis] if result.ndim == 1 else result
    import cupyx.scipy.sparse as device_sparse
    from cupyx.scipy.sparse.linalg import spsolve as device_spsolve

    if vals.size > np.iinfo(np.int32).max:   # cuSPARSE's CSR indices are int32
        raise ValueError("inpaint_biharmonic: the system has too many entries for the CUDA engine; "
                         "use split_into_regions=True")
    matrix = device_sparse.coo_matrix((vals.astype(np.float64), (rows.astype(np.int32), cols.astype(np.int32))),
                                      shape=(n, n)).tocsr()
    # cuSOLVER's csrlsvqr takes one contiguous right-hand side: the channels one after another
    b = xp.ascontiguousarray(rhs.T, dtype=np.float64)
    try:
        x = [device_spsolve(matrix, b[c]) for c in range(b.shape[0])]
    except NotImplementedError:   # CuPy without cusolverSp's csrlsvqr
        raise NotImplementedError("inpaint_biharmonic: the CUDA engine needs cuSOLVER's sparse QR (csrlsvqr), which "
                                  "this CuPy lacks; pass NumPy arrays") from None
    return xp.stack(x, axis=1).astype(rhs.dtype)


def _inpaint_region(mask, out):
    """Solve for out's masked pixels (out: (..., channels), C-contiguous; mask: its spatial shape; both of one
    engine), in place. Rows: the masked pixels within the stencil's reach of an edge, then the others
    (scikit-image's order); columns: the same pixels in the same order."""
    xp = xp_of(out)
    shape, ndim = mask.shape, mask.ndim
    n_channels = out.shape[-1]
    out_flat = out.reshape(-1, n_channels)
    mask_flat = mask.reshape(-1)
    pts = xp.stack(xp.nonzero(mask), axis=1)
    lo = xp.minimum(pts, _RADIUS)                              # reach towards each edge, at most the radius
    hi = xp.minimum(xp.asarray(shape) - 1 - pts, _RADIUS)
    near_edge = ((lo < _RADIUS) | (hi < _RADIUS)).any(axis=1)
    order = xp.concatenate((xp.flatnonzero(near_edge), xp.flatnonzero(~near_edge)))
    pts, lo, hi = pts[order], lo[order], hi[order]
    n_mask = len(pts)
    strides = np.asarray([int(np.prod(shape[a + 1:])) for a in range(ndim)], dtype=np.intp)
    flat = (pts * xp.asarray(strides)).sum(axis=1)
    column = xp.full(mask.size, -1, dtype=np.intp)
    column[flat] = xp.arange(n_mask)
    # one key per (lo, hi) pair: a base-_SIDES number of 2 * ndim digits, decoded on the host below
    key = ((lo * _SIDES + hi) * xp.asarray(_SIDES ** (2 * np.arange(ndim)))).sum(axis=1)
    rows, cols, vals = [], [], []
    rhs = xp.zeros((n_mask, n_channels), dtype=out.dtype)
    for k in to_host(xp.unique(key)).tolist():
        digits = [k // _SIDES ** (2 * a) % _SIDES ** 2 for a in range(ndim)]
        l, h = np.asarray([d // _SIDES for d in digits]), np.asarray([d % _SIDES for d in digits])
        members = xp.flatnonzero(key == k)
        offsets, coefs = _stencil(tuple(l + h + 1), tuple(l), out.dtype)
        neighbours = flat[members][:, None] + xp.asarray(offsets @ strides)     # (points, taps)
        unknown = mask_flat[neighbours]
        point, tap = xp.nonzero(unknown)                                      # C order, as boolean indexing
        rows.append(members[point])
        cols.append(column[neighbours[point, tap]])
        vals.append(xp.asarray(coefs)[tap])
        # the known neighbours' terms only (an unknown pixel's value may be inf: never multiplied by 0),
        # subtracted tap after tap as scikit-image does (the system can be ill-conditioned in float32)
        part = xp.zeros((len(members), n_channels), dtype=out.dtype)
        for t, c in enumerate(coefs.tolist()):   # Python floats: weak scalars, out's dtype on both engines
            part -= c * xp.where(unknown[:, t, None], 0, out_flat[neighbours[:, t]])
        rhs[members] = part
    out_flat[flat] = _solve(xp.concatenate(rows), xp.concatenate(cols), xp.concatenate(vals), rhs)


@engine_aware("image", "mask")
@_channel_last
def inpaint_biharmonic(image, mask, *, split_into_regions=False, channel_axis=None):
    """Inpaint the masked pixels of an n-D image with the biharmonic equation (skimage 0.26)."""
    if image.ndim < 1:
        raise ValueError("Input array has to be at least 1D")
    multichannel = channel_axis is not None
    if (image.shape[:-1] if multichannel else image.shape) != mask.shape:
        raise ValueError("Input arrays have to be the same shape")
    if np.ma.isMaskedArray(image):
        raise TypeError("Masked arrays are not supported")
    xp = xp_of(image, mask)
    image = img_as_float(image)
    image = image.astype(supported_float_type(image.dtype), copy=False)
    mask = mask.astype(bool, copy=False)
    if not multichannel:
        image = image[..., np.newaxis]
    out = image.copy(order="C")
    known = image[~mask]
    if known.shape[0] == 0:   # NumPy's refusal, which scikit-image gives, on either engine
        raise ValueError("zero-size array to reduction operation minimum which has no identity")
    limits = (known.min(axis=0), known.max(axis=0))
    if split_into_regions:
        regions = label(binary_dilation(mask, structure=generate_binary_structure(mask.ndim, 1)))
        regions *= mask
        for idx, box in enumerate(find_objects(regions), 1):
            if box is None:
                continue
            roi = tuple(slice(max(s.start - _RADIUS, 0), min(s.stop + _RADIUS, n)) for s, n in zip(box, mask.shape))
            part = xp.ascontiguousarray(out[roi])
            _inpaint_region(regions[roi] == idx, part)
            out[roi] = part
    elif mask.any():
        _inpaint_region(mask, out)
    # NumPy's clip: NaN limits (a NaN known value) make every value NaN; CuPy's clip ignores them
    xp.minimum(xp.maximum(out, limits[0], out=out), limits[1], out=out)
    return out if multichannel else out[..., 0]

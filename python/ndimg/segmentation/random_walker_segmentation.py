"""skimage.segmentation.random_walker on both engines.

The graph Laplacian of the image's pixel grid is built directly in its reduced form (rows and columns of
the unlabeled pixels only, each row's columns in increasing order, the diagonal summed over the neighbours
in increasing index order), which is the matrix scikit-image gets from its full Laplacian by slicing: the
same values in the same order. 'bf' is scipy.sparse's direct solver (a kept library); the conjugate gradients
are scipy's iteration step for step (BLAS's dot products where OpenBLAS runs them on one thread, NumPy's own
beyond), so the probabilities equal scikit-image's: bit for bit up to 10000 unlabeled pixels, to the rounding
of the dot products beyond (where scikit-image's own vary with OpenBLAS's thread count). Seeds cut off from the unlabeled pixels
are found with ndimg's binary propagation.

On the CUDA engine the same steps run over CuPy (the reduced Laplacian built on the device in the same
order, a cupyx.scipy.sparse CSR matrix): 'cg' and 'cg_j' are the same iteration with cuBLAS's dot products
(their rounding, not scipy's), 'bf' a dense LU solve up to 4096 unlabeled pixels and cupyx's sparse QR
solver per label beyond, and 'cg_mg' (pyamg's hierarchy is host-only) solves the device-built system on
the host and uploads the probabilities.
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import spsolve

from .._engine import engine_aware, xp_of
from .._rules import img_as_float
from ..ndimage._binary import binary_propagation

try:
    from pyamg import ruge_stuben_solver
except ImportError:   # scikit-image falls back to 'cg_j' with a warning
    ruge_stuben_solver = None

try:   # scikit-image warns that plain 'cg' may be slow where scipy has no UMFPACK
    from scipy.sparse.linalg.dsolve.linsolve import umfpack as _umfpack  # noqa: F401
    _HAS_UMFPACK = True
except ImportError:
    _HAS_UMFPACK = False

_MODES = ("cg_mg", "cg", "bf", "cg_j", None)
_EPS = 1.0e-10


def _edge_weights(data, spacing, beta, multichannel):
    """The (negative) weight of every grid edge, in the order of _grid_edges: edges along the last spatial
    axis, then the middle one, then the first; exp(-beta * |gradient|^2 / (10 std)) + eps as scikit-image."""
    xp = xp_of(data)
    spatial = [ax for ax in (2, 1, 0) if data.shape[ax] > 1]

    def squared(channel):
        # a 0-d float64 divisor: a float32 image's differences promote to float64, as by NumPy's scalar
        return xp.concatenate([xp.diff(data[..., channel], axis=ax).ravel() / xp.asarray(spacing[ax])
                               for ax in spatial]) ** 2

    gradients = squared(0)
    for channel in range(1, data.shape[-1]):
        gradients += squared(channel)
    std = data.std()
    if xp is not np:   # the scale's arithmetic on a NumPy scalar of std's type, as on the host
        std = std.get()[()]
    scale = -beta / (10 * std)
    if multichannel:
        scale /= np.sqrt(data.shape[-1])
    weights = xp.exp(scale * gradients)
    weights += _EPS
    return -weights


def _grid_edges(shape, xp):
    """The (2, n_edges) vertex pairs of the 3-D grid's edges: along axis 2, then 1, then 0."""
    vertices = xp.arange(int(np.prod(shape))).reshape(shape)
    pairs = [(vertices[..., :-1], vertices[..., 1:]), (vertices[:, :-1], vertices[:, 1:]),
             (vertices[:-1], vertices[1:])]
    return xp.hstack([xp.vstack((a.ravel(), b.ravel())) for a, b in pairs])


def _graph(data, spacing, mask, beta, multichannel):
    """(edges, weights, vertex count) of the pixel graph; with `mask`, only the edges between pixels in it,
    the vertices renumbered in order among those that keep an edge (scikit-image's np.unique numbering)."""
    xp = xp_of(data)
    edges = _grid_edges(data.shape[:3], xp)
    weights = _edge_weights(data, spacing, beta, multichannel)
    if mask is None:
        return edges, weights, int(np.prod(data.shape[:3]))
    flat = mask.ravel()
    keep = flat[edges[0]] & flat[edges[1]]
    edges, weights = edges[:, keep], weights[keep]
    present = xp.zeros(flat.size, bool)
    present[edges.ravel()] = True
    number = xp.cumsum(present) - 1
    nvert = int(present.sum())
    return number[edges], weights, nvert


def _neighbour_sums(rows, cols, vals, n):
    """For each vertex, the sum of the values of its entries, added in increasing order of the other end,
    one after another from 0 (the order of scipy's column sums of the Laplacian)."""
    xp = xp_of(vals)
    order = xp.lexsort(xp.stack((rows, cols)))
    c, v = cols[order], vals[order]
    starts = xp.searchsorted(c, xp.arange(n))
    counts = xp.bincount(c, minlength=n)
    total = xp.zeros(n, vals.dtype)
    for k in range(int(counts.max()) if counts.size else 0):
        has = counts > k
        total[has] += v[starts[has] + k]
    return total


def _linear_system(data, spacing, labels, nlabels, mask, beta, multichannel):
    """The reduced Laplacian (CSR, sorted rows) over the unlabeled vertices and the seeds' right-hand sides,
    one column per label (dense)."""
    xp = xp_of(data)
    labels = labels.ravel() if mask is None else labels[mask]
    edges, weights, nvert = _graph(data, spacing, mask, beta, multichannel)
    rows = xp.concatenate((edges[0], edges[1]))
    cols = xp.concatenate((edges[1], edges[0]))
    vals = xp.concatenate((weights, weights))
    diag = -_neighbour_sums(rows, cols, vals, max(nvert, labels.size))
    seeded = labels > 0
    unlabeled = ~seeded
    number = xp.cumsum(unlabeled) - 1
    nfree = int(unlabeled.sum())
    # the unlabeled rows: off-diagonal entries to unlabeled columns, the diagonal, seeds into the rhs
    to_free = unlabeled[rows] & unlabeled[cols]
    r = xp.concatenate((number[rows[to_free]], xp.arange(nfree)))
    c = xp.concatenate((number[cols[to_free]], xp.arange(nfree)))
    v = xp.concatenate((vals[to_free], diag[unlabeled]))
    order = xp.lexsort(xp.stack((c, r)))
    indptr = xp.searchsorted(r[order], xp.arange(nfree + 1))
    if xp is np:
        lap = sparse.csr_array((v[order], c[order], indptr), shape=(nfree, nfree))
    else:
        import cupyx.scipy.sparse

        if v.size > np.iinfo(np.int32).max:   # cuSPARSE's CSR indices are int32
            raise ValueError("random_walker: the Laplacian has too many entries for the CUDA engine")
        lap = cupyx.scipy.sparse.csr_matrix((v[order], c[order].astype(np.int32), indptr.astype(np.int32)),
                                            shape=(nfree, nfree))
    to_seed = unlabeled[rows] & seeded[cols]
    sr, sc, sv = number[rows[to_seed]], cols[to_seed], -vals[to_seed]
    rhs = xp.zeros((nfree, nlabels))
    order = xp.lexsort(xp.stack((sc, sr)))   # each row's seeds added in increasing index order, as a sparse product does
    sr, sv, sl = sr[order], sv[order], labels[sc[order]] - 1
    rank = xp.arange(sr.size) - xp.searchsorted(sr, sr)
    for k in range(int(rank.max()) + 1 if rank.size else 0):
        at = rank == k   # one entry per row at each rank: no index repeats within a pass
        rhs[sr[at], sl[at]] += sv[at]
    return lap, rhs


_BLAS_ONE_THREAD = 10000   # OpenBLAS computes dot products up to this length on one thread


def _sum_of_products(a, b):
    return np.einsum("i,i->", a, b)


def _dot_for(n, xp):
    """The dot product of the conjugate gradients on vectors of length n: BLAS's (scipy's, bit for bit) up to
    the length OpenBLAS computes on one thread; beyond it BLAS splits the sum over its threads (scikit-image's
    results then round by the thread count) and its spinning threads stall a busy machine (20x slower on 2
    loaded cores), so NumPy's own sum of products. CuPy: cuBLAS's."""
    if xp is not np:
        return xp.dot
    return np.dot if n <= _BLAS_ONE_THREAD else _sum_of_products


def _cg(lap, b, rtol, psolve, maxiter):
    """scipy.sparse.linalg.cg's iteration (the same updates in the same order, atol = rtol * |b|, the
    residual tested before each step) for one right-hand side column `b`; returns (x, info)."""
    xp = xp_of(b)
    column = b
    b = b.ravel()
    _dot = _dot_for(b.size, xp)
    bnrm2 = float(np.sqrt(float(_dot(b, b))))
    if bnrm2 == 0:
        return column, 0
    atol = float(rtol) * bnrm2
    if maxiter is None:
        maxiter = b.size * 10
    x = xp.zeros(b.size)
    r = b.copy()
    p = rho_prev = None
    for iteration in range(maxiter):
        if np.sqrt(float(_dot(r, r))) < atol:
            return x, 0
        z = psolve(r)
        rho = _dot(r, z)
        if iteration > 0:
            p *= rho / rho_prev
            p += z
        else:
            p = z.copy()
        q = lap @ p
        alpha = rho / _dot(p, q)
        x += alpha * p
        r -= alpha * q
        rho_prev = rho
    return x, maxiter


_DENSE_BF = 4096   # unlabeled pixels up to which 'bf' on the GPU solves the dense matrix (128 MiB)


def _device_direct_solve(lap, rhs):
    """'bf' on the CUDA engine: the (nlabels, n) solutions by LU of the dense Laplacian up to _DENSE_BF
    unknowns, by cuSOLVER's sparse QR (cupyx's spsolve) one label at a time beyond."""
    xp = xp_of(rhs)
    if lap.shape[0] <= _DENSE_BF:
        return xp.linalg.solve(lap.toarray(), rhs).T
    from cupyx.scipy.sparse.linalg import spsolve as device_spsolve

    try:
        return xp.stack([device_spsolve(lap, xp.ascontiguousarray(rhs[:, i])) for i in range(rhs.shape[1])])
    except NotImplementedError:   # CuPy without cusolverSp's csrlsvqr
        raise NotImplementedError(f"random_walker: mode 'bf' on the CUDA engine solves up to {_DENSE_BF} unlabeled "
                                  "pixels densely; more need cuSOLVER's sparse QR, which this CuPy lacks: use "
                                  "mode 'cg_j'") from None


def _solve(lap, rhs, tol, mode):
    xp = xp_of(rhs)
    if mode is None:
        mode = "cg_j"
    if mode == "cg_mg" and ruge_stuben_solver is None:
        warnings.warn('"cg_mg" not available, it requires pyamg to be installed. The "cg_j" mode will be used '
                      'instead.', stacklevel=4)
        mode = "cg_j"
    if mode == "bf":
        if xp is np:
            return spsolve(lap, rhs).T
        X = _device_direct_solve(lap, rhs)
        return X[0] if rhs.shape[1] == 1 else X   # scipy's solution of one column is a vector, as here
    if mode == "cg_mg" and xp is not np:   # pyamg's hierarchy is host-only: this mode solves on the host
        return xp.asarray(_solve(lap.get(), rhs.get(), tol, mode))
    maxiter = None
    if mode == "cg":
        if not _HAS_UMFPACK:
            warnings.warn('"cg" mode may be slow because UMFPACK is not available. Consider building Scipy with '
                          'UMFPACK or use a preconditioned version of CG ("cg_j" or "cg_mg" modes).', stacklevel=4)
        psolve = xp.copy
    elif mode == "cg_j":
        inverse_diagonal = 1.0 / lap.diagonal()
        psolve = inverse_diagonal.__mul__
    else:
        if lap.indptr[-1] > np.iinfo(np.int32).max:
            raise ValueError("index values too large for int32 mode 'cg_mg'")
        lap.indices, lap.indptr = lap.indices.astype(np.int32), lap.indptr.astype(np.int32)
        psolve = ruge_stuben_solver(lap, coarse_solver="pinv").aspreconditioner(cycle="V").matvec
        maxiter = 30
    solved = [_cg(lap, rhs[:, [i]], tol, psolve, maxiter) for i in range(rhs.shape[1])]
    if any(info > 0 for _, info in solved):
        warnings.warn("Conjugate gradient convergence to tolerance not achieved. Consider decreasing beta to "
                      "improve system conditionning.", stacklevel=4)
    return xp.stack([x for x, _ in solved])


def _preprocess(labels):
    """scikit-image's seed bookkeeping: labels renumbered 1..nlabels (0 unlabeled, negatives -1), unlabeled
    pixels no seed reaches marked -1 and masked out, seeds no unlabeled pixel reaches set aside."""
    xp = xp_of(labels)
    values, inverse = xp.unique(labels, return_inverse=True)
    if values.max() <= 0:
        raise ValueError("No seeds provided in label image: please ensure it contains at least one positive value")
    if not (values == 0).any():
        warnings.warn("Random walker only segments unlabeled areas, where labels == 0. No zero valued areas in "
                      "labels were found. Returning provided labels.", stacklevel=4)
        return labels, None, None, None, None
    null = labels == 0
    positive = labels > 0
    mask = labels >= 0
    isolated = positive & ~binary_propagation(null, mask=mask)
    positive[isolated] = False
    if values[0] < 0 or isolated.any():
        isolated = ~binary_propagation(positive, mask=mask) & null
        labels[isolated] = -1
        if isolated[null].all():
            warnings.warn("All unlabeled pixels are isolated, they could not be determined by the random walker "
                          "algorithm.", stacklevel=4)
            return labels, None, None, None, None
        mask[isolated] = False
        mask = xp.atleast_3d(mask)
    else:
        mask = None
    zero = int(xp.searchsorted(values, 0))
    labels = xp.atleast_3d(inverse.reshape(labels.shape) - zero)
    nlabels = values[zero + 1:].shape[0]
    at = xp.nonzero(isolated)
    return labels, nlabels, mask, at, labels[at]


def _spacing(spacing, ndim):
    if spacing is None:
        return np.ones(3)
    if len(spacing) != ndim:
        raise ValueError("Input argument `spacing` incorrect, should be an iterable with one number per spatial "
                         "dimension.")
    return np.asarray(np.r_[spacing, 1.0] if len(spacing) == 2 else spacing)


@engine_aware("data", "labels")
def random_walker(data, labels, beta=130, mode="cg_j", tol=1.0e-3, copy=True, return_full_prob=False,
                  spacing=None, *, prob_tol=1e-3, channel_axis=None):
    """Random walker segmentation from seed labels (skimage.segmentation.random_walker)."""
    xp = xp_of(data, labels)
    if channel_axis is not None:
        axes = (channel_axis,) if np.isscalar(channel_axis) else tuple(channel_axis)
        if len(axes) > 1:
            raise ValueError("only a single channel axis is currently supported")
        if axes != (-1,):
            data = xp.moveaxis(data, axes[0], -1)
        channel_axis = -1
    if mode not in _MODES:
        raise ValueError(f"{mode} is not a valid mode. Valid modes are 'cg_mg', 'cg', 'cg_j', 'bf', and None")
    if data.dtype == np.float16:
        data = data.astype(np.float32)   # (a safe cast: CuPy takes no casting argument)
    spacing = _spacing(spacing, labels.ndim)
    multichannel = channel_axis is not None
    if not multichannel:
        if data.ndim not in (2, 3):
            raise ValueError("For non-multichannel input, data must be of dimension 2 or 3.")
        if data.shape != labels.shape:
            raise ValueError("Incompatible data and labels shapes.")
        data = xp.atleast_3d(img_as_float(data))[..., np.newaxis]
    else:
        if data.ndim not in (3, 4):
            raise ValueError("For multichannel input, data must have 3 or 4 dimensions.")
        if data.shape[:-1] != labels.shape:
            raise ValueError("Incompatible data and labels shapes.")
        data = img_as_float(data)
        if data.ndim == 3:   # 2-D multichannel: a singleton third spatial axis
            data = data[:, :, np.newaxis, :]

    labels_shape, labels_dtype = labels.shape, labels.dtype
    if copy:
        labels = labels.copy()
    labels, nlabels, mask, at_isolated, isolated_values = _preprocess(labels)
    if isolated_values is None:
        if return_full_prob:
            return xp.concatenate([xp.atleast_3d(labels == lab) for lab in xp.unique(labels).tolist() if lab > 0],
                                  axis=-1)
        return labels

    lap, rhs = _linear_system(data, spacing, labels, nlabels, mask, beta, multichannel)
    X = _solve(lap, rhs, tol, mode)
    if X.min() < -prob_tol or X.max() > 1 + prob_tol:
        warnings.warn("The probability range is outside [0, 1] given the tolerance `prob_tol`. Consider "
                      "decreasing `beta` and/or decreasing `tol`.", stacklevel=3)

    labels[at_isolated] = isolated_values
    labels = labels.reshape(labels_shape)
    unlabeled = labels == 0
    unlabeled[at_isolated] = False
    if return_full_prob:
        out = xp.zeros((nlabels,) + labels_shape)
        for lab, (label_prob, prob) in enumerate(zip(out, X), start=1):
            label_prob[unlabeled] = prob
            label_prob[labels == lab] = 1
        return out
    out = labels.astype(labels_dtype)
    out[unlabeled] = xp.argmax(X, axis=0) + 1
    return out

"""skimage.graph.pixel_graph and central_pixel (skimage/graph/_graph.py). pixel_graph's edges (every pair of
masked neighbours and its weight) are array code on the image's engine, the table a scipy.sparse matrix (a
cupyx.scipy.sparse one for GPU images); central_pixel's shortest paths are scipy.sparse.csgraph's, on the
host."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, xp_of
from ..morphology._extrema import neighbour_steps
from ..ndimage._binary import generate_binary_structure
from ..ndimage._footprint import to_host


def _weighted_abs_diff(values0, values1, distances):
    """|values0 - values1| * distances: the default edge weight."""
    diff = values0 - values1
    if diff.dtype.kind == "c" and not isinstance(diff, np.ndarray):
        # NumPy's complex magnitude (a vectorized formula, not a correctly rounded hypot) is the reference's
        # to the bit and CuPy's differs in the last place: the magnitudes are taken on the host
        return xp_of(diff).asarray(np.abs(to_host(diff))) * distances
    return np.abs(diff) * distances


def _raveled_offsets_and_distances(image_shape, *, connectivity=1, spacing=None):
    """The steps to the neighbours under `connectivity`, their C-order flat offsets and their (spaced)
    lengths, nearest first (stable), without the centre; offsets that coincide in a too-small image kept once."""
    ndim = len(image_shape)
    spacing = np.ones(ndim) if spacing is None else spacing
    footprint = np.asarray(generate_binary_structure(ndim, connectivity))
    steps, raveled = neighbour_steps(image_shape, footprint, (1,) * ndim, spacing)
    return steps, raveled, np.sqrt(np.sum((steps * spacing) ** 2, axis=1))


# the image dtypes whose default weights the host builds in one pass (graph::EdgeWeight)
_WEIGHTS = {np.dtype(t): code for code, t in enumerate((np.bool_, np.float32, np.float64, np.uint8, np.uint16))}


def _host_table(image, mask, padded, steps, offsets, distances):
    """The CSR arrays of the default weights (graph::pixel_graph_rows/edges): no per-edge temporaries."""
    image = np.ascontiguousarray(image)
    nodes = np.flatnonzero(mask)
    strides = np.cumprod((image.shape[1:] + (1,))[::-1])[::-1]
    args = (padded.reshape(-1), list(image.shape), np.ascontiguousarray(offsets, dtype=np.int64),
            np.ascontiguousarray(steps @ strides, dtype=np.int64), np.ascontiguousarray(distances, dtype=np.float64))
    seq = np.empty(padded.size, np.int64)   # written at the masked pixels only
    indptr = np.empty(nodes.size + 1, np.int64)
    nnz = _core.pixel_graph_rows(*args, seq, indptr)
    indices, data = np.empty(nnz, np.int64), np.empty(nnz, np.float64)
    _core.pixel_graph_edges(*args, _WEIGHTS[image.dtype], image.reshape(-1), seq, indptr, indices, data)
    return data, indices, indptr, nodes


def _csr(xp, data, indices, indptr, m, sparse_type):
    if xp is np:
        from scipy import sparse

        graph = sparse.csr_array((data, indices, indptr), shape=(m, m))
        return sparse.csr_matrix(graph) if sparse_type == "matrix" else graph
    from cupyx.scipy import sparse

    cls = sparse.csr_matrix if sparse_type == "matrix" else getattr(sparse, "csr_array", sparse.csr_matrix)
    return cls((data, indices.astype(xp.int32), indptr.astype(xp.int32)), shape=(m, m))


@engine_aware("image", "mask")
def pixel_graph(image, *, mask=None, edge_function=None, connectivity=1, spacing=None, sparse_type="matrix"):
    """The graph of the pixels of `image` under `mask`, an edge between each two neighbours (see
    skimage.graph.pixel_graph). Returns the (sparse) adjacency matrix over the masked pixels in C order, and
    their flat indices."""
    xp = xp_of(image)
    if mask is None:
        mask = image if image.dtype == bool else xp.ones_like(image, dtype=bool)
    default = edge_function is None
    if default:
        if image.dtype == bool:
            def edge_function(x, y, distances):
                return distances
        else:
            edge_function = _weighted_abs_diff
    if sparse_type not in ("matrix", "array"):
        raise ValueError(f"`sparse_type` must be 'array' or 'matrix', got {sparse_type}")
    padded = xp.pad(mask, 1, mode="constant", constant_values=False)
    steps, offsets, distances = _raveled_offsets_and_distances(padded.shape, connectivity=connectivity,
                                                               spacing=spacing)
    # offsets in increasing order give each row's columns sorted: the CSR table is built directly, in the
    # canonical order scipy's COO conversion gives scikit-image's
    order = np.argsort(offsets, kind="stable")
    steps, offsets, distances = steps[order], offsets[order], distances[order]
    if (xp is np and default and image.dtype in _WEIGHTS and mask.dtype == bool and mask.shape == image.shape
            and image.size):
        data, cols, indptr, nodes = _host_table(image, mask, padded, steps, offsets, distances)
        return _csr(np, data, cols, indptr, nodes.size, sparse_type), nodes
    nodes_padded = xp.flatnonzero(padded)
    m = int(nodes_padded.size)
    neighbors_padded = nodes_padded[:, None] + xp.asarray(offsets)
    neighbors_mask = padded.reshape(-1)[neighbors_padded]
    sequential = xp.empty(padded.size, dtype=xp.int64)
    sequential[nodes_padded] = xp.arange(m)
    cols = sequential[neighbors_padded[neighbors_mask]]
    indptr = xp.zeros(m + 1, dtype=xp.int64)
    xp.cumsum(neighbors_mask.sum(axis=1), out=indptr[1:])
    nodes = xp.flatnonzero(mask)
    values = image.reshape(-1)[nodes]
    data = edge_function(xp.broadcast_to(values[:, None], neighbors_mask.shape)[neighbors_mask], values[cols],
                         xp.broadcast_to(xp.asarray(distances), neighbors_mask.shape)[neighbors_mask])
    return _csr(xp, data, cols, indptr, m, sparse_type), nodes


def central_pixel(graph, nodes=None, shape=None, partition_size=100):
    """The node of least total shortest-path length to all others (see skimage.graph.central_pixel), as
    an index into `shape` if given (else a flat node id), and every node's total."""
    from scipy.sparse import csgraph

    if type(graph).__module__.startswith("cupyx"):   # a GPU table: the paths are searched on the host
        graph = graph.get()
    nodes = to_host(nodes) if nodes is not None else np.arange(graph.shape[0])
    num_splits = 1 if partition_size is None else max(2, graph.shape[0] // partition_size)
    top = np.iinfo(np.int32).max
    if graph.indptr[-1] > top or (max(*graph.shape) > top and np.any(graph.indices > top)):
        raise ValueError("index values too large for csgraph")
    graph.indices, graph.indptr = graph.indices.astype(np.int32, copy=False), graph.indptr.astype(np.int32, copy=False)
    totals = []
    for part in np.array_split(np.arange(graph.shape[0]), num_splits):
        paths = csgraph.shortest_path(graph, directed=False, indices=part)
        totals.append(np.sum(np.nan_to_num(paths), axis=1))
    total = np.concatenate(totals)
    nonzero = np.flatnonzero(total)
    raveled_index = nodes[nonzero[np.argmin(total[nonzero])]]
    central = np.unravel_index(raveled_index, shape) if shape is not None else raveled_index
    return central, total

"""skimage.graph's region adjacency graphs (skimage/graph/_rag.py): RAG, rag_mean_color, rag_boundary and
show_rag. The graph is a networkx.Graph, as scikit-image's; the per-pixel work (which label pairs touch, each
label's pixel count and colour sum, the boundary pixels) is array code on the input's engine, and only the
pairs and per-label sums reach the host to build the graph. Nodes and edges are added in scikit-image's
order (its generic_filter visits pixels in C order and the footprint in C order, the edge of the image
clamped to the nearest pixel), so iteration orders and everything computed from them match."""
from __future__ import annotations

import math

import networkx as nx
import numpy as np

from .._engine import engine_aware, xp_of
from ..ndimage._binary import generate_binary_structure
from ..ndimage._footprint import to_host
from ..ndimage._grey import grey_dilation, grey_erosion


def _edge_generator_from_csr(csr_array):
    """(row, column, value) of every stored entry of a CSR matrix, row by row."""
    indptr, indices, values = csr_array.indptr, csr_array.indices, csr_array.data
    for i in range(csr_array.shape[0]):
        for j in range(indptr[i], indptr[i + 1]):
            yield i, indices[j], values[j]


def min_weight(graph, src, dst, n):
    """The smaller of the weights of (src, n) and (dst, n), a missing edge counting as infinite."""
    default = {"weight": np.inf}
    return {"weight": min(graph[n].get(src, default)["weight"], graph[n].get(dst, default)["weight"])}


def _as_node_ids(labels):
    """Labels as scikit-image's filter sees them: through float64 to int (its generic_filter's buffer)."""
    xp = xp_of(labels)
    if labels.dtype.kind in "iub" and labels.dtype.itemsize < 8:
        return labels.astype(xp.int64)
    return labels.astype(xp.float64).astype(xp.int64)


def _dense_ids(ids):
    """(ids numbered 0..n-1 in the order of their values, the n values on the host): by a count over the
    value range where it is short, else by a sort."""
    xp = xp_of(ids)
    if ids.size == 0:
        return ids, np.zeros(0, np.int64)
    low, high = int(ids.min()), int(ids.max())
    if high - low < max(1 << 20, 2 * ids.size):
        present = xp.bincount((ids - low).ravel(), minlength=high - low + 1) > 0
        dense = (xp.cumsum(present) - 1)[ids - low]
        return dense, to_host(xp.flatnonzero(present)) + low
    values, dense = xp.unique(ids, return_inverse=True)
    return dense.reshape(ids.shape), to_host(values)


def _scatter_min(xp, table, at, values):
    if xp is np:
        np.minimum.at(table, at, values)
    else:
        import cupyx

        cupyx.scatter_min(table, at, values)


def _adjacency(labels, connectivity):
    """The distinct touching label pairs (u, v) as host int64 arrays, in the order scikit-image's
    RAG(label_image) adds them: by pixel (C order), then by footprint element, u the pixel's own label.
    Each pair's first occurrence (pixel * elements + element) is the least over a table of pairs where the
    labels are few, else found by sorting all touching pixels."""
    xp = xp_of(labels)
    dense, values = _dense_ids(_as_node_ids(labels))
    n = len(values)
    empty = np.zeros(0, np.int64)
    if n < 2:
        return empty, empty
    fp = np.asarray(generate_binary_structure(labels.ndim, connectivity))
    offsets = np.argwhere(fp) - 1
    k_count = len(offsets)
    padded = xp.pad(dense, 1, mode="edge")   # the footprint clamped to the nearest pixel (mode='nearest')
    centre = dense.ravel()
    tabled = n * n <= 1 << 24
    if tabled:
        # unsigned: CuPy's scatter_min takes 32-bit and unsigned 64-bit integers, not int64
        first = xp.full(n * n, np.iinfo(np.uint64).max, dtype=xp.uint64)
    pieces = []
    for k, off in enumerate(offsets):
        if not off.any():
            continue
        nb = padded[tuple(slice(1 + o, 1 + o + s) for o, s in zip(off, dense.shape))].ravel()
        pos = xp.flatnonzero(nb != centre)
        a, b = centre[pos], nb[pos]
        key = xp.minimum(a, b) * n + xp.maximum(a, b)
        if tabled:
            _scatter_min(xp, first, key, (pos * k_count + k).astype(xp.uint64))
        else:
            pieces.append((key, pos * k_count + k))
    if tabled:
        key = xp.flatnonzero(first != np.iinfo(np.uint64).max)
        code = first[key].astype(xp.int64)
    else:
        key, code = (xp.concatenate(a) for a in zip(*pieces))
        # by pair, each pair's occurrences by code: the first of each run is its first occurrence
        order = xp.lexsort(xp.stack([code, key]))
        key, code = key[order], code[order]
        run = xp.ones(key.size, dtype=bool)
        run[1:] = key[1:] != key[:-1]
        key, code = key[run], code[run]
    order = xp.argsort(code)
    key, code = key[order], code[order]
    u = centre[code // k_count]
    lo, hi = key // n, key % n
    v = xp.where(u == lo, hi, lo)
    return values[to_host(u)], values[to_host(v)]


class RAG(nx.Graph):
    """The Region Adjacency Graph (RAG) of an image, a networkx.Graph (see skimage.graph.RAG).

    Parameters: label_image (an edge joins every two labels whose pixels touch under `connectivity`),
    connectivity, data (networkx's initial edges) and graph attributes.
    """

    def __init__(self, label_image=None, connectivity=1, data=None, **attr):
        super().__init__(data, **attr)
        self.max_id = 0 if self.number_of_nodes() == 0 else max(self.nodes())
        if label_image is not None:
            self._add_pairs(*_adjacency(label_image, connectivity))

    def _add_pairs(self, u, v):
        """add_edge(a, b) for the distinct pairs of arrays u, v in order, an edge already present left as it
        is: networkx's own insertion written out, the graph's dicts filled in one pass."""
        if u.size == 0:
            return
        adj, nodes = self._adj, self._node
        for a, b in zip(list(u), list(v)):
            for n in (a, b):
                if n not in adj:
                    adj[n] = self.adjlist_inner_dict_factory()
                    nodes[n] = self.node_attr_dict_factory()
            if b not in adj[a]:
                adj[a][b] = adj[b][a] = self.edge_attr_dict_factory()
        nx._clear_cache(self)
        self.max_id = max(self.max_id, max(u.max(), v.max()))

    def merge_nodes(self, src, dst, weight_func=min_weight, in_place=True, extra_arguments=None,
                    extra_keywords=None):
        """Merge node `src` into `dst` (or, with in_place=False, both into a new node, whose id is returned);
        `weight_func(self, src, dst, n, *extra_arguments, **extra_keywords)` gives the attributes of the
        edge to each neighbour n of either."""
        extra_arguments = [] if extra_arguments is None else extra_arguments
        extra_keywords = {} if extra_keywords is None else extra_keywords
        neighbors = (set(self.neighbors(src)) | set(self.neighbors(dst))) - {src, dst}
        if in_place:
            new = dst
        else:
            new = self.next_id()
            self.add_node(new)
        for neighbor in neighbors:
            data = weight_func(self, src, dst, neighbor, *extra_arguments, **extra_keywords)
            self.add_edge(neighbor, new, attr_dict=data)
        self.nodes[new]["labels"] = self.nodes[src]["labels"] + self.nodes[dst]["labels"]
        self.remove_node(src)
        if not in_place:
            self.remove_node(dst)
        return new

    def add_node(self, n, attr_dict=None, **attr):
        """Add node `n`, keeping the largest node id."""
        if attr_dict is None:
            attr_dict = attr
        else:
            attr_dict.update(attr)
        super().add_node(n, **attr_dict)
        self.max_id = max(n, self.max_id)

    def add_edge(self, u, v, attr_dict=None, **attr):
        """Add an edge between `u` and `v`, keeping the largest node id."""
        if attr_dict is None:
            attr_dict = attr
        else:
            attr_dict.update(attr)
        super().add_edge(u, v, **attr_dict)
        self.max_id = max(u, v, self.max_id)

    def copy(self):
        """Copy the graph with its largest node id."""
        g = super().copy()
        g.max_id = self.max_id
        return g

    def fresh_copy(self):
        """An empty graph of this type."""
        return RAG()

    def next_id(self):
        """The id of the next node to insert: one more than the largest."""
        return self.max_id + 1

    def _add_node_silent(self, n):
        """Add node `n` without updating the largest node id."""
        super().add_node(n)


def _edges(graph):
    """graph.edges(data=True) as a list, in networkx's order (each edge from its first node), without the
    view machinery."""
    seen, out = set(), []
    for n, nbrs in graph._adj.items():
        out.extend((n, nbr, d) for nbr, d in nbrs.items() if nbr not in seen)
        seen.add(n)
    return out


def _channel_sums(image, ids, n):
    """Per dense label id (< n): the float64 sum of each of the 3 colour channels, as scikit-image's
    'total color' += image[index] (a trailing size-1 or scalar pixel broadcast to the 3 channels)."""
    xp = xp_of(ids)
    lead = ids.shape
    if image.ndim < len(lead) or any(s < t for s, t in zip(image.shape, lead)):
        raise IndexError(f"index out of bounds: image of shape {image.shape} for labels of shape {lead}")
    image = image[tuple(slice(0, t) for t in lead)]
    tail = image.shape[len(lead):]
    if len(tail) > 1 or (tail and tail[0] not in (1, 3)):
        raise ValueError(f"non-broadcastable output operand with shape (3,) doesn't match the broadcast shape {tail}")
    pixels = image.reshape(ids.size, -1) if tail else image.reshape(ids.size, 1)
    flat = ids.ravel()
    sums = [xp.bincount(flat, weights=pixels[:, c].astype(xp.float64), minlength=n) for c in range(pixels.shape[1])]
    sums = xp.stack(sums * 3 if len(sums) == 1 else sums, axis=1)
    return to_host(sums), to_host(xp.bincount(flat, minlength=n))


@engine_aware("image", "labels")
def rag_mean_color(image, labels, connectivity=2, mode="distance", sigma=255.0):
    """The RAG of `labels` weighted by the regions' mean colours (see skimage.graph.rag_mean_color):
    'distance' weighs an edge by |c1 - c2|, 'similarity' by exp(-|c1 - c2|**2 / sigma)."""
    graph = RAG(labels, connectivity=connectivity)
    ids = _as_node_ids(labels)
    dense, values = _dense_ids(ids)
    missing = [v for v in values.tolist() if v not in graph]
    if missing:
        # scikit-image adds nodes only through edges: a label touching no other has none
        raise KeyError(missing[0])
    sums, counts = _channel_sums(image, dense, len(values))
    at = {int(v): i for i, v in enumerate(values.tolist())}
    for n in graph:
        i = at[int(n)]
        graph.nodes[n].update({"labels": [n], "pixel count": int(counts[i]), "total color": sums[i].copy()})
    for n in graph:
        graph.nodes[n]["mean color"] = graph.nodes[n]["total color"] / graph.nodes[n]["pixel count"]
    edges = _edges(graph)
    if not edges:
        return graph
    if mode not in ("similarity", "distance"):
        raise ValueError(f"The mode '{mode}' is not recognised")
    mean = {n: d["mean color"] for n, d in graph.nodes(data=True)}
    d = np.array([mean[x] for x, _, _ in edges]) - np.array([mean[y] for _, y, _ in edges])
    # np.linalg.norm of each vector is the square root of its dot product, which NumPy hands to its BLAS: whose
    # kernel (order, fused multiply-adds) depends on the build and the processor, so each row takes that dot too
    diffs = np.sqrt(np.array([row.dot(row) for row in d], dtype=np.float64))
    for (_, _, attrs), diff in zip(edges, list(diffs)):
        # scikit-image's scalar expression (NumPy's array power rounds some values otherwise)
        attrs["weight"] = math.e ** (-(diff**2) / sigma) if mode == "similarity" else diff
    return graph


@engine_aware("labels", "edge_map")
def rag_boundary(labels, edge_map, connectivity=2):
    """The RAG of `labels` weighted by the mean of `edge_map` along each boundary (see
    skimage.graph.rag_boundary); each edge also counts its boundary pixels ('count')."""
    from scipy import sparse

    xp = xp_of(labels)
    conn = generate_binary_structure(labels.ndim, connectivity)
    eroded = grey_erosion(labels, footprint=conn)
    dilated = grey_dilation(labels, footprint=conn)
    b0, b1 = eroded != labels, dilated != labels
    small = to_host(xp.concatenate((eroded[b0], labels[b1])))
    large = to_host(xp.concatenate((labels[b0], dilated[b1])))
    data = to_host(xp.concatenate((edge_map[b0], edge_map[b1])))
    n = np.max(large) + 1
    count_matrix = sparse.csr_array((np.broadcast_to(1.0, small.shape), (small, large)), dtype=int, shape=(n, n))
    graph_matrix = sparse.csr_array((data, (small, large)))
    graph_matrix.data /= count_matrix.data
    rag = RAG()
    rag.add_weighted_edges_from(_edge_generator_from_csr(graph_matrix), weight="weight")
    rag.add_weighted_edges_from(_edge_generator_from_csr(count_matrix), weight="count")
    for n in rag.nodes():
        rag.nodes[n].update({"labels": [n]})
    return rag


@engine_aware("labels", "image")
def show_rag(labels, rag, image, border_color="black", edge_width=1.5, edge_cmap="magma", img_cmap="bone",
             in_place=True, ax=None):
    """Draw a RAG over an image with matplotlib (see skimage.graph.show_rag): region borders, and an edge
    between the centroids of adjacent regions coloured by its weight. Returns the LineCollection."""
    from matplotlib import colors
    from matplotlib import pyplot as plt
    from matplotlib.collections import LineCollection

    from ..color import rgb2gray
    from ..measure import regionprops
    from ..segmentation import mark_boundaries
    from ..util import img_as_float

    labels, image = to_host(labels), to_host(image)
    if not in_place:
        rag = rag.copy()
    if ax is None:
        _, ax = plt.subplots()
    out = img_as_float(image, force_copy=True)
    if img_cmap is None:
        if image.ndim < 3 or image.shape[2] not in [3, 4]:
            raise ValueError("If colormap is `None`, an RGB or RGBA image should be given")
        out = image[:, :, :3]
    else:
        out = plt.get_cmap(img_cmap)(rgb2gray(image))[:, :, :3]
    edge_cmap = plt.get_cmap(edge_cmap)
    # one region per node, numbered from 1 so that regionprops keeps them all
    map_array = np.arange(labels.max() + 1)
    for offset, (_, d) in enumerate(rag.nodes(data=True), start=1):
        for label in d["labels"]:
            map_array[label] = offset
    rag_labels = map_array[labels]
    for (_, data), region in zip(rag.nodes(data=True), regionprops(rag_labels)):
        data["centroid"] = tuple(map(int, region["centroid"]))
    if border_color is not None:
        out = mark_boundaries(out, rag_labels, color=colors.ColorConverter().to_rgb(border_color))
    ax.imshow(out)
    # matplotlib draws (x, y): the centroids' (row, column) reversed
    lines = [[rag.nodes[a]["centroid"][::-1], rag.nodes[b]["centroid"][::-1]] for a, b in rag.edges()]
    lc = LineCollection(lines, linewidths=edge_width, cmap=edge_cmap)
    lc.set_array(np.array([d["weight"] for _, _, d in rag.edges(data=True)]))
    ax.add_collection(lc)
    return lc

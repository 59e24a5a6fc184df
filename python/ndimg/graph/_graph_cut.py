"""skimage.graph.cut_threshold and cut_normalized (skimage/graph/_graph_cut.py, _ncut.py): cuts of a RAG on
the host (networkx, scipy.sparse's eigsh with the caller's random generator); the relabelling indexes the
labels on their engine."""
from __future__ import annotations

import networkx as nx
import numpy as np
from scipy import sparse
from scipy.sparse import linalg

from .._engine import engine_aware, xp_of
from ._graph_merge import _top


def _relabel(labels, map_array):
    return xp_of(labels).asarray(map_array)[labels]


@engine_aware("labels")
def cut_threshold(labels, rag, thresh, in_place=True):
    """Combine the regions joined by edges lighter than `thresh` (see skimage.graph.cut_threshold): the
    connected components of the RAG without its heavier edges, numbered in networkx's component order."""
    if not in_place:
        rag = rag.copy()
    rag.remove_edges_from([(x, y) for x, y, d in rag.edges(data=True) if d["weight"] >= thresh])
    map_array = np.arange(_top(labels), dtype=labels.dtype)
    for i, nodes in enumerate(nx.connected_components(rag)):
        for node in nodes:
            for label in rag.nodes[node]["labels"]:
                map_array[label] = i
    return _relabel(labels, map_array)


@engine_aware("labels")
def cut_normalized(labels, rag, thresh=0.001, num_cuts=10, in_place=True, max_edge=1.0, *, rng=None):
    """Recursive two-way normalized cuts of a RAG (see skimage.graph.cut_normalized); `rng` seeds the
    eigensolver's start vectors (and its own draws) as in scikit-image."""
    rng = np.random.default_rng(rng)
    if not in_place:
        rag = rag.copy()
    for node in rag.nodes():
        rag.add_edge(node, node, weight=max_edge)
    _ncut_relabel(rag, thresh, num_cuts, rng)
    map_array = np.zeros(_top(labels), dtype=labels.dtype)
    for _, d in rag.nodes(data=True):
        map_array[d["labels"]] = d["ncut label"]
    return _relabel(labels, map_array)


def DW_matrices(graph):
    """The diagonal degree matrix D and the weight matrix W of a graph, both CSC."""
    W = nx.to_scipy_sparse_array(graph, format="csc")
    D = sparse.dia_array((W.sum(axis=0), 0), shape=W.shape).tocsc()
    return D, W


def _argmin2(values):
    """The index of the second smallest value (the first index of each; ties with the smallest skipped)."""
    min1 = min2 = np.inf
    i1 = i2 = 0
    for i, x in enumerate(values.tolist()):
        if x < min1:
            min2, i2, min1, i1 = min1, i1, x, i
        elif min1 < x < min2:
            min2, i2 = x, i
    return i2


def ncut_cost(cut, D, W):
    """The normalized cut cost of the boolean partition `cut`: the cut weight (half of the weights between
    the parts, summed in CSC order) over each part's association."""
    cut = np.array(cut)
    cols = np.repeat(np.arange(W.shape[1]), np.diff(W.indptr))
    crossing = W.data[cut[W.indices] != cut[cols]].astype(np.float64)
    cost = (np.cumsum(crossing)[-1] if crossing.size else 0.0) * 0.5   # sequential, as a loop adds
    return cost / D.data[cut].sum() + cost / D.data[~cut].sum()


def get_min_ncut(ev, d, w, num_cuts):
    """The threshold of eigenvector `ev` (num_cuts evenly spaced candidates) of least normalized cut cost."""
    mcut = np.inf
    mn, mx = ev.min(), ev.max()
    min_mask = np.zeros_like(ev, dtype=bool)
    if np.allclose(mn, mx):
        return min_mask, mcut
    for t in np.linspace(mn, mx, num_cuts, endpoint=False):
        mask = ev > t
        cost = ncut_cost(mask, d, w)
        if cost < mcut:
            min_mask, mcut = mask, cost
    return min_mask, mcut


def _label_all(rag, attr_name):
    """Give every node the first label of the smallest node."""
    new_label = rag.nodes[min(rag.nodes())]["labels"][0]
    for _, d in rag.nodes(data=True):
        d[attr_name] = new_label


def _ncut_relabel(rag, thresh, num_cuts, rng):
    d, w = DW_matrices(rag)
    m = w.shape[0]
    if m > 2 and (d != w).nnz > 0:
        d2 = d.copy()
        d2.data = np.reciprocal(np.sqrt(d2.data, out=d2.data), out=d2.data)
        A = d2 @ (d - w) @ d2
        v0 = rng.random(A.shape[0])
        vals, vectors = linalg.eigsh(A, which="SM", v0=v0, k=min(100, m - 2), rng=rng)
        vals, vectors = np.real(vals), np.real(vectors)
        ev = vectors[:, _argmin2(vals)]
        cut_mask, mcut = get_min_ncut(ev, d, w, num_cuts)
        if mcut < thresh:
            nodes = list(rag.nodes())
            sub1 = rag.subgraph([n for i, n in enumerate(nodes) if cut_mask[i]])
            sub2 = rag.subgraph([n for i, n in enumerate(nodes) if not cut_mask[i]])
            _ncut_relabel(sub1, thresh, num_cuts, rng)
            _ncut_relabel(sub2, thresh, num_cuts, rng)
            return
    _label_all(rag, "ncut label")

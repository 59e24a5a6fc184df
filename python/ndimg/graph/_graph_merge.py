"""skimage.graph.merge_hierarchical (skimage/graph/_graph_merge.py): greedy merging of a RAG's cheapest edges
below a threshold. A host algorithm on the region graph; the final relabelling indexes the labels on their
engine."""
from __future__ import annotations

import heapq

import numpy as np

from .._engine import engine_aware, xp_of
from ..ndimage._footprint import to_host


def _top(labels):
    """labels.max() + 1 as scikit-image computes it: in the labels' own dtype, on the host."""
    return to_host(labels.max())[()] + 1


def _revalidate_node_edges(rag, node, heap_list):
    """Push `node`'s edges again with their new weights, invalidating their old heap items."""
    for nbr in rag.neighbors(node):
        data = rag[node][nbr]
        try:
            data["heap item"][3] = False
            _invalidate_edge(rag, node, nbr)
        except KeyError:
            pass   # an edge the merge just made has no heap item yet
        item = [data["weight"], node, nbr, True]
        data["heap item"] = item
        heapq.heappush(heap_list, item)


def _rename_node(graph, node_id, copy_id):
    """Move `node_id`, its attributes and its edges' weights to the new id `copy_id`."""
    graph._add_node_silent(copy_id)
    graph.nodes[copy_id].update(graph.nodes[node_id])
    for nbr in graph.neighbors(node_id):
        graph.add_edge(nbr, copy_id, {"weight": graph[node_id][nbr]["weight"]})
    graph.remove_node(node_id)


def _invalidate_edge(graph, n1, n2):
    graph[n1][n2]["heap item"][3] = False


@engine_aware("labels")
def merge_hierarchical(labels, rag, thresh, rag_copy, in_place_merge, merge_func, weight_func):
    """Merge the regions joined by the cheapest edge while it weighs less than `thresh` (see
    skimage.graph.merge_hierarchical): merge_func(rag, src, dst) runs before each merge, weight_func gives
    the merged node's edges. Returns the new labels, numbered in the RAG's node order."""
    if rag_copy:
        rag = rag.copy()
    edge_heap = []
    for n1, n2, data in rag.edges(data=True):
        item = [data["weight"], n1, n2, True]
        heapq.heappush(edge_heap, item)
        data["heap item"] = item
    while len(edge_heap) > 0 and edge_heap[0][0] < thresh:
        _, n1, n2, valid = heapq.heappop(edge_heap)
        if not valid:
            continue   # an edge of a node merged since it was pushed
        for nbr in rag.neighbors(n1):
            _invalidate_edge(rag, n1, nbr)
        for nbr in rag.neighbors(n2):
            _invalidate_edge(rag, n2, nbr)
        if not in_place_merge:
            next_id = rag.next_id()
            _rename_node(rag, n2, next_id)
            src, dst = n1, next_id
        else:
            src, dst = n1, n2
        merge_func(rag, src, dst)
        new_id = rag.merge_nodes(src, dst, weight_func)
        _revalidate_node_edges(rag, new_id, edge_heap)
    label_map = np.arange(_top(labels))
    for ix, (_, d) in enumerate(rag.nodes(data=True)):
        for label in d["labels"]:
            label_map[label] = ix
    return xp_of(labels).asarray(label_map)[labels]

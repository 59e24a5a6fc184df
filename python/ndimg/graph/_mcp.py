"""skimage.graph's minimum cost paths (skimage/graph/_mcp.pyx, mcp.py, spath.py): MCP, MCP_Geometric,
MCP_Connect, MCP_Flexible, route_through_array and shortest_path. The search is Dijkstra's front over flat
Fortran-order indices with scikit-image's own heap (cpp/src/graph/mcp.hpp), so costs and tracebacks are
scikit-image's to the bit, ties included. A priority queue is serial: GPU costs are searched on the host and
the cost and traceback arrays go back to the caller's library."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, from_host, library_of
from ..morphology._misc import DEPRECATED, warn_user
from ..ndimage._footprint import to_host

_OFFSET = np.int8
_TRACE = np.int16

# the travel costs the search computes itself (graph::Travel)
_NEW_COST, _GEOMETRIC, _ABS_DIFF, _HOOK = 0, 1, 2, 3


def make_offsets(d, fully_connected):
    """The offsets of the 3**d neighbourhood (less the centre), or of its 2*d face neighbours, in C order."""
    grid = np.indices((3,) * d).reshape(d, -1).T - 1
    nonzero = np.count_nonzero(grid, axis=1)
    keep = nonzero > 0 if fully_connected else nonzero == 1
    return list(grid[keep])


def _fortran_strides(shape):
    return np.multiply.accumulate([1] + list(shape[:-1]))


def _normalize_indices(indices, shape):
    """The indices with negative entries wrapped, as lists of ints; None if one is out of bounds."""
    table = np.asarray(indices) if isinstance(indices, np.ndarray) else None
    if table is not None and table.ndim == 2 and table.shape[1] == len(shape) and table.dtype.kind in "iuf":
        # a numeric table (shortest_path's starts and ends): int() truncates as astype does
        table = table.astype(np.int64)
        table = np.where(table < 0, table + np.asarray(shape, np.int64), table)
        if not ((table >= 0) & (table < np.asarray(shape, np.int64))).all():
            return None
        return table.tolist()
    out = []
    for index in indices:
        if len(index) != len(shape):
            return None
        new = []
        for i, s in zip(index, shape):
            i = int(i)
            if i < 0:
                i += s
            if not 0 <= i < s:
                return None
            new.append(i)
        out.append(new)
    return out


def _flat(indices, shape):
    strides = np.asarray(_fortran_strides(shape), dtype=np.int64)
    return np.asarray(indices, dtype=np.int64).reshape(len(indices), len(shape)) @ strides


def _overridden(obj, name, base):
    return getattr(type(obj), name) is not getattr(base, name)


class MCP:
    """MCP(costs, offsets=None, fully_connected=True, sampling=None)

    A class for finding the minimum cost path through a given n-d costs array (see
    skimage.graph.MCP): find_costs() from one or more starts, then traceback() to any end. The cost of a path
    is the sum of the costs along it; elements of infinite or negative cost are never entered.
    """

    _travel = _NEW_COST
    _use_start_cost = True

    def __init__(self, costs, offsets=None, fully_connected=True, sampling=None):
        if type(costs).__module__.startswith("dask"):
            raise NotImplementedError(f"ndimg.graph.{type(self).__name__} does not take Dask arrays: its paths depend "
                                      "on the whole array; compute() the array first")
        self._lib = library_of(costs)
        costs = to_host(costs) if self._lib not in (None, "numpy") else np.asarray(costs)
        if not np.can_cast(costs.dtype, np.float64):
            raise TypeError("cannot cast costs array to " + str(np.float64))
        if sampling is None:
            sampling = np.ones(costs.ndim, np.float64)
        elif isinstance(sampling, (list, tuple)):
            sampling = np.array(sampling, np.float64)
            if sampling.ndim != 1 or len(sampling) != costs.ndim:
                raise ValueError("Need one sampling element per dimension.")
        else:
            raise ValueError("Invalid type for sampling: %r." % type(sampling))
        if costs.ndim == 2 and costs.flags.c_contiguous and costs.dtype in (np.float32, np.float64):
            self._flat_costs = np.empty(costs.size, np.float64)   # transposed on the thread pool
            _core.mcp_fortran_costs(costs, self._flat_costs)
        else:   # one pass: the conversion writes the Fortran order
            self._flat_costs = np.asfortranarray(costs, dtype=np.float64).ravel("F")
        size = self._flat_costs.shape[0]
        self._shape = costs.shape
        self._cumulative = np.empty(size, np.float64)
        self._traceback = np.empty(size, _TRACE)
        if offsets is None:
            offsets = make_offsets(costs.ndim, fully_connected)
        self.offsets = np.array(offsets, dtype=_OFFSET)
        self._flat_offsets = _flat(self.offsets, self._shape)
        self._lengths = np.sqrt(np.sum((sampling * self.offsets) ** 2, axis=1)).astype(np.float64)
        if self.offsets.ndim != 2 or self.offsets.shape[1] != costs.ndim:
            raise ValueError("offsets must be a list of n-d offsets, one component per dimension of costs")
        if len(self.offsets) > np.iinfo(_TRACE).max:
            raise ValueError(f"at most {np.iinfo(_TRACE).max} offsets are supported")
        self._heap = _core.McpHeap(128, max(size - 1, 0))
        self._dirty = False

    def goal_reached(self, index, cumcost):
        """int goal_reached(int index, float cumcost)

        Called after each point is popped from the front, before its neighbours are examined: return 1 to
        skip its neighbours, 2 to stop the search, 0 to go on. Overload it to change the search.
        """
        return 0

    def _hooks(self):
        """The Python callables the search calls: None where this class keeps scikit-image's default."""
        return dict(travel_fn=None, goal_fn=self.goal_reached if _overridden(self, "goal_reached", MCP) else None,
                    examine_fn=None, update_fn=None, idmap=None, connect_fn=None)

    def _reset(self):
        """Clears paths found by find_costs() (the search itself refills the costs and traceback)."""
        self._dirty = False

    def find_costs(self, starts, ends=None, find_all_ends=True, max_coverage=1.0,
                   max_cumulative_cost=DEPRECATED, max_cost=DEPRECATED, *, max_step_cost=None):
        """Find the minimum-cost path from the given starting points (see skimage.graph.MCP.find_costs).

        Returns the cumulative costs (inf where not reached) and the traceback (for each point, the index
        into `offsets` of the move from its predecessor; -1 at starts, -2 where not reached), both of the
        costs array's shape.
        """
        if not DEPRECATED == max_cumulative_cost:
            warn_user("Parameter `max_cumulative_cost` is deprecated since version 0.26 and will be removed in 0.28 "
                      "(or later). To avoid this warning, please do not use the parameter `max_cumulative_cost`. "
                      "For more details, see the documentation of `MCP.find_costs`.", FutureWarning)
        if not DEPRECATED == max_cost:
            warn_user("Parameter `max_cost` is deprecated since version 0.26 and will be removed in 0.28 (or later). "
                      "To avoid this warning, please use the parameter `max_step_cost` instead. For more details, "
                      "see the documentation of `MCP.find_costs`.", FutureWarning)
            if max_step_cost is not None:
                raise ValueError("Both deprecated parameter `max_cost` and new parameter `max_step_cost` are used. "
                                 "Use only the latter to avoid conflicting values.")
            max_step_cost = max_cost
        starts = _normalize_indices(starts, self._shape)
        if starts is None:
            raise ValueError("start points must all be within the costs array")
        if not starts:
            raise ValueError("no valid start points to start front" + "propagation")
        flat_ends = None
        if ends is not None:
            ends = _normalize_indices(ends, self._shape)
            if ends is None:
                raise ValueError("end points must all be within the costs array")
            flat_ends = _flat(ends, self._shape)
        self._starts, self._ends = starts, ends
        self._reset()
        size = self._flat_costs.shape[0]
        _core.mcp_find_costs(
            self._heap, self._flat_costs, self._cumulative, self._traceback, list(self._shape), self.offsets,
            self._flat_offsets, self._lengths, _flat(starts, self._shape), flat_ends, bool(find_all_ends),
            int(max_coverage * size), None if max_step_cost is None else float(max_step_cost),
            self._use_start_cost, self._travel, **self._hooks())
        self._dirty = True
        cumulative = self._cumulative.reshape(self._shape, order="F")
        traceback = self._traceback.reshape(self._shape, order="F")
        return from_host(cumulative, self._lib), from_host(traceback, self._lib)

    def traceback(self, end):
        """The minimum cost path from a start given to find_costs() to `end`: a list of n-d index tuples,
        the start first."""
        if not self._dirty:
            raise Exception("find_costs() must be run before traceback()")
        ends = _normalize_indices([end], self._shape)
        if ends is None:
            raise ValueError("the specified end point must be within the costs array")
        flat = int(_flat(ends, self._shape)[0])
        if self._cumulative[flat] == np.inf:
            raise ValueError("no minimum-cost path was found to the specified end point")
        path = _core.mcp_traceback(self._traceback, list(self._shape), self.offsets, self._flat_offsets, flat)
        return [tuple(p) for p in path.tolist()]


class MCP_Geometric(MCP):
    """MCP_Geometric(costs, offsets=None, fully_connected=True, sampling=None)

    Distance-weighted minimum cost paths (see skimage.graph.MCP_Geometric): a move between two points costs
    its length times the mean of their costs; the start's own cost is not counted.
    """

    _travel = _GEOMETRIC
    _use_start_cost = False

    def __init__(self, costs, offsets=None, fully_connected=True, sampling=None):
        super().__init__(costs, offsets, fully_connected, sampling)
        if np.absolute(self.offsets).max() > 1:
            raise ValueError("all offset components must be 0, 1, or -1")


class MCP_Connect(MCP):
    """MCP_Connect(costs, offsets=None, fully_connected=True, sampling=None)

    Grows a distance-weighted front from every start at once, remembering each point's start; where two
    fronts meet, create_connection() is called (overload it to collect the connections).
    """

    _travel = _GEOMETRIC

    def __init__(self, /, *args, **kwargs):
        # MCP's arguments (costs, offsets=None, fully_connected=True, sampling=None), passed on as
        # scikit-image's MCP_Connect.__init__ takes them
        super().__init__(*args, **kwargs)
        self._idmap = np.zeros(self._flat_costs.shape[0], np.int64)

    def _reset(self):
        super()._reset()
        self._idmap[...] = -1
        self._idmap[_flat(self._starts, self._shape)] = np.arange(len(self._starts))

    def _connect(self, id1, id2, index, new_index):
        strides = _fortran_strides(self._shape)
        pos1, pos2 = (tuple((idx // strides) % self._shape) for idx in (index, new_index))
        self.create_connection(id1, id2, pos1, pos2, float(self._cumulative[index]),
                               float(self._cumulative[new_index]))

    def _hooks(self):
        return {**super()._hooks(), "idmap": self._idmap,
                "connect_fn": self._connect if _overridden(self, "create_connection", MCP_Connect) else None}

    def create_connection(self, id1, id2, tb1, tb2, cost1, cost2):
        """create_connection(id1, id2, pos1, pos2, cost1, cost2)

        Called where the fronts of starts `id1` and `id2` meet, at neighbouring frozen points pos1 and pos2
        of cumulative costs cost1 and cost2. Overload it to keep the connections (one pair of ids may meet
        many times).
        """


class MCP_Flexible(MCP):
    """MCP_Flexible(costs, offsets=None, fully_connected=True, sampling=None)

    MCP whose travel_cost, examine_neighbor, update_node and goal_reached can be overloaded from Python.
    """

    def travel_cost(self, old_cost, new_cost, offset_length):
        """The cost of moving from a point of cost `old_cost` to one of `new_cost`: new_cost by default."""
        return new_cost

    def examine_neighbor(self, index, new_index, offset_length):
        """Called once for every pair of neighbouring points, as soon as both are frozen."""

    def update_node(self, index, new_index, offset_length):
        """Called when a point is pushed on the front or its cost lowered, after its traceback is set."""

    def _hooks(self):
        hooks = super()._hooks()
        if _overridden(self, "travel_cost", MCP_Flexible):
            hooks["travel_fn"] = self.travel_cost
        for name, key in (("examine_neighbor", "examine_fn"), ("update_node", "update_fn")):
            if _overridden(self, name, MCP_Flexible):
                hooks[key] = getattr(self, name)
        return hooks

    @property
    def _travel(self):
        return _HOOK if _overridden(self, "travel_cost", MCP_Flexible) else _NEW_COST


class _MCP_Diff(MCP):
    """The path cost is the sum of the absolute differences between neighbouring costs (shortest_path)."""

    _travel = _ABS_DIFF
    _use_start_cost = False


@engine_aware("array")
def route_through_array(array, start, end, fully_connected=True, geometric=True):
    """Simple example of how to use the MCP and MCP_Geometric classes (see skimage.graph.route_through_array):
    the minimum cost path from `start` to `end` and its cost."""
    start, end = tuple(start), tuple(end)
    m = (MCP_Geometric if geometric else MCP)(array, fully_connected=fully_connected)
    costs, _ = m.find_costs([start], [end])
    return m.traceback(end), m._cumulative.reshape(m._shape, order="F")[end]


@engine_aware("arr")
def shortest_path(arr, reach=1, axis=-1, output_indexlist=False):
    """The shortest path through an n-d array from one side to another (see skimage.graph.shortest_path)."""
    lib = library_of(arr)
    if lib not in (None, "numpy"):
        arr = to_host(arr)
    if arr.ndim == 1:   # scikit-image's move count is a float for 1-D arrays: its reshape raises TypeError
        raise TypeError("shortest_path: arr must have at least 2 dimensions, not 1")
    if axis < 0:   # arr.ndim: scikit-image takes arrays only (a list raises AttributeError)
        axis += arr.ndim
    block = (2 * reach + 1,) * (arr.ndim - 1)
    moves = np.indices(block) - reach
    moves = np.insert(moves, axis, np.ones(block), axis=0)
    offsets = np.reshape(moves, (arr.ndim, int(np.prod(block))), order="F").T
    rest = arr.shape[:axis] + arr.shape[axis + 1:]
    rest_idx = np.indices(rest)
    n = int(np.prod(rest))
    starts = np.reshape(np.insert(rest_idx, axis, np.zeros(rest), axis=0), (arr.ndim, n), order="F").T
    ends = np.reshape(np.insert(rest_idx, axis, np.full(rest, -1, dtype=rest_idx.dtype), axis=0),
                      (arr.ndim, n), order="F").T
    m = _MCP_Diff(arr, offsets=offsets)
    costs, _ = m.find_costs(starts, ends, find_all_ends=False)
    for end in ends:
        cost = costs[tuple(end)]
        if cost != np.inf:
            break
    path = m.traceback(end)
    if not output_indexlist:
        path = np.array(path)
        path = from_host(np.squeeze(np.concatenate([path[:, :axis], path[:, axis + 1:]], axis=1)), lib)
    return path, cost

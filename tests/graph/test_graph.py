"""skimage.graph's objects against scikit-image: RAGs (node and edge order, every attribute and weight), the
cuts and merges of them, the MCP classes (costs and tracebacks to the bit, subclass hooks called in the same
order with the same arguments), pixel_graph's table and central_pixel. The generated registry cases cover
route_through_array, shortest_path and pixel_graph's arguments."""
from __future__ import annotations

import numpy as np
import pytest
import skimage.graph as sg
from scipy import ndimage as ndi

import ndimg.graph as ng
from helpers import to_engine, to_host


def _labels(rng, shape, n):
    """Blobby labels: a smoothed random field cut into n levels (regions touch along real boundaries)."""
    field = ndi.gaussian_filter(rng.random(shape), 2)
    return np.digitize(field, np.quantile(field, np.linspace(0, 1, n + 1)[1:-1])).astype(np.int64) + 1


def _same_value(a, b, exact):
    if exact:
        assert type(a) is type(b), (type(a), type(b))
        assert np.array_equal(a, b), (a, b)
    else:   # CUDA: per-label sums of atomics in another order
        np.testing.assert_allclose(np.asarray(b, dtype=float), np.asarray(a, dtype=float), rtol=1e-12, atol=1e-12)


def assert_same_graph(expected, got, exact=True):
    assert list(expected.nodes) == list(got.nodes)
    assert list(expected.edges) == list(got.edges)
    for n in expected.nodes:
        assert expected.nodes[n].keys() == got.nodes[n].keys()
        for k, v in expected.nodes[n].items():
            _same_value(v, got.nodes[n][k], exact or k in ("labels", "pixel count"))
    for a, b in expected.edges:
        assert expected[a][b].keys() == got[a][b].keys()
        for k, v in expected[a][b].items():
            _same_value(v, got[a][b][k], exact or k == "count")


def _raises_like(f_ref, f_got):
    try:
        expected = f_ref()
    except Exception as exc:
        with pytest.raises(type(exc)):
            f_got()
        return None, None
    return expected, f_got()


@pytest.mark.parametrize("shape, n", [((40, 50), 12), ((9, 10, 11), 6), ((30, 30), 2)])
@pytest.mark.parametrize("connectivity", [1, 2, 3])
def test_rag_mean_color_and_boundary(engine, rng, shape, n, connectivity):
    connectivity = min(connectivity, len(shape))
    labels = _labels(rng, shape, n)
    image = rng.random(shape + (3,))
    exact = engine == "cpu"
    for mode in ("distance", "similarity"):
        expected = sg.rag_mean_color(image, labels, connectivity, mode, sigma=30.0)
        got = ng.rag_mean_color(to_engine(image, engine), to_engine(labels, engine), connectivity, mode, sigma=30.0)
        assert isinstance(got, ng.RAG)
        assert_same_graph(expected, got, exact)
    edge_map = image[..., 0].astype(np.float32)
    assert_same_graph(sg.rag_boundary(labels, edge_map, connectivity),
                      ng.rag_boundary(to_engine(labels, engine), to_engine(edge_map, engine), connectivity), exact)
    assert_same_graph(sg.RAG(labels, connectivity), ng.RAG(to_engine(labels, engine), connectivity))


def test_rag_corners(rng):
    # the whole image one label: no edges, so no nodes; rag_mean_color then fails on its first pixel
    one = np.ones((5, 6), np.uint8)
    assert_same_graph(sg.RAG(one), ng.RAG(one))
    _raises_like(lambda: sg.rag_mean_color(np.zeros((5, 6, 3)), one), lambda: ng.rag_mean_color(np.zeros((5, 6, 3)), one))
    _raises_like(lambda: sg.rag_boundary(one, np.zeros((5, 6))), lambda: ng.rag_boundary(one, np.zeros((5, 6))))
    labels = _labels(rng, (20, 21), 5)
    # grey images (one value for the three channels), uint8 colour, a bad mode, four channels
    for image in (rng.random((20, 21)), (rng.random((20, 21, 3)) * 255).astype(np.uint8), rng.random((20, 21, 1))):
        assert_same_graph(sg.rag_mean_color(image, labels), ng.rag_mean_color(image, labels))
    _raises_like(lambda: sg.rag_mean_color(rng.random((20, 21, 3)), labels, mode="x"),
                 lambda: ng.rag_mean_color(rng.random((20, 21, 3)), labels, mode="x"))
    _raises_like(lambda: sg.rag_mean_color(rng.random((20, 21, 4)), labels),
                 lambda: ng.rag_mean_color(rng.random((20, 21, 4)), labels))
    # negative and float labels; an integer edge map cannot hold the means
    signed = labels - 3
    assert_same_graph(sg.RAG(signed, 2), ng.RAG(signed, 2))
    assert_same_graph(sg.RAG(labels * 1.0), ng.RAG(labels * 1.0))
    _raises_like(lambda: sg.rag_boundary(labels, np.ones((20, 21), np.uint8)),
                 lambda: ng.rag_boundary(labels, np.ones((20, 21), np.uint8)))


def test_rag_methods():
    for mod in (sg, ng):
        g = mod.RAG(data=[(1, 2), (2, 5)])
        assert g.max_id == 5 and g.next_id() == 6
    g1, g2 = sg.RAG(np.array([[1, 2, 3], [1, 2, 4]])), ng.RAG(np.array([[1, 2, 3], [1, 2, 4]]))
    for g in (g1, g2):
        for n in g:
            g.nodes[n]["labels"] = [n]
        for a, b in g.edges:
            g[a][b]["weight"] = a * 10 + b
        g.merge_nodes(1, 2)
        g.merge_nodes(3, 4, in_place=False)
        g.add_node(9)
        assert g.copy().max_id == g.max_id
        assert type(g.fresh_copy()) is type(g)
    assert_same_graph(g1, g2)


def _weight_mean_color(graph, src, dst, n):
    return {"weight": np.linalg.norm(graph.nodes[dst]["mean color"] - graph.nodes[n]["mean color"])}


def _merge_mean_color(graph, src, dst):
    graph.nodes[dst]["total color"] += graph.nodes[src]["total color"]
    graph.nodes[dst]["pixel count"] += graph.nodes[src]["pixel count"]
    graph.nodes[dst]["mean color"] = graph.nodes[dst]["total color"] / graph.nodes[dst]["pixel count"]


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_cuts_and_merges(engine, rng, seed):
    labels = _labels(rng, (48, 40), 30)
    image = rng.random((48, 40, 3))
    gl = to_engine(labels, engine)

    def both(fn, *args, **kw):
        ref = getattr(sg, fn)(labels, sg.rag_mean_color(image, labels, **kw), *args)
        got = getattr(ng, fn)(gl, ng.rag_mean_color(to_engine(image, engine), gl, **kw), *args)
        assert type(got) is type(gl)
        np.testing.assert_array_equal(to_host(got), ref)
        assert got.dtype == ref.dtype

    both("cut_threshold", 0.25)
    both("cut_threshold", 0.25, False)
    if engine == "cpu":   # the eigensolver sees the exact weights
        ref = sg.cut_normalized(labels, sg.rag_mean_color(image, labels, mode="similarity"), rng=seed)
        got = ng.cut_normalized(labels, ng.rag_mean_color(image, labels, mode="similarity"), rng=seed)
        np.testing.assert_array_equal(got, ref)
        ref = sg.cut_normalized(labels, sg.rag_mean_color(image, labels, mode="similarity"), 0.5, 4, False, 0.9,
                                rng=np.random.default_rng(seed))
        got = ng.cut_normalized(labels, ng.rag_mean_color(image, labels, mode="similarity"), 0.5, 4, False, 0.9,
                                rng=np.random.default_rng(seed))
        np.testing.assert_array_equal(got, ref)
    for in_place in (True, False):
        both("merge_hierarchical", 0.3, False, in_place, _merge_mean_color, _weight_mean_color)


def test_show_rag(rng):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = _labels(rng, (30, 32), 6)
    image = rng.random((30, 32, 3))
    for kw in ({}, {"img_cmap": None, "border_color": None, "in_place": False}):
        g1, g2 = sg.rag_mean_color(image, labels), ng.rag_mean_color(image, labels)
        lc1, lc2 = sg.show_rag(labels, g1, image, **kw), ng.show_rag(labels, g2, image, **kw)
        np.testing.assert_array_equal(lc2.get_array(), lc1.get_array())
        for p1, p2 in zip(lc1.get_paths(), lc2.get_paths()):
            np.testing.assert_array_equal(p2.vertices, p1.vertices)
        np.testing.assert_allclose(lc2.axes.get_images()[0].get_array(), lc1.axes.get_images()[0].get_array())
        assert_same_graph(g1, g2)
    with pytest.raises(ValueError):
        ng.show_rag(labels, ng.rag_mean_color(image, labels), image[..., 0], img_cmap=None)
    plt.close("all")


def _costs(rng, shape):
    a = np.round(rng.random(shape) * 4) / 4   # many equal costs: ties decide the tracebacks
    a[rng.random(shape) < 0.05] = -1
    a[rng.random(shape) < 0.03] = np.inf
    return a


@pytest.mark.parametrize("shape", [(20, 30), (7, 8, 9), (50,)])
@pytest.mark.parametrize("cls", ["MCP", "MCP_Geometric", "MCP_Flexible", "MCP_Connect"])
def test_mcp_costs_and_traceback(engine, rng, shape, cls):
    a = _costs(rng, shape)
    starts = [tuple(0 for _ in shape), tuple(s // 2 for s in shape)]
    end = tuple(s - 1 for s in shape)
    for fc in (True, False):
        for sampling in (None, tuple(1.0 + i for i in range(len(shape)))):
            m1 = getattr(sg, cls)(a, fully_connected=fc, sampling=sampling)
            m2 = getattr(ng, cls)(to_engine(a, engine), fully_connected=fc, sampling=sampling)
            # the same object searched again: a search stopped early leaves entries in scikit-image's heap
            for kw in ({}, {"ends": [end]}, {"ends": [end, (1,) * len(shape)], "find_all_ends": False},
                       {"max_coverage": 0.3}, {"max_step_cost": 0.6}, {"ends": [(-1,) * len(shape)]}):
                c1, t1 = m1.find_costs(starts, **kw)
                c2, t2 = m2.find_costs(starts, **kw)
                assert type(c2) is type(to_engine(a, engine))
                np.testing.assert_array_equal(to_host(c2), c1)
                np.testing.assert_array_equal(to_host(t2), t1)
                assert to_host(t2).dtype == t1.dtype
                if np.isfinite(c1[end]):
                    assert m2.traceback(end) == m1.traceback(end)
                else:
                    with pytest.raises(ValueError):
                        m2.traceback(end)


def test_mcp_offsets_and_deprecations(rng):
    a = rng.random((15, 16))
    offsets = [(1, 0), (0, 1), (1, 1), (2, 1)]
    m1, m2 = sg.MCP(a, offsets=offsets), ng.MCP(a, offsets=offsets)
    for m in (m1, m2):
        m.find_costs([(0, 0)])
    np.testing.assert_array_equal(m2.find_costs([(0, 0), (3, 3)])[0], m1.find_costs([(0, 0), (3, 3)])[0])
    assert m2.traceback((14, 15)) == m1.traceback((14, 15))
    np.testing.assert_array_equal(np.asarray(m2.offsets), np.asarray(m1.offsets))
    for old in ("max_cost", "max_cumulative_cost"):
        with pytest.warns(FutureWarning):
            c1 = m1.find_costs([(0, 0)], **{old: 0.5})[0]
        with pytest.warns(FutureWarning):
            c2 = m2.find_costs([(0, 0)], **{old: 0.5})[0]
        np.testing.assert_array_equal(c2, c1)
    with pytest.raises(ValueError), pytest.warns(FutureWarning):
        m2.find_costs([(0, 0)], max_cost=0.5, max_step_cost=0.5)


@pytest.mark.parametrize("call", [
    lambda mod: mod.MCP(np.ones((3, 3), complex)),
    lambda mod: mod.MCP(np.ones((3, 3)), sampling=(1,)),
    lambda mod: mod.MCP(np.ones((3, 3)), sampling=3),
    lambda mod: mod.MCP_Geometric(np.ones((5, 5)), offsets=[(2, 0)]),
    lambda mod: mod.MCP(np.ones((3, 3))).traceback((1, 1)),
    lambda mod: mod.MCP(np.ones((3, 3))).find_costs([(5, 5)]),
    lambda mod: mod.MCP(np.ones((3, 3))).find_costs([]),
    lambda mod: mod.MCP(np.ones((3, 3))).find_costs([(0, 0)], [(9, 9)]),
])
def test_mcp_errors(call):
    _raises_like(lambda: call(sg), lambda: call(ng))


def test_mcp_nan_raises():
    a = np.random.default_rng(3).random((17, 23))
    a[np.random.default_rng(4).random(a.shape) < 0.1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ng.MCP_Geometric(a).find_costs([(0, 0)])   # scikit-image's heap reads past its entries here


def _hooked(mod):
    class Flexible(mod.MCP_Flexible):
        def __init__(self, *args, **kw):
            super().__init__(*args, **kw)
            self.log = []

        def travel_cost(self, old_cost, new_cost, offset_length):
            return abs(old_cost - new_cost) + offset_length

        def examine_neighbor(self, index, new_index, offset_length):
            self.log.append(("examine", index, new_index, offset_length))

        def update_node(self, index, new_index, offset_length):
            self.log.append(("update", index, new_index, offset_length))

        def goal_reached(self, index, cumcost):
            return 2 if cumcost > 3 else (1 if index % 7 == 0 else 0)

    class Connect(mod.MCP_Connect):
        def __init__(self, *args, **kw):
            super().__init__(*args, **kw)
            self.log = []

        def create_connection(self, id1, id2, pos1, pos2, cost1, cost2):
            self.log.append((id1, id2, tuple(map(int, pos1)), tuple(map(int, pos2)), cost1, cost2))

    class Goal(mod.MCP):
        log = ()

        def goal_reached(self, index, cumcost):
            return 2 if cumcost > 5 else 0

    return Flexible, Connect, Goal


def test_mcp_subclass_hooks(rng):
    a = np.round(rng.random((25, 26)) * 4) / 4 + 0.1
    for ref_cls, cls in zip(_hooked(sg), _hooked(ng)):
        m1, m2 = ref_cls(a), cls(a)
        starts = [(0, 0), (24, 25), (5, 20)]
        c1, t1 = m1.find_costs(starts)
        c2, t2 = m2.find_costs(starts)
        np.testing.assert_array_equal(c2, c1)
        np.testing.assert_array_equal(t2, t1)
        assert m2.log == m1.log
        for end in ((12, 13), (1, 1)):
            expected, got = _raises_like(lambda: m1.traceback(end), lambda: m2.traceback(end))
            assert got == expected


@pytest.mark.parametrize("shape", [(17, 23), (7, 9, 11), (1, 5), (29,)])
@pytest.mark.parametrize("dtype", [np.float32, np.uint8, bool])
def test_pixel_graph_and_central_pixel(engine, rng, shape, dtype):
    image = (rng.random(shape) * 200).astype(dtype)
    mask = rng.random(shape) > 0.3
    for kw in ({}, {"connectivity": 2}, {"mask": mask}, {"spacing": (1.5,) * len(shape), "connectivity": len(shape)},
               {"sparse_type": "array"}, {"edge_function": lambda x, y, d: (x.astype(float) + y) * d}):
        g1, n1 = sg.pixel_graph(image, **kw)
        kw2 = {k: (to_engine(v, engine) if k == "mask" else v) for k, v in kw.items()}
        g2, n2 = ng.pixel_graph(to_engine(image, engine), **kw2)
        np.testing.assert_array_equal(to_host(n2), n1)
        if engine == "cpu":
            assert type(g2) is type(g1)
            for attr in ("indptr", "indices", "data"):
                np.testing.assert_array_equal(getattr(g2, attr), getattr(g1, attr))
            assert g2.dtype == g1.dtype
        np.testing.assert_array_equal(to_host(g2.toarray()), g1.toarray())
        # a mask that leaves a graph in pieces makes scikit-image's argmin empty: the same error is expected
        r1, r2 = _raises_like(lambda: sg.central_pixel(g1.copy(), n1, shape),
                              lambda: ng.central_pixel(g2.copy(), to_engine(n2, engine) if engine == "cpu" else n2,
                                                       shape))
        if r1 is None:
            continue
        (c1, t1), (c2, t2) = r1, r2
        assert tuple(map(int, c2)) == tuple(map(int, c1))
        np.testing.assert_array_equal(t2, t1)
    g1, _ = sg.pixel_graph(image)
    for kw in ({}, {"partition_size": None}, {"partition_size": 7}):
        c1, t1 = sg.central_pixel(g1.copy(), **kw)
        c2, t2 = ng.central_pixel(g1.copy(), **kw)
        assert c2 == c1
        np.testing.assert_array_equal(t2, t1)


def test_dask_refused():
    da = pytest.importorskip("dask.array")
    labels = _labels(np.random.default_rng(0), (20, 21), 4)
    lazy = da.from_array(labels, chunks=10)
    rag = ng.rag_mean_color(np.zeros((20, 21, 3)), labels)
    for call in (lambda: ng.MCP(lazy.astype(float)), lambda: ng.MCP_Geometric(lazy.astype(float)),
                 lambda: ng.route_through_array(lazy.astype(float), (0, 0), (5, 5)),
                 lambda: ng.rag_mean_color(lazy, lazy), lambda: ng.rag_boundary(lazy, lazy.astype(float)),
                 lambda: ng.cut_threshold(lazy, rag.copy(), 0.1), lambda: ng.pixel_graph(lazy)):
        with pytest.raises(NotImplementedError, match="Dask"):
            call()


@pytest.mark.parametrize("n, scale", [(5000, 1), (50, 10**12)])
def test_rag_many_or_far_apart_labels(rng, n, scale):
    # more labels than the table of pairs takes (sorted instead), and labels too far apart to count
    labels = np.repeat(np.repeat(rng.integers(0, n, (60, 50)), 3, axis=0), 2, axis=1) * scale
    assert_same_graph(sg.RAG(labels, 2), ng.RAG(labels, 2))
    image = rng.random(labels.shape + (3,))
    assert_same_graph(sg.rag_mean_color(image, labels), ng.rag_mean_color(image, labels))


def test_mcp_index_forms(rng):
    # ends listed twice (a full search: the count never reaches their number), arrays and float indices
    a = rng.random((12, 13))
    for starts, ends in (([(0, 0)], [(5, 5), (5, 5)]), (np.array([[0, 0], [11, -1]]), np.array([[-1, 3], [4, 4.7]])),
                         ([(0.9, -1)], None), (np.array([[0, 0]]), np.array([[12, 0]]))):
        m1, m2 = sg.MCP_Geometric(a), ng.MCP_Geometric(a)
        expected, got = _raises_like(lambda: m1.find_costs(starts, ends), lambda: m2.find_costs(starts, ends))
        if expected is not None:
            for x, y in zip(expected, got):
                np.testing.assert_array_equal(y, x)

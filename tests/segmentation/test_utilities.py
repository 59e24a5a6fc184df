"""segmentation utilities: what the generated registry cases do not say (ArrayMap's protocol, labels at the
dtype's largest value in the subpixel boundaries, out= and in-place semantics, the Dask paths)."""
import numpy as np
import pytest
import skimage.segmentation as sks

import ndimg.morphology
import ndimg.segmentation as seg


def test_flood_names_are_morphology_implementations():
    assert seg.flood is ndimg.morphology.flood
    assert seg.flood_fill is ndimg.morphology.flood_fill


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int64, np.uint64])
def test_subpixel_labels_at_dtype_max(dtype):
    # scikit-image fills the separators with the dtype's largest value: labels of that value merge with them
    top = np.iinfo(dtype).max
    rng = np.random.default_rng(3)
    labels = rng.choice(np.array([0, 1, top, top - 1], dtype=dtype), size=(9, 11))
    np.testing.assert_array_equal(seg.find_boundaries(labels, mode="subpixel"),
                                  sks.find_boundaries(labels, mode="subpixel"))


def test_arraymap_protocol():
    ar = np.array([1, 1, 5, 5, 8, 99, 42, 0])
    got = seg.relabel_sequential(ar, offset=3)
    ref = sks.relabel_sequential(ar, offset=3)
    for g, r in zip(got[1:], ref[1:]):
        assert str(g) == str(r) and repr(g) == repr(r) and len(g) == len(r) and g.dtype == r.dtype
        np.testing.assert_array_equal(g[2:50:3], r[2:50:3])
        np.testing.assert_array_equal(g[np.arange(len(r)) % 2 == 0], r[np.arange(len(r)) % 2 == 0])
        assert g[5] == r[5]
        g[7] = 11
        r[7] = 11
        np.testing.assert_array_equal(np.asarray(g), np.asarray(r))
        np.testing.assert_array_equal(g(ar), r(ar))


def test_clear_border_reads_out_and_writes_in_place():
    labels = np.array([[1, 2, 3, 1, 2], [3, 3, 5, 4, 2], [3, 4, 5, 4, 2], [3, 3, 2, 1, 2]])
    out = labels.copy()
    out[1:3, 2] = 0            # scikit-image labels `out`, not `labels`, when out is given
    result = seg.clear_border(labels, out=out)
    expected = sks.clear_border(labels, out=out.copy())
    assert result is out
    np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("bgval", [2.7, np.int8(5), 300])
def test_clear_border_bgval_cast_as_numpy_assigns(bgval):
    rng = np.random.default_rng(1)
    labels = (rng.random((20, 30)) < 0.4).astype(np.uint8) * 3
    try:
        expected = sks.clear_border(labels.copy(), bgval=bgval)
    except Exception as e:   # 300 does not fit uint8: NumPy's OverflowError
        with pytest.raises(type(e)):
            seg.clear_border(labels.copy(), bgval=bgval)
        return
    np.testing.assert_array_equal(seg.clear_border(labels.copy(), bgval=bgval), expected)


def test_expand_labels_ties_follow_scipy():
    edge = np.array([[0, 1, 0, 0], [2, 0, 0, 0], [0, 3, 0, 0]])
    for a in (edge, edge.T):
        np.testing.assert_array_equal(seg.expand_labels(a, 1), sks.expand_labels(a, 1))


@pytest.mark.parametrize("outline_color", [None, (0, 0, 1)])
def test_mark_boundaries_dask_rgb_image(outline_color):
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(2)
    image = rng.random((40, 50, 3)).astype(np.float32)
    labels = np.repeat(np.repeat(rng.integers(0, 4, (10, 10)), 4, 0), 5, 1)
    lazy = seg.mark_boundaries(da.from_array(image, chunks=(13, 17, 3)), da.from_array(labels, chunks=(9, 20)),
                               outline_color=outline_color)
    assert isinstance(lazy, da.Array)
    np.testing.assert_array_equal(lazy.compute(scheduler="sync"),
                                  sks.mark_boundaries(image, labels, outline_color=outline_color))


@pytest.mark.parametrize("spacing", [1, (1.0, 0.5), (2.0, 1.3)])
def test_expand_labels_dask_ties_as_in_memory(spacing):
    # sparse labels on a grid: many background elements equally near two labels, some near chunk faces
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(4)
    labels = np.where(rng.random((41, 37)) < 0.05, rng.integers(1, 6, (41, 37)), 0)
    lazy = seg.expand_labels(da.from_array(labels, chunks=(9, 11)), 3, spacing)
    assert isinstance(lazy, da.Array)
    np.testing.assert_array_equal(lazy.compute(scheduler="sync"), sks.expand_labels(labels, 3, spacing))


@pytest.mark.parametrize("dtype", [bool, np.uint8, np.int64, np.uint64])
@pytest.mark.parametrize("chunks", [1, 3, 7])
def test_find_boundaries_subpixel_dask(dtype, chunks):
    # each block's part of the 2 * s - 1 grid; the separators after its last element read the next block
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 3, (11, 8)).astype(dtype)
    if dtype is not bool:
        labels[labels == 2] = np.iinfo(dtype).max
    lazy = seg.find_boundaries(da.from_array(labels, chunks=chunks), mode="subpixel")
    assert isinstance(lazy, da.Array) and lazy.shape == (21, 15)
    np.testing.assert_array_equal(lazy.compute(scheduler="sync"), sks.find_boundaries(labels, mode="subpixel"))


@pytest.mark.parametrize("kw", [{}, {"buffer_size": 2, "bgval": 9}, {"mask": "random"}])
def test_clear_border_dask_components_across_chunks(kw):
    # objects spanning several chunks, some reaching the border only through another chunk
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(6)
    labels = (rng.random((40, 33)) < 0.45).astype(np.int32) * rng.integers(1, 3, (40, 33))
    if kw.get("mask") == "random":
        kw = {"mask": rng.random(labels.shape) < 0.95}
    lazy = seg.clear_border(da.from_array(labels, chunks=(7, 9)), **kw)
    assert isinstance(lazy, da.Array)
    np.testing.assert_array_equal(lazy.compute(scheduler="sync"), sks.clear_border(labels.copy(), **kw))

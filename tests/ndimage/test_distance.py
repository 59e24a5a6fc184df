"""Distance transforms beyond the generated cases: scipy's exact features and distances (ties included) up to
4-D, in-place outputs of any layout, the no-background corner, scipy's errors, and large volumes."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage as ndi

from helpers import to_engine, to_host
from ndimg.ndimage import _distance as D

FUNCS = {"edt": (D.distance_transform_edt, ndi.distance_transform_edt),
         "cdt": (D.distance_transform_cdt, ndi.distance_transform_cdt),
         "bf": (D.distance_transform_bf, ndi.distance_transform_bf)}


def _random_mask(rng, ndim, lo=1, hi=9):
    shape = tuple(int(s) for s in rng.integers(lo, hi, ndim))
    return rng.random(shape) < rng.choice([0.05, 0.5, 0.9, 0.99])


def _same(got, expected):
    got = tuple(to_host(g) for g in got) if isinstance(got, tuple) else to_host(got)
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)
        return
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_edt_bitwise_with_ties(engine, rng, ndim):
    """Features and distances equal scipy's bit for bit: the same pass order, tie rule and rounding
    (sampling included), on small grids full of equidistant zeros."""
    for _ in range(20):
        a = _random_mask(rng, ndim)
        sampling = None if rng.random() < 0.5 else rng.choice([0.5, 1.3, 2.0, 0.7], ndim).tolist()
        expected = ndi.distance_transform_edt(a, sampling=sampling, return_indices=True)
        _same(D.distance_transform_edt(to_engine(a, engine), sampling=sampling, return_indices=True), expected)


def test_edt_long_lines(engine, rng):
    """Long lines with few zeros: deep envelopes (many sites removed) and distances in the hundreds."""
    a = rng.random((3, 700, 5)) > 0.001
    a[1, 350, 2] = False
    expected = ndi.distance_transform_edt(a, sampling=(3.0, 0.25, 1.0), return_indices=True)
    _same(D.distance_transform_edt(to_engine(a, engine), sampling=(3.0, 0.25, 1.0), return_indices=True), expected)
    b = np.ones((600, 7), bool)
    b[[0, -1], [0, -1]] = False   # two zeros: half the image equidistant between them along a diagonal
    _same(D.distance_transform_edt(to_engine(b, engine), return_indices=True),
          ndi.distance_transform_edt(b, return_indices=True))


@pytest.mark.parametrize("metric", ["chessboard", "taxicab", "structure"])
@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_cdt_bitwise(engine, rng, ndim, metric):
    """scipy's raster sweeps, ties included; custom structures of any byte pattern (scipy reads the bytes)."""
    for _ in range(8):
        a = _random_mask(rng, ndim, 1, 8 if ndim < 4 else 5)
        m = (rng.random((3,) * ndim) < 0.5) if metric == "structure" else metric
        expected = ndi.distance_transform_cdt(a, metric=m, return_indices=True)
        _same(D.distance_transform_cdt(to_engine(a, engine), metric=m, return_indices=True), expected)
    m = np.array([[0, 2, 1], [1, 1, 1], [0, 1, 0]], np.int16) if ndim == 2 else None
    if m is not None:   # scipy reads an int16 structure's first bytes as booleans
        a = _random_mask(rng, 2)
        _same(D.distance_transform_cdt(to_engine(a, engine), metric=m), ndi.distance_transform_cdt(a, metric=m))


@pytest.mark.parametrize("shape", [(40000,), (2, 30000)])
def test_cdt_long_lines_with_indices(engine, rng, shape):
    """Few long lines with features: each sweep in chunks whose chains combine (the CUDA warps' scan)."""
    for p in (0.999, 0.5):
        a = rng.random(shape) < p
        for m in ("chessboard", "taxicab"):
            _same(D.distance_transform_cdt(to_engine(a, engine), metric=m, return_indices=True),
                  ndi.distance_transform_cdt(a, metric=m, return_indices=True))


@pytest.mark.parametrize("metric", ["chessboard", "taxicab", "cross", "cube"])
@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_cdt_distances_separable(engine, rng, ndim, metric):
    """Distances alone with the cross or the cube (named or given): exact taxicab and chessboard distances a
    pass per axis, equal to scipy's sweeps (-1 everywhere without a zero element)."""
    m = {"cross": ndi.generate_binary_structure(ndim, 1), "cube": np.ones((3,) * ndim, bool)}.get(metric, metric)
    for _ in range(10):
        a = _random_mask(rng, ndim, 1, 12 if ndim < 4 else 6)
        _same(D.distance_transform_cdt(to_engine(a, engine), metric=m), ndi.distance_transform_cdt(a, metric=m))
    for shape in [(5000,) if ndim == 1 else (3,) * (ndim - 1) + (900,), (10,) * (ndim - 1) + (300,)]:
        # long lines, and distances beyond 64 (the chessboard's envelope, not its short look-around)
        a = rng.random(shape) < 0.9995
        a.flat[rng.integers(0, a.size)] = False
        _same(D.distance_transform_cdt(to_engine(a, engine), metric=m), ndi.distance_transform_cdt(a, metric=m))


@pytest.mark.parametrize("metric", ["euclidean", "taxicab", "chessboard"])
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_bf_bitwise(engine, rng, ndim, metric):
    for _ in range(5):
        a = _random_mask(rng, ndim)
        sampling = rng.choice([0.5, 1.3], ndim).tolist() if metric == "euclidean" else None
        expected = ndi.distance_transform_bf(a, metric=metric, sampling=sampling, return_indices=True)
        _same(D.distance_transform_bf(to_engine(a, engine), metric=metric, sampling=sampling, return_indices=True),
              expected)


@pytest.mark.parametrize("name", ["edt", "cdt", "bf"])
def test_outputs_in_place(engine, rng, name):
    """distances= and indices= arrays are filled (C, Fortran or strided), and left out of the result."""
    ours, ref = FUNCS[name]
    a = rng.random((13, 17)) < 0.7
    d_dtype = np.int32 if name == "cdt" else np.float64
    expected = ref(a, return_indices=True)
    for layout in ("c", "f", "strided"):
        if layout == "strided":
            dist = to_engine(np.zeros((26, 17), d_dtype), engine)[::2]
            ind = to_engine(np.zeros((2, 13, 34), np.int32), engine)[:, :, ::2]
        else:
            order = "C" if layout == "c" else "F"
            dist = to_engine(np.zeros((13, 17), d_dtype, order=order), engine)
            ind = to_engine(np.zeros((2, 13, 17), np.int32, order=order), engine)
        assert ours(to_engine(a, engine), return_indices=True, distances=dist, indices=ind) is None
        _same((dist, ind), expected)
        dist[...] = 0
        got = ours(to_engine(a, engine), return_indices=True, distances=dist)
        _same(got, expected[1])
        _same(dist, expected[0])


@pytest.mark.parametrize("name", ["edt", "cdt", "bf"])
def test_no_background(engine, name):
    """No zero element: scipy's own results (the EDT's from its features' -1 first coordinate)."""
    ours, ref = FUNCS[name]
    a = np.ones((4, 5), bool)
    _same(ours(to_engine(a, engine), return_indices=True), ref(a, return_indices=True))
    _same(ours(to_engine(a, engine)), ref(a))


def test_bf_empty_border_any_strides():
    """No border element: the (0, ndim) coordinates are taken whatever their strides (CuPy gives zero-size
    arrays zero strides; every all-foreground or all-background input on CUDA came with such a border)."""
    from numpy.lib.stride_tricks import as_strided

    from ndimg import _core

    a = np.ones((4, 5), bool)
    for metric, dtype in ((_core.DistanceMetric.euclidean, np.float64), (_core.DistanceMetric.taxicab, np.uint32)):
        border = as_strided(np.empty((0, 2), np.int64), shape=(0, 2), strides=(0, 0))
        dist, feat = np.full(a.shape, 7, dtype), np.full(a.shape, 7, np.int32)
        _core.brute_force_features(a, border, metric, [], dist, feat)
        expected = ndi.distance_transform_bf(a, metric=metric.name, return_indices=True)
        _same(dist, expected[0])
        np.testing.assert_array_equal(feat, 0)   # scipy's features: index 0 (all coordinates 0)
        np.testing.assert_array_equal(expected[1], 0)


@pytest.mark.parametrize("name", ["edt", "bf"])
def test_zero_d_and_empty(name):
    ours, ref = FUNCS[name]
    for a in (np.array(1.0), np.array(0), np.zeros((0, 3))):
        _same(ours(a, return_indices=True), ref(a, return_indices=True))


def test_errors():
    a = np.ones((5, 6))
    a[2, 3] = 0
    for name, (ours, ref) in FUNCS.items():
        with pytest.raises(RuntimeError, match="at least one of return_distances/return_indices"):
            ours(a, return_distances=False)
        with pytest.raises(RuntimeError, match="return_indices must be True if indices is supplied"):
            ours(a, indices=np.zeros((2, 5, 6), np.int32))
    with pytest.raises(RuntimeError, match="indices array has wrong shape"):
        D.distance_transform_edt(a, return_indices=True, indices=np.zeros((2, 6, 5), np.int32))
    with pytest.raises(RuntimeError, match="indices array must be int32"):
        D.distance_transform_edt(a, return_indices=True, indices=np.zeros((2, 5, 6), np.int64))
    with pytest.raises(RuntimeError, match="distances array must be float64"):
        D.distance_transform_edt(a, distances=np.zeros((5, 6), np.float32))
    with pytest.raises(RuntimeError, match="sequence argument must have length equal to input rank"):
        D.distance_transform_edt(a, sampling=(1, 2, 3))
    with pytest.raises(ValueError, match="distances must be of int32 type"):
        D.distance_transform_cdt(a, distances=np.zeros((5, 6)))
    with pytest.raises(ValueError, match="metric sizes must be equal to 3"):
        D.distance_transform_cdt(a, metric=np.ones((3, 2), bool))
    with pytest.raises(ValueError, match="invalid metric provided"):
        D.distance_transform_cdt(a, metric="euclidean")
    with pytest.raises(TypeError):
        D.distance_transform_cdt(np.array(1))
    with pytest.raises(RuntimeError, match="distance metric not supported"):
        D.distance_transform_bf(a, metric="bogus")
    with pytest.raises(RuntimeError, match="distances array must be uint32"):
        D.distance_transform_bf(a, metric="chessboard", distances=np.zeros((5, 6)))


def test_odd_inputs():
    """Any array-like: lists, float16, complex, NaN (truthy), big-endian."""
    a = np.array([[1.5, 0, np.nan, 2], [0, 1, 1, 1], [1, 1, 1, 1j]], dtype=np.complex64)
    for x in (a, a.real.astype(np.float16), a.real.astype(">f8"), a.real.tolist()):
        for name, (ours, ref) in FUNCS.items():
            _same(ours(x, return_indices=True), ref(x, return_indices=True))


def test_edt_3d_volume(engine, rng):
    """A 64^3 volume, against scipy: the tiled passes over the middle axis and the batched CUDA envelopes."""
    a = rng.random((64, 48, 40)) > 0.02
    _same(D.distance_transform_edt(to_engine(a, engine), sampling=(1.0, 0.5, 2.0)),
          ndi.distance_transform_edt(a, sampling=(1.0, 0.5, 2.0)))
    _same(D.distance_transform_cdt(to_engine(a, engine), metric="taxicab"), ndi.distance_transform_cdt(a, metric="taxicab"))


@pytest.mark.parametrize("shape", [(20000,), (1, 9000), (2, 3000, 3), (700, 1)])
def test_edt_few_long_lines(engine, rng, shape):
    """Few long lines: the axis-0 pass in segments, the others in bands merged (the CUDA warps' schedule),
    against scipy bit for bit."""
    for p in (0.999, 0.9):
        a = rng.random(shape) < p
        for sampling in (None, rng.choice([0.5, 1.3, 2.0], len(shape)).tolist()):
            expected = ndi.distance_transform_edt(a, sampling=sampling, return_indices=True)
            _same(D.distance_transform_edt(to_engine(a, engine), sampling=sampling, return_indices=True), expected)


def test_edt_threads_agree(rng):
    """The CPU schedule's results do not depend on the thread count (which picks bands for few lines)."""
    from ndimg import _engine

    a = rng.random((3, 5000)) > 0.01
    expected = ndi.distance_transform_edt(a, return_indices=True)
    try:
        for n in (1, 2, 8):
            _engine.set_num_threads(n)
            _same(D.distance_transform_edt(a, return_indices=True), expected)
    finally:
        _engine.set_num_threads(None)

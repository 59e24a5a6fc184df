"""Grey morphology against scipy.ndimage: what the generated registry cases cannot say (bool bytes of
non-flat results, integer wrap-around, scipy's in-place steps and output dtypes, warnings, even sizes and
origins, the separable path for full footprints, 4-D)."""
import warnings

import numpy as np
import pytest
import scipy.ndimage as ndi

import ndimg
from ndimg import ndimage as nd
from helpers import assert_raises_like, check_result, random_image, to_engine, to_host

NAMES = ("grey_erosion", "grey_dilation", "grey_opening", "grey_closing", "morphological_gradient",
         "morphological_laplace", "white_tophat", "black_tophat")
FOOT = np.array([[0, 1, 1], [1, 1, 0], [0, 1, 0]], dtype=bool)


def check(engine, name, x, **kw):
    """ndimg's result equals scipy's, bit for bit (the same dtype and values, NaN where scipy has NaN)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(ndi, name)(x, **kw)
        got = getattr(nd, name)(to_engine(x, engine), **{k: to_engine(v, engine) for k, v in kw.items()})
    check_result(f"ndimage.{name}", got, expected, engine, tol="exact")
    return got, expected


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint16", "int32", "uint32", "int64", "float32", "float64"])
def test_random_structure_bit_exact(engine, rng, name, dtype):
    # a structure of arbitrary doubles: C's truncation to integers, float32 sums in float (the first tap in
    # double), integer wrap-around near the type's ends
    x = random_image(rng, (11, 13), dtype)
    s = rng.standard_normal((3, 4)) * 40
    check(engine, name, x, structure=s)
    check(engine, name, x, structure=s, footprint=rng.random((3, 4)) > 0.3, mode="constant", cval=-7.6)


@pytest.mark.parametrize("name", [n for n in NAMES if not n.startswith("morphological")])
def test_bool_structure_keeps_scipy_bytes(engine, rng, name):
    # scipy computes bool as unsigned char and stores the byte: 2 or 255 stay and feed the next step
    x = rng.random((12, 15)) > 0.5
    s = np.array([[0, 1, 0], [-1, 0, 2], [0, 1, 0]], dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(ndi, name)(x, structure=s)
    got = to_host(getattr(nd, name)(to_engine(x, engine), structure=s))
    assert got.dtype == expected.dtype == bool
    np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("name", NAMES)
def test_integer_wraparound(engine, name):
    # values at the ends of uint8 with a cval beyond them: subtractions wrap as NumPy's in scipy's steps
    x = np.array([[0, 255, 3, 250], [1, 2, 254, 0], [255, 0, 128, 7]], dtype=np.uint8)
    check(engine, name, x, size=2, mode="constant", cval=300)
    check(engine, name, x, structure=np.array([[3.0, -2.0], [1.0, 0.0]]))
    check(engine, name, x.astype(np.int8), structure=np.array([[100.0, -100.0, 27.0]]))


@pytest.mark.parametrize("name", ["morphological_gradient", "morphological_laplace"])
def test_gradient_laplace_outputs(engine, rng, name):
    x = random_image(rng, (9, 10), "uint8")
    check(engine, name, x, size=3, output=np.zeros(x.shape, np.float64))
    check(engine, name, x, size=3, output=np.zeros(x.shape, np.int16))
    got, expected = check(engine, name, x, size=3, output=np.float64)  # a dtype: scipy ignores it
    assert got.dtype == expected.dtype == np.uint8
    check(engine, name, x, size=3, output=np.zeros(x.shape, np.int8))  # uint8 - int8 written as int8 (same kind)


@pytest.mark.parametrize("name", NAMES)
def test_bool_input(engine, rng, name):
    x = rng.random((10, 9)) > 0.4
    try:
        expected = getattr(ndi, name)(x, size=3)
    except TypeError:  # NumPy refuses bool subtraction (gradient, laplace)
        with pytest.raises(TypeError):
            getattr(nd, name)(to_engine(x, engine), size=3)
        return
    check_result(f"ndimage.{name}", getattr(nd, name)(to_engine(x, engine), size=3), expected, engine, tol="exact")


@pytest.mark.parametrize("name", NAMES)
def test_output_is_input(engine, rng, name):
    x = random_image(rng, (10, 12), "float32")
    y = x.copy()
    expected = getattr(ndi, name)(x, footprint=FOOT, output=x)
    gy = to_engine(y, engine)
    got = getattr(nd, name)(gy, footprint=FOOT, output=gy)
    check_result(f"ndimage.{name}", got, expected, engine, tol="exact")
    np.testing.assert_array_equal(to_host(gy), x)


@pytest.mark.parametrize("name", ["grey_erosion", "grey_opening", "white_tophat", "black_tophat"])
def test_size_ignored_warning(name):
    x = np.arange(30.0).reshape(5, 6)
    with pytest.warns(UserWarning, match="ignoring size"):
        got = getattr(nd, name)(x, size=5, footprint=FOOT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(got, getattr(ndi, name)(x, size=5, footprint=FOOT))


@pytest.mark.parametrize("name", NAMES)
def test_even_sizes_and_origins(engine, rng, name):
    # grey_dilation reflects the footprint, negates the origin and shifts even sizes by one
    x = random_image(rng, (12, 14), "float64")
    for o in [(0, 0), (-1, 1), (-1, -1), (0, 1)]:  # valid for both the footprint and its reflection
        check(engine, name, x, size=(2, 4), origin=o, mode="mirror")
        check(engine, name, x, footprint=np.array([[1, 0, 1, 1], [0, 1, 1, 0]], bool), origin=o)
        check(engine, name, x, structure=np.arange(8.0).reshape(2, 4) - 3, origin=o, mode="wrap")


@pytest.mark.parametrize("name", NAMES)
def test_4d_and_axes(engine, rng, name):
    x = random_image(rng, (4, 5, 3, 6), "int16")
    check(engine, name, x, size=(2, 1, 3, 2))
    check(engine, name, x, footprint=np.ones((2, 2, 1, 3), bool) * [[[[1, 0, 1]]]], mode="nearest")
    check(engine, name, x, structure=np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]]), axes=(1, 3))
    check(engine, name, x, size=3, axes=(0, 2), origin=(1, -1))


@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_huge_flat_sizes(engine, rng, dtype):
    x = random_image(rng, (17, 23), dtype)
    for name in ("grey_erosion", "grey_dilation", "white_tophat"):
        check(engine, name, x, size=(31, 101))
        check(engine, name, x, size=1000, mode="wrap")


def test_full_footprint_is_separable(monkeypatch, rng):
    # a footprint of all True is a box: separable 1-D passes (time independent of its size), no tap list
    def no_taps(*a, **k):
        raise AssertionError("tap-list path taken")

    monkeypatch.setattr(ndimg._core, "grey_filter", no_taps)
    monkeypatch.setattr(ndimg._core, "rank_filter", no_taps)
    x = random_image(rng, (20, 30), "float32")
    for name in ("grey_erosion", "grey_dilation", "grey_closing"):
        got = getattr(nd, name)(x, footprint=np.ones((5, 31), bool))
        np.testing.assert_array_equal(got, getattr(ndi, name)(x, footprint=np.ones((5, 31), bool)))
    with pytest.raises(AssertionError, match="tap-list"):
        nd.grey_erosion(x, footprint=FOOT)


def test_nan(engine):
    # scipy's comparisons: a NaN in the first tap stays, later ones are skipped
    x = np.arange(42, dtype=np.float32).reshape(6, 7)
    x[2, 3] = x[0, 0] = np.nan
    for name in NAMES:
        check(engine, name, x, footprint=FOOT)
        check(engine, name, x, structure=np.ones((3, 2)), mode="constant", cval=np.nan)
        check(engine, name, x, size=3)


def test_bad_arguments(rng):
    x = random_image(rng, (6, 7), "float32")
    s = np.zeros((3, 3))
    for name in NAMES:
        for exc, kw in [(ValueError, {}), (RuntimeError, dict(structure=s, axes=(0,))),
                        (RuntimeError, dict(structure=np.zeros((3, 3, 3)))), (ValueError, dict(structure=s, origin=2)),
                        (RuntimeError, dict(structure=s, mode=["wrap", "reflect"])),
                        (TypeError, dict(structure=s, cval="a"))]:
            assert_raises_like(lambda: getattr(ndi, name)(x, **kw), lambda: getattr(nd, name)(x, **kw), exc)


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32", "float64"])
def test_strided_axis_blocks(engine, rng, dtype):
    # lines along a strided axis go 64 neighbours at a time on the CPU (a partial block, NaN lines, windows
    # folded directly and by van Herk's passes, windows longer than the lines)
    x = random_image(rng, (37, 5, 150), dtype)
    if dtype.startswith("float"):
        x[3, 1, 70] = x[20, 4, 3] = np.nan
    for mode in ("reflect", "constant", "nearest", "mirror", "wrap"):
        for size, origin in [(2, 0), (3, 1), (4, -2), (7, 0), (31, 5), (80, 0)]:
            check(engine, "grey_erosion", x, size=(size, 1, 1), origin=(origin, 0, 0), mode=mode, cval=0.5)
            check(engine, "grey_dilation", x, size=(1, size, 1), mode=mode)


PRODUCTS = [np.array([[1, 0, 1], [1, 0, 1], [0, 0, 0]], bool),   # product of [1, 1, 0] and [1, 0, 1]
            np.array([[1, 1, 0, 1]] * 2, bool),
            np.ones((2, 3, 3), bool) * np.array([1, 0, 1], bool)]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_product_footprints(engine, rng, dtype, name):
    # a footprint that is a product of 1-D lines runs line by line: scipy's n-D result exactly (with NaN in
    # the data it takes the n-D taps, whose order decides what NaN does)
    if name.startswith("morphological") and dtype == "bool":
        return
    x = random_image(rng, (9, 11, 10), dtype)
    for fp in PRODUCTS:
        kw = dict(footprint=fp, axes=(1, 2)) if fp.ndim == 2 else dict(footprint=fp)
        check(engine, name, x, **kw)
        check(engine, name, x, mode="constant", cval=2.5, origin=(0, 1)[:fp.ndim] if fp.ndim == 2 else 0, **kw)
        if dtype.startswith("float"):
            y = x.copy()
            y[4, 5, 2] = y[0, 0, 0] = np.nan
            check(engine, name, y, mode="wrap", **kw)


def test_product_footprint_runs_lines(monkeypatch):
    calls = []
    real = ndimg._core.grey_filter
    monkeypatch.setattr(ndimg._core, "grey_filter", lambda *a: calls.append(len(a[2])) or real(*a))
    x = np.arange(80.0).reshape(8, 10)
    np.testing.assert_array_equal(nd.grey_erosion(x, footprint=PRODUCTS[0]), ndi.grey_erosion(x, footprint=PRODUCTS[0]))
    assert calls == [2 * 2, 2 * 2]  # two passes of two taps (2-D offsets)
    x[1, 1] = np.nan
    calls.clear()
    np.testing.assert_array_equal(nd.grey_erosion(x, footprint=PRODUCTS[0]), ndi.grey_erosion(x, footprint=PRODUCTS[0]))
    assert calls == [4 * 2]  # NaN in the data: the n-D taps

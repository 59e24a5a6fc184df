"""minimum/maximum (1-D and n-D), median, rank and percentile filters against scipy.ndimage."""
import numpy as np
import pytest
import scipy.ndimage as ndi

from ndimg import ndimage as nd
from ndimg._registry import NUMERIC
from helpers import MODES, assert_close, assert_raises_like, check_result, random_image, to_engine

FOOTPRINT = np.array([[0, 1, 1], [1, 1, 0], [0, 1, 0]], dtype=bool)


def reference(name, x, *args, **kw):
    """scipy's result; 1-D median/rank/percentile go through its n-D code on an (n, 1) view, because its
    1-D shortcut misreads single-element inputs and 'mirror' with even sizes (scipy 1.17)."""
    if x.ndim != 1 or name not in ("median_filter", "rank_filter", "percentile_filter"):
        return getattr(ndi, name)(x, *args, **kw)
    kw = dict(kw)
    if "size" in kw:
        kw["size"] = (kw["size"], 1)
    if "footprint" in kw:
        kw["footprint"] = np.asarray(kw["footprint"])[:, None]
    kw["origin"] = (kw.get("origin", 0), 0)
    return getattr(ndi, name)(x[:, None], *args, **kw)[:, 0]


def check(engine, name, x, *args, **kw):
    got = getattr(nd, name)(to_engine(x, engine), *args, **kw)
    check_result(f"ndimage.{name}", got, reference(name, x, *args, **kw), engine)


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_dtypes_layouts(engine, rng, dtype, layout):
    x = random_image(rng, (9, 8, 5), dtype, layout)
    for name in ("minimum_filter", "maximum_filter", "median_filter"):
        check(engine, name, x, size=3)
        check(engine, name, x, footprint=np.ones((2, 3, 1)) * [[[1], [0], [1]]])
    check(engine, "rank_filter", x, 5, size=(2, 3, 2))
    check(engine, "percentile_filter", x, 30, size=(3, 1, 3))
    for axis in (0, -1):
        check(engine, "minimum_filter1d", x, 4, axis=axis)
        check(engine, "maximum_filter1d", x, 3, axis=axis)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", [(1,), (1, 1), (3, 2), (17, 12)])
def test_modes_shapes(engine, rng, mode, shape):
    x = random_image(rng, shape, "float64")
    kw = dict(mode=mode, cval=0.25)
    fp = FOOTPRINT if len(shape) == 2 else np.array([1, 0, 1, 1], bool)
    for origin in (-1, 0, 1):
        for name in ("minimum_filter", "maximum_filter", "median_filter"):
            check(engine, name, x, size=4, origin=origin, **kw)
            check(engine, name, x, footprint=fp, origin=origin, **kw)
        check(engine, "rank_filter", x, -2, size=3, origin=origin, **kw)
        check(engine, "percentile_filter", x, 65, footprint=fp, origin=origin, **kw)
        check(engine, "minimum_filter1d", x, 5, axis=0, origin=origin, **kw)
        check(engine, "maximum_filter1d", x, 3, axis=-1, origin=origin, **kw)


@pytest.mark.parametrize("size", [3, 5])
@pytest.mark.parametrize("dtype", ["float32", "uint8", "int16", "float64"])
@pytest.mark.parametrize("mode", MODES)
def test_median_boxes(engine, rng, size, dtype, mode):
    # the 3x3 / 5x5 boxes of 2-D images take the forgetful-selection path on both engines
    x = random_image(rng, (37, 70), dtype)
    for origin in (0, (1, -1)):
        check(engine, "median_filter", x, size=size, mode=mode, cval=3, origin=origin)
    check(engine, "median_filter", random_image(rng, (37, 70), dtype, "strided"), size=size, mode=mode)
    check(engine, "median_filter", x, size=size, output=np.float64)


def test_large_footprint_and_ties(engine, rng):
    x = rng.integers(0, 4, (20, 24)).astype(np.int32)  # many ties
    check(engine, "median_filter", x, size=9)
    check(engine, "rank_filter", x, 20, size=(7, 11), mode="wrap")
    check(engine, "percentile_filter", random_image(rng, (6, 7, 8), "float32"), 80, size=(5, 5, 4))


def test_axes_per_axis_modes(engine, rng):
    x = random_image(rng, (6, 9, 7), "float32")
    for name in ("minimum_filter", "maximum_filter"):
        check(engine, name, x, size=(3, 4), axes=(0, 2), mode=["wrap", "constant"], origin=(1, 0), cval=-1)
    check(engine, "median_filter", x, size=(3, 4), axes=(2, 1))
    check(engine, "rank_filter", x, 0, size=(3, 4), axes=(0, 2), mode=["wrap", "mirror"])


def test_output_and_in_place(engine, rng):
    x = random_image(rng, (15, 16), "float64") * 100
    for name in ("minimum_filter", "median_filter", "maximum_filter1d"):
        args = (3,) if name.endswith("1d") else ()
        kw = {} if args else dict(size=3)
        check(engine, name, x, *args, output=np.int16, **kw)
        xe = to_engine(x.copy(), engine)
        getattr(nd, name)(xe, *args, output=xe, **kw)
        assert_close(xe, getattr(ndi, name)(x, *args, **kw), f"ndimage.{name}")


@pytest.mark.parametrize("call", [
    lambda m, x: m.minimum_filter(x),
    lambda m, x: m.median_filter(x),
    lambda m, x: m.maximum_filter(x, footprint=np.zeros((3, 3))),
    lambda m, x: m.minimum_filter(x, size=3, origin=2),
    lambda m, x: m.median_filter(x, footprint=np.ones((3, 3)), origin=(0, 2)),
    lambda m, x: m.median_filter(x, size=3, mode="bogus"),
    lambda m, x: m.rank_filter(x, 9, size=3),
    lambda m, x: m.rank_filter(x, -10, size=3),
    lambda m, x: m.rank_filter(x, 1.5, size=3),
    lambda m, x: m.rank_filter(x, 2, size=3, mode=["wrap", "reflect"]),
    lambda m, x: m.percentile_filter(x, 101, size=3),
    lambda m, x: m.percentile_filter(x, -120, size=3),
    lambda m, x: m.median_filter(x, size=(3, 3, 3)),
    lambda m, x: m.median_filter(x, footprint=np.ones(3), axes=(0, 1)),
    lambda m, x: m.minimum_filter1d(x, 0),
    lambda m, x: m.maximum_filter1d(x, 3, axis=2),
    lambda m, x: m.minimum_filter1d(x, 3, origin=2),
    lambda m, x: m.maximum_filter(x, footprint=[[1, 0], [1, 1]], mode=["wrap", "reflect"]),
])
def test_bad_input_raises_like_scipy(engine, call):
    x = np.ones((6, 5))
    assert_raises_like(lambda: call(ndi, x), lambda: call(nd, to_engine(x, engine)))


def test_size_with_footprint_warns(engine):
    x = np.arange(20.0).reshape(4, 5)
    with pytest.warns(UserWarning):
        got = nd.median_filter(to_engine(x, engine), size=3, footprint=FOOTPRINT)
    assert_close(got, ndi.median_filter(x, footprint=FOOTPRINT), "ndimage.median_filter")


@pytest.mark.parametrize("view", ["flip0", "flip1", "rot90"])
@pytest.mark.parametrize("name", ["median_filter", "minimum_filter"])
def test_negative_strides(engine, rng, view, name):
    """Regression: border taps of views with negative strides read cval instead of the input."""
    base = random_image(rng, (6, 8), "float32")
    x = {"flip0": base[::-1], "flip1": base[:, ::-1], "rot90": np.rot90(base, 3)}[view]
    for mode in MODES:
        check(engine, name, x, footprint=FOOTPRINT, mode=mode)


# Full 3x3, 5x5 and 3x3x3 boxes (also a 3x3 box over two axes of a volume) take the tiled CUDA path and
# the register selections on both engines; the shapes are not multiples of the 32 x 32 / 8 x 8 x 32 tiles.
BOXES = {"3x3": ((37, 70), dict(size=3)), "5x5": ((37, 70), dict(size=5)),
         "3x3x3": ((11, 13, 35), dict(size=3)), "1x3x3": ((11, 13, 35), dict(size=3, axes=(1, 2)))}


def _box_count(shape, kw):
    return 3 ** len(kw.get("axes", shape)) if kw["size"] == 3 else 25


@pytest.mark.parametrize("box", list(BOXES))
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "int64", "float32", "float64"])
def test_box_every_rank(engine, rng, box, dtype):
    shape, kw = BOXES[box]
    x = random_image(rng, shape, dtype)
    n = _box_count(shape, kw)
    for rank in range(1, n - 1):  # ranks 0 and n - 1 are the separable minimum/maximum
        check(engine, "rank_filter", x, rank, **kw)
    check(engine, "rank_filter", x, -3, **kw)
    check(engine, "median_filter", x, **kw)
    check(engine, "percentile_filter", x, 50, **kw)
    check(engine, "percentile_filter", x, 12.5, **kw)


@pytest.mark.parametrize("box", list(BOXES))
@pytest.mark.parametrize("mode", MODES)
def test_box_modes_layouts_origins(engine, rng, box, mode):
    shape, kw = BOXES[box]
    nd_, axes = len(shape), len(kw.get("axes", shape))
    for layout in ("c", "f", "strided"):
        x = random_image(rng, shape, "float32", layout)
        for origin in (0, (1, -1, 0)[:axes] if kw["size"] == 3 else (-2, 2)):
            check(engine, "median_filter", x, mode=mode, cval=0.5, origin=origin, **kw)
            check(engine, "rank_filter", x, 2, mode=mode, cval=-0.5, origin=origin, **kw)
            check(engine, "percentile_filter", x, 80, mode=mode, cval=3, origin=origin, **kw)
    base = random_image(rng, shape, "float64")
    for view in (base[::-1], base[..., ::-1], np.swapaxes(base, 0, -1)[::-1]):  # negative strides
        check(engine, "median_filter", view, mode=mode, cval=0.25, **kw)
        check(engine, "rank_filter", view, 3, mode=mode, cval=0.25, **kw)
    small = random_image(rng, (2, 1, 2)[-nd_:], "int64")  # smaller than the footprint
    check(engine, "median_filter", small, mode=mode, cval=7, **kw)
    check(engine, "rank_filter", small, 1, mode=mode, cval=7, **kw)


@pytest.mark.parametrize("box", list(BOXES))
@pytest.mark.parametrize("mode", MODES)
def test_box_nan(engine, rng, box, mode):
    """Tiles holding NaN take scipy's selection, the others the register selection."""
    shape, kw = BOXES[box]
    x = random_image(rng, shape, "float64")
    x[tuple(rng.integers(0, s, 6) for s in shape)] = np.nan
    x[(0,) * len(shape)] = np.nan  # a border NaN reaches the halo of the modes that extend
    n = _box_count(shape, kw)
    for rank in (1, n // 3, n // 2, n - 2):
        check(engine, "rank_filter", x, rank, mode=mode, cval=np.nan if mode == "constant" else 0.0, **kw)
    check(engine, "median_filter", x.astype(np.float32), mode=mode, **kw)

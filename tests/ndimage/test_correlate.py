import numpy as np
import pytest
import scipy.ndimage as ndi

from ndimg import ndimage as nd
from ndimg._registry import ALL
from helpers import NDIMAGE_MODES, assert_close, assert_raises_like, check_against_reference, random_image, to_engine


@pytest.mark.parametrize("name", ["correlate", "convolve"])
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_dtypes_layouts(engine, rng, name, dtype, layout):
    x = random_image(rng, (9, 7, 5), dtype, layout)
    w = rng.standard_normal((3, 2, 3)) if dtype != "bool" else rng.random((3, 2, 3)) > 0.5
    check_against_reference(engine, f"ndimage.{name}", x, w)


@pytest.mark.parametrize("name", ["correlate", "convolve"])
@pytest.mark.parametrize("mode", NDIMAGE_MODES)
@pytest.mark.parametrize("shape", [(1,), (1, 1), (2, 3), (13, 6)])
def test_modes_shapes_origins(engine, rng, name, mode, shape):
    x = random_image(rng, shape, "float64")
    w = rng.standard_normal((4,) * len(shape))
    w[(0,) * len(shape)] = 0  # zero weights are skipped
    for origin in (-2, 0, 1):
        check_against_reference(engine, f"ndimage.{name}", x, w, mode=mode, cval=-0.75, origin=origin)


NEGATIVE_STRIDES = {"flip0": lambda a: a[::-1], "flip1": lambda a: a[:, ::-1], "rot90": lambda a: np.rot90(a, 3)}


@pytest.mark.parametrize("name", ["correlate", "convolve"])
@pytest.mark.parametrize("view", list(NEGATIVE_STRIDES))
@pytest.mark.parametrize("mode", NDIMAGE_MODES)
def test_negative_strides(engine, rng, name, view, mode):
    """Regression: taps outside the input read cval where their element offset was negative."""
    x = NEGATIVE_STRIDES[view](random_image(rng, (6, 8), "float64"))
    w = rng.standard_normal((2, 3))
    check_against_reference(engine, f"ndimage.{name}", x, w, mode=mode, cval=0.5)


@pytest.mark.parametrize("name", ["correlate", "convolve"])
def test_axes_and_per_axis_origin(engine, rng, name):
    x = random_image(rng, (6, 8, 7), "float32")
    w = rng.standard_normal((3, 4))
    check_against_reference(engine, f"ndimage.{name}", x, w, axes=(2, 0), origin=(1, -1), mode="mirror")


@pytest.mark.parametrize("out_dtype", [np.uint8, np.int16, np.float32, np.float64])
def test_output_dtype_and_in_place(engine, rng, out_dtype):
    x = random_image(rng, (15, 11), "float64") * 200
    w = rng.standard_normal((3, 3))
    check_against_reference(engine, "ndimage.correlate", x, w, output=out_dtype)
    xe = to_engine(x.copy(), engine)
    nd.correlate(xe, w, output=xe)
    assert_close(xe, ndi.correlate(x, w), "ndimage.correlate")


@pytest.mark.parametrize("bad", [
    dict(weights=np.ones((3,))), dict(weights=np.ones((3, 3)), origin=2), dict(weights=np.ones((3, 3)), mode="bogus"),
    dict(weights=np.ones((3, 3)), mode=["reflect", "wrap"]), dict(weights=np.ones((0, 3))),
    dict(weights=np.ones((3,)), axes=(0, 2)), dict(weights=np.ones((3,)), axes=(0, 0)),
    dict(weights=np.ones((3, 3)), origin=(0, 0, 0)),
])
def test_bad_input_raises_like_scipy(engine, bad):
    x = np.ones((4, 5))
    for name in ("correlate", "convolve"):
        assert_raises_like(lambda: getattr(ndi, name)(x, **bad), lambda: getattr(nd, name)(to_engine(x, engine), **bad))


# Footprints whose bounding box fits the shared-memory tile take the tiled CUDA path: flat (one z plane,
# 32 x 32 tiles) and volume (8 x 8 x 32 tiles); shapes are not multiples of the tiles. Larger ones, 1-D
# arrays and more than 3 dimensions keep the generic kernel.
TILED = {"7x7": ((37, 70), (7, 7)), "1x9": ((37, 70), (1, 9)), "3x3x3": ((11, 13, 35), (3, 3, 3)),
         "2x3x4": ((11, 13, 35), (2, 3, 4)), "1x3x5": ((11, 13, 35), (1, 3, 5)), "generic_1d": ((75,), (5,)),
         "sparse_1x40": ((9, 70), (1, 40)), "generic_45x45": ((50, 60), (45, 45)),
         "generic_4d": ((3, 4, 5, 6), (2, 2, 3, 2))}


@pytest.mark.parametrize("case", list(TILED))
@pytest.mark.parametrize("mode", NDIMAGE_MODES)
def test_tiled_footprints(engine, rng, case, mode):
    shape, wshape = TILED[case]
    w = rng.standard_normal(wshape)
    w.flat[::4] = 0  # zero weights are left out of the taps
    if case.startswith("sparse"):
        w[...] = 0
        w[0, [0, 17, 39]] = [1.5, -2.0, 0.25]
    # float32 sums in float: thousands of taps go beyond the registry's float32 tolerance of scipy's double
    dtype = "float64" if case == "generic_45x45" else "float32"
    for layout in ("c", "f", "strided"):
        x = random_image(rng, shape, dtype, layout)
        for name in ("correlate", "convolve"):
            check_against_reference(engine, f"ndimage.{name}", x, w, mode=mode, cval=-0.75)
    origin = tuple((n - 1) // 2 for n in wshape)
    x = random_image(rng, shape, "float64")
    check_against_reference(engine, "ndimage.correlate", x, w, mode=mode, cval=2.5, origin=origin)
    check_against_reference(engine, "ndimage.convolve", x[::-1], w, mode=mode, origin=tuple(-(n // 2) for n in wshape))
    if max(wshape) <= 7:  # smaller than the footprint (a footprint past twice the image differs: see report)
        small = random_image(rng, (2,) * len(shape), "int64")
        check_against_reference(engine, "ndimage.correlate", small, w, mode=mode, cval=3)


@pytest.mark.parametrize("case", ["7x7", "3x3x3"])
@pytest.mark.parametrize("dtype", ALL)
def test_tiled_dtypes_outputs(engine, rng, case, dtype):
    shape, wshape = TILED[case]
    x = random_image(rng, shape, dtype)
    w = rng.standard_normal(wshape) if dtype != "bool" else rng.random(wshape) > 0.5
    check_against_reference(engine, "ndimage.correlate", x, w)
    for out in (np.float64, np.float32, np.int16):
        check_against_reference(engine, "ndimage.correlate", x, w, output=out)


@pytest.mark.parametrize("case", ["7x7", "3x3x3"])
def test_tiled_nan_input_and_weights(engine, rng, case):
    shape, wshape = TILED[case]
    x = random_image(rng, shape, "float64")
    x[tuple(rng.integers(0, s, 4) for s in shape)] = np.nan
    w = rng.standard_normal(wshape)
    w.flat[[1, 5]] = [np.nan, 0.0]  # NaN and zero weights are left out, as scipy does
    for mode in ("reflect", "constant"):
        check_against_reference(engine, "ndimage.correlate", x, w, mode=mode)
        check_against_reference(engine, "ndimage.correlate", x.astype(np.float32), w, mode=mode)

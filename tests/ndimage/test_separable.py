"""gaussian/uniform/sobel/prewitt/laplace family of ndimg.ndimage against scipy.ndimage."""
import numpy as np
import pytest
import scipy.ndimage as ndi

from ndimg import ndimage as nd
from ndimg._registry import NUMERIC
from helpers import MODES, assert_close, assert_raises_like, check_against_reference, random_image, to_engine

# (name, kwargs) covering each function with a typical argument set
CASES = [
    ("gaussian_filter1d", dict(sigma=1.5, axis=0)),
    ("gaussian_filter1d", dict(sigma=0.8, axis=-1, order=2)),
    ("gaussian_filter", dict(sigma=1.2)),
    ("gaussian_filter", dict(sigma=(0.7, 2.0, 1.0), order=(1, 0, 2))),
    ("uniform_filter1d", dict(size=4, axis=1)),
    ("uniform_filter", dict(size=3)),
    ("uniform_filter", dict(size=(2, 5, 1), origin=(0, 1, 0))),
    ("sobel", dict(axis=0)),
    ("sobel", dict()),
    ("prewitt", dict(axis=1)),
    ("laplace", dict()),
    ("gaussian_laplace", dict(sigma=1.1)),
    ("gaussian_gradient_magnitude", dict(sigma=0.9)),
]


def _trim(kwargs, ndim):
    """Per-axis sequences in CASES are written for 3-D; cut them to ndim."""
    return {k: (v[:ndim] if isinstance(v, tuple) else v) for k, v in kwargs.items()}


def _check(engine, name, x, **kw):
    check_against_reference(engine, f"ndimage.{name}", x, **kw)


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("name,kwargs", CASES)
def test_dtypes(engine, rng, dtype, name, kwargs):
    _check(engine, name, random_image(rng, (9, 8, 7), dtype), **kwargs)


@pytest.mark.parametrize("layout", ["c", "f", "strided"])
@pytest.mark.parametrize("shape", [(1, 1), (1, 6), (13, 1), (17, 11), (2, 3, 4), (6, 1, 9)])
@pytest.mark.parametrize("name,kwargs", CASES)
def test_shapes_layouts(engine, rng, layout, shape, name, kwargs):
    kwargs = _trim(kwargs, len(shape))
    if name.endswith("1d") and kwargs.get("axis", 0) >= len(shape):
        kwargs["axis"] = -1
    _check(engine, name, random_image(rng, shape, "float64", layout), **kwargs)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name,kwargs", CASES)
def test_modes(engine, rng, mode, name, kwargs):
    _check(engine, name, random_image(rng, (11, 6, 5), "float32"), mode=mode, cval=0.75, **kwargs)


def test_mode_per_axis(engine, rng):
    x = random_image(rng, (10, 9), "float64")
    for name, kw in [("gaussian_filter", dict(sigma=1.5)), ("uniform_filter", dict(size=4)), ("sobel", {}),
                     ("laplace", {})]:
        _check(engine, name, x, mode=["wrap", "constant"], cval=2.0, **kw)


@pytest.mark.parametrize("out_dtype", [np.uint8, np.int16, np.float32, np.float64])
@pytest.mark.parametrize("name,kwargs", CASES)
def test_output_dtype(engine, rng, out_dtype, name, kwargs):
    x = random_image(rng, (12, 10, 3), "float64") * 40
    _check(engine, name, x, output=out_dtype, **kwargs)


def test_output_array_and_in_place(engine, rng):
    x = random_image(rng, (16, 15), "float64")
    expected = ndi.gaussian_filter(x, 2.0)
    out = to_engine(np.empty_like(x), engine)
    ret = nd.gaussian_filter(to_engine(x, engine), 2.0, output=out)
    assert ret is out
    assert_close(out, expected, "ndimage.gaussian_filter")
    xe = to_engine(x.copy(), engine)
    nd.uniform_filter(xe, 5, output=xe)
    assert_close(xe, ndi.uniform_filter(x, 5), "ndimage.uniform_filter")


def test_truncate_radius_axes(engine, rng):
    x = random_image(rng, (14, 13, 5), "float64")
    _check(engine, "gaussian_filter", x, sigma=2.0, truncate=1.5)
    _check(engine, "gaussian_filter", x, sigma=(1.0, 3.0), radius=(2, 4), axes=(0, 1))
    _check(engine, "gaussian_filter", x, sigma=1.0, axes=-1)
    _check(engine, "gaussian_filter1d", x, sigma=3.0, radius=1)
    _check(engine, "uniform_filter", x, size=(3, 6), axes=(2, 0))
    _check(engine, "laplace", x, axes=(0, 2))
    _check(engine, "gaussian_laplace", x, sigma=(1.0, 2.0), axes=(1, 2), truncate=2.0)
    _check(engine, "gaussian_gradient_magnitude", x, sigma=1.5, axes=(0,), radius=3)
    _check(engine, "gaussian_filter", x, sigma=0)  # no pass: a copy


def test_large_sigma_long_lines(engine, rng):
    # wider than the CUDA tiles and the CPU bundles; sigma reaching past the image (boundary folding)
    x = random_image(rng, (3, 1500), "float32")
    _check(engine, "gaussian_filter", x, sigma=(0.5, 40.0))
    _check(engine, "uniform_filter1d", random_image(rng, (70, 40), "uint16"), size=33, axis=0)
    _check(engine, "gaussian_filter", random_image(rng, (5, 4), "float64"), sigma=6.0, mode="mirror")


@pytest.mark.parametrize("name,args,kwargs", [
    ("gaussian_filter1d", (1.0,), dict(radius=-1)),
    ("gaussian_filter1d", (1.0,), dict(radius=1.5)),
    ("gaussian_filter1d", (1.0,), dict(order=-1)),
    ("gaussian_filter1d", (1.0,), dict(axis=2)),
    ("gaussian_filter", (1.0,), dict(mode="bogus")),
    ("gaussian_filter", ((1.0, 2.0, 3.0),), {}),
    ("gaussian_filter", (1.0,), dict(axes=(0, 0))),
    ("gaussian_filter", (1.0,), dict(axes=(5,))),
    ("gaussian_filter", (1.0,), dict(output=np.empty((3, 3)))),
    ("uniform_filter1d", (0,), {}),
    ("uniform_filter1d", (3,), dict(origin=2)),
    ("uniform_filter", (3,), dict(origin=(0, -2))),
    ("uniform_filter", ((3, 3, 3),), {}),
    ("sobel", (), dict(axis=-3)),
    ("prewitt", (), dict(mode=("reflect",))),
    ("laplace", (), dict(mode="bogus")),
    ("gaussian_laplace", (1.0,), dict(bogus=1)),
    ("gaussian_gradient_magnitude", ((1.0, 2.0, 3.0),), {}),
])
def test_bad_input_raises_like_scipy(engine, name, args, kwargs):
    x = np.ones((6, 5))
    ours = {k: to_engine(v, engine) for k, v in kwargs.items()}
    assert_raises_like(lambda: getattr(ndi, name)(x, *args, **kwargs),
                       lambda: getattr(nd, name)(to_engine(x, engine), *args, **ours))


def test_empty_and_lists(engine):
    x = np.zeros((0, 4))
    assert_close(nd.gaussian_filter(to_engine(x, engine), 1.0), ndi.gaussian_filter(x, 1.0), "ndimage.gaussian_filter")
    lst = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]]
    assert_close(nd.uniform_filter(lst, 2), ndi.uniform_filter(lst, 2), "ndimage.uniform_filter")


@pytest.mark.parametrize("sigma", [0.7, 2.5, 7.0])
def test_flat_integer_regions_match_bit_for_bit(engine, sigma):
    # a flat region sums to 255 * (sum of weights), within an ulp of 255: the integer result depends on
    # scipy's exact order of summation, which is kept
    x = np.full((6, 90), 255, np.uint8)
    x[:, ::7] = 3
    for kw in (dict(sigma=sigma), dict(sigma=sigma, order=(1, 2))):
        assert_close(nd.gaussian_filter(to_engine(x, engine), **kw), ndi.gaussian_filter(x, **kw), (0, 0))


@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
@pytest.mark.parametrize("layout", ["c", "f"])
def test_tiled_schedules(engine, rng, dtype, layout):
    # shapes spanning several CUDA tiles along and across each axis (rows: 1280 outputs a tile;
    # columns: 64 outputs x 32 columns), with partial tiles at the ends
    for shape, sigma in [((150, 70), (3.0, 1.0)), ((3, 1400), (0.0, 5.0)), ((70, 20, 33), 2.0)]:
        x = random_image(rng, shape, dtype, layout)
        _check(engine, "gaussian_filter", x, sigma=sigma, mode="mirror")
        _check(engine, "uniform_filter", x, size=5, mode="constant", cval=3.0)
        _check(engine, "gaussian_filter", x, sigma=sigma, order=1, output=np.float32)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["c", "f"])
@pytest.mark.parametrize("modes", [("reflect", "reflect"), ("constant", "wrap"), ("nearest", "constant"),
                                   ("constant", "constant"), ("mirror", "reflect")])
def test_fused_schedules(engine, rng, dtype, layout, modes):
    # two passes over the last two axes run as one CUDA kernel (tiles of up to 64 x 128 outputs): shapes
    # spanning several tiles with partial ones, both pass orders (sobel's derivative axis first or last),
    # per-axis modes with constant on either axis, origins, long filters (weights in device memory)
    for shape in [(150, 300), (3, 70, 97)]:
        x = random_image(rng, shape, dtype, layout)
        m = modes if len(shape) == 2 else ("reflect",) + modes
        _check(engine, "gaussian_filter", x, sigma=4.0, mode=m, cval=0.5)
        _check(engine, "uniform_filter", x, size=(4, 7) if len(shape) == 2 else (1, 4, 7),
               origin=(1, -2) if len(shape) == 2 else (0, 1, -2), mode=m, cval=-1.5)
        _check(engine, "sobel", x, axis=-1, mode=m, cval=2.0)
        _check(engine, "sobel", x, axis=-2, mode=m, cval=2.0)
    _check(engine, "gaussian_filter", random_image(rng, (90, 200), dtype, layout), sigma=(12.0, 9.0), mode=modes)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("layout", ["c", "f"])
def test_fast_fused_schedule(engine, rng, mode, layout):
    # float32 y-then-x pairs of one length up to 17 taps over rows at least 96 wide run fused on CUDA (tiles of
    # 32 x 192 outputs): partial tiles both ways, planes, each mode paired with every other along x (constant
    # x takes cval after the y pass), origins at both extremes, means, and the sizes at the limits
    others = MODES[MODES.index(mode):] + MODES[:MODES.index(mode)]
    for shape in [(70, 500), (3, 45, 97), (33, 193)]:
        x = random_image(rng, shape, "float32", layout)
        lead = [mode] * (x.ndim - 2)
        for size, mx in zip((3, 9, 17, 15, 19), others):
            for origin in (0, (size - 1) // 2, -(size // 2)):
                _check(engine, "uniform_filter", x, size=size, origin=origin, mode=lead + [mode, mx], cval=0.5)
        _check(engine, "gaussian_filter", x, sigma=2.0, mode=lead + [others[1], mode], cval=-1.0)
        _check(engine, "sobel", x, axis=0, mode=mode, cval=0.25)


@pytest.mark.parametrize("start", [0, 1])
@pytest.mark.parametrize("width", [388, 390])
def test_fast_fused_staging(engine, rng, width, start):
    # the fused schedule stages rows in 16-byte pieces when they are 16-byte aligned (a width that is a
    # multiple of 4 and an aligned base) and float by float otherwise: widths of three column tiles (the last
    # 4 or 6 wide), data at an aligned address and one float past it, origins moving the first input column
    flat = rng.standard_normal(40 * width + 1).astype(np.float32)
    x = flat[start:start + 40 * width].reshape(40, width)
    g = to_engine(flat, engine)[start:start + 40 * width].reshape(40, width)
    for mode in MODES:
        for origin in (0, 3, -8):
            expected = ndi.uniform_filter(x, 17, origin=origin, mode=mode, cval=0.5)
            assert_close(nd.uniform_filter(g, 17, origin=origin, mode=mode, cval=0.5), expected,
                         "ndimage.uniform_filter")
        assert_close(nd.gaussian_filter(g, 1.5, mode=mode, cval=0.5), ndi.gaussian_filter(x, 1.5, mode=mode, cval=0.5),
                     "ndimage.gaussian_filter")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("layout", ["c", "f"])
def test_fast_float_schedules(engine, rng, mode, layout):
    # float32 passes of odd filters of up to 33 taps have CUDA schedules with the tap count compiled in
    # (rows: warp segments of 224 outputs; columns: 32 columns x 32 or 64 outputs a block): lines spanning
    # several segments and tiles with partial ones, origins at both extremes, every odd-length bucket, the
    # mean of uniform filters, columns narrower than a warp (another schedule), and filters reaching up to
    # one less than the line to a side (extension by closed forms) or as far as the line (another schedule)
    for shape in [(70, 500), (5, 40, 230), (33, 41), (300, 9), (17, 16)]:
        x = random_image(rng, shape, "float32", layout)
        for size in (1, 3, 9, 17, 33):
            origin = tuple(((size - 1) // 2, -(size // 2))[d % 2] for d in range(x.ndim))
            _check(engine, "uniform_filter", x, size=size, origin=origin, mode=mode, cval=0.5)
        _check(engine, "gaussian_filter", x, sigma=(4.0, 2.0, 1.0)[:x.ndim], mode=mode, cval=0.5)

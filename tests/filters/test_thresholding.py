import warnings

import numpy as np
import pytest
import skimage.filters as sf

from ndimg import filters as nf
from ndimg._registry import NUMERIC, REGISTRY
from helpers import assert_close, assert_raises_like, check_result, random_image, threshold_atol, to_engine, to_host

GLOBAL = ["threshold_otsu", "threshold_yen", "threshold_isodata", "threshold_li", "threshold_mean",
          "threshold_triangle", "threshold_minimum", "threshold_multiotsu"]
HIST = ["threshold_otsu", "threshold_yen", "threshold_isodata", "threshold_minimum", "threshold_multiotsu"]


def call(fn, *args, **kw):
    """(result, None) or (None, exception type), silencing the reference's warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kw), None
        except Exception as e:  # noqa: BLE001 - the type is what we compare
            return None, type(e)


def check(name, x, engine, **kw):
    """ndimg's `name` on the engine against skimage's on the host: same value and dtype, or same error."""
    host_kw = {k: to_host(v) if hasattr(v, "__cuda_array_interface__") else v for k, v in kw.items()}
    expected, err = call(getattr(sf, name), x, **host_kw)
    got, got_err = call(getattr(nf, name), to_engine(x, engine), **kw)
    assert got_err == err, (got_err, err)
    if err is None:
        entry = REGISTRY[f"filters.{name}"]
        check_result(entry, got, expected, engine, tol=(entry.rtol, threshold_atol(x, entry)))
    return expected


def bimodal(rng, shape, dtype, layout="c"):
    """Two well separated modes over the dtype's useful range (so that every method has an answer)."""
    x = random_image(rng, shape, "float64", layout)
    x = np.where(x > 0.3, 60 + 15 * x, 15 * x - 20)
    dt = np.dtype(dtype)
    if dt.kind == "u":
        x = x + 60
    if dt.kind in "iu":
        info = np.iinfo(dt)
        x = np.clip(np.round(x), info.min, info.max)
    out = np.empty_like(x, dtype=dt)
    out[...] = x
    return out


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
@pytest.mark.parametrize("name", GLOBAL)
def test_global_methods_dtypes_layouts(engine, rng, name, dtype, layout):
    check(name, bimodal(rng, (23, 17), dtype, layout), engine)
    if name != "threshold_minimum" or dtype in ("uint8", "int8", "float32", "float64"):  # (slow reference)
        check(name, random_image(rng, (6, 7, 5), dtype, layout), engine)


@pytest.mark.parametrize("name", ["threshold_otsu", "threshold_yen", "threshold_isodata", "threshold_triangle",
                                  "threshold_minimum", "threshold_multiotsu"])
@pytest.mark.parametrize("nbins", [2, 17, 256, 1000])
def test_nbins(engine, rng, name, nbins):
    check(name, bimodal(rng, (40, 31), "float32"), engine, nbins=nbins)
    check(name, bimodal(rng, (40, 31), "float64"), engine, nbins=nbins)
    check(name, bimodal(rng, (40, 31), "uint16"), engine, nbins=nbins)  # ignored for integers


@pytest.mark.parametrize("name", HIST)
def test_hist_argument(rng, name):
    x = bimodal(rng, (50, 40), "uint8")
    counts, centers = np.histogram(x, bins=np.arange(257))[0], np.arange(256)
    for hist in (counts, (counts, centers), (counts.astype(np.float64), centers + 0.5)):
        got, err = call(getattr(nf, name), hist=hist)
        expected, ref_err = call(getattr(sf, name), hist=hist)
        assert err == ref_err
        if err is None:
            assert_close(np.asarray(got), np.asarray(expected), f"filters.{name}")
    # image and hist: hist wins
    got, _ = call(getattr(nf, name), x[:5], hist=counts)
    expected, _ = call(getattr(sf, name), x[:5], hist=counts)
    assert_close(np.asarray(got), np.asarray(expected), f"filters.{name}")
    assert_raises_like(lambda: getattr(sf, name)(), lambda: getattr(nf, name)())


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64"])
@pytest.mark.parametrize("name", GLOBAL)
def test_constant_one_pixel_and_two_values(engine, rng, name, dtype):
    check(name, np.full((5, 4), 7, dtype=dtype), engine)
    check(name, np.full((1, 1), 3, dtype=dtype), engine)
    x = np.zeros((6, 6), dtype=dtype)
    x[2:4, 1:5] = 9
    check(name, x, engine)


@pytest.mark.parametrize("name", GLOBAL)
def test_nan_inf_and_empty(engine, rng, name):
    x = bimodal(rng, (12, 11), "float64")
    for bad in (np.nan, np.inf, -np.inf):
        y = x.copy()
        y[3, 4] = bad
        check(name, y, engine)
    check(name, np.full((3, 3), np.nan), engine)
    check(name, np.array([[2.0, np.inf], [np.nan, 2.0]]), engine)
    check(name, np.array([[2.0, np.inf], [-np.inf, 2.0]]), engine)
    check(name, np.array([[np.inf, -np.inf], [np.nan, np.inf]]), engine)
    check(name, np.full((3, 3), np.inf), engine)
    if name != "threshold_multiotsu":  # the reference reads uninitialised indices on an empty float image
        check(name, np.zeros((0, 4)), engine)
    check(name, np.zeros((0, 4), dtype=np.uint8), engine)


def test_isodata_return_all(engine, rng):
    for dtype in ("uint8", "float32", "float64"):
        x = bimodal(rng, (30, 30), dtype)
        check("threshold_isodata", x, engine, return_all=True)
        check("threshold_isodata", x, engine, return_all=True, nbins=64)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64"])
def test_li_options(engine, rng, dtype):
    x = bimodal(rng, (25, 20), dtype)
    check("threshold_li", x, engine, tolerance=0.3)
    guess = float(np.mean(x.astype(np.float64)))
    check("threshold_li", x, engine, initial_guess=guess)
    check("threshold_li", x, engine, initial_guess=lambda im: np.quantile(to_host(im), 0.4))
    check("threshold_li", x, engine, initial_guess=float(x.max()) + 5)  # out of range: ValueError
    check("threshold_li", x, engine, initial_guess="bad")  # TypeError
    seen, ref_seen = [], []
    nf.threshold_li(to_engine(x, engine), iter_callback=seen.append)
    sf.threshold_li(x, iter_callback=ref_seen.append)
    assert_close(np.asarray(seen, dtype=np.float64), np.asarray(ref_seen, dtype=np.float64), "filters.threshold_li")


@pytest.mark.parametrize("classes", [2, 3, 4])
def test_multiotsu_classes(engine, rng, classes):
    x = random_image(rng, (30, 20), "float64") * 3
    x[:10] += 8
    x[20:] -= 8
    nbins = 256 if classes < 4 else 48
    check("threshold_multiotsu", x, engine, classes=classes, nbins=nbins)
    check("threshold_multiotsu", np.repeat(np.arange(classes, dtype=np.uint8), 5), engine, classes=classes)
    check("threshold_multiotsu", np.repeat(np.arange(classes - 1, dtype=np.uint8), 5), engine, classes=classes)


def test_rgb_like_warns(rng):
    x = bimodal(rng, (8, 9, 3), "uint8")
    for name in ("threshold_otsu", "threshold_multiotsu"):
        with pytest.warns(UserWarning):
            getattr(nf, name)(x)


# ---------------------------------------------------------------------------------------------------
# Niblack / Sauvola
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
@pytest.mark.parametrize("name", ["threshold_niblack", "threshold_sauvola"])
def test_local_mean_std_dtypes_layouts(engine, rng, name, dtype, layout):
    check(name, random_image(rng, (21, 16), dtype, layout), engine)
    check(name, random_image(rng, (7, 9, 6), dtype, layout), engine, window_size=5)


@pytest.mark.parametrize("name", ["threshold_niblack", "threshold_sauvola"])
@pytest.mark.parametrize("shape,window", [((1, 1), 3), ((1, 9), (1, 5)), ((5, 3), 7), ((13, 10), (3, 9)),
                                          ((40,), 11), ((4, 5, 6), (3, 1, 5))])
def test_local_mean_std_windows(engine, rng, name, shape, window):
    x = random_image(rng, shape, "float64")
    kw = dict(window_size=window, k=0.35)
    if name == "threshold_sauvola":
        kw["r"] = 2.5
    check(name, x, engine, **kw)


@pytest.mark.parametrize("name", ["threshold_niblack", "threshold_sauvola"])
def test_local_mean_std_bad_windows(engine, name):
    x = np.ones((6, 6))
    for w in (4, (3, 4)):
        check(name, x, engine, window_size=w)


# ---------------------------------------------------------------------------------------------------
# threshold_local
# ---------------------------------------------------------------------------------------------------

def _have(name):
    from ndimg import ndimage

    try:
        getattr(ndimage, name)
        return True
    except (AttributeError, ImportError):
        return False


@pytest.mark.parametrize("method,needs", [("gaussian", "gaussian_filter"), ("mean", "uniform_filter"),
                                          ("median", "median_filter")])
@pytest.mark.parametrize("mode", ["reflect", "constant", "nearest", "mirror", "wrap"])
def test_threshold_local_methods(engine, rng, method, needs, mode):
    if not _have(needs):
        pytest.skip(f"ndimg.ndimage.{needs} is not available in this build")
    for dtype in ("uint8", "float32", "float64"):
        x = random_image(rng, (15, 12), dtype)
        check("threshold_local", x, engine, block_size=5, method=method, offset=0.1, mode=mode, cval=0.5)
    x = random_image(rng, (7, 8, 6), "float64")
    check("threshold_local", x, engine, block_size=(3, 5, 3), method=method, mode=mode)
    if method == "gaussian":
        check("threshold_local", x, engine, block_size=3, method=method, param=1.5, mode=mode)


def test_threshold_local_generic_and_errors(engine, rng):
    x = random_image(rng, (9, 10), "float32")
    check("threshold_local", x, engine, block_size=3, method="generic", param=np.max, offset=-1)
    check("threshold_local", x, engine, block_size=4)
    check("threshold_local", x, engine, block_size=(3, 3, 3))
    check("threshold_local", x, engine, block_size=3, method="bogus")


# ---------------------------------------------------------------------------------------------------
# Hysteresis
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_hysteresis_dtypes_layouts(engine, rng, dtype, layout):
    x = random_image(rng, (31, 22), dtype, layout)
    lo, hi = (0.2, 1.4) if np.dtype(dtype).kind == "f" else (300, 700)
    check("apply_hysteresis_threshold", x, engine, low=lo, high=hi)
    x = random_image(rng, (9, 8, 11), dtype, layout)
    check("apply_hysteresis_threshold", x, engine, low=lo, high=hi)


@pytest.mark.parametrize("shape", [(1,), (1, 1), (57,), (3, 1, 40), (2, 3, 4, 5), (200, 150)])
def test_hysteresis_shapes(engine, rng, shape):
    x = rng.random(shape)
    check("apply_hysteresis_threshold", x, engine, low=0.3, high=0.9)
    check("apply_hysteresis_threshold", x, engine, low=0.95, high=0.5)  # low is clipped to high


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_hysteresis_python_thresholds_in_image_type(engine, rng, dtype):
    # NumPy compares a float image with a Python number in the image's own type (NEP 50): pixels exactly at
    # float16(0.7) = 0.7002 are not above high=0.7 there; low goes through np.clip and is compared in float64
    x = rng.random((23, 17)).astype(dtype)
    x.flat[::5] = np.asarray(0.7, dtype)
    x.flat[1::5] = np.asarray(0.3, dtype)
    check("apply_hysteresis_threshold", x, engine, low=0.3, high=0.7)
    check("apply_hysteresis_threshold", x, engine, low=np.float64(0.3), high=np.float64(0.7))


def test_hysteresis_array_thresholds(engine, rng):
    x = rng.random((20, 15))
    low = rng.random((20, 15)) * 0.5
    check("apply_hysteresis_threshold", x, engine, low=to_engine(low, engine), high=0.8)
    got = nf.apply_hysteresis_threshold(to_engine(x, engine), to_engine(low, engine), to_engine(low + 0.4, engine))
    assert_close(got, sf.apply_hysteresis_threshold(x, low, low + 0.4), "filters.apply_hysteresis_threshold")


# ---------------------------------------------------------------------------------------------------
# try_all_threshold
# ---------------------------------------------------------------------------------------------------

def test_try_all_threshold(rng, capsys):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    x = bimodal(rng, (24, 20), "uint8")
    fig, ax = nf.try_all_threshold(x, figsize=(4, 3), verbose=True)
    ours = capsys.readouterr().out.split()
    ref_fig, ref_ax = sf.try_all_threshold(x, figsize=(4, 3), verbose=True)
    assert len(ours) == len(capsys.readouterr().out.split()) == 7
    assert len(ax) == len(ref_ax)
    for a, b in zip(ax, ref_ax):
        assert a.get_title() == b.get_title()
        ia, ib = a.get_images(), b.get_images()
        assert len(ia) == len(ib)
        for p, q in zip(ia, ib):
            np.testing.assert_array_equal(np.asarray(p.get_array()), np.asarray(q.get_array()))
    plt.close(fig)
    plt.close(ref_fig)

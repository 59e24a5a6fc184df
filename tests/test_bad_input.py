"""Hostile and odd inputs to ndimg.filters and ndimg.metrics, each compared with scikit-image on the same call
(issue 22, item 7): the same exception type where scikit-image raises, the same result where it computes."""
from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
import skimage.filters

import ndimg.filters
from helpers import to_engine, to_host


def raised(call):
    """The builtin exception class call() raises (NumPy's MemoryError subclass counts as MemoryError), or
    None when it returns."""
    try:
        call()
    except Exception as e:
        return next(t for t in type(e).__mro__ if t.__module__ == "builtins")
    return None


def assert_raises_like(reference_call, our_call):
    """The reference raises, and we raise the same builtin exception class."""
    expected = raised(reference_call)
    assert expected is not None, "the reference accepts this call"
    assert raised(our_call) is expected


@pytest.mark.parametrize("name", ["threshold_niblack", "threshold_sauvola"])
# every padded image exceeds any machine's address space (a (10**9 + 33, 33) float32 pad, 123 GiB, fits a
# 128 GiB host: scikit-image fills it and the OOM killer ends the process)
@pytest.mark.parametrize("shape, window", [((32, 32), 10**9 + 1), ((32, 32), (10**13 + 1, 1)),
                                           ((4, 4, 4), 10**9 + 1)])
def test_local_threshold_window_beyond_memory(engine, name, shape, window):
    """scikit-image pads the image by the window: MemoryError (ValueError past the address space) at once,
    where ndimg would sum a billion-pixel window at every pixel."""
    img = np.random.default_rng(0).random(shape, dtype=np.float32)
    ref = getattr(skimage.filters, name)
    ours = getattr(ndimg.filters, name)
    start = time.perf_counter()
    assert_raises_like(lambda: ref(img, window_size=window), lambda: ours(to_engine(img, engine), window_size=window))
    assert time.perf_counter() - start < 10


def _ir(r, c):
    return np.exp(-(r**2 + c**2) / 2)


# (module, name, call) over one image argument: every path an input takes to the core
ONE_IMAGE = {
    "filters.gaussian": lambda m, x: m.gaussian(x, sigma=1.5),
    "filters.sobel": lambda m, x: m.sobel(x),
    "filters.farid_h": lambda m, x: m.farid_h(x),
    "filters.laplace": lambda m, x: m.laplace(x),
    "filters.roberts": lambda m, x: m.roberts(x),
    "filters.median": lambda m, x: m.median(x),
    "filters.unsharp_mask": lambda m, x: m.unsharp_mask(x, preserve_range=True),
    "filters.butterworth": lambda m, x: m.butterworth(x),
    "filters.gabor": lambda m, x: m.gabor(x, 0.2),
    "filters.correlate_sparse": lambda m, x: m.correlate_sparse(x, np.ones((3, 3))),
    "filters.frangi": lambda m, x: m.frangi(x, sigmas=[1]),
    "filters.wiener": lambda m, x: m.wiener(x, _ir),
    "filters.rank_order": lambda m, x: m.rank_order(x),
    "filters.threshold_otsu": lambda m, x: m.threshold_otsu(x),
    "filters.threshold_li": lambda m, x: m.threshold_li(x),
    "filters.threshold_mean": lambda m, x: m.threshold_mean(x),
    "filters.threshold_local": lambda m, x: m.threshold_local(x, 5),
    "filters.threshold_niblack": lambda m, x: m.threshold_niblack(x, 5),
    "filters.threshold_sauvola": lambda m, x: m.threshold_sauvola(x, 5),
    "filters.apply_hysteresis_threshold": lambda m, x: m.apply_hysteresis_threshold(x, 200, 600),
    "metrics.mean_squared_error": lambda m, x: m.mean_squared_error(x, x[::-1]),
    "metrics.peak_signal_noise_ratio": lambda m, x: m.peak_signal_noise_ratio(x, x[::-1], data_range=1000),
    "metrics.structural_similarity": lambda m, x: m.structural_similarity(x, x[::-1], data_range=1000),
    "metrics.hausdorff_distance": lambda m, x: m.hausdorff_distance(x > 500, x[::-1] > 500),
}


def _modules(ours):
    if ours:
        import ndimg.metrics

        return type("M", (), {"filters": ndimg.filters, "metrics": ndimg.metrics})
    import skimage.metrics

    return type("M", (), {"filters": skimage.filters, "metrics": skimage.metrics})


def _call(qualname, ours, x):
    mod, _ = qualname.split(".")
    return ONE_IMAGE[qualname](getattr(_modules(ours), mod), x)


def assert_same_result(ref, ours, rtol=1e-5, atol=1e-6):
    """Same type, dtype (byte order included) and shape, values within tolerance (NaN where NaN)."""
    if isinstance(ref, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(ref)
        for r, o in zip(ref, ours):
            assert_same_result(r, o, rtol, atol)
        return
    ours = to_host(ours)
    assert type(ours) is type(ref) or (np.isscalar(ref) and np.isscalar(ours)), (type(ref), type(ours))
    ref, ours_a = np.asarray(ref), np.asarray(ours)
    assert ours_a.dtype.str == ref.dtype.str and ours_a.shape == ref.shape
    if ref.dtype == object:  # Python numbers: compared as complex values
        ref, ours_a = ref.astype(complex), ours_a.astype(complex)
    np.testing.assert_allclose(ours_a, ref, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("dtype", [">f4", ">f8", ">u2", ">i4"])
@pytest.mark.parametrize("qualname", list(ONE_IMAGE))
def test_other_byte_order(qualname, dtype):
    """Inputs in the other byte order compute as the native ones, with scikit-image's result dtype (float32
    for '>f4', where the binding used to refuse them or the float type became float64)."""
    x = (np.random.default_rng(3).random((17, 23)) * 1000).astype(dtype)
    assert_same_result(_call(qualname, False, x), _call(qualname, True, x), rtol=2e-4, atol=1e-4)


EDGES = ["sobel", "sobel_h", "sobel_v", "scharr", "scharr_h", "scharr_v", "prewitt", "prewitt_h", "prewitt_v",
         "farid", "farid_h", "farid_v", "roberts", "roberts_pos_diag", "roberts_neg_diag", "laplace"]


@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan, 1e308, 3e38])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", EDGES)
def test_edge_filters_non_finite(engine, name, dtype, value):
    """inf, NaN and values that overflow float32 give scikit-image's inf, NaN, 0 or finite value at each
    pixel (its n-D convolution skips the kernel's zero taps, which the separable passes multiply)."""
    x = np.random.default_rng(5).random((9, 10)).astype(dtype)
    with np.errstate(over="ignore"):
        x[1, 1] = x[7, 8] = value
        x[8, 0] = -value  # apart from the others: cancelling huge values is rounding, not the point here
    kw = [{}]
    if name in ("sobel", "farid"):
        kw += [dict(axis=0), dict(axis=-1), dict(mode="constant", cval=0.5)]
    for k in kw:
        with np.errstate(all="ignore"):
            ref = getattr(skimage.filters, name)(x, **k)
            ours = getattr(ndimg.filters, name)(to_engine(x, engine), **k)
        assert_same_result(ref, ours, rtol=1e-4, atol=1e-3)


def test_edge_filters_non_finite_3d(engine):
    x = np.random.default_rng(6).random((5, 6, 7))
    x[2, 3, 4] = np.inf
    x[1, 1, 1] = np.nan
    for name in ("sobel", "scharr", "prewitt", "farid", "laplace"):
        with np.errstate(all="ignore"):
            assert_same_result(getattr(skimage.filters, name)(x), getattr(ndimg.filters, name)(to_engine(x, engine)))


_IMG = np.random.default_rng(7).random((16, 17)).astype(np.float32)
_RGB = np.random.default_rng(8).random((16, 17, 3)).astype(np.float32)
_LAB = (np.random.default_rng(9).random((16, 17)) * 5).astype(np.int64)
_EMPTY = np.zeros((0, 5), np.float32)

# Calls scikit-image refuses, by (module, call): ndimg raises the same builtin exception class.
REFUSED = {
    "niblack_0d": ("filters", lambda m: m.threshold_niblack(np.array(0.5))),
    "sauvola_0d": ("filters", lambda m: m.threshold_sauvola(np.array(0.5))),
    "niblack_float_window": ("filters", lambda m: m.threshold_niblack(_IMG, window_size=3.0)),
    "sauvola_float_window": ("filters", lambda m: m.threshold_sauvola(_IMG, window_size=2.5)),
    "niblack_empty": ("filters", lambda m: m.threshold_niblack(_EMPTY)),
    "sauvola_empty": ("filters", lambda m: m.threshold_sauvola(_EMPTY.T)),
    "sauvola_complex": ("filters", lambda m: m.threshold_sauvola(_IMG.astype(np.complex64))),
    "local_negative_block": ("filters", lambda m: m.threshold_local(_IMG, block_size=-1)),
    "hysteresis_empty": ("filters", lambda m: m.apply_hysteresis_threshold(_EMPTY, 0.2, 0.5)),
    # a float32 range holding fewer values than bins
    "otsu_too_many_bins": ("filters", lambda m: m.threshold_otsu(np.float32(1) + _IMG * np.float32(1e-6), nbins=1000)),
    "yen_bins_str": ("filters", lambda m: m.threshold_yen(_IMG, nbins="a")),
    "meijering_0d": ("filters", lambda m: m.meijering(np.array(0.5))),
    "laplace_0d": ("filters", lambda m: m.laplace(np.array(0.5))),
    "unsharp_mask_0d": ("filters", lambda m: m.unsharp_mask(np.array(7, np.uint8))),
    "unsharp_mask_channel_axis": ("filters", lambda m: m.unsharp_mask(_RGB, channel_axis=3)),
    "unsharp_mask_channel_axis_neg": ("filters", lambda m: m.unsharp_mask(_RGB, channel_axis=-4)),
    "rank_order_empty": ("filters", lambda m: m.rank_order(_EMPTY)),
    "correlate_sparse_empty": ("filters", lambda m: m.correlate_sparse(_EMPTY, np.ones((3, 3)))),
    "correlate_sparse_empty_nearest": ("filters",
                                       lambda m: m.correlate_sparse(_EMPTY.T, np.ones((3, 3)), mode="nearest")),
    "ssim_channel_axis": ("metrics", lambda m: m.structural_similarity(_RGB, _RGB, channel_axis=5, data_range=1)),
    "ssim_channel_axis_float": ("metrics",
                                lambda m: m.structural_similarity(_RGB, _RGB, channel_axis=1.5, data_range=1)),
    "mse_complex": ("metrics", lambda m: m.mean_squared_error(_IMG.astype(np.complex64), _IMG.astype(np.complex64))),
    "nmi_complex": ("metrics", lambda m: m.normalized_mutual_information(_IMG.astype(np.complex64), _IMG)),
    "contingency_table_empty": ("metrics", lambda m: m.contingency_table(_LAB[:0], _LAB[:0])),
    "adapted_rand_error_empty": ("metrics", lambda m: m.adapted_rand_error(_LAB[:, :0], _LAB[:, :0])),
    "variation_of_information_empty": ("metrics", lambda m: m.variation_of_information(_LAB[:0], _LAB[:0])),
    "threshold_sauvola_object": ("filters", lambda m: m.threshold_sauvola(_IMG.astype(object))),
}
# Non-arrays: scikit-image reads attributes of most images without converting them (AttributeError), looks at
# them as arrays in check_nD (ValueError for 0-d), or compares them (TypeError).
for _name in ("gaussian", "sobel", "sobel_h", "farid", "farid_v", "scharr_h", "prewitt", "roberts", "roberts_neg_diag",
              "laplace", "median", "unsharp_mask", "rank_order", "gabor", "frangi", "sato", "meijering", "wiener",
              "threshold_li", "apply_hysteresis_threshold"):
    _args = {"gabor": (0.2,), "wiener": (_ir,), "apply_hysteresis_threshold": (0.2, 0.5)}.get(_name, ())
    for _label, _x in (("list", _IMG.tolist()), ("none", None), ("scalar", 0.5), ("str", "abc")):
        if not (_name == "apply_hysteresis_threshold" and _label == "scalar"):
            REFUSED[f"{_name}_{_label}"] = ("filters", lambda m, n=_name, x=_x, a=_args: getattr(m, n)(x, *a))
REFUSED["try_all_threshold_list"] = ("filters", lambda m: m.try_all_threshold(_IMG.tolist()))
for _label, _x in (("none", None), ("scalar", 0.5), ("str", "abc")):
    REFUSED[f"hausdorff_distance_{_label}"] = ("metrics", lambda m, x=_x: m.hausdorff_distance(x, x))


@pytest.mark.parametrize("case", list(REFUSED))
def test_refused_like_the_reference(case):
    import ndimg.metrics
    import skimage.metrics

    mod, call = REFUSED[case]
    ref, ours = (getattr(skimage, mod), getattr(ndimg, mod))
    with np.errstate(all="ignore"):
        assert_raises_like(lambda: call(ref), lambda: call(ours))


def test_hysteresis_0d_is_a_numpy_bool():
    x = np.array(0.7)
    assert_same_result(skimage.filters.apply_hysteresis_threshold(x, 0.2, 0.5),
                       ndimg.filters.apply_hysteresis_threshold(x, 0.2, 0.5))


def test_try_all_threshold_other_byte_order():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    x = (np.random.default_rng(4).random((20, 21)) * 1000).astype(">u2")
    fig, ax = ndimg.filters.try_all_threshold(x, verbose=False)
    assert len(ax) == 8


def test_difference_of_gaussians_0d_is_a_scalar():
    x = np.array(0.5)
    assert_same_result(skimage.filters.difference_of_gaussians(x, 1), ndimg.filters.difference_of_gaussians(x, 1))


def test_correlate_sparse_empty_constant_works():
    k = np.ones((3, 3))
    assert_same_result(skimage.filters.correlate_sparse(_EMPTY, k, mode="constant"),
                       ndimg.filters.correlate_sparse(_EMPTY, k, mode="constant"))


# Non-arrays that scikit-image converts, so that the call works
ACCEPTED = {
    "threshold_mean_list": lambda: ("filters", "threshold_mean", (_IMG.tolist(),)),
    "threshold_mean_scalar": lambda: ("filters", "threshold_mean", (0.5,)),
    "hysteresis_scalar": lambda: ("filters", "apply_hysteresis_threshold", (0.7, 0.2, 0.5)),
    "difference_of_gaussians_list": lambda: ("filters", "difference_of_gaussians", (_IMG.tolist(), 1)),
    "hausdorff_distance_list": lambda: ("metrics", "hausdorff_distance",
                                        ((_IMG > 0.5).tolist(), (_IMG > 0.3).tolist())),
    "threshold_niblack_object": lambda: ("filters", "threshold_niblack", (_IMG.astype(object),)),
    "threshold_mean_object": lambda: ("filters", "threshold_mean", (_IMG.astype(object),)),
    "threshold_mean_complex": lambda: ("filters", "threshold_mean", (_IMG.astype(np.complex64),)),
    "mean_squared_error_object": lambda: ("metrics", "mean_squared_error", (_IMG.astype(object), _RGB[..., 0])),
    "normalized_root_mse_object": lambda: ("metrics", "normalized_root_mse", (_IMG.astype(object),) * 2),
    "nmi_object": lambda: ("metrics", "normalized_mutual_information", (_IMG.astype(object), _RGB[..., 1])),
}


@pytest.mark.parametrize("case", list(ACCEPTED))
def test_converted_like_the_reference(case):
    import ndimg.metrics
    import skimage.metrics

    mod, name, args = ACCEPTED[case]()
    assert_same_result(getattr(getattr(skimage, mod), name)(*args), getattr(getattr(ndimg, mod), name)(*args))


@pytest.mark.parametrize("name", ["threshold_minimum", "threshold_otsu", "threshold_mean", "threshold_li", "sobel",
                                  "gaussian", "median"])
@pytest.mark.parametrize("x", [np.float32(0.5), np.uint8(3)], ids=["float32", "uint8"])
def test_numpy_scalar_is_a_0d_array(name, x):
    """A NumPy scalar is an image of no axes to scikit-image (the engine check took it for a GPU array)."""
    ref, ours = raised(lambda: getattr(skimage.filters, name)(x)), raised(lambda: getattr(ndimg.filters, name)(x))
    assert ref is ours
    if ref is None:
        assert_same_result(getattr(skimage.filters, name)(x), getattr(ndimg.filters, name)(x))


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "object"])
@pytest.mark.parametrize("name", ["threshold_otsu", "threshold_yen", "threshold_isodata", "threshold_triangle",
                                  "threshold_minimum", "threshold_multiotsu"])
def test_histogram_thresholds_of_complex_and_object_images(name, dtype):
    """scikit-image bins complex and object images with NumPy's histogram (complex or object bin centres):
    the same thresholds."""
    rng = np.random.default_rng(10)
    for x in (rng.random((20, 21)), rng.random((20, 21)) + 1j * rng.random((20, 21)), np.full((4, 4), 1 + 2j)):
        x = x.astype(dtype)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            ref, ours = raised(lambda: getattr(skimage.filters, name)(x)), raised(lambda: getattr(ndimg.filters, name)(x))
            assert ref is ours
            if ref is None:
                assert_same_result(getattr(skimage.filters, name)(x), getattr(ndimg.filters, name)(x))

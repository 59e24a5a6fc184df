"""ndimg.util beyond the generated registry cases: the classes, the conversion rules' corners (warnings,
identity, the project's shared img_as_float), views, the noise stream, Dask, and threads."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import skimage.util as sku

import ndimg
import ndimg.util as nu
from helpers import array_type, to_engine, to_host
from ndimg import _rules
from ndimg.util import _dtype, _noise


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 4096 elements on the engine's threads, whatever the array's size (the paths 4K images take)."""
    monkeypatch.setattr(_dtype, "_CHUNK", 4096)
    monkeypatch.setattr(_dtype, "_SERIAL_BYTES", 0)
    monkeypatch.setattr(_noise, "_CHUNK", 4096)


# --- classes ---------------------------------------------------------------------------------------------
def test_classes_have_scikit_image_names_and_bases():
    for name in ("PendingSkimage2Change", "FailedEstimationAccessError"):
        ours, ref = getattr(nu, name), getattr(sku, name)
        assert ours is not ref and ours.__name__ == ref.__name__
        assert ours.__bases__ == ref.__bases__, (ours.__bases__, ref.__bases__)


def test_pending_change_is_hidden_by_default_and_shown_by_a_filter():
    with warnings.catch_warnings(record=True) as seen:
        warnings.resetwarnings()
        warnings.simplefilter("default")
        warnings.filterwarnings("ignore", category=PendingDeprecationWarning)   # Python's default
        warnings.warn("x", nu.PendingSkimage2Change)
        assert not seen
        warnings.filterwarnings("default", category=nu.PendingSkimage2Change)
        warnings.warn("x", nu.PendingSkimage2Change)
        assert [w.category for w in seen] == [nu.PendingSkimage2Change]


def test_failed_estimation_raises_the_util_class():
    from ndimg.measure import CircleModel

    failed = CircleModel.from_estimate(np.zeros((3, 2)))
    assert not failed
    with pytest.raises(nu.FailedEstimationAccessError):
        failed.center
    with pytest.raises(AttributeError):   # its base, as scikit-image's
        failed.center


# --- conversions -----------------------------------------------------------------------------------------
DTYPES = (bool, np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64, np.float16,
          np.float32, np.float64)
FUNCS = ("img_as_float", "img_as_float32", "img_as_float64", "img_as_int", "img_as_uint", "img_as_ubyte",
         "img_as_bool")


def _image(rng, dtype, shape, small):
    dtype = np.dtype(dtype)
    if dtype == bool:
        return rng.random(shape) > 0.5
    if dtype.kind == "f":
        return (rng.random(shape) * 2 - 1).astype(dtype)
    info = np.iinfo(dtype)
    if small:   # values that fit the narrower types: the Downcasting path
        return rng.integers(0, 50, shape).astype(dtype)
    return rng.integers(info.min, info.max, shape, endpoint=True, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("small", [False, True])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("blocks", [False, True])
def test_every_conversion_equals_scikit_image(request, rng, dtype, small, order, blocks):
    if blocks:
        request.getfixturevalue("small_blocks")
    # over several blocks of the thread pool (blockwise), with the warnings scikit-image gives
    image = _image(rng, dtype, (301, 700), small)
    image = np.asfortranarray(image) if order == "F" else image
    for name in FUNCS:
        with warnings.catch_warnings(record=True) as w_ref:
            warnings.simplefilter("always")
            try:
                expected, err = getattr(sku, name)(image), None
            except ValueError as e:
                expected, err = None, e
        with warnings.catch_warnings(record=True) as w_got:
            warnings.simplefilter("always")
            if err is not None:
                with pytest.raises(ValueError, match="between -1 and 1"):
                    getattr(nu, name)(image)
                continue
            got = getattr(nu, name)(image)
        assert got.dtype == expected.dtype, name
        np.testing.assert_array_equal(got, expected, err_msg=name)
        ref_msgs = {str(w.message) for w in w_ref if "Downcasting" in str(w.message)}
        got_msgs = {str(w.message) for w in w_got if "Downcasting" in str(w.message)}
        assert got_msgs == ref_msgs, name


def test_float_out_of_range_raises():
    with pytest.raises(ValueError, match="between -1 and 1"):
        nu.img_as_ubyte(np.array([0.5, 1.5], np.float32))


def test_identity_and_force_copy():
    x = np.linspace(-1, 1, 5)
    assert nu.img_as_float(x) is x
    assert nu.img_as_float64(x) is x
    y = nu.img_as_float(x, force_copy=True)
    assert y is not x and np.array_equal(y, x)
    f16 = x.astype(np.float16)
    assert nu.img_as_float(f16) is f16   # np.floating keeps float16, as scikit-image


def test_unsupported_dtypes_raise_like_scikit_image():
    for bad in (np.complex64, np.longdouble):
        a = np.zeros(3, bad)
        try:
            sku.img_as_ubyte(a)
        except Exception as e:
            with pytest.raises(type(e)):
                nu.img_as_ubyte(a)
    with pytest.raises(ValueError, match="Cannot convert from complex64 to float64"):
        nu.img_as_float(np.zeros(3, np.complex64))


def test_project_img_as_float_is_util_conversion(rng):
    # ndimg._rules.img_as_float (used across the project) is util's conversion: scikit-image's values
    for dtype in (np.uint8, np.int16, np.uint32, bool):
        a = _image(rng, dtype, (40, 50), False)
        np.testing.assert_array_equal(_rules.img_as_float(a), sku.img_as_float(a))


def test_strided_input(rng):
    a = _image(rng, np.uint16, (80, 90), False)[::3, 1::2]
    np.testing.assert_array_equal(nu.img_as_ubyte(a), sku.img_as_ubyte(a))
    np.testing.assert_array_equal(nu.invert(a), sku.invert(a))


def test_morphology_uses_util_invert():
    from ndimg.morphology import _extrema, _max_tree

    assert _extrema.invert is nu.invert and _max_tree.invert is nu.invert


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_thread_counts_give_the_same_result(small_blocks, rng, threads):
    a = rng.random((513, 777)).astype(np.float32)
    before = ndimg.get_num_threads()
    try:
        ndimg.set_num_threads(threads)
        got = (nu.img_as_ubyte(a), nu.invert(a), nu.random_noise(a, rng=3),
               nu.random_noise(a, mode="s&p", rng=4, amount=0.3), nu.img_as_float(a.astype(np.int16) - 7))
    finally:
        ndimg.set_num_threads(before)
    np.testing.assert_array_equal(got[0], sku.img_as_ubyte(a))
    np.testing.assert_array_equal(got[1], sku.invert(a))
    np.testing.assert_array_equal(got[2], sku.random_noise(a, rng=3))
    np.testing.assert_array_equal(got[3], sku.random_noise(a, mode="s&p", rng=4, amount=0.3))
    np.testing.assert_array_equal(got[4], sku.img_as_float(a.astype(np.int16) - 7))


# --- views -----------------------------------------------------------------------------------------------
def test_views_share_the_callers_memory():
    a = np.arange(4 * 6 * 8, dtype=np.float32).reshape(4, 6, 8)
    for v in (nu.view_as_blocks(a, (2, 3, 4)), nu.view_as_windows(a, 3), nu.crop(a, 1),
              nu.slice_along_axes(a, [(1, 3)])):
        assert np.shares_memory(v, a)
    assert not np.shares_memory(nu.crop(a, 1, copy=True), a)
    assert not np.shares_memory(nu.slice_along_axes(a, [(1, 3)], copy=True), a)


# --- noise -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["gaussian", "localvar", "poisson", "salt", "pepper", "s&p", "speckle"])
@pytest.mark.parametrize("blocks", [False, True])
def test_noise_consumes_the_generator_as_scikit_image(request, rng, mode, blocks):
    if blocks:
        request.getfixturevalue("small_blocks")
    image = rng.random((64, 70)).astype(np.float32)
    ours, ref = np.random.default_rng(11), np.random.default_rng(11)
    kw = {"amount": 0.4, "salt_vs_pepper": 0.3} if mode == "s&p" else {}
    np.testing.assert_array_equal(nu.random_noise(image, mode=mode, rng=ours, **kw),
                                  sku.random_noise(image, mode=mode, rng=ref, **kw))
    # the caller's generator is left where scikit-image leaves it
    assert ours.bit_generator.state == ref.bit_generator.state


def test_noise_leaves_the_input_alone(rng):
    image = rng.random((30, 40))
    keep = image.copy()
    nu.random_noise(image, mode="s&p", rng=0, amount=0.5)
    nu.random_noise(image, rng=0)
    np.testing.assert_array_equal(image, keep)


def test_montage_rescale_leaves_the_input_alone(rng):
    # scikit-image rescales the caller's images in place; ndimg returns the same montage without doing so
    stack = (rng.random((4, 9, 11)) * 100).astype(np.uint8)
    keep = stack.copy()
    got = nu.montage(stack, rescale_intensity=True)
    np.testing.assert_array_equal(stack, keep)
    np.testing.assert_array_equal(got, sku.montage(stack.copy(), rescale_intensity=True))


# --- Dask ------------------------------------------------------------------------------------------------
def test_dask_conversions_chunk_by_chunk(rng):
    da = pytest.importorskip("dask.array")
    # a narrowing scales by the whole array's maximum, which only some chunks hold
    a = rng.integers(0, 60, (64, 80)).astype(np.uint16)
    a[60:, 70:] = 60000
    d = da.from_array(a, chunks=(16, 20))
    for name in ("img_as_ubyte", "img_as_float32", "img_as_int", "img_as_bool"):
        got = getattr(nu, name)(d)
        assert isinstance(got, da.Array)
        np.testing.assert_array_equal(got.compute(), getattr(sku, name)(a), err_msg=name)
    small = da.from_array(a[:16, :20], chunks=8)
    with pytest.warns(UserWarning, match="Downcasting"):
        got = nu.img_as_ubyte(small).compute()
    np.testing.assert_array_equal(got, np.asarray(a[:16, :20], np.uint8))
    assert nu.dtype_limits(d) == sku.dtype_limits(a)
    np.testing.assert_array_equal(nu.invert(d).compute(), sku.invert(a))


def test_dask_refusals_are_clear():
    da = pytest.importorskip("dask.array")
    d = da.zeros((20, 20), chunks=10)
    with pytest.raises(NotImplementedError):
        nu.random_noise(d, rng=0)
    with pytest.raises(NotImplementedError):
        nu.view_as_windows(d, 3)


def test_dask_compare_and_map(rng):
    da = pytest.importorskip("dask.array")
    a, b = rng.random((30, 40)), rng.integers(0, 255, (30, 40)).astype(np.uint8)
    for method in ("diff", "blend", "checkerboard"):
        got = nu.compare_images(da.from_array(a, chunks=(7, 9)), da.from_array(b, chunks=(11, 13)), method=method)
        assert isinstance(got, da.Array)
        np.testing.assert_array_equal(got.compute(), sku.compare_images(a, b, method=method))
    labels = rng.integers(0, 9, (30, 40))
    keys, values = np.array([1, 4, 7, 4]), np.array([0.5, 1.5, 2.5, 3.5])
    got = nu.map_array(da.from_array(labels, chunks=7), keys, values)
    np.testing.assert_array_equal(got.compute(), sku.map_array(labels, keys, values))


def test_float_casts_past_the_integer_range_are_the_hosts(engine):
    """NaN and float16's clip bound rounded past the integer maximum (65535 -> inf, 32767 -> 32768) convert as
    NumPy converts them on the host (scikit-image's x86 results: 0 and -32768), not as CUDA saturates."""
    image = np.array([0.0, 0.25, 0.5, 0.9995, 1.0, np.nan, -0.5, -1.0], np.float16)
    for name in ("img_as_uint", "img_as_int", "img_as_ubyte"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = getattr(sku, name)(image)
            got = getattr(nu, name)(to_engine(image, engine))
        assert type(got) is array_type(engine) and got.dtype == expected.dtype, name
        np.testing.assert_array_equal(to_host(got), expected, err_msg=name)
    # every integer dtype whose host conversions are the same wherever an element lies in NumPy's loops
    values = np.array([np.nan, np.inf, -np.inf, 0, 1.5, -0.5, -1.5, 300, 7e4, -4e4, 2.0**31, 2.0**32, 2.0**63,
                       2.0**64, -2.0**63, 1e30, 65504])
    for ftype in (np.float16, np.float32, np.float64):
        with np.errstate(over="ignore"):
            f = values.astype(ftype)
        for itype in (np.uint8, np.int8, np.int16, np.uint16, np.int32, np.int64, np.uint64):
            with np.errstate(invalid="ignore", over="ignore"):
                expected = f.astype(itype)
                got = _dtype.cast_like_host(to_engine(f, engine), itype)
            np.testing.assert_array_equal(to_host(got), expected, err_msg=f"{ftype.__name__} {itype.__name__}")


def test_label_points_of_one_pixel_keep_the_last(engine, rng):
    """Points rounded to one pixel: the label of the last of them, as NumPy's assignment leaves it."""
    coords = rng.random((2000, 2)) * 6   # many points on 7 x 7 pixels
    got = nu.label_points(to_engine(coords, engine), (8, 9))
    assert type(got) is array_type(engine)
    np.testing.assert_array_equal(to_host(got), sku.label_points(coords, (8, 9)))
    coords[5, 1] = np.nan   # cast to -2**63 on the host: NumPy's IndexError, not a label at 0 (CUDA's cast)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(IndexError) as ref:
            sku.label_points(coords, (8, 9))
        with pytest.raises(IndexError, match=str(ref.value)):
            nu.label_points(to_engine(coords, engine), (8, 9))


def test_map_array_takes_host_tables_beside_the_image(engine, rng):
    """NumPy input_vals/output_vals beside an image on the engine (moved there); an out= on another device
    than the image raises TypeError, a wrong-shaped one scikit-image's ValueError first."""
    labels = rng.integers(0, 9, (30, 40)).astype(np.int32)
    keys, values = np.array([1, 4, 7, 4]), np.array([0.5, 1.5, 2.5, 3.5])
    expected = sku.map_array(labels, keys, values)
    image = to_engine(labels, engine)
    got = nu.map_array(image, keys, values)
    assert type(got) is array_type(engine)
    np.testing.assert_array_equal(to_host(got), expected)
    out = to_engine(np.zeros(labels.shape), engine)
    assert nu.map_array(image, to_engine(keys, engine), values, out=out) is out
    np.testing.assert_array_equal(to_host(out), expected)
    with pytest.raises(ValueError, match="same shape"):
        nu.map_array(image, keys, values, out=np.zeros((2, 3)))
    if engine != "cpu":
        with pytest.raises(TypeError, match="cannot mix"):
            nu.map_array(image, keys, values, out=np.zeros(labels.shape))


def test_apply_parallel_takes_and_returns_dask(rng):
    da = pytest.importorskip("dask.array")
    a = rng.random((40, 50))
    d = da.from_array(a, chunks=(20, 25))
    lazy = nu.apply_parallel(np.sqrt, d)
    assert isinstance(lazy, da.Array)
    np.testing.assert_array_equal(lazy.compute(), sku.apply_parallel(np.sqrt, d).compute())
    np.testing.assert_array_equal(nu.apply_parallel(np.sqrt, a, compute=True), np.sqrt(a))


def test_lookfor_prints_the_mirrored_functions(capsys):
    nu.lookfor("regionprops")
    out = capsys.readouterr().out
    assert "ndimg.measure.regionprops (skimage.measure.regionprops)" in out
    assert "skimage.measure.regionprops_table" in out

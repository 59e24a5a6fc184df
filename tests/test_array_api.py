"""The Array API route's mechanics: host arrays of other Array API libraries (PyTorch CPU tensors,
array_api_strict arrays) run on the CPU engine through zero-copy DLPack views and come back in their library.
Every registry entry's values are checked by tests/test_registry_cases.py::test_array_api_host."""
import numpy as np
import pytest
import scipy.ndimage as ndi
import skimage

from ndimg import filters, measure
from ndimg import ndimage as nd
from ndimg._engine import api_to_numpy, host_namespace, library_of

torch = pytest.importorskip("torch")
xs = pytest.importorskip("array_api_strict")


@pytest.fixture
def image():
    return np.random.default_rng(0).random((24, 31)).astype(np.float32)


def test_torch_cpu_in_torch_cpu_out(image):
    t = torch.from_numpy(image)
    y = filters.gaussian(t, sigma=1.5)
    assert type(y) is torch.Tensor and y.device.type == "cpu" and y.dtype == torch.float32
    np.testing.assert_allclose(y.numpy(), skimage.filters.gaussian(image, sigma=1.5), rtol=1e-5, atol=1e-6)


def test_input_is_viewed_not_copied(image):
    t = torch.from_numpy(image)
    assert np.shares_memory(api_to_numpy(t), image)
    a = xs.asarray(image)
    v = api_to_numpy(a)
    assert type(v) is np.ndarray and v.dtype == np.float32 and np.array_equal(v, image)


def test_result_is_handed_back_not_copied():
    from ndimg._engine import HostCall, numpy_to_api

    r = np.arange(12.0).reshape(3, 4)
    y = numpy_to_api(r, HostCall(host_namespace(torch.zeros(1)), torch.device("cpu")))
    assert type(y) is torch.Tensor and y.data_ptr() == r.ctypes.data


def test_output_array_written_in_place(image):
    t = torch.from_numpy(image.copy())
    out = torch.empty_like(t)
    assert nd.correlate1d(t, [1.0, 2.0, 1.0], output=out) is out   # scipy returns `output`
    np.testing.assert_allclose(out.numpy(), ndi.correlate1d(image, [1.0, 2.0, 1.0]), rtol=1e-6)


@pytest.mark.parametrize("view", ["transposed", "strided"])
def test_non_contiguous_tensors(image, view):
    t = torch.from_numpy(image)
    t, ref = (t.T, image.T) if view == "transposed" else (t[::2, 1::3], image[::2, 1::3])
    assert not t.is_contiguous()
    y = nd.uniform_filter(t, size=3)
    assert type(y) is torch.Tensor
    np.testing.assert_allclose(y.numpy(), ndi.uniform_filter(ref, size=3), rtol=1e-6)


def test_reversed_result_view_comes_back():
    # a NumPy result with negative strides (PyTorch has none) comes back as a tensor of the same values
    from ndimg._engine import HostCall, numpy_to_api

    x = np.arange(12.0).reshape(3, 4)[::-1, ::-2]
    y = numpy_to_api(x, HostCall(host_namespace(torch.zeros(1)), torch.device("cpu")))
    assert type(y) is torch.Tensor
    np.testing.assert_array_equal(y.numpy(), x)


@pytest.mark.parametrize("dtype", [torch.bool, torch.float16, torch.uint8, torch.int16, torch.float64])
def test_dtypes_as_for_numpy(dtype):
    x = (np.random.default_rng(1).random((16, 17)) * 100).astype(str(dtype).split(".")[1])
    y = filters.sobel(torch.from_numpy(x))
    expected = skimage.filters.sobel(x)
    assert type(y) is torch.Tensor and y.numpy().dtype == expected.dtype
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-3 if dtype == torch.float16 else 1e-6, atol=1e-6)


def test_requires_grad_is_detached(image):
    t = torch.from_numpy(image).requires_grad_(True)
    y = filters.sobel(t)
    # ndimg's results are not differentiable: no autograd history, the values of the detached input's result
    assert type(y) is torch.Tensor and not y.requires_grad and y.grad_fn is None
    np.testing.assert_allclose(y.numpy(), skimage.filters.sobel(image), rtol=1e-5, atol=1e-6)


def test_bfloat16_refused_clearly():
    with pytest.raises(TypeError, match="NumPy"):
        filters.sobel(torch.zeros((4, 4), dtype=torch.bfloat16))


def test_scalars_stay_scalars(image):
    t = filters.threshold_otsu(torch.from_numpy(image))
    assert type(t) is type(skimage.filters.threshold_otsu(image))
    assert not isinstance(t, torch.Tensor)


def test_dict_of_columns(image):
    labels = skimage.measure.label(image > 0.6)
    got = measure.regionprops_table(torch.from_numpy(labels), properties=("label", "area", "centroid"))
    expected = skimage.measure.regionprops_table(labels, properties=("label", "area", "centroid"))
    assert list(got) == list(expected)
    for k in expected:
        assert type(got[k]) is torch.Tensor
        np.testing.assert_allclose(got[k].numpy(), expected[k])


def test_numpy_beside_a_tensor(image):
    # parameter arrays (weights, footprints) and masks as NumPy beside the tensor: the tensor's library comes back
    mask = image > 0.3
    y = filters.sobel(torch.from_numpy(image), mask=mask)
    assert type(y) is torch.Tensor
    np.testing.assert_allclose(y.numpy(), skimage.filters.sobel(image, mask=mask), rtol=1e-5, atol=1e-6)


def test_array_api_strict_in_and_out(image):
    a = xs.asarray(image)
    y = filters.gaussian(a, sigma=2)
    assert type(y) is type(a) and y.dtype == xs.float32
    np.testing.assert_allclose(np.from_dlpack(y), skimage.filters.gaussian(image, sigma=2), rtol=1e-5, atol=1e-6)
    labels = measure.label(a > 0.5)
    assert type(labels) is type(a)
    np.testing.assert_array_equal(np.from_dlpack(labels), skimage.measure.label(image > 0.5))


def test_mixing_two_array_api_libraries_raises(image):
    with pytest.raises(TypeError, match="mix"):
        filters.sobel(torch.from_numpy(image), mask=xs.asarray(image > 0.5))


def test_strict_array_on_another_device():
    dev = next((d for d in xs.__array_namespace_info__().devices() if d != xs.Device()), None)
    if dev is None:
        pytest.skip("array_api_strict has one device here")
    a = xs.asarray(np.ones((4, 4)), device=dev)
    y = filters.sobel(a)
    assert type(y) is type(a) and y.device == dev   # the input's device, as the Array API standard asks
    np.testing.assert_allclose(np.from_dlpack(y), skimage.filters.sobel(np.ones((4, 4))))


def test_detection():
    assert library_of(torch.zeros(2)) is None   # a host array: not a GPU library
    assert host_namespace(torch.zeros(2)) is not None
    assert host_namespace(xs.asarray([1.0])) is xs
    for x in (np.zeros(2), np.float32(1), [1.0, 2.0], 3.0, None, "a"):
        assert host_namespace(x) is None


def _descriptors():
    rng = np.random.default_rng(3)
    return rng.random((10, 32)) > 0.5, rng.random((12, 32)) > 0.5


_POLY = np.array([[1.0, 1.0], [1.0, 15.0], [15.0, 15.0], [15.0, 1.0]])
# public functions outside engine_aware (their own coordinate/descriptor handling): the registry (Entry.load)
# gives them the same route (ndimg._engine.array_api_host); (name, NumPy arguments, keywords)
OUTSIDE = [
    ("feature.match_descriptors", _descriptors(), {}),
    ("transform.matrix_transform", (_POLY, np.array([[1.0, 0.2, 3.0], [0.1, 1.0, -2.0], [0.0, 0.0, 1.0]])), {}),
    ("transform.pyramid_gaussian", (np.random.default_rng(4).random((32, 32)),), dict(max_layer=2)),
    ("draw.line_nd", (np.array([1.0, 2.0]), np.array([7.0, 11.0])), {}),
    ("morphology.pad_footprint", (np.ones((2, 3), dtype=bool),), {}),
]


@pytest.mark.parametrize("name, args, kw", OUTSIDE, ids=[o[0] for o in OUTSIDE])
def test_functions_outside_engine_aware(name, args, kw):
    import importlib

    import ndimg

    module, fn = name.split(".")
    ours = getattr(getattr(ndimg, module), fn)
    ref = getattr(importlib.import_module(f"skimage.{module}"), fn)
    got, expected = ours(*[torch.from_numpy(a) for a in args], **kw), ref(*args, **kw)
    if name == "transform.pyramid_gaussian":
        got, expected = list(got), list(expected)
    for g, x in zip(*((got, expected) if isinstance(expected, (tuple, list)) else ((got,), (expected,)))):
        assert type(g) is torch.Tensor, type(g)
        np.testing.assert_allclose(g.numpy(), x, rtol=1e-6)

"""radon, iradon, iradon_sart, order_angles_golden_ratio and the finite Radon transform against scikit-image
0.26 beyond the generated cases: a phantom at realistic sizes, every filter and interpolation, float32."""
import warnings

import numpy as np
import pytest

from helpers import cupy_or_skip
from skimage import data
from skimage import transform as sk

from ndimg import transform as nd


@pytest.fixture(scope="module")
def phantom():
    return data.shepp_logan_phantom()[::3, ::3]   # 134 x 134


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("circle", [True, False])
def test_radon_phantom_equals_reference(phantom, dtype, circle):
    image = phantom.astype(dtype)
    theta = np.linspace(0.0, 180.0, 61, endpoint=False)
    expected = sk.radon(image, theta, circle=circle)
    got = nd.radon(image, theta, circle=circle)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)   # the same samples summed in the same order


@pytest.mark.parametrize("interpolation", ["linear", "nearest", "cubic"])
@pytest.mark.parametrize("filter_name", ["ramp", "shepp-logan", "cosine", "hamming", "hann", None])
def test_iradon_every_filter_and_interpolation(phantom, interpolation, filter_name):
    theta = np.linspace(0.0, 180.0, 45, endpoint=False)
    sinogram = sk.radon(phantom, theta)
    expected = sk.iradon(sinogram, theta, filter_name=filter_name, interpolation=interpolation)
    got = nd.iradon(sinogram, theta, filter_name=filter_name, interpolation=interpolation)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_iradon_float32_not_circle(phantom):
    theta = np.linspace(0.0, 180.0, 30, endpoint=False)
    sinogram = sk.radon(phantom.astype(np.float32), theta, circle=False)
    expected = sk.iradon(sinogram, theta, circle=False, output_size=150)
    got = nd.iradon(sinogram, theta, circle=False, output_size=150)
    assert got.dtype == expected.dtype == np.float32
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_iradon_sart_two_iterations_equal_reference(phantom, dtype):
    theta = np.linspace(0.0, 180.0, 40, endpoint=False).astype(dtype)
    sinogram = sk.radon(phantom.astype(dtype), theta)
    expected = sk.iradon_sart(sinogram, theta)
    expected = sk.iradon_sart(sinogram, theta, image=expected, clip=(0, 1), projection_shifts=np.full(40, 0.25))
    got = nd.iradon_sart(sinogram, theta)
    got = nd.iradon_sart(sinogram, theta, image=got, clip=(0, 1), projection_shifts=np.full(40, 0.25))
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)   # each pixel gets its terms in the reference's order


def test_iradon_sart_warns_like_reference():
    sinogram = np.ones((9, 5), dtype=np.int32)
    with pytest.warns(UserWarning, match="Only floating point"):
        got = nd.iradon_sart(sinogram)
    with pytest.warns(UserWarning):
        expected = sk.iradon_sart(sinogram)
    np.testing.assert_array_equal(got, expected)


def test_radon_warns_outside_circle():
    image = np.ones((9, 9))
    with pytest.warns(UserWarning, match="reconstruction circle"):
        nd.radon(image)


@pytest.mark.parametrize("theta", [np.linspace(0, 180, 40, endpoint=False), np.array([3.0, 170.0, 91.0, 45.5, 0.0]),
                                   np.linspace(0, 360, 17), np.array([7.0])])
def test_order_angles_golden_ratio(theta):
    got = nd.order_angles_golden_ratio(theta)
    assert not isinstance(got, (list, tuple))   # a generator, as scikit-image's
    assert list(got) == list(sk.order_angles_golden_ratio(theta))


@pytest.mark.parametrize("n", [2, 5, 31, 59])
def test_frt2_ifrt2_round_trip(n):
    image = np.tri(n, dtype=np.int32)
    f = nd.frt2(image)
    np.testing.assert_array_equal(f, sk.frt2(image))
    assert f.dtype == np.uint32
    back = nd.ifrt2(f)
    np.testing.assert_array_equal(back, sk.ifrt2(f))
    np.testing.assert_array_equal(back, image)   # prime sizes invert exactly


@pytest.mark.parametrize("odd", [False, True])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("n", [7, 8, 13, 131])   # below, at and beyond NumPy's pairwise blocks of 8 and 128
def test_frt2_float_sums_truncate_as_reference(engine, rng, dtype, n, odd):
    """Float sums stored in uint32 show their last bit: each engine adds in NumPy's order (the projections
    row after row in the dtype, float16 too; the row sums pairwise), negative sums wrapping as NumPy casts.
    `odd`: NaN, infinite and huge sums too, whose conversion C leaves undefined: NumPy's, row by row."""
    from helpers import to_engine, to_host

    image = (rng.random((n, n)) * 4 - 1).astype(dtype)
    if dtype == np.complex64:
        image = image + 1j * image[::-1]
    if odd:
        image.flat[rng.choice(n * n, 4, replace=False)] = [np.nan, np.inf, -np.inf, np.finfo(dtype).max / 4]
    with warnings.catch_warnings():   # both cast complex sums to uint32 (ComplexWarning), NaN and inf
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = sk.frt2(image)
        got = nd.frt2(to_engine(image, engine))
    np.testing.assert_array_equal(to_host(got), expected)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cuda_engine_equals_cpu_engine(phantom, dtype):
    """The CUDA schedules run the CPU engine's arithmetic (no FMA contraction, host cosines): the same
    projections bit for bit; the back projections within the rounding of cuFFT against scipy.fft's ramp
    filter, cubic coefficients and SART's atomics within rounding."""
    cp = cupy_or_skip()
    image = phantom.astype(dtype)
    theta = np.linspace(0.0, 180.0, 37, endpoint=False)
    for circle in (True, False):
        np.testing.assert_array_equal(nd.radon(cp.asarray(image), theta, circle=circle).get(),
                                      nd.radon(image, theta, circle=circle))
    sinogram = nd.radon(image, theta)
    for interpolation in ("linear", "nearest"):
        cpu = nd.iradon(sinogram, theta, interpolation=interpolation)
        eps = np.finfo(dtype).eps
        np.testing.assert_allclose(nd.iradon(cp.asarray(sinogram), theta, interpolation=interpolation).get(), cpu,
                                   rtol=0, atol=64 * eps * np.abs(cpu).max())
    np.testing.assert_allclose(nd.iradon(cp.asarray(sinogram), theta, interpolation="cubic").get(),
                               nd.iradon(sinogram, theta, interpolation="cubic"), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(nd.iradon_sart(cp.asarray(sinogram), theta).get(), nd.iradon_sart(sinogram, theta),
                               rtol=1e-4, atol=1e-5)

"""The Fourier filters beyond the generated registry cases: output arrays, in-place and overlapping calls,
real FFTs of the frequencies' physics, scipy's C int for n, and Dask arrays chunked over real FFT output."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage as sndi

import ndimg.ndimage as ndi
from helpers import assert_close, to_engine, to_host

NAMES = ("fourier_gaussian", "fourier_uniform", "fourier_ellipsoid", "fourier_shift")
TOL = (1e-12, 1e-12)


def _complex(rng, shape, dtype=np.complex128):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


@pytest.mark.parametrize("name", NAMES)
def test_output_array_of_another_dtype_is_filled_and_returned(engine, rng, name):
    x = _complex(rng, (12, 17), np.complex64)
    expected = getattr(sndi, name)(x, 2.5, output=np.zeros(x.shape, np.complex128))
    out = to_engine(np.zeros(x.shape, np.complex128), engine)
    got = getattr(ndi, name)(to_engine(x, engine), 2.5, output=out)
    assert got is out
    assert_close(got, expected, TOL)


@pytest.mark.parametrize("name", NAMES)
def test_real_input_into_complex_and_narrower_outputs(engine, rng, name):
    x = rng.standard_normal((9, 14))
    outs = [np.complex64] + ([] if name == "fourier_shift" else [np.float32])
    for dt in outs:
        expected = getattr(sndi, name)(x, 1.5, n=26, axis=1, output=np.zeros(x.shape, dt))
        got = getattr(ndi, name)(to_engine(x, engine), 1.5, n=26, axis=1,
                                 output=to_engine(np.zeros(x.shape, dt), engine))
        assert_close(got, expected, (1e-6, 1e-6))
        if name != "fourier_shift" and dt == np.complex64:
            assert not to_host(got).imag.any()


@pytest.mark.parametrize("name", NAMES)
def test_fortran_output_of_c_input(engine, rng, name):
    x = _complex(rng, (7, 9, 11))
    expected = getattr(sndi, name)(x, (1.0, 2.0, 3.0), n=19, axis=2)
    out = to_engine(np.asfortranarray(np.zeros(x.shape, np.complex128)), engine)
    got = getattr(ndi, name)(to_engine(x, engine), (1.0, 2.0, 3.0), n=19, axis=2, output=out)
    assert_close(got, expected, TOL)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_in_place(engine, rng, name, dtype):
    if name == "fourier_shift" and dtype == np.float64:
        pytest.skip("the shift's output is complex")
    x = _complex(rng, (13, 8), dtype) if dtype == np.complex64 else rng.standard_normal((13, 8))
    expected = getattr(sndi, name)(x, 1.7)
    g = to_engine(x.copy(), engine)
    got = getattr(ndi, name)(g, 1.7, output=g)
    assert got is g
    assert_close(got, expected, (1e-6, 1e-6))


@pytest.mark.parametrize("name", NAMES)
def test_output_overlapping_the_input_reads_the_input_first(engine, rng, name):
    """A reversed view of the output's memory as the input: filtered as if it were a separate array."""
    x = _complex(rng, (10, 12))
    expected = getattr(sndi, name)(x[::-1].copy(), 2.0)
    g = to_engine(x.copy(), engine)
    got = getattr(ndi, name)(g[::-1], 2.0, output=g)
    assert_close(got, expected, TOL)


@pytest.mark.parametrize("size", [(3.0, 9.0), 40.0, (-150.0, 260.0)])
def test_ellipsoid_disc_at_large_radii(engine, rng, size):
    """The 2-D ellipsoid's disc transform 2 J1(r) / r at radii up to ~1500 (CUDA: its own J1; the device's
    is only 5e-12 accurate beyond 8)."""
    x = rng.uniform(-500, 500, (40, 33))
    expected = sndi.fourier_ellipsoid(x, size, n=64, axis=0)
    assert_close(ndi.fourier_ellipsoid(to_engine(x, engine), size, n=64, axis=0), expected, TOL)


def test_host_output_checks_in_scipy_order():
    x = np.ones((4, 5))
    ro = np.zeros((4, 5))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ndi.fourier_gaussian(x, 1, output=ro)
    with pytest.raises(RuntimeError, match="data type not supported"):
        ndi.fourier_gaussian(x, 1, output=np.zeros((4, 5), np.int32))
    with pytest.raises(RuntimeError, match="output shape not correct"):
        ndi.fourier_gaussian(x, 1, output=np.zeros((4, 4)))
    with pytest.raises(RuntimeError, match="output type not supported"):
        ndi.fourier_shift(x, 1, output=np.float64)
    big = np.zeros((4, 5), ">f8")   # another byte order: filled like scipy fills it
    assert ndi.fourier_uniform(x, 2, output=big) is big
    np.testing.assert_allclose(big, sndi.fourier_uniform(x, 2), rtol=1e-12, atol=1e-12)


def test_n_is_a_c_int_where_scipy_holds_it_in_one(rng):
    """scipy keeps the gaussian's and the shift's real-FFT length in a C int: 2**32 + 5 acts as 5."""
    x = _complex(rng, (6, 7))
    for name in NAMES:
        assert_close(getattr(ndi, name)(x, 1.3, n=2**32 + 5, axis=0),
                     getattr(sndi, name)(x, 1.3, n=2**32 + 5, axis=0), TOL)


@pytest.mark.parametrize("n", [40, 41])
def test_integer_shift_of_a_real_signal_rolls_it(engine, rng, n):
    """The frequencies' physics, not only scipy's numbers: a real FFT (even and odd lengths) shifted by 3
    along its real axis and transformed back is the signal rolled by 3."""
    x = rng.standard_normal((5, n))
    f = to_engine(np.fft.rfft(x, axis=1), engine)
    got = np.fft.irfft(to_host(ndi.fourier_shift(f, (0, 3), n=n, axis=1)), n=n, axis=1)
    np.testing.assert_allclose(got, np.roll(x, 3, axis=1), atol=1e-12)


def test_gaussian_of_a_complex_fft_is_a_periodic_gaussian_blur(rng):
    """fourier_gaussian of a delta's FFT is a normalized Gaussian of the given sigma (wrapped)."""
    d = np.zeros((64,))
    d[0] = 1
    g = np.fft.ifft(ndi.fourier_gaussian(np.fft.fft(d), 3.0)).real
    k = np.arange(64)
    k = np.minimum(k, 64 - k)
    ref = np.exp(-k**2 / 18.0)
    np.testing.assert_allclose(g, ref / ref.sum(), atol=1e-9)


# ---------------------------------------------------------------------------------------------------
# Dask: each chunk filtered with its place's frequencies
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("real_axis", [None, 0, 1])
def test_dask_chunks_of_an_fft_match_scipy(engine, rng, name, real_axis):
    da = pytest.importorskip("dask.array")
    img = rng.standard_normal((37, 30))
    if real_axis is None:
        f, kw = np.fft.fft2(img), {}
    else:
        f = np.fft.fft(np.fft.rfft(img, axis=real_axis), axis=1 - real_axis)
        kw = dict(n=img.shape[real_axis], axis=real_axis)
    param = (2.0, 3.5)
    expected = getattr(sndi, name)(f, param, **kw)
    chunks = tuple((5, 1, s - 9, 3) for s in f.shape)   # uneven, one of a single line
    d = da.from_array(to_engine(f, engine), chunks=chunks, asarray=False)
    lazy = getattr(ndi, name)(d, param, **kw)
    assert isinstance(lazy, da.Array) and lazy.chunks == d.chunks and lazy.dtype == expected.dtype
    assert_close(to_host(lazy.compute(scheduler="sync")), expected, TOL)


def test_dask_output_type_and_refusals(rng):
    da = pytest.importorskip("dask.array")
    f = da.from_array(_complex(rng, (12, 10), np.complex64), chunks=5)
    lazy = ndi.fourier_gaussian(f, 1.0, output=np.complex128)
    assert lazy.dtype == np.complex128
    assert_close(lazy.compute(), sndi.fourier_gaussian(f.compute(), 1.0, output=np.complex128), TOL)
    with pytest.raises(NotImplementedError, match="ndimg.ndimage.fourier_gaussian: output= arrays"):
        ndi.fourier_gaussian(f, 1.0, output=np.zeros((12, 10), np.complex64))
    # scipy's errors, raised when the call is built
    with pytest.raises(NotImplementedError, match="Only 1d, 2d and 3d"):
        ndi.fourier_ellipsoid(da.zeros((2, 3, 4, 5), chunks=2), 1.0)
    with pytest.raises(AttributeError):   # scipy's error for an output named by a string
        ndi.fourier_gaussian(f, 1.0, output="complex64")
    with pytest.raises(RuntimeError, match="sequence argument"):
        ndi.fourier_uniform(f, (1.0, 2.0, 3.0))
    with pytest.raises(np.exceptions.AxisError):
        ndi.fourier_shift(f, 1.0, axis=2)

"""transform.integral_image and the scan primitive under it (ndimg._prim.scan.cumsum) against NumPy's cumsum
and scikit-image 0.26: bit for bit on each engine (each line summed in index order, floats included),
with specials, every dtype funnel path, layouts and shapes that reach each schedule."""
import numpy as np
import pytest
import skimage.transform as st

import ndimg.transform as nt
from ndimg._prim import scan
from helpers import to_engine, to_host


def _same_bits(got, want):
    """Equal bits (signed zeros included), NaN where NaN: a NaN's sign and payload are the hardware's (x86's
    inf - inf is negative, CUDA's NaN is canonical)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind == "c":
        _same_bits(got.real.copy(), want.real.copy())
        _same_bits(got.imag.copy(), want.imag.copy())
    elif want.dtype.kind == "f":
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan)
        u = f"u{want.itemsize}"
        np.testing.assert_array_equal(got.view(u)[~nan], want.view(u)[~nan])
    else:
        np.testing.assert_array_equal(got, want)


# lines shorter, longer and not a multiple of the CUDA tile (32) or the CPU chunk (512) and chain count (4)
@pytest.mark.parametrize("shape", [(1,), (1000,), (33, 70), (5, 1030), (600, 701), (3, 1, 37), (4, 5, 6, 7)])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "uint16", "int32", "uint64", "int64", "float16",
                                   "float32", "float64"])
def test_integral_image_bit_equal(engine, rng, shape, dtype):
    image = rng.standard_normal(shape) * 1e3
    image = (image > 0) if dtype == "bool" else image.astype(dtype)
    if dtype.startswith("float"):   # specials keep their place: -0.0 first in a line, NaN and infinities on
        flat = image.reshape(-1)
        flat[::7] = -0.0
        flat[5::97] = np.nan
        flat[11::89] = np.inf
        flat[13::83] = -np.inf
        flat[1::3] *= 1e-9
    _same_bits(to_host(nt.integral_image(to_engine(image, engine))), st.integral_image(image))


@pytest.mark.parametrize("layout", ["f", "strided", "transposed"])
def test_integral_image_layouts(engine, rng, layout):
    base = rng.random((2 * 41 + 1, 2 * 67 + 1, 5)).astype(np.float32)
    image = {"f": np.asfortranarray(base), "strided": base[1::2, 1::2, ::2],
             "transposed": base.transpose(2, 0, 1)}[layout]
    _same_bits(to_host(nt.integral_image(to_engine(image, engine))), st.integral_image(image))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.uint8, np.int16, np.uint64, np.float16,
                                   bool, np.complex128])
@pytest.mark.parametrize("src", ["float64", "int16", "uint32"])
def test_integral_image_dtype_argument(engine, rng, dtype, src):
    """The output dtype as np.cumsum gives it, each element cast to it as NumPy casts (wrapping integers);
    bool, float16 and complex outputs are NumPy's own loop."""
    image = (rng.standard_normal((37, 45)) * 300).astype(src)
    with np.errstate(all="ignore"):
        want = st.integral_image(image, dtype=dtype)
        _same_bits(to_host(nt.integral_image(to_engine(image, engine), dtype=dtype)), want)


def test_integral_image_complex_and_0d(engine):
    image = np.arange(12.0).reshape(3, 4) * (1 + 0.5j)
    _same_bits(to_host(nt.integral_image(to_engine(image, engine))), st.integral_image(image))
    np.testing.assert_array_equal(to_host(nt.integral_image(to_engine(np.array(3.5), engine))), 3.5)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_scan_cumsum_in_place_and_casts(engine, rng, axis):
    """The primitive: in place, and float input into integer output (truncating casts, wrapping sums)."""
    a = rng.standard_normal((9, 70, 33)) * 1e6
    want = np.cumsum(a, axis=axis)
    got = to_engine(a.copy(), engine)
    _same_bits(to_host(scan.cumsum(got, axis=axis, out=got)), want)
    out = to_engine(np.empty(a.shape, np.int16), engine)
    with np.errstate(invalid="ignore"):
        _same_bits(to_host(scan.cumsum(to_engine(a, engine), axis=axis, out=out)),
                   np.cumsum(a, axis=axis, dtype=np.int16))


def test_scan_cumsum_refuses_bad_arguments():
    a = np.zeros((3, 4))
    with pytest.raises(TypeError, match="bool"):
        scan.cumsum(a, axis=0, out=np.zeros((3, 4), bool))
    with pytest.raises(ValueError, match="shape"):
        scan.cumsum(a, axis=0, out=np.zeros((4, 3)))
    with pytest.raises(ValueError, match="out of bounds"):
        import ndimg._core as core
        core.cumsum(a, np.zeros((3, 4)), 2)


@pytest.mark.parametrize("dtype", [None, np.complex128, np.complex64])
def test_integral_image_complex_input(engine, rng, dtype):
    """Complex sums add the real and the imaginary parts apart, each in index order."""
    image = (rng.standard_normal((30, 41, 5)) + 1j * rng.standard_normal((30, 41, 5))).astype(np.complex64)
    image.real.reshape(-1)[::11] = -0.0
    _same_bits(to_host(nt.integral_image(to_engine(image, engine), dtype=dtype)), st.integral_image(image, dtype=dtype))

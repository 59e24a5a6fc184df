"""scipy.ndimage's argument semantics that tools/ndimage-conformance found missing, against scipy itself:
complex input, weights and cval; `axes` errors; dtypes scipy refuses; other byte orders; 0-d input; scipy's
exception types for bad arguments."""
import warnings

import numpy as np
import pytest
import scipy.ndimage as ndi

from ndimg import ndimage as nd
from helpers import assert_close, assert_raises_like, to_engine, to_host

LINEAR = [  # (name, positional arguments after the input): filters scipy runs on complex input
    ("correlate1d", ([1.0, -2.0, 0.5],)),
    ("convolve1d", ([1.0, -2.0, 0.5, 3.0],)),
    ("correlate", (np.array([[1.0, 0.0, 2.0], [0.5, -1.0, 0.0]]),)),
    ("convolve", (np.array([[1.0, 0.0, 2.0], [0.5, -1.0, 0.0]]),)),
    ("gaussian_filter1d", (1.3,)),
    ("gaussian_filter", (0.9,)),
    ("uniform_filter1d", (4,)),
    ("uniform_filter", (3,)),
    ("sobel", ()),
    ("prewitt", ()),
    ("laplace", ()),
    ("gaussian_laplace", (1.1,)),
    ("gaussian_gradient_magnitude", (0.8,)),
]
RANK = [("minimum_filter1d", (3,)), ("maximum_filter1d", (3,)), ("minimum_filter", (3,)), ("maximum_filter", (3,)),
        ("median_filter", (3,)), ("rank_filter", (2, 3)), ("percentile_filter", (30, 3))]
AXES_FILTERS = [("correlate", (np.ones((3, 3, 3)),)), ("convolve", (np.ones((3, 3, 3)),)), ("gaussian_filter", (1.0,)),
                ("uniform_filter", (3,)), ("minimum_filter", (3,)), ("maximum_filter", (3,)), ("median_filter", (3,)),
                ("rank_filter", (2, 3)), ("percentile_filter", (30, 3)), ("laplace", ()),
                ("gaussian_laplace", (1.0,)), ("gaussian_gradient_magnitude", (1.0,))]


def _complex_image(rng, shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _check_complex(got, expected, name):
    got = to_host(got)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    tol = (1e-5, 1e-5) if expected.dtype == np.complex64 else (1e-10, 1e-12)
    assert_close(got.real, expected.real, tol)
    assert_close(got.imag, expected.imag, tol)


def _call(module, name, x, args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # 'promoting specified output dtype to complex'
        return getattr(module, name)(x, *args, **kw)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name,args", LINEAR)
def test_complex_input(engine, rng, name, args, dtype):
    x = _complex_image(rng, (9, 11), dtype)
    _check_complex(_call(nd, name, to_engine(x, engine), args), _call(ndi, name, x, args), name)
    kw = dict(mode="constant", cval=0.5 - 2j)
    _check_complex(_call(nd, name, to_engine(x, engine), args, **kw), _call(ndi, name, x, args, **kw), name)


@pytest.mark.parametrize("input_dtype", ["float32", "int16", "complex128"])
@pytest.mark.parametrize("name", ["correlate1d", "convolve1d", "correlate", "convolve"])
def test_complex_weights(engine, rng, name, input_dtype):
    x = (rng.standard_normal((8, 10)) * 10).astype(np.float64)
    x = (x + 1j * x[::-1] if input_dtype == "complex128" else x).astype(input_dtype)
    w = np.array([1 + 2j, -0.5j, 3.0])
    w = w if name.endswith("1d") else np.outer(w, [1, 1j])
    _check_complex(getattr(nd, name)(to_engine(x, engine), w), getattr(ndi, name)(x, w), name)


@pytest.mark.parametrize("output", [np.complex64, "complex128", np.float32, "float64", "array"])
def test_complex_output_argument(rng, output):
    """scipy promotes a real dtype given as a type to complex (with a warning), refuses one given as a string
    or an array."""
    x = _complex_image(rng, (6, 7), "complex128")
    for name, args in [("correlate", (np.ones((2, 2)),)), ("uniform_filter", (3,)), ("correlate1d", ([1, 2],))]:
        out = (lambda: np.zeros(x.shape, np.float64)) if output == "array" else (lambda: output)
        try:
            with warnings.catch_warnings(record=True) as ref_warnings:
                warnings.simplefilter("always")
                expected = getattr(ndi, name)(x, *args, output=out())
        except RuntimeError as e:
            with pytest.raises(RuntimeError, match=str(e)):
                getattr(nd, name)(x, *args, output=out())
            continue
        with warnings.catch_warnings(record=True) as our_warnings:
            warnings.simplefilter("always")
            got = getattr(nd, name)(x, *args, output=out())
        _check_complex(got, expected, name)
        assert [str(w.message) for w in our_warnings] == [str(w.message) for w in ref_warnings]


def test_complex_cval_with_real_input_raises():
    x, w = np.ones((3, 4)), np.array([[1, 0], [0, 1 + 1j]])
    for name in ["correlate", "convolve", "correlate1d", "convolve1d"]:
        assert_raises_like(lambda: getattr(ndi, name)(x, w, mode="constant", cval=5 + 1j, output=np.complex64),
                           lambda: getattr(nd, name)(x, w, mode="constant", cval=5 + 1j, output=np.complex64),
                           ValueError, "complex-valued cval")


@pytest.mark.parametrize("name,args", RANK)
def test_rank_family_refuses_complex(name, args):
    x = np.ones((5, 5), np.complex64)
    assert_raises_like(lambda: getattr(ndi, name)(x, *args), lambda: getattr(nd, name)(x, *args), TypeError,
                       "Complex type not supported")


@pytest.mark.parametrize("axes", [(1.5,), (0, 1, 2, 3), (3,), (-4,), (0, 0), "ab"])
@pytest.mark.parametrize("name,args", AXES_FILTERS)
def test_invalid_axes(name, args, axes):
    x = np.arange(6 * 8 * 12, dtype=np.float64).reshape(6, 8, 12)
    ref = assert_raises_like(lambda: getattr(ndi, name)(x, *args, axes=axes),
                             lambda: getattr(nd, name)(x, *args, axes=axes))
    with pytest.raises(ref.type, match=ref.value.args[0].replace("(", r"\(").replace(")", r"\)")):
        getattr(nd, name)(x, *args, axes=axes)


@pytest.mark.parametrize("dtype", ["float16", "object", "datetime64[s]"])
@pytest.mark.parametrize("name,args", LINEAR + RANK)
def test_refused_dtypes(name, args, dtype):
    x = np.ones((4, 4), dtype=dtype)
    ref = assert_raises_like(lambda: getattr(ndi, name)(x, *args), lambda: getattr(nd, name)(x, *args),
                             RuntimeError)
    with pytest.raises(RuntimeError) as ours:
        getattr(nd, name)(x, *args)
    assert str(ours.value) == str(ref.value)


@pytest.mark.parametrize("output", [np.float16, object])
@pytest.mark.parametrize("name,args", [("gaussian_filter", (1.0,)), ("correlate1d", ([1, 2],)),
                                       ("uniform_filter1d", (3,)), ("maximum_filter", (3,))])
def test_refused_output_dtypes(name, args, output):
    x = np.ones((4, 4))
    assert_raises_like(lambda: getattr(ndi, name)(x, *args, output=output),
                       lambda: getattr(nd, name)(x, *args, output=output), RuntimeError, "not supported")


@pytest.mark.parametrize("dtype", [">f4", ">f8", ">u2", ">i4"])
@pytest.mark.parametrize("name,args", LINEAR + RANK)
def test_big_endian(rng, name, args, dtype):
    """Other byte orders are read as scipy reads them; results native, as scipy's."""
    x = (rng.random((7, 9)) * 100).astype(dtype)
    expected = getattr(ndi, name)(x, *args)
    assert_close(getattr(nd, name)(x, *args), expected, (1e-5, 1e-6))
    out, ref_out = np.zeros(x.shape, ">" + x.dtype.str[1:]), np.zeros(x.shape, ">" + x.dtype.str[1:])
    got = getattr(nd, name)(x, *args, output=out)
    getattr(ndi, name)(x, *args, output=ref_out)
    assert got is out
    assert_close(out.astype(out.dtype.newbyteorder("=")), ref_out.astype(out.dtype.newbyteorder("=")), (1e-5, 1e-6))


def test_correlate_float32_input_float64_output(rng):
    x = (rng.random((7, 9)) * 100).astype(np.float32)
    w = np.array([[1.0, 0.0, 2.0], [0.5, -1.0, 0.0]])
    assert_close(nd.correlate(x, w, output=np.float64), ndi.correlate(x, w, output=np.float64), (1e-12, 1e-12))


@pytest.mark.parametrize("name,args", LINEAR + RANK)
def test_zero_dimensional(name, args):
    """0-d input: a result where scipy gives one (its n-D filters), scipy's exception where it raises."""
    args = tuple(np.float64(2.0) if isinstance(a, np.ndarray) else a for a in args)
    x = np.array(3.0, np.float32)
    try:
        expected = getattr(ndi, name)(x, *args)
    except Exception as e:
        with pytest.raises(type(e)):
            getattr(nd, name)(x, *args)
        return
    assert_close(getattr(nd, name)(x, *args), expected, (1e-6, 1e-6))


BAD = [  # calls scipy refuses, with the exception type it raises
    ("gaussian_filter", (1.0,), dict(cval="a")),
    ("uniform_filter", (3,), dict(cval=1j)),
    ("median_filter", (3,), dict(cval="a")),
    ("correlate", (np.ones((2, 2)),), dict(cval="a")),
    ("gaussian_filter", (1.0,), dict(order=1.5)),
    ("uniform_filter1d", (1.5,), {}),
    ("minimum_filter1d", (2.5,), {}),
    ("maximum_filter1d", (3,), dict(origin=0.5)),
    ("correlate1d", ([1, 2, 3],), dict(origin=1.5)),
    ("correlate1d", ([1, 2, 3, 4, 5],), dict(origin=0.5)),
    ("uniform_filter", (3,), dict(origin=0.5)),
]


@pytest.mark.parametrize("name,args", [("correlate", (np.ones((2, 2)),)), ("median_filter", (3,)),
                                       ("gaussian_filter", (1.0,)), ("maximum_filter1d", (3,))])
def test_output_list_and_str_input(name, args):
    """scipy takes a list as output (filled as an array, returned) and refuses str arrays with a TypeError."""
    x = np.arange(20.0).reshape(4, 5)
    out = [[0] * 5] * 4
    assert_close(getattr(nd, name)(x, *args, output=out), getattr(ndi, name)(x, *args, output=out), (1e-12, 1e-12))
    s = np.array([["ab", "cd"], ["ef", "gh"]])
    assert_raises_like(lambda: getattr(ndi, name)(s, *args), lambda: getattr(nd, name)(s, *args), TypeError,
                       "not understood")


@pytest.mark.parametrize("name,args,kw", BAD)
def test_bad_arguments_raise_like_scipy(name, args, kw):
    x = np.arange(20.0).reshape(4, 5)
    assert_raises_like(lambda: getattr(ndi, name)(x, *args, **kw), lambda: getattr(nd, name)(x, *args, **kw))

"""unwrap_phase on the CUDA engine against scikit-image 0.26 where the registry's cases do not reach: every
wrap_around combination in 2-D and 3-D (length-1 axes too), masks (through the core primitive: CuPy has no
masked arrays, a NumPy one stays on the CPU), tied reliabilities (constant ramps and flat images, whose merge
order comes from scikit-image's unstable quicksort), C's generator continued when rng is given, 1-D, and the
NaN/inf refusal. Exact to 1e-12: the same reliabilities, edge order, sort and merges."""
import warnings

import numpy as np
import pytest
import skimage.restoration as sr

from ndimg import _core
from ndimg import restoration as nr
from helpers import cupy_or_skip, to_host
from restoration.test_deconv_tv import _wrapped_in_zeros

RTOL = ATOL = 1e-12


def _compare(cp, x, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # the length-1 axis warning (tested on the CPU)
        want = sr.unwrap_phase(x, **kw)
        got = nr.unwrap_phase(cp.asarray(x), **kw)
    assert isinstance(got, cp.ndarray) and got.dtype == want.dtype
    np.testing.assert_allclose(to_host(got), want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("shape", [(23, 17), (30, 31), (2, 9), (1, 7), (9, 1), (7, 8, 9), (4, 1, 6), (3, 3, 3),
                                   (1, 5, 6)])
@pytest.mark.parametrize("noise", [0.0, 0.9, 2.5])
def test_every_wrap_around(rng, shape, noise):
    cp = cupy_or_skip()
    x = _wrapped_in_zeros(rng, shape, noise)
    for wrap in np.ndindex((2,) * len(shape)):
        _compare(cp, x, wrap_around=[bool(w) for w in wrap])


@pytest.mark.parametrize("shape", [(23, 17), (2, 9), (7, 8, 9), (4, 1, 6)])
@pytest.mark.parametrize("share", [0.2, 0.7, 1.0])
def test_masked_on_the_device(rng, shape, share):
    # the device schedule's mask (removed edges, masked pixels at the lowest unwrapped value), all masked too
    cp = cupy_or_skip()
    x = _wrapped_in_zeros(rng, shape, 0.9)
    mask = rng.random(shape) < share
    for wrap in np.ndindex((2,) * len(shape)):
        wrap = [bool(w) for w in wrap]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = sr.unwrap_phase(np.ma.array(x, mask=mask), wrap_around=wrap)
        out = cp.empty(shape, dtype=np.float64)
        flags = [False] * (3 - len(shape)) + wrap
        _core.unwrap_phase(cp.asarray(x), cp.asarray(mask.astype(np.uint8)), out, *flags, True,
                           stream=cp.cuda.get_current_stream().ptr)
        np.testing.assert_allclose(to_host(out), np.ma.getdata(want), rtol=RTOL, atol=ATOL)


def _ramp(shape, steps):
    """A wrapped linear ramp: its second differences, so its reliabilities, are equal over whole regions."""
    grids = np.meshgrid(*[np.arange(n, dtype=np.float64) for n in shape], indexing="ij")
    return np.angle(np.exp(1j * sum(s * g for s, g in zip(steps, grids))))


def _quantized(shape, step, seed):
    """A noisy wrapped bowl rounded to multiples of `step`: few distinct second differences, many ties."""
    grids = np.meshgrid(*[np.linspace(0, 1, n) for n in shape], indexing="ij")
    phase = sum(7 * (k + 3) * g ** 2 for k, g in enumerate(grids))
    phase = phase + 0.9 * np.random.default_rng(seed).standard_normal(shape)
    return np.angle(np.exp(1j * np.round(phase / step) * step))


# where a stable sort of the ties would differ from scikit-image's quicksort: the quantized bowls (some wraps)
# and the 64 x 64 ramp wrapped on both axes; the others tie without changing the result
TIED = {"quantized_half": _quantized((31, 29), 0.5, 1), "quantized_one": _quantized((31, 29), 1.0, 2),
        "quantized_3d": _quantized((7, 8, 9), 0.75, 3), "ramp": _ramp((40, 37), (0.9, 1.7)),
        "ramp_64": _ramp((64, 64), (2.0, 2.5)), "ramp_one_axis": _ramp((33, 20), (0.5, 0.0)),
        "zeros": np.zeros((19, 21)), "constant_3d": np.full((6, 7, 8), 2.0),
        "ramp_3d": _ramp((9, 10, 11), (0.4, 1.1, 2.9)),
        "steps": np.where(np.add.outer(np.arange(30), np.arange(31)) % 7 < 3, 3.0, -3.0)}


@pytest.mark.parametrize("name", list(TIED))
def test_tied_reliabilities(name):
    cp = cupy_or_skip()
    # a view into zeros: scikit-image's 2-D x-wrap reads two pixels before the image, which then read 0 as
    # ndimg's do
    pad = 64
    buf = np.zeros(TIED[name].size + 2 * pad)
    buf[pad:-pad] = TIED[name].ravel()
    x = buf[pad:-pad].reshape(TIED[name].shape)
    for wrap in np.ndindex((2,) * x.ndim):
        _compare(cp, x, wrap_around=[bool(w) for w in wrap])


def test_float32_and_rng_continuing(rng):
    # float32 in, float64 out as scikit-image; rng given: C's generator continues from the previous call
    cp = cupy_or_skip()
    x = _wrapped_in_zeros(rng, (31, 29), 0.9).astype(np.float32)
    want = [sr.unwrap_phase(x), sr.unwrap_phase(x, rng=3), sr.unwrap_phase(x, rng=3)]
    got = [nr.unwrap_phase(cp.asarray(x)), nr.unwrap_phase(cp.asarray(x), rng=3),
           nr.unwrap_phase(cp.asarray(x), rng=3)]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype == np.float64
        np.testing.assert_allclose(to_host(g), w, rtol=RTOL, atol=ATOL)


def test_1d(rng):
    cp = cupy_or_skip()
    x = np.angle(np.exp(1j * np.cumsum(rng.normal(0.5, 1.5, 200))))
    _compare(cp, x)


@pytest.mark.parametrize("values", [{(2, 3): np.nan}, {(2, 2): np.inf, (2, 4): -np.inf}], ids=["nan", "inf"])
def test_non_finite_refused(rng, values):
    # scikit-image's sort never returns on NaN reliabilities (inf - inf across a pixel gives one): ndimg
    # refuses them on the device too
    cp = cupy_or_skip()
    x = rng.random((5, 6))
    for at, value in values.items():
        x[at] = value
    with pytest.raises(ValueError, match="NaN reliabilities"):
        nr.unwrap_phase(cp.asarray(x))

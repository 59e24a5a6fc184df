"""ndimg's wavelet transform (restoration._dwt) against PyWavelets, bit for bit, and denoise_wavelet /
estimate_sigma through it against scikit-image where the generated cases do not reach: odd sizes, signals
shorter than the filter (the symmetric extension folded several times), long filters (db8, sym8, coif3, dmey),
biorthogonal ones, 3-D, every option.

Both of its paths run here: the C++ transform of NumPy arrays ("cpp", the CPU engine) and the array code
over `xp` that the CUDA engine runs ("xp": NumPy under another name, "dwt_numpy" for the denoisers);
"cuda" runs the denoiser cases on CuPy arrays."""
import types
import warnings

import numpy as np
import pytest
import pywt
import skimage.restoration as sk

import ndimg.restoration as nr
from helpers import CUDA_READY, check_result, to_engine
from ndimg.restoration import _denoise, _dwt

LONG = ["db8", "sym8", "coif3"]


def _same(got, expected):
    """PyWavelets' coefficients to the bit (its order of summation, each operation rounded on its own)."""
    assert type(got) is np.ndarray, type(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got.dtype, expected.dtype, got.shape,
                                                                          expected.shape)
    np.testing.assert_array_equal(got, expected)
    # and the bits: the signs of zeros too
    np.testing.assert_array_equal(np.ascontiguousarray(got).view(np.uint8),
                                  np.ascontiguousarray(expected).view(np.uint8))


class _NotNumPy(types.ModuleType):
    """NumPy under another name: the code for CuPy (`xp is not np`: ndimg's transform over `xp`, the median's
    NaN and empty cases, unblocked thresholds) runs on NumPy arrays."""

    def __getattr__(self, name):
        return getattr(np, name)


@pytest.fixture(params=["cpp", "xp"])
def path(request, monkeypatch):
    """Which of _dwt's transforms a NumPy array takes: the C++ one (the CPU engine's) or the array code."""
    if request.param == "xp":
        xp = _NotNumPy("xp")
        monkeypatch.setattr(_dwt, "xp_of", lambda *arrays: xp)
    return request.param


def _signal(rng, shape, dtype):
    """Random values of both signs, with zeros and negative zeros among them (the signs of zero sums)."""
    x = (rng.random(shape) - 0.5) * 100
    x.ravel()[::5] = 0
    x.ravel()[1::5] = -0.0
    return x.astype(dtype)


@pytest.mark.parametrize("name", pywt.wavelist(kind="discrete"))
def test_dwt_and_idwt_of_every_discrete_wavelet(path, name):
    """One level along the last, first and middle axes, lengths from 1 (the extension folds over many times) to
    longer than the filter; either band missing in the synthesis."""
    w = pywt.Wavelet(name)
    rng = np.random.default_rng(0)
    for n in (1, 2, 5, 8, 33):
        for dtype in (np.float64, np.float32):
            for shape, axis in (((3, n), 1), ((n, 4), 0), ((2, n, 3), 1)):
                x = _signal(rng, shape, dtype)
                for got, expected in zip(_dwt.dwt(x, w, axis=axis), pywt.dwt(x, w, axis=axis)):
                    _same(got, expected)
                ca, cd = pywt.dwt(x, w, axis=axis)
                _same(_dwt.idwt(ca, cd, w, axis), pywt.idwt(ca, cd, w, axis=axis))
                _same(_dwt.idwt(None, cd, w, axis), pywt.idwt(None, cd, w, axis=axis))
                _same(_dwt.idwt(ca, None, w, axis), pywt.idwt(ca, None, w, axis=axis))
        z = (rng.random((2, n)) + 1j * rng.random((2, n))).astype(np.complex64)   # estimate_sigma takes complex
        for got, expected in zip(_dwt.dwt(z, w, axis=-1), pywt.dwt(z, w, axis=-1)):
            _same(got, expected)


@pytest.mark.parametrize("name", ["db1", "db2", "bior3.5", "rbio2.8", "dmey"] + LONG)
@pytest.mark.parametrize("shape", [(17, 23), (5, 6), (2, 3), (9, 10, 11), (1, 7, 4)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.uint8, np.float16])
def test_wavedecn_waverecn_match_pywavelets(path, name, shape, dtype):
    w = pywt.Wavelet(name)
    x = (np.random.default_rng(1).random(shape) * 100).astype(dtype)
    for level in (0, 1, 3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # levels beyond dwtn_max_level: checked below
            expected, got = pywt.wavedecn(x, w, level=level), _dwt.wavedecn(x, wavelet=w, level=level)
        assert len(got) == len(expected)
        if level:
            _same(got[0], expected[0])
        for g, e in zip(got[1:], expected[1:]):
            assert list(g) == list(e)
            for key in e:
                _same(g[key], e[key])
        if level:
            _same(_dwt.waverecn(got, w), pywt.waverecn(expected, w))
    # mixed band dtypes (soft thresholds of float32 bands by a float64 value) upcast as PyWavelets does
    coeffs = pywt.wavedecn(x, w, level=1)
    coeffs[1] = {k: v.astype(np.float64) for k, v in coeffs[1].items()}
    _same(_dwt.waverecn(coeffs, w), pywt.waverecn(coeffs, w))


def test_cpp_transform_refuses_bad_arrays():
    """The C++ transform's own checks: a clear exception, never a write out of bounds."""
    from ndimg import _core

    x, taps = np.ones((4, 5), np.float32), ([0.5, 0.5], [0.5, -0.5])
    out = (np.empty((4, 3), np.float32), np.empty((4, 3), np.float32))
    _core.wavelet_dwt(x, *out, 1, *taps)
    np.testing.assert_array_equal(out[0][:, 1], 1)
    with pytest.raises(ValueError, match="shape"):
        _core.wavelet_dwt(x, np.empty((4, 2), np.float32), out[1], 1, *taps)
    with pytest.raises(ValueError, match="dtype"):
        _core.wavelet_dwt(x, *(o.astype(np.float64) for o in out), 1, *taps)
    with pytest.raises(ValueError, match="axis"):
        _core.wavelet_dwt(x, *out, 2, *taps)
    with pytest.raises(ValueError, match="even"):
        _core.wavelet_dwt(x, *out, 1, [1.0] * 3, [1.0] * 3)
    with pytest.raises(ValueError, match="no samples"):
        _core.wavelet_dwt(np.ones((4, 0), np.float32), *out, 1, *taps)
    with pytest.raises(TypeError, match="float32 or float64"):
        _core.wavelet_dwt(x.astype(np.int32), *(o.astype(np.int32) for o in out), 1, *taps)
    with pytest.raises(ValueError, match="C-contiguous"):
        _core.wavelet_dwt(np.ones((4, 10), np.float32)[:, ::2], *out, 1, *taps)
    with pytest.raises(ValueError, match="shape"):
        _core.wavelet_idwt(x, x, np.empty((4, 8), np.float32), 1, *taps)
    with pytest.raises(ValueError, match="shape"):
        _core.wavelet_idwt(x, np.ones((4, 6), np.float32), np.empty((4, 10), np.float32), 1, *taps)
    with pytest.raises(ValueError, match="at least one"):
        _core.wavelet_idwt(x, x, np.empty((4, 10), np.float32), 1, [], [])


def test_wavedecn_level_checks_as_pywavelets():
    x, w = np.ones((8, 9)), pywt.Wavelet("db2")
    with pytest.raises(ValueError, match="too low"):
        _dwt.wavedecn(x, wavelet=w, level=-1)
    with pytest.warns(UserWarning, match="Level value of 5 is too high"):
        _dwt.wavedecn(x, wavelet=w, level=5)
    with pytest.warns(UserWarning, match="Level value of 5 is too high"):
        pywt.wavedecn(x, w, level=5)


@pytest.fixture(params=["cpu", "dwt_numpy", pytest.param("cuda", marks=pytest.mark.skipif(not CUDA_READY,
                                                                                           reason="no CUDA device"))])
def engine(request, monkeypatch):
    """The engine a case runs on: dwt_numpy is the CUDA engine's code on NumPy arrays."""
    if request.param == "cpu":
        return "cpu"
    if request.param == "dwt_numpy":
        xp = _NotNumPy("xp")
        for module in (_denoise, _dwt):
            monkeypatch.setattr(module, "xp_of", lambda *arrays: xp)
        return "cpu"
    return "cuda"


def _compare(engine, name, image, **kw):
    reference, ours = getattr(sk, name), getattr(nr, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # non-orthogonal wavelets, too many levels: both warn alike
        expected = reference(image, **kw)
        got = ours(to_engine(image, engine), **kw)
    check_result(f"restoration.{name}", got, expected, engine)
    return got


def _noisy(shape, dtype=np.float64, seed=3):
    rng = np.random.default_rng(seed)
    grid = np.indices(shape).sum(0) / sum(shape)
    image = np.clip(grid + rng.normal(0, 0.1, shape), 0, 1)
    return (image * 255).astype(dtype) if np.dtype(dtype).kind == "u" else image.astype(dtype)


@pytest.mark.parametrize("wavelet", ["db1", "db2", "bior3.5", "dmey"] + LONG)
@pytest.mark.parametrize("shape", [(37, 29), (6, 5), (13, 8, 11)])
def test_denoise_wavelet_wavelets_and_odd_shapes(engine, wavelet, shape):
    _compare(engine, "denoise_wavelet", _noisy(shape), wavelet=wavelet)


@pytest.mark.parametrize("kw", [dict(method="VisuShrink"), dict(mode="hard"), dict(mode="hard", method="VisuShrink"),
                                dict(sigma=0.08), dict(sigma=0.08, rescale_sigma=False), dict(wavelet_levels=3),
                                dict(wavelet_levels=2, wavelet="sym8"),
                                dict(wavelet_levels=6, wavelet="coif3")])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.uint8])
def test_denoise_wavelet_options(engine, kw, dtype):
    _compare(engine, "denoise_wavelet", _noisy((45, 38), dtype), **kw)


@pytest.mark.parametrize("kw", [dict(), dict(convert2ycbcr=True), dict(convert2ycbcr=True, sigma=[0.05, 0.1, 0.02]),
                                dict(sigma=0.1, method="VisuShrink", wavelet="sym8"),
                                dict(convert2ycbcr=True, rescale_sigma=False, sigma=0.1)])
@pytest.mark.parametrize("dtype", [np.float64, np.uint8])
def test_denoise_wavelet_channels(engine, kw, dtype):
    _compare(engine, "denoise_wavelet", _noisy((27, 33, 3), dtype), channel_axis=-1, **kw)
    _compare(engine, "denoise_wavelet", np.moveaxis(_noisy((21, 19, 3), dtype), -1, 0), channel_axis=0,
             **{"wavelet": "db4", **kw})


def test_denoise_wavelet_3d_channels(engine):
    _compare(engine, "denoise_wavelet", _noisy((9, 12, 11, 2)), channel_axis=-1, wavelet="db3")


@pytest.mark.parametrize("shape", [(37, 29), (5, 6), (13, 8, 11), (3, 40)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.uint8, np.float16])
def test_estimate_sigma(engine, shape, dtype):
    _compare(engine, "estimate_sigma", _noisy(shape, dtype))


def test_estimate_sigma_ignores_zero_details_and_channels(engine):
    image = _noisy((40, 36))
    image[:, :20] = 0   # a masked region: its zero details are left out of the median
    _compare(engine, "estimate_sigma", image)
    _compare(engine, "estimate_sigma", np.zeros((8, 9)))   # no details left: NaN
    image[30, 30] = np.nan   # NaN among the details: NaN
    _compare(engine, "estimate_sigma", image)
    rgb = _noisy((23, 31, 3))
    _compare(engine, "estimate_sigma", rgb, channel_axis=-1)
    _compare(engine, "estimate_sigma", rgb, channel_axis=-1, average_sigmas=True)
    _compare(engine, "estimate_sigma", np.moveaxis(rgb, -1, 0), channel_axis=0, average_sigmas=True)

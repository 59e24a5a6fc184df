"""restoration's deconvolutions, total-variation denoisers and biharmonic inpainting against scikit-image 0.26:
the corners the generated registry cases do not reach (both convolution paths, the sampler's chain, the
transfer functions, channel handling, scikit-image's quirks kept on purpose)."""
import warnings

import numpy as np
import pytest
import scipy.ndimage as sndi
import skimage.restoration as sr
from skimage.restoration import uft as sk_uft

from ndimg import restoration as nr
from ndimg.restoration import uft as nd_uft
from helpers import assert_close, assert_raises_like, random_image, to_engine, to_host

TOL = (1e-5, 1e-7)


def _blurred(rng, shape, k, dtype="float64"):
    psf = rng.random((k,) * len(shape)) + 0.1
    psf /= psf.sum()
    x = sndi.convolve(rng.random(shape), psf, mode="reflect") + 0.01 * rng.standard_normal(shape)
    return x.astype(dtype), psf


# -- richardson_lucy -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,k", [((40,), 5), ((33, 28), 4), ((33, 28), 5), ((9, 10, 11), 3),
                                     ((9, 10, 11), 2), ((30, 31), 11), ((12, 11, 13), 5)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_richardson_lucy_direct_and_fft_paths(engine, rng, shape, k, dtype):
    # up to 100 taps the psf is summed directly, beyond by FFT; odd and even psf sizes centre differently
    x, psf = _blurred(rng, shape, k, dtype)
    got = nr.richardson_lucy(to_engine(x, engine), to_engine(psf, engine), num_iter=7)
    assert_close(to_host(got), sr.richardson_lucy(x, psf, num_iter=7), (1e-4, 1e-6))


@pytest.mark.parametrize("kw", [dict(clip=False), dict(filter_epsilon=0.3), dict(filter_epsilon=0.3, clip=False)])
def test_richardson_lucy_options(engine, rng, kw):
    x, psf = _blurred(rng, (25, 21), 3)
    x *= 3   # values above 1: clip matters
    got = nr.richardson_lucy(to_engine(x, engine), to_engine(psf, engine), num_iter=4, **kw)
    assert_close(to_host(got), sr.richardson_lucy(x, psf, num_iter=4, **kw), TOL)


def test_richardson_lucy_integer_image_unscaled(rng):
    # scikit-image casts integers to float64 without img_as_float's scaling
    x = rng.integers(0, 200, (20, 17)).astype(np.uint8)
    psf = np.full((3, 3), 1 / 9)
    got = nr.richardson_lucy(x, psf, num_iter=3, clip=False)
    assert got.dtype == np.float64
    assert_close(got, sr.richardson_lucy(x, psf, num_iter=3, clip=False), TOL)


def test_richardson_lucy_edges(rng):
    x = rng.random((8, 9))
    assert_raises_like(lambda: sr.richardson_lucy(x, np.ones(3)), lambda: nr.richardson_lucy(x, np.ones(3)),
                       ValueError, match="same dimensionality")
    empty = np.zeros((0, 5))
    assert nr.richardson_lucy(empty, np.ones((3, 3))).shape == sr.richardson_lucy(empty, np.ones((3, 3))).shape


# -- wiener, unsupervised_wiener, uft ------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(17, 23), (16, 20), (7, 9, 11), (30,)])
@pytest.mark.parametrize("is_real", [True, False])
@pytest.mark.parametrize("dim", [None, 1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ir2tf(rng, shape, is_real, dim, dtype):
    # small responses are transformed axis by axis: against scikit-image's FFT of the padded response
    for k in (3, 4):
        h = rng.random((k,) * len(shape)).astype(dtype)
        want = sk_uft.ir2tf(h, shape, dim=dim, is_real=is_real)
        got = nd_uft.ir2tf(h, shape, dim=dim, is_real=is_real)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert_close(got, want, (1e-5, 1e-6) if dtype == "float32" else (1e-12, 1e-13))


def test_laplacian():
    for ndim, shape in ((1, (9,)), (2, (6, 7)), (3, (4, 5, 6))):
        for is_real in (True, False):
            tf, impr = nd_uft.laplacian(ndim, shape, is_real=is_real)
            want_tf, want_impr = sk_uft.laplacian(ndim, shape, is_real=is_real)
            np.testing.assert_array_equal(impr, want_impr)
            assert_close(tf, want_tf, (1e-12, 1e-13))


def test_wiener_reg_and_otf(engine, rng):
    x, psf = _blurred(rng, (24, 26), 5)
    _, lap = sk_uft.laplacian(2, x.shape)
    otf = sk_uft.ir2tf(psf, x.shape, is_real=False)
    want = sr.wiener(x, otf, 0.05, reg=lap, is_real=False)
    got = nr.wiener(to_engine(x, engine), to_engine(otf, engine), 0.05, reg=to_engine(lap, engine), is_real=False)
    assert_close(to_host(got), want, TOL)
    got = nr.wiener(to_engine(x, engine), to_engine(psf, engine), 0.5, clip=False)
    assert_close(to_host(got), sr.wiener(x, psf, 0.5, clip=False), TOL)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", [dict(rng=3), dict(rng=7, is_real=False),
                                dict(rng=11, clip=False, user_params=dict(threshold=1e-3, min_num_iter=5, burnin=3))])
def test_unsupervised_wiener_chain(engine, rng, dtype, kw):
    # the sampler's draws come from NumPy's generator in scikit-image's order: the same chain for a seed
    x, psf = _blurred(rng, (30, 28), 5, dtype)
    want, want_chains = sr.unsupervised_wiener(x, psf, **kw)
    got, chains = nr.unsupervised_wiener(to_engine(x, engine), to_engine(psf, engine), **kw)
    assert len(chains["noise"]) == len(want_chains["noise"])
    assert_close(np.asarray(chains["noise"]), np.asarray(want_chains["noise"]), (1e-4, 0))
    assert_close(np.asarray(chains["prior"]), np.asarray(want_chains["prior"]), (1e-4, 0))
    assert_close(to_host(got), want, (1e-4, 1e-6))


def test_unsupervised_wiener_callback(rng):
    x, psf = _blurred(rng, (16, 18), 3)
    seen, want_seen = [], []
    nr.unsupervised_wiener(x, psf, rng=1, user_params=dict(callback=lambda s: seen.append(s.copy()), max_num_iter=35))
    sr.unsupervised_wiener(x, psf, rng=1, user_params=dict(callback=lambda s: want_seen.append(s.copy()),
                                                           max_num_iter=35))
    assert len(seen) == len(want_seen)
    assert_close(seen[-1], want_seen[-1], (1e-6, 1e-9))


# -- denoise_tv_chambolle, denoise_tv_bregman ----------------------------------------------------------------

@pytest.mark.parametrize("shape", [(31,), (19, 24), (8, 9, 10), (3, 5, 4, 6)])
@pytest.mark.parametrize("kw", [dict(), dict(weight=0.4, eps=1e-6, max_num_iter=60), dict(weight=0.02, max_num_iter=3)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8"])
def test_tv_chambolle(engine, rng, shape, kw, dtype):
    x = random_image(rng, shape, dtype)
    got = nr.denoise_tv_chambolle(to_engine(x, engine), **kw)
    assert_close(to_host(got), sr.denoise_tv_chambolle(x, **kw), (1e-5, 1e-6))


@pytest.mark.parametrize("channel_axis", [0, 1, -1])
def test_tv_chambolle_channels(engine, rng, channel_axis):
    x = random_image(rng, (12, 5, 3), "float32")
    got = nr.denoise_tv_chambolle(to_engine(x, engine), weight=0.2, channel_axis=channel_axis)
    assert_close(to_host(got), sr.denoise_tv_chambolle(x, weight=0.2, channel_axis=channel_axis), (1e-5, 1e-6))


def test_tv_chambolle_refusals(rng):
    x = rng.random((6, 7))
    assert_raises_like(lambda: sr.denoise_tv_chambolle(x, max_num_iter=0),
                       lambda: nr.denoise_tv_chambolle(x, max_num_iter=0), UnboundLocalError)
    assert_raises_like(lambda: sr.denoise_tv_chambolle(np.float64(0.5)),
                       lambda: nr.denoise_tv_chambolle(np.float64(0.5)), ZeroDivisionError)


@pytest.mark.parametrize("shape", [(20, 23), (9, 8, 3), (6, 7, 5)])
@pytest.mark.parametrize("kw", [dict(), dict(weight=1.5, isotropic=False), dict(max_num_iter=4, eps=0.0),
                                dict(channel_axis=-1), dict(channel_axis=0, weight=2.0), dict(channel_axis=1)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8"])
def test_tv_bregman(rng, shape, kw, dtype):
    if "channel_axis" in kw and len(shape) == 2:
        pytest.skip("channels need a third axis")
    x = random_image(rng, shape, dtype)
    # with channel_axis, scikit-image reuses one output per channel: a channel's split variables start from
    # the previous channel's result, which ndimg keeps (equal to the last bit)
    assert_close(nr.denoise_tv_bregman(x, **kw), sr.denoise_tv_bregman(x, **kw), (1e-5, 1e-6))


def test_tv_bregman_refusals(rng):
    x = rng.random((6, 7)).astype(np.float16)
    assert_raises_like(lambda: sr.denoise_tv_bregman(x), lambda: nr.denoise_tv_bregman(x), TypeError)
    with pytest.raises(IndexError):   # scikit-image reads past the image here (no bounds checks)
        nr.denoise_tv_bregman(np.ones((1, 5)))


# -- inpaint_biharmonic --------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("split", [False, True])
def test_inpaint_large_holes(rng, dtype, split):
    # float32's biharmonic systems are ill-conditioned: the right-hand side summed in scikit-image's order and
    # the same SuperLU ordering give its result to the last bits
    x = rng.random((90, 80)).astype(dtype)
    mask = np.zeros(x.shape, bool)
    mask[10:40, 20:55] = True
    mask[60:64, :] = True
    mask[80:, 70:] = True
    got = nr.inpaint_biharmonic(x, mask, split_into_regions=split)
    assert_close(got, sr.inpaint_biharmonic(x, mask, split_into_regions=split), (1e-5, 1e-6))


@pytest.mark.parametrize("shape,channel_axis", [((14, 12, 3), 0), ((14, 12, 3), 1), ((14, 12, 3), -1),
                                                ((6, 7, 8, 2), -1), ((6, 7, 8), None), ((40,), None)])
@pytest.mark.parametrize("split", [False, True])
def test_inpaint_shapes_and_channels(rng, shape, channel_axis, split):
    x = random_image(rng, shape, "uint8")
    spatial = shape if channel_axis is None else tuple(np.delete(shape, channel_axis))
    mask = rng.random(spatial) < 0.25
    kw = dict(channel_axis=channel_axis, split_into_regions=split)
    assert_close(nr.inpaint_biharmonic(x, mask, **kw), sr.inpaint_biharmonic(x, mask, **kw), (1e-6, 1e-9))


def test_inpaint_inf_known_neighbour(rng):
    x = rng.random((12, 13))
    x[3, 4] = np.inf
    mask = np.zeros(x.shape, bool)
    mask[5:8, 5:9] = True
    assert_close(nr.inpaint_biharmonic(x, mask), sr.inpaint_biharmonic(x, mask), (1e-6, 1e-9))


def test_inpaint_refusals(rng):
    x = rng.random((5, 6))
    for args in [(x, np.ones((5, 6), bool)), (x, np.zeros((5, 5), bool)), (np.zeros(()), np.zeros(()))]:
        assert_raises_like(lambda: sr.inpaint_biharmonic(*args), lambda: nr.inpaint_biharmonic(*args), ValueError)
    masked = np.ma.array(x, mask=np.zeros(x.shape, bool))
    assert_raises_like(lambda: sr.inpaint_biharmonic(masked, np.zeros(x.shape)),
                       lambda: nr.inpaint_biharmonic(masked, np.zeros(x.shape)), TypeError)


# -- unwrap_phase --------------------------------------------------------------------------------------------

def _wrapped_in_zeros(rng, shape, noise):
    """A wrapped bowl of several periods plus noise, as a view into zeros: scikit-image's 2-D x-wrap reads
    two pixels before the image (and length-1 axes past it), which then read 0 as ndimg's do."""
    grids = np.meshgrid(*[np.linspace(0, 1, n) for n in shape], indexing="ij")
    phase = sum(7 * (k + 3) * g ** 2 for k, g in enumerate(grids)) + noise * rng.standard_normal(shape)
    pad = 4096
    buf = np.zeros(int(np.prod(shape)) + 2 * pad)
    buf[pad:-pad] = np.angle(np.exp(1j * phase)).ravel()
    return buf[pad:-pad].reshape(shape)


@pytest.mark.parametrize("shape", [(23, 17), (30, 31), (2, 9), (1, 7), (7, 8, 9), (4, 1, 6), (3, 3, 3)])
@pytest.mark.parametrize("noise", [0.0, 0.9, 2.5])
@pytest.mark.parametrize("masked", [False, True])
def test_unwrap_every_wrap_around(rng, shape, noise, masked):
    # the same reliabilities, edge order, sort and merges as scikit-image: equal results under every wrap
    x = _wrapped_in_zeros(rng, shape, noise)
    if masked:
        x = np.ma.array(x, mask=rng.random(shape) < 0.2)
    for wrap in np.ndindex((2,) * len(shape)):
        wrap = [bool(w) for w in wrap]
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            got = nr.unwrap_phase(x, wrap_around=wrap)
            want = sr.unwrap_phase(x, wrap_around=wrap)
        assert [str(w.message) for w in seen[:len(seen) // 2]] == [str(w.message) for w in seen[len(seen) // 2:]]
        assert bool(seen) == (1 in shape)   # the length-1 axis warning, as scikit-image's
        assert type(got) is type(want)
        np.testing.assert_array_equal(np.ma.getdata(got), np.ma.getdata(want))
        if masked:
            np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))


def test_unwrap_1d(rng):
    x = np.angle(np.exp(1j * np.cumsum(rng.normal(0.5, 1.5, 200))))
    np.testing.assert_array_equal(nr.unwrap_phase(x), sr.unwrap_phase(x))


def test_unwrap_refusals(rng):
    x = rng.random((5, 6))
    for kw in [dict(wrap_around=[True]), dict(wrap_around="yes"), dict(wrap_around=3)]:
        assert_raises_like(lambda: sr.unwrap_phase(x, **kw), lambda: nr.unwrap_phase(x, **kw), ValueError)
    for bad_input in [np.zeros((2, 2, 2, 2)), np.ma.array(np.zeros(4))]:
        assert_raises_like(lambda: sr.unwrap_phase(bad_input), lambda: nr.unwrap_phase(bad_input), ValueError)
    assert_raises_like(lambda: sr.unwrap_phase(np.zeros(4), wrap_around=True),
                       lambda: nr.unwrap_phase(np.zeros(4), wrap_around=True), ValueError)
    # scikit-image's sort never returns on NaN reliabilities: ndimg refuses them
    x[2, 3] = np.nan
    with pytest.raises(ValueError, match="NaN reliabilities"):
        nr.unwrap_phase(x)

"""restoration's denoisers where the generated cases cannot say it: calibrate_denoiser (it returns a
function), the patch primitives' corner cases, deprecations, larger shapes against scikit-image."""
import warnings

import numpy as np
import pytest
import skimage.restoration as sk

import ndimg.restoration as nr


@pytest.fixture
def noisy():
    rng = np.random.default_rng(5)
    clean = np.add.outer(np.linspace(0, 1, 40), np.linspace(0, 0.5, 36))
    return np.clip(clean + rng.normal(0, 0.1, clean.shape), 0, 1)


def test_calibrate_denoiser_matches_reference(noisy):
    params = {"sigma": [0.05, 0.1, 0.2]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f_ref, (p_ref, l_ref) = sk.calibrate_denoiser(noisy, sk.denoise_wavelet, params, extra_output=True)
        f_got, (p_got, l_got) = nr.calibrate_denoiser(noisy, nr.denoise_wavelet, params, extra_output=True)
        assert p_got == p_ref
        np.testing.assert_allclose(l_got, l_ref, rtol=1e-6)
        np.testing.assert_allclose(f_got(noisy), f_ref(noisy), rtol=1e-5, atol=1e-6)
        # the exact loss: every grid phase
        _, (_, l_ref) = sk.calibrate_denoiser(noisy, sk.denoise_wavelet, params, approximate_loss=False,
                                              extra_output=True, stride=2)
        _, (_, l_got) = nr.calibrate_denoiser(noisy, nr.denoise_wavelet, params, approximate_loss=False,
                                              extra_output=True, stride=2)
    np.testing.assert_allclose(l_got, l_ref, rtol=1e-6)


@pytest.mark.parametrize("fast_mode", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nl_means_default_arguments(noisy, fast_mode, dtype):
    image = noisy.astype(dtype)
    ref = sk.denoise_nl_means(image, h=0.08, sigma=0.1, fast_mode=fast_mode)
    got = nr.denoise_nl_means(image, h=0.08, sigma=0.1, fast_mode=fast_mode)
    assert got.dtype == ref.dtype
    np.testing.assert_allclose(got, ref, rtol=1e-12 if dtype == np.float64 else 0, atol=1e-13)


def test_nl_means_4d_channels():
    rng = np.random.default_rng(1)
    image = rng.random((4, 5, 6, 5, 2))
    kw = dict(patch_size=3, patch_distance=1, h=0.3, channel_axis=-1)
    np.testing.assert_allclose(nr.denoise_nl_means(image, **kw), sk.denoise_nl_means(image, **kw), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("mode", ["constant", "edge", "symmetric", "reflect", "wrap"])
def test_bilateral_rgb_exact(mode):
    rng = np.random.default_rng(2)
    image = rng.random((30, 33, 3)).astype(np.float32)
    kw = dict(sigma_color=0.15, sigma_spatial=2, mode=mode, cval=0.4, bins=500, channel_axis=-1)
    np.testing.assert_array_equal(nr.denoise_bilateral(image, **kw), sk.denoise_bilateral(image, **kw))


def test_bilateral_constant_image_returned_as_is():
    image = np.full((5, 6), 3, np.uint8)
    assert nr.denoise_bilateral(image) is not None
    np.testing.assert_array_equal(nr.denoise_bilateral(image), sk.denoise_bilateral(image))


def test_bilateral_warns_on_odd_channel_counts():
    image = np.random.default_rng(0).random((8, 9, 5))
    with pytest.warns(UserWarning, match="channels"):
        nr.denoise_bilateral(image, channel_axis=-1)


def test_rolling_ball_nansafe_and_workers_rename():
    rng = np.random.default_rng(3)
    image = rng.random((20, 25)) * 100
    image[4, 7] = np.nan
    for nansafe in (False, True):
        np.testing.assert_array_equal(nr.rolling_ball(image, radius=4, nansafe=nansafe),
                                      sk.rolling_ball(image, radius=4, nansafe=nansafe))
    with pytest.warns(FutureWarning, match="num_threads"):
        got = nr.rolling_ball(image, radius=3, num_threads=1)
    np.testing.assert_array_equal(got, sk.rolling_ball(image, radius=3))
    with pytest.raises(ValueError, match="Both deprecated"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nr.rolling_ball(image, radius=3, num_threads=1, workers=2)


def test_cycle_spin_num_workers_rename_and_threads(noisy):
    with pytest.warns(FutureWarning, match="num_workers"):
        got = nr.cycle_spin(noisy, nr.denoise_wavelet, 2, 1, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = sk.cycle_spin(noisy, sk.denoise_wavelet, 2, workers=2)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-14)


def test_host_only_denoisers_refuse_gpu_arrays_clearly():
    cp = pytest.importorskip("cupy")
    try:
        x = cp.zeros((8, 8))
    except Exception:
        pytest.skip("no CUDA device")
    with pytest.raises(TypeError, match="not built yet"):
        nr.denoise_nl_means(x)


def test_refusals_where_scikit_image_reads_out_of_bounds():
    """scikit-image corrupts memory for a negative patch_size and reads before its colour table for bins=0;
    ndimg refuses both."""
    image = np.random.default_rng(4).random((12, 13))
    with pytest.raises(ValueError, match="odd patch_size"):
        nr.denoise_nl_means(image, patch_size=-3)
    with pytest.raises(ValueError, match="bins"):
        nr.denoise_bilateral(image, bins=0)


@pytest.mark.parametrize("win_size", [0, 1, -3])
def test_bilateral_degenerate_windows(win_size):
    image = np.random.default_rng(6).random((9, 10))
    np.testing.assert_array_equal(nr.denoise_bilateral(image, win_size=win_size),
                                  sk.denoise_bilateral(image, win_size=win_size))


def test_fast_nl_means_same_bits_at_every_thread_count():
    import ndimg

    image = np.random.default_rng(7).random((40, 45))
    results = []
    try:
        for n in (1, 2, 3):
            ndimg.set_num_threads(n)
            results.append(nr.denoise_nl_means(image, patch_size=5, patch_distance=4, h=0.2))
    finally:
        ndimg.set_num_threads(None)
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])

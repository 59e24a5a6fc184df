"""What the generated tests cannot say about ndimg.registration: warnings and their location, the half-spectrum
path against scikit-image's full one, masked registration of unequal shapes, the GPU's host scalars."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.fft as sfft
from scipy.ndimage import fourier_shift
from skimage import registration as skr
from skimage.registration import _masked_phase_cross_correlation as skm
from skimage.registration import _phase_cross_correlation as skp

from helpers import to_engine, to_host
from ndimg import registration as ndr
from ndimg.registration import _masked_phase_cross_correlation as ndm
from ndimg.registration import _phase_cross_correlation as ndp


def _pcc_close(got, expected):
    np.testing.assert_array_equal(to_host(got[0]), expected[0])
    assert to_host(got[0]).dtype == expected[0].dtype
    for g, x in zip(got[1:], expected[1:]):
        np.testing.assert_allclose(g, x, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(32, 30), (31, 27), (12, 10, 9), (40,), (16, 1)])
@pytest.mark.parametrize("upsample_factor", [1, 10])
def test_half_spectrum_equals_full(engine, rng, shape, upsample_factor):
    """Real images take the rfftn path; scikit-image transforms the whole spectrum: same shift, close scalars."""
    ref = rng.random(shape)
    mov = sfft.ifftn(fourier_shift(sfft.fftn(ref), (1.3, -2.6, 0.7)[:len(shape)])).real
    mov += 0.05 * rng.random(shape)
    expected = skr.phase_cross_correlation(ref, mov, upsample_factor=upsample_factor)
    got = ndr.phase_cross_correlation(to_engine(ref, engine), to_engine(mov, engine), upsample_factor=upsample_factor)
    _pcc_close(got, expected)


@pytest.mark.parametrize("shape", [(8, 6), (7, 9), (5, 4, 6), (9,), (4, 1)])
def test_upsampled_correlation_of_half_spectrum(rng, shape):
    """The matrix-multiply DFT over an rfftn half and its mirror equals scikit-image's over the whole spectrum."""
    a, b = rng.random(shape), rng.random(shape)
    full = sfft.fftn(a) * sfft.fftn(b).conj()
    half = sfft.rfftn(a) * sfft.rfftn(b).conj()
    offsets = rng.uniform(-3, 3, len(shape))
    expected = skp._upsampled_dft(full.conj(), 7, 4, offsets).conj()
    got = ndp._upsampled_correlation(half, shape[-1], 7, 4, offsets)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10)


def test_upsampled_dft_checks_lengths():
    with pytest.raises(ValueError):
        ndp._upsampled_dft(np.ones((4, 4)), upsampled_region_size=[3, 2, 1, 4])
    with pytest.raises(ValueError):
        ndp._upsampled_dft(np.ones((4, 4)), 3, axis_offsets=[3, 2, 1, 4])


def test_fourier_space_and_disambiguate(engine, rng):
    image = rng.random((40, 44))
    ref, mov = image[:32, :32], image[5:37, 9:41]
    fr, fm = sfft.fftn(ref), sfft.fftn(mov)
    for kw in (dict(space="fourier"), dict(space="fourier", disambiguate=True, upsample_factor=2),
               dict(disambiguate=True)):
        a, b = (fr, fm) if kw.get("space") else (ref, mov)
        expected = skr.phase_cross_correlation(a, b, **kw)
        got = ndr.phase_cross_correlation(to_engine(a, engine), to_engine(b, engine), **kw)
        _pcc_close(got, expected)


@pytest.mark.parametrize("null_images", [(1, 0), (0, 1), (0, 0)])
def test_empty_image_warnings_at_the_callers_line(null_images):
    image = np.arange(64.0).reshape(8, 8) % 7
    with pytest.warns(UserWarning) as records:
        shift, error, phasediff = ndr.phase_cross_correlation(image * null_images[0], image * null_images[1],
                                                              disambiguate=True)
    assert [r.filename for r in records] == [__file__] * 2
    assert "Could not determine real-space shift" in str(records[0].message)
    assert "Could not determine RMS error between images" in str(records[1].message)
    np.testing.assert_array_equal(shift, [0.0, 0.0])
    assert np.isnan(error) and phasediff == 0.0


def test_no_invalid_value_warnings_when_disambiguating():
    im1, im2 = np.zeros((50, 50)), np.zeros((50, 50))
    im1[25, 25] = 1
    im2[30, 30] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ndr.phase_cross_correlation(im1, im2, disambiguate=True)


def test_nan_input_refused():
    image = np.ones((5, 5))
    image[0, 0] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="NaN values found"):
            ndr.phase_cross_correlation(np.ones((5, 5)), image)


def test_masked_images_of_different_shapes(engine, rng):
    image = rng.random((40, 48))
    ref, mov = image, image[4:34, 3:41].copy()
    ref_mask, mov_mask = rng.random(ref.shape) > 0.2, rng.random(mov.shape) > 0.2
    expected = skr.phase_cross_correlation(ref, mov, reference_mask=ref_mask, moving_mask=mov_mask)
    got = ndr.phase_cross_correlation(*(to_engine(x, engine) for x in (ref, mov)),
                                      reference_mask=to_engine(ref_mask, engine),
                                      moving_mask=to_engine(mov_mask, engine))
    np.testing.assert_array_equal(to_host(got[0]), expected[0])
    assert np.isnan(got[1]) and np.isnan(got[2])
    with pytest.raises(ValueError, match="moving_mask must be explicitly set"):
        ndr.phase_cross_correlation(ref, mov, reference_mask=ref_mask)


@pytest.mark.parametrize("mode", ["full", "same"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_cross_correlate_masked(rng, mode, dtype):
    arr1, arr2 = rng.random((15, 4, 5)).astype(dtype), rng.random((15, 12, 7)).astype(dtype)
    m1, m2 = rng.random(arr1.shape) > 0.4, rng.random(arr2.shape) > 0.4
    expected = skm.cross_correlate_masked(arr1, arr2, m1, m2, axes=(1, 2), mode=mode)
    got = ndm.cross_correlate_masked(arr1, arr2, m1, m2, axes=(1, 2), mode=mode)
    assert got.dtype == expected.dtype
    tol = 1e-4 if expected.dtype == np.float32 else 1e-10
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)
    with pytest.raises(ValueError):
        ndm.cross_correlate_masked(arr1, arr2, m1, m2, mode="valid")
    with pytest.raises(ValueError):
        ndm.cross_correlate_masked(np.zeros((23, 1, 1)), np.zeros((6, 2, 2)), np.ones((23, 1, 1)),
                                   np.ones((6, 2, 2)), axes=(1, 2))


@pytest.mark.parametrize("name", ["optical_flow_tvl1", "optical_flow_ilk"])
def test_flow_of_a_sinusoidal_motion(engine, rng, name):
    """A pyramid of three levels; 2-D float64 flows equal scikit-image's to rounding, the inputs unchanged."""
    image0 = rng.normal(size=(72, 80))
    grid = np.stack(np.meshgrid(*[np.arange(n) for n in image0.shape], indexing="ij"))
    motion = 2.5 * np.sin(grid[0] / grid[0].max() * 3 * np.pi)
    from skimage.transform import warp

    image1 = warp(image0, grid - np.stack([motion, 0 * motion]), mode="edge")
    copies = image0.copy(), image1.copy()
    expected = getattr(skr, name)(image0, image1, dtype=np.float64)
    got = getattr(ndr, name)(to_engine(image0, engine), to_engine(image1, engine), dtype=np.float64)
    np.testing.assert_allclose(to_host(got), expected, rtol=1e-7, atol=1e-7)
    np.testing.assert_array_equal(image0, copies[0])
    np.testing.assert_array_equal(image1, copies[1])


def test_flow_3d_ilk(rng):
    """3-D systems go through the batched solver, as scikit-image's."""
    image0 = rng.normal(size=(20, 22, 24)).astype(np.float32)
    image1 = np.roll(image0, 1, axis=0)
    expected = skr.optical_flow_ilk(image0, image1, radius=3)
    got = ndr.optical_flow_ilk(image0, image1, radius=3)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["optical_flow_tvl1", "optical_flow_ilk"])
def test_no_motion_is_zero(name, rng):
    image = rng.normal(size=(40, 36))
    assert not np.any(getattr(ndr, name)(image, image))

"""feature.ORB against scikit-image 0.26: keypoints, scales, orientations, Harris responses and descriptors
equal to scikit-image's (detect, extract and detect_and_extract) for each dtype, image and pyramid setting,
GPU images giving GPU results, and scikit-image's errors for flat, small and non-2-D images."""
import numpy as np
import pytest
import skimage.feature as sf

import ndimg.feature as nf
from helpers import array_type, gray_test_image, to_engine, to_host

DETECTED = ("keypoints", "scales", "orientations", "responses")


def _image(name, dtype):
    return gray_test_image(name, dtype, np.s_[50:350, 50:400], np.s_[60:300, 120:420])


def _same(ours, ref, names, engine, dtype=None):
    # a float32 image's pyramid on CUDA is ndimg's float32 Gaussian, within float32 rounding of scipy's but not
    # bit for bit: there the keypoints and scales stay exact, the orientations and Harris responses (sums over
    # the octave image) agree to float32 rounding, and 99% of the descriptors (bits of those sums' comparisons)
    # are equal
    rounded = engine == "cuda" and dtype == "float32"
    for k in names:
        got = getattr(ours, k)
        assert type(got) is array_type(engine), k
        got, want = to_host(got), getattr(ref, k)
        assert got.dtype == want.dtype, k
        if rounded and k in ("orientations", "responses"):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=k)
        elif rounded and k == "descriptors":
            assert got.shape == want.shape
            assert (got == want).all(axis=1).mean() >= 0.99, k
        else:
            np.testing.assert_array_equal(got, want, err_msg=k)


KWARGS = [dict(), dict(n_keypoints=50, downscale=1.5, n_scales=4), dict(n_keypoints=5000, fast_n=12,
          fast_threshold=0.05, harris_k=0.1)]


@pytest.mark.parametrize("kw", KWARGS, ids=repr)
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
@pytest.mark.parametrize("name", ["astronaut", "camera"])
def test_detect_and_extract_like_skimage(engine, kw, dtype, name):
    image = _image(name, dtype)
    ref, ours = sf.ORB(**kw), nf.ORB(**kw)
    ref.detect_and_extract(image)
    ours.detect_and_extract(to_engine(image, engine))
    _same(ours, ref, DETECTED + ("descriptors",), engine, dtype)


@pytest.mark.parametrize("kw", KWARGS[:2], ids=repr)
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_detect_then_extract_like_skimage(engine, kw, dtype):
    image = _image("astronaut", dtype)
    ref, ours = sf.ORB(**kw), nf.ORB(**kw)
    ref.detect(image)
    ours.detect(to_engine(image, engine))
    _same(ours, ref, DETECTED, engine, dtype)
    ref.extract(image, ref.keypoints, ref.scales, ref.orientations)
    ours.extract(to_engine(image, engine), *(to_engine(getattr(ref, k), engine)
                                             for k in ("keypoints", "scales", "orientations")))
    _same(ours, ref, ("descriptors", "mask_"), engine, dtype)


def test_extract_rotated_keypoints(engine):
    # arbitrary angles and positions near the 20-pixel border: the steered offsets' rounding and the mask
    image = _image("camera", "float64")
    rng = np.random.default_rng(5)
    keypoints = rng.uniform(15, 230, (300, 2))
    scales = np.ones(300)
    orientations = rng.uniform(-np.pi, np.pi, 300)
    ref, ours = sf.ORB(), nf.ORB()
    ref.extract(image, keypoints, scales, orientations)
    ours.extract(to_engine(image, engine), *(to_engine(v, engine) for v in (keypoints, scales, orientations)))
    _same(ours, ref, ("descriptors", "mask_"), engine)


def test_flat_image_raises(engine):
    image = np.zeros((80, 80))
    with pytest.raises(RuntimeError):
        sf.ORB().detect_and_extract(image)
    with pytest.raises(RuntimeError):
        nf.ORB().detect_and_extract(to_engine(image, engine))
    ref, ours = sf.ORB(), nf.ORB()
    ref.detect(image)
    ours.detect(to_engine(image, engine))
    _same(ours, ref, DETECTED, engine)


def test_small_image_like_skimage(engine):
    # pyramid levels shrink below the border distance: no keypoints there, as in scikit-image
    image = _image("camera", "float64")[:40, :48]
    ref, ours = sf.ORB(n_scales=10), nf.ORB(n_scales=10)
    ref.detect(image)
    ours.detect(to_engine(image, engine))
    _same(ours, ref, DETECTED, engine)


@pytest.mark.parametrize("image", [np.zeros((20, 20, 3)), np.zeros(30)], ids=["3d", "1d"])
@pytest.mark.parametrize("method", ["detect", "detect_and_extract"])
def test_bad_images(engine, image, method):
    with pytest.raises(ValueError):
        getattr(sf.ORB(), method)(image)
    with pytest.raises(ValueError):
        getattr(nf.ORB(), method)(to_engine(image, engine))


@pytest.mark.parametrize("method", ["detect", "detect_and_extract", "extract"])
def test_dask_refused(method):
    da = pytest.importorskip("dask.array")
    image = da.from_array(_image("camera", "float64"), chunks=64)
    args = (np.zeros((1, 2)), np.ones(1), np.zeros(1)) if method == "extract" else ()
    with pytest.raises(NotImplementedError, match=f"ndimg.feature.ORB.{method} does not take Dask"):
        getattr(nf.ORB(), method)(image, *args)

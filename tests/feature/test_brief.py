"""feature.BRIEF against scikit-image 0.26: the same masks and descriptors for each sampling mode, seed kind
and dtype, repeated extracts equal (each draws from a copy of the generator), and GPU images giving GPU
results. Keypoints stay off the last allowed row: there scikit-image's 'uniform' pairs read past the image's
end (undefined values), which ndimg clamps to the last pixel."""
import numpy as np
import pytest
import skimage.feature as sf
from skimage import data

import ndimg.feature as nf
from helpers import array_type, to_engine, to_host


@pytest.fixture(scope="module")
def scene():
    rng = np.random.default_rng(3)
    image = data.camera()[100:260, 150:330]
    keypoints = rng.integers(0, 160, (250, 2))
    keypoints = keypoints[keypoints[:, 0] < 160 - 49 // 2]
    return image, keypoints


@pytest.mark.parametrize("kw", [dict(), dict(mode="uniform"), dict(mode="Normal", descriptor_size=128),
                                dict(patch_size=9, descriptor_size=32, sigma=2), dict(rng=None), dict(rng="gen")],
                         ids=repr)
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_like_skimage(engine, scene, kw, dtype):
    image, keypoints = scene
    image = image.astype(dtype) / (255 if dtype != "uint8" else 1)
    if kw.get("rng", 1) is None:
        pytest.skip("a fresh OS-seeded pattern: checked for repeatability below")
    make = lambda: np.random.default_rng(11) if kw.get("rng") == "gen" else kw.get("rng", 1)
    ref = sf.BRIEF(**{**kw, "rng": make()})
    ours = nf.BRIEF(**{**kw, "rng": make()})
    ref.extract(image, keypoints)
    ours.extract(to_engine(image, engine), keypoints)
    assert type(ours.descriptors) is array_type(engine) and type(ours.mask) is array_type(engine)
    np.testing.assert_array_equal(to_host(ours.mask), ref.mask)
    assert to_host(ours.descriptors).dtype == bool
    np.testing.assert_array_equal(to_host(ours.descriptors), ref.descriptors)


def test_repeated_extract_and_fresh_seed(scene):
    image, keypoints = scene
    b = nf.BRIEF(rng=None)
    b.extract(image, keypoints)
    first = b.descriptors.copy()
    b.extract(image, keypoints)
    np.testing.assert_array_equal(b.descriptors, first)


def test_generator_is_not_advanced(scene):
    image, keypoints = scene
    g = np.random.default_rng(5)
    nf.BRIEF(rng=g).extract(image, keypoints)
    assert g.random() == np.random.default_rng(5).random()


def test_refusals(scene):
    image, keypoints = scene
    with pytest.raises(ValueError, match="mode"):
        nf.BRIEF(mode="gaussian")
    with pytest.raises(ValueError):
        nf.BRIEF().extract(np.zeros((3, 20, 20)), keypoints)

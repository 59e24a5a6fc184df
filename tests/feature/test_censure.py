"""feature.CENSURE against scikit-image 0.26: the same keypoints and scales, exactly, for each filter mode,
scale range, dtype and image (the box sums, convolutions and extrema are the same float operations), GPU
images giving GPU results, and scikit-image's errors for bad arguments and images."""
import numpy as np
import pytest
import skimage.feature as sf
from skimage import data

import ndimg.feature as nf
from helpers import array_type, gray_test_image, to_engine, to_host


def _image(name, dtype):
    return gray_test_image(name, dtype, np.s_[100:300, 100:300], np.s_[60:300, 120:420])


@pytest.mark.parametrize("kw", [dict(), dict(mode="Octagon"), dict(mode="STAR"), dict(mode="dob", min_scale=2,
                                max_scale=10), dict(mode="octagon", min_scale=3, max_scale=11, non_max_threshold=0.05),
                                dict(mode="star", min_scale=1, max_scale=5, line_threshold=5)], ids=repr)
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
@pytest.mark.parametrize("name", ["astronaut", "camera"])
def test_like_skimage(engine, kw, dtype, name):
    image = _image(name, dtype)
    ref = sf.CENSURE(**kw)
    ours = nf.CENSURE(**kw)
    ref.detect(image)
    ours.detect(to_engine(image, engine))
    assert type(ours.keypoints) is array_type(engine) and type(ours.scales) is array_type(engine)
    assert to_host(ours.keypoints).dtype == ref.keypoints.dtype and to_host(ours.scales).dtype == ref.scales.dtype
    np.testing.assert_array_equal(to_host(ours.keypoints), ref.keypoints)
    np.testing.assert_array_equal(to_host(ours.scales), ref.scales)


def test_small_images_like_skimage(engine):
    for shape in [(40, 44), (31, 33), (9, 9)]:
        image = data.camera()[:shape[0], :shape[1]]
        for mode in ("dob", "octagon", "star"):
            ours = nf.CENSURE(mode=mode, non_max_threshold=0.01)
            ours.detect(to_engine(image, engine))
            if mode == "dob" and min(shape) <= 4 * 7:
                # scikit-image's box loop writes and reads outside its arrays for an image without room for a
                # scale's outer box (undefined values); there ndimg has no response, hence no keypoints
                assert to_host(ours.keypoints).shape == (0, 2)
                continue
            ref = sf.CENSURE(mode=mode, non_max_threshold=0.01)
            ref.detect(image)
            np.testing.assert_array_equal(to_host(ours.keypoints), ref.keypoints)
            np.testing.assert_array_equal(to_host(ours.scales), ref.scales)


@pytest.mark.parametrize("kw,exc", [(dict(mode="box"), ValueError), (dict(min_scale=0), ValueError),
                                    (dict(min_scale=3, max_scale=4), ValueError), (dict(max_scale=0), ValueError)])
def test_bad_arguments(kw, exc):
    with pytest.raises(exc):
        sf.CENSURE(**kw)
    with pytest.raises(exc):
        nf.CENSURE(**kw)


@pytest.mark.parametrize("image", [np.zeros((20, 20, 3)), np.zeros(30), np.zeros((1, 40))], ids=["3d", "1d", "row"])
def test_bad_images(engine, image):
    with pytest.raises(ValueError):
        sf.CENSURE().detect(image)
    with pytest.raises(ValueError):
        nf.CENSURE().detect(to_engine(image, engine))


def test_scale_table_end():
    # scikit-image's octagon table has 11 scales and its star table 12: beyond them, its IndexError
    image = data.camera()[:64, :64]
    for mode, top in (("octagon", 12), ("star", 13)):
        with pytest.raises(IndexError):
            sf.CENSURE(mode=mode, max_scale=top).detect(image)
        with pytest.raises(IndexError):
            nf.CENSURE(mode=mode, max_scale=top).detect(image)


def test_dask_refused():
    da = pytest.importorskip("dask.array")
    image = da.from_array(_image("camera", "float64"), chunks=64)
    with pytest.raises(NotImplementedError, match="ndimg.feature.CENSURE.detect does not take Dask"):
        nf.CENSURE().detect(image)

"""feature.Cascade against scikit-image 0.26 with its bundled LBP frontal-face cascade: the same loaded sizes,
the same scales and grouped detections for several searches (colour and grey images, file paths and file
objects), on each engine."""
import numpy as np
import pytest
import skimage.feature as sf
from skimage import data

import ndimg.feature as nf
from helpers import to_engine

SEARCHES = [dict(scale_factor=1.2, step_ratio=1, min_size=(60, 60), max_size=(123, 123)),
            dict(scale_factor=1.1, step_ratio=1.3, min_size=(30, 30), max_size=(300, 300)),
            dict(scale_factor=1.25, step_ratio=1, min_size=(24, 24), max_size=(200, 200), min_neighbor_number=1,
                 intersection_score_threshold=0.3)]


@pytest.fixture(scope="module")
def cascades():
    path = data.lbp_frontal_face_cascade_filename()
    return sf.Cascade(path), nf.Cascade(path)


def test_loaded_like_skimage(cascades):
    ref, ours = cascades
    for name in ("eps", "stages_number", "stumps_number", "features_number", "window_width", "window_height"):
        assert getattr(ours, name) == getattr(ref, name), name
    np.testing.assert_array_equal(ours._get_valid_scale_factors((30, 40), (200, 180), 1.15),
                                  ref._get_valid_scale_factors((30, 40), (200, 180), 1.15))


@pytest.mark.parametrize("kw", SEARCHES, ids=repr)
@pytest.mark.parametrize("kind", ["rgb", "grey_u8", "grey_f32"])
def test_detections_like_skimage(engine, cascades, kw, kind):
    ref, ours = cascades
    img = data.astronaut()[:300, 50:400]
    if kind == "grey_u8":
        img = img[..., 1]
    elif kind == "grey_f32":
        img = img.mean(-1).astype(np.float32) / 255
    expected = ref.detect_multi_scale(img, **kw)
    assert ours.detect_multi_scale(to_engine(img, engine), **kw) == expected


def test_file_object_and_eps():
    with open(data.lbp_frontal_face_cascade_filename(), "rb") as f:
        ours = nf.Cascade(f, eps=0.5)
    ref = sf.Cascade(data.lbp_frontal_face_cascade_filename(), eps=0.5)
    img = data.astronaut()[:200, 100:350]
    assert ours.detect_multi_scale(img, **SEARCHES[2]) == ref.detect_multi_scale(img, **SEARCHES[2])


def test_step_rounding_to_zero_is_refused(cascades):
    # scikit-image loops forever on a zero step
    with pytest.raises(ValueError, match="step"):
        cascades[1].detect_multi_scale(np.zeros((60, 60)), 1.2, 0.1, (24, 24), (40, 40))

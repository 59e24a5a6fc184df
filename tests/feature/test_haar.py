"""feature.haar_like_feature_coord (object arrays of coordinate lists) against scikit-image 0.26 element by
element, and haar_like_feature's corners: its own coordinates fed back, windows at the image's border, and
coordinates outside the window (scikit-image reads past its window copy there; ndimg refuses)."""
import numpy as np
import pytest
import skimage.feature as sf
import skimage.transform as st

import ndimg.feature as nf
from helpers import to_engine, to_host


@pytest.mark.parametrize("width, height", [(2, 2), (5, 4), (4, 7), (1, 3), (0, 3), (-1, 2)])
@pytest.mark.parametrize("feature_type", [None, "type-4", "type-3-y", ["type-2-x", "type-3-x"], ("type-2-y",)])
def test_coord_like_skimage(width, height, feature_type):
    coord, types = nf.haar_like_feature_coord(width, height, feature_type)
    ref_coord, ref_types = sf.haar_like_feature_coord(width, height, feature_type)
    assert coord.dtype == ref_coord.dtype == object and coord.shape == ref_coord.shape
    assert all(type(a) is type(b) and a == b for a, b in zip(coord, ref_coord))
    assert types.dtype == ref_types.dtype and types.tolist() == ref_types.tolist()


@pytest.mark.parametrize("collecting", [True, False])
def test_coord_leaves_the_garbage_collector_as_found(collecting):
    import gc

    was = gc.isenabled()
    (gc.enable if collecting else gc.disable)()
    try:
        nf.haar_like_feature_coord(6, 6)
        assert gc.isenabled() is collecting
        with pytest.raises(ValueError):
            nf.haar_like_feature_coord(6, 6, feature_type="bogus")
        assert gc.isenabled() is collecting
    finally:
        (gc.enable if was else gc.disable)()


def test_coord_refuses_unknown_type():
    with pytest.raises(ValueError, match="unknown"):
        nf.haar_like_feature_coord(3, 3, ["type-2-x", "type-9"])


@pytest.mark.parametrize("dtype", ["uint8", "int16", "uint32", "int64", "float32", "float64"])
def test_features_from_own_coordinates(engine, rng, dtype):
    ii = st.integral_image((rng.random((30, 32)) * 50).astype(dtype)).astype(dtype)
    coord, types = sf.haar_like_feature_coord(9, 8)
    pick = rng.choice(len(coord), 300, replace=False)
    expected = sf.haar_like_feature(ii, 5, 6, 9, 8, types[pick], coord[pick])
    got = nf.haar_like_feature(to_engine(ii, engine), 5, 6, 9, 8, types[pick], coord[pick])
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(to_host(got), expected)


def test_window_past_the_image_is_refused(engine):
    # the window holds 4 rows where the features need 8: scikit-image reads outside its copy of the window
    ii = to_engine(st.integral_image(np.ones((12, 12))), engine)
    with pytest.raises(ValueError, match="outside"):
        nf.haar_like_feature(ii, 8, 0, 8, 8, "type-2-y")


def test_draw_like_skimage(engine, rng):
    image = rng.random((20, 22))
    coord, _ = sf.haar_like_feature_coord(6, 6, "type-3-x")
    expected = sf.draw_haar_like_feature(image, 3, 4, 6, 6, coord, max_n_features=5, rng=7)
    got = nf.draw_haar_like_feature(to_engine(image, engine), 3, 4, 6, 6, coord, max_n_features=5, rng=7)
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(to_host(got), expected, rtol=1e-12, atol=0)

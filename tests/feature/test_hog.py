"""feature.hog against scikit-image 0.26 on images larger than the generated cases' (many cells and blocks,
odd cell sizes, every block norm, colour images choosing the strongest channel, integer gradients that land
on bin bounds), on each engine; and Dask input refused by name (HOG needs the whole image)."""
import numpy as np
import pytest
import skimage.feature as sf
from skimage import data

import ndimg.feature as nf
from helpers import array_type, assert_close, to_engine, to_host


@pytest.mark.parametrize("kw", [dict(), dict(orientations=4, pixels_per_cell=(7, 5), cells_per_block=(2, 3), block_norm="L1"),
                                dict(orientations=8, block_norm="L1-sqrt", transform_sqrt=True),
                                dict(orientations=12, pixels_per_cell=(16, 16), cells_per_block=(1, 1), block_norm="L2"),
                                dict(visualize=True, feature_vector=False)], ids=repr)
@pytest.mark.parametrize("kind", ["camera_u8", "camera_f32", "astronaut_rgb", "steps_f64"])
def test_like_skimage(engine, kw, kind):
    if kind == "camera_u8":
        image = data.camera()[100:300, 50:290]
    elif kind == "camera_f32":
        image = data.camera()[:256, :200].astype(np.float32) / 255
    elif kind == "astronaut_rgb":
        image, kw = data.astronaut()[:160, 100:260], dict(kw, channel_axis=-1)
    else:   # gradients of 0, 45 and 90 degrees: orientations on the bin bounds of 4 and 8 bins
        image = np.add.outer(np.arange(120) // 9, np.arange(136) // 7).astype(np.float64) % 5
    expected = sf.hog(image, **kw)
    got = nf.hog(to_engine(image, engine), **kw)
    if kw.get("visualize"):
        (got, got_image), (expected, expected_image) = got, expected
        assert type(got_image) is array_type(engine) and to_host(got_image).dtype == expected_image.dtype
        assert_close(to_host(got_image), expected_image, (1e-5, 1e-6))
    assert type(got) is array_type(engine)
    got = to_host(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert_close(got, expected, (1e-5, 1e-6))


def test_dask_is_refused_by_name():
    da = pytest.importorskip("dask.array")
    with pytest.raises(NotImplementedError, match="hog"):
        nf.hog(da.zeros((64, 64), chunks=32))

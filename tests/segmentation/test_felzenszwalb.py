"""segmentation.felzenszwalb against scikit-image 0.26, label for label, where the edge order decides: tied
weights (integer-valued and striped images, sigma=0), channels, min_size; and the test by which the CUDA
engine keeps its device sort's order (a stable one) only where it gives NumPy's argsort's labels, checked
here on the host by running the merge over a stable order."""
import warnings

import numpy as np
import pytest
from skimage import data
from skimage import segmentation as sk

from ndimg import _core
from ndimg.filters import gaussian
from ndimg.segmentation._felzenszwalb import _device_order_is_numpys, felzenszwalb

ASTRONAUT = data.astronaut()[100:200, 120:250]
RNG = np.random.default_rng(28)
IMAGES = {
    "stripes": (np.indices((40, 50)).sum(0) % 5 * 0.25),   # four weights, each tied thousands of times
    "levels_rgb": RNG.integers(0, 4, (30, 41, 3)) / 4,       # sqrt of small integer sums: many ties
    "blocks": np.kron(RNG.random((6, 7)), np.ones((6, 6))),  # zero weights inside, tied ones across
    "runs": np.repeat(RNG.random(25), 3)[None],              # zero weights inside, distinct ones across
    "flat": np.full((12, 15, 3), 0.3),                       # every weight zero
    "noise": RNG.random((33, 29, 2)),                        # no ties
    "astronaut": ASTRONAUT,
}
KWARGS = [{}, {"sigma": 0}, {"sigma": 0, "scale": 30, "min_size": 7}, {"scale": 500, "min_size": 40},
          {"scale": 0, "sigma": 0, "min_size": 3}, {"scale": -5, "min_size": 2}]


def run(fn, img, **kw):
    channel_axis = None if img.ndim == 2 else -1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # images of over 3 channels warn on both sides
        return np.asarray(fn(img, channel_axis=channel_axis, **kw))


@pytest.mark.parametrize("kw", KWARGS)
@pytest.mark.parametrize("name", list(IMAGES))
def test_ties_channels_min_size(name, kw):
    ref = run(sk.felzenszwalb, IMAGES[name], **kw)
    got = run(felzenszwalb, IMAGES[name], **kw)
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)


def _costs(img, sigma):
    img = np.atleast_3d(img).astype(np.float64)
    img = np.ascontiguousarray(gaussian(img, sigma=[sigma, sigma, 0], mode="reflect", channel_axis=-1))
    h, w = img.shape[:2]
    costs = np.empty(4 * h * w - 3 * (h + w) + 2)
    _core.felzenszwalb_costs(img, costs)
    return costs


@pytest.mark.parametrize("kw", KWARGS + [{"scale": 1e-300, "sigma": 0}])
@pytest.mark.parametrize("name", list(IMAGES))
def test_stable_order_where_kept(name, kw):
    # the CUDA engine's path on the host: where the test keeps the stable order, the labels are skimage's
    img, sigma = IMAGES[name], kw.get("sigma", 0.8)
    costs = _costs(img, sigma)
    order = np.argsort(costs, kind="stable")
    scale = kw.get("scale", 1) / 255
    if not _device_order_is_numpys(costs[order], scale, img.shape[0] * img.shape[1]):
        return
    labels = np.empty(img.shape[:2], dtype=np.int64)
    _core.felzenszwalb_merge(costs, order, scale, kw.get("min_size", 20), labels)
    np.testing.assert_array_equal(labels, run(sk.felzenszwalb, img, **kw))


def test_which_ties_matter():
    n = 100
    assert _device_order_is_numpys(np.array([0.0, 0.0, 0.5, 1.0]), 1 / 255, n)
    assert _device_order_is_numpys(np.array([0.1, 0.2]), 0.0, n)
    assert not _device_order_is_numpys(np.array([0.0, 0.5, 0.5]), 1 / 255, n)
    assert not _device_order_is_numpys(np.array([0.0, 0.5, np.nan]), 1 / 255, n)
    assert not _device_order_is_numpys(np.array([np.nan, 0.5]), 1 / 255, n)
    # zeros merge whatever their order only while float32(scale / size) stays above 0
    for scale in (0.0, -1.0, np.nan, 2.0 ** -150 * n):
        assert not _device_order_is_numpys(np.array([0.0, 0.0, 1.0]), scale, n)
    assert _device_order_is_numpys(np.array([0.0, 0.0, 1.0]), 2.0 ** -149 * n, n)
    assert _device_order_is_numpys(np.array([0.0, 0.0, 1.0]), np.inf, n)
    assert _device_order_is_numpys(np.array([np.nan]), 1.0, n)


def test_kept_stable_order_is_reached():
    # the images above reach both decisions (else test_stable_order_where_kept proves nothing)
    kept = {name: _device_order_is_numpys(np.sort(_costs(img, 0)), 1 / 255, img.shape[0] * img.shape[1])
            for name, img in IMAGES.items()}
    assert kept == {"stripes": False, "levels_rgb": False, "blocks": False, "runs": True, "flat": True,
                    "noise": True, "astronaut": False}


@pytest.mark.parametrize("shape", [(4, 5, 0), (0, 5, 2), (1, 1, 1), (1, 6, 3)])
def test_no_channels_and_small(shape):
    img = np.random.default_rng(1).random(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(felzenszwalb(img), sk.felzenszwalb(img))


def test_gray_3d_is_refused():
    with pytest.raises(ValueError, match="2d images"):
        felzenszwalb(np.zeros((4, 5, 6)), channel_axis=None)

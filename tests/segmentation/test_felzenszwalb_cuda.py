"""The CUDA engine of segmentation.felzenszwalb against scikit-image 0.26, label for label: images whose
device order is kept (no ties, or only zeros that always merge) and images whose ties send the order to
NumPy's argsort on the host, channels, min_size, sigma=0, and the arrays it returns. Skipped without a GPU."""
import warnings

import numpy as np
import pytest
from skimage import segmentation as sk

from ndimg.segmentation import _felzenszwalb
from ndimg.segmentation._felzenszwalb import felzenszwalb

from segmentation.test_felzenszwalb import IMAGES, KWARGS

cp = pytest.importorskip("cupy")
try:
    cp.zeros(1)
except Exception:  # pragma: no cover - CuPy without a device
    pytest.skip("no CUDA device", allow_module_level=True)

KEPT = {"runs", "flat", "noise"}   # their stable device order stands at sigma=0 (test_felzenszwalb.py)


def run(fn, img, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(img, channel_axis=None if img.ndim == 2 else -1, **kw)


@pytest.mark.parametrize("kw", KWARGS)
@pytest.mark.parametrize("name", list(IMAGES))
def test_felzenszwalb_cuda(name, kw, monkeypatch):
    img = IMAGES[name]
    ref = run(sk.felzenszwalb, img, **kw)
    sorted_sizes = []   # the sizes of the arrays NumPy's argsort sorted during the call
    argsort = np.argsort
    monkeypatch.setattr(_felzenszwalb.np, "argsort",
                        lambda a, *args, **k: sorted_sizes.append(np.size(a)) or argsort(a, *args, **k))
    got = run(felzenszwalb, cp.asarray(img), **kw)
    assert isinstance(got, cp.ndarray) and got.dtype == ref.dtype
    np.testing.assert_array_equal(cp.asnumpy(got), ref)
    h, w = img.shape[:2]
    edges = 4 * h * w - 3 * (h + w) + 2
    if name in KEPT and kw.get("sigma") == 0 and kw.get("scale", 1) > 0:
        assert edges not in sorted_sizes   # the device's order was used
    elif name == "astronaut":
        assert edges in sorted_sizes   # its ties need NumPy's own order


@pytest.mark.parametrize("channels", [1, 2, 4, 7, 8, 9])
def test_felzenszwalb_cuda_channels(channels):
    img = np.random.default_rng(channels).random((30, 40, channels))
    np.testing.assert_array_equal(cp.asnumpy(run(felzenszwalb, cp.asarray(img), scale=5)),
                                  run(sk.felzenszwalb, img, scale=5))


@pytest.mark.parametrize("dtype", ["uint8", "float32", "bool"])
def test_felzenszwalb_cuda_dtypes_and_channel_axis(dtype):
    img = (IMAGES["astronaut"] > 128) if dtype == "bool" else IMAGES["astronaut"].astype(dtype)
    img = np.moveaxis(img, -1, 0)
    np.testing.assert_array_equal(cp.asnumpy(felzenszwalb(cp.asarray(img), scale=50, channel_axis=0)),
                                  sk.felzenszwalb(img, scale=50, channel_axis=0))


@pytest.mark.parametrize("shape", [(0, 5, 3), (5, 0, 3), (4, 5, 0), (1, 1, 3), (1, 7, 1), (6, 1, 2)])
def test_felzenszwalb_cuda_small(shape):
    img = np.random.default_rng(0).random(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(cp.asnumpy(felzenszwalb(cp.asarray(img))), sk.felzenszwalb(img))


def test_felzenszwalb_cuda_refuses_gray_3d():
    with pytest.raises(ValueError, match="2d images"):
        felzenszwalb(cp.zeros((4, 5, 6)), channel_axis=None)

"""The skeletons' CUDA engine against scikit-image beyond the registry's small cases: Lee's thinning (3-D, and
2-D with method="lee") whose serial recheck runs as a wavefront of buckets on the device, on volumes where
many candidates of one direction are neighbours; the CPU engine's wavefront (planes at once, two rows apart)
at several thread counts; medial_axis's removal in rounds on the device (a pixel decided once its earlier
neighbours in scikit-image's order are)."""
import numpy as np
import pytest

from helpers import cupy_or_skip
from scipy.ndimage import gaussian_filter
from skimage import morphology as sm

import ndimg
from ndimg import morphology as nm


def _volume(shape, sigma, level, seed):
    rng = np.random.default_rng(seed)
    field = rng.random(shape)
    return (gaussian_filter(field, sigma) if sigma else field) > level


_VOLUMES = {
    "blobs": ((48, 56, 52), 3, 0.5),
    "fine": ((40, 44, 36), 1, 0.5),
    "noise": ((30, 34, 28), 0, 0.4),     # many isolated and touching voxels
    "slab": ((6, 90, 80), 2, 0.48),
    "one_plane": ((1, 60, 70), 2, 0.5),  # a framed volume of 3 planes: four border directions
    "wide": ((96, 96, 96), 6, 0.5),      # thick objects: many iterations, long wavefronts
}


@pytest.mark.parametrize("name", list(_VOLUMES))
def test_lee_cuda(name):
    cp = cupy_or_skip()
    volume = _volume(*_VOLUMES[name], seed=len(name))
    got = nm.skeletonize(cp.asarray(volume))
    assert isinstance(got, cp.ndarray) and got.dtype == bool
    np.testing.assert_array_equal(cp.asnumpy(got), sm.skeletonize(volume))


def test_lee_cuda_2d_and_strided():
    cp = cupy_or_skip()
    image = _volume((300, 340), 6, 0.5, 3)
    got = nm.skeletonize(cp.asarray(image), method="lee")
    np.testing.assert_array_equal(cp.asnumpy(got), sm.skeletonize(image, method="lee"))
    volume = _volume((40, 50, 60), 2, 0.5, 4)
    got = nm.skeletonize(cp.asarray(volume)[:, ::-1, ::2])
    np.testing.assert_array_equal(cp.asnumpy(got), sm.skeletonize(volume[:, ::-1, ::2]))


@pytest.mark.parametrize("threads", [1, 2, 7])
@pytest.mark.parametrize("name", ["blobs", "fine", "wide"])
def test_lee_cpu_wavefront_threads(name, threads):
    """Enough candidates per direction for the planes to be rechecked at once (the serial path below 4096)."""
    volume = _volume(*_VOLUMES[name], seed=len(name))
    try:
        ndimg.set_num_threads(threads)
        got = nm.skeletonize(volume)
    finally:
        ndimg.set_num_threads(None)
    np.testing.assert_array_equal(got, sm.skeletonize(volume))


_IMAGES = {
    "blobs": ((200, 260), 8, 0.5),
    "wide": ((400, 420), 30, 0.5),      # hundreds of rounds
    "noise": ((90, 110), 0, 0.5),
    "narrow": ((2, 9), 0, 0.3),
    "full": ((20, 30), 0, -1.0),        # no background: the distance is the same everywhere but at the edges
    "empty": ((20, 30), 0, 2.0),
}


@pytest.mark.parametrize("name", list(_IMAGES))
def test_medial_axis_cuda(name):
    cp = cupy_or_skip()
    image = _volume(*_IMAGES[name], seed=len(name))
    ours, theirs = np.random.default_rng(5), np.random.default_rng(5)
    got, got_d = nm.medial_axis(cp.asarray(image), return_distance=True, rng=ours)
    want, want_d = sm.medial_axis(image, return_distance=True, rng=theirs)
    assert isinstance(got, cp.ndarray) and got.dtype == bool and isinstance(got_d, cp.ndarray)
    np.testing.assert_array_equal(cp.asnumpy(got), want)
    np.testing.assert_array_equal(cp.asnumpy(got_d), want_d)
    assert ours.random() == theirs.random()   # the same draws


def test_medial_axis_cuda_mask_and_dtypes():
    cp = cupy_or_skip()
    image = _volume((180, 200), 6, 0.5, 2)
    mask = _volume((180, 200), 2, 0.45, 3)
    for im in (image, image.astype(np.float32) * 3, image.astype(np.uint8)):
        got = nm.medial_axis(cp.asarray(im), mask=cp.asarray(mask), rng=7)
        np.testing.assert_array_equal(cp.asnumpy(got), sm.medial_axis(im, mask=mask, rng=7))

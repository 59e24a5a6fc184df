"""The CUDA engines of segmentation.quickshift and slic against scikit-image 0.26, label for label, on real
images and the argument forms the generated registry cases do not reach (quickshift's return_tree,
no-parent pixels, empty images, PyTorch tensors; slic's volumes with masks, SLIC-zero, many small segments
and channel counts). Skipped without a GPU."""
import numpy as np
import pytest
from skimage import data
from skimage import segmentation as sk

from ndimg.segmentation._quickshift import quickshift
from ndimg.segmentation._slic import slic

cp = pytest.importorskip("cupy")
try:
    cp.zeros(1)
except Exception:  # pragma: no cover - CuPy without a device
    pytest.skip("no CUDA device", allow_module_level=True)

ASTRONAUT = data.astronaut()[100:260, 120:300]


def same(ref, got):
    assert isinstance(got, cp.ndarray)
    got = cp.asnumpy(got)
    ref = np.asarray(ref)
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("kw", [{"kernel_size": 3}, {"ratio": 0.5, "kernel_size": 2.5, "max_dist": 5, "sigma": 1},
                                {"convert2lab": False, "kernel_size": 2, "rng": 5}])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_quickshift_cuda(kw, dtype):
    img = ASTRONAUT[:90, :110]
    img = img if dtype == "uint8" else (img / 255).astype(dtype)
    same(sk.quickshift(img, **kw), quickshift(cp.asarray(img), **kw))


def test_quickshift_cuda_tree_and_far_parents():
    img = ASTRONAUT[:40, :50]
    # max_dist=1 leaves most pixels without a parent close enough: many roots, relabelled as scikit-image
    for kw in ({"kernel_size": 2}, {"kernel_size": 1.5, "max_dist": 1}):
        (ref_labels, ref_parent, ref_dist), (labels, parent, dist) = (
            sk.quickshift(img, return_tree=True, **kw), quickshift(cp.asarray(img), return_tree=True, **kw))
        same(ref_labels, labels)
        same(ref_parent, parent)
        # ndimg.color's Lab is within 1e-13 of scikit-image's; the distances carry it
        assert dist.dtype == np.asarray(ref_dist).dtype
        np.testing.assert_allclose(cp.asnumpy(dist), np.asarray(ref_dist), rtol=1e-12, atol=0)
        for ref, got in zip(sk.quickshift(img, convert2lab=False, return_tree=True, **kw),
                            quickshift(cp.asarray(img), convert2lab=False, return_tree=True, **kw)):
            same(ref, got)


@pytest.mark.parametrize("shape", [(0, 5, 3), (5, 0, 3), (4, 5, 0), (1, 1, 1)])
def test_quickshift_cuda_empty_and_tiny(shape):
    img = np.random.default_rng(0).random(shape)
    for ref, got in zip(sk.quickshift(img, convert2lab=False, kernel_size=1.5, return_tree=True),
                        quickshift(cp.asarray(img), convert2lab=False, kernel_size=1.5, return_tree=True)):
        same(ref, got)


def test_quickshift_cuda_torch():
    torch = pytest.importorskip("torch")
    img = ASTRONAUT[:30, :40]
    got = quickshift(torch.as_tensor(img, device="cuda"), kernel_size=2)
    assert isinstance(got, torch.Tensor) and got.is_cuda
    np.testing.assert_array_equal(got.cpu().numpy(), sk.quickshift(img, kernel_size=2))


# slic: the k-means loop on the device, label for label scikit-image's (the connectivity pass on the host)
@pytest.mark.parametrize("kw", [{}, {"n_segments": 400, "compactness": 3, "sigma": 1},
                                {"slic_zero": True, "n_segments": 60},
                                {"convert2lab": False, "start_label": 0, "max_num_iter": 25},
                                {"enforce_connectivity": False, "spacing": (2, 1)},
                                {"min_size_factor": 0.05, "max_size_factor": 1.5}])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_slic_cuda_rgb(kw, dtype):
    img = ASTRONAUT if dtype == "uint8" else (ASTRONAUT / 255).astype(dtype)
    same(sk.slic(img, **kw), slic(cp.asarray(img), **kw))


def test_slic_cuda_volume_spacing_mask_and_channel_axis():
    rng = np.random.default_rng(0)
    vol = rng.random((14, 20, 22))
    mask = np.zeros(vol.shape, bool)
    mask[2:12, 3:18, 2:20] = True
    for kw in ({"n_segments": 30}, {"n_segments": 20, "spacing": (2, 1, 1), "slic_zero": True},
               {"n_segments": 12, "mask": mask}):
        given = {k: cp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        same(sk.slic(vol, channel_axis=None, **kw), slic(cp.asarray(vol), channel_axis=None, **given))
    mask2 = np.zeros(ASTRONAUT.shape[:2], bool)
    mask2[20:140, 30:170] = True
    same(sk.slic(ASTRONAUT, n_segments=50, mask=mask2), slic(cp.asarray(ASTRONAUT), n_segments=50,
                                                            mask=cp.asarray(mask2)))
    moved = np.moveaxis(ASTRONAUT, -1, 0)
    same(sk.slic(moved, channel_axis=0), slic(cp.asarray(moved), channel_axis=0))


def test_slic_cuda_many_segments_and_channels():
    # small steps (many cells per window axis) and a channel count without a specialised path
    rng = np.random.default_rng(1)
    img = rng.random((40, 50, 5))
    for kw in ({"n_segments": 1500, "compactness": 0.5}, {"n_segments": 4}):
        same(sk.slic(img, convert2lab=False, **kw), slic(cp.asarray(img), convert2lab=False, **kw))

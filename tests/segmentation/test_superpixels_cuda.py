"""The CUDA engines of segmentation.quickshift (and what else has one here) against scikit-image 0.26 on
real images and the argument forms the generated registry cases do not reach (return_tree, float64 and
float32 images of real size, no-parent pixels, empty images, PyTorch tensors). Skipped without a GPU."""
import numpy as np
import pytest
from skimage import data
from skimage import segmentation as sk

from ndimg.segmentation._quickshift import quickshift

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
        for ref, got in zip(sk.quickshift(img, return_tree=True, **kw),
                            quickshift(cp.asarray(img), return_tree=True, **kw)):
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

"""segmentation.random_walker's CUDA engine against scikit-image 0.26 where the generated registry cases do
not reach: every mode's full probabilities, 3-D spacing, channels, isolated pixels with copy=False, the
prob_tol warning, PyTorch tensors. Skipped without a GPU."""
import warnings

import numpy as np
import pytest
from skimage import segmentation as sks

from helpers import two_label_seeds
from ndimg import segmentation as nds

cp = pytest.importorskip("cupy")
try:
    cp.zeros(1)
except Exception:  # pragma: no cover - CuPy without a device
    pytest.skip("no CUDA device", allow_module_level=True)


def _blob(shape, seed=0):
    rng = np.random.default_rng(seed)
    grid = np.indices(shape).astype(float)
    centre = np.array(shape, float).reshape((-1,) + (1,) * len(shape)) / 2
    return np.exp(-((grid - centre) ** 2).sum(0) / (2 * (min(shape) / 4) ** 2)) + 0.05 * rng.random(shape)


def _close(ref, got):
    assert isinstance(got, cp.ndarray)
    got = cp.asnumpy(got)
    assert got.dtype == np.asarray(ref).dtype
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("mode", ["cg", "cg_j", "bf", None])
def test_random_walker_cuda_modes(mode):
    data, labels = _blob((60, 70)), two_label_seeds((60, 70))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # 'cg' warns about UMFPACK on both
        ref = sks.random_walker(data, labels, mode=mode, return_full_prob=True, tol=1e-6)
        got = nds.random_walker(cp.asarray(data), cp.asarray(labels), mode=mode, return_full_prob=True, tol=1e-6)
        _close(ref, got)
        _close(sks.random_walker(data, labels, mode=mode), nds.random_walker(cp.asarray(data), cp.asarray(labels),
                                                                             mode=mode))


def test_random_walker_cuda_3d_spacing_and_channels():
    vol, labels = _blob((12, 14, 16)), two_label_seeds((12, 14, 16), 1)
    kw = dict(spacing=(2.0, 1.0, 0.5), return_full_prob=True, tol=1e-6)
    _close(sks.random_walker(vol, labels, **kw), nds.random_walker(cp.asarray(vol), cp.asarray(labels), **kw))
    data = np.stack([_blob((18, 21), s) for s in range(3)], axis=0)
    labels = two_label_seeds((18, 21))
    kw = dict(channel_axis=0, return_full_prob=True, tol=1e-6)
    _close(sks.random_walker(data, labels, **kw), nds.random_walker(cp.asarray(data), cp.asarray(labels), **kw))


def test_random_walker_cuda_isolated_pixels_and_copy_false():
    data = _blob((20, 25))
    labels = two_label_seeds(data.shape)
    labels[:, 10] = -1
    labels[:, 11:] = 0
    labels[5, 15] = 2
    labels[:, 18] = -1
    ref_labels, got_labels = labels.copy(), cp.asarray(labels)
    ref = sks.random_walker(data, ref_labels, copy=False)
    got = nds.random_walker(cp.asarray(data), got_labels, copy=False)
    np.testing.assert_array_equal(cp.asnumpy(got), ref)
    np.testing.assert_array_equal(cp.asnumpy(got_labels), ref_labels)


def test_random_walker_cuda_bf_beyond_the_dense_size():
    # 100 x 90 pixels leave more unlabeled ones than the dense solve takes: cuSOLVER's sparse QR per label
    data, labels = _blob((100, 90)), two_label_seeds((100, 90))
    ref = sks.random_walker(data, labels, mode="bf", return_full_prob=True)
    try:
        got = nds.random_walker(cp.asarray(data), cp.asarray(labels), mode="bf", return_full_prob=True)
    except NotImplementedError as e:   # a CuPy without cusolverSp: the clear error, nothing else
        assert "cg_j" in str(e)
        return
    _close(ref, got)


@pytest.mark.parametrize("mode", ["bf", "cg_j"])
def test_random_walker_cuda_one_label(mode):
    # scipy's direct solver returns one label's probabilities as a vector: skimage's argmax then runs over the
    # pixels (its labels are not all 1); the CUDA engine follows it
    data, labels = _blob((10, 12)), np.zeros((10, 12), np.int64)
    labels[2, 3] = labels[7, 8] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = sks.random_walker(data, labels, mode=mode)
        got = cp.asnumpy(nds.random_walker(cp.asarray(data), cp.asarray(labels), mode=mode))
    if mode == "cg_j":
        np.testing.assert_array_equal(got, ref)
        return
    # 'bf': the solution is 1 to rounding everywhere, so which pixel its argmax finds is the solver's rounding
    # (the H200's LU found another than scipy's SuperLU): every unlabeled pixel takes that one index + 1
    seeds = labels > 0
    np.testing.assert_array_equal(got[seeds], ref[seeds])
    assert np.unique(got[~seeds]).size == np.unique(ref[~seeds]).size == 1
    assert 1 <= got[~seeds][0] <= (~seeds).sum()


def test_random_walker_cuda_prob_tol_warning():
    data, labels = _blob((20, 25)), two_label_seeds((20, 25))
    with pytest.warns(UserWarning, match="prob_tol"):
        sks.random_walker(data, labels, beta=1e5, tol=1e-1, prob_tol=0)
    with pytest.warns(UserWarning, match="prob_tol"):
        nds.random_walker(cp.asarray(data), cp.asarray(labels), beta=1e5, tol=1e-1, prob_tol=0)


def test_random_walker_cuda_torch():
    torch = pytest.importorskip("torch")
    data, labels = _blob((20, 25)), two_label_seeds((20, 25))
    got = nds.random_walker(torch.as_tensor(data, device="cuda"), torch.as_tensor(labels, device="cuda"))
    assert isinstance(got, torch.Tensor) and got.is_cuda
    np.testing.assert_array_equal(got.cpu().numpy(), sks.random_walker(data, labels))

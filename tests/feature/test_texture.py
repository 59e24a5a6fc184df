"""Texture descriptors and the Moravec/FAST corner family beyond the generated cases: every LBP method at
point counts past int32's bits, co-occurrence offsets that leave the image, properties of scikit-image's own
matrices, multi-block LBP grids, FAST's segment test at every n, and the calls scikit-image answers by
reading outside its arrays (ndimg raises IndexError there instead)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import skimage.feature as skf
from skimage.morphology import octagon

import ndimg.feature as F
from helpers import to_engine, to_host


def _same(got, expected, exact=True):
    got = to_host(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if exact:
        np.testing.assert_array_equal(got, expected)
    else:   # sums in another order (GPU transforms and reductions, the sub-pixel 2x2 solves)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("method", ["default", "ror", "uniform", "nri_uniform", "var"])
@pytest.mark.parametrize("P, R", [(8, 1), (16, 2), (24, 3), (32, 3), (40, 4.5), (130, 3), (3, 0.5), (1, 1), (0, 1)])
def test_lbp_every_method(engine, rng, method, P, R):
    img = (rng.random((31, 37)) * 6).astype(np.uint8)   # few levels: ties with the centre
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(F.local_binary_pattern(to_engine(img, engine), P, R, method), skf.local_binary_pattern(img, P, R, method))


def test_lbp_float_warns(engine, rng):
    img = rng.random((9, 10))
    with pytest.warns(UserWarning, match="floating-point"):
        got = F.local_binary_pattern(to_engine(img, engine), 8, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(got, skf.local_binary_pattern(img, 8, 1))


@pytest.mark.parametrize("dtype, levels", [(np.uint8, None), (np.uint16, 700), (np.int32, 40), (np.uint64, 300)])
def test_glcm_offsets(engine, rng, dtype, levels):
    img = (rng.random((23, 29)) * (levels or 256)).astype(dtype)
    distances = [0, 1, 2.4, 7, 30]
    angles = [0, np.pi / 4, np.pi / 2, 3 * np.pi / 4, np.pi, -np.pi / 3, 5.0]
    for kw in (dict(), dict(symmetric=True), dict(normed=True), dict(symmetric=True, normed=True)):
        expected = skf.graycomatrix(img, distances, angles, levels=levels, **kw)
        _same(F.graycomatrix(to_engine(img, engine), distances, angles, levels=levels, **kw), expected)


@pytest.mark.parametrize("prop", ["contrast", "dissimilarity", "homogeneity", "ASM", "energy", "correlation",
                                  "entropy", "variance", "mean", "std"])
def test_glcm_props(engine, rng, prop):
    img = (rng.random((40, 30)) * 16).astype(np.uint8)
    img[:10] = 3   # a flat band: a matrix with one entry (zero deviations: correlation 1)
    P = skf.graycomatrix(img, [1, 3], [0, np.pi / 2, 2.0], levels=16)
    P[..., 0, 1] = 0   # an empty matrix
    _same(F.graycoprops(to_engine(P, engine), prop), skf.graycoprops(P, prop), exact=engine == "cpu")


def test_glcm_refusals():
    with pytest.raises(ValueError, match="Big-endian"):
        F.graycomatrix(np.ones((5, 5), ">u2"), [1], [0], levels=4)
    with pytest.raises(ValueError, match="levels argument is required"):
        F.graycomatrix(np.ones((5, 5), np.uint16), [1], [0])
    with pytest.raises(ValueError, match="Negative"):
        F.graycomatrix(-np.ones((5, 5), np.int8), [1], [0])


def test_multiblock_lbp(engine, rng):
    img = rng.random((30, 41))
    ii = np.cumsum(np.cumsum(img, 0), 1)
    # (-1, 0): the top rectangles start above the image; scikit-image's sums still read only inside it
    for r, c, w, h in [(0, 0, 1, 1), (0, 0, 13, 10), (3, 5, 2, 7), (17, 20, 7, 4), (-1, 0, 2, 2)]:
        assert F.multiblock_lbp(to_engine(ii, engine), r, c, w, h) == skf.multiblock_lbp(ii, r, c, w, h)


def test_multiblock_lbp_outside_raises():
    """scikit-image reads past the integral image here (a value of whatever memory lies there); ndimg
    refuses the grid."""
    ii = np.cumsum(np.cumsum(np.ones((10, 10)), 0), 1)
    with pytest.raises(IndexError):
        F.multiblock_lbp(ii, 5, 5, 3, 3)
    with pytest.raises(IndexError):
        F.multiblock_lbp(ii, -2, 0, 2, 2)


@pytest.mark.parametrize("n", [-1, 0, 1, 5, 9, 12, 15, 16, 17, 100])
@pytest.mark.parametrize("threshold", [0.15, 0.0, -0.2])
def test_fast_every_n(engine, rng, n, threshold):
    img = np.zeros((40, 44))
    img[10:30, 12:33] = 1   # corners and straight edges
    img[3:6, 38:41] = 1     # a blob: all 16 circle pixels darker
    img += 0.05 * rng.random(img.shape)
    img = img.astype(np.float32)
    _same(F.corner_fast(to_engine(img, engine), n, threshold), skf.corner_fast(img, n, threshold))


def test_moravec_nan_and_windows(engine, rng):
    img = rng.random((25, 30))
    img[7, 9] = np.nan
    for w in (0, 1, 2, 3):
        _same(F.corner_moravec(to_engine(img, engine), w), skf.corner_moravec(img, w))


def test_orientations(engine, rng):
    img = rng.random((50, 60))
    # within the image padded by (rows // 2, cols // 2) of the mask at both ends of both axes, as there
    corners = np.array([[0, 0], [47, 56], [10, 20], [25, 3], [3, 56]], dtype=np.intp)
    for mask in (octagon(3, 2), np.ones((5, 3)), np.ones((3, 7))):
        _same(F.corner_orientations(to_engine(img, engine), to_engine(corners, engine), mask),
              skf.corner_orientations(img, corners, mask), exact=engine == "cpu")


def test_orientations_refusals():
    img = np.random.default_rng(0).random((20, 20))
    corners = np.array([[5, 5]], dtype=np.intp)
    with pytest.raises(ValueError, match="C-contiguous"):   # as scikit-image's memoryview
        F.corner_orientations(np.asfortranarray(img), corners, np.ones((3, 3)))
    with pytest.raises(ValueError, match="dtype mismatch"):
        F.corner_orientations(img, corners.astype(np.float64), np.ones((3, 3)))
    # scikit-image reads past its padded image for a corner outside it; ndimg refuses
    with pytest.raises(IndexError):
        F.corner_orientations(img, np.array([[30, 5]], dtype=np.intp), np.ones((3, 3)))


def test_subpix_dot_edge_and_none(engine):
    """A checkerboard corner (dot), a step edge and a flat patch, each classified as scikit-image does."""
    img = np.zeros((60, 60))
    img[:20, :20] = 1
    img[20:40, 20:40] = 1
    img[45:, :] = 0.7
    corners = np.array([[20, 20], [40, 40], [46, 30], [10, 45], [1, 1], [58, 58]])
    for ws in (7, 11, 8):
        _same(F.corner_subpix(to_engine(img, engine), corners, window_size=ws),
              skf.corner_subpix(img, corners, window_size=ws), exact=False)
    with pytest.raises(ValueError, match="broadcast"):   # a window cut by the image's edge, as there
        F.corner_subpix(img, np.array([[0, 5]]))


@pytest.mark.parametrize("tshape", [(5, 7), (1, 6), (1, 1), (9, 1)])
@pytest.mark.parametrize("kw", [dict(), dict(pad_input=True), dict(mode="reflect"), dict(mode="wrap", pad_input=True),
                                dict(constant_values=2.0)])
def test_match_template(engine, rng, tshape, kw):
    img = rng.random((40, 47)).astype(np.float32)
    tpl = img[10:10 + tshape[0], 20:20 + tshape[1]].astype(np.float64)
    got = F.match_template(to_engine(img, engine), to_engine(tpl, engine), **kw)
    expected = skf.match_template(img, tpl, **kw)
    if engine == "cpu":
        _same(got, expected)
        return
    # the float32 image's transform rounds otherwise on cuFFT than on pocketfft (both engines and scikit-image
    # transform it in float32); its error is absolute in the correlation, so near-zero responses exceed any
    # rtol. Held to scikit-image's own largest float32 error (against its float64 computation): numpy.fft's
    # float32 transforms in ndimg's place stay within 0.27 of it over 1200 seeded calls here
    own = np.abs(skf.match_template(img.astype(np.float64), tpl, **kw) - expected).max()
    got = to_host(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=max(1e-6, own))


def test_match_template_3d(engine, rng):
    img = rng.random((15, 17, 19))
    for tpl in (img[2:6, 3:8, 4:7].copy(), img[1:2, 3:5, 4:7].copy()):
        for kw in (dict(), dict(pad_input=True)):
            _same(F.match_template(to_engine(img, engine), to_engine(tpl, engine), **kw),
                  skf.match_template(img, tpl, **kw), exact=engine == "cpu")


@pytest.mark.parametrize("chunks", [(10, 13), ((1, 30, 6), (40, 1)), ((3, 34), (5, 5, 31))])
def test_glcm_dask(engine, rng, chunks):
    """Pairs across chunk borders (offsets longer than a chunk, and than the image), counted once each."""
    da = pytest.importorskip("dask.array")
    img = (rng.random((37, 41)) * 300).astype(np.uint16)
    distances, angles = [1, 3, 50, 2.4], [0, np.pi / 4, np.pi / 2, 3 * np.pi / 4, -1.0, np.pi, 5.0]
    for kw in (dict(), dict(symmetric=True, normed=True)):
        got = F.graycomatrix(da.from_array(to_engine(img, engine), chunks=chunks), distances, angles, levels=300, **kw)
        assert isinstance(got, da.Array)
        _same(got.compute(scheduler="sync"), skf.graycomatrix(img, distances, angles, levels=300, **kw))
    # the values are checked with the chunks: when the result is computed
    lazy = F.graycomatrix(da.from_array(to_engine(img, engine), chunks=chunks), [1], [0], levels=10)
    with pytest.raises(ValueError, match="smaller than the number of levels"):
        lazy.compute(scheduler="sync")

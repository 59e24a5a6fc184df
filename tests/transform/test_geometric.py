"""ndimg.transform's geometric transform classes, estimate_transform and matrix_transform against
scikit-image 0.26's: parameters, estimation (from_estimate and the deprecated estimate), failures,
inverses, composition, n-D, and the coordinates' engine (NumPy in -> NumPy out, CuPy in -> CuPy out)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import skimage.transform as st

import ndimg.transform as nt
from ndimg.transform._geometric import TRANSFORMS
from helpers import CUDA_READY

RNG = np.random.default_rng(2027)
SRC = RNG.random((30, 2)) * 200
DST = SRC @ np.array([[1.1, 0.2], [-0.15, 0.9]]) + [5, -3] + RNG.normal(scale=0.5, size=SRC.shape)
TYPES = ("euclidean", "similarity", "affine", "projective", "polynomial", "fundamental", "essential")
HMAT = ("EuclideanTransform", "SimilarityTransform", "AffineTransform", "ProjectiveTransform")


def _both(name):
    return getattr(nt, name), getattr(st, name)


@pytest.mark.parametrize("ttype", TYPES)
def test_estimate_transform_like_scikit_image(ttype):
    ours, ref = nt.estimate_transform(ttype, SRC, DST), st.estimate_transform(ttype, SRC, DST)
    assert type(ours).__name__ == type(ref).__name__
    np.testing.assert_allclose(ours.params, ref.params, rtol=1e-9, atol=1e-12)
    pts = RNG.random((100, 2)) * 200
    np.testing.assert_allclose(ours(pts), ref(pts), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(ours.residuals(SRC, DST), ref.residuals(SRC, DST), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", HMAT)
@pytest.mark.parametrize("ndim", [2, 3, 4])
def test_nd_estimation_and_inverse(name, ndim):
    ours, ref = _both(name)
    src = RNG.random((40, ndim)) * 50
    dst = src @ (np.eye(ndim) + 0.1 * RNG.random((ndim, ndim))) + RNG.random(ndim) * 3
    a, b = ours.from_estimate(src, dst), ref.from_estimate(src, dst)
    np.testing.assert_allclose(a.params, b.params, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.inverse(dst), b.inverse(dst), rtol=1e-9, atol=1e-9)
    assert isinstance(a.inverse, ours)
    assert a.dimensionality == ndim


def test_weighted_projective_and_polynomial():
    w = RNG.random(len(SRC)) + 0.1
    for ttype, kw in (("projective", {}), ("polynomial", {"order": 3})):
        a = nt.estimate_transform(ttype, SRC, DST, weights=w, **kw)
        b = st.estimate_transform(ttype, SRC, DST, weights=w, **kw)
        np.testing.assert_allclose(a.params, b.params, rtol=1e-8, atol=1e-10)
    # positional weights go through estimate_transform's *args
    a = nt.estimate_transform("projective", SRC, DST, w)
    np.testing.assert_allclose(a.params, st.estimate_transform("projective", SRC, DST, w).params, rtol=1e-9)


@pytest.mark.parametrize("kw", [dict(scale=(2, 3), rotation=0.4, shear=(0.1, 0.3), translation=(4, 5)),
                                dict(scale=0.5), dict(shear=0.2), dict(rotation=1.0, translation=(1, -1))])
def test_affine_implicit_parameters(kw):
    a, b = nt.AffineTransform(**kw), st.AffineTransform(**kw)
    np.testing.assert_allclose(a.params, b.params, rtol=1e-15, atol=1e-15)
    for prop in ("scale", "rotation", "shear", "translation"):
        np.testing.assert_allclose(getattr(a, prop), getattr(b, prop), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["EuclideanTransform", "SimilarityTransform"])
@pytest.mark.parametrize("kw", [dict(rotation=0.3, translation=(1, 2)), dict(rotation=(0.1, 0.2, 0.3)),
                                dict(translation=(1, 2, 3, 4)), dict(rotation=(0.1, 0.2, 0.3), translation=5)])
def test_euclidean_similarity_implicit_parameters(name, kw):
    ours, ref = _both(name)
    extra = dict(scale=1.5) if name == "SimilarityTransform" else {}
    a, b = ours(**kw, **extra), ref(**kw, **extra)
    np.testing.assert_allclose(a.params, b.params, rtol=1e-15, atol=1e-15)
    if a.dimensionality <= 3:
        np.testing.assert_allclose(a.rotation, b.rotation)
        if extra:
            np.testing.assert_allclose(a.scale, b.scale)


def test_similarity_vector_scale_and_warning():
    np.testing.assert_array_equal(nt.SimilarityTransform(scale=[2, 3, 4], translation=10).params,
                                  st.SimilarityTransform(scale=[2, 3, 4], translation=10).params)
    with pytest.warns(FutureWarning, match="scalar `scale`"):
        tf = nt.SimilarityTransform(scale=4, dimensionality=3)
    np.testing.assert_array_equal(tf([[1, 1, 1]]), [[4, 4, 4]])


@pytest.mark.parametrize("call, exc", [
    (lambda m: m.AffineTransform(np.eye(3), scale=2), ValueError),
    (lambda m: m.AffineTransform(scale=(1, 2, 3)), ValueError),
    (lambda m: m.AffineTransform(scale=2, dimensionality=3), ValueError),
    (lambda m: m.ProjectiveTransform(np.eye(3)[:2]), ValueError),
    (lambda m: m.ProjectiveTransform(np.eye(2)), NotImplementedError),
    (lambda m: m.ProjectiveTransform(np.eye(4), dimensionality=2), ValueError),
    (lambda m: m.FundamentalMatrixTransform(np.eye(4)), NotImplementedError),
    (lambda m: m.EuclideanTransform(rotation=(1, 2)), ValueError),
    (lambda m: m.EuclideanTransform(rotation=0.2, translation=(1, 2, 3)), ValueError),
    (lambda m: m.EssentialMatrixTransform(rotation=np.eye(3)), ValueError),
    (lambda m: m.EssentialMatrixTransform(rotation=np.eye(3), translation=(0, 0, 2)), ValueError),
    (lambda m: m.EssentialMatrixTransform(np.eye(3)), TypeError),
    (lambda m: m.PolynomialTransform(np.eye(3)), ValueError),
    (lambda m: m.PolynomialTransform(dimensionality=3), NotImplementedError),
    (lambda m: m.PolynomialTransform().inverse, NotImplementedError),
    (lambda m: m.SimilarityTransform() + m.PolynomialTransform(), TypeError),
    (lambda m: m.estimate_transform("foobar", SRC, DST), ValueError),
    (lambda m: m.estimate_transform("fundamental", SRC[:7], DST[:7]), ValueError),
    (lambda m: m.estimate_transform("polynomial", SRC, DST, order=1.5), ValueError),
])
def test_refusals_like_scikit_image(call, exc):
    with pytest.raises(exc):
        call(st)
    with pytest.raises(exc):
        call(nt)


def test_composition():
    a = nt.SimilarityTransform(scale=0.5, rotation=0.3) + nt.SimilarityTransform(scale=2, rotation=0.9)
    b = st.SimilarityTransform(scale=0.5, rotation=0.3) + st.SimilarityTransform(scale=2, rotation=0.9)
    assert type(a) is nt.SimilarityTransform
    np.testing.assert_allclose(a.params, b.params, rtol=1e-15)
    mixed = nt.AffineTransform(scale=(1, 2)) + nt.EuclideanTransform(rotation=1)
    assert type(mixed) is nt.ProjectiveTransform


@pytest.mark.parametrize("ttype, bad_src, msg", [
    ("projective", np.zeros((10, 2)), "ProjectiveTransform: Scaling generated NaN values"),
    ("affine", np.zeros((10, 2)), "AffineTransform: Scaling generated NaN values"),
    ("euclidean", np.zeros((10, 2)), "EuclideanTransform: Poor conditioning for estimation"),
    ("fundamental", np.ones((10, 2)), "FundamentalMatrixTransform: Scaling failed for input points"),
])
def test_failed_estimation(ttype, bad_src, msg):
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # no stray RuntimeWarning from the NaN paths
        ours = nt.estimate_transform(ttype, bad_src, bad_src if ttype != "fundamental" else DST[:10])
    ref = st.estimate_transform(ttype, bad_src, bad_src if ttype != "fundamental" else DST[:10])
    assert not ours and not ref
    assert str(ours) == str(ref) == msg
    from ndimg.util import FailedEstimationAccessError

    with pytest.raises(FailedEstimationAccessError, match="has no attribute 'params'"):
        ours.params
    tf = TRANSFORMS[ttype].identity()
    with pytest.warns(FutureWarning, match=f"Please use `{type(tf).__name__}.from_estimate`"):
        assert not tf.estimate(bad_src, bad_src if ttype != "fundamental" else DST[:10])
    assert np.all(np.isnan(tf.params))


def test_projective_degenerate_line():
    src = RNG.random((4, 2)) * 100
    src[:, 1] = 3.0
    dst = RNG.random((4, 2)) * 100
    ours, ref = nt.ProjectiveTransform.from_estimate(src, dst), st.ProjectiveTransform.from_estimate(src, dst)
    assert str(ours) == str(ref) == "ProjectiveTransform: Right singular vector has 0 final element"


def test_piecewise_affine_like_scikit_image():
    src = np.stack(np.meshgrid(np.linspace(0, 300, 12), np.linspace(0, 200, 9)), -1).reshape(-1, 2)
    dst = src + RNG.normal(scale=4, size=src.shape)
    a, b = nt.PiecewiseAffineTransform.from_estimate(src, dst), st.PiecewiseAffineTransform.from_estimate(src, dst)
    pts = RNG.random((200_000, 2)) * [340, 240] - 20      # some outside the mesh: -1 there
    np.testing.assert_allclose(a(pts), b(pts), rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(a.inverse(pts), b.inverse(pts), rtol=1e-10, atol=1e-9)
    assert len(a.affines) == len(b.affines)
    for x, y in zip(a.affines, b.affines):
        np.testing.assert_allclose(x.params, y.params, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("ndim", [2, 3])
def test_point_location_equals_qhull(ndim):
    """The point location both engines run (a grid of candidate simplices, here through NumPy) finds the
    simplex scipy's find_simplex finds, and the maps through it are __call__'s."""
    from ndimg.transform._geometric import _piecewise, _SimplexGrid

    src = RNG.random((150, ndim)) * 100
    tf = nt.PiecewiseAffineTransform.from_estimate(src, src + RNG.normal(scale=2, size=src.shape))
    pts = RNG.random((100_000, ndim)) * 120 - 10
    simplex = _SimplexGrid(tf._tesselation).locate(np, pts)
    np.testing.assert_array_equal(simplex, tf._tesselation.find_simplex(pts))
    entries = np.stack([a.params for a in tf.affines], axis=-1)
    np.testing.assert_array_equal(_piecewise(np, entries, simplex, pts), tf(pts))


def test_piecewise_affine_degenerate_simplex():
    src = np.array([[0, 192, 256], [0, 256, 256], [5, 0, 192], [5, 64, 0], [5, 64, 64], [5, 64, 256],
                    [5, 192, 192], [5, 256, 256], [0, 192, 256]])
    dst = np.array([[0, 142, 206], [0, 206, 206], [5, -50, 142], [5, 14, 0], [5, 14, 64], [5, 14, 206],
                    [5, 142, 142], [5, 206, 206], [0, 142, 206]])   # one flat simplex (scikit-image's gh case)
    ours, ref = nt.PiecewiseAffineTransform.from_estimate(src, dst), st.PiecewiseAffineTransform.from_estimate(src, dst)
    assert not ours and not ref
    assert str(ours) == str(ref)
    with pytest.warns(FutureWarning):
        tf = nt.PiecewiseAffineTransform()
        assert not tf.estimate(src, dst)
    assert [np.isnan(a.params).all() for a in tf.affines] == [i == 4 for i in range(len(tf.affines))]


def test_thin_plate_spline_like_scikit_image():
    src = RNG.random((25, 2)) * 100
    dst = src + RNG.normal(scale=3, size=src.shape)
    a = nt.ThinPlateSplineTransform.from_estimate(src, dst)
    b = st.ThinPlateSplineTransform.from_estimate(src, dst)
    pts = RNG.random((300_000, 2)) * 100          # several row blocks
    np.testing.assert_allclose(a(pts), b(pts), rtol=1e-9, atol=1e-9)
    with pytest.raises(ValueError, match="must have shape"):
        a(np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="Transformation is undefined"):
        nt.ThinPlateSplineTransform()(src)


def test_matrix_transform_and_array_protocol():
    m = np.array([[1.1, 0.2, 3.0], [-0.1, 0.9, -2.0], [1e-3, 2e-3, 1.0]])
    np.testing.assert_allclose(nt.matrix_transform(SRC, m), st.matrix_transform(SRC, m), rtol=1e-13)
    np.testing.assert_array_equal(np.array(nt.ProjectiveTransform(m)), m)
    # the homogeneous coordinate exactly 0 divides by eps, not by zero (gh-3926)
    pt = np.array([[-(m[2, 1] + 1) / m[2, 0], 0.0]])
    pt[0, 1] = -(m[2, 0] * pt[0, 0] + 1) / m[2, 1]
    assert np.isfinite(nt.matrix_transform(pt, m)).all()


def test_large_coordinates_use_blocks():
    """Coordinates in many row blocks (threads) equal one NumPy pass."""
    tf = nt.ProjectiveTransform(np.array([[1.1, 0.2, 3.0], [-0.1, 0.9, -2.0], [1e-3, 2e-3, 1.0]]))
    pts = RNG.random((1_000_003, 2)) * 1000
    np.testing.assert_allclose(tf(pts), st.ProjectiveTransform(tf.params)(pts), rtol=1e-13)
    poly = st.estimate_transform("polynomial", SRC, DST, order=3)
    np.testing.assert_allclose(nt.PolynomialTransform(poly.params)(pts), poly(pts), rtol=1e-12, atol=1e-9)


@pytest.mark.skipif(not CUDA_READY, reason="no CUDA device")
def test_cupy_coordinates_stay_on_the_gpu():
    import cupy

    pts = RNG.random((5000, 2)) * 200
    for ttype in TYPES:
        tf = nt.estimate_transform(ttype, cupy.asarray(SRC), cupy.asarray(DST))
        ref = st.estimate_transform(ttype, SRC, DST)
        out = tf(cupy.asarray(pts))
        assert isinstance(out, cupy.ndarray)
        np.testing.assert_allclose(out.get(), ref(pts), rtol=1e-9, atol=1e-9)
        res = tf.residuals(cupy.asarray(SRC), cupy.asarray(DST))
        assert isinstance(res, cupy.ndarray)
        np.testing.assert_allclose(res.get(), ref.residuals(SRC, DST), rtol=1e-9, atol=1e-12)
    tps = nt.ThinPlateSplineTransform.from_estimate(SRC[:20], DST[:20])
    out = tps(cupy.asarray(pts))
    assert isinstance(out, cupy.ndarray)
    np.testing.assert_allclose(out.get(), st.ThinPlateSplineTransform.from_estimate(SRC[:20], DST[:20])(pts),
                               rtol=1e-9, atol=1e-9)
    pw, ref = nt.PiecewiseAffineTransform.from_estimate(SRC, DST), st.PiecewiseAffineTransform.from_estimate(SRC, DST)
    out = pw(cupy.asarray(pts))
    assert isinstance(out, cupy.ndarray)
    np.testing.assert_allclose(out.get(), ref(pts), rtol=1e-9, atol=1e-9)


def test_dask_coordinates_per_block_of_rows():
    da = pytest.importorskip("dask.array")
    pts = RNG.random((10_001, 2)) * 200
    lazy_pts = da.from_array(pts, chunks=(1500, 1))       # columns split: rows are put together first
    tps = nt.ThinPlateSplineTransform.from_estimate(SRC[:20], DST[:20])
    for tf in [nt.estimate_transform(t, SRC, DST) for t in TYPES] + [
            nt.PiecewiseAffineTransform.from_estimate(SRC, DST), tps]:
        out = tf(lazy_pts)
        assert isinstance(out, da.Array)
        np.testing.assert_array_equal(out.compute(), tf(pts))

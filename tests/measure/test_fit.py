"""measure.CircleModel / EllipseModel / LineModelND / ransac against scikit-image 0.26 on noisy data:
same fitted parameters, residuals and predictions, the same inliers from the same rng, the same
deprecation warnings and failures; GPU data computed on the host and returned as CuPy; accelerate
substitutes the classes themselves."""
import warnings

import numpy as np
import pytest
import skimage.measure as sm

import ndimg.measure as nm
from helpers import CUDA_READY

RNG = np.random.default_rng(26)
T = np.linspace(0, 2 * np.pi, 60, endpoint=False)
CIRCLE = np.c_[10 + 7 * np.cos(T), -3 + 7 * np.sin(T)] + RNG.normal(0, 0.2, (60, 2))
_C, _S = np.cos(0.7), np.sin(0.7)
ELLIPSE = np.c_[5 + 9 * np.cos(T) * _C - 4 * np.sin(T) * _S, 2 + 9 * np.cos(T) * _S + 4 * np.sin(T) * _C] \
    + RNG.normal(0, 0.1, (60, 2))
LINE3 = (np.array([1.0, 2, 3]) + np.linspace(-5, 5, 40)[:, None] * np.array([0.6, 0.0, 0.8])
         + RNG.normal(0, 0.05, (40, 3)))
DATA = {"CircleModel": CIRCLE, "EllipseModel": ELLIPSE, "LineModelND": LINE3}
ATTRS = {"CircleModel": ("center", "radius"), "EllipseModel": ("center", "axis_lengths", "theta"),
         "LineModelND": ("origin", "direction")}


def _outliers(data, every=4, seed=1):
    out = data.copy()
    out[::every] += np.random.default_rng(seed).normal(0, 15, out[::every].shape)
    return out


@pytest.mark.parametrize("name", list(DATA))
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_from_estimate_like_skimage(name, dtype):
    data = (DATA[name] * (10 if dtype == "int32" else 1)).astype(dtype)
    ours, ref = getattr(nm, name).from_estimate(data), getattr(sm, name).from_estimate(data)
    for a in ATTRS[name]:
        np.testing.assert_allclose(getattr(ours, a), getattr(ref, a), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(ours.residuals(data), ref.residuals(data), rtol=1e-6, atol=1e-7)


def test_predictions_like_skimage():
    t = np.linspace(0, 5, 7)
    for name in ("CircleModel", "EllipseModel"):
        ours, ref = getattr(nm, name).from_estimate(DATA[name]), getattr(sm, name).from_estimate(DATA[name])
        np.testing.assert_allclose(ours.predict_xy(t), ref.predict_xy(t), rtol=1e-10)
        np.testing.assert_allclose(ours.predict_xy(t.reshape(7, 1)), ref.predict_xy(t.reshape(7, 1)), rtol=1e-10)
    line2 = LINE3[:, :2]
    ours, ref = nm.LineModelND.from_estimate(line2), sm.LineModelND.from_estimate(line2)
    x = np.array([0.0, 1.5, 4])
    np.testing.assert_allclose(ours.predict_y(x), ref.predict_y(x), rtol=1e-10)
    np.testing.assert_allclose(ours.predict_x(x), ref.predict_x(x), rtol=1e-10)
    np.testing.assert_allclose(ours.predict(x, axis=1), ref.predict(x, axis=1), rtol=1e-10)


def test_constructors_and_errors_like_skimage():
    for mod in (nm, sm):
        m = mod.CircleModel((1, 2), 3)
        np.testing.assert_array_equal(m.residuals(np.array([[1.0, 5], [4, 2], [1, 2]])), [0, 0, 3])
        with pytest.raises(ValueError, match="Center coordinates should be length 2"):
            mod.EllipseModel((1, 2, 3), (1, 2), 0)
        with pytest.raises(ValueError, match="Axis lengths should be length 2"):
            mod.EllipseModel((1, 2), (1,), 0)
        with pytest.raises(ValueError, match="Direction vector"):
            mod.LineModelND((0, 0), (1, 0, 0))
        with pytest.raises(ValueError, match="Line parallel to axis 1"):
            mod.LineModelND((0, 0), (1, 0)).predict_x(np.array([1.0]))
        with pytest.raises(ValueError, match=r"shape \(N, 2\)"):
            mod.CircleModel((1, 2), 3).residuals(np.zeros((4, 3)))


@pytest.mark.parametrize("name, data", [("CircleModel", np.ones((5, 2))), ("EllipseModel", np.zeros((4, 2))),
                                        ("LineModelND", np.ones((1, 3))), ("EllipseModel", np.ones((8, 2)))])
def test_failed_estimation_like_skimage(name, data):
    ours, ref = getattr(nm, name).from_estimate(data), getattr(sm, name).from_estimate(data)
    assert not ours and not ref
    assert str(ours) == str(ref)
    with pytest.raises(AttributeError):
        ours.residuals(data)


def test_deprecations_warn_like_skimage():
    for mod in (nm, sm):
        with pytest.warns(FutureWarning, match=r"Calling ``CircleModel\(\)``"):
            m = mod.CircleModel()
        with pytest.warns(FutureWarning, match="`estimate` is deprecated") as record:
            assert m.estimate(CIRCLE)
        assert record[0].filename == __file__
        with pytest.warns(FutureWarning, match="`params` attribute deprecated"):
            np.testing.assert_allclose(m.params, np.r_[m.center, m.radius])
        with pytest.warns(FutureWarning, match="Parameter `params` is deprecated"):
            xy = m.predict_xy(np.array([0.0]), params=(0, 0, 2))
        np.testing.assert_allclose(xy, [[2, 0]])
        with pytest.raises(ValueError, match="`params` argument must be specified"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mod.LineModelND().predict(np.array([1.0]))


@pytest.mark.parametrize("name, min_samples, threshold", [("CircleModel", 3, 1.0), ("EllipseModel", 5, 0.5),
                                                          ("LineModelND", 2, 0.3)])
@pytest.mark.parametrize("kw", [{}, {"stop_probability": 0.99}, {"max_trials": 7, "stop_residuals_sum": 1.0},
                                {"stop_sample_num": 20}])
def test_ransac_same_inliers_as_skimage(name, min_samples, threshold, kw):
    data = _outliers(DATA[name])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, inl = nm.ransac(data, getattr(nm, name), min_samples, threshold, rng=5, **kw)
        ref, rinl = sm.ransac(data, getattr(sm, name), min_samples, threshold, rng=5, **kw)
    np.testing.assert_array_equal(inl, rinl)
    for a in ATTRS[name]:
        np.testing.assert_allclose(getattr(ours, a), getattr(ref, a), rtol=1e-8, atol=1e-10)


def test_ransac_validators_initial_inliers_and_tuple_data():
    data = _outliers(CIRCLE)
    initial = np.zeros(len(data), bool)
    initial[1:4] = True
    is_data_valid = lambda d: d[:, 0].max() > 5   # noqa: E731
    is_model_valid = lambda m, d: m.radius < 20   # noqa: E731
    res = [mod.ransac(data, mod.CircleModel, 3, 1.0, is_data_valid=is_data_valid, is_model_valid=is_model_valid,
                      rng=np.random.default_rng(3), initial_inliers=initial) for mod in (nm, sm)]
    np.testing.assert_array_equal(res[0][1], res[1][1])
    # a sequence of arrays: the model gets one row of each (a transform from src to dst)
    from skimage.transform import EuclideanTransform

    src = RNG.uniform(0, 50, (30, 2))
    dst = EuclideanTransform(rotation=0.3, translation=(4, -2))(src)
    dst[::5] += 20
    (m0, i0), (m1, i1) = [mod.ransac((src, dst), EuclideanTransform, 3, 0.5, rng=8) for mod in (nm, sm)]
    np.testing.assert_array_equal(i0, i1)
    np.testing.assert_allclose(m0.params, m1.params)


def test_ransac_errors_and_no_inliers_like_skimage():
    for mod in (nm, sm):
        with pytest.raises(ValueError, match="min_samples"):
            mod.ransac(CIRCLE, mod.CircleModel, 0, 1)
        with pytest.raises(ValueError, match="residual_threshold"):
            mod.ransac(CIRCLE, mod.CircleModel, 3, -1)
        with pytest.raises(ValueError, match="stop_probability"):
            mod.ransac(CIRCLE, mod.CircleModel, 3, 1, stop_probability=2)
        with pytest.raises(ValueError, match="initial inliers"):
            mod.ransac(CIRCLE, mod.CircleModel, 3, 1, initial_inliers=np.ones(3, bool))
        with pytest.raises(TypeError, match="must have `from_estimate`"):
            mod.ransac(CIRCLE, object, 3, 1)
        with pytest.warns(UserWarning, match="No inliers found"):
            assert mod.ransac(CIRCLE, mod.CircleModel, 3, 0, rng=0) == (None, None)


def test_accelerate_substitutes_the_classes():
    import ndimg

    original = sm.CircleModel
    with ndimg.accelerated():
        assert sm.CircleModel is nm.CircleModel
        model = sm.CircleModel.from_estimate(CIRCLE)   # classmethods survive (a call wrapper would hide them)
        assert isinstance(model, sm.CircleModel)
        _, inl = sm.ransac(_outliers(CIRCLE), sm.CircleModel, 3, 1.0, rng=2)
    assert sm.CircleModel is original
    _, rinl = sm.ransac(_outliers(CIRCLE), sm.CircleModel, 3, 1.0, rng=2)
    np.testing.assert_array_equal(inl, rinl)


@pytest.mark.skipif(not CUDA_READY, reason="no CUDA device")
def test_cupy_round_trip():
    import cupy

    data = _outliers(CIRCLE)
    model = nm.CircleModel.from_estimate(cupy.asarray(CIRCLE))
    ref = sm.CircleModel.from_estimate(CIRCLE)
    np.testing.assert_allclose(model.center, ref.center)
    res = model.residuals(cupy.asarray(CIRCLE))
    assert isinstance(res, cupy.ndarray)
    np.testing.assert_allclose(res.get(), ref.residuals(CIRCLE), rtol=1e-10, atol=1e-12)
    line = nm.LineModelND.from_estimate(LINE3[:, :2])
    assert isinstance(line.predict_y(cupy.asarray([0.0, 1.0])), cupy.ndarray)
    _, inl = nm.ransac(cupy.asarray(data), nm.CircleModel, 3, 1.0, rng=4)
    _, rinl = sm.ransac(data, sm.CircleModel, 3, 1.0, rng=4)
    assert isinstance(inl, cupy.ndarray)
    np.testing.assert_array_equal(inl.get(), rinl)

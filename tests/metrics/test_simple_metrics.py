"""mean_squared_error, normalized_root_mse, peak_signal_noise_ratio, normalized_mutual_information
against skimage.metrics."""

import numpy as np
import pytest
import skimage.metrics as ref

import ndimg.metrics as ours
from helpers import assert_raises_like, check_result, random_image, to_engine
from ndimg._registry import REGISTRY

SHAPES = [(1, 1), (7, 13), (5, 6, 4)]
LAYOUTS = ["c", "f", "strided"]


def _pair(rng, shape, dtype, layout, engine, dtype1=None):
    a = random_image(rng, shape, dtype, layout)
    b = random_image(rng, shape, dtype1 or dtype, layout)
    return a, b, to_engine(a, engine), to_engine(b, engine)


def _check(name, got, expected):   # scalars: the engine does not show in the type
    check_result(f"metrics.{name}", got, expected)


@pytest.mark.parametrize("dtype", REGISTRY["metrics.mean_squared_error"].dtypes + ("float16",))
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_mean_squared_error(engine, rng, dtype, shape, layout):
    a, b, ga, gb = _pair(rng, shape, dtype, layout, engine)
    _check("mean_squared_error", ours.mean_squared_error(ga, gb), ref.mean_squared_error(a, b))


@pytest.mark.parametrize("dtypes", [("uint8", "float32"), ("float16", "float32"), ("int16", "float64"),
                                    ("bool", "uint8")])
def test_mean_squared_error_mixed_dtypes(engine, rng, dtypes):
    a, b, ga, gb = _pair(rng, (9, 8), dtypes[0], "c", engine, dtypes[1])
    _check("mean_squared_error", ours.mean_squared_error(ga, gb), ref.mean_squared_error(a, b))


@pytest.mark.parametrize("dtype", REGISTRY["metrics.normalized_root_mse"].dtypes)
@pytest.mark.parametrize("normalization", ["euclidean", "Euclidean", "min-max", "mean"])
@pytest.mark.parametrize("shape", SHAPES[1:])
def test_normalized_root_mse(engine, rng, dtype, normalization, shape):
    a, b, ga, gb = _pair(rng, shape, dtype, "strided", engine)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = ref.normalized_root_mse(a, b, normalization=normalization)
        got = ours.normalized_root_mse(ga, gb, normalization=normalization)
    _check("normalized_root_mse", got, expected)


@pytest.mark.parametrize("dtype", REGISTRY["metrics.peak_signal_noise_ratio"].dtypes)
@pytest.mark.parametrize("shape", SHAPES[1:])
@pytest.mark.parametrize("data_range", [None, 37])
def test_peak_signal_noise_ratio(engine, rng, dtype, shape, data_range):
    a, b, ga, gb = _pair(rng, shape, dtype, "f", engine)
    if dtype.startswith("float") and data_range is None:  # the nominal float range is [-1, 1]
        a, b = np.clip(a, -1, 1), np.clip(b, -1, 1)
        ga, gb = to_engine(a, engine), to_engine(b, engine)
    with np.errstate(divide="ignore"):
        expected = ref.peak_signal_noise_ratio(a, b, data_range=data_range)
        got = ours.peak_signal_noise_ratio(ga, gb, data_range=data_range)
    _check("peak_signal_noise_ratio", got, expected)


def test_peak_signal_noise_ratio_mismatched_dtypes_warns(engine, rng):
    a, b, ga, gb = _pair(rng, (6, 7), "uint8", "c", engine, "uint16")
    with pytest.warns(UserWarning, match="mismatched dtype"):
        expected = ref.peak_signal_noise_ratio(a, b)
    with pytest.warns(UserWarning, match="mismatched dtype"):
        got = ours.peak_signal_noise_ratio(ga, gb)
    _check("peak_signal_noise_ratio", got, expected)


def test_peak_signal_noise_ratio_out_of_range(engine, rng):
    a = np.full((4, 4), 2.0)
    b = np.zeros((4, 4))
    assert_raises_like(lambda: ref.peak_signal_noise_ratio(a, b),
                       lambda: ours.peak_signal_noise_ratio(to_engine(a, engine), to_engine(b, engine)), ValueError)


@pytest.mark.parametrize("dtype", REGISTRY["metrics.normalized_mutual_information"].dtypes)
@pytest.mark.parametrize("shape", SHAPES[1:])
@pytest.mark.parametrize("bins", [100, 7, (5, 9)])
def test_normalized_mutual_information(engine, rng, dtype, shape, bins):
    a, b, ga, gb = _pair(rng, shape, dtype, "strided", engine)
    _check("normalized_mutual_information", ours.normalized_mutual_information(ga, gb, bins=bins),
           ref.normalized_mutual_information(a, b, bins=bins))


def test_normalized_mutual_information_pads_different_shapes(engine, rng):
    a = random_image(rng, (6, 9), "float64")
    b = random_image(rng, (8, 5), "float64")
    _check("normalized_mutual_information",
           ours.normalized_mutual_information(to_engine(a, engine), to_engine(b, engine), bins=10),
           ref.normalized_mutual_information(a, b, bins=10))


@pytest.mark.parametrize("name", ["mean_squared_error", "normalized_root_mse", "peak_signal_noise_ratio"])
def test_shape_mismatch(engine, rng, name):
    a, b = rng.random((4, 5)), rng.random((5, 4))
    with pytest.raises(ValueError) as e_ref:
        getattr(ref, name)(a, b)
    with pytest.raises(ValueError) as e_ours:
        getattr(ours, name)(to_engine(a, engine), to_engine(b, engine))
    assert str(e_ours.value) == str(e_ref.value)


def test_bad_arguments(engine, rng):
    a, b = rng.random((4, 5)), rng.random((4, 5))
    ga, gb = to_engine(a, engine), to_engine(b, engine)
    assert_raises_like(lambda: ref.normalized_root_mse(a, b, normalization="nope"),
                       lambda: ours.normalized_root_mse(ga, gb, normalization="nope"), ValueError)
    assert_raises_like(lambda: ref.normalized_mutual_information(a, b[None]),
                       lambda: ours.normalized_mutual_information(ga, to_engine(b[None], engine)), ValueError)

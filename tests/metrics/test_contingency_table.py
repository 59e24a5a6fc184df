"""contingency_table, adapted_rand_error, variation_of_information against skimage.metrics."""
import numpy as np
import pytest
import scipy.sparse as sparse
import skimage.metrics as ref

import ndimg.metrics as ours
from helpers import assert_close, assert_raises_like, to_engine, to_host
from ndimg._registry import REGISTRY

SHAPES = [(1,), (1, 1), (9, 11), (4, 5, 6)]


def _labels(rng, shape, dtype, layout, n=6):
    big = tuple(2 * s + 1 for s in shape) if layout == "strided" else shape
    a = rng.integers(0, n, size=big).astype(dtype)
    if layout == "strided":
        return a[tuple(slice(1, None, 2) for _ in shape)]
    return np.asfortranarray(a) if layout == "f" else a


def _dense(t):
    if hasattr(t, "get"):
        t = t.get()
    return t.toarray()


@pytest.mark.parametrize("dtype", REGISTRY["metrics.contingency_table"].dtypes)
@pytest.mark.parametrize("shape", SHAPES[1:])
@pytest.mark.parametrize("layout", ["f", "strided"])
@pytest.mark.parametrize("ignore_labels", [None, [0], (1, 3)])
@pytest.mark.parametrize("normalize", [False, True])
def test_contingency_table(engine, rng, dtype, shape, layout, ignore_labels, normalize):
    a, b = _labels(rng, shape, dtype, layout), _labels(rng, shape, dtype, layout, 4)
    expected = ref.contingency_table(a, b, ignore_labels=ignore_labels, normalize=normalize)
    got = ours.contingency_table(to_engine(a, engine), to_engine(b, engine), ignore_labels=ignore_labels,
                                 normalize=normalize)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    if engine == "cpu":
        assert type(got) is type(expected)
    np.testing.assert_allclose(_dense(got), expected.toarray(), rtol=1e-12)


@pytest.mark.parametrize("sparse_type", ["matrix", "array"])
@pytest.mark.parametrize("shape", SHAPES[:2])
def test_contingency_table_sparse_type(rng, sparse_type, shape):
    a, b = _labels(rng, shape, "int32", "c"), _labels(rng, shape, "int32", "c")
    expected = ref.contingency_table(a, b, sparse_type=sparse_type)
    got = ours.contingency_table(a, b, sparse_type=sparse_type)
    assert type(got) is type(expected)
    np.testing.assert_array_equal(got.toarray(), expected.toarray())


def test_contingency_table_bad_input(engine, rng):
    a = _labels(rng, (4, 4), "int64", "c")
    a.flat[rng.integers(a.size)] = 0  # so that a - 1 surely holds a negative label
    for x, y, exc in [(a, a.astype(float), TypeError), (a.astype(float), a, TypeError), (a - 1, a, ValueError),
                      (a, a - 1, ValueError), (a.astype(bool), a, TypeError)]:
        assert_raises_like(lambda: ref.contingency_table(x, y),
                           lambda: ours.contingency_table(to_engine(x, engine), to_engine(y, engine)), exc)
    assert_raises_like(lambda: ref.contingency_table(a, a, sparse_type="coo"),
                       lambda: ours.contingency_table(to_engine(a, engine), to_engine(a, engine), sparse_type="coo"),
                       ValueError)


@pytest.mark.parametrize("dtype", REGISTRY["metrics.adapted_rand_error"].dtypes)
@pytest.mark.parametrize("shape", SHAPES[2:])
@pytest.mark.parametrize("ignore_labels", [(0,), (), [2, 5]])
@pytest.mark.parametrize("alpha", [0.5, 0.0, 1.0, 0.3])
def test_adapted_rand_error(engine, rng, dtype, shape, ignore_labels, alpha):
    a, b = _labels(rng, shape, dtype, "strided"), _labels(rng, shape, dtype, "strided", 9)
    expected = ref.adapted_rand_error(a, b, ignore_labels=ignore_labels, alpha=alpha)
    got = ours.adapted_rand_error(to_engine(a, engine), to_engine(b, engine), ignore_labels=ignore_labels,
                                  alpha=alpha)
    assert len(got) == 3
    for g, e in zip(got, expected):
        g = to_host(g)
        assert np.asarray(g).dtype == np.asarray(e).dtype
        assert_close(np.asarray(g), np.asarray(e), "metrics.adapted_rand_error")


@pytest.mark.parametrize("dtype", REGISTRY["metrics.variation_of_information"].dtypes)
@pytest.mark.parametrize("shape", SHAPES[1:])
@pytest.mark.parametrize("ignore_labels", [(), [0], (1, 4)])
def test_variation_of_information(engine, rng, dtype, shape, ignore_labels):
    a, b = _labels(rng, shape, dtype, "f"), _labels(rng, shape, dtype, "f", 3)
    expected = ref.variation_of_information(a, b, ignore_labels=ignore_labels)
    got = ours.variation_of_information(to_engine(a, engine), to_engine(b, engine), ignore_labels=ignore_labels)
    assert_close(got, expected, "metrics.variation_of_information")


@pytest.mark.parametrize("normalize", [False, True])
def test_given_table(rng, normalize):
    a, b = _labels(rng, (8, 9), "int32", "c"), _labels(rng, (8, 9), "int32", "c", 5)
    for cls in (sparse.csr_matrix, sparse.csr_array):
        table = cls(ref.contingency_table(a, b, normalize=normalize))
        if cls is sparse.csr_array:  # the reference's own arithmetic fails on a csr_matrix
            assert_close(np.array(ours.adapted_rand_error(table=table)),
                         np.array(ref.adapted_rand_error(table=table)), "metrics.adapted_rand_error")
        assert_close(ours.variation_of_information(a, b, table=table),
                     ref.variation_of_information(a, b, table=table), "metrics.variation_of_information")


def test_bad_arguments(engine, rng):
    a, b = _labels(rng, (4, 5), "int32", "c"), _labels(rng, (5, 4), "int32", "c")
    ga, gb = to_engine(a, engine), to_engine(b, engine)
    for fn in ("adapted_rand_error", "variation_of_information"):
        assert_raises_like(lambda: getattr(ref, fn)(a, b), lambda: getattr(ours, fn)(ga, gb), ValueError)
    assert_raises_like(lambda: ref.adapted_rand_error(a, a, alpha=1.5),
                       lambda: ours.adapted_rand_error(ga, ga, alpha=1.5), ValueError)

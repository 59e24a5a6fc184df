"""hausdorff_distance and hausdorff_pair against skimage.metrics."""
import numpy as np
import pytest
import skimage.metrics as ref

import ndimg.metrics as ours
from helpers import assert_close, to_engine, to_host
from ndimg._registry import REGISTRY


def _sparse_image(rng, shape, dtype, density, layout="c"):
    big = tuple(2 * s + 1 for s in shape) if layout == "strided" else shape
    a = (rng.random(big) < density) * rng.integers(1, 5, size=big)
    a = a.astype(dtype)
    if layout == "strided":
        return a[tuple(slice(1, None, 2) for _ in shape)]
    return np.asfortranarray(a) if layout == "f" else a


@pytest.mark.parametrize("dtype", REGISTRY["metrics.hausdorff_distance"].dtypes)
@pytest.mark.parametrize("shape", [(1, 1), (9, 13), (5, 6, 7)])
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
@pytest.mark.parametrize("method", ["standard", "modified"])
def test_hausdorff_distance(engine, rng, dtype, shape, layout, method):
    a = _sparse_image(rng, shape, dtype, 0.2, layout)
    b = _sparse_image(rng, shape, dtype, 0.1, layout)
    expected = ref.hausdorff_distance(a, b, method=method)
    got = ours.hausdorff_distance(to_engine(a, engine), to_engine(b, engine), method=method)
    got = to_host(got)
    assert_close(np.asarray(got)[()], np.asarray(expected), "metrics.hausdorff_distance")


@pytest.mark.parametrize("which", [(0, 0), (0, 1), (1, 0)])
def test_hausdorff_empty(engine, rng, which):
    full = _sparse_image(rng, (6, 7), "uint8", 0.5)
    full[0, 0] = 1
    imgs = [full if w else np.zeros_like(full) for w in which]
    expected = ref.hausdorff_distance(*imgs)
    got = ours.hausdorff_distance(*(to_engine(i, engine) for i in imgs))
    assert got == expected and type(got) is type(expected)
    with pytest.warns(UserWarning, match="empty"):
        assert ours.hausdorff_pair(*(to_engine(i, engine) for i in imgs)) == ((), ())


@pytest.mark.parametrize("dtype", ["bool", "uint8", "float32"])
@pytest.mark.parametrize("shape", [(9, 13), (5, 6, 7)])
def test_hausdorff_pair(engine, rng, dtype, shape):
    a = _sparse_image(rng, shape, dtype, 0.2)
    b = _sparse_image(rng, shape, dtype, 0.05)
    b.flat[0] = 1
    pa, pb = (to_host(p) for p in ours.hausdorff_pair(to_engine(a, engine), to_engine(b, engine)))
    ea, eb = ref.hausdorff_pair(a, b)
    assert pa.dtype == ea.dtype and pa.shape == ea.shape
    # the pair realises the Hausdorff distance (equidistant candidates may be chosen differently on the GPU)
    assert np.linalg.norm(pa - pb) == pytest.approx(np.linalg.norm(ea - eb), rel=1e-12)
    assert a[tuple(pa)] and b[tuple(pb)]
    if engine == "cpu":
        np.testing.assert_array_equal(pa, ea)
        np.testing.assert_array_equal(pb, eb)


@pytest.mark.parametrize("chunk", [1, 50, 1 << 24])
def test_brute_force_search_matches_kdtree(rng, chunk):
    """The GPU's exhaustive nearest-point search, run here on NumPy, against SciPy's k-d tree."""
    from scipy.spatial import cKDTree

    from ndimg.metrics._set_metrics import nearest_brute_force

    src = rng.integers(0, 40, size=(37, 3))
    dst = rng.integers(0, 40, size=(23, 3))
    d, i = nearest_brute_force(src, dst, chunk)
    ed, ei = cKDTree(src).query(dst, k=1)
    np.testing.assert_allclose(d, ed, rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(src[i] - dst, axis=1), ed, rtol=1e-12)


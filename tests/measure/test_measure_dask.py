"""measure's image moments, Euler number, perimeters and global measures on Dask arrays: chunkings the
generated cases (tests/test_dask.py) do not draw (chunks of one element on every axis, one chunk, uneven
3-D), spacing, every connectivity, against scikit-image on the whole image."""
import numpy as np
import pytest
import skimage.measure as sm

from helpers import dask_tasks, to_engine, to_host
from ndimg import measure

da = pytest.importorskip("dask.array")

CHUNKS_2D = [1, (1, 3), ((5, 1, 1, 12), (2, 8, 1, 1)), 40]
CHUNKS_3D = [1, (2, 1, 3), ((4, 1, 6), (1, 5, 3), (3, 3, 1, 3)), 20]


def _lazy(engine, fn, x, chunks, *args, **kw):
    """fn on the Dask array of `x`: built without running a task, then computed."""
    dx = da.from_array(to_engine(x, engine), chunks=chunks, asarray=False)
    with dask_tasks() as tasks:
        out = fn(dx, *args, **kw)
    assert not tasks.keys
    if isinstance(out, (list, tuple)):
        assert all(isinstance(o, da.Array) for o in out)
        return [to_host(o.compute(scheduler="sync")) for o in out]
    assert isinstance(out, da.Array)
    return to_host(out.compute(scheduler="sync"))


def _image(rng, shape):
    return rng.random(shape)


@pytest.mark.parametrize("chunks", CHUNKS_2D)
@pytest.mark.parametrize("spacing", [None, (0.5, 2.0)])
def test_moments_2d(engine, rng, chunks, spacing):
    x = _image(rng, (19, 12))
    for name, kw in (("moments", {}), ("moments_central", {}), ("moments_central", dict(center=(7.5, 3.25))),
                     ("centroid", {}), ("inertia_tensor", {}), ("inertia_tensor_eigvals", {})):
        if name != "centroid" and "order" not in kw and name.startswith("moments"):
            kw = dict(kw, order=4)
        expected = getattr(sm, name)(x, spacing=spacing, **kw)
        got = _lazy(engine, getattr(measure, name), x, chunks, spacing=spacing, **kw)
        np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-9, atol=1e-8, err_msg=name)


@pytest.mark.parametrize("chunks", CHUNKS_3D)
def test_moments_3d(engine, rng, chunks):
    x = _image(rng, (11, 9, 10))
    spacing = (1.5, 1.0, 0.5)
    for name in ("moments", "moments_central", "centroid", "inertia_tensor"):
        expected = getattr(sm, name)(x, spacing=spacing)
        got = _lazy(engine, getattr(measure, name), x, chunks, spacing=spacing)
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-8, err_msg=name)


def test_moments_float32_rounded_once(engine, rng):
    """float32 images: float32 moments, the float64 sums rounded once (within float32 rounding of
    scikit-image's float32 sums)."""
    x = _image(rng, (30, 17)).astype(np.float32)
    got = _lazy(engine, measure.moments, x, (7, 5))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, sm.moments(x.astype(np.float64)).astype(np.float32), rtol=1e-7)


def test_given_moments_and_tensor(engine, rng):
    """mu or T given: results of the arrays given (lazy all the same)."""
    x = _image(rng, (12, 13))
    mu = sm.moments_central(x, order=2)
    T = sm.inertia_tensor(x)
    np.testing.assert_allclose(_lazy(engine, measure.inertia_tensor, x, 5, mu=mu), sm.inertia_tensor(x, mu=mu))
    np.testing.assert_allclose(_lazy(engine, measure.inertia_tensor_eigvals, x, 5, T=T),
                               sm.inertia_tensor_eigvals(x, T=T))


def test_bad_spacing_raises_at_once(rng):
    with pytest.raises(IndexError):
        measure.moments_central(da.from_array(_image(rng, (8, 8)), chunks=3), spacing=(1.0,))


def _mask(rng, shape, p=0.5):
    return rng.random(shape) < p


@pytest.mark.parametrize("chunks", CHUNKS_2D)
def test_euler_perimeter_2d(engine, rng, chunks):
    x = _mask(rng, (19, 12))
    for conn in (1, 2):
        assert _lazy(engine, measure.euler_number, x, chunks, conn) == sm.euler_number(x, conn)
    for nb in (4, 8):
        np.testing.assert_allclose(_lazy(engine, measure.perimeter, x, chunks, nb), sm.perimeter(x, nb), rtol=1e-12)
    for d in (2, 4):
        np.testing.assert_allclose(_lazy(engine, measure.perimeter_crofton, x, chunks, d),
                                   sm.perimeter_crofton(x, d), rtol=1e-12)


@pytest.mark.parametrize("chunks", CHUNKS_3D)
def test_euler_3d(engine, rng, chunks):
    x = _mask(rng, (11, 9, 10), 0.6)
    for conn in (1, 3):
        assert _lazy(engine, measure.euler_number, x, chunks, conn) == sm.euler_number(x, conn)


def test_perimeter_uint8_values(engine, rng):
    """perimeter reads the uint8 image's values, not only whether they are set: a few 2s among 0s and 1s
    (codes past scikit-image's 50 bins are its ValueError, raised when computed)."""
    x = _mask(rng, (23, 17), 0.3).astype(np.uint8)
    x[rng.random(x.shape) < 0.01] = 2   # about 2 images in 3 stay within the 50 codes
    for nb in (4, 8):
        try:
            expected = sm.perimeter(x, nb)
        except ValueError:
            with pytest.raises(ValueError, match="matmul"):
                _lazy(engine, measure.perimeter, x, ((4, 5, 14), (8, 9)), nb)
            continue
        np.testing.assert_allclose(_lazy(engine, measure.perimeter, x, ((4, 5, 14), (8, 9)), nb), expected,
                                   rtol=1e-12)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "float32"])
def test_shannon_entropy_chunks(engine, rng, dtype):
    x = (rng.random((19, 12)) * 20 - (5 if dtype == "int8" else 0)).astype(dtype)
    for chunks in CHUNKS_2D:
        np.testing.assert_allclose(_lazy(engine, measure.shannon_entropy, x, chunks, base=3),
                                   sm.shannon_entropy(x, base=3), rtol=1e-12)


@pytest.mark.parametrize("block_size, chunks", [(3, 1), ((2, 5), ((7, 1, 11), (2, 10))), ((4, 1), 40)])
def test_block_reduce_chunks(engine, rng, block_size, chunks):
    x = rng.random((19, 12))
    for func, cval in ((np.sum, 0), (np.max, 2.0), (np.median, 0.5)):
        got = _lazy(engine, measure.block_reduce, x, chunks, block_size, func, cval)
        np.testing.assert_allclose(got, sm.block_reduce(x, block_size, func, cval), rtol=1e-12)


@pytest.mark.parametrize("chunks", CHUNKS_2D)
def test_colocalization_chunks(engine, rng, chunks):
    a, b = rng.random((19, 12)), rng.random((19, 12))
    m0, m1, mask = (rng.random((19, 12)) < p for p in (0.4, 0.5, 0.7))
    np.testing.assert_allclose(_lazy(engine, lambda x: measure.pearson_corr_coeff(x, b, mask), a, chunks),
                               sm.pearson_corr_coeff(a, b, mask), rtol=1e-9)
    for name, args in (("manders_coloc_coeff", (m1, mask)), ("manders_overlap_coeff", (b, mask)),
                       ("intersection_coeff", (m1, mask)), ("intersection_coeff", (m1,))):
        x = m0 if name == "intersection_coeff" else a
        expected = getattr(sm, name)(x, *args)
        got = _lazy(engine, lambda d: getattr(measure, name)(d, *args), x, chunks)
        np.testing.assert_allclose(got, expected, rtol=1e-12, err_msg=name)


def test_colocalization_errors_when_computed(rng):
    """Data errors (values other than 0 and 1, negative values) are scikit-image's, raised when computed;
    constant input: NaN with scipy's warning."""
    a = rng.random((9, 8))
    bad = np.ones((9, 8))
    bad[4, 5] = 2
    lazy = measure.manders_coloc_coeff(da.from_array(a, chunks=4), bad)
    with pytest.raises(ValueError, match="image1_mask array is not of dtype boolean"):
        lazy.compute()
    negative = a.copy()
    negative[8, 7] = -1
    with pytest.raises(ValueError, match="image0 contains negative values"):
        measure.manders_overlap_coeff(da.from_array(negative, chunks=4), a).compute()
    from scipy.stats import ConstantInputWarning

    with pytest.warns(ConstantInputWarning):
        r, p = measure.pearson_corr_coeff(da.from_array(np.ones((9, 8)), chunks=4), a)
        assert np.isnan(r.compute()) and np.isnan(p.compute())


@pytest.mark.parametrize("chunks", CHUNKS_2D)
@pytest.mark.parametrize("h_size", [11, 4])
def test_blur_effect_chunks(engine, rng, chunks, h_size):
    x = rng.random((19, 12))
    np.testing.assert_allclose(_lazy(engine, measure.blur_effect, x, chunks, h_size=h_size),
                               sm.blur_effect(x, h_size=h_size), rtol=1e-9)
    np.testing.assert_allclose(_lazy(engine, measure.blur_effect, x, chunks, h_size=h_size, reduce_func=None),
                               sm.blur_effect(x, h_size=h_size, reduce_func=None), rtol=1e-9)


def test_blur_effect_3d_channels(engine, rng):
    x = (rng.random((14, 11, 9)) * 255).astype(np.uint8)
    np.testing.assert_allclose(_lazy(engine, measure.blur_effect, x, ((4, 1, 9), (5, 6), (2, 7)), h_size=3),
                               sm.blur_effect(x, h_size=3), rtol=1e-9)
    rgb = rng.random((13, 10, 3)).astype(np.float32)
    np.testing.assert_allclose(_lazy(engine, measure.blur_effect, rgb, ((6, 7), (1, 9), (1, 2)), channel_axis=-1),
                               sm.blur_effect(rgb, channel_axis=-1), rtol=1e-5)

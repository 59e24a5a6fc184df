"""measure's image moments, Euler number, perimeters and global measures on Dask arrays: chunkings the
generated cases (tests/test_dask.py) do not draw (chunks of one element on every axis, one chunk, uneven
3-D), spacing, every connectivity, against scikit-image on the whole image."""
import numpy as np
import pytest
import skimage.measure as sm
from dask.callbacks import Callback

from helpers import to_engine, to_host
from ndimg import measure

da = pytest.importorskip("dask.array")

CHUNKS_2D = [1, (1, 3), ((5, 1, 1, 12), (2, 8, 1, 1)), 40]
CHUNKS_3D = [1, (2, 1, 3), ((4, 1, 6), (1, 5, 3), (3, 3, 1, 3)), 20]


class _Tasks(Callback):
    def __init__(self):
        super().__init__()
        self.n = 0

    def _pretask(self, key, dsk, state):
        self.n += 1


def _lazy(engine, fn, x, chunks, *args, **kw):
    """fn on the Dask array of `x`: built without running a task, then computed."""
    dx = da.from_array(to_engine(x, engine), chunks=chunks, asarray=False)
    with _Tasks() as tasks:
        out = fn(dx, *args, **kw)
    assert tasks.n == 0
    if isinstance(out, list):
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

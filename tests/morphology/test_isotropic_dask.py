"""isotropic_* morphology on Dask arrays: chunks of one element (halos spanning several chunks), radii past
the image, spacing, 3-D, and images with no feature at all (where scipy's transform measures from outside
the image), against scikit-image on the whole image."""
import numpy as np
import pytest
import skimage.morphology as skm

from helpers import to_engine, to_host
from ndimg import morphology

da = pytest.importorskip("dask.array")

NAMES = ("isotropic_erosion", "isotropic_dilation", "isotropic_opening", "isotropic_closing")


def _check(engine, name, x, chunks, **kw):
    lazy = getattr(morphology, name)(da.from_array(to_engine(x, engine), chunks=chunks, asarray=False), **kw)
    assert isinstance(lazy, da.Array) and lazy.chunks == da.core.normalize_chunks(chunks, x.shape)
    np.testing.assert_array_equal(to_host(lazy.compute(scheduler="sync")), getattr(skm, name)(x, **kw),
                                  err_msg=f"{name} {kw}")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("chunks", [1, ((3, 1, 1, 14), (6, 1, 9, 1)), 40])
def test_chunkings_2d(engine, rng, name, chunks):
    x = rng.random((19, 17)) < 0.6
    for radius, spacing in ((1.5, None), (3, (1.0, 2.5)), (0.5, (0.3, 1.0)), (25, None)):
        _check(engine, name, x, chunks, radius=radius, spacing=spacing)


@pytest.mark.parametrize("name", NAMES)
def test_3d_spacing(engine, rng, name):
    x = rng.random((9, 11, 10)) < 0.5
    _check(engine, name, x, ((4, 1, 4), (5, 6), (1, 2, 7)), radius=2.2, spacing=(2.0, 0.5, 1.0))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("fill", [True, False])
def test_no_feature(engine, name, fill):
    """All True (an erosion has nothing to measure from) or all False (a dilation neither)."""
    x = np.full((13, 9), fill)
    for radius, spacing in ((2, None), (4.5, (0.5, 1.5))):
        _check(engine, name, x, (4, 3), radius=radius, spacing=spacing)


def test_out_refused():
    x = da.from_array(np.ones((6, 6), bool), chunks=3)
    with pytest.raises(NotImplementedError, match="out="):
        morphology.isotropic_erosion(x, 1, out=np.empty((6, 6), bool))

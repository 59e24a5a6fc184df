"""regionprops_table on Dask arrays: regions crossing many chunks, object columns (coords, slices, crops),
multichannel intensities chunked along the channel axis, and spacing, against scikit-image on the whole
image."""
import numpy as np
import pytest
import skimage.measure as sm

from helpers import to_engine, to_host
from ndimg import measure

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

PROPS = ("label", "area", "bbox", "centroid", "centroid_weighted", "coords", "coords_scaled", "slice", "image",
         "image_intensity", "intensity_mean", "perimeter", "euler_number", "moments_central")


def _same(got, expected):
    assert list(got) == list(expected)
    for k, x in expected.items():
        g = to_host(got[k])
        assert len(g) == len(x), k
        if x.dtype == object:
            for a, b in zip(g, x):
                if isinstance(b, tuple):
                    assert a == b, k
                else:
                    np.testing.assert_allclose(to_host(a), b, rtol=1e-12, err_msg=k)
        else:
            assert g.dtype == x.dtype, k
            np.testing.assert_allclose(g, x, rtol=1e-9, atol=1e-9, err_msg=k)


@pytest.mark.parametrize("chunks", [5, (3, 17), 40])
def test_crossing_regions_object_columns(engine, rng, chunks):
    labels = sm.label(rng.random((40, 37)) > 0.45).astype(np.int32)
    intensity = rng.random(labels.shape + (2,))
    expected = sm.regionprops_table(labels, intensity, properties=PROPS, spacing=(1.5, 1.5))
    lazy = measure.regionprops_table(da.from_array(to_engine(labels, engine), chunks=chunks, asarray=False),
                                     da.from_array(to_engine(intensity, engine), chunks=(chunks, chunks, 1) if
                                                   np.ndim(chunks) == 0 else chunks + (1,), asarray=False),
                                     properties=PROPS, spacing=(1.5, 1.5))
    assert all(isinstance(v, da.Array) for v in lazy.values())
    (got,) = dask.compute(lazy, scheduler="sync")
    _same(got, expected)


def test_3d_and_no_regions(engine, rng):
    labels = sm.label(rng.random((12, 14, 11)) > 0.5).astype(np.uint16)
    props = ("label", "area", "bbox", "centroid", "coords", "inertia_tensor_eigvals")
    dl = da.from_array(to_engine(labels, engine), chunks=(5, 4, 6), asarray=False)
    (got,) = dask.compute(measure.regionprops_table(dl, properties=props), scheduler="sync")
    _same(got, sm.regionprops_table(labels, properties=props))
    (got,) = dask.compute(measure.regionprops_table(dl * 0, properties=props), scheduler="sync")
    _same(got, sm.regionprops_table(labels * 0, properties=props))

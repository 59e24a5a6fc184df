"""peak_local_max and corner_peaks beyond the generated cases: many candidates for the greedy min_distance
selection (every p-norm, ties on plateaus), and Dask arrays whose chunk borders cut plateaus and spacings."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import skimage.feature as skf

import ndimg.feature as F
from helpers import to_engine, to_host


def _same(got, expected):
    got = to_host(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got.shape, expected.shape)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("p_norm", [np.inf, 1, 2, 3.5])
@pytest.mark.parametrize("min_distance", [2, 4, 7])
def test_spacing_many_peaks(engine, rng, p_norm, min_distance):
    image = rng.random((90, 110)).astype(np.float32)
    kw = dict(min_distance=min_distance, p_norm=p_norm, exclude_border=False)
    _same(F.peak_local_max(to_engine(image, engine), **kw), skf.peak_local_max(image, **kw))
    _same(F.corner_peaks(to_engine(image, engine), **kw), skf.corner_peaks(image, **kw))


@pytest.mark.parametrize("num_peaks", [0, 1, 7, 60])
def test_plateaus_and_ties(engine, rng, num_peaks):
    """Quantised values: plateaus (every pixel of one a peak at min_distance 1) and equal peaks, whose order
    is C order."""
    image = (rng.random((40, 50, 6)) * 6).astype(np.uint8)
    for kw in (dict(), dict(min_distance=2, num_peaks=num_peaks), dict(min_distance=3, p_norm=2, exclude_border=1)):
        _same(F.peak_local_max(to_engine(image, engine), **kw), skf.peak_local_max(image, **kw))
        _same(F.corner_peaks(to_engine(image, engine), **kw), skf.corner_peaks(image, **kw))


def test_flat_image_and_flat_labels(engine):
    image = np.ones((12, 14))
    _same(F.peak_local_max(to_engine(image, engine)), skf.peak_local_max(image))
    labels = np.zeros((12, 14), int)
    labels[2:6, 2:6] = 1
    labels[8, 9] = 2   # an isolated pixel of a flat label region: a peak
    _same(F.peak_local_max(to_engine(image, engine), labels=to_engine(labels, engine), exclude_border=False),
          skf.peak_local_max(image, labels=labels, exclude_border=False))


def test_min_distance_below_one_warns(rng):
    image = rng.random((9, 9))
    with pytest.warns(RuntimeWarning, match="min_distance < 1"):
        got = F.peak_local_max(image, min_distance=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(got, skf.peak_local_max(image, min_distance=0))


CHUNKS = [((7, 1, 20, 12), (13, 2, 35)), ((40,), (25, 25)), ((3,) * 13 + (1,), (50,))]


@pytest.mark.parametrize("chunks", CHUNKS)
@pytest.mark.parametrize("kw", [dict(), dict(min_distance=4), dict(min_distance=3, p_norm=2, num_peaks=9),
                                dict(threshold_rel=0.6, exclude_border=(2, 5)),
                                dict(footprint=np.ones((5, 3), bool), min_distance=2)])
def test_dask_across_chunks(engine, rng, chunks, kw):
    da = pytest.importorskip("dask.array")
    image = np.round(rng.random((40, 50)) * 8) / 8   # plateaus cut by the chunk borders
    lazy = F.peak_local_max(da.from_array(to_engine(image, engine), chunks=chunks, asarray=False), **kw)
    assert isinstance(lazy, da.Array)
    _same(lazy.compute(scheduler="sync"), skf.peak_local_max(image, **kw))
    lazy = F.corner_peaks(da.from_array(to_engine(image, engine), chunks=chunks, asarray=False), indices=False, **kw)
    assert lazy.chunks == da.from_array(image, chunks=chunks).chunks
    _same(lazy.compute(scheduler="sync"), skf.corner_peaks(image, indices=False, **kw))


def test_dask_3d_and_labels_refused(engine, rng):
    da = pytest.importorskip("dask.array")
    image = rng.random((12, 13, 14))
    x = da.from_array(to_engine(image, engine), chunks=(5, 4, 9), asarray=False)
    _same(F.peak_local_max(x, min_distance=2).compute(scheduler="sync"), skf.peak_local_max(image, min_distance=2))
    with pytest.raises(NotImplementedError, match="ndimg.feature.peak_local_max .*labels"):
        F.peak_local_max(x, labels=x.astype(int))


@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "int16", "int32", "uint8", "uint16", "uint32"])
def test_descending_order_is_stable_argsort(engine, rng, dtype):
    """The GPU ordering of candidates (unique 64-bit keys) is NumPy's stable argsort of the negated values:
    wrapped unsigned values, ties in order, -0.0 tied with 0.0, NaNs last."""
    from ndimg.feature._peak import descending_order

    n = 5000
    if dtype.startswith("float"):
        v = np.round(rng.standard_normal(n) * 3).astype(dtype)
        idx = rng.integers(0, n, 20)
        v[idx[:4]], v[idx[4:8]], v[idx[8:10]], v[idx[10:12]] = np.nan, -0.0, np.inf, -np.inf
        v[idx[12:14]] = -np.asarray(np.nan, dtype)
    else:
        info = np.iinfo(dtype)
        v = rng.integers(info.min, info.max, n, endpoint=True).astype(dtype)
        v[rng.integers(0, n, 5)], v[rng.integers(0, n, 5)] = info.min, info.max
        v = np.where(rng.random(n) < 0.5, v, v[:1])   # ties
    with np.errstate(all="ignore"):
        expected = np.argsort(-v, kind="stable")
    np.testing.assert_array_equal(to_host(descending_order(to_engine(v, engine))), expected)


@pytest.mark.parametrize("dtype", ["float32", "uint8", "int16", "float64"])
def test_plateau_order_every_dtype(engine, rng, dtype):
    """min_distance 1 (GPU: ordered on the device for 32-bit and smaller values) with many equal peaks."""
    image = (rng.random((60, 70)) * 5).astype(dtype)
    for kw in (dict(exclude_border=False), dict(num_peaks=17), dict(threshold_abs=1, exclude_border=3)):
        _same(F.peak_local_max(to_engine(image, engine), **kw), skf.peak_local_max(image, **kw))

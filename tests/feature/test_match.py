"""feature.match_descriptors against scikit-image 0.26, exactly (the same pairs in the same order) for binary
and float descriptors, each filter (cross_check, max_distance, max_ratio) and metric, with GPU descriptors
giving GPU matches."""
import numpy as np
import pytest
import skimage.feature as sf

import ndimg.feature as nf
from helpers import array_type, to_engine, to_host


@pytest.mark.parametrize("kind", ["bool", "float64", "float32"])
@pytest.mark.parametrize("kw", [dict(), dict(cross_check=False), dict(max_distance=0.4), dict(max_ratio=0.85),
                                dict(cross_check=False, max_ratio=0.7, max_distance=0.5),
                                dict(metric="cityblock"), dict(metric="minkowski", p=1.5),
                                dict(metric="cosine", max_ratio=0.95)], ids=repr)
def test_like_skimage(engine, rng, kind, kw):
    if kind == "bool":
        d1, d2 = rng.random((60, 64)) > 0.5, rng.random((50, 64)) > 0.5
    else:
        d1, d2 = rng.random((60, 12)).astype(kind), rng.random((50, 12)).astype(kind)
    d2[:5] = d1[:5]   # exact duplicates: zero distances (ratio test's eps)
    expected = sf.match_descriptors(d1, d2, **kw)
    got = nf.match_descriptors(to_engine(d1, engine), to_engine(d2, engine), **kw)
    assert type(got) is array_type(engine)
    assert to_host(got).dtype == expected.dtype
    np.testing.assert_array_equal(to_host(got), expected)


def test_lengths_must_agree():
    with pytest.raises(ValueError, match="Descriptor length"):
        nf.match_descriptors(np.zeros((3, 4)), np.zeros((3, 5)))


@pytest.mark.parametrize("bits", [1, 7, 64, 100, 513])
def test_packed_hamming_like_cdist(engine, rng, bits):
    # binary descriptors are compared as packed bits: every length, the padding of the last word, ties
    d1, d2 = rng.random((70, bits)) > 0.5, rng.random((90, bits)) > 0.5
    d2[::3] = d1[:30]
    for kw in (dict(), dict(cross_check=False, max_ratio=0.9), dict(max_distance=0.3)):
        expected = sf.match_descriptors(d1, d2, **kw)
        got = nf.match_descriptors(to_engine(d1, engine), to_engine(d2, engine), **kw)
        np.testing.assert_array_equal(to_host(got), expected)

import numpy as np
import pytest
import skimage.filters as sf

from ndimg import filters as f
from ndimg._registry import NUMERIC
from helpers import assert_close, assert_raises_like, random_image, to_engine


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("shape", [(1, 1), (9, 13), (5, 6, 7)])
def test_default_footprint(engine, rng, dtype, shape):
    x = random_image(rng, shape, dtype)
    assert_close(f.median(to_engine(x, engine)), sf.median(x), "filters.median")


@pytest.mark.parametrize("mode", ["reflect", "constant", "nearest", "mirror", "wrap"])
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_footprint_modes_layouts(engine, rng, mode, layout):
    x = random_image(rng, (21, 16), "float32", layout)
    fp = rng.random((5, 4)) > 0.4
    assert_close(f.median(to_engine(x, engine), fp, mode=mode, cval=0.5), sf.median(x, fp, mode=mode, cval=0.5),
                 "filters.median")
    assert_close(f.median(to_engine(x, engine), np.ones((5, 5)), mode=mode),
                 sf.median(x, np.ones((5, 5)), mode=mode), "filters.median")


def test_out_argument(engine, rng):
    x = random_image(rng, (12, 10), "uint8")
    out = to_engine(np.zeros_like(x), engine)
    res = f.median(to_engine(x, engine), out=out)
    assert_close(out, sf.median(x), "filters.median")
    assert_close(res, sf.median(x), "filters.median")


def test_behavior_rank_not_available(engine):
    with pytest.raises(NotImplementedError, match="rank"):
        f.median(to_engine(np.zeros((5, 5), np.uint8), engine), behavior="rank")


@pytest.mark.parametrize("bad", [dict(footprint=np.ones((3, 3, 3))), dict(mode="bogus"),
                                 dict(footprint=np.zeros((3, 3)))])
def test_bad_input_raises_like_skimage(engine, bad):
    x = np.ones((6, 5))
    assert_raises_like(lambda: sf.median(x, **bad), lambda: f.median(to_engine(x, engine), **bad))

"""Rank filters whose footprint lies wholly on one side of the centre along the columns (a shifted centre,
noise_filter's removed element): every column still filtered within the image's lines, on every engine."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import skimage.filters.rank as sk

import ndimg.filters.rank as nd
from helpers import CUDA_READY, to_engine, to_host

BALL1 = (np.abs(np.indices((3, 3, 3)) - 1).sum(0) <= 1).astype(np.uint8)
WEST = BALL1.copy()
WEST[:, :, 2] = 0   # with shift_z=1 its columns are -2..-1 of the pixel's
ENGINES = ["cpu"] + (["cuda"] if CUDA_READY else [])


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", ["noise_filter", "maximum", "pop"])
def test_output_ends_at_the_image(engine, name):
    """noise_filter's shift_z=1 (its removed element) or a footprint without its east columns leaves a window
    of columns -2..-1 only; the output is written in place into
    the front of a larger buffer whose tail must stay untouched (a last line filtered one column too far
    wrote past the image, and over the next line's first column)."""
    rng = np.random.default_rng(3)
    vol = rng.integers(0, 256, (4, 5, 21), dtype=np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fp = BALL1 if name == "noise_filter" else WEST
        expected = getattr(sk, name)(vol, fp, shift_z=1)
        buf = to_engine(np.full(vol.size + 8, 77, expected.dtype), engine)
        out = buf[:vol.size].reshape(vol.shape)
        getattr(nd, name)(to_engine(vol, engine), fp, out=out, shift_z=1)
    np.testing.assert_array_equal(to_host(out), expected)
    assert (to_host(buf[vol.size:]) == 77).all()

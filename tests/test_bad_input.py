"""Hostile and odd inputs to ndimg.filters and ndimg.metrics, each compared with scikit-image on the same call
(issue 22, item 7): the same exception type where scikit-image raises, the same result where it computes."""
from __future__ import annotations

import time

import numpy as np
import pytest
import skimage.filters

import ndimg.filters
from helpers import to_engine


def raised(call):
    """The builtin exception class call() raises (NumPy's MemoryError subclass counts as MemoryError), or
    None when it returns."""
    try:
        call()
    except Exception as e:
        return next(t for t in type(e).__mro__ if t.__module__ == "builtins")
    return None


def assert_raises_like(reference_call, our_call):
    """The reference raises, and we raise the same builtin exception class."""
    expected = raised(reference_call)
    assert expected is not None, "the reference accepts this call"
    assert raised(our_call) is expected


@pytest.mark.parametrize("name", ["threshold_niblack", "threshold_sauvola"])
@pytest.mark.parametrize("shape, window", [((32, 32), 10**9 + 1), ((32, 32), (10**9 + 1, 1)),
                                           ((4, 4, 4), 10**9 + 1)])
def test_local_threshold_window_beyond_memory(engine, name, shape, window):
    """scikit-image pads the image by the window: MemoryError (ValueError past the address space) at once,
    where ndimg would sum a billion-pixel window at every pixel."""
    img = np.random.default_rng(0).random(shape, dtype=np.float32)
    ref = getattr(skimage.filters, name)
    ours = getattr(ndimg.filters, name)
    start = time.perf_counter()
    assert_raises_like(lambda: ref(img, window_size=window), lambda: ours(to_engine(img, engine), window_size=window))
    assert time.perf_counter() - start < 10

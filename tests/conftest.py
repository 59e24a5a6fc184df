"""Every test runs on each engine: "cpu" always, "cuda" where a GPU, CuPy and a CUDA build are present
(skipped elsewhere, never counted as passing)."""
from __future__ import annotations

import os

import numpy as np
import pytest

from helpers import CUDA_READY

ENGINES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not CUDA_READY, reason="no CUDA device"))]


@pytest.fixture(params=ENGINES)
def engine(request):
    return request.param


@pytest.fixture
def rng(request):
    # fresh random inputs on every run; a failure's report gives the seed, NDIMG_TEST_SEED reruns it
    seed = int(os.environ.get("NDIMG_TEST_SEED") or np.random.SeedSequence().entropy % (2**32))
    request.node.user_properties.append(("seed", seed))
    return np.random.default_rng(seed)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    if report.failed:
        for key, value in item.user_properties:
            if key == "seed":
                report.sections.append(("random inputs", f"NDIMG_TEST_SEED={value} reproduces them"))

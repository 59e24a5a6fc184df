"""ndimg on a Dask cluster (issue 23, item 4): the same pipeline on a distributed cluster gives the in-memory answer.

gaussian -> sobel -> threshold_otsu -> apply_hysteresis_threshold -> count, on a volume held on the workers
in uneven chunks. CPU: a ``LocalCluster`` of two worker processes (the calls and the volume are pickled to them).
CUDA: dask-cuda's ``LocalCUDACluster`` with CuPy chunks, on one GPU and on every GPU of the host; the many-GPU
case needs at least two.
"""
from __future__ import annotations

import numpy as np
import pytest

import ndimg.filters as nf
from helpers import to_engine, to_host

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

SHAPE, CHUNKS = (37, 45, 52), ((9, 20, 8), (45,), (13, 13, 13, 13))


def volume():
    rng = np.random.default_rng(23)
    z, y, x = np.meshgrid(*[np.cos(np.arange(n) / 4.0) for n in SHAPE], indexing="ij")
    return (z * y * x + 0.3 * rng.random(SHAPE)).astype(np.float32)


def pipeline(image):
    """(threshold, count of the hysteresis mask): lazy for a Dask image."""
    edges = nf.sobel(nf.gaussian(image, sigma=1.5))
    t = nf.threshold_otsu(edges)
    return t, nf.apply_hysteresis_threshold(edges, 0.5 * t, t).sum()


def expected(engine):
    t, n = pipeline(to_engine(volume(), engine))
    return float(to_host(t)), int(to_host(n))


def on_cluster(client, engine):
    held = client.persist(da.from_array(to_engine(volume(), engine), chunks=CHUNKS, asarray=False))
    t, n = client.compute(pipeline(held), sync=True)
    return float(to_host(t)), int(to_host(n))


def test_local_cluster_matches_in_memory():
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        got = on_cluster(client, "cpu")
    want = expected("cpu")
    assert got[0] == pytest.approx(want[0], rel=1e-6)
    assert got[1] == want[1] > 0


def _gpus():
    cupy = pytest.importorskip("cupy")
    pytest.importorskip("dask_cuda")
    try:
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:
        return 0


@pytest.mark.parametrize("gpus", ["one", "all"])
def test_local_cuda_cluster_matches_in_memory(gpus):
    available = _gpus()
    if available < (1 if gpus == "one" else 2):
        pytest.skip(f"needs {'a GPU' if gpus == 'one' else 'two GPUs'}; {available} here")
    from dask.distributed import Client
    from dask_cuda import LocalCUDACluster

    n = 1 if gpus == "one" else available
    with LocalCUDACluster(n_workers=n, dashboard_address=None) as cluster, Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == n
        got = on_cluster(client, "cuda")
    want = expected("cuda")
    assert got[0] == pytest.approx(want[0], rel=1e-6)
    assert got[1] == want[1] > 0

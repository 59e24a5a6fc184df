"""A volume pipeline on a Dask cluster: gaussian -> threshold_otsu -> mask, on CPU cores or on every GPU.

    python examples/dask_volume.py --engine cpu  [--shape 2048,2048,1024] [--chunks 256,512,512]
                                   [--workers N] [--threads N] [--ndimg-threads N]
    python examples/dask_volume.py --engine cuda [--gpus N] [--shape ...] [--chunks ...]

The volume is synthetic float32 (a lattice of blobs plus noise), generated chunk by chunk on the workers: NumPy
chunks on a distributed ``LocalCluster`` (--engine cpu), CuPy chunks on dask-cuda's ``LocalCUDACluster`` (--engine
cuda: one worker per GPU, all the host's GPUs unless --gpus N picks the first N). The ndimg calls are the same for
both: each chunk runs on its own engine (CuPy chunks on the worker's GPU). Each step is persisted on the workers and
timed on its own; the threshold is one global answer reduced from per-chunk histograms.

CPU layout: --threads Dask threads per worker, each calling ndimg with --ndimg-threads threads (ndimg's CPU engine
has its own thread pool: Dask threads x ndimg threads should not exceed the cores). Default: one worker, one Dask
thread per core, ndimg single-threaded (bench/dask_pipeline.py compares the layouts).
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

PERIOD = 64      # voxels between blob centres along each axis
LEVELS = 64      # the volume's values are multiples of 1/LEVELS (it compresses well when written out)


def _block(block_info=None, gpu=False):
    """One chunk of the synthetic volume: cos(x) cos(y) cos(z) blobs plus uniform noise, seeded by the chunk's
    position (the same volume whatever the cluster)."""
    info = block_info[None]
    xp = np
    if gpu:
        import cupy as xp
    axes = [xp.cos(2 * np.pi * xp.arange(lo, hi, dtype=xp.float32) / PERIOD) for lo, hi in info["array-location"]]
    field = axes[0][:, None, None] * axes[1][None, :, None] * axes[2][None, None, :]
    seed = [int(c) for c in info["chunk-location"]]
    noise = xp.random.default_rng(seed).random(info["chunk-shape"], dtype=xp.float32)
    return xp.round((field + noise) * LEVELS) / xp.float32(LEVELS)


def synthetic(shape, chunks, gpu=False):
    """The synthetic float32 volume as a lazy Dask array (CuPy chunks with ``gpu``)."""
    import dask.array as da

    if gpu:
        import cupy

        meta = cupy.empty((0,) * len(shape), dtype=np.float32)
    else:
        meta = np.empty((0,) * len(shape), dtype=np.float32)
    chunks = da.core.normalize_chunks(chunks, shape)
    return da.map_blocks(_block, gpu=gpu, chunks=chunks, dtype=np.float32, meta=meta, name=f"synthetic-{gpu}")


def start(engine, workers=1, threads=None, ndimg_threads=1, gpus=None, **cluster_kw):
    """A Client on a local cluster: CPU (``workers`` processes of ``threads`` Dask threads each, every ndimg call
    on ``ndimg_threads`` threads) or CUDA (one worker per GPU, the first ``gpus`` of them, or all)."""
    from dask.distributed import Client

    if engine == "cuda":
        from dask_cuda import LocalCUDACluster

        cluster = LocalCUDACluster(n_workers=gpus, **cluster_kw)
    else:
        from dask.distributed import LocalCluster

        threads = threads or max(1, (os.cpu_count() or 1) // workers)
        cluster = LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True, **cluster_kw)
    client = Client(cluster)
    if engine == "cpu":
        import ndimg

        client.run(ndimg.set_num_threads, ndimg_threads)
    return client


def stop(client):
    client.close()
    client.cluster.close()


def timed(log, label, fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    log.append((label, time.perf_counter() - t))
    print(f"  {label:<16} {log[-1][1]:8.2f} s", flush=True)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--shape", default="2048,2048,1024", help="volume shape (default: the issue's, 16 GiB)")
    ap.add_argument("--chunks", default="256,512,512")
    ap.add_argument("--sigma", type=float, default=2.0)
    ap.add_argument("--gpus", type=int, default=None, help="--engine cuda: the first N GPUs (default: all)")
    ap.add_argument("--workers", type=int, default=1, help="--engine cpu: worker processes")
    ap.add_argument("--threads", type=int, default=None, help="--engine cpu: Dask threads per worker "
                                                               "(default: the cores over the workers)")
    ap.add_argument("--ndimg-threads", type=int, default=1, help="--engine cpu: ndimg threads per call")
    args = ap.parse_args(argv)

    from dask.distributed import wait

    from ndimg import filters

    shape = tuple(int(s) for s in args.shape.split(","))
    chunks = tuple(int(c) for c in args.chunks.split(","))
    client = start(args.engine, args.workers, args.threads, args.ndimg_threads, args.gpus)
    workers = client.scheduler_info()["workers"].values()
    print(f"{args.engine}: {len(workers)} workers, {sum(w['nthreads'] for w in workers)} Dask threads; "
          f"volume {shape} float32 ({np.prod(shape) * 4 / 2**30:.1f} GiB) in chunks {chunks}")
    log = []

    def persisted(x):   # computed and held on the workers
        x = client.persist(x)
        wait(x)
        return x

    volume = timed(log, "volume", persisted, synthetic(shape, chunks, args.engine == "cuda"))
    smooth = timed(log, "gaussian", persisted, filters.gaussian(volume, sigma=args.sigma))
    del volume   # its chunks are released on the workers
    threshold = timed(log, "threshold_otsu", lambda: float(filters.threshold_otsu(smooth).compute()))
    # label -> regionprops_table come with their issues; until then the pipeline stops at the mask
    foreground = timed(log, "mask", lambda: int((smooth > threshold).sum().compute()))
    total = sum(s for _, s in log)
    print(f"threshold {threshold:.6g}, foreground {foreground / np.prod(shape):.2%} of the voxels; "
          f"{total:.2f} s in all, {np.prod(shape) * 4 / total / 1e9:.2f} GB/s of the volume")
    stop(client)


if __name__ == "__main__":
    main()

"""ndimg on Dask (issue 23): the CPU pipeline on a LocalCluster against the in-memory CPU engine, many GPUs against
one, and a volume larger than the machine's memory read from zarr.

    python bench/dask_pipeline.py cpu [--shape 128,1024,1024] [--chunks 64,512,512] [--runs 3] [--layouts ...]
    python bench/dask_pipeline.py gpu [--shape 2048,2048,1024] [--chunks 512,512,512] [--runs 3] [--gpus 1,2]
    python bench/dask_pipeline.py ooc [--shape 2560,2048,2048] [--chunks 128,512,512] [--dir /tmp/ndimg-ooc] [--keep]

The pipeline: edges = sobel(gaussian(volume, sigma=2)); t = threshold_otsu(edges); the count of edges > t (the
reduction that ends it). The volume is examples/dask_volume.py's synthetic float32 one.

cpu  In memory: the whole volume through ndimg's CPU engine on all cores. Dask: the same volume, already held on a
     distributed LocalCluster's workers in --chunks, through the same calls as Dask arrays, one compute of the
     threshold and the count. A layout is WORKERSxTHREADSxNDIMG: worker processes, Dask threads per worker, ndimg
     threads per call (ndimg's CPU engine has its own pool: every Dask thread running it on all cores
     oversubscribes them). Each run times every row once, in turn; the ratio is in-memory time over Dask time,
     the median of the runs' pairs (target: >= 0.8).
gpu  Only where CuPy sees GPUs: dask-cuda's LocalCUDACluster on the first N GPUs for each N of --gpus (default: 1
     and all of them), the volume generated as CuPy chunks on the workers and held there, then the pipeline timed
     end to end, reduction included. Speed-up: the 1-GPU time over the N-GPU time, median of the runs (target
     for two: >= 1.8).
ooc  Out of core: the volume written to a zarr array chunk by chunk (float32, Blosc zstd with byte shuffle: its
     values are multiples of 1/64, so it compresses), then the pipeline over the zarr array on a LocalCluster of
     one worker (a thread per core, ndimg single-threaded). A float histogram needs the image's range before
     its counts, so in one graph Dask would hold every edges chunk between the two passes: here each pass is its
     own compute and re-reads the zarr source (1: range, 2: histogram over the range's bins, as threshold_otsu
     bins, then threshold_otsu(hist=...), 3: the mask, written to zarr as compressed bool, and its count). Peak
     RSS is sampled every 0.2 s over this process and all its children (the cluster's nanny and worker).
     Everything under --dir is deleted at the end unless --keep.
Results: bench/results/dask-<machine>.md (cpu and gpu rewrite their section; ooc too).
"""
from __future__ import annotations

import argparse
import itertools
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# the workers inherit this path, without this folder (its scripts' names are not modules'). The source tree's
# python/ comes last, so an installed ndimg (a pip install puts the built extension there, not in python/) wins
sys.path[:] = [os.path.join(ROOT, "examples")] + [p for p in sys.path if os.path.abspath(p or ".") != HERE] + \
    [os.path.join(ROOT, "python")]
import dask_volume as example  # noqa: E402  (examples/dask_volume.py: the synthetic volume, the clusters)

SIGMA = 2.0
NBINS = 256


def edges_of(volume):
    from ndimg import filters

    return filters.sobel(filters.gaussian(volume, sigma=SIGMA))


def pipeline(volume):
    """(threshold, foreground count) of the pipeline: lazy for a Dask volume, computed for an in-memory one."""
    from ndimg import filters

    edges = edges_of(volume)
    t = filters.threshold_otsu(edges)
    return t, (edges > t).sum()


def shape_of(text):
    return tuple(int(s) for s in text.split(","))


def machine():
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        gpu = []
    cores = os.cpu_count()
    return f"{len(gpu)}x{gpu[0].replace(' ', '-')}-{cores}cores" if gpu else f"cpu-{cores}cores"


def disk_use(path):
    """Bytes in the files under ``path`` (a file removed meanwhile, as a spilled chunk read back is, counts 0)."""
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(d, f))
            except FileNotFoundError:
                pass
    return total


class PeakRSS:
    """The peak resident memory of this process and all its children, sampled on a thread (and, every 5 s, the
    peak size of the files under ``spill``: what Dask workers spilled to disk)."""

    def __init__(self, period=0.2, spill=None):
        import psutil

        self.me, self.period, self.peak, self._stop = psutil.Process(), period, 0, threading.Event()
        self.spill, self.spilled = spill, 0
        self._thread = threading.Thread(target=self._run, daemon=True)

    def now(self):
        import psutil

        total = 0
        for p in [self.me] + self.me.children(recursive=True):
            try:
                total += p.memory_info().rss
            except psutil.Error:   # a child that just ended
                pass
        return total

    def _run(self):
        for i in itertools.count():
            if self._stop.is_set():
                break
            self.peak = max(self.peak, self.now())
            if self.spill and i % round(5 / self.period) == 0:
                self.spilled = max(self.spilled, disk_use(self.spill))
            time.sleep(self.period)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def write_section(machine_name, title, lines):
    """Replace (or add) the ``## title`` section of bench/results/dask-<machine>.md."""
    path = os.path.join(HERE, "results", f"dask-{machine_name}.md")
    sections, current = {}, None
    if os.path.exists(path):
        for line in open(path).read().splitlines():
            if line.startswith("## "):
                current = line[3:]
                sections[current] = []
            elif current is not None:
                sections[current].append(line)
    sections[title] = [""] + lines + [""]
    with open(path, "w") as f:
        f.write(f"# ndimg on Dask: {machine_name}\n\nWritten by bench/dask_pipeline.py (see its docstring for what each "
                f"section measures).\n\n")
        for name, body in sorted(sections.items(), key=lambda kv: kv[0] == "Notes"):   # hand-written notes last
            f.write(f"## {name}\n" + "\n".join(body).strip("\n").join(["\n", "\n\n"]))
    print(f"wrote {path}")


# ---------------------------------------------------------------------------------------------------------------
# cpu: LocalCluster against the in-memory engine
# ---------------------------------------------------------------------------------------------------------------

def cpu(args):
    import dask
    import dask.array as da
    import ndimg
    from dask.distributed import wait

    shape, chunks = shape_of(args.shape), shape_of(args.chunks)
    cores = os.cpu_count()
    layouts = [tuple(int(v) for v in lay.split("x")) for lay in
               (args.layouts or f"1x{cores}x1,{cores}x1x1,1x1x{cores}").split(",")]
    volume = example.synthetic(shape, chunks).compute(scheduler="threads")
    ndimg.set_num_threads(0)
    expected = [float(v) for v in pipeline(volume)]
    times = {"in memory": []}
    clients = {}
    for lay in layouts:
        w, t, n = lay
        client = example.start("cpu", workers=w, threads=t, ndimg_threads=n)
        held = client.persist(da.from_array(volume, chunks=chunks))
        wait(held)
        clients[lay] = (client, held)
    for run in range(args.runs):
        ndimg.set_num_threads(0)
        start = time.perf_counter()
        pipeline(volume)
        times["in memory"].append(time.perf_counter() - start)
        for lay, (client, held) in clients.items():
            with client.as_current():
                start = time.perf_counter()
                got = [float(v) for v in dask.compute(*pipeline(held))]
                times.setdefault(lay, []).append(time.perf_counter() - start)
            assert got == expected, (lay, got, expected)
        print(f"run {run}: " + ", ".join(f"{k if isinstance(k, str) else 'x'.join(map(str, k))} {v[-1]:.2f} s"
                                         for k, v in times.items()), flush=True)
    for client, _ in clients.values():
        example.stop(client)
    mem = times.pop("in memory")
    lines = [f"Volume {shape} float32 ({np.prod(shape) * 4 / 2**20:.0f} MiB), chunks {chunks}, {cores} cores "
             f"({platform.processor() or platform.machine()}), {args.runs} runs; in memory: ndimg CPU engine on "
             f"{cores} threads, median {statistics.median(mem):.2f} s (best {min(mem):.2f} s). Threshold and "
             f"count equal to the in-memory ones in every run.", "",
             "| layout (workers x Dask threads x ndimg threads) | median s | best s | in-memory / Dask (median "
             "of runs) | target |", "|---|---:|---:|---:|---:|"]
    for lay, ts in times.items():
        ratio = statistics.median(m / t for m, t in zip(mem, ts))
        lines.append(f"| {'x'.join(map(str, lay))} | {statistics.median(ts):.2f} | {min(ts):.2f} | {ratio:.2f} | "
                     f"0.8 |")
    lines += ["", f"Command: `python bench/dask_pipeline.py cpu --shape {args.shape} --chunks {args.chunks} --runs "
                  f"{args.runs}`"]
    print("\n".join(lines))
    write_section(args.machine or machine(), f"CPU: LocalCluster against the in-memory engine, chunks {args.chunks}",
                  lines)


# ---------------------------------------------------------------------------------------------------------------
# gpu: N GPUs against one
# ---------------------------------------------------------------------------------------------------------------

def gpu(args):
    import dask
    from dask.distributed import wait

    try:
        import cupy

        available = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:   # no CuPy, no driver or no device: nothing to measure here
        sys.exit(f"bench/dask_pipeline.py gpu: no GPU ({type(e).__name__}: {e})")
    counts = [int(g) for g in args.gpus.split(",")] if args.gpus else sorted({1, available})
    counts = [g for g in counts if g <= available]
    shape, chunks = shape_of(args.shape), shape_of(args.chunks)
    times, results = {}, {}
    for g in counts:
        client = example.start("cuda", gpus=g)
        held = client.persist(example.synthetic(shape, chunks, gpu=True))
        wait(held)
        for run in range(args.runs + 1):   # the first run compiles and warms the workers' memory pools
            start = time.perf_counter()
            got = [float(v) for v in dask.compute(*pipeline(held))]
            if run:
                times.setdefault(g, []).append(time.perf_counter() - start)
        results[g] = got
        print(f"{g} GPU(s): {times[g]} s, threshold and count {got}", flush=True)
        example.stop(client)
    one = times[counts[0]]
    lines = [f"Volume {shape} float32 ({np.prod(shape) * 4 / 2**30:.1f} GiB) as CuPy chunks {chunks}, held on the "
             f"workers; dask-cuda LocalCUDACluster, one worker per GPU; {args.runs} runs after one warm-up.", "",
             f"| GPUs | median s | best s | {counts[0]}-GPU time / this (median) | same result as {counts[0]} GPU |",
             "|---:|---:|---:|---:|---|"]
    for g, ts in times.items():
        speedup = statistics.median(o / t for o, t in zip(one, ts))
        lines.append(f"| {g} | {statistics.median(ts):.2f} | {min(ts):.2f} | {speedup:.2f} | "
                     f"{'yes' if results[g] == results[counts[0]] else results[g]} |")
    lines += ["", "Target: 2 GPUs at least 1.8x one.", "",
              f"Command: `python bench/dask_pipeline.py gpu --shape {args.shape} --chunks {args.chunks} --runs {args.runs}`"]
    print("\n".join(lines))
    write_section(args.machine or machine(), f"GPU: N GPUs against one, chunks {args.chunks}", lines)


# ---------------------------------------------------------------------------------------------------------------
# ooc: larger than memory, from zarr
# ---------------------------------------------------------------------------------------------------------------

def ooc(args):
    import dask
    import dask.array as da
    import zarr
    from dask.distributed import wait
    from ndimg import filters

    shape, chunks = shape_of(args.shape), shape_of(args.chunks)
    src, dst = os.path.join(args.dir, "source.zarr"), os.path.join(args.dir, "mask.zarr")
    os.makedirs(args.dir, exist_ok=True)
    compressors = zarr.codecs.BloscCodec(cname="zstd", clevel=1, shuffle="shuffle")
    gb = np.prod(shape) * 4 / 1e9
    log, t0 = [], time.perf_counter()

    def note(label, seconds, extra=""):
        log.append(f"| {label} | {seconds:.0f} | {gb / seconds:.3f} | {rss.peak / 1e9:.2f} | {rss.spilled / 1e9:.1f} "
                   f"| {extra} |")
        print(f"[{time.perf_counter() - t0:7.0f} s] {label}: {seconds:.1f} s, {gb / seconds:.3f} GB/s of the volume,"
              f" peak RSS so far {rss.peak / 1e9:.2f} GB, spilled {rss.spilled / 1e9:.1f} GB {extra}", flush=True)

    scratch = os.path.join(args.dir, "scratch")
    with PeakRSS(spill=scratch) as rss:
        client = example.start("cpu", workers=1, threads=os.cpu_count(), ndimg_threads=1,
                               memory_limit=args.memory_limit, local_directory=scratch)
        print(f"volume {shape} float32, {gb:.1f} GB, chunks {chunks}, under {args.dir}", flush=True)
        start = time.perf_counter()
        if not (os.path.exists(src) and zarr.open_array(src, mode="r").shape == shape):
            z = zarr.create_array(src, shape=shape, chunks=chunks, dtype=np.float32, compressors=compressors,
                                  overwrite=True)
            wait(client.compute(da.store(example.synthetic(shape, chunks), z, lock=False, compute=False)))
        stored = disk_use(src)
        note("write the source (zarr, compressed)", time.perf_counter() - start,
             f"{stored / 1e9:.1f} GB on disk ({stored / (gb * 1e9):.0%})")

        edges = edges_of(da.from_zarr(src))
        start = time.perf_counter()
        lo, hi = dask.compute(edges.min(), edges.max())
        note("pass 1: range of the edges", time.perf_counter() - start)

        start = time.perf_counter()
        bins = np.histogram_bin_edges(np.empty(0, edges.dtype), NBINS, range=(lo, hi))  # threshold_otsu's bins
        counts = da.histogram(edges, bins=bins)[0].compute()
        threshold = float(filters.threshold_otsu(hist=(counts, (bins[:-1] + bins[1:]) / 2)))
        note("pass 2: histogram, threshold_otsu", time.perf_counter() - start, f"threshold {threshold:.6g}")

        start = time.perf_counter()
        mask = edges > threshold
        m = zarr.create_array(dst, shape=shape, chunks=chunks, dtype=bool, compressors=compressors, overwrite=True)
        _, foreground = dask.compute(da.store(mask, m, lock=False, compute=False), mask.sum())
        note("pass 3: mask to zarr, count", time.perf_counter() - start,
             f"{foreground / np.prod(shape):.2%} foreground, mask {disk_use(dst) / 1e9:.2f} GB on disk")
        total = time.perf_counter() - t0
        stored = disk_use(args.dir)
        example.stop(client)
    if not args.keep:
        shutil.rmtree(args.dir)
    lines = [f"Volume {shape} float32 ({gb:.1f} GB) in zarr chunks {chunks} on a machine of "
             f"{os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGE_SIZE') / 2**30:.0f} GiB, {os.cpu_count()} cores; "
             f"LocalCluster of one worker ({os.cpu_count()} Dask threads, ndimg single-threaded, memory_limit "
             f"{args.memory_limit}). Throughput: GB of the float32 volume per second (each pass re-reads and "
             f"re-filters the whole source). Peak RSS: this process and its children, sampled every 0.2 s, "
             f"cumulative; spilled: the peak size of the worker's spill files, sampled every 5 s.", "",
             "| step | s | GB/s | peak RSS so far, GB | peak spilled so far, GB | |",
             "|---|---:|---:|---:|---:|---|"] + log + [
             "", f"In all {total:.0f} s; peak RSS {rss.peak / 1e9:.2f} GB (target < 8); peak spilled to disk "
                 f"{rss.spilled / 1e9:.1f} GB; disk at the end {stored / 1e9:.1f} GB under {args.dir}"
                 + ("" if args.keep else ", deleted") + ".", "",
             f"Command: `python bench/dask_pipeline.py ooc --shape {args.shape} --chunks {args.chunks} --memory-limit "
             f"{args.memory_limit}`"]
    print("\n".join(lines))
    write_section(args.machine or machine(), f"Out of core: a zarr volume larger than memory, chunks {args.chunks}, "
                                             f"memory_limit {args.memory_limit}", lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("cpu", "gpu", "ooc"))
    ap.add_argument("--shape", default=None)
    ap.add_argument("--chunks", default=None)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--layouts", default=None, help="cpu: WORKERSxTHREADSxNDIMG,... (default: 1xCx1,Cx1x1,1x1xC "
                                                    "for C cores)")
    ap.add_argument("--gpus", default=None, help="gpu: GPU counts, e.g. 1,2 (default: 1 and all)")
    ap.add_argument("--dir", default="/tmp/ndimg-ooc", help="ooc: where the zarr arrays go")
    ap.add_argument("--memory-limit", default="6GB", help="ooc: the worker's memory_limit")
    ap.add_argument("--keep", action="store_true", help="ooc: keep the zarr arrays")
    ap.add_argument("--machine", default=None, help="name for the results file (default: GPUs and cores)")
    args = ap.parse_args()
    defaults = {"cpu": ("128,1024,1024", "64,512,512"), "gpu": ("2048,2048,1024", "512,512,512"),
                "ooc": ("2560,2048,2048", "128,512,512")}[args.what]
    args.shape, args.chunks = args.shape or defaults[0], args.chunks or defaults[1]
    {"cpu": cpu, "gpu": gpu, "ooc": ooc}[args.what](args)


if __name__ == "__main__":
    main()

"""A whole slide level read through the Dask and zarr views, against batched read_region at equal threads.

    python bench/slides_dask.py [--quick] [--size WxH] [--threads 1,2] [--repeat N] [--cache DIR] [--machine NAME]

Slide: bench/slides.py's jpeg256, written by libvips (`vips replicate ... tiffsave` with tile, pyramid, JPEG
q80 256x256 tiles; tifffile where `vips` is missing), 16000x12000 by default (--quick: 8000x6000), reused from
--cache. Level 0 is read whole, as RGB uint8, at T threads, by each row:

  read_region batched   ndimg.io.CuImage.read_region(locations, (256, 256), num_workers=T, batch_size=64): every
                        tile-aligned 256x256 patch of the level, batches consumed as they come (the issue's
                        baseline)
  read_region whole     CuImage.read_region(level=0, num_workers=T): the level as one (H, W, 3) array
  dask compute          Slide.to_dask(0, channels="RGB").compute(scheduler="threads", num_workers=T): default
                        chunks (whole tiles about 2048 pixels a side), assembled into one (H, W, 3) array
  dask store            the same chunks written by da.store into a preallocated (H, W, 3) array (no final
                        concatenation: what a pipeline consuming chunks pays)
  dask tile chunks      as dask compute, chunks="tile" (one task per 256x256 tile)
  zarr tile chunks      zarr.open_array(Slide.zarr_store(0, channels="RGB", num_workers=T))[:] (one chunk per
                        tile, the store's default)
  zarr 2048 chunks      as zarr tile chunks, chunks=2048 (8 x 8 tiles a chunk)

Each pass runs in a fresh spawned process (ndimg.set_num_threads(T) there), timed right after an untimed pass of
the same read in that process, as bench/slides.py times its rows. Figures: megapixels per second, best of
--repeat rounds (each round times every row once, in turn, in reverse every other round); ratios are best over
best, and the median of the rounds' pairs, against "read_region batched" (target: >= 0.8 for the Dask and zarr
views) and against "read_region whole". Beside them, the cores the best pass kept busy (CPU seconds of its
process over wall seconds): below T, it shared the cores with other work on the host.

Memory: "dask compute" holds every chunk and then Dask's assembled copy (twice the level, the copy made on one
thread), the others at most the level once. Fresh memory costs its page faults: on the 2-core development
machine Dask's final concatenation of a 16000x12000 RGB level (576 MB) took from 0.06 s to 1.3 s from call to
call (NumPy asks for transparent huge pages for large arrays; with NUMPY_MADVISE_HUGEPAGE=0 it took a steady
0.22-0.28 s), against 0.25-0.5 s for the whole read, so that row measures the host's memory as much as the
reader.
Writes bench/results/slides-dask-<machine>.md and prints it.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import slides as wsi  # noqa: E402  (bench/slides.py: the slide writer, machine name; puts this checkout first)

ROWS = [  # (label, function name below)
    ("read_region batched", "batched"),
    ("read_region whole", "whole"),
    ("dask compute", "dask_compute"),
    ("dask store", "dask_store"),
    ("dask tile chunks", "dask_tiles"),
    ("zarr tile chunks", "zarr_tiles"),
    ("zarr 2048 chunks", "zarr_2048"),
]
BASELINE = "batched"


def batched(path, t):
    import ndimg.io
    img = ndimg.io.CuImage(path)
    w, h = img.resolutions["level_dimensions"][0]
    locations = np.array([(x, y) for y in range(0, h, 256) for x in range(0, w, 256)])

    def run():
        for _ in img.read_region(locations, (256, 256), 0, num_workers=t, batch_size=64):
            pass
    return run


def whole(path, t):
    import ndimg.io
    img = ndimg.io.CuImage(path)
    return lambda: img.read_region(level=0, num_workers=t)


def _dask(path, t, chunks, store):
    import dask
    import dask.array as da
    import ndimg.io
    a = ndimg.io.Slide(path).to_dask(0, channels="RGB", chunks=chunks)
    out = np.empty(a.shape, a.dtype) if store else None

    def run():
        with dask.config.set(scheduler="threads", num_workers=t):
            if store:
                da.store(a, out, lock=False)
            else:
                a.compute()
    return run


def dask_compute(path, t):
    return _dask(path, t, None, False)


def dask_store(path, t):
    return _dask(path, t, None, True)


def dask_tiles(path, t):
    return _dask(path, t, "tile", False)


def _zarr(path, t, chunks):
    import ndimg.io
    import zarr
    z = zarr.open_array(ndimg.io.Slide(path).zarr_store(0, channels="RGB", chunks=chunks, num_workers=t), mode="r")
    return lambda: z[:]


def zarr_tiles(path, t):
    return _zarr(path, t, "tile")


def zarr_2048(path, t):
    return _zarr(path, t, 2048)


def _pass(attr, path, t):
    """Seconds and cores busy of one timed pass, after an untimed one (in a fresh process)."""
    import ndimg
    ndimg.set_num_threads(t)
    run = globals()[attr](path, t)
    run()
    t0, c0 = time.perf_counter(), time.process_time()
    run()
    seconds = time.perf_counter() - t0
    return seconds, (time.process_time() - c0) / seconds


def measure(attr, path, t):
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(_pass, attr, path, t).result()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="an 8000x6000 slide")
    ap.add_argument("--size", default=None, help="WxH of the slide, multiples of 2000 (default 16000x12000)")
    ap.add_argument("--threads", default=None, help="comma-separated thread counts (default 1,2,all)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds; the best pass of each row is kept")
    ap.add_argument("--cache", default=os.path.join(wsi.REPO, "build", "bench-slides"))
    ap.add_argument("--machine", default=None)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    args = ap.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # (spawned passes inherit it; see bench/slides.py)
    width, height = (8000, 6000) if args.quick else (16000, 12000)
    if args.size:
        width, height = (int(v) for v in args.size.lower().split("x"))
        if width % wsi.PERIOD or height % wsi.PERIOD:
            ap.error(f"--size must be multiples of {wsi.PERIOD}")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    threads = sorted({int(t) for t in args.threads.split(",")} if args.threads else {1, 2, cores})
    machine = args.machine or wsi.machine_name()
    generator = "vips" if shutil.which("vips") else "tifffile"
    path, gen = wsi.make_slide(os.path.abspath(args.cache), "jpeg256", width, height, 256, False, generator)

    seconds, busy = {}, {}
    for t in threads:
        for r in range(args.repeat):
            for _, attr in ROWS[::-1] if r % 2 else ROWS:
                s, c = measure(attr, path, t)
                seconds.setdefault((attr, t), []).append(s)
                busy.setdefault((attr, t), []).append(c)
                print(f"{attr:14s} {t} threads: {width * height / s / 1e6:8.1f} MPix/s ({s:.3f} s, {c:.2f} cores)",
                      file=sys.stderr, flush=True)

    import dask
    import zarr

    import ndimg
    mpix = lambda attr, t: width * height / min(seconds[attr, t]) / 1e6  # noqa: E731
    heads = " | ".join(f"{t} thread{'s' * (t > 1)}" for t in threads)
    out = [f"# A whole slide level through the Dask and zarr views on {machine}", "",
           f"CPU: {wsi.cpu_model()}, {cores} cores available; Python {platform.python_version()}, "
           f"dask {dask.__version__}, zarr {zarr.__version__}, ndimg {getattr(ndimg, '__version__', '?')}.", "",
           f"Slide: `{os.path.basename(path)}` ({gen}), {width}x{height}, JPEG q{wsi.QUALITY} tiles of 256x256, "
           f"{os.path.getsize(path) / 2 ** 20:.0f} MiB. Level 0 read whole as RGB uint8; megapixels/s, best of "
           f"{args.repeat} rounds, each pass in a fresh process after an untimed pass (see bench/slides_dask.py).",
           "", f"| row (MPix/s) | {heads} |", "|---|" + "---:|" * len(threads)]
    for label, attr in ROWS:
        out.append(f"| {label} | " + " | ".join(f"{mpix(attr, t):,.0f}" for t in threads) + " |")
    def paired(attr, base, t):  # median over rounds of one round's base seconds over its row's seconds
        return float(np.median([b / a for a, b in zip(seconds[attr, t], seconds[base, t])]))

    out += ["", "Ratios: best over best, and in parentheses the median over the rounds of each round's pair (steadier "
            "on a shared host). Target: >= 0.8 of read_region batched.", "",
            f"| ratio to read_region batched / to read_region whole | {heads} |", "|---|" + "---:|" * len(threads)]
    for label, attr in ROWS[2:]:
        cells = []
        for t in threads:
            r, q = mpix(attr, t) / mpix(BASELINE, t), mpix(attr, t) / mpix("whole", t)
            p = paired(attr, BASELINE, t)
            cells.append(f"{'**' if p >= 0.8 else ''}{r:.2f} ({p:.2f}){'**' if p >= 0.8 else ''} / "
                         f"{q:.2f} ({paired(attr, 'whole', t):.2f})")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out += ["", f"| cores busy in the best pass | {heads} |", "|---|" + "---:|" * len(threads)]
    for label, attr in ROWS:
        fastest = lambda t: int(np.argmin(seconds[attr, t]))  # noqa: E731
        out.append(f"| {label} | " + " | ".join(f"{busy[attr, t][fastest(t)]:.2f}" for t in threads) + " |")
    wsi.write_report(args.out, f"slides-dask-{machine}{'-quick' if args.quick else ''}.md", out)


if __name__ == "__main__":
    main()

"""Slide patches into GPU memory: ndimg device="cuda" vs ndimg on CPU threads vs torchvision's batched
nvJPEG decode of the same tile bytes vs cuCIM device="cuda" (when installed), end to end from the file.

    python bench/slides_gpu.py [--size 16384x12288] [--threads 16] [--repeat 3] [--machine NAME] [--dir DIR]

The test slides (256x256 JPEG tiles, q80 4:2:0 and q90 4:4:4) are written with tifffile + imagecodecs. Every
aligned 256x256 patch of level 0 is read (one tile each) in batches of 64, 256 and 1024; tiles/s counts
decoded tiles, patches/s delivered patches, both with the batch in GPU memory (synchronized). Unaligned
patches (offset by 128, four tiles each) are measured for ndimg too, and device memory in use before and
after 10,000 batches (leak check). Writes
<out>/slides-gpu-<machine>.md (default bench/results) and prints the table.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import cpu_time  # noqa: E402  (wall clock after a warm-up, median of runs)
from slides import level0_tiles, write_report  # noqa: E402  (level 0's tile offsets, byte counts, JPEGTables)

HERE = os.path.dirname(os.path.abspath(__file__))

TILE = 256
BATCHES = (64, 256, 1024)
CASES = {"q80_420": dict(quality=80, subsampling=(2, 2)), "q90_444": dict(quality=90, subsampling=(1, 1))}


def smooth_tiles(h, w, rng):
    """Row-bands of a smooth colour image with noise (tissue-like texture, JPEG-typical sizes)."""
    xx = np.arange(w, dtype=np.float32)[None, :]
    for y0 in range(0, h, TILE):
        yy = np.arange(y0, y0 + TILE, dtype=np.float32)[:, None]
        band = np.stack([127 + 90 * np.sin(xx / 53 + c) * np.cos(yy / 71 - c) for c in (0.0, 1.0, 2.0)], -1)
        band += rng.normal(0, 12, band.shape).astype(np.float32)
        yield np.clip(band, 0, 255).astype(np.uint8)


def write_slide(path, h, w, quality, subsampling):
    import tifffile

    if os.path.exists(path):
        return path
    rng = np.random.default_rng(0)

    def tiles():
        for band in smooth_tiles(h, w, rng):
            for x0 in range(0, w, TILE):
                yield band[:, x0:x0 + TILE]

    with tifffile.TiffWriter(path, bigtiff=True) as t:
        t.write(tiles(), shape=(h, w, 3), dtype=np.uint8, tile=(TILE, TILE), compression="jpeg",
                compressionargs={"level": quality}, subsampling=subsampling, metadata=None)
    return path


def ndimg_runner(path, xy, batch, device, threads):
    import cupy
    from ndimg.io import CuImage

    img = CuImage(path)

    def run():
        for b in img.read_region(xy, (TILE, TILE), batch_size=batch, num_workers=threads, device=device,
                                 prefetch_factor=2):
            last = b
        if device == "cuda":
            cupy.cuda.get_current_stream().synchronize()
        return last

    return run


def torchvision_runner(path, xy, batch, width):
    import torch
    import torchvision.io

    _, _, tables, chunks = level0_tiles(path)
    across = -(-width // TILE)
    fd = os.open(path, os.O_RDONLY)
    idx = [(int(y) // TILE) * across + int(x) // TILE for x, y in xy]

    def stream(i):
        offset, count = chunks[i]
        data = os.pread(fd, int(count), int(offset))
        if tables and data[:2] == b"\xff\xd8":
            data = tables[:-2] + data[2:]
        return torch.frombuffer(bytearray(data), dtype=torch.uint8)

    def run():
        for b0 in range(0, len(idx), batch):
            tiles = torchvision.io.decode_jpeg([stream(i) for i in idx[b0:b0 + batch]], device="cuda")
            out = torch.stack(tiles).permute(0, 2, 3, 1).contiguous()  # (B, 256, 256, 3) as the others
        torch.cuda.current_stream().synchronize()
        return out

    return run


def cucim_runner(path, xy, batch, threads):
    import cupy
    from cucim import CuImage

    img = CuImage(path)
    locations = [(int(x), int(y)) for x, y in xy]  # cuCIM takes a list of (x, y)

    def run():
        for b in img.read_region(locations, (TILE, TILE), 0, batch_size=batch, num_workers=threads, device="cuda"):
            last = b
        cupy.cuda.get_current_stream().synchronize()
        return last

    return run


def leak_check(path, w, h, loaders=100, batches=100, batch=16, size=64):
    """Device memory in use (cudaMemGetInfo, CuPy's pool emptied) before and after `loaders` iterators of
    `batches` batches each of random `size`-pixel patches, after a warm-up: (batches run, MiB before, MiB after)."""
    import cupy
    from ndimg.io import CuImage

    rng = np.random.default_rng(0)
    pool = cupy.get_default_memory_pool()

    def used():
        cupy.cuda.Device().synchronize()
        pool.free_all_blocks()
        free, total = cupy.cuda.runtime.memGetInfo()
        return (total - free) / 2 ** 20

    def run(img, count):
        done = 0
        for _ in range(count):
            xy = np.stack([rng.integers(0, w - size, batches * batch), rng.integers(0, h - size, batches * batch)], 1)
            for b in img.read_region(xy, (size, size), batch_size=batch, num_workers=4, device="cuda"):
                done += 1
                del b
        return done

    with CuImage(path) as img:
        run(img, 3)
        before = used()
        done = run(img, loaders)
        after = used()
    return done, before, after


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="16384x12288", help="level-0 WIDTHxHEIGHT")
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--machine", default=None)
    ap.add_argument("--dir", default=os.path.join(HERE, "data"))
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    os.makedirs(args.dir, exist_ok=True)

    import cupy
    import ndimg
    from ndimg.io import CuImage

    ndimg.set_num_threads(args.threads)
    gpu_name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    machine = args.machine or f"{gpu_name.replace(' ', '-')}-{os.cpu_count()}cores"
    rows = []
    for case, kw in CASES.items():
        path = write_slide(os.path.join(args.dir, f"slide_{case}_{w}x{h}.tif"), h, w, **kw)
        aligned = np.array([(x, y) for y in range(0, h, TILE) for x in range(0, w, TILE)], np.int64)
        unaligned = aligned[(aligned[:, 0] + TILE <= w - TILE // 2) & (aligned[:, 1] + TILE <= h - TILE // 2)] + TILE // 2
        n = len(aligned)
        runners = {
            "ndimg cuda": lambda b: ndimg_runner(path, aligned, b, "cuda", 4),
            f"ndimg cpu {args.threads} threads": lambda b: ndimg_runner(path, aligned, b, "cpu", args.threads),
            "torchvision decode_jpeg cuda": lambda b: torchvision_runner(path, aligned, b, w),
            "cucim cuda": lambda b: cucim_runner(path, aligned, b, args.threads),
            "ndimg cuda, unaligned (4 tiles/patch)": lambda b: ndimg_runner(path, unaligned, b, "cuda", 4),
        }
        CuImage(path).read_region((0, 0), (8, 8), device="cuda")  # loads nvJPEG
        print(f"{case}: {w}x{h}, {n} tiles, nvJPEG {ndimg._core.gpu_nvjpeg_library()} backend "
              f"{ndimg._core.gpu_nvjpeg_backend(0)}", file=sys.stderr)
        for batch in BATCHES:
            for name, make in runners.items():
                try:
                    run = make(batch)
                    t = cpu_time(run, args.repeat)
                except Exception as e:  # a peer not installed or failing: reported, not fatal
                    print(f"  {name} batch {batch}: skipped ({type(e).__name__}: {e})", file=sys.stderr)
                    continue
                patches = len(unaligned) if "unaligned" in name else n
                tiles = patches * (4 if "unaligned" in name else 1)
                rows.append((case, batch, name, patches / t, tiles / t))
                print(f"  {case} batch {batch:5d} {name:40s} {patches / t:10.0f} patches/s {tiles / t:10.0f} tiles/s",
                      file=sys.stderr)

    done, before, after = leak_check(path, w, h)
    leak = (f"Leak check: {done:,} batches of 16 random 64x64 patches ({case} slide) through "
            f"100 iterators: device memory in use {before:,.0f} MiB before, {after:,.0f} MiB after "
            f"({after - before:+,.0f} MiB).")
    print(leak, file=sys.stderr)
    lines = [f"# Slide patches into GPU memory: {machine}", "",
             f"Level 0 of {w}x{h}, 256x256 JPEG tiles, every aligned patch (one tile each) unless noted; median "
             f"of {args.repeat} runs after a warm-up, end to end from the file into GPU memory (synchronized).",
             "", leak, "", "| tiles | batch | reader | patches/s | tiles/s | vs torchvision |", "|---|---|---|---|---|---|"]
    ref = {(c, b): p for c, b, name, p, _ in rows if name.startswith("torchvision")}
    for c, b, name, p, t in rows:
        r = ref.get((c, b))
        lines.append(f"| {c} | {b} | {name} | {p:,.0f} | {t:,.0f} | {p / r:.2f}x |" if r else
                     f"| {c} | {b} | {name} | {p:,.0f} | {t:,.0f} | |")
    write_report(args.out, f"slides-gpu-{machine}.md", lines)


if __name__ == "__main__":
    main()

"""A five-function NumPy chain under ndimg.accelerate: the CPU engine vs the eager gpu policy vs lazy=True.

    PYTHONPATH=python python bench/lazy_chain.py --out bench/results/lazy_chain.md [--sizes 2048 4096]
        [--repeat 3] [--modes cpu gpu gpu-every lazy]

The chain is scikit-image code as written for NumPy (float32 images):
    smooth = gaussian(img, sigma=2); edges = sobel(smooth); mask = edges > threshold_otsu(edges)
    labels = label(mask); table = regionprops_table(labels, intensity_image=smooth, properties=...)
Modes: ``cpu`` ndimg.accelerate(device="cpu"); ``gpu`` device="gpu" (each NumPy call above its family's
crossover copied up and back; families without a measured crossover stay on the CPU); ``gpu-every`` the gpu
policy with every call round-tripping (no crossover); ``lazy`` device="gpu", lazy=True (results stay on the
GPU until NumPy uses them; the mask's comparison runs there). A run ends with the table on the host. Each mode
runs once untimed (kernels compiled, pools warm), then --repeat timed runs; the table gives medians and
checks every mode's labels and table against the last mode's (lazy by default).
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from datetime import datetime, timezone

import numpy as np

PROPERTIES = ("label", "area", "centroid", "intensity_mean")


def image(n, seed=0):
    """Flat blocks of random grey levels with noise: edges between the blocks, many components."""
    rng = np.random.default_rng(seed)
    blocks = np.kron(rng.random((n // 64, n // 64)), np.ones((64, 64)))
    return (blocks + 0.05 * rng.standard_normal((n, n))).astype(np.float32)


def chain(img):
    import skimage.filters
    import skimage.measure

    smooth = skimage.filters.gaussian(img, sigma=2)
    edges = skimage.filters.sobel(smooth)
    mask = edges > skimage.filters.threshold_otsu(edges)
    labels = skimage.measure.label(mask)
    table = skimage.measure.regionprops_table(labels, intensity_image=smooth, properties=PROPERTIES)
    return labels, table


def settings(mode):
    """The ndimg.accelerated(...) arguments and the forced round trip of a mode."""
    return {"cpu": (dict(device="cpu"), False), "gpu": (dict(device="gpu"), False),
            "gpu-every": (dict(device="gpu"), True), "lazy": (dict(device="gpu", lazy=True), False)}[mode]


def run(mode, img, repeat):
    import ndimg
    from ndimg.backends import skimage as backend

    kw, every = settings(mode)
    sync = (lambda: __import__("cupy").cuda.Device().synchronize()) if mode != "cpu" else (lambda: None)
    with ndimg.accelerated(**kw):
        if every:
            backend.set_numpy_policy("gpu", force_gpu=True)
        labels, table = chain(img)  # warm-up
        sync()
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            labels, table = chain(img)
            sync()
            times.append(time.perf_counter() - t0)
    return statistics.median(times), np.asarray(labels), table


def compare(a, b):
    """'equal', or how the labels or the table differ (the CPU engine's Gaussian and Sobel may round a pixel's
    edge strength to the other side of the threshold)."""
    labels_a, table_a = a
    labels_b, table_b = b
    if labels_a.shape != labels_b.shape:
        return "shapes differ"
    if not np.array_equal(labels_a, labels_b):
        return f"labels differ at {np.count_nonzero(labels_a != labels_b)} pixels"
    if table_a.keys() != table_b.keys() or not all(
            np.allclose(table_a[k], table_b[k], rtol=1e-5, atol=1e-6) for k in table_a):
        return "tables differ"
    return "equal"


def machine():
    import ndimg

    cpu = f"{platform.processor() or platform.machine()}, {ndimg.get_num_threads()} CPU threads"
    try:
        import cupy

        gpu = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"].decode()
    except Exception:
        gpu = "no GPU"
    return f"{platform.node()}: {cpu}; {gpu}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[2048, 4096])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--modes", nargs="+", default=["cpu", "gpu", "gpu-every", "lazy"],
                    choices=["cpu", "gpu", "gpu-every", "lazy"])
    ap.add_argument("--out", help="markdown file to write (printed either way)")
    args = ap.parse_args(argv)
    import warnings

    warnings.simplefilter("ignore")
    head = ["size"] + [f"{m} (ms)" for m in args.modes]
    if "lazy" in args.modes:
        head += [f"{m} / lazy" for m in ("gpu", "gpu-every") if m in args.modes]
    head.append(f"vs {args.modes[-1]}")
    rows = []
    for n in args.sizes:
        img = image(n)
        got = {m: run(m, img, args.repeat) for m in args.modes}
        ref = got[args.modes[-1]][1:]
        row = [f"{n}x{n}"] + [f"{got[m][0] * 1e3:.1f}" for m in args.modes]
        if "lazy" in args.modes:
            row += [f"{got[m][0] / got['lazy'][0]:.2f}x" for m in ("gpu", "gpu-every") if m in args.modes]
        row.append("; ".join(f"{m}: {compare(got[m][1:], ref)}" for m in args.modes[:-1]) or "-")
        rows.append(row)
        print(" | ".join(row), flush=True)
    lines = ["# Lazy chain: gaussian -> sobel -> threshold_otsu (mask) -> label -> regionprops_table",
             "", f"{machine()}; {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; median of {args.repeat} runs "
             f"(after one warm-up), float32 NumPy input, {len(PROPERTIES)} properties; "
             f"`PYTHONPATH=python python bench/lazy_chain.py`.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()

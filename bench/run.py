"""The benchmark runner: every registry entry with bench cases, timed side by side in one run.

    python bench/run.py [--only NAME[,NAME]] [--engines cpu,cuda] [--repeat N] [--machine NAME]

CPU: scikit-image / scipy.ndimage vs the ndimg CPU engine (wall clock, median of --repeat runs).
GPU: the ndimg CUDA engine vs cupyx.scipy.ndimage (ndimage entries) and cuCIM (filters entries, when
installed), CUDA events after warm-up, median of many runs; plus the memory floor (input read once and
output written once at the measured device-to-device copy bandwidth).
Writes bench/results/<machine>.md and .png and prints the table.
"""
from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# The grid named by bench cases in the registry.
SHAPES = {
    "2d_f32": ((3840, 2160), np.float32),
    "2d_rgb_u8": ((3840, 2160, 3), np.uint8),
    "3d_f32": ((192, 192, 192), np.float32),
}


def make_input(case, rng):
    shape, dtype = SHAPES[case]
    if np.dtype(dtype).kind == "f":
        return rng.random(shape, dtype=np.float32).astype(dtype)
    return rng.integers(0, 256, size=shape, dtype=np.uint8)


def cpu_time(fn, repeat):
    fn()  # warm-up (imports, thread pool, caches)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def gpu_time(fn, repeat, calls=1):
    """Median over `repeat` runs of the GPU time of `calls` back-to-back calls, per call. With calls=1
    it is one call's latency (host overhead included when the GPU waits on it). With more, two calls are
    queued before the start event, so the GPU is busy when it reaches it and the host queues each next call
    while the GPU runs the last, as in a pipeline of filters: the device time per call, or the host's where
    the host is the slower (a run started on an idle GPU would add the first call's host time)."""
    import cupy as cp

    for _ in range(3):
        fn()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(repeat):
        if calls > 1:
            fn()
            fn()
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / 1e3 / calls)
    return statistics.median(times)


def copy_bandwidth():
    """Device-to-device copy bandwidth in bytes/s, counting bytes read plus bytes written."""
    import cupy as cp

    a = cp.empty(1 << 28, dtype=cp.uint8)
    b = cp.empty_like(a)
    t = gpu_time(lambda: b.__setitem__(Ellipsis, a), 20)
    return 2 * a.nbytes / t


def peer(entry):
    """The GPU peer of an entry: cupyx.scipy.ndimage for ndimage, cuCIM for skimage modules."""
    mod, name = entry.reference.split(":")
    try:
        if mod == "scipy.ndimage":
            return getattr(importlib.import_module("cupyx.scipy.ndimage"), name), "cupyx"
        return getattr(importlib.import_module(mod.replace("skimage", "cucim.skimage")), name), "cuCIM"
    except (ImportError, AttributeError):
        return None, None


def fmt(t):
    if t is None:
        return "-"
    return f"{t * 1e3:.2f} ms" if t < 1 else f"{t:.2f} s"


def ratio(a, b):
    return "-" if a is None or b is None else f"{a / b:.1f}x"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="")
    ap.add_argument("--engines", default="cpu,cuda")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--gpu-repeat", type=int, default=30)
    ap.add_argument("--machine", default=None)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    args = ap.parse_args(argv)

    import ndimg
    from ndimg._registry import entries

    engines = set(args.engines.split(","))
    cuda = "cuda" in engines and ndimg.built_with_cuda
    if cuda:
        try:
            import cupy as cp

            cuda = cp.cuda.runtime.getDeviceCount() > 0
        except Exception:
            cuda = False
    if args.machine is None:
        if cuda:
            import cupy as cp

            gpu = cp.cuda.runtime.getDeviceProperties(0)["name"].decode().replace(" ", "-")
            args.machine = f"{gpu}-{os.cpu_count()}cores"
        else:
            args.machine = f"cpu-{os.cpu_count()}cores"
    only = set(filter(None, args.only.split(",")))
    rng = np.random.default_rng(0)
    bw = copy_bandwidth() if cuda else None
    rows = []
    for e in entries():
        if not e.bench or (only and e.name not in only and e.qualname not in only):
            continue
        try:
            fn = e.load()
        except (ImportError, AttributeError) as exc:
            print(f"skip {e.qualname}: not available ({exc})", file=sys.stderr)
            continue
        ref = e.load_reference()
        for case, kw in e.bench:
            x = make_input(case, rng)
            row = dict(name=e.qualname, case=f"{case} {kw}" if kw else case)
            row["ref"] = cpu_time(lambda: ref(x, **kw), max(1, args.repeat // 2)) if "cpu" in engines else None
            row["cpu"] = cpu_time(lambda: fn(x, **kw), args.repeat) if "cpu" in engines else None
            row["cuda"] = row["cuda_stream"] = row["peer"] = row["floor"] = None
            row["peer_name"] = ""
            if cuda:
                import cupy as cp

                xg = cp.asarray(x)
                row["cuda"] = gpu_time(lambda: fn(xg, **kw), args.gpu_repeat)
                row["cuda_stream"] = gpu_time(lambda: fn(xg, **kw), max(3, args.gpu_repeat // 5), calls=10)
                pfn, pname = peer(e)
                if pfn is not None:
                    try:
                        row["peer"] = gpu_time(lambda: pfn(xg, **kw), args.gpu_repeat)
                        row["peer_name"] = pname
                    except Exception as exc:  # a peer lacking an argument is reported, not fatal
                        print(f"peer {pname} {e.qualname} failed: {exc}", file=sys.stderr)
                out = fn(xg, **kw)
                nbytes = xg.nbytes + (out.nbytes if hasattr(out, "nbytes") else 0)
                row["floor"] = nbytes / bw
            rows.append(row)
            print(f"{row['name']:40s} {row['case']:28s} ref {fmt(row['ref']):>10s} cpu {fmt(row['cpu']):>10s} "
                  f"cuda {fmt(row['cuda']):>10s} {row['peer_name'] or 'peer'} {fmt(row['peer']):>10s}", flush=True)
    write_results(rows, args, bw)


def write_results(rows, args, bw):
    import ndimg

    os.makedirs(args.out, exist_ok=True)
    lines = [f"# Benchmarks on {args.machine}", "",
             f"ndimg CPU engine threads: {ndimg.get_num_threads()}; "
             + (f"device-to-device copy bandwidth {bw / 1e9:.0f} GB/s (read+write)" if bw else "no GPU"), "",
             "ndimg CUDA: one call's latency (CUDA events around it, host overhead included); ndimg CUDA "
             "stream: per call in a run of 10 back-to-back calls queued behind two more (the device time when the "
             "host keeps up), "
             "which the memory floor (input read once, output written once) is compared with.", "",
             "| function | case | reference (CPU) | ndimg CPU | CPU speedup | GPU peer | peer | ndimg CUDA | "
             "vs peer | ndimg CUDA stream | memory floor | stream / floor |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['case']} | {fmt(r['ref'])} | {fmt(r['cpu'])} | {ratio(r['ref'], r['cpu'])} | "
                     f"{r['peer_name'] or '-'} | {fmt(r['peer'])} | {fmt(r['cuda'])} | {ratio(r['peer'], r['cuda'])} | "
                     f"{fmt(r['cuda_stream'])} | {fmt(r['floor'])} | {ratio(r['cuda_stream'], r['floor'])} |")
    md = os.path.join(args.out, f"{args.machine}.md")
    with open(md, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    labels = [f"{r['name']}\n{r['case']}" for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, len(rows) * 0.9), 4.5))
    xs = np.arange(len(rows))
    series = [("ndimg CPU vs reference", [r["ref"] / r["cpu"] if r["ref"] and r["cpu"] else 0 for r in rows]),
              ("ndimg CUDA vs reference", [r["ref"] / r["cuda"] if r["ref"] and r["cuda"] else 0 for r in rows]),
              ("ndimg CUDA vs GPU peer", [r["peer"] / r["cuda"] if r["peer"] and r["cuda"] else 0 for r in rows])]
    for i, (lab, vals) in enumerate(series):
        ax.bar(xs + (i - 1) * 0.27, vals, 0.27, label=lab)
    ax.set_yscale("log")
    ax.axhline(1, color="k", lw=0.8)
    ax.set_xticks(xs, labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("speedup (x)")
    ax.set_title(f"ndimg speedups on {args.machine}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, f"{args.machine}.png"), dpi=110)


if __name__ == "__main__":
    main()

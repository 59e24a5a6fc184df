"""The NumPy -> GPU crossover of every function family, for the registry's CROSSOVER and LAZY_CROSSOVER.

    python bench/crossover.py [--out DIR] [--families a,b] [--min-log2 12] [--max-log2 24] [--budget S]

For each family with a CUDA engine, one representative: the first registry entry of the family with a CUDA
engine and a bench case, called as that first bench case (its input kinds, dtype and arguments) on a
ladder of 2-D square-ish images of 2^min-log2 .. 2^max-log2 elements (a 3-D case gets cubes, an RGB case
keeps its channels). Three timings per size, wall clock, median of a few calls:

    cpu    the CPU engine on the NumPy input (ndimg.get_num_threads() threads; 16 on the H100 host)
    eager  the 'gpu' policy's round trip: the NumPy input copied to the GPU, computed there, copied back
    lazy   `ndimg.accelerate(device="gpu", lazy=True)` inside a chain: the input already on the device and
           the result left there (no transfers), synchronized

A crossover is the smallest size from which the GPU path beats the CPU engine at every larger size measured
(None: it never does). A family's larger sizes are skipped once the eager GPU path has won by 3x at two
sizes, or a call took more than --cap seconds, or the family used its budget (--budget seconds, less where
the families left share less of --total): the whole run fits in about 8 minutes on the H100 host. Without
CuPy or a GPU only the CPU column is measured.

Writes OUT/crossover.md (the table) and OUT/crossover.png (time against size per family), and prints the
CROSSOVER and LAZY_CROSSOVER literals to paste into ndimg/_registry.py, with the machine and date.
"""
from __future__ import annotations

import argparse
import datetime
import math
import os
import statistics
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import cpu_times, cuda_available, host_meta, to_gpu  # noqa: E402  (bench/run.py)

PATHS = ("cpu", "eager", "lazy")


def representatives(only=()):
    """{family: (entry, shape name, bench kwargs)}: the first entry of each family with a CUDA engine and a
    bench case with an array input."""
    from ndimg._cases import SHAPES
    from ndimg._registry import entries

    found = {}
    for e in entries():
        if not e.family or e.family in found or "cuda" not in e.engines or (only and e.family not in only):
            continue
        case = next(((s, kw) for s, kw in e.bench if SHAPES[s][0] and "_method" not in kw), None)
        if case is not None:
            found[e.family] = (e, *case)
    return found


def ladder_shape(base, n):
    """A shape of n (a power of two) elements with base's dimensionality: the spatial axes within a factor
    2 of each other (square, cube), an RGB case's channels on top."""
    channels = base[2:] if len(base) == 3 and base[2] <= 4 else ()
    nd = len(base) - len(channels)
    bits = n.bit_length() - 1
    return tuple(2 ** (bits // nd + (i < bits % nd)) for i in range(nd)) + channels


def median_wall(fn, args):
    return statistics.median(cpu_times(fn, args.repeat, args.size_budget, args.cap))


def time_size(entry, shape_name, kwargs, n, args, cuda, first):
    """{path: seconds} for one rung of the ladder, and the input's element count. On the `first` rung the
    GPU paths are called once untimed (kernel compilation and loading, memory pool growth)."""
    from ndimg._cases import SHAPES, make_inputs, split_bench
    from ndimg.backends.skimage import _to_host

    # the bench case's input kinds, dtype and arguments on the ladder's shape
    kw, settings = split_bench(kwargs)
    base, dtype = SHAPES[shape_name]
    inputs = make_inputs(entry, ladder_shape(base, n), settings.get("dtype") or dtype,
                         np.random.default_rng(0), kinds=settings.get("inputs"))
    fn = entry.load()
    times = {"cpu": median_wall(lambda: fn(*inputs, **kw), args)}
    if cuda:
        import cupy as cp

        sync = cp.cuda.get_current_stream().synchronize
        gin, gkw = to_gpu(inputs), to_gpu(kw)
        if first:
            fn(*gin, **gkw)
            sync()
        times["eager"] = median_wall(lambda: _to_host(fn(*to_gpu(inputs), **to_gpu(kw))), args)
        times["lazy"] = median_wall(lambda: (fn(*gin, **gkw), sync()), args)
        del gin, gkw
        cp.get_default_memory_pool().free_all_blocks()
    return times, sum(getattr(v, "size", 0) for v in inputs)


def measure_family(entry, shape_name, kwargs, args, cuda, budget):
    rows, wins, t0 = [], 0, time.perf_counter()
    for k in range(args.min_log2, args.max_log2 + 1):
        try:
            times, size = time_size(entry, shape_name, kwargs, 2**k, args, cuda, not rows)
        except Exception as exc:  # a failing call ends the family's ladder, the run goes on
            print(f"  {entry.qualname} at 2^{k}: {type(exc).__name__}: {str(exc).splitlines()[0][:150]}")
            break
        rows.append((size, times))
        print(f"{entry.family:15s} {entry.qualname:38s} {size:>10d}  "
              + "  ".join(f"{p} {times[p] * 1e3:10.3f} ms" for p in PATHS if p in times), flush=True)
        wins = wins + 1 if "eager" in times and times["eager"] * 3 <= times["cpu"] else wins
        if wins >= 2 or max(times.values()) > args.cap or time.perf_counter() - t0 > budget:
            break
    return rows


def crossover(rows, path):
    """The smallest size from which `path` beats the CPU at every larger size measured; None: never."""
    found = None
    for size, t in rows:
        if path not in t:
            return None
        found = (found or size) if t[path] < t["cpu"] else None
    return found


def write_table(results, meta, out):
    lines = [f"# NumPy -> GPU crossover per family ({meta['machine']}, {meta['date']})", "",
             f"CPU engine: {meta['threads']} threads ({meta['cpu_model']}); GPU: {meta['gpu'] or 'none'}. "
             "Times are wall clock, milliseconds (median). eager: NumPy -> GPU -> NumPy; lazy: input on the "
             "device, result left there. Crossover: elements from which the GPU path wins at every larger size.",
             "", "| family | representative | eager crossover | lazy crossover |", "|---|---|---|---|"]
    for fam, (name, rows) in sorted(results.items()):
        cells = [crossover(rows, p) if meta["gpu"] else "not measured (no GPU)" for p in ("eager", "lazy")]
        lines.append(f"| {fam} | {name} | {cells[0]} | {cells[1]} |")
    lines += ["", "| family | elements | cpu | eager | lazy |", "|---|---:|---:|---:|---:|"]
    for fam, (_, rows) in sorted(results.items()):
        for size, t in rows:
            cells = " | ".join(f"{t[p] * 1e3:.3f}" if p in t else "" for p in PATHS)
            lines.append(f"| {fam} | {size} | {cells} |")
    with open(os.path.join(out, "crossover.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def plot(results, meta, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fams = sorted(f for f, (_, rows) in results.items() if rows)
    cols = min(6, len(fams)) or 1
    nrows = math.ceil(len(fams) / cols) or 1
    fig, axes = plt.subplots(nrows, cols, figsize=(3.2 * cols, 2.6 * nrows), squeeze=False)
    for ax in axes.flat[len(fams):]:
        ax.axis("off")
    for ax, fam in zip(axes.flat, fams):
        name, rows = results[fam]
        for p in PATHS:
            pts = [(s, t[p]) for s, t in rows if p in t]
            if pts:
                ax.loglog(*zip(*pts), marker=".", label=p)
        ax.set_title(f"{fam}\n{name}", fontsize=8)
        ax.tick_params(labelsize=7)
    axes.flat[0].legend(fontsize=7)
    fig.supxlabel("elements")
    fig.supylabel("seconds")
    fig.suptitle(f"time against size per family ({meta['machine']}, {meta['date']})")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "crossover.png"), dpi=110)
    plt.close(fig)


def literal(name, results, path, meta):
    found = {f: crossover(rows, path) for f, (_, rows) in sorted(results.items()) if rows}
    body = ", ".join(f"{f!r}: {v}" for f, v in found.items())
    return (f"# Measured by bench/crossover.py on {meta['machine']} ({meta['threads']} CPU threads), "
            f"{meta['date']}\n{name}: dict[str, int | None] = {{{body}}}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench/results/crossover")
    ap.add_argument("--families", default="", help="comma-separated families (default: all with a CUDA engine)")
    ap.add_argument("--min-log2", type=int, default=12)
    ap.add_argument("--max-log2", type=int, default=24)
    ap.add_argument("--repeat", type=int, default=5, help="samples per size and path (fewer for slow calls)")
    ap.add_argument("--size-budget", type=float, default=0.5, help="seconds of samples per size and path")
    ap.add_argument("--cap", type=float, default=1.0, help="a call slower than this ends the family's ladder")
    ap.add_argument("--budget", type=float, default=10.0, help="seconds per family at most")
    ap.add_argument("--total", type=float, default=400.0,
                    help="seconds for the whole run: the families left share what is left of it")
    ap.add_argument("--no-gpu", action="store_true", help="the CPU column only, even with a GPU")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")  # the cases' own warnings (random_walker's tolerance) on every call

    cuda = not args.no_gpu and cuda_available({"cuda"})
    meta = host_meta(cuda) | {"date": datetime.date.today().isoformat()}
    os.makedirs(args.out, exist_ok=True)
    if not cuda:
        print("no CUDA device (or ndimg built without CUDA): CPU timings only, no crossover")
    results, t0 = {}, time.perf_counter()
    todo = sorted(representatives(set(filter(None, args.families.split(",")))).items())
    for i, (fam, (entry, shape_name, kwargs)) in enumerate(todo):
        budget = min(args.budget, max(0.0, args.total - (time.perf_counter() - t0)) / (len(todo) - i))
        results[fam] = (entry.qualname, measure_family(entry, shape_name, kwargs, args, cuda, budget))
    write_table(results, meta, args.out)
    plot(results, meta, args.out)
    print(f"wrote {args.out}/crossover.md and crossover.png")
    if cuda:
        print(literal("CROSSOVER", results, "eager", meta))
        print(literal("LAZY_CROSSOVER", results, "lazy", meta))


if __name__ == "__main__":
    main()

"""Every registry entry's benchmark cases, timed side by side in one run.

    python bench/run.py [--only NAMES] [--engines cpu,cuda] [--repeat N] [--runs N] [--quick] ...

Inputs: `ndimg._cases.bench_inputs` (the entry's input kinds over the grid `ndimg._cases.SHAPES`, seed 0:
the same arrays in every run); a call is fn(*inputs, **kwargs).
CPU ("cpu"): the reference (scikit-image / scipy.ndimage, one call) vs the ndimg CPU engine, wall clock.
GPU ("cuda"): the ndimg CUDA engine vs its peer, cuCIM (`cucim.skimage.<module>.<name>`, when installed)
or `cupyx.scipy.ndimage` for ndimage entries, the same inputs moved to the GPU; CUDA events after a
warm-up; plus the memory floor (inputs read once, outputs written once at the measured device-to-device
copy bandwidth). A call that fails (a peer lacking an argument) is reported and its row kept.

Slow calls are not repeated: every engine's warm-up call is timed, and one above --cap seconds is the only
sample; faster ones get up to --repeat samples within --budget seconds (calls under 10 ms ten times as many).
The reference's samples may be taken from an earlier run's JSON instead (--ref-from). Each run writes the raw samples as
JSON (--json); `--runs N` makes N whole runs in fresh processes and pools them (bench/summary.py: the
median over runs of each run's median) into OUT/MACHINE.md and .png.
"""
from __future__ import annotations

import argparse
import datetime
import functools
import importlib
import json
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import summary  # noqa: E402  (bench/summary.py)


def wall(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def count(repeat, budget, t, least):
    """How many samples of a `t`-second call: at most `repeat`, within `budget` seconds, at least `least`."""
    return min(repeat, max(least, int(min(budget / max(t, 1e-9), repeat))))


def cpu_times(fn, repeat, budget=math.inf, cap=math.inf):
    """Wall-clock samples of one call. The warm-up is timed: above `cap` s it is the only sample."""
    t = wall(fn)
    if t > cap:
        return [t]
    # calls under 10 ms are in the noise of a shared machine: ten times the samples, still within budget
    return [wall(fn) for _ in range(count(repeat * (10 if t < 0.01 else 1), budget, t, 1))]


def cpu_time(fn, repeat):
    return statistics.median(cpu_times(fn, repeat))


def gpu_times(fn, repeat, budget=math.inf, cap=math.inf, calls=1):
    """Samples of the GPU time per call (CUDA events) of `calls` back-to-back calls. With calls=1 it is
    one call's latency (host overhead included when the GPU waits on it). With more, two calls are queued
    before the start event, so the GPU is busy when it reaches it and the host queues each next call while
    the GPU runs the last, as in a pipeline of filters: the device time per call, or the host's where the
    host is the slower."""
    import cupy as cp

    start, end = cp.cuda.Event(), cp.cuda.Event()

    def timed(k):
        if k > 1:
            fn()
            fn()
        start.record()
        for _ in range(k):
            fn()
        end.record()
        end.synchronize()
        return cp.cuda.get_elapsed_time(start, end) / 1e3 / k

    fn()  # warm-up: kernel compilation and loading, memory pool growth
    cp.cuda.get_current_stream().synchronize()
    t = timed(1)
    if t > cap:
        return [t]
    return [timed(calls) for _ in range(count(repeat, budget, t * calls, 3))]


def gpu_time(fn, repeat, calls=1):
    return statistics.median(gpu_times(fn, repeat, calls=calls))


def copy_bandwidth():
    """Device-to-device copy bandwidth in bytes/s, counting bytes read plus bytes written."""
    import cupy as cp

    a = cp.empty(1 << 28, dtype=cp.uint8)
    b = cp.empty_like(a)
    t = statistics.median(gpu_times(lambda: b.__setitem__(Ellipsis, a), 20, 1.0, 10.0))
    return 2 * a.nbytes / t


@functools.lru_cache(maxsize=None)
def peer_module(name):
    """The peer's module, or None where it is absent (said once where it is installed but broken)."""
    try:
        return importlib.import_module(name)
    except Exception as exc:  # absent, or installed but broken (CUDA mismatch, a missing dependency)
        absent = isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] == name.split(".")[0]
        if not absent:
            print(f"{name} does not import: {error(exc)}", file=sys.stderr)
        return None


def peer(entry):
    """An entry's GPU peer and its name: cupyx.scipy.ndimage for scipy.ndimage references, cuCIM's
    mirror of the scikit-image module otherwise; (None, None) where none has the function."""
    mod, name = entry.reference.split(":")
    pmod, pname = ("cupyx.scipy.ndimage", "cupyx") if mod == "scipy.ndimage" else \
        (mod.replace("skimage", "cucim.skimage", 1), "cuCIM")
    try:  # cuCIM's modules load their functions on first access (lazy_loader)
        fn = getattr(peer_module(pmod), name, None)
    except Exception as exc:
        print(f"{pmod}.{name} does not load: {error(exc)}", file=sys.stderr)
        fn = None
    return (fn, pname) if fn is not None else (None, None)


def nbytes(x):
    """Bytes of the arrays in a result (tuples and lists walked; scalars count nothing)."""
    if isinstance(x, (tuple, list)):
        return sum(nbytes(v) for v in x)
    return getattr(x, "nbytes", 0) if hasattr(x, "shape") else 0


def to_gpu(x):
    import cupy as cp

    if isinstance(x, np.ndarray):   # object arrays (haar feature coordinates) stay on the host, as callers pass them
        return x if x.dtype == object else cp.asarray(x)
    if isinstance(x, (tuple, list)):
        return type(x)(to_gpu(v) for v in x)
    if isinstance(x, dict):
        return {k: to_gpu(v) for k, v in x.items()}
    return x


def describe(v):
    """A case argument as text that is the same in every run (the key that pools runs)."""
    if isinstance(v, np.ndarray):
        return f"<{v.dtype} {'x'.join(map(str, v.shape))}>"
    if isinstance(v, (tuple, list)):   # repr's layout, arrays inside (footprint sequences) described too
        inner = ", ".join(describe(x) for x in v) + ("," if isinstance(v, tuple) and len(v) == 1 else "")
        return f"({inner})" if isinstance(v, tuple) else f"[{inner}]"
    if callable(v):
        return getattr(v, "__name__", type(v).__name__)
    return repr(v)


def case_label(shape, kwargs):
    """"2d_f32 int32 labels,labels2 mode='wrap'": the grid shape, the dtype and input kinds the case sets,
    the call's kwargs."""
    kinds = [k for k in kwargs.get("_inputs", ()) if k != "image"]
    return " ".join([shape] + ([str(kwargs["_dtype"])] if kwargs.get("_dtype") else [])
                    + ([",".join(kinds)] if kinds else [])
                    + [f"{k}={describe(v)}" for k, v in kwargs.items() if not k.startswith("_")])


def error(exc):
    msg = f"{type(exc).__name__}: {exc}".splitlines()[0]
    return msg[:200]


def host_meta(cuda):
    import ndimg

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    model = None
    try:
        with open("/proc/cpuinfo") as f:
            model = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), None)
    except OSError:
        pass
    gpu = None
    if cuda:
        import cupy as cp

        gpu = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    machine = f"{gpu.replace(' ', '-')}-{cores}cores" if gpu else f"cpu-{cores}cores"
    return dict(machine=machine, cores=cores, cpu_model=model, threads=ndimg.get_num_threads(), gpu=gpu)


def cuda_available(engines):
    import ndimg

    if "cuda" not in engines or not ndimg.built_with_cuda:
        return False
    try:
        import cupy as cp

        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def selected(e, only):
    return not only or e.name in only or e.qualname in only or e.module in only


def measure(args, save):
    """Time every selected case; save(meta, rows) after each, so a run cut off keeps what it measured."""
    from ndimg._cases import bench_callable, bench_inputs
    from ndimg._registry import entries

    engines = set(args.engines.split(","))
    cuda = cuda_available(engines)
    meta = host_meta(cuda)
    meta["copy_bandwidth"] = copy_bandwidth() if cuda else None
    meta["machine"] = args.machine or meta["machine"]
    only = set(filter(None, args.only.split(",")))
    # the reference does not change with ndimg: its samples may come from earlier runs on this kind of host
    prior = {(r["name"], r["case"]): r["times"]["ref"] for run in summary.load(args.ref_from)
             for r in run["rows"] if r["times"].get("ref")}
    rows = []
    for e in entries():
        if not e.bench or not selected(e, only):
            continue
        pfn, pname = peer(e) if cuda and "cuda" in e.engines else (None, None)
        for shape, kwargs in e.bench:
            row = dict(name=e.qualname, case=case_label(shape, kwargs), times={}, errors={}, peer_name=pname or "",
                       floor=None)
            rows.append(row)
            try:
                fn, ref = (bench_callable(f, kwargs) for f in (e.load(), e.load_reference()))
                inputs, kw = bench_inputs(e, shape, kwargs, rng=np.random.default_rng(0))
            except Exception as exc:  # a broken entry is a row of the report, not the end of the run
                row["errors"]["setup"] = error(exc)
                print(progress(row), flush=True)
                continue
            runs = []
            if "cpu" in engines:
                if (row["name"], row["case"]) in prior and not args.no_ref:
                    row["times"]["ref"], row["ref_from"] = prior[row["name"], row["case"]], True
                elif not args.no_ref:
                    runs.append(("ref", lambda: ref(*inputs, **kw)))
                runs.append(("cpu", lambda: fn(*inputs, **kw)))
            for k, call in runs:
                try:
                    row["times"][k] = cpu_times(call, args.repeat, args.budget, args.cap)
                except Exception as exc:  # reported in the row, the run goes on
                    row["errors"][k] = error(exc)
            if cuda and "cuda" in e.engines and inputs:  # without an array input no call picks the GPU
                gpu_case(row, fn, pfn and bench_callable(pfn, kwargs), inputs, kw, args, meta["copy_bandwidth"])
            print(progress(row), flush=True)
            save(meta, rows)
    return meta, rows


def gpu_case(row, fn, pfn, inputs, kw, args, bw):
    import cupy as cp

    try:
        gin, gkw = to_gpu(inputs), to_gpu(kw)
    except Exception as exc:  # inputs CuPy cannot hold: the row keeps its CPU times
        row["errors"]["cuda"] = error(exc)
        return
    calls = [("cuda", lambda: fn(*gin, **gkw))]
    if pfn is not None:
        calls.append(("peer", lambda: pfn(*gin, **gkw)))
    for k, call in calls:
        try:
            row["times"][k] = gpu_times(call, args.gpu_repeat, args.gpu_budget, args.cap)
            if k == "cuda" and statistics.median(row["times"][k]) < 0.01:
                row["times"]["cuda_stream"] = gpu_times(call, max(3, args.gpu_repeat // 5), args.gpu_budget,
                                                        args.cap, calls=10)
        except Exception as exc:  # a peer lacking an argument is reported, the row kept
            row["errors"][k] = error(exc)
    if "cuda" in row["times"]:
        row["floor"] = (nbytes(gin) + nbytes(fn(*gin, **gkw))) / bw
    del gin, gkw
    cp.get_default_memory_pool().free_all_blocks()


def progress(row):
    t = {k: statistics.median(v) for k, v in row["times"].items()}
    parts = [f"{row['name']:40s} {row['case']:32s}"]
    for k, lab in (("ref", "ref"), ("cpu", "cpu"), ("cuda", "cuda"), ("peer", row["peer_name"] or "peer")):
        if k in t or k in row["errors"]:
            parts.append(f"{lab} {summary.fmt(t.get(k)) if k in t else 'FAILED':>9s}")
    if "ref" in t and "cpu" in t:
        parts.append(f"cpu/ref {summary.fx(t['ref'] / t['cpu'])}")
    if "peer" in t and "cuda" in t:
        parts.append(f"cuda/peer {summary.fx(t['peer'] / t['cuda'])}")
    return "  ".join(parts) + "".join(f"\n    {k} failed: {m}" for k, m in row["errors"].items())


def git_commit():
    """The commit measured: NDIMG_COMMIT where set (a `git archive` snapshot inside another checkout would
    report that checkout's HEAD), else the repository's HEAD."""
    if os.environ.get("NDIMG_COMMIT"):
        return os.environ["NDIMG_COMMIT"]
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True,
                              timeout=10).stdout.strip() or "?"
    except Exception:
        return "?"


def one_run(args, argv):
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load0, t0 = os.getloadavg()[0], time.perf_counter()
    rec = dict(argv=["bench/run.py"] + argv, commit=git_commit(), ref_from=args.ref_from, started=started)

    def save(meta, rows):
        rec.update(meta=meta, rows=rows, seconds=round(time.perf_counter() - t0, 1), load=[load0, os.getloadavg()[0]])
        rec["path"] = args.json or os.path.join(args.out, "raw", f"{meta['machine']}.json")
        os.makedirs(os.path.dirname(os.path.abspath(rec["path"])), exist_ok=True)
        with open(rec["path"] + ".tmp", "w") as f:
            json.dump(rec, f, indent=1)
        os.replace(rec["path"] + ".tmp", rec["path"])

    save(*measure(args, save))
    print(f"run: {rec['seconds']:.0f} s, raw samples in {rec['path']}", flush=True)
    if not args.no_report:
        print("\n".join(summary.report([rec], args.out, note=args.note)))


def pooled(args, argv):
    """`--runs N`: N whole runs, each in a fresh process, then one pooled report."""
    machine = args.machine or host_meta(cuda_available(set(args.engines.split(","))))["machine"]
    paths = []
    for i in range(1, args.runs + 1):
        path = os.path.join(args.out, "raw", f"{machine}-run{i}.json")
        extra = ["--runs", "1", "--machine", machine, "--json", path, "--no-report"]
        if i > args.ref_runs:
            extra.append("--no-ref")
        print(f"=== run {i} of {args.runs} ===", flush=True)
        if os.path.exists(path):
            os.remove(path)  # an earlier invocation's, not this one's
        rc = subprocess.run([sys.executable, os.path.abspath(__file__)] + argv + extra).returncode
        if rc != 0:
            print(f"run {i} ended early (rc={rc}); pooling what it measured", file=sys.stderr)
        if os.path.exists(path):
            paths.append(path)
    if not paths:
        sys.exit("no run completed")
    command = " ".join(["bench/run.py"] + argv)
    print("\n".join(summary.report(summary.load(paths), args.out, machine, args.note, command)))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="entries to run: names, module.name or modules, comma-separated")
    ap.add_argument("--engines", default="cpu,cuda", help="cpu: reference + ndimg CPU; cuda: ndimg CUDA + peer")
    ap.add_argument("--repeat", type=int, default=5, help="most CPU samples per engine and case (after warm-up)")
    ap.add_argument("--gpu-repeat", type=int, default=30, help="most GPU samples per engine and case")
    ap.add_argument("--budget", type=float, default=2.0, help="seconds of CPU samples per engine and case")
    ap.add_argument("--gpu-budget", type=float, default=0.3, help="seconds of GPU samples per engine and case")
    ap.add_argument("--cap", type=float, default=5.0, help="a warm-up call above this many seconds is the only sample")
    ap.add_argument("--quick", action="store_true", help="one sample per engine and case, cap 1 s (a smoke run)")
    ap.add_argument("--no-ref", action="store_true", help="skip the reference (CPU) calls")
    ap.add_argument("--ref-from", action="append", default=[], metavar="JSON",
                    help="take the reference's samples from an earlier run's JSON (same kind of host) where it "
                         "has the case; repeatable")
    ap.add_argument("--runs", type=int, default=1, help="whole runs in fresh processes, pooled by median")
    ap.add_argument("--ref-runs", type=int, default=None, help="with --runs: only the first K runs time the reference")
    ap.add_argument("--machine", default=None, help="name for the results (default: GPU name and core count)")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--json", default=None, help="raw samples of this run (default OUT/raw/MACHINE.json)")
    ap.add_argument("--no-report", action="store_true", help="write the JSON only (no table or plot)")
    ap.add_argument("--note", default="", help="a paragraph for the report (caveats, what was run)")
    args = ap.parse_args(argv)
    if args.quick:
        args.repeat, args.gpu_repeat, args.cap = 1, 5, 1.0
    if args.ref_runs is None:
        args.ref_runs = args.runs
    if args.runs > 1:
        pooled(args, argv)
    else:
        one_run(args, argv)


if __name__ == "__main__":
    main()

"""Pools benchmark runs into one table, a summary against issue 22's targets, and a plot.

    python bench/summary.py RUN.json [RUN.json ...] [--out DIR] [--machine NAME] [--note TEXT] [--command TEXT]

Each RUN.json is the raw record of one `bench/run.py` run (every sample of every engine). A case's time
per engine is the median over the runs of each run's median, so one noisy run moves nothing. Writes
DIR/NAME.md (table + summary) and DIR/NAME.png, and prints the summary.

Targets (chosen from the runs' machine: GPU present, core count):
- CUDA engine: >= 1.0x the GPU peer (cuCIM / cupyx.scipy.ndimage) in every case, geometric mean >= 2.5x;
  where no peer exists, >= 10x the reference and never slower than ndimg's CPU engine on the same host.
- CPU engine on a 16-core host: >= 4x the reference in every case, geometric mean >= 10x.
- CPU engine on any other host (the 2-core machine): no case slower than the reference (>= 1.0x).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys

ENGINES = ("ref", "cpu", "cuda", "cuda_stream", "peer")


def load(paths):
    runs = []
    for p in paths:
        with open(p) as f:
            runs.append(json.load(f))
    return runs


def pool(runs):
    """One row per (function, case) in first-seen order: per engine the median of the runs' medians."""
    rows, index = [], {}
    for run in runs:
        for r in run["rows"]:
            key = (r["name"], r["case"])
            if key not in index:
                index[key] = dict(name=r["name"], case=r["case"], peer_name=r.get("peer_name") or "",
                                  medians={k: [] for k in ENGINES}, floor=[], errors={})
                rows.append(index[key])
            row = index[key]
            row["peer_name"] = row["peer_name"] or r.get("peer_name") or ""
            for k in ENGINES:
                if r["times"].get(k):
                    row["medians"][k].append(statistics.median(r["times"][k]))
            if r.get("floor"):
                row["floor"].append(r["floor"])
            for k, msg in (r.get("errors") or {}).items():
                row["errors"].setdefault(k, [msg, 0])[1] += 1
    for row in rows:
        for k in ENGINES:
            m = row["medians"][k]
            row[k] = statistics.median(m) if m else None
            row["n_" + k] = len(m)
        row["floor"] = statistics.median(row["floor"]) if row["floor"] else None
        row["errors"] = {k: msg + (f" (in {n} of {len(runs)} runs)" if len(runs) > 1 else "")
                         for k, (msg, n) in row["errors"].items()}
    return rows


def ratio(a, b):
    return a / b if a and b else None


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def targets(meta):
    """The targets that apply on this machine (issue 22, item 2)."""
    cores = meta["cores"]
    cpu = dict(min=4.0, geomean=10.0, label=f"{cores}-core host") if cores >= 16 else \
        dict(min=1.0, geomean=None, label=f"{cores}-core machine")
    return dict(cpu=cpu, cuda=dict(min=1.0, geomean=2.5, no_peer_ref=10.0) if meta.get("gpu") else None)


def label(r):
    return f"{r['name']} {r['case']}"


def fmt(t):
    if t is None:
        return "-"
    return f"{t * 1e3:.3g} ms" if t < 1 else f"{t:.3g} s"


def fx(x):
    return "-" if x is None else f"{x:.2f}x" if x < 10 else f"{x:.1f}x"


def summarize(rows, meta):
    """Summary lines: per engine the geometric mean, the minimum and the cases below the targets."""
    tg = targets(meta)
    out = []
    cpu = [(ratio(r["ref"], r["cpu"]), r) for r in rows if ratio(r["ref"], r["cpu"])]
    if cpu:
        t = tg["cpu"]
        g = geomean([x for x, _ in cpu])
        lo, lo_r = min(cpu, key=lambda p: p[0])
        goal = f"every case >= {t['min']:g}x" + (f", geometric mean >= {t['geomean']:g}x" if t["geomean"] else "")
        out += [f"**CPU engine ({meta['threads']} threads) vs reference (scikit-image / scipy, 1 thread)**: "
                f"{len(cpu)} cases, geometric mean {fx(g)}, minimum {fx(lo)} ({label(lo_r)}).", "",
                f"Target ({t['label']}): {goal}." + (" Geometric mean below target." if t["geomean"] and g < t["geomean"] else ""), ""]
        below = sorted([(x, r) for x, r in cpu if x < t["min"]], key=lambda p: p[0])
        out += [f"Below target: {len(below)} case(s)" + (":" if below else ".")]
        out += [f"- {label(r)}: {fx(x)} (reference {fmt(r['ref'])}, ndimg CPU {fmt(r['cpu'])})" for x, r in below]
        out.append("")
    if tg["cuda"]:
        t = tg["cuda"]
        vs_peer = [(ratio(r["peer"], r["cuda"]), r) for r in rows if ratio(r["peer"], r["cuda"])]
        if vs_peer:
            g = geomean([x for x, _ in vs_peer])
            lo, lo_r = min(vs_peer, key=lambda p: p[0])
            peers = sorted({r["peer_name"] for _, r in vs_peer})
            below = sorted([(x, r) for x, r in vs_peer if x < t["min"]], key=lambda p: p[0])
            out += [f"**CUDA engine vs GPU peer ({', '.join(peers)})**: {len(vs_peer)} cases, geometric mean {fx(g)}, "
                    f"minimum {fx(lo)} ({label(lo_r)}).", "",
                    f"Target: every case >= {t['min']:g}x, geometric mean >= {t['geomean']:g}x."
                    + (" Geometric mean below target." if g < t["geomean"] else ""), "",
                    f"Below target: {len(below)} case(s)" + (":" if below else ".")]
            out += [f"- {label(r)}: {fx(x)} ({r['peer_name']} {fmt(r['peer'])}, ndimg CUDA {fmt(r['cuda'])})"
                    for x, r in below]
            out.append("")
        no_peer = [r for r in rows if r["cuda"] and not r["peer"]]
        if no_peer:
            vs_ref = [ratio(r["ref"], r["cuda"]) for r in no_peer if r["ref"]]
            below = []
            for r in no_peer:
                why = []
                x = ratio(r["ref"], r["cuda"])
                if x is not None and x < t["no_peer_ref"]:
                    why.append(f"{fx(x)} the reference")
                y = ratio(r["cpu"], r["cuda"])
                if y is not None and y < 1.0:
                    why.append(f"{fx(y)} ndimg CPU")
                if why:
                    below.append(f"- {label(r)}: {', '.join(why)} (reference {fmt(r['ref'])}, ndimg CPU "
                                 f"{fmt(r['cpu'])}, ndimg CUDA {fmt(r['cuda'])})")
            out += [f"**CUDA engine where no GPU peer runs the case**: {len(no_peer)} cases"
                    + (f", vs reference geometric mean {fx(geomean(vs_ref))}, minimum {fx(min(vs_ref))}" if vs_ref else "")
                    + ".", "",
                    f"Target: >= {t['no_peer_ref']:g}x the reference and >= 1x ndimg's CPU engine on this host.", "",
                    f"Below target: {len(below)} case(s)" + (":" if below else ".")] + below + [""]
    failed = [r for r in rows if r["errors"]]
    if failed:
        out += [f"**Failed calls** ({len(failed)} cases; the row is kept, the engine's time left out):"]
        out += [f"- {label(r)}: " + "; ".join(f"{k}: {m}" for k, m in r["errors"].items()) for r in failed]
        out.append("")
    return out


def table(rows, gpu):
    head = ["function", "case", "reference (CPU)", "ndimg CPU", "CPU vs ref"]
    if gpu:
        head += ["GPU peer", "peer", "ndimg CUDA", "CUDA vs peer", "CUDA vs ref", "CUDA stream", "memory floor",
                 "stream / floor"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["name"], r["case"], fmt(r["ref"]), fmt(r["cpu"]), fx(ratio(r["ref"], r["cpu"]))]
        if gpu:
            peer = r["peer_name"] or "-"
            if "peer" in r["errors"]:
                peer += " (failed)"
            cells += [peer, fmt(r["peer"]), fmt(r["cuda"]), fx(ratio(r["peer"], r["cuda"])),
                      fx(ratio(r["ref"], r["cuda"])), fmt(r["cuda_stream"]), fmt(r["floor"]),
                      fx(ratio(r["cuda_stream"], r["floor"]))]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def header(runs, meta, note, command):
    n = len(runs)
    lines = [f"# Benchmarks on {meta['machine']}", ""]
    if note:
        lines += [note, ""]
    cmds = [command] if command else sorted({" ".join(r.get("argv", [])) for r in runs})
    lines += [f"{n} run(s) pooled: a case's time is the median over the runs of each run's median "
              f"(`bench/summary.py`). Commit(s): {', '.join(sorted({r.get('commit', '?') for r in runs}))}. "
              f"Started: {', '.join(r.get('started', '?') for r in runs)}.",
              "",
              f"Command(s): " + "; ".join(f"`{c}`" for c in cmds) + ".", "",
              f"Host: {meta['cores']} cores ({meta.get('cpu_model') or 'CPU model unknown'}), ndimg CPU engine "
              f"{meta['threads']} threads; "
              + (f"GPU {meta['gpu']}, device-to-device copy bandwidth {meta['copy_bandwidth'] / 1e9:.0f} GB/s "
                 f"(read+write)." if meta.get("gpu") else "no GPU."),
              "",
              "Load average (1 min) at each run's start and end: "
              + ", ".join(f"{r['load'][0]:.1f}->{r['load'][1]:.1f}" for r in runs if r.get("load")) + ".", ""]
    if meta.get("gpu"):
        lines += ["ndimg CUDA and the peer: one call's latency (CUDA events around it, host overhead included), "
                  "median of the samples; CUDA stream: per call in a run of back-to-back calls queued behind two "
                  "more (the device time when the host keeps up; only for calls under 10 ms), compared with the "
                  "memory floor (inputs read once, outputs written once at the copy bandwidth).", ""]
    lines += ["Reference and ndimg CPU: wall clock of one call; the warm-up call is timed too and is the only "
              "sample when it takes longer than the run's cap (`--cap`).", ""]
    reused = len({(row["name"], row["case"]) for r in runs for row in r["rows"] if row.get("ref_from")})
    if reused:
        files = sorted({f for r in runs for f in r.get("ref_from", [])})
        lines += [f"The reference times of {reused} case(s) were taken from earlier runs (`--ref-from "
                  f"{' '.join(files)}`), not measured in these runs.", ""]
    return lines


def plot(rows, meta, path):
    """Horizontal bars, one group per case (CPU vs reference; CUDA vs its peer, or vs the reference where no
    peer ran), log scale, in side-by-side panels of at most 50 cases."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)
        return
    if not rows:
        return
    tg = targets(meta)
    peer_c, ref_c = "tab:green", "tab:orange"

    def cuda(r):
        return (ratio(r["peer"], r["cuda"]), peer_c) if r["peer"] else (ratio(r["ref"], r["cuda"]), ref_c)

    slots = [lambda r: (ratio(r["ref"], r["cpu"]), "tab:blue")] + ([cuda] if tg["cuda"] else [])
    legend = [("ndimg CPU vs reference", "tab:blue", tg["cpu"]["min"])]
    if tg["cuda"]:
        legend += [("ndimg CUDA vs GPU peer", peer_c, tg["cuda"]["min"]),
                   ("ndimg CUDA vs reference (no peer)", ref_c, tg["cuda"]["no_peer_ref"])]
    panels = max(1, math.ceil(len(rows) / 50))
    per_panel = max(1, math.ceil(len(rows) / panels))
    bar = 0.8 / len(slots)
    fig, axes = plt.subplots(1, panels, figsize=(7.5 * panels, 1.5 + 0.12 * per_panel * (len(slots) + 1)),
                             squeeze=False)
    vals = [v for r in rows for f in slots if (v := f(r)[0])]
    lo, hi = min(vals + [0.5]) / 1.5, max(vals + [20]) * 1.5
    for p, ax in enumerate(axes[0]):
        chunk = rows[p * per_panel:(p + 1) * per_panel]
        ys = range(len(chunk))
        for i, f in enumerate(slots):
            v = [f(r) for r in chunk]
            ax.barh([y + (i - (len(slots) - 1) / 2) * bar for y in ys], [x or 0 for x, _ in v], bar,
                    color=[c for _, c in v])
        for _, color, goal in legend:
            ax.axvline(goal, color=color, lw=0.8, ls="--")
        ax.axvline(1, color="k", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(len(chunk) - 0.5, -0.5)
        ax.set_yticks(list(ys), [label(r) for r in chunk], fontsize=6)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}x"))
        ax.tick_params(axis="x", labelsize=7)
        ax.set_xlabel("speedup (x, log); dashed: targets", fontsize=8)
        ax.grid(axis="x", which="both", lw=0.3, alpha=0.5)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for _, c, _ in legend]
    fig.legend(handles, [n for n, _, _ in legend], fontsize=7, loc="upper right", ncol=len(legend))
    fig.suptitle(f"ndimg speedups on {meta['machine']}", fontsize=10, x=0.02, ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def report(runs, out, machine=None, note="", command=None):
    """Pool `runs` (loaded JSON), write OUT/MACHINE.md and .png, return the summary lines."""
    meta = dict(runs[0]["meta"])
    meta["machine"] = machine or meta["machine"]
    rows = pool(runs)
    summary = summarize(rows, meta)
    lines = header(runs, meta, note, command) + ["## Summary", ""] + summary + ["## Table", ""] + table(rows, meta.get("gpu"))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"{meta['machine']}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    plot(rows, meta, os.path.join(out, f"{meta['machine']}.png"))
    return summary


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="JSON files written by bench/run.py")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    ap.add_argument("--machine", default=None, help="name of the output files (default: the runs' machine)")
    ap.add_argument("--note", default="", help="a paragraph put under the title (caveats, what was run)")
    ap.add_argument("--command", default=None, help="the command that made the runs (default: each run's own)")
    args = ap.parse_args(argv)
    runs = load(args.runs)
    # `--engines cpu` runs on the GPU host record no GPU: they pool with that host's GPU runs
    gpus = {r["meta"].get("gpu") for r in runs} - {None}
    kinds = {(r["meta"]["cores"], r["meta"].get("gpu") or next(iter(gpus), None)) for r in runs}
    if len(kinds) > 1 or len(gpus) > 1:
        sys.exit(f"runs from different machines cannot be pooled: {sorted(kinds, key=str)}")
    gpu_meta = next((r["meta"] for r in runs if r["meta"].get("gpu")), None)
    for r in runs:
        if gpu_meta and not r["meta"].get("gpu"):
            r["meta"] = dict(r["meta"], gpu=gpu_meta["gpu"], machine=gpu_meta["machine"],
                             copy_bandwidth=gpu_meta.get("copy_bandwidth"))
    print("\n".join(report(runs, args.out, args.machine, args.note, args.command)))


if __name__ == "__main__":
    main()

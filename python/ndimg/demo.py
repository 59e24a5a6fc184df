"""ndimg demo: a filters pipeline over scikit-image's sample images enlarged to 4K and a 3-D volume, then the
analysis pipeline (threshold -> remove small objects -> closing -> label -> regionprops_table) on the image
and the volume, run by scikit-image and by ndimg (CPU engine, and the CUDA engine where a GPU is present),
with the results checked against each other.

    python -m ndimg.demo [--out DIR]

Prints a table of times and speedups and writes DIR/demo.png (results and speedups).
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np


def sample_data():
    """camera() enlarged to 3840x2160, astronaut() enlarged to 3840x2160x3, and a 160^3 blob volume."""
    from skimage import data, transform

    cam = transform.resize(data.camera(), (2160, 3840), order=1, preserve_range=True).astype(np.float32) / 255
    rgb = (transform.resize(data.astronaut(), (2160, 3840), order=1) * 255).astype(np.uint8)
    vol = data.binary_blobs(length=160, n_dim=3, volume_fraction=0.3, rng=1).astype(np.float32)
    vol += np.random.default_rng(1).normal(0, 0.3, vol.shape).astype(np.float32)
    return cam, rgb, vol


def pipeline():
    """(label, image key, function name, kwargs): each a scikit-image call and its ndimg twin."""
    return [
        ("gaussian sigma=4", "cam", "gaussian", dict(sigma=4)),
        ("gaussian RGB sigma=2", "rgb", "gaussian", dict(sigma=2, channel_axis=-1)),
        ("sobel", "cam", "sobel", {}),
        ("median 3x3", "cam", "median", dict(footprint=np.ones((3, 3), bool))),
        ("unsharp_mask", "cam", "unsharp_mask", dict(radius=3, amount=1.5)),
        ("threshold_otsu", "cam", "threshold_otsu", {}),
        ("gaussian 3-D sigma=2", "vol", "gaussian", dict(sigma=2)),
        ("sobel 3-D", "vol", "sobel", {}),
        ("sato 3-D", "vol", "sato", dict(sigmas=(1, 2))),
    ]


# the results drawn in the figure, next to their inputs
SHOWN = ("sobel", "gaussian RGB sigma=2", "sato 3-D", "analysis 2-D")
PROPERTIES = ("label", "area", "centroid", "intensity_mean")


def analysis(lib, image):
    """threshold_otsu -> remove_small_objects -> closing -> label -> regionprops_table with `lib`'s modules
    (scikit-image or ndimg): (labels, table)."""
    mask = image > lib.filters.threshold_otsu(image)
    mask = lib.morphology.closing(lib.morphology.remove_small_objects(mask))
    labels = lib.measure.label(mask)
    return labels, lib.measure.regionprops_table(labels, image, properties=PROPERTIES)


def analysis_agrees(got, ref):
    """Labels equal; every table column equal to scikit-image's at 1e-6 relative (float32 intensity means)."""
    (labels, table), (ref_labels, ref_table) = got, ref
    host = lambda a: a.get() if hasattr(a, "get") else np.asarray(a)  # noqa: E731  (CuPy columns)
    if not np.array_equal(host(labels), ref_labels):
        return False
    return all(np.allclose(host(table[k]), ref_table[k], rtol=1e-6, atol=1e-9) for k in ref_table)


def timed(fn, repeat=3, sync=None, budget=5.0):
    """Best of `repeat` timed calls after a warm-up call (fewer, at least one, once `budget` seconds are
    spent: scikit-image's 3-D sato takes many seconds a call on a few cores)."""
    fn()
    if sync:
        sync()
    best, spent = float("inf"), 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        if sync:
            sync()
        t = time.perf_counter() - t0
        best, spent = min(best, t), spent + t
        if spent > budget:
            break
    return best, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="demo-out")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    import skimage.filters as skf

    import ndimg
    from ndimg import filters as ndf
    from ndimg._registry import REGISTRY

    cp = None
    if ndimg.built_with_cuda:
        try:
            import cupy

            if cupy.cuda.runtime.getDeviceCount() > 0:
                cp = cupy
        except Exception:
            cp = None
    images = dict(zip(("cam", "rgb", "vol"), sample_data()))
    print(f"ndimg {ndimg.__version__}: CPU engine on {ndimg.get_num_threads()} threads; "
          f"CUDA engine {'on ' + cp.cuda.runtime.getDeviceProperties(0)['name'].decode() if cp else 'not available'}")
    header = f"{'step':24s} {'shape':>16s} {'scikit-image':>13s} {'ndimg CPU':>11s} {'speedup':>8s}"
    if cp:
        header += f" {'ndimg CUDA':>11s} {'speedup':>8s}"
    print(header + "  max |diff|  agrees")
    rows, shown, disagree = [], {}, []
    for label, key, name, kw in pipeline():
        img = images[key]
        t_sk, ref = timed(lambda: getattr(skf, name)(img, **kw), args.repeat)
        t_cpu, got = timed(lambda: getattr(ndf, name)(img, **kw), args.repeat)
        results = [got]
        line = f"{label:24s} {str(img.shape):>16s} {t_sk * 1e3:10.1f} ms {t_cpu * 1e3:8.1f} ms {t_sk / t_cpu:7.1f}x"
        t_gpu = None
        if cp:
            g = cp.asarray(img)
            t_gpu, got_gpu = timed(lambda: getattr(ndf, name)(g, **kw), args.repeat,
                                   sync=cp.cuda.get_current_stream().synchronize)
            results.append(cp.asnumpy(got_gpu))
            line += f" {t_gpu * 1e3:8.2f} ms {t_sk / t_gpu:7.1f}x"
        # every engine's result against scikit-image's, at the registry's tolerance
        entry = REGISTRY[f"filters.{name}"]
        diff = max(float(np.max(np.abs(np.asarray(r, np.float64) - np.asarray(ref, np.float64)))) for r in results)
        agrees = all(np.allclose(r, ref, rtol=entry.rtol, atol=entry.atol) for r in results)
        if not agrees:
            disagree.append(label)
        print(line + f"  {diff:10.2e}  {'yes' if agrees else 'NO'}", flush=True)
        rows.append((label, t_sk, t_cpu, t_gpu))
        if label in SHOWN:
            shown[label] = np.asarray(got)
    import skimage

    for label, key in (("analysis 2-D", "cam"), ("analysis 3-D", "vol")):
        img = images[key]
        t_sk, ref = timed(lambda: analysis(skimage, img), args.repeat)
        t_cpu, got = timed(lambda: analysis(ndimg, img), args.repeat)
        ok = analysis_agrees(got, ref)
        line = f"{label:24s} {str(img.shape):>16s} {t_sk * 1e3:10.1f} ms {t_cpu * 1e3:8.1f} ms {t_sk / t_cpu:7.1f}x"
        t_gpu = None
        if cp:
            g = cp.asarray(img)
            t_gpu, got_gpu = timed(lambda: analysis(ndimg, g), args.repeat, sync=cp.cuda.get_current_stream().synchronize)
            ok = ok and analysis_agrees(got_gpu, ref)
            line += f" {t_gpu * 1e3:8.2f} ms {t_sk / t_gpu:7.1f}x"
        if not ok:
            disagree.append(label)
        print(line + f"  {len(ref[1]['label']):>7d} obj  {'yes' if ok else 'NO'}", flush=True)
        rows.append((label, t_sk, t_cpu, t_gpu))
        if label in SHOWN:
            shown[label] = np.asarray(got[0])
    write_figure(args.out, images, shown, rows, f"{ndimg.get_num_threads()} CPU threads")
    if disagree:
        raise SystemExit(f"ndimg and scikit-image disagree on: {', '.join(disagree)}")


def write_figure(out, images, shown, rows, cpu_label):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator

    os.makedirs(out, exist_ok=True)
    vol = images["vol"]
    panels = [("input: camera, 4K", images["cam"]),
              *((f"ndimg {k}", v) for k, v in shown.items() if k not in ("sato 3-D", "analysis 2-D"))]
    if "analysis 2-D" in shown:
        panels.append(("ndimg objects (label)", shown["analysis 2-D"]))
    panels += [("input: 3-D volume, middle slice", vol[vol.shape[0] // 2])]
    if "sato 3-D" in shown:
        panels.append(("ndimg sato 3-D, middle slice", shown["sato 3-D"][vol.shape[0] // 2]))
    fig = plt.figure(figsize=(3.2 * len(panels), 7.5))
    grid = fig.add_gridspec(2, len(panels), height_ratios=(1, 1.6))
    for i, (title, img) in enumerate(panels):
        ax = fig.add_subplot(grid[0, i])
        if img.ndim == 3:  # RGB
            ax.imshow(np.clip(img, 0, 1))
        elif img.dtype.kind in "iu":  # labels: one colour per object (20 cycling), background black
            ax.imshow(np.ma.masked_equal(img, 0) % 20, cmap="tab20", interpolation="nearest")
            ax.set_facecolor("black")
        else:  # grey levels stretched over the 1st..99.5th percentiles (edge maps are mostly near 0)
            lo, hi = np.percentile(img, (1, 99.5))
            ax.imshow(img, cmap="gray", vmin=lo, vmax=hi if hi > lo else lo + 1)
        ax.set_title(title, fontsize=9)
        ax.axis("off")
    ax = fig.add_subplot(grid[1, :])
    xs = np.arange(len(rows))
    series = [("ndimg CPU (" + cpu_label + ")", [r[1] / r[2] for r in rows])]
    if rows and rows[0][3] is not None:
        series.append(("ndimg CUDA", [r[1] / r[3] for r in rows]))
    width = 0.8 / len(series)
    for j, (name, speedups) in enumerate(series):
        bars = ax.bar(xs + (j - (len(series) - 1) / 2) * width, speedups, width, label=name)
        ax.bar_label(bars, [f"{v:.1f}x" for v in speedups], fontsize=8)
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    ax.axhline(1, color="k", lw=0.8)
    ax.set_xticks(xs, [r[0] for r in rows], rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("speedup over scikit-image")
    ax.legend(loc="upper left")
    fig.tight_layout()
    path = os.path.join(out, "demo.png")
    fig.savefig(path, dpi=100)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

"""Per-call cost of small GPU calls (where launch and Python work dominate): ndimg vs cupyx, plus where
ndimg's time goes (cProfile of the Python layer and the bare core call).

    python bench/overhead.py [--n 2000] [--profile]
"""
import argparse
import cProfile
import os
import pstats
import sys
import time

import cupy as cp
import cupyx.scipy.ndimage as cndi

import ndimg.ndimage as nd
from ndimg import _core

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import gpu_time  # noqa: E402  (CUDA events around back-to-back calls, median)
from ndimg.ndimage._separable import Pass, gaussian_passes  # noqa: E402

CASES = [
    ("gaussian_filter", {"sigma": 4}),
    ("uniform_filter", {"size": 9}),
    ("sobel", {}),
    ("median_filter", {"size": 3}),
]


def per_call(fn, n):
    fn()
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    cp.cuda.Device().synchronize()
    return (time.perf_counter() - t) / n * 1e6


def bare_core(passes, x, out):
    """The core call of run_passes(x, out, passes) alone, its arguments built once."""
    args = ([p.axis for p in passes], [p.weights for p in passes], [p.mode for p in passes],
            [p.cval for p in passes], [p.origin for p in passes], [p.mean for p in passes])
    s = cp.cuda.get_current_stream().ptr
    return lambda: _core.separable(x, out, *args, s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args()
    x = cp.random.random((64, 64), dtype=cp.float32)
    print("| function | ndimg us/call | cupyx us/call |\n|---|---|---|")
    for name, kw in CASES:
        ours = per_call(lambda: getattr(nd, name)(x, **kw), a.n)
        peer = per_call(lambda: getattr(cndi, name)(x, **kw), a.n)
        print(f"| {name} | {ours:.1f} | {peer:.1f} |")
    out = cp.empty_like(x)
    passes = gaussian_passes(2, 4, 0, "reflect", 0.0, 4.0, None, None)
    print(f"bare _core.separable (gaussian, 2 passes): {per_call(bare_core(passes, x, out), a.n):.1f} us")
    print(f"cp.empty_like: {per_call(lambda: cp.empty_like(x), a.n):.1f} us")
    print(f"x.__dlpack__(): {per_call(lambda: x.__dlpack__(), a.n):.1f} us")
    # at 4K: device time of the bare core call vs the whole Python call vs a plain copy (the floor's
    # kernel), 10 back-to-back calls between CUDA events
    big = cp.random.random((2160, 3840), dtype=cp.float32)
    bout = cp.empty_like(big)

    sob = [Pass(1, (-1.0, 0.0, 1.0), "reflect", 0.0), Pass(0, (1.0, 2.0, 1.0), "reflect", 0.0)]
    rows = [("copy (cupy)", lambda: cp.copyto(bout, big)),
            ("bare core gaussian sigma 4", bare_core(passes, big, bout)),
            ("bare core sobel", bare_core(sob, big, bout)),
            ("ndimg gaussian_filter sigma 4", lambda: nd.gaussian_filter(big, 4)),
            ("ndimg sobel", lambda: nd.sobel(big))]
    print("| 3840x2160 float32 | us/call (device, 10 back-to-back) |\n|---|---|")
    for label, fn in rows:
        print(f"| {label} | {gpu_time(fn, 7, calls=10) * 1e6:.1f} |")
    if a.profile:
        cProfile.runctx("for _ in range(a.n): nd.gaussian_filter(x, 4)", globals(), locals(), "/tmp/ov.prof")
        pstats.Stats("/tmp/ov.prof").sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()

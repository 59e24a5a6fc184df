"""Per-call cost of small GPU calls (where launch and Python work dominate): ndimg vs cupyx, plus where
ndimg's time goes (cProfile of the Python layer and the bare core call).

    python bench/overhead.py [--n 2000] [--profile]
"""
import argparse
import cProfile
import pstats
import time

import cupy as cp
import cupyx.scipy.ndimage as cndi

import ndimg.ndimage as nd
from ndimg import _core
from ndimg.ndimage._separable import gaussian_passes

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
    args = ([p.axis for p in passes], [p.weights for p in passes], [p.mode for p in passes],
            [p.cval for p in passes], [p.origin for p in passes], [p.mean for p in passes])
    s = cp.cuda.get_current_stream().ptr
    print(f"bare _core.separable (gaussian, 2 passes): {per_call(lambda: _core.separable(x, out, *args, s), a.n):.1f} us")
    print(f"cp.empty_like: {per_call(lambda: cp.empty_like(x), a.n):.1f} us")
    print(f"x.__dlpack__(): {per_call(lambda: x.__dlpack__(), a.n):.1f} us")
    if a.profile:
        cProfile.runctx("for _ in range(a.n): nd.gaussian_filter(x, 4)", globals(), locals(), "/tmp/ov.prof")
        pstats.Stats("/tmp/ov.prof").sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()

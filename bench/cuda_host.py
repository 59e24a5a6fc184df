"""Host time against device time per call for the issue-3 CUDA cases (a GPU is needed).

For each case: host = Python time to queue 10 calls while the GPU queue is not full (the host overhead of a
call); pipelined = 200 calls synchronized once (the per-call time of a long pipeline: the device's or the
host's, whichever is slower); stream = bench/run.py's stream column (its gpu_time: 10 calls behind two
queued ones, median of 7). When host >= pipelined, a call's time is the host's and only host work makes it
faster.
"""
import os
import sys
import time

import cupy as cp

import ndimg.filters as nf
from ndimg import ndimage as nd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import gpu_time  # noqa: E402  (bench/run.py's measure, so the two agree)


def main():
    x = cp.random.random((2160, 3840), dtype=cp.float32)
    x3 = cp.random.random((192, 192, 192), dtype=cp.float32)
    cases = [("ndimage.gaussian_filter 2-D", lambda: nd.gaussian_filter(x, 4)),
             ("ndimage.uniform_filter 2-D", lambda: nd.uniform_filter(x, 9)),
             ("ndimage.gaussian_filter 3-D", lambda: nd.gaussian_filter(x3, 2)),
             ("ndimage.uniform_filter 3-D", lambda: nd.uniform_filter(x3, 9)),
             ("ndimage.median_filter 3x3", lambda: nd.median_filter(x, 3)),
             ("filters.gaussian 3-D", lambda: nf.gaussian(x3, sigma=2))]
    print(f"{'case':30s} {'host':>9s} {'pipelined':>10s} {'stream':>9s}  (us a call)")
    for name, fn in cases:
        for _ in range(20):
            fn()
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for _ in range(10):
            fn()
        host = (time.perf_counter() - t0) / 10
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for _ in range(200):
            fn()
        cp.cuda.Device().synchronize()
        piped = (time.perf_counter() - t0) / 200
        stream = gpu_time(fn, 7, calls=10)
        print(f"{name:30s} {host * 1e6:9.1f} {piped * 1e6:10.1f} {stream * 1e6:9.1f}")


if __name__ == "__main__":
    main()

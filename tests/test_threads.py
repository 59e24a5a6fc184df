"""Changing the CPU engine's thread count while other threads run operations on it (issue 22, item 7): the
process must survive and every result must equal the single-threaded one."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

import ndimg
from ndimg._prim import reduce

# Each worker runs primitives that keep one partial result per thread (reductions, Li's sorted gaps,
# histograms, hysteresis slabs) while the main thread flips the count between 1 and 16.
_SCRIPT = textwrap.dedent("""
    import sys, threading, time
    import numpy as np
    import ndimg
    from ndimg import filters

    img = np.random.default_rng(0).random((2048, 2048), dtype=np.float32)
    ints = (img * 1000).astype(np.uint16)
    calls = {
        "mean": lambda: filters.threshold_mean(img),
        "li": lambda: filters.threshold_li(img),
        "otsu": lambda: filters.threshold_otsu(ints),
        "hysteresis": lambda: filters.apply_hysteresis_threshold(img, 0.5, 0.9).sum(),
    }
    ndimg.set_num_threads(1)
    expected = {k: f() for k, f in calls.items()}
    ndimg.set_num_threads(None)
    stop = time.monotonic() + float(sys.argv[1])
    errors, counts = [], {}

    def worker(names):
        try:
            while time.monotonic() < stop:
                for k in names:
                    got = calls[k]()
                    if got != expected[k]:
                        errors.append(f"{k}: {got!r} != {expected[k]!r}")
                    counts[k] = counts.get(k, 0) + 1
        except BaseException as e:
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(["mean"],)),
               threading.Thread(target=worker, args=(["mean", "li", "otsu", "hysteresis"],))]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        ndimg.set_num_threads(1)
        ndimg.set_num_threads(16)
    for t in threads:
        t.join()
    ndimg.set_num_threads(None)
    print(counts)
    if errors:
        sys.exit("\\n".join(errors[:5]))
""")


def test_set_num_threads_while_running():
    env = dict(os.environ, PYTHONPATH=str(Path(ndimg.__file__).resolve().parents[1]))
    r = subprocess.run([sys.executable, "-c", _SCRIPT, "2"], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, f"exit {r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr[-2000:]}"
    assert "'mean'" in r.stdout, r.stdout


def test_sums_same_bits_at_every_thread_count(rng):
    # values of many magnitudes, so that a different summation order changes the low bits
    a = rng.standard_normal(3_000_001) * 10.0 ** rng.integers(-8, 8, 3_000_001)
    previous = ndimg.get_num_threads()
    try:
        sums = set()
        for n in (1, 2, 3, 16):
            ndimg.set_num_threads(n)
            st = reduce.image_stats(a)
            sums.add(st.sum)
            assert st.n_finite == a.size and st.min == a.min() and st.max == a.max()
        assert len(sums) == 1
        assert np.isclose(sums.pop(), np.sum(a), rtol=1e-9, atol=1e-3)
    finally:
        ndimg.set_num_threads(previous)

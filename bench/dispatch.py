"""The scikit-image backend's dispatch overhead, for the closing note.

    python bench/dispatch.py

skimage.metrics.mean_squared_error called through scikit-image's dispatch into ndimg
(NDIMG_SKIMAGE_NUMPY=cpu) minus the direct ndimg call, on a tiny input (best of many runs). The backend is
registered for this process only, by a temporary distribution declaring pyproject.toml's entry points (what
`pip install` writes). The registry's NumPy -> GPU crossover per family comes from bench/crossover.py.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import tomllib
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _register_entry_points():
    groups = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    tmp = Path(tempfile.mkdtemp())
    dist = tmp / "ndimg_bench_entry_points-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ndimg-bench-entry-points\nVersion: 0\n")
    (dist / "entry_points.txt").write_text(
        "".join(f"[{g}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n" for g, eps in groups.items()))
    sys.path.insert(0, str(tmp))


def best_us(fn, number=20000, repeat=7):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best * 1e6


def overhead():
    assert "skimage" not in sys.modules, "the backend must be registered before scikit-image is imported"
    os.environ["NDIMG_SKIMAGE_NUMPY"] = "cpu"
    _register_entry_points()
    import skimage.metrics

    import ndimg.metrics

    warnings.simplefilter("ignore")
    a, b = np.random.default_rng(0).random((2, 8, 8))
    assert hasattr(skimage.metrics.mean_squared_error, "__wrapped__"), "scikit-image did not see the backend"
    via = best_us(lambda: skimage.metrics.mean_squared_error(a, b))
    direct = best_us(lambda: ndimg.metrics.mean_squared_error(a, b))
    print(f"dispatch: via scikit-image {via:.2f} us, direct {direct:.2f} us, overhead {via - direct:.2f} us")


def main():
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    overhead()


if __name__ == "__main__":
    main()

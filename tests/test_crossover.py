"""The registry's NumPy -> GPU crossovers (issue 30): the lazy one under lazy=True, and bench/crossover.py,
which measures them (its CPU-only run here; the GPU columns on the GPU machine)."""
import importlib.util
from pathlib import Path

import pytest

from ndimg import _registry
from ndimg._registry import REGISTRY, gpu_crossover

_spec = importlib.util.spec_from_file_location(
    "crossover", Path(__file__).resolve().parents[1] / "bench" / "crossover.py")


@pytest.fixture(scope="module")
def bench():
    mod = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(mod)
    return mod


def test_lazy_crossover_falls_back_to_eager(monkeypatch):
    entry = REGISTRY["ndimage.gaussian_filter"]
    monkeypatch.setattr(_registry, "CROSSOVER", {"separable": 65536})
    monkeypatch.setattr(_registry, "LAZY_CROSSOVER", {})
    assert gpu_crossover(entry) == gpu_crossover(entry, lazy=True) == 65536
    monkeypatch.setattr(_registry, "LAZY_CROSSOVER", {"separable": 4096})
    assert (gpu_crossover(entry), gpu_crossover(entry, lazy=True)) == (65536, 4096)
    monkeypatch.setattr(_registry, "LAZY_CROSSOVER", {"separable": None})
    assert gpu_crossover(entry, lazy=True) is None


def test_crossover_is_the_start_of_the_last_winning_run(bench):
    rows = [(1, dict(cpu=1, eager=2)), (2, dict(cpu=2, eager=1)), (4, dict(cpu=4, eager=5)),
            (8, dict(cpu=8, eager=3)), (16, dict(cpu=16, eager=4))]
    assert bench.crossover(rows, "eager") == 8
    assert bench.crossover(rows[:3], "eager") is None
    assert bench.crossover([(1, dict(cpu=1))], "eager") is None   # no GPU column: not measured


@pytest.mark.parametrize("base, n, expected", [((3840, 2160), 2**13, (128, 64)), ((3840, 2160), 2**12, (64, 64)),
                                               ((3840, 2160, 3), 2**12, (64, 64, 3)),
                                               ((192, 192, 192), 2**13, (32, 16, 16))])
def test_ladder_shapes(bench, base, n, expected):
    assert bench.ladder_shape(base, n) == expected


def test_cpu_only_run_writes_table_and_plot(bench, tmp_path, capsys):
    bench.main(["--out", str(tmp_path), "--families", "separable,histogram", "--max-log2", "13", "--no-gpu"])
    table = (tmp_path / "crossover.md").read_text()
    assert "| separable | ndimage.gaussian_filter |" in table and "| histogram | 8192 |" in table
    assert (tmp_path / "crossover.png").stat().st_size > 0
    assert "CROSSOVER" not in capsys.readouterr().out   # no literal without GPU timings

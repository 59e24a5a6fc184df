"""tools/skimage-conformance end to end on a small stand-in sdist (offline): per-function counts, the report,
the exit code against --min-pass, and the GPU mode's refusal without a GPU."""
import importlib.metadata
import io
import os
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path

import pytest

import ndimg
from helpers import CUDA_READY

ROOT = Path(__file__).resolve().parents[1]
PKG_ROOT = str(Path(ndimg.__file__).resolve().parents[1])  # the ndimg under test
TOOL = ROOT / "tools" / "skimage-conformance"

TESTS = textwrap.dedent("""
    import numpy as np
    import skimage.filters
    from skimage.filters import sobel

    def test_gaussian_passes():
        a = np.ones((5, 5))
        assert np.allclose(skimage.filters.gaussian(a, sigma=1), 1)

    def test_sobel_fails():
        sobel(np.zeros((4, 4)))
        assert False, "deliberate failure"

    def test_float16_falls_back():
        skimage.filters.gaussian(np.ones((4, 4), np.float16))

    def test_no_ndimg():
        assert 1 + 1 == 2
""")


def _sdist(tmp_path):
    version = importlib.metadata.version("scikit-image")
    path = tmp_path / f"scikit_image-{version}.tar.gz"
    files = {"pyproject.toml": '[tool.pytest.ini_options]\nxfail_strict = true\nfilterwarnings = ["error"]\n',
             "tests/skimage/filters/test_stand_in.py": TESTS,
             "tests/skimage/metrics/test_skipped.py": "import pytest\npytest.skip('no data', allow_module_level=True)\n",
             "tests/skimage/_not_ndimg/test_not_ours.py": "def test_x():\n    assert False\n"}
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"scikit_image-{version}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def _tool_env():
    """The environment a user's shell gives the tools: this run's own pytest variables left out (under xdist,
    PYTEST_XDIST_WORKER makes pytest-benchmark warn at configure, an error under scikit-image's filterwarnings)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = PKG_ROOT
    return env


def _run(tmp_path, *args):
    env = _tool_env()
    return subprocess.run([sys.executable, str(TOOL), "--sdist", str(_sdist(tmp_path)), "--cache", str(tmp_path / "c"),
                           "--report", str(tmp_path / "r.md"), *args], env=env, capture_output=True, text=True)


def test_counts_report_and_exit_code(tmp_path):
    r = _run(tmp_path, "--min-pass", "50")
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {line.split()[0]: line.split()[1:] for line in r.stdout.splitlines() if line.startswith("skimage.")}
    assert rows["skimage.filters:gaussian"] == ["1", "1", "0", "0", "1"]  # run passed failed skipped fallback-only
    assert rows["skimage.filters:sobel"] == ["1", "0", "1", "0", "0"]
    assert "tests exercising ndimg: 2 run, 1 passed, 1 failed (50.00% pass)" in r.stdout
    assert "tests not reaching ndimg: 2 run, 2 passed, 0 failed" in r.stdout  # the fallback and the plain test
    report = (tmp_path / "r.md").read_text()
    assert "test_stand_in.py::test_sobel_fails` (skimage.filters:sobel): AssertionError: deliberate failure" in report
    assert "test_skipped.py` skipped at collection: Skipped: no data" in report
    assert "'image' has dtype float16" in report
    assert "test_not_ours" not in report  # _not_ndimg is not a module ndimg implements
    # the pass rate below --min-pass fails the run
    assert _run(tmp_path).returncode == 1


@pytest.mark.skipif(CUDA_READY, reason="checks the refusal without a GPU")
def test_gpu_mode_refuses_without_a_gpu(tmp_path):
    r = _run(tmp_path, "--mode", "gpu")
    assert r.returncode == 1 and "--mode gpu" in r.stderr and not (tmp_path / "r.md").exists()


def test_pack_keeps_what_a_run_needs(tmp_path):
    r = _run(tmp_path, "--pack", str(tmp_path / "packed"))
    assert r.returncode == 0, r.stderr
    (packed,) = (tmp_path / "packed").iterdir()
    assert packed.name == _sdist(tmp_path).name
    with tarfile.open(packed) as tar:
        names = sorted(m.name.split("/", 1)[1] for m in tar.getmembers())
    assert names == ["pyproject.toml", "tests/skimage/filters/test_stand_in.py", "tests/skimage/metrics/test_skipped.py"]
    assert not (tmp_path / "r.md").exists()


def test_index_comes_from_pip(tmp_path):
    """Without --sdist the sdist is looked up on the index pip is configured with; the tool names none."""
    assert "://" not in TOOL.read_text()
    env = {k: v for k, v in _tool_env().items() if k not in ("PIP_INDEX_URL", "PIP_CONFIG_FILE")}
    conf = tmp_path / "pip.conf"
    conf.write_text(f"[download]\nindex-url = {(tmp_path / 'from-conf').as_uri()}\n")
    for extra, where in (({"PIP_INDEX_URL": (tmp_path / "from-env").as_uri()}, "from-env"),
                         ({"PIP_CONFIG_FILE": str(conf)}, "from-conf")):
        r = subprocess.run([sys.executable, str(TOOL), "--cache", str(tmp_path / "c"), "--modules", "filters"],
                           env=dict(env, **extra), capture_output=True, text=True)
        assert r.returncode == 1 and f"cannot read {(tmp_path / where).as_uri()}/scikit-image/" in r.stderr, r.stderr


# --- tools/ndimage-conformance -------------------------------------------------------------------------------
NDIMAGE_TOOL = ROOT / "tools" / "ndimage-conformance"

NDIMAGE_TESTS = textwrap.dedent("""
    import os

    import numpy as np
    from scipy import ndimage
    from scipy.ndimage import sobel

    def test_gaussian_passes():
        assert np.allclose(ndimage.gaussian_filter(np.ones((5, 5)), 1), 1)

    def test_private_module_reaches_ndimg():
        from scipy.ndimage import _filters
        assert _filters.uniform_filter(np.ones((4, 4)), 3).shape == (4, 4)

    def test_sobel_fails_with_ndimg():
        sobel(np.zeros((4, 4)))
        assert os.environ["NDIMG_CONFORMANCE_PATCH"] == "0", "deliberate failure"

    def test_fails_on_scipy_too():
        ndimage.median_filter(np.zeros((4, 4)), 3)
        assert False, "broken test"

    def test_no_ndimg():   # calls no scipy.ndimage function: the registry is to hold all of them (issue 25)
        assert np.count_nonzero(np.ones((3, 3), bool)) == 9
""")


def _run_ndimage(tmp_path, *args):
    (tmp_path / "t").mkdir(exist_ok=True)
    (tmp_path / "t" / "test_stand_in.py").write_text(NDIMAGE_TESTS)
    env = _tool_env()
    return subprocess.run([sys.executable, str(NDIMAGE_TOOL), "--tests", str(tmp_path / "t"),
                           "--report", str(tmp_path / "r.md"), *args], env=env, capture_output=True, text=True,
                          cwd=tmp_path)


def test_ndimage_counts_report_and_exit_code(tmp_path):
    r = _run_ndimage(tmp_path, "--min-pass", "60")
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {line.split()[0]: line.split()[1:] for line in r.stdout.splitlines() if line.startswith("scipy.")}
    assert rows["scipy.ndimage:gaussian_filter"] == ["1", "1", "0", "0", "0"]  # run passed failed skipped fallback
    assert rows["scipy.ndimage:uniform_filter"] == ["1", "1", "0", "0", "0"]
    assert rows["scipy.ndimage:sobel"] == ["1", "0", "1", "0", "0"]
    assert "tests reaching ndimg: 3 run, 2 passed, 1 failed (66.67% pass)" in r.stdout
    # a test failing on plain scipy is left out
    assert "left out: 1 tests failing on plain scipy too" in r.stdout
    assert "scipy.ndimage:median_filter" not in rows
    assert "tests not reaching ndimg: 1 run, 1 passed, 0 failed" in r.stdout
    report = (tmp_path / "r.md").read_text()
    assert ("test_stand_in.py::test_sobel_fails_with_ndimg` (scipy.ndimage:sobel): AssertionError: deliberate "
            "failure") in report
    assert "test_stand_in.py::test_fails_on_scipy_too`: AssertionError: broken test" in report
    # the pass rate below --min-pass fails the run
    assert _run_ndimage(tmp_path).returncode == 1


def test_ndimage_refused_values_fall_back():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from ndimage_conformance_plugin import _refused
    finally:
        sys.path.remove(str(ROOT / "tools"))

    class Spec:
        refused = ((2, "mode", frozenset({"mirror"})),)

    assert _refused(Spec, (1, 2, "mirror"), {}) == "mode='mirror'"
    assert _refused(Spec, (1, 2), {"mode": "mirror"}) == "mode='mirror'"
    assert _refused(Spec, (1, 2), {"mode": "reflect"}) is None
    assert _refused(Spec, (1, 2, [1, 2]), {}) is None  # unhashable: not a refused value

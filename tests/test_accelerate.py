"""ndimg.accelerate: skimage functions however imported run ndimg when supported, scikit-image otherwise;
off restores everything; logging, stats, and `python -m ndimg.accelerate script.py`."""
import logging
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import numpy as np
import pytest
import skimage.filters
import skimage.metrics

import ndimg
from helpers import assert_close

PKG_ROOT = str(Path(ndimg.__file__).resolve().parents[1])  # the ndimg under test: source tree or site-packages
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _off():
    ndimg.accelerate(False)
    ndimg.accelerate.reset_stats()
    yield
    ndimg.accelerate(False)


def test_routes_supported_calls_and_falls_back(rng, caplog):
    original = skimage.filters.gaussian
    a = rng.random((12, 10)).astype(np.float32)
    expected = original(a, sigma=1.5)
    with caplog.at_level(logging.DEBUG, logger="ndimg"), ndimg.accelerated():
        assert skimage.filters.gaussian is not original
        got = skimage.filters.gaussian(a, sigma=1.5)
        half = a.astype(np.float16)  # a dtype ndimg does not take: scikit-image runs
        fallback = skimage.filters.gaussian(half, sigma=1.5)
    assert skimage.filters.gaussian is original
    assert_close(got, expected, "filters.gaussian")
    np.testing.assert_array_equal(fallback, original(half, sigma=1.5))
    s = ndimg.accelerate.stats()["skimage.filters:gaussian"]
    assert s == {"ndimg": 1, "skimage": 1}
    text = caplog.text
    assert "skimage.filters:gaussian: ndimg ran" in text
    assert "skimage.filters:gaussian: scikit-image ran ('image' has dtype float16)" in text


def test_from_imports_before_and_after_are_patched(rng):
    from skimage.metrics import mean_squared_error as before

    user = types.ModuleType("user_module_for_accelerate_test")
    user.mse = before
    sys.modules[user.__name__] = user
    try:
        a, b = rng.random((5, 6)), rng.random((5, 6))
        ndimg.accelerate()
        from skimage.metrics import mean_squared_error as after

        assert user.mse is after and after is not before
        for f in (user.mse, after, skimage.metrics.mean_squared_error):
            assert_close(np.asarray(f(a, b)), np.asarray(before(a, b)), "metrics.mean_squared_error")
        assert ndimg.accelerate.stats()["skimage.metrics:mean_squared_error"]["ndimg"] == 3
        assert ndimg.accelerate(False) is True
        assert user.mse is before and skimage.metrics.mean_squared_error is before
    finally:
        del sys.modules[user.__name__]


def test_enable_is_idempotent_and_nests():
    original = skimage.metrics.structural_similarity
    assert ndimg.accelerate() is False
    assert ndimg.accelerate() is True
    with ndimg.accelerated(False):
        assert skimage.metrics.structural_similarity is original
    assert skimage.metrics.structural_similarity is not original
    ndimg.accelerate(False)
    assert skimage.metrics.structural_similarity is original
    assert not ndimg.accelerate.is_enabled()


SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    from skimage.filters import gaussian, sobel
    from skimage import metrics
    rng = np.random.default_rng(1)
    a = rng.random((32, 30)).astype(np.float32)
    np.savez(sys.argv[1], g=gaussian(a, sigma=2), s=sobel(a),
             ssim=metrics.structural_similarity(a, a * 0.8, data_range=1.0))
""")


def test_python_m_ndimg_accelerate(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=PKG_ROOT, NDIMG_LOG="1")
    plain = subprocess.run([sys.executable, str(script), str(tmp_path / "plain.npz")], env=env,
                           capture_output=True, text=True, check=True)
    acc = subprocess.run([sys.executable, "-m", "ndimg.accelerate", str(script), str(tmp_path / "acc.npz")],
                         env=env, capture_output=True, text=True, check=True)
    assert "ndimg ran" not in plain.stderr
    for name in ("skimage.filters:gaussian", "skimage.filters:sobel", "skimage.metrics:structural_similarity"):
        assert f"{name}: ndimg ran (numpy input)" in acc.stderr, acc.stderr
    p, q = np.load(tmp_path / "plain.npz"), np.load(tmp_path / "acc.npz")
    assert_close(q["g"], p["g"], "filters.gaussian")
    assert_close(q["s"], p["s"], "filters.sobel")
    assert_close(q["ssim"], p["ssim"], "metrics.structural_similarity")


def test_python_m_ndimg_accelerate_usage():
    r = subprocess.run([sys.executable, "-m", "ndimg.accelerate"], env=dict(os.environ, PYTHONPATH=PKG_ROOT),
                       capture_output=True, text=True)
    assert r.returncode == 2 and "usage" in r.stderr


def test_masks_array_less_functions_and_refused_options(rng):
    """sobel with a boolean mask and window (no array argument) run ndimg; median(behavior='rank'), which
    ndimg does not implement, runs scikit-image."""
    a = rng.random((16, 12)).astype(np.float32)
    mask = a > 0.2
    expected = (skimage.filters.sobel(a, mask=mask), skimage.filters.window("hann", (7, 9)),
                skimage.filters.median((a * 255).astype(np.uint8), behavior="rank"))
    with ndimg.accelerated():
        got = (skimage.filters.sobel(a, mask=mask), skimage.filters.window("hann", (7, 9)),
               skimage.filters.median((a * 255).astype(np.uint8), behavior="rank"))
    s = ndimg.accelerate.stats()
    assert s["skimage.filters:sobel"] == {"ndimg": 1, "skimage": 0}
    assert s["skimage.filters:window"] == {"ndimg": 1, "skimage": 0}
    assert s["skimage.filters:median"] == {"ndimg": 0, "skimage": 1}
    assert_close(got[0], expected[0], "filters.sobel")
    assert_close(got[1], expected[1], "filters.window")
    np.testing.assert_array_equal(got[2], expected[2])

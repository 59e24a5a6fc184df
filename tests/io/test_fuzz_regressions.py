"""Inputs that once crashed the slide fuzzer (fuzz/regressions/, see fuzz/README.md): each opens and reads
like the fuzzer does, giving pixels or SlideError, never a crash. Each file runs in a child process so a
crash fails its test instead of the suite."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ndimg

REGRESSIONS = Path(__file__).resolve().parents[2] / "fuzz" / "regressions"
PKG_ROOT = str(Path(ndimg.__file__).resolve().parents[1])  # the ndimg under test
FILES = sorted(p for p in REGRESSIONS.iterdir() if p.is_file()) if REGRESSIONS.is_dir() else []

# What fuzz/slide_fuzzer.cpp does with an input, through the Python API.
SCRIPT = r"""
import sys
import ndimg.io
from ndimg.io import SlideError
try:
    s = ndimg.io.Slide(sys.argv[1])
except SlideError:
    print("rejected")
    sys.exit(0)
for level, ((w, h), ds) in enumerate(zip(s.level_dimensions, s.level_downsamples)):
    for x, y in ((0, 0), (w // 2, h // 2), (w - 1, h - 1), (w - 48, 0), (-7, -7)):
        try:
            s.read_region((int(x * ds), int(y * ds)), level, (96, 96))
        except SlideError:
            pass
for name in list(s.associated_images):
    w = int(s.properties[f"openslide.associated.{name}.width"])
    h = int(s.properties[f"openslide.associated.{name}.height"])
    if w * h <= 1 << 20:
        try:
            s.associated_images[name]
        except SlideError:
            pass
print("opened")
"""


@pytest.mark.skipif(not FILES, reason="no fuzz/regressions directory (installed tests)")
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_fuzz_regression_does_not_crash(path):
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(path)], env=dict(os.environ, PYTHONPATH=PKG_ROOT),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"exit status {r.returncode}\n{r.stderr[-3000:]}"
    assert r.stdout.strip() in ("opened", "rejected")

"""The CPU engine's separable schedule, bit for bit against scipy.ndimage.

Passes along the last axis take lines 8 at a time and outputs in blocks of 16; passes along other axes
take bundles of up to 64 lines along the run the axes after them merge into (16 lanes at a time; narrower
when there are few per thread; runs under 16 lines go line by line) and their outputs in chunks of 128
through a window that is kept across chunks. These tests put every size around those blocks, every mode,
long filters (reaching past both ends), in-place calls, F-order and strided views and integer dtypes, and
ask for the reference's exact bits (scipy computes in double and rounds each pass to the output dtype; so
do we).
"""
import numpy as np
import pytest
import scipy.ndimage as ndi

from ndimg import ndimage as nd
from helpers import MODES, random_image
# weights: symmetric, antisymmetric, neither (even length), long (33 taps)
WEIGHTS = [(0.25, 0.5, 0.25), (-1.0, 0.0, 1.0), (0.1, -0.7, 0.35, 1.3),
           tuple(np.exp(-0.5 * (np.arange(-16, 17) / 4.0) ** 2).tolist())]


def _same(got, expected):
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected, strict=True)


@pytest.mark.parametrize("n", [1, 2, 15, 16, 17, 127, 128, 129, 130, 257])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("weights", WEIGHTS, ids=["sym", "anti", "even", "long"])
def test_line_lengths(rng, n, axis, weights):
    # the filtered axis has length n; the other one 33 (two bundles of 16 and a tail of 1, or 4 groups of
    # 8 lines and 1 more)
    shape = (n, 33) if axis == 0 else (33, n)
    x = random_image(rng, shape, "float32")
    _same(nd.correlate1d(x, weights, axis=axis, mode="wrap"), ndi.correlate1d(x, weights, axis=axis, mode="wrap"))


@pytest.mark.parametrize("width", [1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 65])
@pytest.mark.parametrize("axis", [0, 1])
def test_bundle_widths(rng, width, axis):
    x = random_image(rng, (131, width) if axis == 0 else (width, 131), "float64")
    w = WEIGHTS[0]
    _same(nd.correlate1d(x, w, axis=axis), ndi.correlate1d(x, w, axis=axis))
    _same(nd.uniform_filter1d(x, 5, axis=axis), ndi.uniform_filter1d(x, 5, axis=axis))


@pytest.mark.parametrize("shape,axis", [((12, 131, 70), 1), ((131, 10, 70), 0), ((9, 40, 129), 1)])
@pytest.mark.parametrize("mode", ["reflect", "wrap"])
def test_wide_bundles(rng, shape, axis, mode):
    # enough lines across the last axis for the widest bundles (64, and a tail) at any thread count
    x = random_image(rng, shape, "float32")
    for w in WEIGHTS:
        _same(nd.correlate1d(x, w, axis=axis, mode=mode), ndi.correlate1d(x, w, axis=axis, mode=mode))
    _same(nd.uniform_filter1d(x, 6, axis=axis, mode=mode), ndi.uniform_filter1d(x, 6, axis=axis, mode=mode))
    y = x.copy()
    nd.uniform_filter1d(y, 6, axis=axis, mode=mode, output=y)
    _same(y, ndi.uniform_filter1d(x, 6, axis=axis, mode=mode))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n", [3, 129, 300])
@pytest.mark.parametrize("weights", WEIGHTS, ids=["sym", "anti", "even", "long"])
def test_modes(rng, mode, n, weights):
    x = random_image(rng, (n, 20, 3), "float32")
    for axis in range(3):
        _same(nd.correlate1d(x, weights, axis=axis, mode=mode, cval=0.6, origin=1),
              ndi.correlate1d(x, weights, axis=axis, mode=mode, cval=0.6, origin=1))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("size", [1, 2, 9, 40])
@pytest.mark.parametrize("n", [5, 129, 260])
def test_uniform(rng, mode, size, n):
    x = random_image(rng, (n, 19), "float32")
    for axis in (0, 1):
        _same(nd.uniform_filter1d(x, size, axis=axis, mode=mode, cval=-0.3),
              ndi.uniform_filter1d(x, size, axis=axis, mode=mode, cval=-0.3))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", [(130, 17), (257, 40), (4, 140, 18)])
def test_in_place(rng, mode, shape):
    # the output is the input: every pass reads the lines it overwrites
    x = random_image(rng, shape, "float32")
    expected = ndi.gaussian_filter(x, 5.0, mode=mode, cval=0.2)
    y = x.copy()
    assert nd.gaussian_filter(y, 5.0, output=y, mode=mode, cval=0.2) is y
    _same(y, expected)
    for axis in range(x.ndim):
        expected = ndi.uniform_filter1d(x, 11, axis=axis, mode=mode)
        y = x.copy()
        nd.uniform_filter1d(y, 11, axis=axis, output=y, mode=mode)
        _same(y, expected)


@pytest.mark.parametrize("layout", ["f", "strided"])
@pytest.mark.parametrize("shape", [(131, 35), (20, 133, 9)])
def test_layouts(rng, layout, shape):
    x = random_image(rng, shape, "float32", layout)
    _same(nd.gaussian_filter(x, 2.5), ndi.gaussian_filter(x, 2.5))
    _same(nd.uniform_filter(x, 7), ndi.uniform_filter(x, 7))
    _same(nd.sobel(x, axis=0), ndi.sobel(x, axis=0))
    out = np.empty(x.shape[::-1], np.float32).T  # an F-order output
    _same(nd.sobel(x, axis=-1, output=out), ndi.sobel(x, axis=-1, output=np.empty(x.shape, np.float32)))


@pytest.mark.parametrize("dtype", ["uint8", "int16", "uint16", "int32", "float64"])
@pytest.mark.parametrize("shape", [(130, 33), (6, 129, 17)])
def test_dtypes(rng, dtype, shape):
    x = random_image(rng, shape, dtype)
    _same(nd.gaussian_filter(x, 3.0), ndi.gaussian_filter(x, 3.0))
    _same(nd.uniform_filter(x, 4), ndi.uniform_filter(x, 4))
    _same(nd.sobel(x), ndi.sobel(x))
    # float32 in, float64 out and the reverse
    _same(nd.gaussian_filter(x, 1.5, output=np.float64), ndi.gaussian_filter(x, 1.5, output=np.float64))
    _same(nd.prewitt(x, output=np.float32), ndi.prewitt(x, output=np.float32))


@pytest.mark.parametrize("shape", [(37, 45, 3), (9, 20, 15), (9, 20, 16), (6, 4, 4, 5), (40, 3, 1)])
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
@pytest.mark.parametrize("mode", MODES)
def test_trailing_runs(rng, shape, layout, mode):
    # passes across lines whose trailing axes merge into one run (an RGB image's columns and channels, a
    # volume's rows and columns) are bundled along it; runs shorter than a block of 16 lanes (channels
    # alone) are taken line by line; views whose trailing axes do not merge (strided) keep shorter runs
    x = random_image(rng, shape, "float64", layout)
    for axis in range(x.ndim):
        for w in WEIGHTS[:2] + WEIGHTS[3:]:
            _same(nd.correlate1d(x, w, axis=axis, mode=mode, cval=0.5),
                  ndi.correlate1d(x, w, axis=axis, mode=mode, cval=0.5))
        _same(nd.uniform_filter1d(x, 5, axis=axis, mode=mode), ndi.uniform_filter1d(x, 5, axis=axis, mode=mode))
    y = x.copy()
    nd.correlate1d(y, WEIGHTS[0], axis=0, output=y, mode=mode)  # in place
    _same(y, ndi.correlate1d(x, WEIGHTS[0], axis=0, mode=mode))

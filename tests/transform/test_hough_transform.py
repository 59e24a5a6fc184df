"""The Hough transforms against scikit-image 0.26 beyond the generated cases: accumulators equal on images
of realistic size (the integer votes exactly), the probabilistic transform's segments for several seeds, the
ellipse transform's records, peaks of real transforms."""
import numpy as np
import pytest
from skimage import draw
from skimage import transform as sk

from ndimg import transform as nd


@pytest.fixture(scope="module")
def lines_image():
    rng = np.random.default_rng(3)
    img = np.zeros((200, 300), dtype=bool)
    img[60, :] = 1
    img[:, 130] = 1
    img[70:90, 70:100] = 1
    for i in range(180):
        img[i, i] = 1
    return img | (rng.random(img.shape) > 0.97)


def test_hough_line_equals_reference(lines_image):
    for theta in (None, np.linspace(-np.pi, np.pi, 721)):
        got, expected = nd.hough_line(lines_image, theta), sk.hough_line(lines_image, theta)
        assert got[0].dtype == np.uint64
        for g, x in zip(got, expected):
            np.testing.assert_array_equal(g, x)


def test_hough_line_peaks_of_real_transform(lines_image):
    h, a, d = sk.hough_line(lines_image)
    for kw in ({}, dict(min_distance=3, min_angle=4, num_peaks=5), dict(threshold=50)):
        for g, x in zip(nd.hough_line_peaks(h, a, d, **kw), sk.hough_line_peaks(h, a, d, **kw)):
            np.testing.assert_array_equal(g, x)


@pytest.mark.parametrize("seed", [0, 1, 7, 42])
def test_probabilistic_hough_line_equals_reference(lines_image, seed):
    kw = dict(threshold=10, line_length=15, line_gap=3, rng=seed)
    assert nd.probabilistic_hough_line(lines_image, **kw) == sk.probabilistic_hough_line(lines_image, **kw)


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("full_output", [True, False])
def test_hough_circle_and_peaks(normalize, full_output):
    img = np.zeros((120, 140), dtype=np.uint8)
    for r, c, rad in ((40, 50, 20), (80, 100, 25), (60, 10, 15)):
        rr, cc = draw.circle_perimeter(r, c, rad, shape=img.shape)
        img[rr, cc] = 1
    radii = np.arange(10, 30, 3)
    got = nd.hough_circle(img, radii, normalize, full_output)
    expected = sk.hough_circle(img, radii, normalize, full_output)
    np.testing.assert_array_equal(got, expected)   # each cell: its votes summed one by one, as there
    kw = dict(min_xdistance=5, min_ydistance=5, total_num_peaks=4)
    for g, x in zip(nd.hough_circle_peaks(got, radii, **kw), sk.hough_circle_peaks(expected, radii, **kw)):
        np.testing.assert_array_equal(g, x)


def test_hough_ellipse_records():
    img = np.zeros((40, 45), dtype=np.uint8)
    rr, cc = draw.ellipse_perimeter(20, 22, 14, 8, orientation=0.6)
    img[rr, cc] = 1
    for kw in (dict(threshold=6, accuracy=5), dict(threshold=4, accuracy=3, min_size=6, max_size=12)):
        got, expected = nd.hough_ellipse(img, **kw), sk.hough_ellipse(img, **kw)
        assert got.dtype == expected.dtype and len(got) == len(expected) > 0
        for name in expected.dtype.names:
            np.testing.assert_array_equal(got[name], expected[name])


def test_host_only_functions_refuse_gpu_arrays():
    cp = pytest.importorskip("cupy")
    try:
        img = cp.zeros((8, 8), dtype=bool)
    except Exception:
        pytest.skip("no CUDA device")
    for fn in (nd.hough_ellipse, nd.probabilistic_hough_line):
        with pytest.raises(TypeError, match="CUDA engine is not built yet"):
            fn(img)


def test_cuda_accumulators_equal_cpu(lines_image):
    cp = pytest.importorskip("cupy")
    try:
        gpu = cp.asarray(lines_image)
    except Exception:
        pytest.skip("no CUDA device")
    for g, c in zip(nd.hough_line(gpu), nd.hough_line(lines_image)):
        np.testing.assert_array_equal(g.get(), c)
    radii = np.arange(5, 40, 7)
    for normalize in (True, False):
        np.testing.assert_array_equal(nd.hough_circle(gpu, radii, normalize, True).get(),
                                      nd.hough_circle(lines_image, radii, normalize, True))

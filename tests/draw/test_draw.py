"""ndimg.draw against scikit-image where the generated registry cases cannot reach: set_color's in-place
result, the polygon fill's scanline against pnpoly on many random polygons (every pixel is scikit-image's),
the rasterisers over many random arguments, random_shapes over many seeds, and the CuPy paths."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import skimage.draw as sd

import ndimg.draw as nd
from helpers import to_engine, to_host


def assert_same(got, expected):
    """Same structure, types, dtypes and values (coordinates are exact)."""
    if isinstance(expected, (tuple, list)):
        assert type(got) is type(expected) and len(got) == len(expected), (got, expected)
        for g, x in zip(got, expected):
            assert_same(g, x)
        return
    if isinstance(expected, np.ndarray):
        got = to_host(got)
        assert isinstance(got, np.ndarray) and got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)
        return
    assert type(got) is type(expected) and got == expected, (got, expected)


def same_call(name, *args, **kw):
    """ndimg's and scikit-image's `name` on the same arguments: the same result, or the same exception."""
    try:
        expected = getattr(sd, name)(*args, **kw)
    except Exception as exc:
        with pytest.raises(type(exc)):
            getattr(nd, name)(*args, **kw)
        return
    assert_same(getattr(nd, name)(*args, **kw), expected)


# ---- set_color ----
@pytest.mark.parametrize("dtype", ["uint8", "float64", "int16"])
@pytest.mark.parametrize("channels", [None, 3])
@pytest.mark.parametrize("alpha", [1, 0.4, "array"])
def test_set_color(engine, rng, dtype, channels, alpha):
    shape = (30, 40) if channels is None else (30, 40, channels)
    image = (rng.random(shape) * 100).astype(dtype)
    rr, cc = sd.disk((12, 35), 9)   # partly outside the image: those pixels are skipped
    color = 7 if channels is None else (10, 200, 30)
    a = rng.random(rr.shape) if alpha == "array" else alpha
    expected = image.copy()
    sd.set_color(expected, (rr, cc), color, alpha=a)
    got = to_engine(image.copy(), engine)
    assert nd.set_color(got, (to_engine(rr, engine), to_engine(cc, engine)), color, alpha=a) is None
    np.testing.assert_array_equal(to_host(got), expected)


def test_set_color_wrong_color_shape():
    with pytest.raises(ValueError, match="must match last"):
        nd.set_color(np.zeros((5, 5, 3)), ([1], [1]), (1, 2))


# ---- polygon fill: every pixel pnpoly's ----
def _random_polygon(rng, kind, size):
    n = int(rng.integers(3, 40))
    if kind == "star":   # self-intersecting, vertices anywhere
        pts = rng.uniform(-0.1 * size, 1.1 * size, (n, 2))
    elif kind == "grid":   # vertices on pixels: vertex and edge codes along rows
        pts = np.round(rng.uniform(-2, size + 2, (n, 2)))
    elif kind == "radial":   # many vertices, a ring-like outline
        t = np.sort(rng.uniform(0, 2 * np.pi, n * 5))
        rad = size / 2 * rng.uniform(0.3, 1.0, t.size)
        pts = np.c_[size / 2 + rad * np.sin(t), size / 2 + rad * np.cos(t)]
    else:   # halves: edges through pixel centres and exactly horizontal edges
        pts = np.round(rng.uniform(0, size, (n, 2)) * 2) / 2
        pts[1::3, 0] = pts[::3, 0][:len(pts[1::3])]
    return pts


@pytest.mark.parametrize("kind", ["star", "grid", "radial", "halves"])
def test_polygon_matches_pnpoly(rng, kind):
    for _ in range(40):
        size = int(rng.integers(5, 120))
        pts = _random_polygon(rng, kind, size)
        same_call("polygon", pts[:, 0], pts[:, 1])
        same_call("polygon", pts[:, 0], pts[:, 1], shape=(size // 2 + 1, size))
        same_call("polygon2mask", (size, size // 2 + 3), pts)


def test_polygon_degenerate(rng):
    same_call("polygon", [3.0, 3.0, 3.0], [1.0, 5.0, 9.0])            # collinear: only the outline
    same_call("polygon", [1, 8, 8, 1, 1], [1, 1, 8, 8, 1])              # closed explicitly
    same_call("polygon", [2.5], [4.5])                                  # one vertex
    same_call("polygon", [2], [4])
    same_call("polygon", [0, 0, 5], [0, 1e-13, 5])                      # vertices within pnpoly's eps
    same_call("polygon", np.array(3.0), np.array(4.0))                  # 0-d
    same_call("polygon", [-5, -1, -3], [2, 3, 9])                       # above the image: nothing
    same_call("polygon", [1e5, 1e5 + 3, 1e5 + 1], [1e5, 1e5 + 1, 1e5 + 4])
    same_call("polygon", [np.nan, 1, 2], [0, 1, 2])
    same_call("polygon", [np.inf, 1, 2], [0, 1, 2])
    same_call("polygon", [], [])
    # coordinates beyond the scanline's rounding margin: every pixel tested
    same_call("polygon", [0.0, 5.0, 10.0], [0.0, 1e13, 0.0], shape=(12, 12))
    same_call("polygon", [0.0, 5.0, 10.0], [-1e13, 3.0, 1e13], shape=(12, 12))


def test_polygon2mask_large(rng):
    t = np.sort(rng.uniform(0, 2 * np.pi, 300))
    rad = rng.uniform(100, 400, t.size)
    poly = np.c_[420 + rad * np.sin(t), 330 + rad * np.cos(t)]
    same_call("polygon2mask", (800, 700), poly)
    same_call("polygon2mask", (800, 700, 2), poly)
    same_call("polygon2mask", (300, 200), poly)


# ---- the rasterisers over random arguments ----
def test_lines_and_circles(rng):
    for _ in range(300):
        r0, c0, r1, c1 = (int(v) for v in rng.integers(-40, 40, 4))
        same_call("line", r0, c0, r1, c1)
        same_call("line_aa", r0, c0, r1, c1)
        same_call("polygon_perimeter", [r0, r1, c0], [c0, c1, r1], shape=(20, 30), clip=bool(r0 % 2))
    for radius in range(-2, 60, 3):
        r, c = (int(v) for v in rng.integers(-10, 40, 2))
        same_call("circle_perimeter", r, c, radius, method=["bresenham", "andres"][radius % 2], shape=(30, 40))
        same_call("circle_perimeter_aa", r, c, radius)
        same_call("circle_perimeter_aa", r, c, radius, shape=(30, 40))


def test_curves(rng):
    for _ in range(500):
        r, c = (int(v) for v in rng.integers(-10, 60, 2))
        a, b = (int(v) for v in rng.integers(0, 40, 2))
        orientation = [0, float(rng.uniform(-4, 4))][int(rng.integers(2))]
        same_call("ellipse_perimeter", r, c, a, b, orientation)
        same_call("ellipse_perimeter", r, c, a, b, orientation, shape=(40, 50))
        pts = (int(v) for v in rng.integers(-30, 90, 6))
        weight = float([1.0, rng.uniform(0, 1), rng.uniform(1, 6)][int(rng.integers(3))])
        same_call("bezier_curve", *pts, weight)


def test_ellipse_and_disk(rng):
    for _ in range(100):
        r, c = rng.uniform(-20, 80, 2)
        a, b = rng.uniform(0.2, 60, 2)
        rotation = float(rng.uniform(-7, 7))
        same_call("ellipse", r, c, a, b, rotation=rotation)
        same_call("ellipse", r, c, a, b, shape=(50, 70), rotation=rotation)
        same_call("disk", (int(r), c), a, shape=(60, 50))
    same_call("ellipse", 500, 600, 420, 580, rotation=0.25)


def test_ellipse_rows_margin(rng):
    """The fill by rows tests only each row's ends: eccentric, tiny, huge (the per-pixel fallback) and
    degenerate radii give scikit-image's pixels."""
    for _ in range(300):
        r, c = rng.uniform(-30, 90, 2)
        a, b = np.exp(rng.uniform(np.log(0.02), np.log(300), 2))
        rotation = float([0.0, np.pi / 2, np.pi / 4, rng.uniform(-7, 7)][int(rng.integers(4))])
        same_call("ellipse", r, c, a, b, shape=(60, 80), rotation=rotation)
    same_call("ellipse", 30, 40, 3e6, 7, shape=(60, 80), rotation=0.3)     # margin too small: every pixel
    same_call("ellipse", 30, 40, 5e6, 5e6, shape=(60, 80))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # 0 / 0 in scikit-image's test
        same_call("ellipse", 5, 5, 0, 3)
        same_call("ellipse", 5, 5, 0.0, 3.0, rotation=0.5)


def test_scalar_arguments():
    for args in [(1.5, 0, 3, 3), (np.float64(1), 0, 3, 3), ("a", 0, 1, 1), (2**70, 0, 1, 1), (np.array([1]), 0, 3, 3)]:
        same_call("line", *args)
        same_call("line_aa", *args)
    same_call("line", np.int32(1), np.array(2), True, 5)
    same_call("ellipse_perimeter", 5, 5, 3, 4, "a")
    same_call("circle_perimeter", 4, 4, 3, method="other")
    same_call("circle_perimeter", 4.0, 4, 3, method="other")


# ---- random_shapes: scikit-image's draws from the same seed ----
def test_random_shapes_seeds():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(40):
            kw = dict(max_shapes=seed % 9 + 1, min_size=seed % 6 + 2, rng=seed, allow_overlap=bool(seed % 3 == 0))
            same_call("random_shapes", (64 + seed, 90), **kw)
            for shape in ("rectangle", "circle", "triangle", "ellipse"):
                same_call("random_shapes", (40, 50), shape=shape, channel_axis=None, **kw)


def test_random_shapes_warns_when_nothing_fits():
    with pytest.warns(UserWarning, match="Could not fit"):
        image, labels = nd.random_shapes((10, 10), max_shapes=1, min_size=9, shape="circle", num_trials=3, rng=0)
    assert labels == []
    assert (image == 255).all()


# ---- the GPU fill ----
def test_polygon_on_engine(engine, rng):
    for kind in ("star", "grid", "radial"):
        pts = _random_polygon(rng, kind, 90)
        rr, cc = nd.polygon(to_engine(pts[:, 0], engine), to_engine(pts[:, 1], engine), shape=(80, 100))
        assert type(rr) is type(to_engine(pts[:, 0], engine))
        assert_same((to_host(rr), to_host(cc)), sd.polygon(pts[:, 0], pts[:, 1], shape=(80, 100)))
        mask = nd.polygon2mask((70, 95), to_engine(pts, engine))
        assert type(mask) is type(to_engine(pts, engine))
        assert_same(to_host(mask), sd.polygon2mask((70, 95), pts))

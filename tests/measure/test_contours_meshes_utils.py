"""find_contours, marching_cubes and the measure utilities: what the generated registry tests cannot say."""
from __future__ import annotations

import numpy as np
import pytest
import skimage.measure as sm
from skimage.draw import ellipsoid

from ndimg import measure

from helpers import to_engine, to_host

VERTEX_SHARE_MISSING = 0.05   # lewiner: scikit-image's cell-centre vertices, which ndimg's tiling never adds


def _rows(a):
    """Rows of a (V, k) array in lexicographic order (ties by the later columns)."""
    return a[np.lexsort(a.T[::-1])]


def _area(verts, faces):
    return float(sm.mesh_surface_area(np.asarray(verts, np.float64), faces))


def assert_same_surface(got, expected, kw):
    """marching_cubes' (verts, faces, normals, values) as surfaces: the same dtypes and shapes of rows; the
    'lorensen' vertices are scikit-image's exactly (with their values); 'lewiner' ones are a subset of
    scikit-image's, which adds a vertex at the centre of some ambiguous cells; faces index the vertices; the
    areas agree within 5% and 3 square voxels (the tilings of ambiguous cells differ; the tests' small volumes hold many of
    them) and normals are unit vectors pointing the same way as scikit-image's at the shared vertices."""
    assert len(got) == 4 and type(got[0]).__module__.split(".")[0] in ("numpy", "cupy")
    assert all(type(g) is type(got[0]) for g in got), [type(g) for g in got]
    verts, faces, normals, values = got = to_host(tuple(got))   # a CuPy mesh on the CUDA engine
    xv, xf, xn, xval = expected
    for g, x in zip(got, expected):
        assert g.dtype == x.dtype and g.shape[1:] == x.shape[1:], (g.dtype, x.dtype, g.shape, x.shape)
    assert faces.min() >= 0 and faces.max() < len(verts)
    ours = _rows(np.column_stack([verts, values]).astype(np.float64))
    theirs = _rows(np.column_stack([xv, xval]).astype(np.float64))
    if not kw.get("allow_degenerate", True):
        pass   # the vertices merged depend on which triangles are degenerate: the tiling's
    elif kw.get("method", "lewiner") == "lorensen":
        np.testing.assert_array_equal(ours, theirs)
    else:
        assert len(theirs) - len(ours) <= VERTEX_SHARE_MISSING * len(theirs) + 2, (len(ours), len(theirs))
        shared = {tuple(r) for r in theirs}
        assert all(tuple(r) in shared for r in ours)
    if kw.get("method", "lewiner") != "lorensen" or not kw.get("allow_degenerate", True):
        # lorensen's vertex set is scikit-image's exactly (the criterion); its faces may triangulate
        # a cell otherwise, so the area is held only where the vertex sets may differ
        np.testing.assert_allclose(_area(verts, faces), _area(xv, xf), rtol=0.05, atol=3.0)
    length = np.linalg.norm(normals.astype(np.float64), axis=1)
    assert np.all((np.abs(length - 1) < 1e-5) | (length == 0))
    key = {tuple(v): n for v, n in zip(np.asarray(xv, np.float64).tolist(), xn.astype(np.float64))}
    dots = [np.dot(n, key[tuple(v)]) for v, n in zip(np.asarray(verts, np.float64).tolist(), normals.astype(np.float64))
            if tuple(v) in key]
    # a vertex of a cell tiled otherwise has other faces around it, hence another normal: a few such vertices
    # are allowed. Coarse steps' small surfaces hold more of them: over 1,800 random step-2/step-3 volumes the
    # worst were 7 of 108 and 5 of 43 shared vertices
    few = (2, 0.05) if kw.get("step_size", 1) == 1 else (5, 0.1)
    assert np.sum(np.asarray(dots) <= 0.5) <= max(few[0], few[1] * len(dots)), dots


# ------------------------------------------------------------------------------------------ find_contours
def _assert_same_contours(got, expected, engine):
    """The same contours in the same order, bit for bit, each an array of the engine's library."""
    assert isinstance(got, list) and len(got) == len(expected)
    for g, x in zip(got, expected):
        assert type(g) is type(to_engine(x, engine))
        np.testing.assert_array_equal(to_host(g), x)


@pytest.mark.parametrize("seed", range(6))
def test_find_contours_equal_on_ties_nan_and_masks(seed, engine):
    """Values exactly at the level, NaN and masked corners: the same contours, in the same order, bit for bit."""
    rng = np.random.default_rng(seed)
    image = np.round(rng.random((31, 27)) * 4) / 4
    image[rng.random(image.shape) < 0.05] = np.nan
    mask = rng.random(image.shape) > 0.1
    for fc in ("low", "high"):
        for po in ("low", "high"):
            for m in (None, mask):
                got = measure.find_contours(to_engine(image, engine), 0.5, fc, po, mask=to_engine(m, engine))
                _assert_same_contours(got, sm.find_contours(image, 0.5, fc, po, mask=m), engine)


def test_find_contours_large_noise_image_equal(engine):
    """Many contours joined across row blocks (the threads' segment lists) in scikit-image's order."""
    image = np.random.default_rng(1).random((300, 420))
    got, expected = measure.find_contours(to_engine(image, engine)), sm.find_contours(image)
    assert len(expected) > 1000
    _assert_same_contours(got, expected, engine)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, bool])
def test_find_contours_default_level_in_the_image_dtype(dtype, engine):
    """The default level is (min + max) / 2 in the image's dtype (NaN left out); the level then equals data
    values where the image is two-valued."""
    rng = np.random.default_rng(4)
    image = (rng.random((40, 33)) * 7).astype(dtype)
    if dtype == np.float32:
        image[3, 4] = np.nan
    _assert_same_contours(measure.find_contours(to_engine(image, engine)), sm.find_contours(image), engine)


def test_find_contours_empty_and_all_masked(engine):
    image = np.random.default_rng(2).random((9, 8))
    for level, mask in ((2.0, None), (0.5, np.zeros(image.shape, bool)), (0.5, np.eye(9, 8, dtype=bool))):
        got = measure.find_contours(to_engine(image, engine), level, mask=to_engine(mask, engine))
        assert got == [] and sm.find_contours(image, level, mask=mask) == []


def test_find_contours_closed_contour_and_orientation(engine):
    image = np.zeros((7, 7))
    image[2:5, 2:5] = 1
    (c,) = to_host(measure.find_contours(to_engine(image, engine), 0.5))
    np.testing.assert_array_equal(c[0], c[-1])
    # low values on the left: counter-clockwise around... the high island runs clockwise in (row, col)
    area = 0.5 * np.sum(c[:-1, 0] * c[1:, 1] - c[1:, 0] * c[:-1, 1])
    (ch,) = to_host(measure.find_contours(to_engine(image, engine), 0.5, positive_orientation="high"))
    area_h = 0.5 * np.sum(ch[:-1, 0] * ch[1:, 1] - ch[1:, 0] * ch[:-1, 1])
    assert area == -area_h != 0


# ------------------------------------------------------------------------------------------ marching_cubes
@pytest.mark.parametrize("method", ["lewiner", "lorensen"])
def test_marching_cubes_ellipsoid_same_vertices_area_volume(method):
    """An ellipsoid has no ambiguous cell: scikit-image's vertices, normals' values, and its area and enclosed
    volume within 1e-6."""
    vol = ellipsoid(6, 10, 16, levelset=True)
    got = measure.marching_cubes(vol, 0.0, method=method)
    expected = sm.marching_cubes(vol, 0.0, method=method)
    np.testing.assert_array_equal(_rows(got[0]), _rows(expected[0]))

    def enclosed(v, f):
        t = np.asarray(v, np.float64)[f]
        return np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])).sum() / 6

    np.testing.assert_allclose(_area(got[0], got[1]), _area(expected[0], expected[1]), rtol=1e-6)
    np.testing.assert_allclose(enclosed(got[0], got[1]), enclosed(expected[0], expected[1]), rtol=1e-6)


def test_marching_cubes_methods_differ_only_on_ambiguous_faces():
    """lewiner and lorensen agree where no cell face is ambiguous, and differ on a volume full of saddles."""
    sphere = ellipsoid(1, 1, 1, levelset=True)
    a = measure.marching_cubes(sphere, 0, allow_degenerate=False)
    b = measure.marching_cubes(sphere, 0, allow_degenerate=False, method="lorensen")
    np.testing.assert_array_equal(_rows(np.sort(a[0][a[1]].reshape(-1, 9), 1)), _rows(np.sort(b[0][b[1]].reshape(-1, 9), 1)))
    x = np.random.default_rng(0).random((12, 12, 12))   # noise: many ambiguous faces
    a = measure.marching_cubes(x, 0.5)
    b = measure.marching_cubes(x, 0.5, method="lorensen")
    assert a[1].shape != b[1].shape or not np.array_equal(a[1], b[1])


def test_marching_cubes_threads_give_the_same_mesh():
    import ndimg

    vol = np.random.default_rng(3).random((21, 18, 25)).astype(np.float32)
    before = ndimg.get_num_threads()
    try:
        ndimg.set_num_threads(1)
        one = measure.marching_cubes(vol, 0.5)
        ndimg.set_num_threads(4)
        many = measure.marching_cubes(vol, 0.5)
    finally:
        ndimg.set_num_threads(before)
    for a, b in zip(one, many):
        np.testing.assert_array_equal(a, b)


def _mc_volumes():
    rng = np.random.default_rng(7)
    z, y, x = np.indices((13, 11, 12))
    ties = np.round(np.sqrt((z - 6.2) ** 2 + (y - 5) ** 2 / 2 + (x - 5.7) ** 2) * 2) / 2   # corners at the level
    smooth = np.cumsum(np.cumsum(rng.random((16, 14, 17)), 0), 2).astype(np.float32)
    return [(ties, 3.5), (smooth, float(smooth.min() + 0.4 * np.ptp(smooth)))]


_MC_MASK = np.random.default_rng(8).random((16, 14, 17)) > 0.15


@pytest.mark.parametrize("kw", [dict(), dict(method="lorensen"), dict(step_size=2), dict(step_size=3, method="lorensen"),
                                dict(mask=_MC_MASK), dict(mask=_MC_MASK, step_size=2, method="lorensen"),
                                dict(spacing=(1.0, 2.0, 0.5), gradient_direction="ascent"),
                                dict(allow_degenerate=False), dict(allow_degenerate=False, method="lorensen")],
                         ids=lambda kw: "-".join(f"{k}" if k == "mask" else f"{k}={v}" for k, v in kw.items()) or "default")
def test_marching_cubes_masks_steps_degenerate_on_each_engine(kw, engine):
    """scikit-image's surface on each engine; the CUDA engine's mesh is the CPU engine's bit for bit (vertices,
    faces, normals and values in the same order), as CuPy arrays."""
    for vol, level in _mc_volumes():
        kw_here = dict(kw, mask=kw["mask"][tuple(slice(n) for n in vol.shape)]) if "mask" in kw else kw
        got = measure.marching_cubes(to_engine(vol, engine), level,
                                     **{k: to_engine(v, engine) for k, v in kw_here.items()})
        assert_same_surface(got, sm.marching_cubes(vol, level, **kw_here), kw_here)
        if engine != "cpu":
            for g, c in zip(got, measure.marching_cubes(vol, level, **kw_here)):
                assert g.dtype == c.dtype and g.shape == c.shape
                np.testing.assert_array_equal(to_host(g), c)


def test_marching_cubes_errors(engine):
    with pytest.raises(RuntimeError, match="No surface"):
        measure.marching_cubes(to_engine(np.zeros((4, 4, 4)), engine), 0.0)
    vol = np.random.default_rng(0).random((5, 6, 7))
    with pytest.raises(RuntimeError, match="No surface"):   # every cell masked out
        sm.marching_cubes(vol, 0.5, mask=np.zeros(vol.shape, bool))
    with pytest.raises(RuntimeError, match="No surface"):
        measure.marching_cubes(to_engine(vol, engine), 0.5, mask=to_engine(np.zeros(vol.shape, bool), engine))
    with pytest.raises(ValueError):
        measure.marching_cubes(np.zeros((3, 3, 3)), 0.0, mask=np.array([]))
    with pytest.raises(ValueError):
        measure.marching_cubes([[[0.0]]], 0.0)


# ------------------------------------------------------------------------------------------ polygons
def test_points_in_poly_codes_kept():
    """scikit-image's bool array holds pnpoly's codes (2 on a vertex, 3 on an edge) as its bytes."""
    verts = np.array([[0, 0], [0, 4], [4, 4], [4, 0.0]])
    points = np.array([[0, 0], [1, 1], [0, 2], [5, 5], [4, 1e-13]])
    got, expected = measure.points_in_poly(points, verts), sm.points_in_poly(points, verts)
    assert got.dtype == expected.dtype == bool
    np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))

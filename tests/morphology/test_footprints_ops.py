"""ndimg.morphology's footprints and operators: what the generated registry tests cannot say (out= arrays,
in-place calls, warnings and where they point, the sphere decompositions at every radius, Dask seams)."""
import os
import warnings

import numpy as np
import pytest
import skimage.morphology as sm

from ndimg import morphology as m
from ndimg.morphology import _footprints
from helpers import random_image, to_engine, to_host

GRAY = ("erosion", "dilation", "opening", "closing", "white_tophat", "black_tophat")
BINARY = ("binary_erosion", "binary_dilation", "binary_opening", "binary_closing")
ISOTROPIC = ("isotropic_erosion", "isotropic_dilation", "isotropic_opening", "isotropic_closing")


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _table(name):
    import skimage.morphology.footprints as fp_module

    return np.load(os.path.join(os.path.dirname(fp_module.__file__), f"{name}_decompositions.npy"))


@pytest.mark.parametrize("name, ndim, radii", [("disk", 2, range(2, 251)),
                                               ("ball", 3, [*range(2, 40), 50, 77, 99, 100])])
def test_sphere_decomposition_counts(name, ndim, radii):
    """ndimg's own search picks scikit-image's precomputed (T, cross, box) counts at every radius checked."""
    table = _table(name)
    got = {r: _footprints._nsphere_counts(r, ndim) for r in radii}
    assert got == {r: tuple(int(v) for v in table[r]) for r in radii}


@pytest.mark.parametrize("radius", [2, 9, 27, 35, 60])
def test_ball_sequence_equals_reference(radius):
    got, expected = m.ball(radius, decomposition="sequence"), sm.ball(radius, decomposition="sequence")
    assert len(got) == len(expected)
    for (g, gn), (x, xn) in zip(got, expected):
        assert g.dtype == x.dtype and np.array_equal(g, x) and gn == xn and type(gn) is type(xn)


@pytest.mark.parametrize("name", GRAY)
@pytest.mark.parametrize("footprint", [None, sm.disk(2), np.ones((2, 4), bool),
                                       sm.disk(3, decomposition="sequence"),
                                       sm.footprint_rectangle((4, 7), decomposition="separable")],
                         ids=["default", "disk", "even", "disk_seq", "even_separable"])
@pytest.mark.parametrize("out_dtype", ["same", "float64"])
def test_gray_out(engine, rng, name, footprint, out_dtype):
    """out= is filled and returned, in its own dtype (scipy casts each pass's result into it)."""
    x = random_image(rng, (19, 24), "uint8")
    dt = x.dtype if out_dtype == "same" else np.dtype(out_dtype)
    expected = getattr(sm, name)(x, footprint, out=np.empty(x.shape, dt), mode="max")
    out = to_engine(np.zeros(x.shape, dt), engine)
    got = getattr(m, name)(to_engine(x, engine), footprint, out=out, mode="max")
    assert got is out
    np.testing.assert_array_equal(to_host(got), expected)


@pytest.mark.parametrize("name", GRAY)
@pytest.mark.parametrize("footprint", [sm.disk(2), sm.disk(2, decomposition="sequence")], ids=["disk", "seq"])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "bool"])
def test_gray_in_place(engine, rng, name, footprint, dtype):
    """out=image: the input is overwritten with the result (top-hats subtract in place, bools xor)."""
    x = random_image(rng, (17, 23), dtype)
    expected = getattr(sm, name)(x.copy(), footprint, out=None)
    y = to_engine(x, engine)
    got = getattr(m, name)(y, footprint, out=y)
    assert got is y
    np.testing.assert_array_equal(to_host(got), expected)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("out_dtype", ["bool", "uint8"])
def test_binary_out(engine, rng, name, out_dtype):
    x = rng.random((15, 21)) > 0.5
    fp = sm.footprint_rectangle((3, 5), decomposition="sequence")
    expected = _quiet(getattr(sm, name), x, fp, out=np.empty(x.shape, out_dtype))
    out = to_engine(np.zeros(x.shape, out_dtype), engine)
    got = _quiet(getattr(m, name), to_engine(x, engine), fp, out=out)
    assert got is out
    np.testing.assert_array_equal(to_host(got), expected)


@pytest.mark.parametrize("name", ISOTROPIC)
def test_isotropic_out(engine, rng, name):
    x = rng.random((6, 15, 11)) > 0.4
    expected = getattr(sm, name)(x, 2.5, out=np.empty(x.shape, bool), spacing=(2, 1, 0.5))
    out = to_engine(np.zeros(x.shape, bool), engine)
    got = getattr(m, name)(to_engine(x, engine), 2.5, out=out, spacing=(2, 1, 0.5))
    assert got is out
    np.testing.assert_array_equal(to_host(got), expected)


@pytest.mark.parametrize("call, message", [
    (lambda mod: mod.square(3), "`square` is deprecated since version 0.25"),
    (lambda mod: mod.rectangle(3, 4), "`rectangle` is deprecated since version 0.25"),
    (lambda mod: mod.cube(3), "`cube` is deprecated since version 0.25"),
    (lambda mod: mod.binary_erosion(np.ones((4, 4), bool)), "`binary_erosion` is deprecated since version 0.26"),
    (lambda mod: mod.binary_closing(np.ones((4, 4), bool)), "`binary_closing` is deprecated since version 0.26"),
])
def test_deprecations(call, message):
    """The reference's FutureWarning (one, with its text), at the caller's line."""
    for mod in (sm, m):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            call(mod)
        assert [str(x.message) for x in w] == [str(x.message) for x in w if x.category is FutureWarning]
        assert len(w) == 1 and str(w[0].message).startswith(message), [str(x.message) for x in w]
        assert w[0].filename == __file__, w[0].filename
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        call(m)
    with warnings.catch_warnings(record=True) as ref:
        warnings.simplefilter("always")
        call(sm)
    assert str(ours[0].message) == str(ref[0].message)


def test_rectangle_sequence_fallback_warns():
    with pytest.warns(UserWarning, match="only supported for uneven footprints") as rec:
        got = m.footprint_rectangle((4, 5), decomposition="sequence")
    assert rec[0].filename == __file__
    expected = sm.footprint_rectangle((4, 5), decomposition="separable")
    assert all(np.array_equal(g, x) and gn == xn for (g, gn), (x, xn) in zip(got, expected))


def test_octagon_star_shapes():
    """The convex-hull shapes over a range of sizes (scikit-image draws them with convex_hull_image)."""
    for a in range(0, 12):
        np.testing.assert_array_equal(m.star(a), sm.star(a))
    for mm in range(0, 7):
        for n in range(0, 7):
            if mm or n:
                got, expected = m.octagon(mm, n), sm.octagon(mm, n)
                assert got.dtype == expected.dtype
                np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name", GRAY + BINARY)
def test_dask_sequence_seams(rng, name):
    """A decomposed footprint on chunks smaller than its reach: the halo is the sum of the elements' radii."""
    da = pytest.importorskip("dask.array")
    x = rng.random((40, 37)) > 0.5 if name.startswith("binary") else random_image(rng, (40, 37), "float32")
    fp = sm.disk(4, decomposition="sequence")
    expected = _quiet(getattr(sm, name), x, fp)
    with warnings.catch_warnings(record=True) as built:
        warnings.simplefilter("always")
        got = getattr(m, name)(da.from_array(x, chunks=(7, 9)), fp)
    with warnings.catch_warnings(record=True) as computed:
        warnings.simplefilter("always")
        values = got.compute()
    np.testing.assert_array_equal(values, expected)
    # the deprecated binary functions warn once, when called (not once per block)
    assert [w.category for w in built] == ([FutureWarning] if name.startswith("binary") else [])
    assert not computed, [str(w.message) for w in computed]


@pytest.mark.parametrize("name", GRAY)
@pytest.mark.parametrize("shape", [(1, 1), (2, 5), (6, 4), (23, 19)])
@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "bool"])
def test_box_sequences_merged_exactly(engine, rng, name, shape, dtype):
    """Runs of boxes run as one box where that is exact: every mode, windows longer than the image, border
    values the image's type cannot hold (-3 and 7.5 in uint8: scipy casts each pass's extreme)."""
    x = random_image(rng, shape, dtype)
    seq = ((np.ones((3, 3), np.uint8), 3), (np.ones((1, 5), bool), 1), (sm.diamond(1), 1), (np.ones((3, 1)), 2))
    for mode in ("reflect", "constant", "nearest", "mirror", "wrap", "max", "min", "ignore"):
        for cval in (0, -3, 7.5):
            expected = getattr(sm, name)(x, seq, mode=mode, cval=cval)
            got = getattr(m, name)(to_engine(x, engine), seq, mode=mode, cval=cval)
            np.testing.assert_array_equal(to_host(got), expected, err_msg=f"{mode} {cval}")


@pytest.mark.parametrize("name", ("erosion", "dilation", "opening"))
def test_box_sequences_with_nan(engine, rng, name):
    """NaN: the passes one by one (the outcome of comparisons with NaN depends on their order)."""
    x = random_image(rng, (21, 18), "float32")
    x[3, 4] = x[10, ::3] = np.nan
    seq = sm.footprint_rectangle((9, 7), decomposition="sequence")
    for mode in ("reflect", "constant", "max"):
        got = getattr(m, name)(to_engine(x, engine), seq, mode=mode)
        np.testing.assert_array_equal(to_host(got), getattr(sm, name)(x, seq, mode=mode))


@pytest.mark.parametrize("name", ["erosion", "dilation", "opening", "closing", "white_tophat", "binary_erosion"])
def test_footprint_on_the_engine(engine, rng, name):
    """A footprint given as an array of the engine's library (cuCIM's users pass CuPy footprints), alone and in
    a sequence, gives scikit-image's result for the NumPy footprint."""
    x = random_image(rng, (17, 23), "float32")
    if name.startswith("binary"):
        x = x > 0.5
    fp = np.array([[0, 1, 1], [1, 1, 0], [0, 1, 0]], np.uint8)
    for ours, ref in ((to_engine(fp, engine), fp), (((to_engine(fp, engine), 2),), ((fp, 2),))):
        expected = _quiet(getattr(sm, name), x, ref)
        np.testing.assert_array_equal(to_host(_quiet(getattr(m, name), to_engine(x, engine), ours)), expected)

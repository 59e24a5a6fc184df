"""Binary morphology against scipy.ndimage where the generated registry cases cannot reach: iterations until
stable on images large enough for the CPU's list passes, masks with iterations, hit-or-miss origins, nested
holes in 3-D, big structures, output arrays, odd origins and bad input. scipy runs with brute_force=True
where iterations > 1: its other path (NI_BinaryErosion2) reads and writes out of bounds for some structures
(valgrind), and brute_force changes only the algorithm."""
import numpy as np
import pytest
import scipy.ndimage as ndi

from ndimg import ndimage as nd
from helpers import to_engine, to_host


def _same(got, expected):
    got = to_host(got)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def _blobs(rng, shape, p=0.5, smooth=2):
    """Random blobs: a thresholded box-smoothed noise (connected regions with holes, not salt)."""
    return ndi.uniform_filter(rng.random(shape), 2 * smooth + 1) > p


@pytest.mark.parametrize("name", ["binary_erosion", "binary_dilation", "binary_opening", "binary_closing"])
@pytest.mark.parametrize("iterations", [0, -1, 2, 7, 40])
@pytest.mark.parametrize("shape", [(300, 257), (40, 37, 45)])
def test_iterations_large(engine, rng, name, iterations, shape):
    """Large images: the CPU switches between full passes and passes over the cleared elements."""
    a = _blobs(rng, shape)
    expected = getattr(ndi, name)(a, iterations=iterations, brute_force=True)
    _same(getattr(nd, name)(to_engine(a, engine), iterations=iterations), expected)


@pytest.mark.parametrize("iterations", [1, 3, -1])
@pytest.mark.parametrize("border_value", [0, 1])
@pytest.mark.parametrize("connectivity", [1, 2, 3])
def test_mask_iterations(engine, rng, iterations, border_value, connectivity):
    a = _blobs(rng, (30, 41, 26), 0.45)
    mask = rng.random(a.shape) < 0.8
    s = ndi.generate_binary_structure(3, connectivity)
    for name in ("binary_erosion", "binary_dilation"):
        kw = dict(structure=s, iterations=iterations, border_value=border_value)
        expected = getattr(ndi, name)(a, mask=mask, brute_force=True, **kw)
        _same(getattr(nd, name)(to_engine(a, engine), mask=to_engine(mask, engine), **kw), expected)


def test_mask_of_other_dtype(engine, rng):
    """Mask and input of any real dtype: nonzero is set (NaN too)."""
    a = (rng.random((31, 17)) * 3).astype(np.float32) * (rng.random((31, 17)) < 0.7)
    a[3, 4] = np.nan
    mask = rng.integers(-2, 3, a.shape).astype(np.int16)
    expected = ndi.binary_dilation(a, mask=mask, iterations=4, brute_force=True)
    _same(nd.binary_dilation(to_engine(a, engine), mask=to_engine(mask, engine), iterations=4), expected)


@pytest.mark.parametrize("origin1, origin2", [(0, None), ((1, 0), None), ((0, -1), (1, 1)), (-1, 1)])
def test_hit_or_miss_origins(engine, rng, origin1, origin2):
    a = rng.random((23, 29)) < 0.5
    s1 = np.array([[0, 1, 0], [1, 1, 0], [0, 0, 0]], bool)
    s2 = np.array([[1, 0, 0], [0, 0, 1], [0, 0, 1]], bool)
    for kw in (dict(structure1=s1), dict(structure1=s1, structure2=s2)):
        expected = ndi.binary_hit_or_miss(a, origin1=origin1, origin2=origin2, **kw)
        _same(nd.binary_hit_or_miss(to_engine(a, engine), origin1=origin1, origin2=origin2, **kw), expected)


def test_output_arrays(engine, rng):
    """An output array is filled (in its dtype); hit_or_miss and fill_holes then return None, as scipy."""
    a = _blobs(rng, (40, 33))
    for name, kw in [("binary_erosion", {}), ("binary_closing", dict(iterations=2)), ("binary_propagation", {}),
                     ("binary_hit_or_miss", {}), ("binary_fill_holes", {})]:
        expected = np.zeros(a.shape, np.int16)
        r_exp = getattr(ndi, name)(a, output=expected, **kw)
        out = to_engine(np.zeros(a.shape, np.int16), engine)
        r = getattr(nd, name)(to_engine(a, engine), output=out, **kw)
        assert (r is None) == (r_exp is None), name
        _same(out, expected)


def test_in_place(engine, rng):
    """The output may be the input (scipy works on a temporary)."""
    a = _blobs(rng, (35, 28))
    expected = ndi.binary_dilation(a, iterations=3, brute_force=True)
    x = to_engine(a.copy(), engine)
    nd.binary_dilation(x, iterations=3, output=x)
    _same(x, expected)


def test_fill_holes_nested_3d(engine):
    """Shells inside holes inside shells: every enclosed background is filled, the outside is not."""
    a = np.zeros((21, 21, 21), bool)
    for r in (10, 6, 2):   # cubes alternately set and cleared: shells with holes and islands
        a[10 - r:11 + r, 10 - r:11 + r, 10 - r:11 + r] = r != 6
    a[10 - 8:11 + 8, 10 - 8:11 + 8, 10 - 8:11 + 8] = False
    a[3, 3, 3] = a[17, 5, 9] = False   # holes inside the wall
    for connectivity in (1, 2, 3):
        s = ndi.generate_binary_structure(3, connectivity)
        expected = ndi.binary_fill_holes(a, s)
        assert expected.sum() > a.sum()
        _same(nd.binary_fill_holes(to_engine(a, engine), s), expected)


def test_fill_holes_blobs(engine, rng):
    a = _blobs(rng, (64, 70, 33), 0.48, 1)
    _same(nd.binary_fill_holes(to_engine(a, engine)), ndi.binary_fill_holes(a))
    b = _blobs(rng, (512, 300), 0.5, 1)
    _same(nd.binary_fill_holes(to_engine(b, engine)), ndi.binary_fill_holes(b))


def test_propagation_large(engine, rng):
    seed = rng.random((400, 380)) < 0.0005
    mask = rng.random(seed.shape) < 0.62
    for s in (None, ndi.generate_binary_structure(2, 2)):
        _same(nd.binary_propagation(to_engine(seed, engine), s, to_engine(mask, engine)),
              ndi.binary_propagation(seed, s, mask))


def test_big_structure(engine, rng):
    a = _blobs(rng, (60, 57))
    s = rng.random((9, 11)) < 0.5
    s[4, 5] = True
    for name in ("binary_erosion", "binary_dilation", "binary_opening", "binary_closing"):
        for kw in (dict(), dict(iterations=2), dict(origin=(-2, 3)), dict(border_value=1)):
            expected = getattr(ndi, name)(a, s, brute_force=True, **kw)
            _same(getattr(nd, name)(to_engine(a, engine), s, **kw), expected)


def test_iterate_structure(engine, rng):
    s = ndi.generate_binary_structure(3, 1)
    big = ndi.iterate_structure(s, 4)
    _same(nd.iterate_structure(s, 4), big)
    a = _blobs(rng, (30, 31, 29))
    _same(nd.binary_erosion(to_engine(a, engine), big), ndi.binary_erosion(a, big))
    got, origin = nd.iterate_structure(s, 3, origin=(1, 0, -1))
    exp, exp_origin = ndi.iterate_structure(s, 3, origin=(1, 0, -1))
    _same(got, exp)
    assert origin == exp_origin


def test_centre_false_until_stable(engine, rng):
    """A structure without its centre: passes that are not monotone, run until one changes nothing (scipy
    too, where its loop ends)."""
    a = _blobs(rng, (40, 45), 0.4)
    s = np.array([[1, 1, 1], [1, 0, 1], [1, 1, 1]], bool)
    for it in (2, 5):
        _same(nd.binary_erosion(to_engine(a, engine), s, iterations=it),
              ndi.binary_erosion(a, s, iterations=it, brute_force=True))


def test_engines_bit_identical(rng):
    """The engines agree exactly (where a GPU is present)."""
    from helpers import CUDA_READY

    if not CUDA_READY:
        pytest.skip("no CUDA device")
    a = _blobs(rng, (70, 80, 30))
    mask = rng.random(a.shape) < 0.9
    for kw in (dict(iterations=-1), dict(iterations=5, mask=mask), dict(border_value=1, iterations=3)):
        cpu = nd.binary_dilation(a, **kw)
        gkw = {k: to_engine(v, "cuda") if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        np.testing.assert_array_equal(to_host(nd.binary_dilation(to_engine(a, "cuda"), **gkw)), cpu)


def test_zero_d_and_empty(engine):
    for x in (np.array(1.5), np.array(0), np.zeros((0, 4)), np.zeros((3, 0, 2), bool)):
        for name in ("binary_erosion", "binary_dilation", "binary_fill_holes", "binary_propagation"):
            _same(getattr(nd, name)(to_engine(x, engine)), getattr(ndi, name)(x))


@pytest.mark.parametrize("call, exc", [
    (lambda m, a: m.binary_erosion(a, structure=np.ones(3)), RuntimeError),
    (lambda m, a: m.binary_erosion(a, structure=np.ones((0, 3))), RuntimeError),
    (lambda m, a: m.binary_erosion(a, iterations=2.0), TypeError),
    (lambda m, a: m.binary_erosion(a.astype(np.complex64)), TypeError),
    (lambda m, a: m.binary_erosion(a.astype(np.float16)), RuntimeError),
    (lambda m, a: m.binary_erosion(a, mask=np.ones((3, 3))), RuntimeError),
    (lambda m, a: m.binary_erosion(a, output=np.zeros((4, 5), bool)), RuntimeError),
    (lambda m, a: m.binary_erosion(a, output=np.zeros(a.shape, np.complex64)), TypeError),
    (lambda m, a: m.binary_erosion(a, border_value=0.5), TypeError),
    (lambda m, a: m.binary_erosion(a, origin=2), IndexError),
    (lambda m, a: m.binary_erosion(a, axes=(0, 0)), ValueError),
    (lambda m, a: m.binary_erosion(a, origin=(1, 2, 3)), RuntimeError),
    (lambda m, a: m.binary_dilation(a, structure=np.ones(3)), IndexError),
    (lambda m, a: m.binary_propagation(a, mask=np.ones((2, 2))), RuntimeError),
    (lambda m, a: m.generate_binary_structure(2.5, 1), TypeError),
])
def test_bad_input(call, exc):
    a = np.ones((5, 6), bool)
    with pytest.raises(exc):
        call(ndi, a)
    with pytest.raises(exc):
        call(nd, a)


def test_negative_origin_beyond_structure():
    """An origin past the structure's start: scipy indexes the structure from its end and may crash; ndimg
    refuses it."""
    with pytest.raises(ValueError, match="invalid origin"):
        nd.binary_erosion(np.ones((5, 5), bool), origin=-2)


def test_cycle_until_stable_raises(engine):
    """Passes that cycle (a structure without its centre): scipy's loop never ends; ndimg raises."""
    s = np.array([1, 0, 1], bool)
    a = to_engine(np.array([True, False]), engine)
    with pytest.raises(ValueError, match="cycle"):
        nd.binary_erosion(a, s, iterations=-1, border_value=1)
    # finite iterations of the same passes alternate, as scipy's
    for it in (1, 2, 3, 4):
        _same(nd.binary_erosion(a, s, iterations=it, border_value=1),
              ndi.binary_erosion(to_host(a), s, iterations=it, border_value=1, brute_force=True))


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_propagation_symmetric_structures(engine, rng, ndim):
    """Symmetric 3**ndim structures with their centre take the connected-components route; others (an
    asymmetric one, an origin) the passes: both against scipy, with border_value and masks."""
    shape = {1: (200,), 2: (41, 53), 3: (13, 17, 15)}[ndim]
    for trial in range(6):
        r = rng.random((3,) * ndim) < 0.4
        s = r | r[(slice(None, None, -1),) * ndim]
        s[(1,) * ndim] = True
        if trial == 5:
            s[(0,) * ndim] = not s[(2,) * ndim]   # asymmetric
        seed = rng.random(shape) < 0.01
        mask = rng.random(shape) < 0.6
        # an origin whose element is false: passes that may cycle forever (scipy never returns)
        shifted = [dict(origin=(1,) + (0,) * (ndim - 1))] if s[(2,) + (1,) * (ndim - 1)] else []
        for kw in [dict(), dict(border_value=1)] + shifted:
            _same(nd.binary_propagation(to_engine(seed, engine), s, to_engine(mask, engine), **kw),
                  ndi.binary_propagation(seed, s, mask, **kw))
        holes = rng.random(shape) < 0.55
        _same(nd.binary_fill_holes(to_engine(holes, engine), s), ndi.binary_fill_holes(holes, s))


@pytest.mark.parametrize("iterations", [1, 3])
def test_strided_arrays(engine, rng, iterations):
    """Strided and Fortran-ordered inputs, masks and bool outputs (the working buffers' loads and stores)."""
    big = _blobs(rng, (61, 47))
    a, mask = big[::2, 1::2], (rng.random((62, 46)) < 0.8)[1::2, ::2]
    expected = ndi.binary_dilation(a, iterations=iterations, mask=mask, brute_force=True)
    out = to_engine(np.zeros(a.shape, bool, order="F"), engine)
    nd.binary_dilation(to_engine(a, engine), iterations=iterations, mask=to_engine(mask, engine), output=out)
    _same(out, expected)
    _same(nd.binary_erosion(to_engine(np.asfortranarray(a), engine), iterations=iterations),
          ndi.binary_erosion(a, iterations=iterations, brute_force=True))


def test_cycle_long_count(engine, rng):
    """A huge count of cycling passes ends at the state of its parity (scipy's passes, counted out for a
    few of them), in the time of a few passes."""
    s = np.array([[1, 0, 1], [0, 1, 0], [1, 0, 1]], bool)   # with origin (1, 0): not its centre
    for _ in range(20):   # random data that still cycles after 200 passes (most draws; some settle)
        a = rng.random((41, 53)) < 0.01
        mask = rng.random(a.shape) < 0.6
        ref = {k: ndi.binary_dilation(a, s, iterations=k, mask=mask, origin=(1, 0), brute_force=True)
               for k in (200, 201)}
        if not np.array_equal(ref[200], ref[201]):
            break
    assert not np.array_equal(ref[200], ref[201])
    x, m = to_engine(a, engine), to_engine(mask, engine)
    for big in (10**9, 10**9 + 1):
        _same(nd.binary_dilation(x, s, iterations=big, mask=m, origin=(1, 0)), ref[200 + big % 2])

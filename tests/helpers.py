"""Helpers shared by the tests: engine placement, random inputs, comparison at registry tolerance."""
from __future__ import annotations

import numpy as np
import pytest

import ndimg
from ndimg._registry import NDI_MODES, REGISTRY, SK_MODES

MODES = list(SK_MODES)              # the boundary modes scikit-image names (ndimage's first five)
NDIMAGE_MODES = list(NDI_MODES)     # every scipy.ndimage mode


def _cuda_ready():
    if not ndimg.built_with_cuda:
        return False
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


CUDA_READY = _cuda_ready()


def dask_tasks():
    """A Dask callback that lists the keys of the tasks run while it is active (a lazy call is built with
    none)."""
    from dask.callbacks import Callback

    class Tasks(Callback):
        def __init__(self):
            super().__init__()
            self.keys = []

        def _pretask(self, key, dsk, state):
            self.keys.append(key)

    return Tasks()


def cupy_or_skip():
    """CuPy, for a test that needs the CUDA engine; the test skips where there is none."""
    if not CUDA_READY:
        pytest.skip("no CUDA device")
    import cupy

    return cupy


def to_engine(x, engine):
    """A NumPy test input on the engine under test (CuPy for cuda), keeping its memory layout."""
    if engine == "cpu" or not isinstance(x, np.ndarray):
        return x
    import cupy

    if x.flags.c_contiguous:
        return cupy.asarray(x)
    if x.flags.f_contiguous:
        return cupy.asfortranarray(cupy.asarray(np.ascontiguousarray(x)))
    # a strided view: put its base on the GPU and take the same view there
    base = x
    while isinstance(base.base, np.ndarray):
        base = base.base
    g = cupy.asarray(np.ascontiguousarray(base))
    offset = (x.__array_interface__["data"][0] - base.__array_interface__["data"][0])
    return cupy.ndarray(x.shape, x.dtype, g.data + offset, strides=x.strides) if base.flags.c_contiguous \
        else cupy.asarray(x)


def to_host(y):
    if isinstance(y, (tuple, list)):
        return type(y)(to_host(v) for v in y)
    if isinstance(y, dict):
        return {k: to_host(v) for k, v in y.items()}
    if hasattr(y, "get") and not isinstance(y, np.ndarray):
        return y.get()
    return y


def random_image(rng, shape, dtype, layout="c"):
    """Random data over the dtype's useful range in layout 'c', 'f' or 'strided' (a non-contiguous view)."""
    dtype = np.dtype(dtype)
    big = tuple(2 * s + 1 for s in shape) if layout == "strided" else shape
    if dtype == bool:
        a = rng.random(big) > 0.5
    elif dtype.kind == "f":
        a = rng.standard_normal(big).astype(dtype)
    else:
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -1000), min(info.max, 1000)
        a = rng.integers(lo, hi, size=big, endpoint=True).astype(dtype)
    if layout == "strided":
        return a[tuple(slice(1, None, 2) for _ in shape)]
    if layout == "f":
        return np.asfortranarray(a)
    return a


def public_type(t):
    """The exception type a caller can name: NumPy raises private subclasses (_ArrayMemoryError,
    UFuncTypeError from numpy._core) of the public types (MemoryError, TypeError) it documents."""
    for c in t.__mro__:
        if not c.__name__.startswith("_") and not any(p.startswith("_") for p in c.__module__.split(".")):
            return c
    return t


def assert_raises_like(reference_call, our_call, expected=Exception, match=None):
    """reference_call() must raise `expected` (any exception by default) and our_call() the exception type
    the reference raised (or a subclass of it); both messages must match `match` where given."""
    with pytest.raises(expected, match=match) as ref:
        reference_call()
    with pytest.raises(public_type(ref.type), match=match):
        our_call()
    return ref


def assert_close(got, expected, entry_or_tol, equal_nan=True):
    """Compare with the registry's tolerance (an Entry, its qualname, or an (rtol, atol) pair)."""
    if isinstance(entry_or_tol, str):
        entry_or_tol = REGISTRY[entry_or_tol]
    rtol, atol = (entry_or_tol.rtol, entry_or_tol.atol) if hasattr(entry_or_tol, "rtol") else entry_or_tol
    got = to_host(got)
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_close(g, e, (rtol, atol), equal_nan)
        return
    expected = np.asarray(expected)
    got = np.asarray(got)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    if expected.dtype.kind in "biu":
        # integer results: exact, except one unit where a float sum lands on a .0 boundary
        diff = np.abs(got.astype(np.float64) - expected.astype(np.float64))
        assert diff.max(initial=0) <= (1 if expected.dtype.kind in "iu" and atol >= 1 else 0), diff.max()
    else:
        if expected.dtype in (np.float32, np.float16, np.complex64) and expected.size:
            # float32 (float16) sums carry rounding relative to the size of their terms, not of the result (a
            # derivative that cancels to ~0.06 from values ~8 is off by a few units of 8's last place);
            # complex64 has float32 parts
            scale = float(np.nanmax(np.abs(np.where(np.isfinite(expected), expected, 0)), initial=1.0))
            atol = max(atol, 4 * float(np.finfo(expected.dtype).eps) * scale)
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)


def _eigenvalue_ties(x, kw):
    """Where, at one of frangi's scales, an eigenvalue is within float32 rounding of 0 (1e-5 of the scale's
    largest magnitude), by a float64 computation: frangi's ratios of eigenvalues (the larger ones clipped to
    1e-10) are then any value from 0 to its structuredness factor."""
    from skimage.feature import hessian_matrix, hessian_matrix_eigvals

    tie = np.zeros(x.shape, bool)
    for sigma in kw.get("sigmas", range(1, 10, 2)):
        vals = hessian_matrix_eigvals(hessian_matrix(x.astype(np.float64), sigma, mode=kw.get("mode", "reflect"),
                                                     cval=kw.get("cval", 0), use_gaussian_derivatives=True))
        tie |= (np.abs(vals) <= 1e-5 * np.abs(vals).max()).any(axis=0)
    return tie


def assert_walker_labels(entry, got, expected, args, kw, gap=0.05, most=0.01):
    """random_walker's labels from an iterative solve on the GPU: equal to the reference's except at pixels whose
    two leading reference probabilities are within `gap`, and those are at most `most` of the pixels. Two
    solves that each stop within the tolerance may decide such near ties either way: scikit-image's own cg at
    tol=1e-5 differs from its exact 'bf' solve at up to 0.3% of the 7x9x11 cases' pixels, with gaps up to 0.021."""
    got, expected = to_host(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got.shape, got.dtype, expected.dtype)
    differ = got != expected
    if not differ.any():
        return
    assert differ.mean() <= most, f"{differ.sum()} of {differ.size} labels differ"
    prob = np.asarray(entry.load_reference()(*args, **{**kw, "return_full_prob": True}))
    top2 = np.sort(prob[:, differ], axis=0)[-2:]
    assert (top2[1] - top2[0]).max() < gap, f"labels differ where the probabilities are {top2[1] - top2[0]} apart"


def assert_close_ridge(name, got, expected, x, kw, entry_or_tol=None):
    """filters.frangi/hessian/sato/meijering: `got` against scikit-image's `expected` for input `x`.

    Where a result hangs on an eigenvalue within float32 rounding of 0 (frangi divides by
    sqrt(lambda2 * 1e-10) once the other eigenvalue is clipped), no float32 computation is accurate:
    scikit-image's own float32 result is off its float64 one there. Such elements may differ from it by 4
    times that error; every other element is held to the registry's tolerance."""
    import skimage.filters as sf

    got = to_host(got)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    if expected.dtype == np.float32 and expected.size:
        own_error = np.abs(getattr(sf, name)(x.astype(np.float64), **kw) - expected)
        got = np.where(np.abs(got.astype(np.float64) - expected) <= 4 * own_error, expected, got)
    if name == "meijering" and x.ndim > 1:
        # meijering keeps the normalized eigenvalue of largest magnitude, then clips negatives to 0: where the
        # two largest magnitudes of opposite sign are within float32 rounding, 0 and the positive one are both
        # right; such elements are left out
        from scipy import linalg
        from skimage.feature import hessian_matrix, hessian_matrix_eigvals

        x64 = x.astype(np.float64)
        if not kw.get("black_ridges", True):
            x64 = -x64
        alpha = kw.get("alpha") or 1 / (x.ndim + 1)
        mtx = linalg.circulant([1, *[alpha] * (x.ndim - 1)])
        tie = np.zeros(x.shape, bool)
        for sigma in kw.get("sigmas", range(1, 10, 2)):
            vals = np.tensordot(mtx, hessian_matrix_eigvals(hessian_matrix(
                x64, sigma, mode=kw.get("mode", "reflect"), cval=kw.get("cval", 0), use_gaussian_derivatives=True)), 1)
            top = np.sort(np.abs(vals), axis=0)
            mixed = (vals.max(axis=0) > 0) & (vals.min(axis=0) < 0)
            tie |= mixed & (top[-1] - top[-2] <= 1e-5 * np.maximum(top[-1], np.abs(vals).max()))
        got, expected = np.where(tie, 0, got), np.where(tie, 0, expected)
    if name in ("frangi", "hessian") and expected.dtype == np.float32:
        # frangi is 0 where a larger-magnitude eigenvalue is not positive (clipped to 1e-10, the blobness
        # factor underflows unless the smallest is ~0 too): where an eigenvalue is within float32 rounding of 0
        # no float32 value is better than another, so only the range is checked there
        tie = _eigenvalue_ties(x, kw)
        assert np.all((got[tie] >= 0) & (got[tie] <= 1))   # frangi's range (hessian's 1 for its 0)
        got, expected = np.where(tie, 0, got), np.where(tie, 0, expected)
    if name == "hessian":
        # hessian sets frangi values <= 0 to 1: where frangi is within rounding of 0 either outcome is right,
        # but it must be one of the two
        edge = sf.frangi(x, **{"gamma": 15, **kw}) <= 1e-6
        assert np.all((got[edge] == 1) | (np.abs(got[edge]) <= 1e-6 + REGISTRY["filters.hessian"].atol))
        got, expected = np.where(edge, 0, got), np.where(edge, 0, expected)
    assert_close(got, expected, entry_or_tol or f"filters.{name}")


def assert_close_own_error(entry, got, expected, engine, args, kw):
    """`got` against the reference's float32 result `expected` for a float16/float32 image `args[0]` (moments
    and the inertia tensor): scikit-image sums in float32 in NumPy einsum's order, whose rounding no other
    summation order repeats, and its error (against its own float64 computation) is relative to the raw sums it
    cancels, not to the result. Elements within 4 times that error of it count as equal; every other element
    is held to the registry's tolerance."""
    if isinstance(expected, np.ndarray):
        assert type(got) is array_type(engine), (type(got), engine)
    own = entry.load_reference()(np.asarray(args[0]).astype(np.float64), *args[1:], **kw)
    got = np.asarray([to_host(g) for g in got] if isinstance(got, list) else to_host(got))
    expected, own = np.asarray(expected), np.asarray(own, np.float64)
    near = np.abs(got.astype(np.float64) - expected) <= 4 * np.abs(own - expected)
    assert_close(np.where(near, expected, got).astype(got.dtype), expected, entry)


def threshold_atol(x, entry):
    """The absolute tolerance of a global threshold of `x`. scikit-image takes means of float32 images in
    float32 (NumPy's pairwise sums: up to about log2(n) units in the last place of the data), ndimg sums in
    double; a threshold lies within the data's range, so the two differ relative to the data's span, not to
    the threshold (which may be ~0)."""
    atol = entry.atol
    x = np.asarray(x)
    if x.dtype.kind == "f" and x.dtype.itemsize <= 4 and np.isfinite(x).any():
        finite = x[np.isfinite(x)].astype(np.float64)
        span = finite.max() - finite.min()
        atol = max(atol, np.log2(max(x.size, 2)) * float(np.finfo(np.float32).eps) * span)
    return atol


def array_type(engine):
    """The array type a function returns for input on `engine` (NumPy or CuPy)."""
    if engine == "cpu":
        return np.ndarray
    import cupy

    return cupy.ndarray


def check_result(entry, got, expected, engine="cpu", args=(), kw=None, tol=None, equal_nan=True, byteorder=True):
    """`got` (ndimg on `engine`) against `expected` (the reference on the host inputs `args`, `kw`): the same
    type out as in (NumPy/CuPy arrays, scipy/cupyx sparse matrices, tuples), values within `tol` ((rtol, atol)
    or "exact"), by default the registry's tolerance and comparison rule (entry.extra["compare"])."""
    if isinstance(entry, str):
        entry = REGISTRY[entry]
    rule = entry.extra.get("compare")
    if tol is None and engine != "cpu" and "cuda_tol" in entry.extra:   # a GPU-only tolerance, with its reason
        tol = entry.extra["cuda_tol"]
    if rule == "ridge" and tol is None:
        assert type(got) is array_type(engine), (type(got), engine)
        assert_close_ridge(entry.name, got, expected, args[0], kw or {}, entry)
        return
    if rule == "threshold" and tol is None and args:
        tol = (entry.rtol, threshold_atol(args[0], entry))
    if rule == "own_error" and tol is None and args and np.asarray(args[0]).dtype in (np.float16, np.float32):
        assert_close_own_error(entry, got, expected, engine, args, kw or {})
        return
    if rule == "walker" and engine != "cpu" and np.asarray(expected).dtype.kind in "iu" and args:
        assert type(got) is array_type(engine), (type(got), engine)
        assert_walker_labels(entry, got, expected, args, kw or {})
        return
    if rule == "mesh" and tol is None:
        from measure.test_contours_meshes_utils import assert_same_surface

        assert_same_surface(got, expected, kw or {})
        return
    if isinstance(expected, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(expected), (type(got), got)
        for g, x in zip(got, expected):
            check_result(entry, g, x, engine, args, kw, tol, equal_nan, byteorder)
        return
    if isinstance(expected, dict):   # value_indices: the same keys (types and order), values compared
        assert isinstance(got, dict) and [(type(k), k) for k in got] == [(type(k), k) for k in expected], got.keys()
        for k in expected:
            check_result(entry, got[k], expected[k], engine, args, kw, tol, equal_nan, byteorder)
        return
    if type(expected).__name__ == "RegionProperties":   # regionprops: each property the region has, or its error
        for name in expected:
            try:
                x = getattr(expected, name)
            except Exception as exc:
                with pytest.raises(type(exc)):
                    getattr(got, name)
                continue
            check_result(entry, getattr(got, name), x, engine, args, kw, tol, equal_nan, byteorder)
        return
    if expected is None or isinstance(expected, (slice, str)):   # find_objects' boxes; random_shapes' labels
        assert type(got) is type(expected) and got == expected, (got, expected)
        return
    if hasattr(expected, "toarray") and not isinstance(expected, np.ndarray):   # scipy.sparse
        assert hasattr(got, "toarray"), type(got)
        if engine == "cpu":
            assert type(got) is type(expected), (type(got), type(expected))
        got, expected = to_host(got.toarray()), expected.toarray()
    elif isinstance(expected, np.ndarray):
        assert type(got) is array_type(engine), (type(got), engine)
    got = to_host(got)
    if not isinstance(expected, np.ndarray):   # a scalar: compare as 0-d arrays
        got = np.asarray(got)[()] if hasattr(got, "dtype") else got
    got, expected = np.asarray(got), np.asarray(expected)
    if not byteorder:   # odd inputs: big-endian in, either byte order out
        got, expected = (a.astype(a.dtype.newbyteorder("=")) for a in (got, expected))
    if tol == "exact" or expected.dtype.names:   # structured arrays (hough_ellipse's records): field by field
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        np.testing.assert_array_equal(got, expected)
        return
    assert_close(got, expected, tol or entry, equal_nan=equal_nan)


def check_against_reference(engine, name, *args, _tol=None, **kw):
    """ndimg's `name` ("filters.sobel") on `engine` against its reference on the same host inputs (array
    arguments, and keyword arrays shaped like one of them such as masks, moved to the engine; parameter
    arrays such as `sigmas` stay on the host, as users pass them): see check_result. Returns ndimg's result."""
    entry = REGISTRY[name]
    expected = entry.load_reference()(*args, **kw)
    gargs, gkw = on_engine(engine, args, kw)
    got = entry.load()(*gargs, **gkw)
    check_result(entry, got, expected, engine, args, kw, _tol)
    return got


def on_engine(engine, args, kw, convert=None):
    """A call's positional arrays, and keyword arrays that are masks (by name, whatever their shape: a bad
    case's wrong-shaped mask too) or shaped like one of them, on the engine (or through `convert`, e.g. into
    another Array API library); parameter arrays (footprints, sigmas) stay on the host, as users pass them."""
    convert = convert or (lambda a: to_engine(a, engine))
    shapes = {a.shape for a in args if isinstance(a, np.ndarray)}
    image_like = lambda k, v: isinstance(v, np.ndarray) and (k == "mask" or v.shape in shapes)
    return ([convert(a) if isinstance(a, np.ndarray) else a for a in args],
            {k: convert(v) if image_like(k, v) else v for k, v in kw.items()})


def serpentine(n):
    """A corridor winding through an n x n image (right along even rows, down at an end, back left), its walls
    0, its floor descending from 1 to 0.5 along the path (each bottleneck matters), so that a flood along it crosses
    every chunk or tile border of the image n / 2 times: the mask and the corridor's start."""
    mask = np.zeros((n, n))
    path = []
    for r in range(0, n, 2):
        cols = range(1, n - 1) if r % 4 == 0 else range(n - 2, 0, -1)
        path += [(r, c) for c in cols]
        if r + 1 < n:
            path.append((r + 1, n - 2 if r % 4 == 0 else 1))
    path = np.array(path)
    mask[tuple(path.T)] = np.linspace(1, 0.5, len(path))
    return mask, tuple(path[0])


def two_label_seeds(shape, seed=0):
    """Random walker seeds: about 3% of the pixels labelled 1 and 3% of the rest 2."""
    rng = np.random.default_rng(seed)
    labels = np.zeros(shape, np.int32)
    labels[rng.random(shape) < 0.03] = 1
    labels[(rng.random(shape) < 0.03) & (labels == 0)] = 2
    return labels


def sparse_seed(rng, mask, method, density=0.01):
    """A few seeds at the mask's values, the rest at its minimum (dilation) or maximum (erosion)."""
    far = mask.min() if method == "dilation" else mask.max()
    return np.where(rng.random(mask.shape) < density, mask, far).astype(mask.dtype)


# ---- the max-tree tests (tests/test_max_tree_tiles.py on the host, tests/morphology/test_max_tree_cuda.py) ----
@pytest.fixture
def tile_rows(request, monkeypatch):
    """Tiles of `request.param` rows forced through the private _TILE_ROWS knob (0: the automatic choice)."""
    from ndimg.morphology import _max_tree

    monkeypatch.setattr(_max_tree, "_TILE_ROWS", request.param)
    return request.param


def max_tree_images(shape, seed):
    """Images whose trees are hard to build in tiles."""
    rng = np.random.default_rng(seed)
    yield rng.integers(0, 3, shape).astype(np.uint8)              # many ties, plateaus everywhere
    blocks = np.kron(rng.integers(0, 4, tuple(-(-s // 4) for s in shape)), np.ones((4,) * len(shape)))
    yield blocks[tuple(slice(0, s) for s in shape)].astype(np.int16) - 2   # plateaus across tile borders
    yield np.round(rng.normal(size=shape), 1).astype(np.float32)   # signed floats with ties, -0.0 and 0.0
    yield rng.integers(0, 2, shape).astype(bool)


def gray_test_image(name, dtype, astronaut, camera):
    """A grey feature-test image: scikit-image's astronaut (to grey) or camera (over 255) cropped to the
    slices `astronaut` or `camera`, in `dtype`; "uint8" rounds the [0, 1] values times 255."""
    from skimage import data
    from skimage.color import rgb2gray

    image = rgb2gray(data.astronaut()[astronaut]) if name == "astronaut" else data.camera()[camera] / 255.0
    if dtype == "uint8":
        return np.round(image * 255).astype(np.uint8)
    return image.astype(dtype)


def threads_fixture(*counts):
    """A `threads` fixture: each test once per thread count in `counts`, the pool's size restored after."""
    @pytest.fixture(params=counts, ids=lambda t: f"{t}threads")
    def threads(request):
        before = ndimg.get_num_threads()
        ndimg.set_num_threads(request.param)
        yield request.param
        ndimg.set_num_threads(before)

    return threads

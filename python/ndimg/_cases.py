"""Inputs for the registry's cases, shared by the generated tests and the benchmarks.

An entry's ``inputs`` names its positional array arguments by kind; ``make_inputs`` makes them for a shape
(a name of the benchmark grid ``SHAPES`` or a tuple), a dtype and a layout. Test-only code: ndimg itself
never imports this module.
"""
from __future__ import annotations

import numpy as np

# The benchmark grid named by the registry's bench cases: (shape, dtype).
SHAPES = {
    "2d_f32": ((3840, 2160), "float32"),
    "2d_rgb_u8": ((3840, 2160, 3), "uint8"),
    "2d_u8": ((3840, 2160), "uint8"),   # issue 29: filters.rank on a 4K grey image
    "3d_f32": ((192, 192, 192), "float32"),
    "3d_u8_256": ((256, 256, 256), "uint8"),
    "2d_small_f32": ((256, 256), "float32"),   # quadratic-time calls (distance_transform_bf)
    "3d_f32_256": ((256, 256, 256), "float32"),
    "none": ((), None),    # generators (inputs=("none",)): no array argument
}

# Small odd shapes for tests, by dimensionality (odd sizes catch transposed or off-by-one indexing).
TEST_SHAPES = {1: (29,), 2: (17, 23), 3: (7, 9, 11)}
TEST_SHAPES[4] = (3, 5, 4, 6)   # issue 25: splines and interpolation test 4-D arrays too

LAYOUTS = ("c", "f", "strided")


def _layout(make, shape, layout):
    """make(shape) in layout 'c', 'f' or 'strided' (every other element of a larger array)."""
    if layout == "strided":
        return make(tuple(2 * s + 1 for s in shape))[tuple(slice(1, None, 2) for _ in shape)]
    a = np.asarray(make(shape))  # NumPy gives scalars, not 0-d arrays, for shape ()
    return np.asfortranarray(a) if layout == "f" else a


def _values(rng, shape, dtype, signed):
    dtype = np.dtype(dtype)
    if dtype == bool:
        return rng.random(shape) > 0.5
    if dtype.kind == "f":
        a = rng.standard_normal(shape) if signed else rng.random(shape)
        return a.astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -1000), min(info.max, 1000)
    return rng.integers(lo, hi, size=shape, endpoint=True).astype(dtype)


def _like(prev, rng, flip):
    """A second image near `prev`: noise added (integers clipped to their range), bools flipped."""
    if prev.dtype == bool:
        return prev ^ (rng.random(prev.shape) < flip)
    if prev.dtype.kind in "fc":
        span = float(np.ptp(prev.real)) if prev.size else 1.0
        return (prev + (0.1 * span or 0.1) * rng.standard_normal(prev.shape)).astype(prev.dtype)
    info = np.iinfo(prev.dtype)
    step = max(1, int((float(prev.max(initial=0)) - float(prev.min(initial=0))) // 10))
    noise = rng.integers(-step, step, size=prev.shape, endpoint=True)
    return np.clip(prev.astype(np.int64) + noise, info.min, info.max).astype(prev.dtype)


def _labels(rng, shape, dtype, n):
    """Labels 0..n-1 in blocks (regions, not salt): a coarse random grid repeated 3 times per axis."""
    coarse = rng.integers(0, n, size=tuple(-(-s // 3) for s in shape))
    for ax in range(len(shape)):
        coarse = np.repeat(coarse, 3, axis=ax)
    return coarse[tuple(slice(0, s) for s in shape)].astype(dtype)


def _bimodal(rng, shape, dtype):
    """Two well separated modes over the dtype's range (threshold_minimum needs two histogram peaks)."""
    dtype = np.dtype(dtype)
    a = np.where(rng.random(shape) < 0.4, rng.normal(0.25, 0.06, shape), rng.normal(0.7, 0.08, shape))
    a = np.clip(a, 0, 1)
    if dtype == bool:
        return a > 0.5
    if dtype.kind == "f":
        return a.astype(dtype)
    info = np.iinfo(dtype)
    hi = min(info.max, 1000)
    return (a * hi).astype(dtype)


def _kernel(rng, ndim, size):
    return np.asarray(rng.standard_normal((size,) * ndim))


def _sparse_kernel(rng, ndim, size):
    k = np.asarray(rng.standard_normal((size,) * ndim) * (rng.random((size,) * ndim) > 0.5))
    k.flat[-1] = 1.0   # never all zero
    k.flat[0] = 0.0    # scikit-image multiplies by the first corner even when it is zero (0 * nan is nan)
    return k


def _displaced_grid(rng, shape, dtype):
    """Coordinates for map_coordinates, (ndim,) + shape: the identity grid stretched by 10% about its centre
    (so the edges sample outside the input, where the boundary modes act) plus a smooth random displacement
    of up to about 2 elements (a few random low-frequency waves per axis)."""
    ndim = len(shape)
    grid = np.indices(shape, dtype=np.float64)
    out = np.empty((ndim,) + tuple(shape), dtype=dtype or np.float64)
    for ax in range(ndim):
        centre = (shape[ax] - 1) / 2
        c = centre + 1.1 * (grid[ax] - centre)
        for _ in range(2):
            phase = rng.uniform(0, 2 * np.pi)
            freq = rng.uniform(0.5, 2.0, ndim) * 2 * np.pi / np.maximum(np.asarray(shape, dtype=np.float64), 1)
            c += rng.uniform(0.5, 1.0) * np.sin(np.tensordot(freq, grid, axes=1) + phase)
        out[ax] = c
    return out


# kind -> maker(rng, shape, dtype, layout, prev inputs, arg) -> array. "arg" is the part after ':' ("weights:7").
KINDS = {
    "image": lambda rng, shape, dtype, layout, prev, arg: _layout(
        lambda s: _values(rng, s, dtype, False), shape, layout),
    "signed": lambda rng, shape, dtype, layout, prev, arg: _layout(
        lambda s: _values(rng, s, dtype, True), shape, layout),
    # the previous input with noise: image_test beside image_true
    "noisy": lambda rng, shape, dtype, layout, prev, arg: _layout(
        lambda s: _like(np.ascontiguousarray(prev[-1]), rng, 0.1) if s == prev[-1].shape
        else _values(rng, s, dtype, False), shape, layout),
    "bimodal": lambda rng, shape, dtype, layout, prev, arg: _layout(
        lambda s: _bimodal(rng, s, dtype), shape, layout),
    "labels": lambda rng, shape, dtype, layout, prev, arg: _layout(
        lambda s: _labels(rng, s, dtype, int(arg or 6)), shape, layout),
    # a second segmentation: other labels in other blocks
    "labels2": lambda rng, shape, dtype, layout, prev, arg: _layout(
        lambda s: _labels(rng, s, dtype, int(arg or 4)), shape, layout),
    # labels 0..n-1 in int32 whatever the dtype under test (benchmarks of many labels beside a float image)
    "int_labels": lambda rng, shape, dtype, layout, prev, arg: _layout(
        lambda s: _labels(rng, s, np.int32, int(arg or 6)), shape, layout),
    # watershed markers: int32, mostly 0, a few objects (1..5) and background markers (-1, -2)
    "markers": lambda rng, shape, dtype, layout, prev, arg: _layout(
        lambda s: np.where(rng.random(s) < float(arg or 0.05), rng.integers(-2, 6, size=s), 0).astype(np.int32),
        shape, layout),
    # sparse masks in the input dtype (nonzero = set)
    "mask": lambda rng, shape, dtype, layout, prev, arg: _layout(
        lambda s: (rng.random(s) < float(arg or 0.2)).astype(dtype), shape, layout),
    "mask2": lambda rng, shape, dtype, layout, prev, arg: _layout(
        lambda s: (rng.random(s) < float(arg or 0.1)).astype(dtype), shape, layout),
    # float64 kernels over all axes / one axis (size 3 by default)
    "weights": lambda rng, shape, dtype, layout, prev, arg: _kernel(rng, len(shape), int(arg or 3)),
    "weights1d": lambda rng, shape, dtype, layout, prev, arg: _kernel(rng, 1, int(arg or 3)),
    "sparse_kernel": lambda rng, shape, dtype, layout, prev, arg: _sparse_kernel(rng, len(shape), int(arg or 3)),
    # map_coordinates' coordinates over the input's shape: float64, or the dtype named ("coords:float32")
    "coords": lambda rng, shape, dtype, layout, prev, arg: _displaced_grid(rng, shape, arg or None),
    # (N, D) float64 points, one per pixel of the shape, uniform over its extent (transform coordinates)
    "pixel_points": lambda rng, shape, dtype, layout, prev, arg: rng.random((int(np.prod(shape)), len(shape))) * max(shape),
}

# kinds that are images (take the shape, dtype and layout under test); the others are parameters
IMAGE_KINDS = ("image", "signed", "noisy", "bimodal", "labels", "labels2", "int_labels", "markers", "mask", "mask2")


def make_inputs(entry, shape, dtype=None, rng=None, layout="c", kinds=None):
    """The positional array inputs of `entry` (a registry Entry) as a tuple.

    shape: a name of SHAPES (its dtype is the default) or a tuple; dtype: of the image inputs; rng: a
    NumPy Generator (seed 0 if None); layout: 'c', 'f' or 'strided'; kinds: instead of entry.inputs.
    """
    if isinstance(shape, str):
        shape, default = SHAPES[shape]
        dtype = dtype or default
    rng = np.random.default_rng(0) if rng is None else rng
    out = []
    for kind in kinds if kinds is not None else entry.inputs:
        name, _, arg = kind.partition(":")
        if name == "none":
            continue
        out.append(KINDS[name](rng, tuple(shape), dtype, layout, out, arg))
    return tuple(out)


def split_bench(kwargs):
    """A bench case's kwargs split into (call kwargs, settings): settings are the underscored keys
    (``_inputs``: input kinds instead of the entry's; ``_dtype``: instead of the shape's; ``_method``: a
    class's method to time, see bench_callable)."""
    call = {k: v for k, v in kwargs.items() if not k.startswith("_")}
    return call, {k[1:]: v for k, v in kwargs.items() if k.startswith("_")}


def bench_callable(fn, kwargs):
    """What a bench case times: `fn` itself, or for a class case with ``_method`` the instance made from the
    call kwargs, that method called with the inputs (``ORB(n_keypoints=...).detect_and_extract(image)``)."""
    method = split_bench(kwargs)[1].get("method")
    if method is None:
        return fn
    return lambda *inputs, **kw: getattr(fn(**kw), method)(*inputs)


def bench_inputs(entry, shape_name, kwargs, rng=None):
    """(positional inputs, call kwargs) of one bench case (shape_name, kwargs) of `entry`."""
    call, settings = split_bench(kwargs)
    return make_inputs(entry, shape_name, settings.get("dtype"), rng, kinds=settings.get("inputs")), call


# Impulse responses for the LPI filters' cases. They get coordinate arrays of the input's engine; NumPy
# ufuncs work on both.
def gaussian_response(r, c, sigma=1.0):
    return np.exp(-(r**2 + c**2) / (2 * sigma**2)) / (2 * np.pi * sigma**2)


def skewed_response(r, c):
    """Not symmetric, so that a flipped or shifted kernel shows."""
    return np.exp(-((r - 0.7) ** 2 / 3 + (c + 0.4) ** 2)) * (1 + 0.2 * r)


def chirped_response(r, c):
    """Complex taps: the full-spectrum path."""
    return gaussian_response(r, c) * np.exp(0.5j * r)


def nan_weights(args, kwargs):
    """A case's _prep: the kernel (second input) all NaN."""
    return (args[0], np.full_like(args[1], np.nan)) + tuple(args[2:]), kwargs


def shrink_second(args, kwargs):
    """A case's _prep: the second input one row short (inputs of different shapes)."""
    return (args[0], args[1][:-1]) + tuple(args[2:]), kwargs


# ---- issue 26: contours, meshes and measure utilities ----
def _smooth(rng, shape, dtype, period):
    """A smooth field (products of plane waves of about `period` pixels, random phases) in the dtype: level
    sets that are curves and surfaces, as in real images, not the salt of noise (find_contours,
    marching_cubes)."""
    dtype = np.dtype(dtype or np.float64)
    a = np.zeros(shape)
    for p in (period, period * 1.7):
        term = np.ones(shape)
        for ax, n in enumerate(shape):
            v = np.sin(2 * np.pi * np.arange(n) / (p * rng.uniform(0.8, 1.2)) + rng.uniform(0, 2 * np.pi))
            term = term * v.reshape((-1,) + (1,) * (len(shape) - ax - 1))
        a += term
    a = (a + 2) / 4   # in [0, 1]
    if dtype == bool:
        return a > 0.5
    if dtype.kind in "iu":
        return (a * min(np.iinfo(dtype).max, 1000)).astype(dtype)
    return a.astype(dtype)


def _as_coords(pts, dtype):
    """Float coordinates in a float dtype, rounded in an integer one (float64 for bool)."""
    dtype = np.dtype(dtype or np.float64)
    if dtype.kind in "iu":
        return np.round(pts).astype(dtype)
    return pts.astype(dtype if dtype.kind == "f" else np.float64)


KINDS.update({
    "smooth": lambda rng, shape, dtype, layout, prev, arg: _layout(
        lambda s: _smooth(rng, s, dtype, float(arg or 8)), shape, layout),
    # (60, 2) coordinates in [-5, 35)
    "points": lambda rng, shape, dtype, layout, prev, arg: _as_coords(rng.uniform(-5, 35, (60, 2)), dtype),
})
IMAGE_KINDS += ("smooth",)
# ---- end contours, meshes and measure utilities ----


# ---- issue 26: objects, reconstruction and extrema ----
def _bounded(prev, rng, sign):
    """`prev` moved away by a non-negative amount in direction `sign` (+1 up, -1 down), within its dtype:
    a reconstruction mask over a seed (or a seed over a mask for erosion). Most elements move."""
    if prev.dtype == bool:
        flip = rng.random(prev.shape) < 0.5
        return prev | flip if sign > 0 else prev & ~flip
    if prev.dtype.kind == "f":
        span = float(np.ptp(prev)) if prev.size else 1.0
        return (prev + sign * (0.2 * span or 0.2) * rng.random(prev.shape)).astype(prev.dtype)
    info = np.iinfo(prev.dtype)
    step = max(1, int((float(prev.max(initial=0)) - float(prev.min(initial=0))) // 5))
    moved = prev.astype(np.int64) + sign * rng.integers(0, step, size=prev.shape, endpoint=True)
    return np.clip(moved, info.min, info.max).astype(prev.dtype)


def _around(prev, rng, shape, sign):
    """_bounded of the previous input, laid out like it: a strided layout's view (every other element of a
    (2 s + 1)-shaped array) of the result is _bounded of the previous input's view."""
    moved = _bounded(np.ascontiguousarray(prev), rng, sign)
    if shape == prev.shape:
        return moved
    out = np.zeros(shape, prev.dtype)
    out[tuple(slice(1, None, 2) for _ in shape)] = moved
    return out


KINDS.update({
    # the previous input raised (lowered) elementwise: reconstruction's mask over its seed (under it)
    "above": lambda rng, shape, dtype, layout, prev, arg: _layout(
        lambda s: _around(prev[-1], rng, s, 1), shape, layout),
    "below": lambda rng, shape, dtype, layout, prev, arg: _layout(
        lambda s: _around(prev[-1], rng, s, -1), shape, layout),
})
IMAGE_KINDS += ("above", "below")
# ---- end objects, reconstruction and extrema ----
# ---- issue 26: regionprops ----
def _blobs(rng, shape, n):
    """Labels 1..n (int32) of n round blobs about random seeds (each pixel within a radius of its nearest
    seed), 0 between them: regionprops' test and benchmark label images."""
    from scipy import ndimage as ndi   # test inputs only

    n = max(1, min(n, int(np.prod(shape)) // 4 or 1))
    seeds = np.zeros(shape, np.int32)
    seeds[tuple(rng.integers(0, s, n) for s in shape)] = np.arange(1, n + 1, dtype=np.int32)
    dist, idx = ndi.distance_transform_edt(seeds == 0, return_indices=True)
    radius = 0.45 * (np.prod(shape) / n) ** (1 / len(shape))
    return np.where(dist < radius, seeds[tuple(idx)], 0).astype(np.int32)


KINDS.update({
    # an intensity image beside labels: float64 in [0, 1) whatever the labels' dtype, one or 3 channels
    "intensity": lambda rng, shape, dtype, layout, prev, arg: _layout(lambda s: rng.random(s), shape, layout),
    "intensity3": lambda rng, shape, dtype, layout, prev, arg: _layout(lambda s: rng.random(s + (3,)), shape, layout),
    # label images whatever the dtype under test (int32; not image kinds: the odd-input tests alter the
    # intensity image beside them): blobs:n, n round labelled regions; region_labels:n, labels 0..n-1 in blocks
    "blobs": lambda rng, shape, dtype, layout, prev, arg: _layout(
        lambda s: _blobs(rng, s, int(arg or 6)), shape, layout),
    "region_labels": lambda rng, shape, dtype, layout, prev, arg: _layout(
        lambda s: _labels(rng, s, np.int32, int(arg or 6)), shape, layout),
})
KINDS["coords_points"] = lambda rng, shape, dtype, layout, prev, arg: (
    # (n, 2) point coordinates (moments_coords) in the dtype under test; a 0-d value for a 0-d shape
    rng.uniform(-5, 35, (3 * shape[0], 2) if shape else ()).astype(dtype or np.float64))
IMAGE_KINDS += ("intensity", "intensity3", "coords_points")
# ---- end regionprops ----


# ---- issue 27: color ----
def _lab(rng, shape, dtype):
    """CIE-LAB colours in a float dtype: L in [0, 100), a and b in [-100, 100) along the channel axis (the
    last axis of 3, else the first); integer and bool dtypes get the "image" kind's values."""
    dtype = np.dtype(dtype or np.float64)
    if dtype.kind != "f" or not shape:
        return _values(rng, shape, dtype, False)
    axis = len(shape) - 1 if shape[-1] == 3 else (list(shape).index(3) if 3 in shape else None)
    a = rng.random(shape)
    if axis is None:
        return (100 * a).astype(dtype)
    scale = np.moveaxis(np.array([100.0, 200.0, 200.0]).reshape((3,) + (1,) * (len(shape) - 1)), 0, axis)
    offset = np.moveaxis(np.array([0.0, -100.0, -100.0]).reshape((3,) + (1,) * (len(shape) - 1)), 0, axis)
    return (a * scale + offset).astype(dtype)


KINDS.update({
    "lab": lambda rng, shape, dtype, layout, prev, arg: _layout(lambda s: _lab(rng, s, dtype), shape, layout),
})
KINDS["rgba"] = lambda rng, shape, dtype, layout, prev, arg: _layout(   # the shape plus 4 channels
    lambda s: _values(rng, s + (4,), dtype, False), shape, layout)
IMAGE_KINDS += ("lab", "rgba")


def second_one_colour(args, kwargs):
    """A case's _prep: the second input one colour (its first pixel): a difference against one colour."""
    return (args[0], np.ascontiguousarray(args[1].reshape(-1, args[1].shape[-1])[0])) + tuple(args[2:]), kwargs
# ---- end color ----


# ---- issue 27: util ----
# a NumPy function named by the kind's argument ("callable:sqrt"): apply_parallel's `function` before its image
KINDS["callable"] = lambda rng, shape, dtype, layout, prev, arg: getattr(np, arg or "sqrt")
# ---- end util ----


# ---- issue 28: registration ----
# the previous input translated (periodically) by 2 rows and -3 columns: phase_cross_correlation's pair (in a
# strided layout, the view is the translated previous view, as _around lays it out)
def _rolled(prev, shape):
    moved = np.roll(np.ascontiguousarray(prev), (2, -3)[:prev.ndim], axis=tuple(range(min(2, prev.ndim))))
    if shape == prev.shape:
        return moved
    out = np.zeros(shape, prev.dtype)
    out[tuple(slice(1, None, 2) for _ in shape)] = moved
    return out


KINDS["shifted"] = lambda rng, shape, dtype, layout, prev, arg: _layout(lambda s: _rolled(prev[-1], s), shape, layout)
IMAGE_KINDS += ("shifted",)


# the same translation, but what wraps around is shuffled: only one of the shifts equal modulo the shape (and
# one displacement of a masked correlation) matches, so the answer does not hang on rounding among exact ties
def _translated(rng, prev, shape):
    moved = _rolled(prev, prev.shape)
    bands = [(slice(0, 2),), (slice(None), slice(-3, None))][:prev.ndim]
    for band in bands:
        moved[band] = rng.permutation(moved[band].ravel()).reshape(moved[band].shape)
    if shape == prev.shape:
        return moved
    out = np.zeros(shape, prev.dtype)
    out[tuple(slice(1, None, 2) for _ in shape)] = moved
    return out


KINDS["translated"] = lambda rng, shape, dtype, layout, prev, arg: _layout(lambda s: _translated(rng, prev[-1], s),
                                                                         shape, layout)
IMAGE_KINDS += ("translated",)
SHAPES["2d_1k_f32"] = ((1024, 1024), "float32")   # iterative optical flow: a 4K frame takes minutes
# ---- end registration ----


# ---- issue 28: restoration deconvolution and variational ----
# a point-spread function: positive taps summing to 1, of the image's dimensionality ("psf:4": 4 per axis)
KINDS["psf"] = lambda rng, shape, dtype, layout, prev, arg: (
    lambda k: k / k.sum())(rng.random((int(arg or 3),) * len(shape)) + 0.1)


def psf_of_fewer_dims(args, kwargs):
    """A case's _prep: the psf (second input) one dimension short."""
    return (args[0], np.ascontiguousarray(args[1][0])) + tuple(args[2:]), kwargs


def mask_without_channels(args, kwargs):
    """A case's _prep: the mask (second input) without the image's last axis (its channels)."""
    return (args[0], np.ascontiguousarray(args[1][..., 0])) + tuple(args[2:]), kwargs


def _wrapped_phase(rng, shape, dtype):
    """A phase of several periods (a quadratic bowl, steeper along later axes, plus a little noise) wrapped
    into [-pi, pi]."""
    grids = np.meshgrid(*[np.linspace(0, 1, n) for n in shape], indexing="ij")
    phase = sum(7 * (k + 3) * g ** 2 for k, g in enumerate(grids)) + 0.2 * rng.standard_normal(shape)
    return np.angle(np.exp(1j * phase)).astype(dtype)


KINDS["wrapped_phase"] = lambda rng, shape, dtype, layout, prev, arg: _layout(
    lambda s: _wrapped_phase(rng, s, dtype), shape, layout)
IMAGE_KINDS += ("wrapped_phase",)
# ---- end restoration deconvolution and variational ----


# ---- issue 28: segmentation active contours and random walker ----
# random walker seeds: int32, mostly 0 (unlabeled), a few seeds of labels 1..n ("seeds:3"), every label present
KINDS["seeds"] = lambda rng, shape, dtype, layout, prev, arg: _layout(
    lambda s: np.where(rng.random(s) < 0.08, 1 + np.arange(int(np.prod(s))).reshape(s) % int(arg or 2), 0).astype(np.int32),
    shape, layout)
IMAGE_KINDS += ("seeds",)
# an active contour: (n, 2) float64 row, column points of a circle inside the image's first two axes ("snake:40")
KINDS["snake"] = lambda rng, shape, dtype, layout, prev, arg: (
    lambda t, r, c: np.stack([r / 2 + r / 3 * np.sin(t), c / 2 + c / 3 * np.cos(t)], axis=1))(
    np.linspace(0, 2 * np.pi, int(arg or 24)), *(tuple(shape) + (1, 1))[:2])
# ---- end segmentation active contours and random walker ----


# ---- issue 29: feature texture and corners (helper feat-b) ----
def _corner_grid(shape, margin):
    """(n, 2) intp corners on a coarse grid at least `margin` from the border of a 2-D `shape` (none when it has
    no such pixels or is not 2-D)."""
    if len(shape) != 2:
        return np.zeros((0, 2), np.intp)
    rows, cols = np.arange(margin, shape[0] - margin, 4), np.arange(margin, shape[1] - margin, 5)
    return np.array([(r, c) for r in rows for c in cols], dtype=np.intp).reshape(-1, 2)


# corners of the first input ("corners:3": 3 pixels from its border), as corner_orientations/corner_subpix take
KINDS["corners"] = lambda rng, shape, dtype, layout, prev, arg: _corner_grid(np.shape(prev[0]), int(arg or 3))
# a stack of gray-level co-occurrence matrices (levels, levels, 2 distances, 3 angles), "glcm:8" levels, in the
# dtype under test (uint32 where none), the first distance's all zero (graycoprops keeps their sums at 1)
KINDS["glcm"] = lambda rng, shape, dtype, layout, prev, arg: (
    lambda p: np.concatenate([p[..., :1, :] * 0, p[..., 1:, :]], axis=2))(
    rng.integers(0, 20, (int(arg or 8), int(arg or 8), 2, 3)).astype(dtype or np.uint32))
IMAGE_KINDS += ("glcm",)   # graycoprops' array: the odd-input and Dask tests vary it as an image


def c_order_first(args, kwargs):
    """A case's _prep: the first input C-contiguous (scikit-image's C-contiguous memoryviews refuse others)."""
    return (np.ascontiguousarray(args[0]),) + tuple(args[1:]), kwargs
# ---- end feature texture and corners ----

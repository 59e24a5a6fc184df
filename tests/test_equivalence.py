"""CPU engine vs CUDA engine, one primitive family at a time, at the primitive level (``ndimg._core`` and
``ndimg._prim``): the same call on the same values, shapes and memory layouts gives the same result on both
engines. The tests named ``test_cuda_*`` need a GPU (skipped elsewhere, never counted as passing); the
``test_cpu_threads_*`` ones run everywhere and hold the CPU engine to the same bits at every thread count.

Results are compared exactly (``same``: equal values, NaN at the same places) where both engines do the same
arithmetic in the same order: integer and bool data, selections and extremes, counts, labels, double
separable passes (``add_mul`` is an explicit uncontracted multiply-add on CUDA), power-of-two weights
(every product exact, so FMA contraction changes nothing). Elsewhere the CUDA schedule is a declared
different arithmetic, and the tolerance is the rounding bound of that difference, derived below per family:
float32 fast passes (float instead of double, FMA), CUDA's running-sum-free means, sums merged in another
order, nvcc's FMA contraction (n-D correlate, local threshold, ridge eigenvalues) and CUDA's exp.

tests/ndimage/test_equivalence.py compares the public ndimage filters on 2-D C-ordered data; this module walks
the kernel paths the .cu files choose by size, layout, tap count and dtype, and the other families.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.ndimage as ndi

import ndimg
from ndimg import _core
from ndimg._engine import stream_ptr, xp_of
from ndimg._prim import histogram, label, reduce, ridges, threshold
from ndimg.filters._stencil_edges import _magnitude
from helpers import CUDA_READY

cuda = pytest.mark.skipif(not CUDA_READY, reason="no CUDA device")

MODES = {m: getattr(_core.Mode, m) for m in ("reflect", "constant", "nearest", "mirror", "wrap")}
MODE_LIST = list(MODES)
U32, U64 = 2.0 ** -24, 2.0 ** -53  # unit roundoff of float32 and float64
INTS = ["bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64"]
ALL = INTS + ["float32", "float64"]


# ---- placing the same data on both engines ----

def _cupy():
    import cupy

    return cupy


def to_gpu(x):
    """`x` on the GPU with its shape, strides and byte offset from its (C-contiguous) base kept, so Fortran-
    ordered, strided, misaligned and reversed views stay so."""
    cp = _cupy()
    base = x
    while isinstance(base.base, np.ndarray):
        base = base.base
    assert base.flags.c_contiguous
    g = cp.asarray(base.reshape(-1).view(np.uint8))
    offset = x.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return cp.ndarray(x.shape, x.dtype, memptr=g.data + offset, strides=x.strides)


def host(y):
    if isinstance(y, (tuple, list)):
        return type(y)(host(v) for v in y)
    return y.get() if hasattr(y, "get") and not isinstance(y, np.ndarray) else y


def both(fn, *args):
    """fn(*args) on the CPU engine (the NumPy arrays among args) and on the CUDA engine (their GPU twins, made
    before the CPU call, which may write into them); both results on the host."""
    gpu_args = [to_gpu(a) if isinstance(a, np.ndarray) else a for a in args]
    cpu = fn(*args)
    return cpu, host(fn(*gpu_args))


def alloc(xp, shape, dtype, layout="c"):
    """A zeroed array of `xp` in `layout`: c, f (Fortran order), strided (every other element of a larger
    array), offset (C order one element past an aligned address) or reversed (negative strides)."""
    shape = tuple(shape)
    if layout == "c":
        return xp.zeros(shape, dtype)
    if layout == "f":
        return xp.zeros(shape[::-1], dtype).T
    if layout == "strided":
        return xp.zeros(tuple(2 * s + 1 for s in shape), dtype)[tuple(slice(1, None, 2) for _ in shape)]
    if layout == "offset":
        return xp.zeros(math.prod(shape) + 1, dtype)[1:].reshape(shape)
    if layout == "reversed":
        return xp.zeros(shape, dtype)[tuple(slice(None, None, -1) for _ in shape)]
    raise ValueError(layout)


def values(rng, shape, dtype, nan=0.0):
    """Random values over the dtype's useful range (integers within +-1000, floats standard normal with a
    fraction `nan` of NaN)."""
    dtype = np.dtype(dtype)
    if dtype == bool:
        return rng.random(shape) < 0.5
    if dtype.kind == "f":
        a = rng.standard_normal(shape).astype(dtype)
        if nan:
            a[rng.random(shape) < nan] = np.nan
        return a
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape, endpoint=True).astype(dtype)


def image(rng, shape, dtype, layout="c", nan=0.0):
    a = alloc(np, shape, dtype, layout)
    a[...] = values(rng, shape, dtype, nan)
    return a


# ---- comparisons ----

def same(cpu, gpu):
    """Exactly equal: dtype, shape, values, NaN at the same places."""
    cpu, gpu = np.asarray(cpu), np.asarray(gpu)
    assert cpu.dtype == gpu.dtype and cpu.shape == gpu.shape, (cpu.dtype, gpu.dtype, cpu.shape, gpu.shape)
    np.testing.assert_array_equal(gpu, cpu)


def close(cpu, gpu, atol):
    """Equal dtype and shape, NaN and infinities at the same places, finite values within `atol` (a scalar or
    one bound per element)."""
    cpu, gpu = np.asarray(cpu), np.asarray(gpu)
    assert cpu.dtype == gpu.dtype and cpu.shape == gpu.shape, (cpu.dtype, gpu.dtype, cpu.shape, gpu.shape)
    c, g = cpu.astype(np.float64), gpu.astype(np.float64)
    finite = np.isfinite(c)
    np.testing.assert_array_equal(np.where(finite, 0.0, g), np.where(finite, 0.0, c))
    err = np.abs(g - c)[finite]
    bound = np.broadcast_to(np.asarray(atol, dtype=np.float64), c.shape)[finite]
    bad = ~(err <= bound)
    assert not bad.any(), f"{bad.sum()} of {bad.size} beyond the bound; worst {err[bad].max()!r} > {bound[bad].min()!r}"


# ---- separable passes (cpp/src/ndimage/correlate1d_cuda.cu) ----

def gauss(t):
    r = t // 2
    w = np.exp(-0.5 * (np.arange(-r, r + 1) / max(r / 3, 0.5)) ** 2)
    return tuple((w / w.sum()).tolist())


def anti(t):
    w = np.arange(-(t // 2), t // 2 + 1, dtype=np.float64)
    return tuple((w / np.abs(w).sum()).tolist())


def skew(t):
    w = np.linspace(-1.0, 2.0, t) + 0.1
    return tuple((w / np.abs(w).sum()).tolist())


def ints(t):
    return tuple(float((-1) ** k * (k + 1)) for k in range(t))  # 1, -2, 3, ...: integer sums, wrapping bytes


KINDS = {"g": gauss, "a": anti, "s": skew, "i": ints}


def _pass(spec):
    """(kind, axis, taps[, origin]) -> (axis, weights, mean size, origin): kind g Gaussian-like (symmetric),
    a antisymmetric, s neither, i alternating integers; m a mean over `taps` values."""
    kind, axis, taps, origin = (*spec, 0)[:4]
    return axis, (() if kind == "m" else KINDS[kind](taps)), (taps if kind == "m" else 0), origin


def run_separable(x, out_dtype, specs, mode, cval, out_layout):
    out = alloc(xp_of(x), x.shape, out_dtype, out_layout)
    ps = [_pass(s) for s in specs]
    _core.separable(x, out, [_core.Pass1d(p[0], list(p[1]), MODES[mode], cval, p[3], p[2]) for p in ps],
                    stream=stream_ptr(out))
    return out


def separable_bound(x, out_dtype, specs, mode, cval):
    """None where both engines do the same double operations in the same order (exact), else the bound of
    the difference. A pass of T taps summed in float (single: float32 in and out, u = 2^-24) or in another
    order (a mean of float data: a direct sum on CUDA, scipy's running sum in double on the CPU, within
    2n 2^-53 of the exact one on a line of n) differs by at most ((T + 3) u + 2n 2^-53) sum|w| max|input|
    (the 3: weights, cval and the stored result rounded); that difference passes through the later passes
    scaled by their sum|w|, and a float32 result of double sums may round either way (2^-24 a pass)."""
    single = x.dtype == np.float32 and np.dtype(out_dtype) == np.float32
    integer_mid = np.dtype(out_dtype).kind in "biu"
    ps = [_pass(s) for s in specs]
    float_means = any(p[2] and (x.dtype.kind == "f" if i == 0 else not integer_mid) for i, p in enumerate(ps))
    if not single and not float_means:
        return None
    u = U32 if single else U64
    stored = U32 if np.dtype(out_dtype) == np.float32 else U64
    m = max(float(np.abs(x.astype(np.float64)).max(initial=0.0)), abs(cval) if mode == "constant" else 0.0)
    gain, terms = 1.0, 0.0
    for axis, w, size, _ in ps:
        gain *= 1.0 if size else float(np.abs(w).sum())
        terms += u * ((size or len(w)) + 3) + (2 * x.shape[axis] * U64 if size else 0) + 2 * stored
    return m * gain * terms


# (id, shape, input dtype, output dtype, passes, input layout, output layout); the comment names the CUDA
# schedule each takes (launch_pass, plan_fused, launch_long_mean)
SEPARABLE = [
    # float32 in and out: the float schedules (a bound)
    ("fast_rows", (5, 449), "float32", "float32", [("g", 1, 9)], "c", "c"),  # 3 warp segments of 224
    ("fast_rows_33", (4, 17), "float32", "float32", [("s", 1, 33)], "c", "c"),  # reach 16 < 17: fast
    ("rows_float_reach", (4, 16), "float32", "float32", [("g", 1, 33)], "c", "c"),  # reach = n: pass_rows
    ("fast_cols_p4", (40, 16), "float32", "float32", [("g", 0, 9, 1)], "c", "c"),  # 16 columns, 32-row tiles
    ("fast_cols_p8", (65, 33), "float32", "float32", [("a", 0, 11)], "c", "c"),  # 64-row tiles, 2 column tiles
    ("fast_cols_mean_3d", (5, 9, 40), "float32", "float32", [("m", 1, 7, -3)], "c", "c"),
    ("narrow_generic", (20, 15), "float32", "float32", [("g", 0, 5)], "c", "c"),  # inner 15: pass_generic
    ("rows_even", (6, 300), "float32", "float32", [("s", 1, 4)], "c", "c"),  # even taps: pass_rows<float>
    ("cols_even_mean", (70, 20), "float32", "float32", [("m", 0, 4)], "c", "c"),  # pass_cols<float>
    ("fast_fused", (40, 200), "float32", "float32", [("g", 0, 9), ("g", 1, 9)], "c", "c"),  # 16-byte staging
    ("fast_fused_mean", (2, 33, 97), "float32", "float32", [("m", 1, 5), ("m", 2, 5, 2)], "c", "c"),
    ("fast_fused_misaligned", (35, 196), "float32", "float32", [("g", 0, 17), ("g", 1, 17)], "offset", "c"),
    ("fast_x_then_y", (40, 200), "float32", "float32", [("g", 1, 9), ("g", 0, 9)], "c", "c"),  # two passes
    ("fused_float_35", (40, 70), "float32", "float32", [("g", 0, 35), ("s", 1, 35)], "c", "c"),  # fused_2d<float>
    ("fast_f_order", (30, 50), "float32", "float32", [("g", 0, 7), ("g", 1, 7)], "f", "f"),  # reversed axes
    ("float_1xN", (1, 40), "float32", "float32", [("g", 0, 5), ("g", 1, 5)], "c", "c"),
    ("float_3d_mixed", (7, 9, 11), "float32", "float32", [("g", 0, 3), ("m", 1, 4), ("a", 2, 3)], "c", "c"),
    # double arithmetic: exact unless a mean reads float data
    ("rows_f64", (7, 1283), "float64", "float64", [("s", 1, 5, 2)], "c", "c"),  # 2 tiles of 1280
    ("rows_f64_101", (3, 300), "float64", "float64", [("g", 1, 101)], "c", "c"),  # weights in device memory
    ("cols_f64", (70, 33), "float64", "float64", [("a", 0, 7)], "c", "c"),  # 2 x 2 tiles of 64 x 32
    ("cols_f64_101", (150, 20), "float64", "float64", [("g", 0, 101)], "c", "c"),  # 42.5 KB shared
    ("cols_f64_131", (150, 20), "float64", "float64", [("g", 0, 131)], "c", "c"),  # > 48 KB: pass_generic
    ("rgb_generic", (9, 11, 3), "float64", "float64", [("g", 1, 5)], "c", "c"),  # inner 3: pass_generic
    ("fused_y_first", (40, 50), "float64", "float64", [("g", 0, 5), ("s", 1, 4)], "c", "c"),  # 59 KB opt-in
    ("fused_x_first", (3, 40, 50), "float64", "float64", [("a", 2, 3), ("g", 1, 7)], "c", "c"),
    ("fused_tile_32x96", (40, 70), "float64", "float64", [("g", 0, 41), ("g", 1, 41)], "c", "c"),
    ("fused_tile_16x64", (40, 70), "float64", "float64", [("g", 0, 55), ("g", 1, 55)], "c", "c"),
    ("unfused_81", (40, 70), "float64", "float64", [("g", 0, 81), ("g", 1, 81)], "c", "c"),  # too big to fuse
    ("three_stages", (7, 9, 11), "float64", "float64", [("g", 0, 3), ("g", 1, 5), ("s", 2, 3)], "c", "c"),
    ("fused_f_order", (30, 50), "float64", "float64", [("g", 0, 5), ("g", 1, 5)], "f", "f"),  # x first
    ("strided_generic", (17, 23), "float64", "float64", [("g", 0, 5), ("s", 1, 4)], "strided", "c"),
    ("c_in_f_out", (17, 23), "float64", "float64", [("g", 0, 5), ("g", 1, 3)], "c", "f"),  # pass_generic
    ("reversed_generic", (17, 23), "float64", "float64", [("a", 0, 3), ("g", 1, 5)], "reversed", "c"),
    ("mean_f64", (40, 50), "float64", "float64", [("m", 0, 3), ("m", 1, 6, 2)], "c", "c"),  # bound
    ("long_mean_f64", (9, 11), "float64", "float64", [("m", 1, 100, 3)], "c", "c"),  # launch_long_mean: bound
    ("f64_Nx1", (40, 1), "float64", "float64", [("g", 0, 5), ("g", 1, 5)], "c", "c"),
    ("f32_to_f64", (17, 23), "float32", "float64", [("g", 0, 9), ("g", 1, 9)], "c", "c"),  # not single: exact
    ("f64_to_f32", (17, 23), "float64", "float32", [("g", 0, 9), ("a", 1, 3)], "c", "c"),
    ("f32_to_i16", (17, 23), "float32", "int16", [("a", 0, 3), ("g", 1, 3)], "c", "c"),  # pass_generic
    # integer and bool data: exact
    ("u8_rows_mean", (5, 300), "uint8", "uint8", [("m", 1, 5)], "c", "c"),
    ("u8_to_i16", (20, 30), "uint8", "int16", [("i", 0, 4), ("g", 1, 3)], "c", "c"),  # pass_generic
    ("i32_to_f32_means", (40, 200), "int32", "float32", [("m", 0, 9), ("m", 1, 9)], "c", "c"),  # bound (2nd)
    ("bool_to_bool", (20, 30), "bool", "bool", [("i", 0, 3), ("a", 1, 3)], "c", "c"),  # uint8 between passes
    ("i16_long_mean", (9, 11), "int16", "float64", [("m", 1, 100)], "c", "c"),
    ("u16_1x1", (1, 1), "uint16", "uint16", [("g", 0, 3), ("g", 1, 3)], "c", "c"),
    ("i64_3d", (7, 9, 11), "int64", "int64", [("g", 0, 3), ("m", 1, 4), ("a", 2, 3)], "f", "f"),
    ("u64_strided", (17, 23), "uint64", "float64", [("s", 0, 4), ("m", 1, 3)], "strided", "c"),
]


@cuda
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("case", SEPARABLE, ids=[c[0] for c in SEPARABLE])
def test_cuda_separable(rng, case, mode):
    _, shape, dtype, out_dtype, specs, layout, out_layout = case
    x = image(rng, shape, dtype, layout)
    cpu, gpu = both(lambda a: run_separable(a, out_dtype, specs, mode, 0.5, out_layout), x)
    bound = separable_bound(x, out_dtype, specs, mode, 0.5)
    if bound is None:
        same(cpu, gpu)
    else:
        close(cpu, gpu, bound)


@cuda
@pytest.mark.parametrize("dtype", ALL)
def test_cuda_separable_dtypes(rng, dtype):
    # every input x output dtype pair: kernels for outputs of the input's type, float32 and float64, the
    # generic kernel for the others; double arithmetic (exact) except float32 into float32
    x = image(rng, (17, 23), dtype)
    specs = [("s", 0, 3), ("g", 1, 5)]
    for j, out_dtype in enumerate(ALL):
        mode = MODE_LIST[j % 5]
        cpu, gpu = both(lambda a: run_separable(a, out_dtype, specs, mode, 0.5, "c"), x)
        bound = separable_bound(x, out_dtype, specs, mode, 0.5)
        if bound is None:
            same(cpu, gpu)
        else:
            close(cpu, gpu, bound)


# ---- n-D correlate (correlate_nd_cuda.cu: one thread per output, any layout) ----

def offsets_of(footprint, origin=None):
    """The flattened (K x ndim) tap offsets of a footprint, as ndimage/_footprint.py makes them."""
    idx = np.argwhere(footprint)
    centre = np.array([s // 2 + (origin[d] if origin else 0) for d, s in enumerate(footprint.shape)])
    return (idx - centre).ravel().tolist()


def run_correlate(x, out_dtype, offsets, weights, mode, out_layout="c"):
    out = alloc(xp_of(x), x.shape, out_dtype, out_layout)
    _core.correlate(x, out, offsets, list(weights), MODES[mode], 0.5, stream=stream_ptr(out))
    return out


CORRELATE_SHAPES = [((17, 23), "c"), ((7, 9, 11), "f"), ((1, 1), "c"), ((1, 30), "strided"), ((12, 9), "reversed")]


@cuda
@pytest.mark.parametrize("dtype", ALL)
def test_cuda_correlate(rng, dtype):
    for i, (shape, layout) in enumerate(CORRELATE_SHAPES):
        x = image(rng, shape, dtype, layout)
        fp = rng.random((3, 4, 2)[:len(shape)]) < 0.7
        fp.flat[0] = True
        offs, k = offsets_of(fp), int(fp.sum())
        # powers of two: every product is exact, so contracting a sum into FMAs changes nothing
        pow2 = rng.choice([-2.0, -1.0, -0.5, 0.25, 0.5, 1.0, 2.0], k)
        for j, out_dtype in enumerate(sorted({dtype, "float32", "float64", "int16"})):  # int16: the funnel
            mode = MODE_LIST[(i + j) % 5]
            same(*both(lambda a: run_correlate(a, out_dtype, offs, pow2, mode), x))
        # general weights: float sums of K products within 4 K u sum|w| max|x| of each other (2K roundings
        # without FMA, K with; u of the sum's type: float for float32 data into float32), and a float32 result
        # of double sums within one more rounding
        w = rng.standard_normal(k)
        m = max(float(np.abs(x.astype(np.float64)).max()), 0.5)
        for j, out_dtype in enumerate(("float32", "float64")):
            u = U32 if dtype == "float32" and out_dtype == "float32" else U64
            bound = ((4 * k + 4) * u + (U32 if out_dtype == "float32" else 0.0)) * float(np.abs(w).sum()) * m
            mode = MODE_LIST[(i + j + 2) % 5]
            close(*both(lambda a: run_correlate(a, out_dtype, offs, w, mode, "f"), x), bound)
        # a footprint with no taps (all weights dropped): zeros
        same(*both(lambda a: run_correlate(a, "float64", [], [], MODE_LIST[i]), x))


# ---- stencils (stencils_cuda.cu: footprint.cuh's tiles with K tap tables; one thread per output for 1-D,
# 4-D and tiles past the shared-memory budget) ----

def run_stencils(x, taps, mode, scale_in_double=False, out_layout="c"):
    """taps: stencils, each a list of (offset tuple, weight)."""
    out = alloc(xp_of(x), x.shape, x.dtype, out_layout)
    _core.stencils(x, out, [o for st in taps for offs, _ in st for o in offs], [w for st in taps for _, w in st],
                   [len(st) for st in taps], MODES[mode], 0.3, 1.7, scale_in_double, stream=stream_ptr(out))
    return out


def random_stencils(rng, ndim, k, box, reach=None):
    """k stencils over random footprints in `box` (or `reach`: 6 taps spanning -reach..reach along every
    axis), standard normal weights."""
    out = []
    for _ in range(k):
        if reach is None:
            fp = rng.random(box[-ndim:]) < 0.6
            fp.flat[rng.integers(fp.size)] = True
            offs = offsets_of(fp)
        else:
            offs = [-reach] * ndim + [reach] * ndim + rng.integers(-reach, reach + 1, 4 * ndim).tolist()
        taps = list(zip(*[iter(offs)] * ndim))
        out.append(list(zip(taps, rng.standard_normal(len(taps)).tolist())))
    return out


STENCIL_SHAPES = [((29,), "c"), ((17, 23), "c"), ((40, 70), "reversed"), ((7, 9, 11), "f"), ((9, 10, 33), "strided"),
                  ((1, 1), "c"), ((3, 4, 5, 6), "offset")]


@cuda
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_cuda_stencils(rng, dtype, k):
    """Same bits: both engines sum each stencil in double in tap order without FMA (add_mul) and combine in
    the float type with one rounding per operation (mul_rn, add_rn, sqrt_rn, div_rn), huge, inf and NaN
    values included."""
    big = {"float32": 3e38, "float64": 1e308}[dtype]
    for i, (shape, layout) in enumerate(STENCIL_SHAPES):
        x = image(rng, shape, dtype, layout, nan=0.02)
        x.flat[::13] = big
        x.flat[5::17] = -np.inf
        for j, box in enumerate([(3, 3, 3), (1, 3, 3), (2, 5, 1)]):  # volume, flat and thin footprints
            taps = random_stencils(rng, len(shape), k, box)
            same(*both(lambda a: run_stencils(a, taps, MODE_LIST[(i + j) % 5], bool(j % 2)), x))
        # footprints whose tiles pass the shared-memory budget (49 wide: 51 KB in 2-D), output in another layout
        taps = random_stencils(rng, len(shape), k, None, reach=24)
        same(*both(lambda a: run_stencils(a, taps, MODE_LIST[i % 5], True, "f"), x))
        # a stencil with no taps (all weights dropped) beside others: its value is 0
        taps = [[]] + random_stencils(rng, len(shape), k - 1, (3, 3, 3))
        same(*both(lambda a: run_stencils(a, taps, MODE_LIST[(i + 1) % 5]), x))


# ---- rank filters (rank_cuda.cu: median_box_kernel for 3x3/5x5 medians in the input's dtype, rank_kernel
# with per-thread buffers up to 64 taps and global scratch beyond, scipy's Hoare selection with NaN) ----

def run_rank(x, out_dtype, offsets, rank, mode, out_layout="c"):
    out = alloc(xp_of(x), x.shape, out_dtype, out_layout)
    _core.rank_filter(x, out, offsets, int(rank), MODES[mode], 0.5, stream=stream_ptr(out))
    return out


BOX3, BOX5 = np.ones((3, 3), bool), np.ones((5, 5), bool)
RANK_CASES = [  # footprint, origin, rank (None: the median)
    (BOX3, None, None),  # median_box_kernel<3>
    (BOX5, (1, -1), None),  # median_box_kernel<5>, shifted
    (np.ones((1, 9), bool), None, None),  # 9 taps, not a box: rank_kernel's forgetful median
    (np.ones((9, 9), bool), None, 40),  # 81 taps: global scratch
    (np.ones((9, 9), bool), (-2, 3), 7),
    (np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]], bool), None, 0),  # ordered extremes
    (np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]], bool), None, 5),
    (BOX3, None, 8),
]


@cuda
@pytest.mark.parametrize("dtype", ALL)
def test_cuda_rank(rng, dtype):
    # 32 x 32 output tiles of the box kernel: partial tiles both ways; F-order, strided and reversed views;
    # every mode for every footprint across the shapes
    for i, (shape, layout) in enumerate([((33, 65), "c"), ((70, 40), "f"), ((1, 1), "c"), ((1, 40), "strided"),
                                         ((37, 29), "reversed")]):
        x = image(rng, shape, dtype, layout, nan=0.1)  # NaN: the box kernel's tile_nan path, Hoare selection
        out_layout = "c" if layout == "reversed" else layout
        for j, (fp, origin, rank) in enumerate(RANK_CASES):
            offs, k = offsets_of(fp, origin), int(fp.sum())
            rank = k // 2 if rank is None else rank
            mode = MODE_LIST[(i + j) % 5]
            same(*both(lambda a: run_rank(a, dtype, offs, rank, mode, out_layout), x))
        for out_dtype in ("float64", "int16"):  # other outputs leave the box kernel (float64 funnel for int16)
            same(*both(lambda a: run_rank(a, out_dtype, offsets_of(BOX3), 4, MODE_LIST[i]), x))
    x = image(rng, (7, 9, 11), dtype, "c", nan=0.05)
    for j, (fp, rank) in enumerate([(np.ones((3, 3, 3), bool), 13), (rng.random((3, 2, 4)) < 0.5, 1)]):
        fp.flat[0] = True
        same(*both(lambda a: run_rank(a, dtype, offsets_of(fp), rank, MODE_LIST[j]), x))


# ---- 1-D minimum/maximum (rank_cuda.cu: a thread per output, lines with NaN again through scipy's deque) ----

def run_min_max(x, out_dtype, size, axis, mode, origin, minimum):
    out = alloc(xp_of(x), x.shape, out_dtype)
    _core.min_max_filter1d(x, out, size, axis, MODES[mode], 0.5, origin, minimum, stream=stream_ptr(out))
    return out


@cuda
@pytest.mark.parametrize("dtype", ALL)
def test_cuda_min_max_1d(rng, dtype):
    count = 0
    for shape, layout in [((7, 9, 11), "f"), ((6, 5, 8), "strided"), ((1, 1), "c"), ((30,), "reversed")]:
        x = image(rng, shape, dtype, layout, nan=0.08)
        for axis in range(x.ndim):
            for size, origin in ((1, 0), (2, -1), (5, 2), (30, 0), (10 ** 9, 0)):  # 10**9: the clipped window
                count += 1
                mode, minimum = MODE_LIST[count % 5], count % 2 == 0
                same(*both(lambda a: run_min_max(a, dtype, size, axis, mode, origin, minimum), x))
        same(*both(lambda a: run_min_max(a, "float64", 3, -1, MODE_LIST[count % 5], 1, True), x))
        same(*both(lambda a: run_min_max(a, "int16", 4, 0, MODE_LIST[(count + 1) % 5], 0, False), x))


# ---- root_sum_squares: a CPU primitive; CUDA runs the same operations in the same order in CuPy ----

@cuda
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nparts", [2, 3])
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_cuda_root_sum_squares(rng, dtype, nparts, layout):
    # x*x, a running sum, sqrt and a division, each correctly rounded on both engines: exact, infinities and
    # NaN included
    parts = [image(rng, (17, 23, 3)[:nparts], dtype, layout) for _ in range(nparts)]
    for p in parts:
        p *= 10.0 ** rng.integers(-3, 3)
    parts[0][0, 0], parts[1][0, 1], parts[0][1, 1] = np.inf, np.nan, 1e30
    same(*both(lambda *p: _magnitude(list(p), xp_of(p[0])), *parts))


# ---- reductions (stats_cuda.cu: block trees merged on the host, a CUB radix sort for min_gap) ----

def stats_fields(s):
    return (s.min, s.max, s.imin, s.imax, s.n_nan, s.n_posinf, s.n_neginf, s.n_finite), s.sum


def special_floats(a, rng):
    if a.dtype.kind == "f" and a.size > 4:
        flat = a.reshape(-1) if a.flags.c_contiguous else None
        if flat is not None:
            flat[rng.choice(a.size, 3, replace=False)] = [np.nan, np.inf, -np.inf]
    return a


# sizes around a block of 256 threads, the CPU's 32768-element parts and the 1024-block grid's stride
REDUCE_SIZES = [1, 7, 255, 256, 257, 70000, 262145]


@cuda
@pytest.mark.parametrize("dtype", ALL + ["float16"])
@pytest.mark.parametrize("n", REDUCE_SIZES)
def test_cuda_image_stats(rng, dtype, n):
    x = special_floats(values(rng, (n,), dtype), rng) if dtype != "float16" else \
        rng.standard_normal(n).astype(np.float16)
    for a in (x, x[::-1], x[::3]):
        (cpu_fields, cpu_sum), (gpu_fields, gpu_sum) = both(lambda v: stats_fields(reduce.image_stats(v)), a)
        assert cpu_fields == gpu_fields
        finite = a[np.isfinite(a.astype(np.float64))].astype(np.float64)
        if a.dtype.kind in "biu":
            assert cpu_sum == gpu_sum  # integer sums are exact in double
        else:  # another order of the same double additions: within 2 n u sum|x|
            assert abs(cpu_sum - gpu_sum) <= 2 * a.size * U64 * np.abs(finite).sum(), (cpu_sum, gpu_sum)
        if dtype == "float16":
            continue
        # the mean: a 0-d array of the result type on each engine, the same NaN/inf rule, the sums' bound
        cm, gm = both(reduce.mean, a)
        assert cm.shape == gm.shape == () and cm.dtype == gm.dtype == (a.dtype if dtype == "float32" else np.float64)
        if np.isfinite(cm):  # the sums' bound over n, and one rounding to float32 apart
            assert abs(float(gm) - float(cm)) <= 2 * U64 * np.abs(finite).sum() + abs(np.spacing(cm)), (cm, gm)
        else:
            assert np.array_equal(cm, gm, equal_nan=True), (cm, gm)
    # integer-valued floats sum exactly in any order
    y = rng.integers(-1000, 1000, max(n, 2)).astype(np.float64 if dtype != "float32" else np.float32)
    cpu, gpu = both(lambda v: stats_fields(reduce.image_stats(v)), y.reshape(-1, 1)[::2] if n > 2 else y)
    assert cpu == gpu


@cuda
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", REDUCE_SIZES)
def test_cuda_split_sums_min_gap(rng, dtype, n):
    x = special_floats(values(rng, (n,), dtype), rng)
    for a in (x, x[::-2]):
        for shift, t in ((0.0, 0.0), (0.3, -0.25), (-1.5, 1.0)):
            cpu, gpu = both(lambda v: reduce.split_sums(v, shift=shift, t=t), a)
            assert (cpu.n_above, cpu.n_below) == (gpu.n_above, gpu.n_below)
            bound = 2 * a.size * U64 * np.nansum(np.abs(a.astype(np.float64)[np.isfinite(a)] - shift))
            assert abs(cpu.sum_above - gpu.sum_above) <= bound and abs(cpu.sum_below - gpu.sum_below) <= bound
        cpu, gpu = both(lambda v: reduce.min_gap(v, shift=0.3), a)
        assert cpu == gpu
    # integer values: exact sums; repeated values (gaps of 0 are not gaps); all equal (inf)
    y = rng.integers(-50, 50, n).astype(dtype)
    cpu, gpu = both(lambda v: reduce.split_sums(v, shift=0.5, t=3.0), y)
    assert (cpu.sum_above, cpu.n_above, cpu.sum_below, cpu.n_below) == \
        (gpu.sum_above, gpu.n_above, gpu.sum_below, gpu.n_below)
    for a in (y, np.full(n, 2.5, dtype)):
        cpu, gpu = both(lambda v: reduce.min_gap(v, shift=0.25), a)
        assert cpu == gpu


# ---- histograms (histogram_cuda.cu: block-private shared counters up to 8192 bins, global atomics beyond) ----

@cuda
@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_cuda_histogram_integer(rng, dtype, layout):
    x = image(rng, (300, 233), dtype, layout)
    if dtype == "uint64":
        x[0, :5] = 2 ** 63 + np.arange(5, dtype=np.uint64)  # beyond int64: wraps, as on the CPU
    lo = int(x.min())
    for start, nbins in ((lo, 1), (lo - 3, 10), (0, 300), (lo, 9000), (-5, 12000)):
        same(*both(lambda a: histogram.integer_counts(a, lo=start, nbins=nbins), x))
    # counts are added to what the array holds
    def into(a):
        counts = xp_of(a).arange(50, dtype=np.int64)
        _core.histogram_integer(a, lo, counts, stream=stream_ptr(a))
        return counts
    same(*both(into, x))


@cuda
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("nbins", [1, 7, 256, 10000])
def test_cuda_histogram_uniform(rng, dtype, nbins):
    x = image(rng, (300, 233), dtype, "c", nan=0.01)
    lo, hi = float(np.nanmin(x.astype(np.float64))) * 0.7, float(np.nanmax(x.astype(np.float64))) * 0.9
    if not hi > lo:
        lo, hi = lo - 1, lo + 1
    edges = np.linspace(lo, hi, nbins + 1)
    if np.dtype(dtype).kind == "f":  # values on the edges (NumPy's correction) and infinities
        x.reshape(-1)[:200] = edges[rng.integers(0, nbins + 1, 200)].astype(dtype)
        x[1, :2] = [np.inf, -np.inf]
    for a in (x, x.T, x[::2, 1::3]):
        same(*both(lambda v: histogram.uniform_counts(v, edges=edges), a))


# ---- labelling (components_cuda.cu: atomicMin union-find; components_cpu.cpp: slabs joined at seams) ----

def snake(shape):
    """One face-connected path winding through every other row, a seed at its far end."""
    a = np.zeros(shape, np.float32)
    a[::2] = 0.5
    for r in range(1, shape[0], 2):
        a[r, -1 if (r // 2) % 2 == 0 else 0] = 0.5
    a[-1 if shape[0] % 2 else -2, -1] = 1.0
    return a


def seeded(a, low, high, out_layout="c"):
    out = alloc(xp_of(a), a.shape, bool, out_layout)
    return label.seeded_components(a, low=low, high=high, out=out)


LABEL_CASES = [  # (id, image builder, low, high)
    ("percolating_2d", lambda r: r.random((67, 129)), 0.4, 0.995),  # members above the percolation threshold
    ("sparse_2d", lambda r: r.random((67, 129)), 0.6, 0.99),
    ("snake", lambda r: snake((41, 37)), 0.1, 0.9),
    ("checkerboard", lambda r: (np.indices((30, 31)).sum(0) % 2) * (1 + r.random((30, 31))), 0.5, 1.9),
    ("volume", lambda r: r.random((7, 9, 11)), 0.55, 0.97),
    ("line", lambda r: r.random(1000), 0.3, 0.98),
    ("four_d", lambda r: r.random((3, 4, 5, 6)), 0.5, 0.95),
    ("single", lambda r: np.ones((1, 1)), 0.5, 0.9),
    ("row", lambda r: r.random((1, 300)), 0.2, 0.99),
    ("column", lambda r: r.random((300, 1)), 0.2, 0.99),
    ("uint8", lambda r: r.integers(0, 256, (50, 60)).astype(np.uint8), 90, 250),
    ("int16", lambda r: r.integers(-300, 300, (50, 60)).astype(np.int16), -100, 280),
    ("uint64", lambda r: (r.integers(0, 4, (40, 40)).astype(np.uint64) * np.uint64(2 ** 62)), 2.0 ** 62, 2.0 ** 63),
    ("bool", lambda r: r.random((40, 50)) < 0.6, 0.0, 0.5),
    ("float16", lambda r: r.random((40, 50)).astype(np.float16), 0.4, 0.99),
    ("nan", lambda r: np.where(r.random((40, 50)) < 0.1, np.nan, r.random((40, 50))), 0.3, 0.98),
    ("low_above_high", lambda r: r.random((40, 50)), 0.9, 0.5),
]


@cuda
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
@pytest.mark.parametrize("case", LABEL_CASES, ids=[c[0] for c in LABEL_CASES])
def test_cuda_seeded_components(rng, case, layout):
    _, build, low, high = case
    src = np.asarray(build(rng))
    x = alloc(np, src.shape, src.dtype, layout)
    x[...] = src
    # a bool mask that every correct union-find gives: exact
    same(*both(lambda a: seeded(a, low, high, layout), x))
    same(*both(lambda a: seeded(a, low, high, "c"), x))


@cuda
@pytest.mark.parametrize("dtype", ALL + ["float16"])
def test_cuda_seeded_components_dtypes(rng, dtype):
    # every dtype's values compared in double against thresholds between its values
    x = values(rng, (40, 50), dtype) if dtype != "float16" else rng.standard_normal((40, 50)).astype(np.float16)
    lo, hi = np.percentile(x.astype(np.float64), [35, 97])
    same(*both(lambda a: seeded(a, float(lo), float(hi)), x))
    same(*both(lambda a: seeded(a, float(lo), float(hi), "strided"), x.T))


# ---- local thresholds (threshold_cuda.cu: the same double window sums; nvcc contracts the formula) ----

def local_bound(x, window, kind, k, r, out_dtype):
    """The window sums, mean m and mean square g2 are the same bits on both engines; var = g2 - m*m is an FMA
    on CUDA, so the variances differ by at most dv = 4u (m^2 + |g2|) and the deviations s by
    min(sqrt(dv), dv / (2 s_lo)) (s_lo: the smallest s either engine can have); the formula's own roundings
    (also contracted) add a few u of its terms. m, g2 and s here come from float64 means (scipy's mirror
    uniform_filter)."""
    u = U32 if out_dtype == "float32" else U64
    xf = x.astype(np.float64)
    m = ndi.uniform_filter(xf, window, mode="mirror")
    g2 = ndi.uniform_filter(xf * xf, window, mode="mirror")
    var = np.maximum(g2 - m * m, 0)
    dv = 4 * u * (m * m + np.abs(g2)) * (1 + 1e-3) + 1e-300
    s_lo = np.sqrt(np.maximum(var - 2 * dv, 0))
    ds = np.minimum(np.sqrt(dv), dv / np.maximum(2 * s_lo, 1e-300))
    s = np.sqrt(var) + ds
    am = np.abs(m) * (1 + 1e-3)
    if kind == "niblack":
        return 2 * (abs(k) * ds + 8 * u * (am + abs(k) * s))
    return 2 * (am * abs(k) * ds / r + 8 * u * am * (1 + abs(k) * (1 + s / r)))


def run_local(x, window, kind, k, r, out_dtype, out_layout):
    out = alloc(xp_of(x), x.shape, out_dtype, out_layout)
    return threshold.local_threshold(x, window=window, kind=getattr(threshold.LocalKind, kind), k=k, r=r, out=out)


@cuda
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("out_dtype", ["float32", "float64"])
def test_cuda_local_threshold(rng, dtype, out_dtype):
    cases = [((17, 23), (3, 3), "c", "c"), ((17, 23), (5, 1), "f", "f"), ((17, 23), (15, 25), "strided", "c"),
             ((1, 1), (3, 5), "c", "c"), ((1, 17), (3, 7), "c", "strided"), ((7, 9, 11), (3, 5, 3), "c", "c")]
    kinds = [("niblack", 0.2, 1.0), ("sauvola", 0.34, 128.0), ("niblack", -0.5, 1.0), ("sauvola", 0.2, 0.5)]
    for i, (shape, window, layout, out_layout) in enumerate(cases):
        x = image(rng, shape, dtype, layout)
        if dtype == "uint8":
            x[:, : shape[1] // 2] = 200  # flat regions: var within rounding of 0, where the FMA matters most
        for kind, k, r in kinds[i % 2::2]:
            cpu, gpu = both(lambda a: run_local(a, window, kind, k, r, out_dtype, out_layout), x)
            close(cpu, gpu, local_bound(x, window, kind, k, r, out_dtype))


# ---- ridges (ridges_cuda.cu: a thread per pixel; block maxima) ----

def hessian_field(rng, shape, dtype, alpha):
    """Hessian upper-triangle elements (row-major, each C-contiguous) of random rotations of eigenvalues whose
    magnitudes lie in [0.5, 10], at least 15% apart, and whose Meijering combinations (with `alpha`) have a
    largest magnitude 10% above the next and at least 0.5: every measure is then a smooth function of the
    Hessian at every pixel (no tie decides an order, no sign is within rounding of 0). Pixel 0 is all zero,
    pixel 1 diagonal, pixel 2 NaN."""
    n, p = len(shape), math.prod(shape)
    lam = np.empty((0, n))
    while len(lam) < p:
        mags = np.sort(rng.uniform(0.5, 10.0, (4 * p + 16, n)), axis=1)
        e = mags * rng.choice([-1.0, 1.0], mags.shape)
        ok = np.all(mags[:, 1:] >= 1.15 * mags[:, :-1], axis=1)
        l_ = e + alpha * (e.sum(1, keepdims=True) - e)
        la = np.sort(np.abs(l_), axis=1)
        ok &= la[:, -1] >= 0.5
        if n > 1:
            ok &= la[:, -1] >= 1.1 * la[:, -2]
        lam = np.concatenate([lam, e[ok]])
    lam = lam[:p]
    q, _ = np.linalg.qr(rng.standard_normal((p, n, n)))
    h = np.einsum("pij,pj,pkj->pik", q, lam, q)
    h[0] = 0
    if p > 1:
        h[1] = np.diag(lam[1])
    if p > 2:
        h[2, 0, 0] = np.nan
    return [np.ascontiguousarray(h[:, i, j].reshape(shape).astype(dtype)) for i in range(n) for j in range(i, n)]


def frobenius(h):
    """|H|_F per pixel of the upper-triangle elements h (off-diagonal ones count twice)."""
    n = h[0].ndim
    pairs = [(i, j) for i in range(n) for j in range(i, n)]
    return np.sqrt(sum((1.0 if i == j else 2.0) * np.asarray(e, np.float64) ** 2 for (i, j), e in zip(pairs, h)))


def ridge_tolerance(h, kind, u, alpha, scale, norm):
    """Eigenvalues agree to d = 128 u |H|_F (backward-stable Jacobi, a few u |H| a rotation over at most ~40
    rotations for 4 x 4, or the closed 2 x 2 form; FMAs or not). Under hessian_field's margins Frangi's measure
    (in [0, 1]) changes by at most 24 sqrt(n) / |H|_F per unit of eigenvalue (its ratios' derivatives, the
    largest eigenvalue being at least |H|_F / sqrt(n)) plus 0.1 for its gamma term, and CUDA's exp adds 2 ulp;
    Sato's geometric mean of eigenvalues in [0.5, 10] moves by at most sqrt(20) d, Meijering's combination
    by (1 + (n - 1) alpha) d, the norm by sqrt(n) d; each result is rounded a few more times (8 u of it)."""
    hf = float(np.nanmax(frobenius(h)))
    n = h[0].ndim
    d = 128 * u * hf
    if kind == "frangi":
        return (24 * math.sqrt(n) / max(hf, 1e-300) + 0.1) * d + 16 * u
    if kind == "sato":
        return scale * (math.sqrt(20) * d + 8 * u * 10)
    if kind == "meijering":
        return ((1 + (n - 1) * abs(alpha)) * d + 8 * u * 10 * n) / norm
    return math.sqrt(n) * d + 8 * u * hf


RIDGE_TYPES = [("float64", "float64", U64), ("float32", "float32", U32), ("float32", "float64", U32)]


@cuda
@pytest.mark.parametrize("types", RIDGE_TYPES, ids=["f64", "f32", "f32_acc64"])
@pytest.mark.parametrize("shape", [(17, 23), (7, 9, 11), (300,), (3, 4, 5, 6), (1, 1)])
def test_cuda_ridges(rng, types, shape):
    dtype, acc_dtype, u = types
    n = len(shape)
    alpha = 1 / (n + 1)
    h = hessian_field(rng, shape, dtype, alpha)
    acc0 = rng.uniform(-0.5, 0.05, shape).astype(acc_dtype)
    acc0.reshape(-1)[-1] = np.nan
    kinds = ["meijering"] + (["frangi", "sato"] if n in (2, 3) else [])
    for kind in kinds:
        for fill in ((False, True) if kind == "frangi" else (False,)):
            kw = dict(kind=getattr(ridges.Ridge, kind), alpha=alpha if kind == "meijering" else 0.5, beta=0.5,
                      gamma=15.0, scale=2.5, norm=3.0, fill=fill)

            def run(*args):
                acc = xp_of(args[0]).asarray(acc0) if not isinstance(args[0], np.ndarray) else acc0.copy()
                return ridges.ridge_accumulate(list(args), acc, **kw)

            close(*both(run, *h), ridge_tolerance(h, kind, u, alpha, 2.5, 3.0))
    if acc_dtype == dtype:
        for kind in ("meijering", "norm"):
            cpu, gpu = both(lambda *a: ridges.ridge_max(list(a), kind=getattr(ridges.Ridge, kind), alpha=alpha), *h)
            if h[0].size > 2:  # pixel 2 is NaN
                assert np.isnan(cpu) and np.isnan(gpu), (cpu, gpu)
            else:
                assert abs(cpu - gpu) <= ridge_tolerance(h, kind, u, alpha, 1.0, 1.0), (cpu, gpu)
        finite = [np.where(np.isnan(e), 0, e).astype(dtype) for e in h]  # a maximum without NaN
        cpu, gpu = both(lambda *a: ridges.ridge_max(list(a), kind=ridges.Ridge.norm), *finite)
        assert abs(cpu - gpu) <= ridge_tolerance(finite, "norm", u, alpha, 1.0, 1.0), (cpu, gpu)


# ---- the CPU engine at every thread count: the same bits ----

def _bits(r):
    if isinstance(r, np.ndarray):
        return (r.dtype.str, r.shape, np.ascontiguousarray(r).tobytes())
    if isinstance(r, (tuple, list)):
        return tuple(_bits(v) for v in r)
    if isinstance(r, (_core.Stats, _core.SplitSums)):
        return tuple(getattr(r, k) for k in dir(r) if not k.startswith("_"))
    return np.float64(r).tobytes() if isinstance(r, float) else r


def _thread_families(rng):
    """(name, call) pairs over inputs large enough to be split into several parts and line groups."""
    f32 = image(rng, (300, 257), "float32", nan=0.01)
    f64 = image(rng, (300, 257), "float64", nan=0.01)
    vol = image(rng, (40, 50, 37), "float32")
    u16 = (rng.random((300, 257)) * 4000).astype(np.uint16)
    u8 = image(rng, (300, 257), "uint8")
    big = rng.standard_normal(200_001) * 10.0 ** rng.integers(-6, 6, 200_001)
    perc = rng.random((300, 300))
    perc[::7, :] = np.maximum(perc[::7, :], 0.5)  # long rows of members across the CPU's slab seams
    h2 = hessian_field(rng, (300, 257), "float32", 1 / 3)
    fp = rng.random((3, 4)) < 0.6
    fp[0, 0] = True
    sep = [("g", 0, 9), ("m", 1, 5), ("s", 0, 4)]
    return [
        ("separable_f32", lambda: run_separable(f32, "float32", sep, "reflect", 0.0, "c")),
        ("separable_f64", lambda: run_separable(f64, "float64", sep, "wrap", 0.0, "f")),
        ("separable_3d", lambda: run_separable(vol, "float32", [("g", 0, 5), ("g", 1, 5), ("m", 2, 3)], "mirror",
                                               0.0, "c")),
        ("correlate", lambda: run_correlate(f32, "float32", offsets_of(fp), np.linspace(-1, 1, int(fp.sum())),
                                            "constant")),
        ("median_3x3", lambda: run_rank(f32, "float32", offsets_of(BOX3), 4, "reflect")),
        ("rank_9x9", lambda: run_rank(u8, "uint8", offsets_of(np.ones((9, 9), bool)), 17, "nearest")),
        ("min_max_1d", lambda: run_min_max(f64, "float64", 7, 0, "reflect", 1, True)),
        ("root_sum_squares", lambda: _magnitude([f32.copy(), f32 * 2, f32 + 1], np)),
        ("stencils", lambda: run_stencils(f32, random_stencils(np.random.default_rng(7), 2, 2, (3, 3)), "mirror")),
        ("split_sums", lambda: reduce.split_sums(big, shift=0.1, t=0.5)),
        ("min_gap", lambda: reduce.min_gap(big, shift=0.1)),
        ("histogram_integer", lambda: histogram.integer_counts(u16, lo=0, nbins=4096)),
        ("histogram_uniform", lambda: histogram.uniform_counts(f32, edges=np.linspace(-3, 3, 301))),
        ("seeded_components", lambda: seeded(perc, 0.45, 0.999)),
        ("local_threshold", lambda: run_local(u8, (15, 15), "sauvola", 0.3, 128.0, "float32", "c")),
        ("ridge_accumulate", lambda: ridges.ridge_accumulate(h2, np.zeros((300, 257), np.float32),
                                                             kind=ridges.Ridge.frangi)),
        ("ridge_max", lambda: ridges.ridge_max([np.nan_to_num(e) for e in h2], kind=ridges.Ridge.norm)),
    ]


@pytest.fixture(scope="module")
def thread_results():
    rng = np.random.default_rng(2026)
    families = _thread_families(rng)
    previous = ndimg.get_num_threads()
    results = {}
    try:
        for n in (1, 2, 3, 8):
            ndimg.set_num_threads(n)
            for name, call in families:
                results.setdefault(name, []).append(_bits(call()))
    finally:
        ndimg.set_num_threads(previous)
    return results


FAMILIES = ["separable_f32", "separable_f64", "separable_3d", "correlate", "median_3x3", "rank_9x9", "min_max_1d",
            "root_sum_squares", "stencils", "split_sums", "min_gap", "histogram_integer", "histogram_uniform",
            "seeded_components", "local_threshold", "ridge_accumulate", "ridge_max"]


@pytest.mark.parametrize("family", FAMILIES)
def test_cpu_threads_same_bits(thread_results, family):
    # image_stats' sums at 1, 2, 3 and 16 threads: tests/test_threads.py
    runs = thread_results[family]
    assert all(r == runs[0] for r in runs[1:]), family

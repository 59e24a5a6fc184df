"""Edge filters with small non-separable stencils (skimage.filters.roberts*, laplace), and the CUDA
engine's stencil kernel that the edge filters share (filters/_edges.py)."""
from __future__ import annotations

import functools

import numpy as np

from .. import _core
from .._engine import engine_aware, xp_of
from .._rules import array_argument, check_nD, img_as_float, supported_float_type
from ..ndimage._correlate import _correlate_or_convolve
from ..ndimage._footprint import tap_offsets
from ..ndimage._rank import _min_or_max_filter
from ..ndimage._support import mode_code, real_cval

_ROBERTS_POS = np.array([[1.0, 0.0], [0.0, -1.0]])
_ROBERTS_NEG = np.array([[0.0, 1.0], [-1.0, 0.0]])


def _as_float(image):
    """Floats keep their precision (float16 -> float32); everything else goes through img_as_float."""
    if image.dtype.kind == "f":
        return image.astype(supported_float_type(image.dtype), copy=False)
    return img_as_float(image)


def _masked(result, mask):
    """Zero the result outside `mask` eroded by a full 3**ndim box (border counts as outside), so that
    masked-out pixels do not leak into it."""
    if mask is not None:
        xp = xp_of(result)
        keep = (xp.asarray(mask) != 0).astype(np.uint8)
        result *= _min_or_max_filter(keep, 3, None, None, "constant", 0, 0, True, None)
    return result


# Where an index outside [0, n) reads from (cpp/src/ndimage/boundary.hpp's extend_index; constant mode
# clears `inside` and the tap reads cval)
_M = _core.Mode
_EXTEND = {
    _M.reflect: "IDX p = 2 * n; IDX r = i % p; if (r < 0) r += p; return r < n ? r : p - 1 - r;",
    _M.mirror: "if (n == 1) return 0; IDX p = 2 * n - 2; IDX r = i % p; if (r < 0) r += p; return r < n ? r : p - r;",
    _M.nearest: "return i < 0 ? 0 : n - 1;",
    _M.wrap: "IDX r = i % n; return r < 0 ? r + n : r;",
    _M.constant: "inside = false; return 0;",
}


def _convolution_taps(kernel):
    """scipy.ndimage.convolve's taps of an n-D kernel: (offsets per tap, weight) in its C order, weights with
    |w| <= DBL_EPSILON left out, even sizes shifted as scipy shifts them."""
    kernel = np.asarray(kernel, np.float64)
    return _taps_of(kernel.shape, kernel.tobytes())


@functools.lru_cache(maxsize=64)
def _taps_of(shape, data):
    w = np.frombuffer(data, np.float64).reshape(shape)[(slice(None, None, -1),) * len(shape)]
    origins = [-(1 - (n & 1)) for n in w.shape]
    offsets, idx = tap_offsets(np.abs(w) > np.finfo(np.float64).eps, origins)
    return tuple(zip(zip(*[iter(offsets)] * w.ndim), w[idx].tolist()))


@functools.lru_cache(maxsize=128)
def _stencil_kernel(stencils, ndim, mode, dtype_char, wide, scale, scale_in_double):
    """A CuPy kernel: each thread one output element, each stencil summed over its taps in double (scipy's
    correlate: taps in C order, value * weight, cval outside in constant mode) and rounded to T; several
    stencils make sqrt(sum of their squares) in T, divided by `scale` in T (or in double, rounded to T).
    Compiled without FMA contraction, so every product and sum rounds as NumPy's and scipy's do. Elements
    whose taps all lie inside the image read them at fixed offsets from their own (computed once per
    thread); only those near the border extend each index."""
    import cupy

    t = "float" if dtype_char == "f" else "double"
    sqrt = "sqrtf" if t == "float" else "sqrt"
    dims = range(ndim)
    taps = [tap for st in stencils for tap in st]
    below = [max([-o[d] for o, _ in taps] + [0]) for d in dims]
    above = [max([o[d] for o, _ in taps] + [0]) for d in dims]
    lines = [f"typedef {'long long' if wide else 'int'} IDX;",
             "__device__ __forceinline__ IDX extend(IDX i, IDX n, bool& inside) {",
             f"  if (i >= 0 && i < n) return i; {_EXTEND[mode]}", "}",
             f'extern "C" __global__ void stencil(const {t}* __restrict__ in, {t}* __restrict__ out, IDX total, '
             + ", ".join([f"IDX n{d}" for d in dims] + [f"long long s{d}" for d in dims]) + ", double cval) {"]
    lines += [f"  const long long o{k} = " + " + ".join(f"({o}) * s{d}" for d, o in enumerate(offs)) + ";"
              for k, (offs, _) in enumerate(taps)]
    lines += ["  for (IDX i = blockIdx.x * (IDX)blockDim.x + threadIdx.x; i < total; i += (IDX)gridDim.x * blockDim.x) {",
              "    IDX r = i;"]
    for d in reversed(dims):
        lines.append(f"    IDX c{d} = r % n{d}; r /= n{d};" if d else "    IDX c0 = r;")
    lines.append("    const long long base = " + " + ".join(f"(long long)c{d} * s{d}" for d in dims) + ";")
    lines.append("    const bool interior = " + " && ".join(
        [f"c{d} >= {below[d]} && c{d} < n{d} - {above[d]}" for d in dims if below[d] or above[d]] or ["true"]) + ";")
    lines.append("    " + " ".join(f"double a{k} = 0.0;" for k in range(len(stencils))))
    interior, border, k = [], [], 0
    for j, st in enumerate(stencils):
        for offs, w in st:
            interior.append(f"      a{j} += (double)in[base + o{k}] * {w!r};")
            body = ["bool inside = true;"]
            body += [f"IDX j{d} = extend(c{d} + ({o}), n{d}, inside);" for d, o in enumerate(offs) if o]
            at = " + ".join(f"(long long)(j{d}) * s{d}" if o else f"(long long)c{d} * s{d}" for d, o in enumerate(offs))
            body.append(f"a{j} += (inside ? (double)in[{at}] : cval) * {w!r};")
            border.append("      { " + " ".join(body) + " }")
            k += 1
    lines += ["    if (interior) {"] + interior + ["    } else {"] + border + ["    }"]
    lines += [f"    {t} p{j} = ({t})a{j};" for j in range(len(stencils))]
    if len(stencils) == 1:
        lines.append("    out[i] = p0;")
    else:
        lines.append(f"    {t} m = p0 * p0;")
        lines += [f"    m = m + p{j} * p{j};" for j in range(1, len(stencils))]
        lines.append(f"    m = {sqrt}(m);")
        lines.append(f"    out[i] = ({t})((double)m / {scale!r});" if scale_in_double else
                     f"    out[i] = m / ({t}){scale!r};")
    lines += ["  }", "}"]
    return cupy.RawKernel("\n".join(lines), "stencil", options=("--fmad=false",))


def stencils_cuda(image, stencils, mode, cval, scale=None, scale_in_double=False):
    """The CUDA engine's n-D stencils in one sweep (a float32/float64 CuPy image): `stencils` a tuple of
    _convolution_taps results; one stencil gives its result, several the root of the sum of their squares
    divided by `scale` (rounded as _stencil_kernel says)."""
    import cupy

    code = mode_code(mode)
    out = cupy.empty(image.shape, image.dtype)
    if out.size == 0:
        return out
    item = image.dtype.itemsize
    if any(s % item for s in image.strides):
        image = cupy.ascontiguousarray(image)
    wide = out.size > 2 ** 30  # 32-bit coordinates (faster division) while the grid stride cannot overflow them
    fn = _stencil_kernel(stencils, image.ndim, code, image.dtype.char, wide,
                         None if scale is None else float(scale), scale_in_double)
    ints = np.int64 if wide else np.int32
    args = [image, out, ints(out.size)] + [ints(n) for n in image.shape] + [np.int64(s // item) for s in image.strides]
    blocks = min(-(-out.size // 256), 1 << 20)
    fn((blocks,), (256,), tuple(args) + (np.float64(real_cval(cval)),))
    return out


_ROBERTS_TAPS = (_convolution_taps(_ROBERTS_POS), _convolution_taps(_ROBERTS_NEG))


def _stencil(image, weights, mask):
    """scipy's convolve with `weights` (reflect mode), masked; on the CUDA engine one stencil kernel."""
    image = _as_float(image)
    if xp_of(image) is np:
        return _masked(_correlate_or_convolve(image, weights, None, "reflect", 0.0, 0, True, None), mask)
    return _masked(stencils_cuda(image, (_convolution_taps(weights),), "reflect", 0.0), mask)


@engine_aware("image", "mask")
def roberts_pos_diag(image, mask=None):
    """Roberts' cross kernel [[1, 0], [0, -1]] (skimage.filters.roberts_pos_diag)."""
    check_nD(image, 2)  # first: it takes scalars and None as 0-d arrays
    image = array_argument(image)
    return _stencil(image, _ROBERTS_POS, mask)


@engine_aware("image", "mask")
def roberts_neg_diag(image, mask=None):
    """Roberts' cross kernel [[0, 1], [-1, 0]] (skimage.filters.roberts_neg_diag)."""
    check_nD(image, 2)  # first: it takes scalars and None as 0-d arrays
    image = array_argument(image)
    return _stencil(image, _ROBERTS_NEG, mask)


@engine_aware("image", "mask")
def roberts(image, mask=None):
    """Edge magnitude of Roberts' cross operator (skimage.filters.roberts)."""
    check_nD(image, 2)  # first: it takes scalars and None as 0-d arrays
    image = array_argument(image)
    xp = xp_of(image)
    if xp is not np and mask is None:  # both kernels, the magnitude and its float64 division in one sweep
        return stencils_cuda(_as_float(image), _ROBERTS_TAPS, "reflect", 0.0, np.sqrt(2), scale_in_double=True)
    pos = roberts_pos_diag.__wrapped_impl__(image, mask)
    neg = roberts_neg_diag.__wrapped_impl__(image, mask)
    if xp is np:  # one threaded sweep into pos instead of four single-threaded NumPy temporaries
        _core.root_sum_squares([pos, neg], pos, float(np.sqrt(2)))
        return pos
    out = xp.sqrt(pos * pos + neg * neg)
    out /= np.sqrt(2)  # a float64 scalar: float32 results are divided in float64, as NumPy 2 does
    return out


def _laplacian_kernel(ndim):
    k = np.zeros((3,) * ndim)
    centre = (1,) * ndim
    for d in range(ndim):
        for side in (0, 2):
            k[centre[:d] + (side,) + centre[d + 1:]] = -1.0
    k[centre] = 2.0 * ndim
    return k


@engine_aware("image", "mask")
def laplace(image, ksize=3, mask=None):
    """Discrete Laplacian (the 3**ndim stencil, whatever `ksize`, as skimage.filters.laplace)."""
    image = array_argument(image)
    if image.ndim == 0:  # scikit-image's kernel construction transforms no axis
        raise ValueError("at least 1 axis must be transformed")
    return _stencil(image, _laplacian_kernel(image.ndim), mask)

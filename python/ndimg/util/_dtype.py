"""skimage.util.dtype: the img_as_* conversions and dtype_limits, written once over NumPy and CuPy.

scikit-image's rules (its ``_convert``): floats are kept by img_as_float and must lie in [-1, 1] to become
integers (scaled by the integer's maximum and rounded); integers become floats divided by their maximum
(signed ones clipped at -1); integers change width by bit shifts (exact where the widths divide), with a
"Downcasting" warning and no scaling where the values fit the narrower type; bool is the upper half of the
positive range. Pointwise work runs over blocks on the CPU engine's threads; CuPy arrays are converted whole.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._blocks import _on_threads
from .._engine import engine_aware, is_gpu_array, xp_of

_INTEGER_TYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.longlong,
                  np.ulonglong, np.intc, np.uintc, np.intp, np.uintp, int)
# scikit-image's dtype_range: the intensity range of each supported scalar type (also its key set)
dtype_range = {bool: (False, True), np.bool_: (False, True), float: (-1, 1), np.float16: (-1, 1),
               np.float32: (-1, 1), np.float64: (-1, 1)}
dtype_range.update({t: (int(np.iinfo(t).min), int(np.iinfo(t).max)) for t in _INTEGER_TYPES})


def limits_of(dtype, clip_negative=False):
    """dtype_limits of a dtype: scikit-image's range (min 0 with clip_negative); KeyError for other dtypes."""
    imin, imax = dtype_range[np.dtype(dtype).type]
    return (0 if clip_negative else imin), imax


def _limits(image, clip_negative=False):
    return limits_of(image.dtype, clip_negative)


@engine_aware("image", native=False)
def dtype_limits(image, clip_negative=False):
    """(min, max) intensity of the image's dtype (min 0 with clip_negative); KeyError for other dtypes."""
    return _limits(image, clip_negative)


def dask_dtype_limits(image, clip_negative=False):
    """A Dask array's limits (its dtype is its chunks'), as 0-d Dask arrays: Dask in, Dask out."""
    import dask.array as da

    return tuple(da.from_array(np.asarray(v)) for v in _limits(image, clip_negative))


_CHUNK = 1 << 18   # elements per block
_SERIAL_BYTES = 1 << 24   # arrays touched by a pointwise call below this: one call on the caller's thread

# ---------------------------------------------------------------------------------------------------
# the CPU engine's threads: blocks of C- (or F-) contiguous arrays, else the whole array at once
# ---------------------------------------------------------------------------------------------------
def _flat(image):
    """`image` as a 1-D view in memory order, or None where it has none (strided, or not NumPy)."""
    if type(image) is not np.ndarray:
        return None
    if image.flags.c_contiguous:
        return image.reshape(-1)
    if image.flags.f_contiguous:
        return image.T.reshape(-1)
    return None


def _put(y, out):
    """y written into `out` (a block of the result), or y itself where there is none (a whole-array call)."""
    if out is None or y is out:   # nothing to write, or written there already
        return y
    out[...] = y
    return out


def _map(image, dtype, fn, *others):
    """fn(x, *others' x, xp, out) applied pointwise (`others`: arrays of image's shape): over blocks on the
    engine's threads where all share image's memory order (fn writes each block's values into `out`, a block
    of the result, which keeps that order as NumPy's ufuncs keep it), else whole (out=None: fn returns its
    result). `dtype` is the result's dtype."""
    flats = [_flat(a) for a in (image,) + others]
    if any(f is None for f in flats) or any(a.flags.c_contiguous != image.flags.c_contiguous for a in others):
        return fn(image, *others, xp_of(image, *others))
    dtype = np.dtype(dtype).newbyteorder("=")   # native, as NumPy's ufuncs return
    out = np.empty(image.shape, dtype, order="F" if not image.flags.c_contiguous else "C")
    oflat = out.reshape(-1) if out.flags.c_contiguous else out.T.reshape(-1)

    if out.nbytes + sum(f.nbytes for f in flats) < _SERIAL_BYTES:   # starting threads would cost more
        fn(*flats, np, out=oflat)
    else:
        _blocks(lambda o, *x: fn(*x, np, out=o), oflat, *flats)
    return out


def _blocks(fn, *flats):
    """fn(*blocks) over matching blocks of 1-D arrays on the engine's threads. Blocks of _CHUNK elements:
    each keeps its operands in a core's cache through a chain of operations, and few blocks mean few hand-overs
    of the GIL between the threads (each costs a scheduling delay on a busy machine)."""
    n = flats[0].size

    def run(first, last):
        for at in range(first * _CHUNK, min(last * _CHUNK, n), _CHUNK):
            fn(*(f[at:at + _CHUNK] for f in flats))

    _on_threads(run, -(-n // _CHUNK))


def _reduce(image, op):
    """op (np.min or np.max) over the whole image, block results combined on the engine's threads; NaN
    propagates as in op over the whole image."""
    flat = _flat(image)
    if flat is None:
        return op(image)
    parts = []
    _blocks(lambda x: parts.append(op(x)), flat)
    return op(np.asarray(parts, dtype=image.dtype))


# ---------------------------------------------------------------------------------------------------
# scikit-image's _convert
# ---------------------------------------------------------------------------------------------------
def _dtype_itemsize(itemsize, *dtypes):
    """The first of `dtypes` at least `itemsize` bytes wide."""
    return next(np.dtype(d) for d in dtypes if np.dtype(d).itemsize >= itemsize)


def _dtype_bits(kind, bits, itemsize=1):
    """The integer dtype of `kind` (at least `itemsize` bytes) holding a `bits` wide unsigned value."""
    size = next(i for i in (itemsize, 2, 4, 8) if bits < 8 * i or (bits == 8 * i and kind == "u"))
    return np.dtype(f"{kind}{size}")


def _scale_fn(a, n, m, kind, itemsize, vmax=None):
    """fn(x, xp, out=None) scaling unsigned/positive integers of `kind` from `n` to `m` bits (and its result dtype):
    exact where m is a multiple of n, else through the next multiple and a division. Downscaling where
    every value already fits `m` bits (`vmax`: the maximum, of the whole image) casts without scaling."""
    if n > m:
        if vmax is None:
            vmax = _reduce(a, np.max)
        if vmax < 2 ** m:
            mnew = -(-m // 2) * 2
            name = f"int{mnew}" if mnew > m else f"uint{mnew}"
            warnings.warn(f"Downcasting {a.dtype} to {name} without scaling because max value {vmax} fits in "
                          f"{name}", stacklevel=5)
            dt = _dtype_bits(kind, m)
            return (lambda x, xp, out=None: x.astype(dt) if out is None else _put(x, out)), dt
        dt = _dtype_bits(kind, m)
        k = 2 ** (n - m)
        return (lambda x, xp, out=None: _put(xp.floor_divide(x, k, dtype=x.dtype).astype(dt), out)), dt
    if n == m:
        return (lambda x, xp, out=None: _put(x, out)), np.dtype(a.dtype)
    if m % n == 0:
        dt = _dtype_bits(kind, m, itemsize)
        k = (2 ** m - 1) // (2 ** n - 1)
        return (lambda x, xp, out=None: xp.multiply(x, k, dtype=dt, out=out)), dt
    o = (m // n + 1) * n
    dt = _dtype_bits(kind, o, itemsize)
    k, d = (2 ** o - 1) // (2 ** n - 1), 2 ** (o - m)

    def up_then_down(x, xp, out=None):
        y = xp.multiply(x, k, dtype=dt, out=out)
        y //= d
        return y

    return up_then_down, dt


def cast_like_host(y, dtype):
    """Floats `y` cast to `dtype` as NumPy casts them on the host. Casts of NaN and of values whose truncation
    lies outside an integer dtype are C's undefined conversions: x86's give the 'integer indefinite' value or
    wrap around (as scikit-image's results hold them), CUDA's saturate; on the GPU those few elements are cast
    on the host. (The host's own casts of NaN and values below -2**63 to uint32 depend on the element's place
    in NumPy's SIMD loop: 0 or 2**31.)"""
    dtype = np.dtype(dtype)
    out = y.astype(dtype)
    if not is_gpu_array(y) or dtype.kind not in "iu":
        return out
    info = np.iinfo(dtype)
    # bounds of powers of two, exact in every float type (or past float16's range: infinite, every value is
    # inside); the signed ones leave out (min - 1, min), which the host casts too
    upper = float(info.max + 1)
    outside = ~((y > -1.0) & (y < upper) if dtype.kind == "u" else (y >= float(info.min)) & (y < upper))   # NaN too
    if bool(outside.any()):
        o, v, m = (a if a.ndim else a.reshape(1) for a in (out, y, outside))   # 0-d: a 1-element view
        with np.errstate(invalid="ignore", over="ignore"):
            o[m] = xp_of(o).asarray(v[m].get().astype(dtype))
    return out


def _converter(image, dtype_out, vmax=None):
    """fn(x, xp, out=None) converting values of image's dtype to `dtype_out` pointwise (both supported, different);
    `vmax`: the image's maximum where known (Dask: of all chunks)."""
    din, dout = image.dtype, np.dtype(dtype_out)
    tin, tout = din.type, dout.type
    kin, kout = din.kind, dout.kind
    if kout == "b":
        threshold = tin(dtype_range[tin][1] / 2)
        return lambda x, xp, out=None: xp.greater(x, threshold, out=out)
    if kin == "b":
        if kout == "f":
            return lambda x, xp, out=None: _put(x, out) if out is not None else x.astype(dout)
        top = tout(dtype_range[tout][1])

        def from_bool(x, xp, out=None):
            y = _put(x, out) if out is not None else x.astype(dout)
            y *= top
            return y

        return from_bool
    if kin == "f":
        if kout == "f":
            return lambda x, xp, out=None: _put(x, out) if out is not None else x.astype(dout)
        if _reduce(image, np.min) < -1.0 or _reduce(image, np.max) > 1.0:
            raise ValueError("Images of type float must be between -1 and 1.")
        if image.ndim == 0:   # scikit-image rounds in place into the NumPy scalar a 0-d product is
            raise TypeError("return arrays must be of ArrayType")
        ct = _dtype_itemsize(dout.itemsize, tin, np.float32, np.float64)
        info = np.iinfo(dout)
        scale = info.max if kout == "u" else (info.max - info.min) / 2

        def float_to_int(x, xp, out=None):
            y = xp.multiply(x, scale, dtype=ct)
            if kout == "i":
                y -= 1.0 / 2.0
            xp.rint(y, out=y)
            xp.clip(y, info.min, info.max, out=y)
            # the clip leaves NaN, and its upper bound rounds past the maximum in float16 (65535 -> inf)
            return _put(y, out) if out is not None else cast_like_host(y, dout)

        return float_to_int
    imax_in = np.iinfo(din).max
    if kout == "f":
        # a float type holding the integers exactly, where one of the candidates does
        if kin == "i" and image.ndim == 0:   # as scikit-image's in-place clip at -1 of a NumPy scalar
            raise TypeError("return arrays must be of ArrayType")
        ct = _dtype_itemsize(din.itemsize, tout, np.float32, np.float64)
        s = 1.0 / imax_in

        def int_to_float(x, xp, out=None):
            y = xp.multiply(x, s, dtype=ct, out=out if ct == dout else None)
            if kin == "i":
                xp.maximum(y, -1.0, out=y)
            return _put(y, out) if out is not None else y.astype(dout, copy=False)

        return int_to_float
    bits_in, bits_out = 8 * din.itemsize, 8 * dout.itemsize
    if kin == "u":
        scale, scaled = _scale_fn(image, bits_in, bits_out - (kout == "i"), "u", 1, vmax)
        if kout == "i":   # the unsigned values of the signed width, viewed as signed (as scikit-image views them)
            return lambda x, xp, out=None: scale(x, xp).view(dout) if out is None else scale(x, xp, out.view(scaled))
        return scale
    if kout == "u":
        scale, dt = _scale_fn(image, bits_in - 1, bits_out, "i", 1, vmax)

        def signed_to_unsigned(x, xp, out=None):
            y = xp.maximum(scale(x, xp), 0, dtype=dt)
            return _put(y, out) if out is not None else y.astype(dout)

        return signed_to_unsigned
    if din.itemsize > dout.itemsize:
        return _scale_fn(image, bits_in - 1, bits_out - 1, "i", 1, vmax)[0]
    # widen: shift to non-negative values, scale the unsigned range, shift back
    wide = _dtype_bits("i", bits_out)
    imin_in, imin_out = np.iinfo(din).min, np.iinfo(dout).min
    scale, _ = _scale_fn(np.empty(0, wide), bits_in, bits_out, "i", wide.itemsize)

    def widen(x, xp, out=None):
        y = x.astype(wide)
        y -= imin_in
        y = scale(y, xp)
        y += imin_out
        return _put(y, out) if out is not None else y.astype(dout)

    return widen


def _target(dtype):
    return np.dtype(np.float64) if dtype is np.floating else np.dtype(dtype)


def _passes(image, dtype):
    """Whether scikit-image returns `image` unconverted: its dtype is `dtype` or a subtype (np.floating)."""
    return np.issubdtype(image.dtype.type, dtype)


def _check(image, dtype):
    din, dout = image.dtype, _target(dtype)
    if din.type not in dtype_range or dout.type not in dtype_range:
        raise ValueError(f"Cannot convert from {din} to {dout}.")


def convert(image, dtype, force_copy=False):
    """scikit-image's _convert of a NumPy or CuPy array (lists and scalars become NumPy arrays): `image`
    itself where its dtype already is `dtype` (np.floating: any float), a copy with force_copy."""
    if not hasattr(image, "__cuda_array_interface__"):
        image = np.asarray(image)
    if _passes(image, dtype):
        return image.copy() if force_copy else image
    _check(image, dtype)
    dout = _target(dtype)
    return _map(image, np.dtype(bool) if dout.kind == "b" else dout, _converter(image, dout))


def _needs_max(din, dout):
    """Whether converting integers of `din` to `dout` looks at the image's maximum (a narrowing)."""
    bits_in = 8 * din.itemsize - (din.kind == "i")
    bits_out = 8 * dout.itemsize - (dout.kind == "i")
    return din.kind in "iu" and dout.kind in "iu" and bits_in > bits_out


def _dask_convert(image, dtype, force_copy):
    """Dask arrays: each chunk converted as the whole image would be (a narrowing's maximum is the whole
    array's, a lazy reduction handed to every chunk; the float range is checked per chunk, raising when that
    chunk computes)."""
    import dask.array as da

    if _passes(image, dtype):
        return image.copy() if force_copy else image
    _check(image, dtype)
    dout = _target(dtype)
    rdt = np.dtype(bool) if dout.kind == "b" else dout
    meta = image._meta.astype(rdt)   # given, so that no conversion runs on an empty chunk to find it
    if not _needs_max(image.dtype, dout):
        return image.map_blocks(lambda b: _map(b, rdt, _converter(b, dout)), dtype=rdt, meta=meta)
    return da.map_blocks(lambda b, vmax: _map(b, rdt, _converter(b, dout, vmax[()])), image, image.max(), dtype=rdt,
                         meta=meta)


def _public(dtype, name, doc):
    def img_as(image, force_copy=False):
        return convert(image, dtype, force_copy)

    def dask_img_as(image, force_copy=False):
        return _dask_convert(image, dtype, force_copy)

    for f, n in ((img_as, name), (dask_img_as, f"dask_{name}")):
        f.__name__ = f.__qualname__ = n
        f.__doc__ = f"skimage.util.{name}: {doc}"
    return engine_aware("image", native=False)(img_as), dask_img_as


img_as_float, dask_img_as_float = _public(np.floating, "img_as_float", "floats kept as they are (float16 too); other "
                                          "dtypes as float64 in [0, 1] (unsigned, bool) or [-1, 1] (signed).")
img_as_float32, dask_img_as_float32 = _public(np.float32, "img_as_float32", "float32 ([-1, 1] from integers).")
img_as_float64, dask_img_as_float64 = _public(np.float64, "img_as_float64", "float64 ([-1, 1] from integers).")
img_as_int, dask_img_as_int = _public(np.int16, "img_as_int", "int16 (floats in [-1, 1] scaled to the int16 range).")
img_as_uint, dask_img_as_uint = _public(np.uint16, "img_as_uint", "uint16 (negative values clipped).")
img_as_ubyte, dask_img_as_ubyte = _public(np.uint8, "img_as_ubyte", "uint8 (negative values clipped).")
img_as_bool, dask_img_as_bool = _public(bool, "img_as_bool", "bool: the upper half of the dtype's positive range.")

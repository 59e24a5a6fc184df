"""The rank family (scipy.ndimage semantics): 1-D and n-D minimum/maximum filters (separable over
rectangles), median, rank and percentile filters over any footprint."""
from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr
from ._footprint import (check_footprint_shape, expand_footprint, expand_origin, run_into,
                         single_mode, tap_offsets, to_host)
from ._support import (as_input, check_dtype, check_origin_1d, get_output, may_share, mode_code, native_output,
                       no_complex, normalize_axes, normalize_axis, per_axis, real_cval)


def _min_max_1d(input, size, axis, output, mode, cval, origin, minimum):
    input = as_input(input)
    no_complex(input)
    axis = normalize_axis(axis, input.ndim)
    if size < 1:
        raise RuntimeError("incorrect filter size")
    out = get_output(output, input)
    check_dtype(out.dtype, real=True)
    origin = check_origin_1d(size, origin)
    code = mode_code(mode)
    src = input.copy() if may_share(input, out) else input
    _core.min_max_filter1d(src, out, operator.index(size), axis, code, real_cval(cval), origin, minimum,
                           stream_ptr(out))
    return out


@engine_aware("input", "output")
@native_output
def minimum_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """Sliding minimum of `size` elements along `axis` (scipy.ndimage.minimum_filter1d)."""
    return _min_max_1d(input, size, axis, output, mode, cval, origin, True)


@engine_aware("input", "output")
@native_output
def maximum_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0):
    """Sliding maximum of `size` elements along `axis` (scipy.ndimage.maximum_filter1d)."""
    return _min_max_1d(input, size, axis, output, mode, cval, origin, False)


def _separable_min_max(input, out, passes, cval, minimum):
    """1-D passes (axis, size, origin, mode) from input into out; intermediates in out's dtype as scipy
    has them, alternating with one scratch array so that no pass reads what it writes."""
    for _, size, origin, mode in passes:
        check_origin_1d(size, origin)
    codes = [mode_code(m) for _, _, _, m in passes]
    if not passes:
        out[...] = input
        return
    tmp = get_output(out.dtype, input) if len(passes) > 1 else None
    src = input.copy() if may_share(input, out) else input
    for j, ((axis, size, origin, _), code) in enumerate(zip(passes, codes)):
        dst = out if (len(passes) - 1 - j) % 2 == 0 else tmp
        _core.min_max_filter1d(src, dst, size, axis, code, real_cval(cval), origin, minimum, stream_ptr(dst))
        src = dst


def _footprint_rank(input, footprint, rank, output, code, cval, origins):
    output = get_output(output, input)
    check_dtype(output.dtype, False, real=True)
    offsets, _ = tap_offsets(footprint, origins)
    return run_into(output, input, lambda src, dst: _core.rank_filter(
        src, dst, offsets, int(rank), code, real_cval(cval), stream_ptr(dst)))


def _check_footprint_origins(footprint, origins):
    for o, n in zip(origins, footprint.shape):
        if n // 2 + o < 0 or n // 2 + o >= n:
            raise ValueError("invalid origin")


def _min_or_max_filter(input, size, footprint, output, mode, cval, origin, minimum, axes):
    if size is not None and footprint is not None:
        warnings.warn("ignoring size because footprint is set", UserWarning, stacklevel=3)
    if footprint is None:
        if size is None:
            raise RuntimeError("no footprint provided")
        separable = True
    else:
        footprint = np.asarray(to_host(footprint), dtype=bool)
        if not footprint.any():
            raise ValueError("All-zero footprint is not supported.")
        separable = bool(footprint.all())
        if separable:
            size, footprint = footprint.shape, None
    input = as_input(input)
    no_complex(input)
    out = get_output(output, input)
    check_dtype(out.dtype, real=True)
    axes = normalize_axes(axes, input.ndim)
    if separable:
        n = len(axes)
        origins, sizes, modes = per_axis(origin, n), per_axis(size, n), per_axis(mode, n)
        passes = [(axes[i], int(sizes[i]), int(origins[i]), modes[i]) for i in range(n) if sizes[i] > 1]
        _separable_min_max(input, out, passes, cval, minimum)
        return out
    footprint = expand_footprint(input.ndim, axes, footprint)
    origins = expand_origin(input.ndim, axes, origin)
    check_footprint_shape(footprint, input.ndim, len(axes))
    _check_footprint_origins(footprint, origins)
    code = single_mode(mode, " for non-separable footprints")
    # scipy's NI_MinOrMaxFilter: the grey morphology primitive with a flat (empty) structure
    offsets, _ = tap_offsets(footprint, origins)
    return run_into(out, input, lambda src, dst: _core.grey_filter(
        src, dst, offsets, [], minimum, code, real_cval(cval), stream_ptr(dst)))


@engine_aware("input", "output")
@native_output
def minimum_filter(input, size=None, footprint=None, output=None, mode="reflect", cval=0.0, origin=0, *,
                   axes=None):
    """Multidimensional minimum filter (scipy.ndimage.minimum_filter): separable 1-D passes for boxes."""
    return _min_or_max_filter(input, size, footprint, output, mode, cval, origin, True, axes)


@engine_aware("input", "output")
@native_output
def maximum_filter(input, size=None, footprint=None, output=None, mode="reflect", cval=0.0, origin=0, *,
                   axes=None):
    """Multidimensional maximum filter (scipy.ndimage.maximum_filter): separable 1-D passes for boxes."""
    return _min_or_max_filter(input, size, footprint, output, mode, cval, origin, False, axes)


# Most taps of a box built from `size`: beyond it the offsets alone take gigabytes and any image hours, so
# scipy's allocation fails too (MemoryError; its 1-D filter computes up to about 10**7 on 8 GiB).
_MAX_BOX_TAPS = 1 << 22


def _resolve_rank(rank, filter_size, operation):
    """scipy's rank for `operation` over `filter_size` taps, checked."""
    if operation == "median":
        rank = filter_size // 2
    elif operation == "percentile":
        percentile = rank
        if percentile < 0.0:
            percentile += 100.0
        if percentile < 0 or percentile > 100:
            raise RuntimeError("invalid percentile")
        rank = filter_size - 1 if percentile == 100.0 else int(float(filter_size) * percentile / 100.0)
    if rank < 0:
        rank += filter_size
    if rank < 0 or rank >= filter_size:
        raise RuntimeError("rank not within filter footprint size")
    return rank


def _rank_filter(input, rank, size, footprint, output, mode, cval, origin, operation, axes):
    if size is not None and footprint is not None:
        warnings.warn("ignoring size because footprint is set", UserWarning, stacklevel=3)
    input = as_input(input, dtype_in_message=False)
    no_complex(input)
    axes = normalize_axes(axes, input.ndim)
    if footprint is None:
        if size is None:
            raise RuntimeError("no footprint or filter size provided")
        sizes = [operator.index(n) for n in per_axis(size, len(axes))]
        taps = math.prod(sizes)
        if taps > _MAX_BOX_TAPS and min(sizes) > 0:  # decided before any footprint exists: memory stays bounded by the image
            rank = _resolve_rank(rank, taps, operation)
            if rank in (0, taps - 1):  # the box's minimum/maximum: separable passes, clipped to the image
                return _min_or_max_filter(input, sizes, None, output, mode, cval, origin, rank == 0, axes)
            raise MemoryError(f"a box of {taps} elements is too large for a rank filter (at most {_MAX_BOX_TAPS})")
        footprint = np.ones(sizes, dtype=bool)
    else:
        footprint = np.asarray(to_host(footprint), dtype=bool)
    footprint = expand_footprint(input.ndim, axes, footprint)
    origins = expand_origin(input.ndim, axes, origin)
    if not isinstance(mode, str) and np.iterable(mode):  # per-axis modes: 'constant' on unfiltered axes
        full = ["constant"] * input.ndim
        for m, ax in zip(per_axis(mode, len(axes)), axes):
            full[ax] = m
        mode = full
    check_footprint_shape(footprint, input.ndim, len(axes))
    _check_footprint_origins(footprint, origins)
    filter_size = int(footprint.sum())
    rank = _resolve_rank(rank, filter_size, operation)
    if rank == 0 or rank == filter_size - 1:
        return _min_or_max_filter(input, None, footprint, output, mode, cval, origins, rank == 0, None)
    code = single_mode(mode, " by non-separable rank filters")
    return _footprint_rank(input, footprint, rank, output, code, cval, origins)


@engine_aware("input", "output")
@native_output
def rank_filter(input, rank, size=None, footprint=None, output=None, mode="reflect", cval=0.0, origin=0, *,
                axes=None):
    """Multidimensional rank filter (scipy.ndimage.rank_filter): rank-th smallest over the footprint."""
    return _rank_filter(input, operator.index(rank), size, footprint, output, mode, cval, origin, "rank", axes)


@engine_aware("input", "output")
@native_output
def median_filter(input, size=None, footprint=None, output=None, mode="reflect", cval=0.0, origin=0, *,
                  axes=None):
    """Multidimensional median filter (scipy.ndimage.median_filter): element n // 2 of the sorted
    footprint values. 3x3 and 5x5 boxes of 2-D images take a register-resident path on the GPU."""
    return _rank_filter(input, 0, size, footprint, output, mode, cval, origin, "median", axes)


@engine_aware("input", "output")
@native_output
def percentile_filter(input, percentile, size=None, footprint=None, output=None, mode="reflect", cval=0.0,
                      origin=0, *, axes=None):
    """Multidimensional percentile filter (scipy.ndimage.percentile_filter)."""
    return _rank_filter(input, percentile, size, footprint, output, mode, cval, origin, "percentile", axes)

"""Footprints as tap lists for the n-D filters (correlate, the rank family), with scipy.ndimage's
argument rules: axes, expanded footprints and origins, origin checks, outputs that may not overlap."""
from __future__ import annotations

import functools
import math
from collections.abc import Iterable

import numpy as np

from ._support import get_output, may_share, mode_code, per_axis


def to_host(a):
    """A small argument (weights, footprint) as a NumPy array, whatever library holds it."""
    if hasattr(a, "get") and not isinstance(a, np.ndarray):
        return a.get()
    if type(a).__module__.split(".", 1)[0] == "torch":
        return a.detach().cpu().numpy()
    return np.asarray(a)


def expand_footprint(ndim, axes, footprint, name="footprint"):
    """A footprint given over `axes` gets length-1 dimensions for the other axes."""
    if len(axes) < ndim:
        if footprint.ndim != len(axes):
            raise RuntimeError(f"{name}.ndim ({footprint.ndim}) must match len(axes) ({len(axes)})")
        footprint = np.expand_dims(footprint, tuple(ax for ax in range(ndim) if ax not in axes))
    return footprint


def expand_origin(ndim, axes, origin):
    origins = per_axis(origin, len(axes))
    if len(axes) < ndim:
        full = [0] * ndim
        for o, ax in zip(origins, axes):
            full[ax] = o
        origins = full
    return [int(o) for o in origins]


def check_footprint_shape(footprint, ndim, naxes, name="footprint"):
    shape = [s for s in footprint.shape if s > 0]
    if len(shape) != ndim:
        raise RuntimeError(f"{name}.ndim ({len(shape)}) must match len(axes) ({naxes})")


def single_mode(mode, what):
    if not isinstance(mode, str) and isinstance(mode, Iterable):
        raise RuntimeError(f"A sequence of modes is not supported{what}")
    return mode_code(mode)


def tap_offsets(footprint, origins):
    """Flattened (K x ndim) offsets of the nonzero footprint entries relative to the output element, in
    C order, and their indices into the footprint."""
    key = (footprint.shape, np.packbits(footprint, axis=None).tobytes(), tuple(origins))
    # footprints up to _CACHED_TAPS elements are remembered (a filter over many images computes them once);
    # larger ones are not, so that the cache holds at most 64 small entries
    return (_cached_tap_offsets if footprint.size <= _CACHED_TAPS else _tap_offsets)(*key)


_CACHED_TAPS = 1 << 16


def _tap_offsets(shape, bits, origins):
    footprint = np.unpackbits(np.frombuffer(bits, np.uint8), count=math.prod(shape)).reshape(shape)
    idx = np.argwhere(footprint)
    centre = np.array([s // 2 + o for s, o in zip(shape, origins)], dtype=np.int64)
    return tuple((idx - centre).ravel().tolist()), tuple(idx.T)


_cached_tap_offsets = functools.lru_cache(maxsize=64)(_tap_offsets)


def run_into(output, input, fill):
    """fill(src, dst) with an output that does not overlap the input (scipy's temporary)."""
    out = get_output(output, input)
    if may_share(input, out):
        tmp = get_output(out.dtype, input)
        fill(input, tmp)
        out[...] = tmp
    else:
        fill(input, out)
    return out

"""Binary morphology (scipy.ndimage semantics): erosion, dilation, opening, closing, hit-or-miss, propagation
and hole filling, all made of one primitive, the binary erosion over a structure's taps (a dilation is
scipy's erosion of the complement by the reflected structure); and the structure helpers."""
from __future__ import annotations

import operator

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from .._prim import label
from ._footprint import expand_footprint, expand_origin, tap_offsets, to_host
from ._support import get_output, may_share, normalize_axes, per_axis


def generate_binary_structure(rank, connectivity):
    """The 3**rank structure of the elements within `connectivity` axis steps of the centre
    (scipy.ndimage.generate_binary_structure); a 0-d True for rank < 1."""
    if connectivity < 1:
        connectivity = 1
    if rank < 1:
        return np.array(True, dtype=bool)
    steps = np.abs(np.indices([3] * rank) - 1)
    return steps.sum(axis=0) <= connectivity


def iterate_structure(structure, iterations, origin=None):
    """The structure dilated by itself `iterations - 1` times (scipy.ndimage.iterate_structure); with
    `origin`, also that origin scaled by `iterations`."""
    structure = np.asarray(to_host(structure))
    if iterations < 2:
        return structure.copy()
    ni = iterations - 1
    shape = [n + ni * (n - 1) for n in structure.shape]
    at = tuple(slice(ni * (n // 2), ni * (n // 2) + n) for n in structure.shape)
    out = np.zeros(shape, bool)
    out[at] = structure != 0
    out = binary_dilation(out, structure, iterations=ni)
    if origin is None:
        return out
    return out, [iterations * o for o in per_axis(origin, structure.ndim)]


def _as_array(x):
    if not hasattr(x, "dtype") or not hasattr(x, "shape"):
        x = np.asarray(x)
    if isinstance(x, np.ndarray) and not x.dtype.isnative:
        x = x.astype(x.dtype.newbyteorder("="))
    return x


def _is_array(x):
    """An output array (scipy takes any other output as bool)."""
    return not isinstance(x, (type, np.dtype, str)) and hasattr(x, "shape") and hasattr(x, "dtype")


def _check_data(x):
    """The dtypes scipy's C layer reads (bool, integers, float32/64), with its RuntimeError."""
    dt = x.dtype
    if dt.kind not in "biuf" or (dt.kind == "f" and dt.itemsize not in (4, 8)):
        raise RuntimeError("data type not supported")


def _reflected(structure, origin, num_axes):
    """scipy's dilation structure and origins: the structure reversed along every axis, the origins negated
    (and one less along even lengths)."""
    if structure is None:
        structure = generate_binary_structure(num_axes, 1)
    origin = per_axis(origin, num_axes)
    structure = np.asarray(to_host(structure))
    structure = structure[(slice(None, None, -1),) * structure.ndim]
    for i in range(len(origin)):
        origin[i] = -origin[i]
        if not structure.shape[i] & 1:
            origin[i] -= 1
    return structure, origin


def _erode(input, structure, iterations, mask, output, border_value, origin, invert, axes):
    """scipy's _binary_erosion: the argument rules, then the primitive; returns the output array."""
    try:
        iterations = operator.index(iterations)
    except TypeError as e:
        raise TypeError("iterations parameter should be an integer") from e
    input = _as_array(input)
    if input.dtype.kind == "c":
        raise TypeError("Complex type not supported")
    ndim = input.ndim
    axes = normalize_axes(axes, ndim)
    num_axes = len(axes)
    if structure is None:
        structure = generate_binary_structure(num_axes, 1)
    else:
        structure = np.asarray(to_host(structure), dtype=bool)
    if ndim > num_axes:
        structure = expand_footprint(ndim, axes, structure, "structure")
    if structure.ndim != ndim:
        raise RuntimeError("structure and input must have same dimensionality")
    if structure.size < 1:
        raise RuntimeError("structure must not be empty")
    if mask is not None:
        mask = _as_array(mask)
        if mask.shape != input.shape:
            raise RuntimeError("mask and input must have equal sizes")
    origin = expand_origin(ndim, axes, per_axis(origin, num_axes))
    centre = tuple(o + s // 2 for s, o in zip(structure.shape, origin))
    if any(c < 0 for c in centre):  # scipy indexes from the end there and may crash
        raise ValueError("invalid origin")
    cit = bool(structure[centre])  # IndexError beyond the structure, as scipy
    if _is_array(output):
        if output.dtype.kind == "c":
            raise TypeError("Complex output type not supported")
    else:
        output = bool  # scipy ignores a dtype: the result is bool
    out = get_output(output, input)
    _check_data(input)
    if mask is not None:
        _check_data(mask)
    border_value = operator.index(int(border_value) if isinstance(border_value, (bool, np.bool_)) else border_value)
    if input.ndim == 0:  # one element: its own tap
        input, structure, origin = input.reshape(1), structure.reshape(1), [0]
        mask = None if mask is None else mask.reshape(1)
    direct = out.dtype == bool and out.shape == input.shape and not may_share(input, out) and (
        mask is None or not may_share(mask, out))
    res = out if direct else xp_of(input).empty(input.shape, dtype=bool)
    offsets, _ = tap_offsets(structure, origin)
    _core.binary_erosion(input, res, offsets, input if mask is None else mask, mask is not None,
                         bool(border_value), bool(invert), cit, iterations, stream_ptr(res))
    if not direct:
        out[...] = res.reshape(out.shape)
    return out


def _dilate(input, structure, iterations, mask, output, border_value, origin, axes):
    input = _as_array(input)
    structure, origin = _reflected(structure, origin, len(normalize_axes(axes, input.ndim)))
    return _erode(input, structure, iterations, mask, output, border_value, origin, True, axes)


@engine_aware("input", "mask", "output")
def binary_erosion(input, structure=None, iterations=1, mask=None, output=None, border_value=0, origin=0,
                   brute_force=False, *, axes=None):
    """Multidimensional binary erosion (scipy.ndimage.binary_erosion); iterations < 1 repeat until nothing
    changes. brute_force only chooses scipy's algorithm: the result is the same."""
    return _erode(input, structure, iterations, mask, output, border_value, origin, False, axes)


@engine_aware("input", "mask", "output")
def binary_dilation(input, structure=None, iterations=1, mask=None, output=None, border_value=0, origin=0,
                    brute_force=False, *, axes=None):
    """Multidimensional binary dilation (scipy.ndimage.binary_dilation)."""
    return _dilate(input, structure, iterations, mask, output, border_value, origin, axes)


def _default_structure(input, structure, axes):
    input = _as_array(input)
    if structure is None:
        structure = generate_binary_structure(len(normalize_axes(axes, input.ndim)), 1)
    return input, structure


@engine_aware("input", "mask", "output")
def binary_opening(input, structure=None, iterations=1, output=None, origin=0, mask=None, border_value=0,
                   brute_force=False, *, axes=None):
    """Binary opening (scipy.ndimage.binary_opening): erosion, then dilation by the same structure."""
    input, structure = _default_structure(input, structure, axes)
    tmp = _erode(input, structure, iterations, mask, None, border_value, origin, False, axes)
    return _dilate(tmp, structure, iterations, mask, output, border_value, origin, axes)


@engine_aware("input", "mask", "output")
def binary_closing(input, structure=None, iterations=1, output=None, origin=0, mask=None, border_value=0,
                   brute_force=False, *, axes=None):
    """Binary closing (scipy.ndimage.binary_closing): dilation, then erosion by the same structure."""
    input, structure = _default_structure(input, structure, axes)
    tmp = _dilate(input, structure, iterations, mask, None, border_value, origin, axes)
    return _erode(tmp, structure, iterations, mask, output, border_value, origin, False, axes)


@engine_aware("input", "output")
def binary_hit_or_miss(input, structure1=None, structure2=None, output=None, origin1=0, origin2=None, *,
                       axes=None):
    """Binary hit-or-miss transform (scipy.ndimage.binary_hit_or_miss): where structure1 fits the set and
    structure2 (default: its complement) fits the background. With an output array, fills it and returns
    None, as scipy."""
    input = _as_array(input)
    num_axes = len(normalize_axes(axes, input.ndim))
    structure1 = generate_binary_structure(num_axes, 1) if structure1 is None else np.asarray(to_host(structure1))
    if structure2 is None:
        structure2 = np.logical_not(structure1)
    origin1 = per_axis(origin1, num_axes)
    origin2 = origin1 if origin2 is None else per_axis(origin2, num_axes)
    hit = _erode(input, structure1, 1, None, None, 0, origin1, False, axes)
    inplace = _is_array(output)
    miss = _erode(input, structure2, 1, None, output if inplace else None, 0, origin2, True, axes)
    xp = xp_of(hit)
    if inplace:
        output[...] = xp.logical_and(hit, xp.logical_not(miss))
        return None
    return xp.logical_and(hit, xp.logical_not(miss))


def _components_structure(ndim, structure, origin, axes, output):
    """The structure where propagation until stable is a seeded connected-components problem, else None:
    a symmetric 3**ndim structure holding its centre (scipy's default, the face neighbours, included) over
    every axis, no origin, and a result of our own (not an output array). An element then reads a set one
    exactly when that one reads it, so the result is the components of seed | mask that hold a seed: linear
    time on either engine instead of passes until stable."""
    if ndim < 1 or _is_array(output) or axes is not None and len(normalize_axes(axes, ndim)) != ndim:
        return None
    if any(o != 0 for o in np.ravel(np.asarray(origin, dtype=object))):
        return None
    if structure is None:
        return generate_binary_structure(ndim, 1)
    s = np.asarray(to_host(structure), dtype=bool)
    if s.shape != (3,) * ndim or not s[(1,) * ndim] or not np.array_equal(s, s[(slice(None, None, -1),) * ndim]):
        return None
    return s


def _reached(seed, mask, border, structure):
    """Propagation of `seed` (or none) through `mask` by the steps of `structure` until stable; with
    `border`, from the mask's elements next to the array's faces too (along the axes the structure steps
    along). `seed` and `mask` are bool arrays of our own: they are overwritten."""
    xp = xp_of(mask)
    if mask.size == 0:
        return xp.zeros(mask.shape, dtype=bool)
    face = np.array_equal(structure, generate_binary_structure(mask.ndim, 1))
    # bit 0: in the mask; any higher bit: a seed (label's set is cls > 0, its seeds cls > 1)
    cls = mask.view(np.uint8)
    if seed is not None:
        seed = seed.view(np.uint8)
        cls |= xp.left_shift(seed, 1, out=seed)
    if border:
        for d, n in enumerate(mask.shape):
            if not structure.any(axis=tuple(a for a in range(mask.ndim) if a != d))[[0, 2]].any():
                continue   # no step along axis d: its faces are not reached
            # both faces in one step; OR with the shift keeps every bit, so edges seen twice stay seeds
            ends = cls[(slice(None),) * d + (slice(None, None, max(n - 1, 1)),)]
            xp.bitwise_or(ends, ends << 1, out=ends)
    if face:   # the union-find of hysteresis: the kept components straight away
        return label.seeded_components(cls, low=0.5, high=1.5)
    labels = xp.empty(mask.shape, dtype=np.int32 if mask.size < 2**31 else np.int64)
    count = label.label(cls, structure=structure, out=labels)
    keep = xp.zeros(count + 1, dtype=bool)
    keep[labels[cls > 1]] = True
    return keep[labels]


@engine_aware("input", "mask", "output")
def binary_propagation(input, structure=None, mask=None, output=None, border_value=0, origin=0, *, axes=None):
    """Binary propagation (scipy.ndimage.binary_propagation): dilation inside `mask` until nothing
    changes."""
    input = _as_array(input)
    components = _components_structure(input.ndim, structure, origin, axes, output)
    if components is not None:
        mask = xp_of(input).ones(input.shape, bool) if mask is None else _as_array(mask)
        if mask.shape != input.shape:
            raise RuntimeError("mask and input must have equal sizes")
        if input.dtype.kind == "c":
            raise TypeError("Complex type not supported")
        _check_data(input)
        _check_data(mask)
        border_value = operator.index(int(border_value) if isinstance(border_value, (bool, np.bool_)) else border_value)
        return _reached(input != 0, mask != 0, bool(border_value), components)
    return _dilate(input, structure, -1, mask, output, border_value, origin, axes)


@engine_aware("input", "output")
def binary_fill_holes(input, structure=None, output=None, origin=0, *, axes=None):
    """Fills the holes of binary objects (scipy.ndimage.binary_fill_holes): the background not reached from
    the border by propagation through the background. With an output array, fills it and returns None."""
    input = _as_array(input)
    xp = xp_of(input)
    mask = input == 0   # NumPy's logical_not, for complex input too (CuPy's has no complex loop)
    components = _components_structure(input.ndim, structure, origin, axes, output)
    if components is not None:
        reached = _reached(None, mask, True, components)
        return xp.logical_not(reached, out=reached)
    seed = xp.zeros(mask.shape, bool)
    if _is_array(output):
        _dilate(seed, structure, -1, mask, output, 1, origin, axes)
        xp.logical_not(output, out=output)
        return None
    reached = _dilate(seed, structure, -1, mask, None, 1, origin, axes)
    return xp.logical_not(reached, out=reached)

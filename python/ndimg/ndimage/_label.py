"""scipy.ndimage's labels: label, find_objects, value_indices and watershed_ift (scipy 1.17 semantics)."""
from __future__ import annotations

import functools
import gc
import operator

import numpy as np

from .._engine import engine_aware, is_gpu_array, xp_of
from .._prim import label as _lab
from ._footprint import to_host

_INTEGRAL = (np.int8, np.int16, np.int32, np.int64, np.intc, np.intp)   # scipy's marker/output types


@functools.lru_cache(maxsize=None)
def _face_structure(ndim):
    """generate_binary_structure(ndim, 1): the centre and its face neighbours (made once per rank, read-only)."""
    grid = np.indices((3,) * ndim) - 1
    s = np.asarray(np.abs(grid).sum(axis=0) <= 1)
    s.flags.writeable = False
    return s


def _structure(structure, ndim, exc):
    """scipy's structure: bool, of the input's rank (RuntimeError) and 3 wide on every axis (`exc`)."""
    structure = _face_structure(ndim) if structure is None else np.asarray(to_host(structure), dtype=bool)
    if structure.ndim != ndim:
        raise RuntimeError("structure and input must have equal rank")
    if any(s != 3 for s in structure.shape):
        raise exc("structure dimensions must be equal to 3")
    return structure


def _is_array(a):
    return hasattr(a, "shape") and hasattr(a, "dtype") and not isinstance(a, type)


def _as_array(a):
    return a if hasattr(a, "dtype") and hasattr(a, "shape") else np.asarray(a)


def _host_output_first(position, check):
    """GPU input with a NumPy `output` (argument `position`) is refused by the engine as mixing devices; scipy and
    cupyx check the arguments first, so `check(input, output, *other arguments)` raises their exception (for a
    wrong-shaped output) before that."""

    def deco(public):
        @functools.wraps(public)
        def checked(*args, **kwargs):
            input = args[0] if args else kwargs.get("input")
            output = args[position] if len(args) > position else kwargs.get("output")
            if isinstance(output, np.ndarray) and is_gpu_array(input):
                rest = {k: v for k, v in kwargs.items() if k not in ("input", "output")}
                check(input, output, *args[1:position], **rest)
            return public(*args, **kwargs)

        return checked

    return deco


def _label_output_check(input, output, structure=None):
    _structure(structure, len(input.shape), ValueError)
    if tuple(output.shape) != tuple(input.shape):
        raise ValueError("output shape not correct")


def _watershed_output_check(input, output, markers=None, structure=None):
    _structure(structure, len(input.shape), RuntimeError)
    if output.dtype.type not in _INTEGRAL:
        raise RuntimeError("output should be of integer type")
    if tuple(output.shape) != tuple(input.shape):
        raise RuntimeError("output shape not correct")


def _no_complex(input):
    if input.dtype.kind == "c":
        raise TypeError("Complex type not supported")


@_host_output_first(2, _label_output_check)
@engine_aware("input", "output", native=False)
def label(input, structure=None, output=None):
    """Labels of the connected components of the nonzero elements of `input` (scipy.ndimage.label): numbered
    1.. in raster (C) order of each component's first element, joined by `structure` (default: face
    neighbours). Returns (labels, count), or count where `output` is an array (filled in place)."""
    input = _as_array(input)
    _no_complex(input)
    structure = _structure(structure, input.ndim, ValueError)
    xp = np if isinstance(input, np.ndarray) else xp_of(input)
    wide = input.size >= 2**31 - 2
    provided = _is_array(output)
    if provided:
        if output.shape != input.shape:
            raise ValueError("output shape not correct")
    else:
        output = xp.empty(input.shape, np.intp if wide else np.int32 if output is None else output)
    if input.ndim == 0 or input.size == 0:
        count = int(input != 0) if input.ndim == 0 else 0
        if input.ndim == 0:
            output[...] = count
        return count if provided else (output, count)
    # scipy's compiled label refuses these types (after the output is made, before the structure's check)
    for dt in (input.dtype, output.dtype):
        if dt.kind not in "biuf" or dt == np.float16:
            raise TypeError("No matching signature found")
    if not input.dtype.isnative:
        raise ValueError("Big-endian buffer not supported on little-endian compiler")
    flipped = structure[(slice(None, None, -1),) * structure.ndim]
    if not np.array_equal(structure, flipped):
        raise AssertionError("Structuring element is not symmetric")
    direct = output.dtype in (np.int32, np.int64) and output.dtype.isnative and output.flags.c_contiguous \
        and not (output.dtype == np.int32 and wide)
    work = output if direct else xp.empty(input.shape, np.int64 if wide else np.int32)
    count = _lab.label(input, structure=structure, out=work)
    if not direct:
        dt = output.dtype
        # scipy writes labels that do not fit the output's type and then refuses them (bool holds bytes)
        top = 255 if dt == bool else np.iinfo(dt).max if dt.kind in "iu" else None
        if dt == bool:
            output.view(np.uint8)[...] = work
        else:
            output[...] = work
        if top is not None and count > top:
            raise RuntimeError("insufficient bit-depth in requested output type")
    return count if provided else (output, count)


@engine_aware("input")
def find_objects(input, max_label=0):
    """The bounding box (a tuple of slices) of each label 1..max_label, None where absent
    (scipy.ndimage.find_objects); max_label < 1: the largest label. One pass over the image for all labels."""
    input = _as_array(input)
    _no_complex(input)
    if max_label < 1:
        max_label = to_host(input.max())[()]   # a host scalar (a float one refused below, as scipy does)
    max_label = operator.index(max_label)
    if input.dtype.kind not in "biuf" or input.dtype == np.float16:
        raise RuntimeError("data type not supported")
    if input.ndim == 0:   # scipy: () for the label the scalar holds
        v = to_host(input)[()]
        return [() if k == int(v) else None for k in range(1, max_label + 1)]
    if max_label < 1:
        return []
    if not input.dtype.isnative:
        input = input.astype(input.dtype.newbyteorder("="))
    boxes = to_host(_lab.find_objects(input, max_label=max_label))
    # the slices made and grouped by C loops (map, zip), without the cyclic garbage collector (which the
    # millions of new objects would run many times over; they hold no cycles): many labels stay fast
    lo, hi = boxes[:, 0].ravel().tolist(), (boxes[:, 1] + 1).ravel().tolist()
    collecting = gc.isenabled()
    gc.disable()
    try:
        out = list(zip(*[iter(map(slice, lo, hi))] * input.ndim))
    finally:
        if collecting:
            gc.enable()
    for k in np.flatnonzero(boxes[:, 0, 0] < 0).tolist():
        out[k] = None
    return out


@engine_aware("arr")
def value_indices(arr, *, ignore_value=None):
    """{value: the indices (a tuple of arrays, C order) of its elements} for each distinct value of the
    integer array `arr` but `ignore_value` (scipy.ndimage.value_indices): a stable sort groups the values."""
    arr = _as_array(arr)
    if arr.dtype.kind not in "iu":
        raise ValueError("Parameter 'arr' must be an integer array")
    ignore = None if ignore_value is None else arr.dtype.type(ignore_value)
    xp = np if isinstance(arr, np.ndarray) else xp_of(arr)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if arr.size == 0:
        return {}
    lo, hi = int(arr.min()), int(arr.max())
    if xp is np and arr.ndim and hi - lo <= 2 * arr.size + 65536:
        # a counting sort on the CPU engine (values span at most about twice the elements)
        counts, coords = _lab.value_groups(arr, lo=lo, hi=hi)
        present = np.flatnonzero(counts)
        keys = [lo + v for v in present.tolist()]
        bounds = np.cumsum(counts[present])[:-1].tolist()
    else:
        # a stable sort (CuPy's radix sort on the GPU)
        flat = arr.reshape(-1) if arr.flags.c_contiguous else xp.ascontiguousarray(arr).reshape(-1)
        order = xp.argsort(flat, kind="stable")
        values = flat[order]
        starts = xp.flatnonzero(values[1:] != values[:-1]) + 1
        keys = to_host(values[xp.concatenate([xp.zeros(1, starts.dtype), starts])]).tolist()
        bounds = to_host(starts).tolist()
        coords = xp.unravel_index(order, arr.shape) if arr.ndim else ()
    parts = [xp.split(c, bounds) for c in coords]
    out = {}
    for k, key in enumerate(keys):
        if ignore is not None and key == ignore:
            continue
        out[arr.dtype.type(key)] = tuple(p[k] for p in parts)
    return out


@_host_output_first(3, _watershed_output_check)
@engine_aware("input", "markers", "output")
def watershed_ift(input, markers, structure=None, output=None):
    """scipy.ndimage.watershed_ift: the image foresting transform from `markers` over a uint8/uint16 image,
    with scipy's queue order exactly (ties, negative markers last, neighbours by flat index). Serial by
    nature: CUDA arrays run the same C++ on a host copy, and the result is copied back."""
    input = _as_array(input)
    if input.dtype.type not in (np.uint8, np.uint16):
        raise TypeError("only 8 and 16 unsigned inputs are supported")
    structure = _structure(structure, input.ndim, RuntimeError)
    markers = _as_array(markers)
    if input.shape != markers.shape:
        raise RuntimeError("input and markers must have equal shape")
    if markers.dtype.type not in _INTEGRAL:
        raise RuntimeError("marker should be of integer type")
    xp = np if isinstance(input, np.ndarray) else xp_of(input)
    if _is_array(output):
        if output.dtype.type not in _INTEGRAL:
            raise RuntimeError("output should be of integer type")
        if output.shape != input.shape:
            raise RuntimeError("output shape not correct")
    else:
        output = xp.zeros(input.shape, markers.dtype)
    if input.size == 0:
        return output
    if input.ndim == 0:   # one element: no neighbours, it keeps its marker
        output[...] = markers
        return output
    host = lambda a: a if isinstance(a, np.ndarray) and a.dtype.isnative else \
        np.asarray(to_host(a), dtype=a.dtype.newbyteorder("="))
    out = output if isinstance(output, np.ndarray) and output.dtype.isnative else np.empty(output.shape, output.dtype.newbyteorder("="))
    _lab.watershed_ift(host(input), host(markers), structure=structure, out=out)
    if out is not output:
        output[...] = xp.asarray(out)
    return output

"""Dask arrays in, Dask arrays out (issue 23).

``engine_aware`` hands a call with a ``dask.array.Array`` argument to :func:`call`, which follows the
function's registry entry:

- ``halo``: a rule giving the ``map_overlap`` depth per axis from the call's arguments. Each block (with its
  neighbours' halo) runs through the public function, so the normal engine routing applies inside it (CuPy
  chunks run on the CUDA engine). The true image border keeps the function's own ``mode`` (edge blocks are
  not padded), except the wrapping modes, which need the far side of the image (dask's periodic boundary).
- ``dask``: "module:function", a chunk-correct implementation taking the public signature with Dask arrays.
- neither: NotImplementedError naming the function. Never a silently wrong answer.

Dask is imported only here, so ``import ndimg`` stays cheap.
"""
from __future__ import annotations

import importlib
import inspect
import operator
import warnings

import dask.array as da
import numpy as np
from dask.array.overlap import ensure_minimum_chunksize, overlap, trim_internal
from dask.base import tokenize

from ._registry import REGISTRY, NotBlockwise, Valid

_WRAPPING = ("wrap", "grid-wrap")
_OUTPUTS = ("out", "output")
_SAMPLE = 8   # per axis: the shape of the zero block the output's dtype and array type are found from


def is_dask(x):
    return type(x).__module__.startswith("dask") and isinstance(x, da.Array)


_BY_IMPL = {}


def _entries_of(fn):
    """The registry entries of a public function (several where modules share it: morphology.flood is
    segmentation.flood), or of the class a public method belongs to; empty for other functions."""
    if not _BY_IMPL:
        for e in REGISTRY.values():
            _BY_IMPL.setdefault(e.impl, []).append(e)
    return _BY_IMPL.get(f"{fn.__module__}:{fn.__qualname__}") or \
        _BY_IMPL.get(f"{fn.__module__}:{fn.__qualname__.split('.')[0]}") or []


def _public_name(fn, entries):
    if entries:
        method = f".{fn.__name__}" if "." in fn.__qualname__ else ""
        return " / ".join(f"ndimg.{e.qualname}{method}" for e in entries)
    return f"{fn.__module__}.{fn.__qualname__}"


def call(public, fn, array_params, args, kwargs):
    """`public` (the engine-aware function) called with Dask arrays among its arguments; `fn` is its body."""
    entries = _entries_of(fn)
    entry = entries[0] if entries else None
    name = _public_name(fn, entries)
    method = "." in fn.__qualname__   # LPIFilter2D.__call__: the entry is its class
    if entry is not None and entry.dask and not method:
        mod, attr = entry.dask.split(":")
        return getattr(importlib.import_module(mod), attr)(*args, **kwargs)
    if entry is None or entry.halo is None or method:
        raise NotImplementedError(
            f"{name} does not take Dask arrays: its result depends on the whole image and it has no "
            f"chunk-correct implementation yet; compute() the array first")
    return _blockwise(public, fn, entry.halo, name, array_params, args, kwargs)


def _sample_like(x, shape):
    """Zeros of `shape` in the dtype and array library (NumPy or CuPy) of `x` (of a Dask array's chunks)."""
    meta = x._meta if is_dask(x) else x
    if type(meta).__module__.startswith("cupy"):
        import cupy

        return cupy.zeros(shape, dtype=x.dtype)
    return np.zeros(shape, dtype=x.dtype)


def _per_axis(depth, ndim):
    if isinstance(depth, Valid):
        return depth
    if np.ndim(depth) == 0:
        return (max(0, int(depth)),) * ndim
    depth = tuple(max(0, int(d)) for d in depth)   # negative: a bad argument the function refuses
    if len(depth) != ndim:
        raise ValueError(f"halo rule gave {len(depth)} depths for {ndim} axes")
    return depth


def _boundaries(mode, ndim, axes):
    """dask's boundary per axis for the function's `mode` (a name, or one per axis or per entry of `axes`)."""
    if mode is None or isinstance(mode, str):
        return ["periodic" if mode in _WRAPPING else "none"] * ndim
    modes = list(mode)
    out = ["none"] * ndim
    targets = range(ndim) if axes is None else [a % ndim for a in (axes if np.ndim(axes) else [axes])]
    for a, m in zip(targets, modes):
        out[a] = "periodic" if m in _WRAPPING else "none"
    return out


def _rule_kwargs(ba):
    """The call's arguments by name, defaults included, ``**kwargs`` flattened, Dask arrays left out."""
    full = ba.signature.bind(*ba.args, **ba.kwargs)
    full.apply_defaults()
    out = {}
    for k, v in full.arguments.items():
        if ba.signature.parameters[k].kind is inspect.Parameter.VAR_KEYWORD:
            out.update(v)
        elif not is_dask(v):
            out[k] = v
    return out


def _blockwise(public, fn, rule, name, array_params, args, kwargs):
    sig = inspect.signature(fn)
    ba = sig.bind(*args, **kwargs)
    params = [p for p in array_params if p not in _OUTPUTS]
    image_name = params[0]
    image = ba.arguments.get(image_name)
    if not is_dask(image):
        raise NotImplementedError(f"{name}: Dask arrays are taken as its image ({image_name!r}) argument")
    ndim = image.ndim
    for p in _OUTPUTS:
        v = ba.arguments.get(p)
        if v is not None and not isinstance(v, (type, str, np.dtype)):
            raise NotImplementedError(f"{name}: {p}= arrays cannot take a lazy Dask result; drop the {p}= argument")
    # the arrays chunked like the image (masks); other array parameters pass whole to every block
    chunked = [image_name]
    for p in params[1:]:
        v = ba.arguments.get(p)
        if v is None or np.ndim(v) == 0:
            continue
        if getattr(v, "shape", None) == image.shape:
            chunked.append(p)
        elif is_dask(v):
            raise NotImplementedError(f"{name}: the Dask array {p!r} must have the image's shape {image.shape}")
    rule_kw = _rule_kwargs(ba)
    channel_axis = rule_kw.get("channel_axis")
    try:
        depth = _per_axis(rule(ndim, **rule_kw), ndim)
    except NotBlockwise as e:
        raise NotImplementedError(f"{name} does not take Dask arrays with these arguments: {e}; compute() the "
                                  f"array first") from None
    except Exception:
        # bad arguments: the function's own error, from a call on a small block
        _run_sample(public, ba, chunked, _small(image.shape))
        raise
    valid = isinstance(depth, Valid)
    depth = list(depth.shrink if valid else depth)
    spatial = list(range(ndim))
    if channel_axis is not None and not valid:
        if not isinstance(channel_axis, (int, np.integer)) or not -ndim <= channel_axis < ndim:
            _run_sample(public, ba, chunked, _small(image.shape))   # the function's own error
            raise np.exceptions.AxisError(channel_axis, ndim)
        channel_axis = int(channel_axis) % ndim
        depth[channel_axis] = 0
        spatial.remove(channel_axis)
    boundary = ["none"] * ndim if valid else _boundaries(rule_kw.get("mode"), ndim, rule_kw.get("axes"))

    # chunks: whole along the channel axis and along axes the halo spans; else every chunk at least the
    # depth (a halo comes from the next block only); 'valid' blocks must hold one output at least
    chunks = list(image.chunks)
    for a in range(ndim):
        if a not in spatial or depth[a] >= image.shape[a] or len(chunks[a]) == 1:
            chunks[a] = (image.shape[a],) if image.shape[a] else chunks[a]
            if not valid:
                depth[a] = 0
        elif depth[a]:
            chunks[a] = ensure_minimum_chunksize(depth[a] + valid, chunks[a])
    chunks = tuple(chunks)
    arrays = []
    for p in chunked:
        v = ba.arguments[p]
        v = v if is_dask(v) else da.from_array(v, chunks=image.chunks, asarray=False)
        arrays.append(v.rechunk(chunks))

    # the whole channel axis; a 'valid' correlation's sample holds one output at least
    sample_shape = tuple(s if a == channel_axis else min(s, max(_SAMPLE, depth[a] + 1 if valid else 0))
                         for a, s in enumerate(image.shape))
    sample = _run_sample(public, ba, chunked, sample_shape)
    outs = sample if isinstance(sample, tuple) else (sample,)
    for o in outs:
        if getattr(o, "ndim", None) != ndim:
            raise NotImplementedError(f"{name} does not take Dask arrays with these arguments: its result is not "
                                      f"an image of the input's dimensionality")
    if not valid and any(o.shape != sample_shape for o in outs):
        raise NotImplementedError(f"{name} does not take Dask arrays with these arguments: its result has "
                                  f"another shape than its input")

    run = _Apply(public, sig, {k: (None if k in chunked else v) for k, v in ba.arguments.items()}, chunked)
    token = tokenize(name, [a.name for a in arrays], depth, boundary,
                     {k: v for k, v in ba.arguments.items() if k not in chunked})
    prefix = name.rsplit(".", 1)[-1]
    if valid:
        halo = {a: (0, d) for a, d in enumerate(depth)}
        blocks = [overlap(a, depth=halo, boundary="none", allow_rechunk=False) for a in arrays]
        out_chunks = tuple(c[:-1] + (c[-1] - d,) for c, d in zip(chunks, depth))
    else:
        halo = dict(enumerate(depth))
        bound = dict(enumerate(boundary))
        # masks: outside the image is outside the mask (0), wherever the image wraps around
        mask_bound = {a: (0 if b == "periodic" else "none") for a, b in bound.items()}
        blocks = [overlap(a, depth=halo, boundary=bound if i == 0 else mask_bound, allow_rechunk=False)
                  if any(depth) else a for i, a in enumerate(arrays)]
        out_chunks = blocks[0].chunks
    if isinstance(sample, tuple):
        # one task per block computes every output; each output picks its element of the block's tuple
        both = da.map_blocks(run, *blocks, chunks=out_chunks, dtype=object, name=f"{prefix}-{token}",
                             meta=np.empty((0,) * ndim, dtype=object))
        results = [both.map_blocks(operator.getitem, i, dtype=o.dtype, meta=o[(slice(0, 0),) * ndim],
                                   name=f"{prefix}-{i}-{token}") for i, o in enumerate(outs)]
    else:
        results = [da.map_blocks(run, *blocks, chunks=out_chunks, dtype=sample.dtype, name=f"{prefix}-{token}",
                                 meta=sample[(slice(0, 0),) * ndim])]
    if not valid and any(depth):
        results = [trim_internal(r, halo, dict(enumerate(boundary))) for r in results]
    if not valid and chunks != image.chunks:
        results = [r.rechunk(image.chunks) for r in results]
    return tuple(results) if isinstance(sample, tuple) else results[0]


class _Apply:
    """A block's call: the public function with the block (and its masks' blocks) in place of the Dask
    arguments. A plain object, so the tasks pickle without the Dask arrays the call was made with."""

    def __init__(self, public, sig, arguments, chunked):
        self.public, self.sig, self.arguments, self.chunked = public, sig, arguments, chunked

    def __call__(self, *blocks):
        call = inspect.BoundArguments(self.sig, dict(self.arguments))
        call.arguments.update(zip(self.chunked, blocks))
        return self.public(*call.args, **call.kwargs)


def _small(shape):
    return tuple(min(s, _SAMPLE) for s in shape)


def _run_sample(public, ba, chunked, shape):
    """The function on zero blocks of `shape` (NumPy or CuPy as the chunks): the output's dtype and type."""
    call = ba.signature.bind(*ba.args, **ba.kwargs)
    for p in chunked:
        v = call.arguments[p]
        call.arguments[p] = _sample_like(v, shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # zeros: numerical warnings the data may not give
        return public(*call.args, **call.kwargs)


def unsharp_mask(image, radius=1.0, amount=1.0, preserve_range=False, *, channel_axis=None):
    """filters.unsharp_mask of a Dask array: without preserve_range, scikit-image clips to [-1, 1] where any
    value of the whole image is negative, else to [0, 1]: blockwise sharpening of the float image (as
    preserve_range=True sharpens it) clipped to the range a lazy reduction finds."""
    from ._rules import supported_float_type
    from .filters import unsharp_mask as public
    from .filters._unsharp_mask import _to_float

    kw = dict(radius=radius, amount=amount, channel_axis=channel_axis)
    if preserve_range or image.dtype.kind not in "if":   # unsigned and bool images are never negative
        return _blockwise(public, public.__wrapped_impl__, REGISTRY["filters.unsharp_mask"].halo,
                          "ndimg.filters.unsharp_mask", public.__array_params__, (image,),
                          dict(kw, preserve_range=preserve_range))
    float_dtype = supported_float_type(image.dtype)
    fimg = image.map_blocks(_to_float, float_dtype, False, dtype=float_dtype)
    sharp = public(fimg, preserve_range=True, **kw)
    low = da.where(da.any(image < 0), -1, 0).astype(sharp.dtype)
    return da.minimum(da.maximum(sharp, low), sharp.dtype.type(1))

"""euler_number, perimeter and perimeter_crofton over Dask arrays, exact across chunks and lazy.

Each is a weighted histogram of local codes (2x2(x2) window configurations of the zero-padded image; the
perimeter's code of a pixel reads its 5x5 neighbourhood), so the image's histogram is a sum of chunks'
histograms, counted by the in-memory core on each chunk extended by `reach` elements of its neighbours
before it (reach 1 for a window, 4 for the perimeter's two-pixel reach on both sides). The core treats
outside the extended chunk as zero: the codes it counts wrongly near a cut are those of the cut's slab
(the `reach` elements before the chunk) counted the same way, so along every cut axis the slab's histogram
is subtracted (inclusion-exclusion over the cut axes: a chunk's count is the signed sum over the 2^k
views cut to the slab along some of its k cut axes). Chunks hold `reach` elements at least. The counts
are exact integers; the in-memory formulas turn their sum into the result, a 0-d Dask array.
"""
from __future__ import annotations

import functools
import itertools

import numpy as np

from .. import _core
from .._engine import stream_ptr, xp_of
from ..filters._thresholding_dask import add, blocks, delayed, scalar, tree
from ..morphology._label import as_host_intp
from . import _regionprops_utils as ru


def _signed_counts(block, cut, count):
    """The codes' counts of the chunk in `block` (its `cut[d]` elements before it along axis d, 0 at the
    image's start), by inclusion-exclusion over the slabs of the cut axes."""
    axes = [d for d in range(block.ndim) if cut[d]]
    total = 0
    for k in range(len(axes) + 1):
        for slabs in itertools.combinations(axes, k):
            view = block[tuple(slice(0, cut[d]) if d in slabs else slice(None) for d in range(block.ndim))]
            part = count(xp_of(view).ascontiguousarray(view))   # slabs across the last axes are strided
            total = total + part if k % 2 == 0 else total - part
    return total


def _counts(image, reach, count):
    """The delayed sum over the chunks of a Dask image of count(view) (a histogram of the view's codes with
    outside it zero), each chunk extended by `reach` elements before it."""
    from dask.array.overlap import ensure_minimum_chunksize, overlap

    chunks = tuple((n,) if len(c) == 1 or n <= reach else ensure_minimum_chunksize(reach, c)
                   for c, n in zip(image.chunks, image.shape))
    image = image.rechunk(chunks)
    depth = {d: (reach if len(c) > 1 else 0, 0) for d, c in enumerate(chunks)}
    extended = overlap(image, depth=depth, boundary="none", allow_rechunk=False) if any(
        lo for lo, _ in depth.values()) else image
    locations = itertools.product(*(range(len(c)) for c in chunks))
    parts = (delayed(_signed_counts)(b, tuple(reach if i else 0 for i in loc), count)
             for (b,), loc in zip(blocks(extended), locations))
    return tree(parts, add)


def _finish(fn, hist):
    out = fn(hist)
    return out if hasattr(out, "shape") else np.asarray(out)


def _result(fn, hist, dtype, image):
    """fn(the summed counts) as a 0-d Dask array (of the chunks' library, as the in-memory result's)."""
    return scalar(delayed(functools.partial(_finish, fn))(hist), np.dtype(dtype), like=image)


def _check(fn, image, *args):
    return fn(np.ones((3,) * image.ndim, image.dtype), *args)


def euler_number(image, connectivity=None):
    _check(ru.euler_number, image, connectivity)
    connectivity = image.ndim if connectivity is None else connectivity
    hist = _counts(image > 0, 1, ru._config_hist)
    return _result(functools.partial(ru.euler_of_counts, nd=image.ndim, connectivity=connectivity), hist,
                   np.int64, image)


def _perimeter_hist(eight, view):
    hist = xp_of(view).zeros(256, np.int64)
    _core.measure_perimeter_codes(view, eight, hist, stream=stream_ptr(hist))
    return hist


def _uint8(chunk):
    """The in-memory perimeter's uint8 image (NumPy's wrapped cast of float values, on the host for CuPy)."""
    if xp_of(chunk) is not np and chunk.dtype.kind in "fc":
        chunk = as_host_intp(chunk)
    return chunk.astype(np.uint8)


def perimeter(image, neighborhood=4):
    _check(ru.perimeter, image, neighborhood)
    u8 = image.map_blocks(_uint8, dtype=np.uint8)
    hist = _counts(u8, 4, functools.partial(_perimeter_hist, neighborhood != 4))
    return _result(ru.perimeter_of_counts, hist, np.float64, image)


def perimeter_crofton(image, directions=4):
    _check(ru.perimeter_crofton, image, directions)
    hist = _counts(image > 0, 1, ru._config_hist)
    return _result(functools.partial(ru.crofton_of_counts, directions=directions), hist, np.float64, image)

"""skimage.segmentation.clear_border (skimage/segmentation/_clear_border.py): the objects touching the image
border (or the outside of a mask) cleared, from ndimg.measure.label's components on the input's engine."""
from __future__ import annotations

import numpy as np

from .._blocks import blockwise
from .._engine import engine_aware, xp_of
from .._prim.histogram import integer_counts
from .._prim.reduce import image_stats
from ..morphology._label import label


def _border_slabs(shape, buffer_size):
    """The index tuples of the first and last `buffer_size + 1` elements along each axis (scikit-image's
    slices, negative sizes included), whose union is the border."""
    ext = buffer_size + 1
    slabs = []
    for d in range(len(shape)):
        for sl in (slice(ext), slice(-ext, None)):
            slabs.append((slice(None),) * d + (sl,))
    return slabs


def _binary_if_one_value(out):
    """`out != 0` where `out` holds one nonzero value at most (a mask in an integer dtype): its components
    are the same, and labelling a bool array is much cheaper than joining equal values; else `out`."""
    dt = out.dtype
    if not (dt.kind in "iu" and dt != np.uint64 and dt.isnative and out.size and out.ndim):
        return out
    head = out.reshape(-1)[:4096] if out.flags.c_contiguous else out[(0,) * (out.ndim - 1)]
    if int(xp_of(head).unique(head[head != 0]).size) > 1:   # two labels already: no pass over the image
        return out
    stats = image_stats(out)
    lo, hi = int(stats.imin), int(stats.imax)
    if hi - lo > 1 << 16:
        return out
    counts = integer_counts(out, lo=lo, nbins=hi - lo + 1)
    if lo <= 0 <= hi:
        counts[-lo] = 0
    return out != 0 if int(xp_of(counts).count_nonzero(counts)) <= 1 else out


@engine_aware("labels", "mask", "out", native=False)
def clear_border(labels, buffer_size=0, bgval=0, mask=None, *, out=None):
    """`out` (default: a copy of `labels`) with every object (connected component of equal values, full
    connectivity) that reaches within `buffer_size` of the border, or a False element of `mask`, set to
    `bgval`. As scikit-image, a given `out` is read as the labels."""
    if any(buffer_size >= s for s in labels.shape) and mask is None:
        raise ValueError("buffer size may not be greater than labels size")
    if out is None:
        out = labels.copy()
    xp = xp_of(out)
    if mask is not None:
        if out.shape != mask.shape:
            # scikit-image raises the tuple (ValueError, message): Python refuses it with this TypeError
            raise TypeError("exceptions must derive from BaseException")
        if mask.dtype != bool:
            raise TypeError("mask should be of type bool.")
    components, number = label(_binary_if_one_value(out), background=0, return_num=True)
    if mask is not None:
        touching = components[~mask]
    else:
        touching = xp.concatenate([components[s].reshape(-1) for s in _border_slabs(out.shape, buffer_size)])
    cleared = xp.zeros(number + 1, bool)
    cleared[touching] = True
    if np.ndim(bgval) != 0 or out.ndim == 0:
        out[cleared[components]] = bgval
        return out
    cell = np.empty(1, out.dtype)
    cell[np.ones(1, bool)] = bgval   # the value as NumPy's assignment converts (and refuses) it
    value = cell[0]
    if xp is not np or not (out.flags.c_contiguous and components.flags.c_contiguous):
        xp.copyto(out, value, where=cleared[components])
        return out

    def clear(o, c):
        np.copyto(o, value, where=cleared[c])

    blockwise(clear, out, components)
    return out


def _border_block(block, buffer_size, shape, block_info=None):
    """Whether each element of a block lies in the first or last `buffer_size + 1` elements of an axis of the
    whole image (scikit-image's slices)."""
    start = [lo for lo, _ in block_info[0]["array-location"]]
    flags = np.zeros(block.shape, bool)
    for d in range(len(shape)):
        index = np.zeros(shape[d], bool)
        for sl in _border_slabs((shape[d],), buffer_size):
            index[sl] = True
        piece = index[start[d]:start[d] + block.shape[d]]
        flags |= piece.reshape((-1,) + (1,) * (len(shape) - d - 1))
    return xp_of(block).asarray(flags)   # on the block's device (CuPy chunks)


def _unique_block(block):
    return xp_of(block).unique(block)


def clear_border_dask(labels, buffer_size=0, bgval=0, mask=None, *, out=None):
    """Dask arrays, lazily: the components (ndimg.measure.label on Dask: bool images joined across chunks,
    integer ones in one task), the labels found on the border (or outside the mask), and every chunk
    cleared where its components are among them."""
    import dask.array as da

    from ..morphology._label import label_dask

    if out is not None:
        raise NotImplementedError("ndimg.segmentation.clear_border: out= arrays cannot take a lazy Dask result; "
                                  "drop the out= argument")
    # the in-memory call's errors (shapes, mask, value) before any graph is made
    if any(buffer_size >= s for s in labels.shape) and mask is None:
        raise ValueError("buffer size may not be greater than labels size")
    if mask is not None:
        if labels.shape != mask.shape:
            raise TypeError("exceptions must derive from BaseException")
        if mask.dtype != bool:
            raise TypeError("mask should be of type bool.")
    clear_border(np.zeros((1,) * labels.ndim, labels.dtype), buffer_size=0 if mask is None else buffer_size,
                 bgval=bgval, mask=None if mask is None else np.ones((1,) * labels.ndim, bool))
    components = label_dask(labels, background=0)
    if mask is not None:
        border = ~(mask if isinstance(mask, da.Array) else da.from_array(mask, chunks=components.chunks))
        border = border.rechunk(components.chunks)
    else:
        border = components.map_blocks(_border_block, buffer_size, labels.shape, dtype=bool)
    # each chunk's own unique labels (dask's da.unique builds NumPy record arrays, which CuPy chunks refuse);
    # repeats across chunks do not matter to isin
    touching = components[border].map_blocks(_unique_block, dtype=components.dtype)
    cleared = da.isin(components, touching)
    if np.ndim(bgval) != 0:
        return da.where(cleared, bgval, labels)
    cell = np.empty(1, labels.dtype)
    cell[np.ones(1, bool)] = bgval
    return da.where(cleared, cell[0], labels)

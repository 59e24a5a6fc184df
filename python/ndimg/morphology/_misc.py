"""skimage.morphology's object removal (skimage/morphology/misc.py): remove_small_objects,
remove_small_holes (labels and per-label sizes on the input's engine) and remove_objects_by_distance."""
from __future__ import annotations

import functools

import numpy as np

from .._engine import engine_aware, xp_of
from .._prim.histogram import integer_counts
from ..ndimage._binary import generate_binary_structure
from ..ndimage._rank import maximum_filter, minimum_filter
from ..ndimage._label import label as _ndi_label
from ._footprints import warn_user


class _Marker(type):
    """scikit-image's DEPRECATED marker is a class named DEPRECATED: ours equals it, so a call that passes
    scikit-image's default on (the backend) reads as 'not given'."""

    def __repr__(cls):
        return "<DEPRECATED>"

    def __eq__(cls, other):
        return isinstance(other, type) and other.__name__ == "DEPRECATED"

    __hash__ = type.__hash__


class DEPRECATED(metaclass=_Marker):
    """The default of a deprecated parameter."""


def _renamed_to_max_size(old_name):
    """scikit-image 0.26's deprecate_parameter for `old_name` (the second parameter) -> `max_size`: a value
    given for it warns and becomes max_size; both given is a ValueError."""

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            old = DEPRECATED
            if len(args) > 1:
                old, args = args[1], (args[0], DEPRECATED) + tuple(args[2:])
            if old_name in kwargs:
                old = kwargs.pop(old_name)
            if not DEPRECATED == old:
                warn_user(
                    f"Parameter `{old_name}` is deprecated since version 0.26.0 and will be removed in 2.0.0 (or "
                    f"later). To avoid this warning, please use the parameter `max_size` instead. For more details, "
                    f"see the documentation of `{fn.__name__.removesuffix('_dask')}`. Note that the new threshold "
                    f"removes objects smaller than **or equal to** its value, while the previous parameter only "
                    f"removed smaller ones.", FutureWarning)
                if "max_size" in kwargs:
                    raise ValueError(f"Both deprecated parameter `{old_name}` and new parameter `max_size` are used. "
                                     f"Use only the latter to avoid conflicting values.")
                kwargs["max_size"] = old
            return fn(*args, **kwargs)

        return wrapper

    return deco


def _check_dtype_supported(ar):
    if not (ar.dtype == bool or np.issubdtype(ar.dtype, np.integer)):
        raise TypeError(f"Only bool or integer image types are supported. Got {ar.dtype}.")


def _remove_small(ar, max_size, connectivity, out):
    _check_dtype_supported(ar)
    xp = xp_of(ar)
    if out is None:
        out = ar.copy()
    else:
        out[:] = ar   # as scikit-image: IndexError for 0-d
    if max_size == 0:
        return out
    if out.dtype == bool:
        ccs, top = _ndi_label(ar, structure=generate_binary_structure(ar.ndim, connectivity))
    else:
        ccs = out
        if ccs.size and int(ccs.min()) < 0:
            raise ValueError("Negative value labels are not supported. Try relabeling the input with "
                             "`scipy.ndimage.label` or `skimage.morphology.label`.")
        top = int(ccs.max()) if ccs.size else -1
    # numpy.bincount's sizes, counted on the engine's threads
    sizes = integer_counts(ccs, lo=0, nbins=top + 1) if ccs.size else xp.zeros(0, np.int64)
    if len(sizes) == 2 and out.dtype != bool:
        warn_user("Only one label was provided to `remove_small_objects`. Did you mean to use a boolean array?")
    xp.copyto(out, xp.zeros((), out.dtype), where=(sizes <= max_size)[ccs])
    return out


@engine_aware("ar", "out")
@_renamed_to_max_size("min_size")
def remove_small_objects(ar, min_size=DEPRECATED, connectivity=1, *, max_size=64, out=None):
    """Objects of at most `max_size` elements (default 64) set to 0: the connected components of a bool `ar`
    (`connectivity` hops), or the labels of an integer `ar`. Writes into `out` when given."""
    return _remove_small(ar, max_size, connectivity, out)


@engine_aware("ar", "out")
@_renamed_to_max_size("area_threshold")
def remove_small_holes(ar, area_threshold=DEPRECATED, connectivity=1, *, max_size=64, out=None):
    """Holes (components of the background) of at most `max_size` elements (default 64) filled; a bool result."""
    _check_dtype_supported(ar)
    if ar.dtype != bool:
        warn_user("Any labeled images will be returned as a boolean array. Did you mean to use a boolean array?")
    if out is not None:
        if out.dtype != bool:
            raise TypeError("out dtype must be bool")
    else:
        out = ar.astype(bool, copy=True)
    xp_of(ar).logical_not(ar, out=out)
    out = _remove_small(out, max_size, connectivity, out)
    xp_of(out).logical_not(out, out=out)
    return out


@engine_aware("label_image", "out", native=False)
def remove_objects_by_distance(label_image, min_distance, *, priority=None, p_norm=2, spacing=None, out=None):
    """Objects of an integer label image removed, in order of `priority` (default: their size; ties by the
    larger label first), until the remaining ones are more than `min_distance` apart (Minkowski `p_norm`,
    `spacing` per axis). The objects' border elements are found on the image's engine; only they come to the
    host, where a KD-tree (scipy.spatial) finds the neighbours of each object kept (a greedy pass in priority
    order, serial by definition); the removed objects are cleared on the image's engine."""
    from scipy.spatial import cKDTree

    from ..ndimage._footprint import to_host

    if min_distance < 0:
        raise ValueError(f"min_distance must be >= 0, was {min_distance}")
    if not np.issubdtype(label_image.dtype, np.integer):
        raise ValueError(f"`label_image` must be of integer dtype, got {label_image.dtype}")
    xp = xp_of(label_image)
    if out is None:
        out = label_image.copy(order="C")
    elif out is not label_image:
        out[...] = label_image
    if spacing is not None:
        spacing = np.array(spacing)
        if spacing.shape != (out.ndim,) or spacing.min() <= 0:
            raise ValueError("`spacing` must contain exactly one positive factor for each dimension of `label_image`")
    flat = out.ravel(order="C")   # a view when `out` is C-contiguous
    indices = xp.flatnonzero(flat)
    # only the objects' border elements can be nearest to another object: the tree holds those
    uniform = spacing is None or np.all(spacing[0] == spacing)
    fp = generate_binary_structure(out.ndim, 1 if uniform and p_norm <= 2 else out.ndim)
    border = (maximum_filter(out, footprint=fp) != minimum_filter(out, footprint=fp)).ravel()[indices]
    border_idx = indices[border]
    if border_idx.size == 0:
        return out
    ids = flat[border_idx]
    if priority is None:
        priority = xp.bincount(flat.astype(np.intp, copy=False))
    order = xp.argsort(ids, kind="stable")
    border_idx, ids = to_host(border_idx[order]), to_host(ids[order])
    if ids[0] < 0:
        raise ValueError(f"found object with negative ID {ids[0]!r}")
    priority = to_host(priority)
    expected = (int(flat.max()) + 1,)
    if priority.shape != expected:
        if priority.ndim != 1 or priority.shape[0] <= int(ids[-1]):
            raise ValueError("shape of `priority` must be (np.amax(label_image) + 1,), "
                             f"expected {expected}, got {priority.shape} instead")
    # objects by falling priority, equal priorities by falling label (scikit-image's reversed stable sort)
    objects, starts = np.unique(ids, return_index=True)
    rank = np.argsort(priority[objects], kind="stable")[::-1]
    coords = np.asarray(np.unravel_index(border_idx, out.shape), dtype=np.float64).T
    if spacing is not None:
        coords *= spacing
    if not out.dtype.isnative:   # scikit-image's compiled loop refuses the other byte order
        raise ValueError("Big-endian buffer not supported on little-endian compiler")
    tree = cKDTree(coords)
    ends = np.append(starts[1:], ids.size)
    removed = np.zeros(objects.size, bool)
    for k in rank:
        if removed[k]:
            continue
        near = tree.query_ball_point(coords[starts[k]:ends[k]], r=min_distance, p=p_norm, return_sorted=False)
        hits = np.unique(np.concatenate([np.asarray(h, np.intp) for h in near])) if len(near) else np.zeros(0, np.intp)
        others = np.unique(np.searchsorted(starts, hits, side="right") - 1)
        others = others[(others != k) & ~removed[others]]
        removed[others] = True
    gone = objects[removed]
    if gone.size:
        out[xp.isin(out, xp.asarray(gone))] = 0
    return out


# ---------------------------------------------------------------------------------------------------
# Dask: the components labelled across chunks (ndimg.ndimage.label's Dask merge), their sizes summed over
# the chunks, then each chunk cleared where its labels are too small.
# ---------------------------------------------------------------------------------------------------
def _block_sizes(labels):
    from ..filters._thresholding import _to_host

    flat = _to_host(labels).ravel()
    if flat.size and flat.min() < 0:
        raise ValueError("Negative value labels are not supported. Try relabeling the input with "
                         "`scipy.ndimage.label` or `skimage.morphology.label`.")
    return np.bincount(flat.astype(np.intp, copy=False))


def _too_small(parts, max_size, labelled):
    sizes = np.zeros(max((len(p) for p in parts), default=0), np.int64)
    for p in parts:
        sizes[:len(p)] += p
    if len(sizes) == 2 and not labelled:
        warn_user("Only one label was provided to `remove_small_objects`. Did you mean to use a boolean array?")
    return sizes <= max_size


def _clear(block, labels, small):
    xp = xp_of(block)
    return xp.where(xp.asarray(small)[labels], xp.zeros((), block.dtype), block)


def _remove_small_dask(ar, max_size, connectivity):
    import dask.array as da

    from ..filters._thresholding_dask import delayed
    from ..ndimage._label_dask import label as ndi_label_dask

    if max_size == 0 or ar.ndim == 0 or ar.size == 0:
        return ar.copy()
    labelled = ar.dtype == bool
    labels = ndi_label_dask(ar, structure=generate_binary_structure(ar.ndim, connectivity))[0] if labelled else ar
    lb = labels.to_delayed(optimize_graph=False)
    ab = ar.rechunk(labels.chunks).to_delayed(optimize_graph=False)
    small = delayed(_too_small)([delayed(_block_sizes)(b) for b in lb.ravel()], max_size, labelled)
    out = np.empty(lb.shape, dtype=object)
    meta = da.utils.meta_from_array(ar._meta, ndim=ar.ndim, dtype=ar.dtype)
    for idx in np.ndindex(*lb.shape):
        shape = tuple(c[i] for c, i in zip(labels.chunks, idx))
        out[idx] = da.from_delayed(delayed(_clear)(ab[idx], lb[idx], small), shape=shape, dtype=ar.dtype, meta=meta)
    return da.block(out.tolist())


@_renamed_to_max_size("min_size")
def remove_small_objects_dask(ar, min_size=DEPRECATED, connectivity=1, *, max_size=64, out=None):
    """remove_small_objects of a Dask array, exact across chunks (lazy; `out` arrays are refused)."""
    if out is not None:
        raise NotImplementedError("remove_small_objects: out= arrays cannot take a lazy Dask result")
    _check_dtype_supported(ar)
    return _remove_small_dask(ar, max_size, connectivity)


@_renamed_to_max_size("area_threshold")
def remove_small_holes_dask(ar, area_threshold=DEPRECATED, connectivity=1, *, max_size=64, out=None):
    """remove_small_holes of a Dask array, exact across chunks (lazy; `out` arrays are refused)."""
    if out is not None:
        raise NotImplementedError("remove_small_holes: out= arrays cannot take a lazy Dask result")
    _check_dtype_supported(ar)
    if ar.dtype != bool:
        warn_user("Any labeled images will be returned as a boolean array. Did you mean to use a boolean array?")
    return ~_remove_small_dask(ar == 0, max_size, connectivity)

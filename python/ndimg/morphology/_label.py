"""skimage.measure.label (also skimage.morphology.label): connected regions of equal value, numbered 1.. in
raster order of their first element. Bool images are ndimg.ndimage.label's nonzero components; other
images join neighbours of equal value (the same union-find, on either engine)."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from .._prim import label as _lab
from ..ndimage._binary import generate_binary_structure
from ..ndimage._label import label as _ndi_label


def _structure(connectivity, ndim):
    """scikit-image's connectivity: 1..ndim orthogonal hops (default ndim), as a 3**ndim structure."""
    if connectivity is None:
        connectivity = ndim
    if not 1 <= connectivity <= ndim:
        raise ValueError(f"Connectivity for {ndim}D image should be in [1, ..., {ndim}]. Got {connectivity}.")
    return generate_binary_structure(ndim, connectivity)


def as_host_intp(values):
    """GPU float values cast to intp as NumPy casts them on the host: CUDA saturates infinities and values out
    of int64's range, where x86 NumPy gives -2**63 for all of them (and NaN), so that scikit-image joins
    neighbouring inf and -inf."""
    xp = xp_of(values)
    v = values.real if values.dtype.kind == "c" else values   # NumPy's cast drops the imaginary part
    with np.errstate(invalid="ignore"):
        hi, lo, nan = np.array([np.inf, -np.inf, np.nan]).astype(np.intp).tolist()
    out = v.astype(np.intp)
    limit = float(2**63)
    return xp.where(v >= limit, hi, xp.where(v < -limit, lo, xp.where(xp.isnan(v), nan, out)))


@engine_aware("label_image")
def label(label_image, background=None, return_num=False, connectivity=None):
    """skimage.measure.label: the connected regions of equal value (bool: of True) numbered 1.. in raster order;
    elements equal to `background` (default 0) are 0. Bool input gives int32 labels, other input intp."""
    image = label_image   # a list fails here as in scikit-image (AttributeError)
    xp = xp_of(image)
    if image.dtype == bool:
        if background == 1:
            image = ~image
        structure = _structure(connectivity, image.ndim)
        labels, count = _ndi_label(image, structure=structure)
        return (labels, count) if return_num else labels
    if not 1 <= image.ndim <= 3:
        raise NotImplementedError(f"Only for images of dimension 1-3 are supported, got a {image.ndim}D one")
    if image.dtype.kind not in "iufc":
        raise TypeError(f"label: unsupported dtype {image.dtype}")
    if background is None:
        background = 0
    if not hasattr(background, "__int__"):
        raise TypeError("an integer is required")
    background = int(background)
    structure = _structure(connectivity, image.ndim)
    # scikit-image labels the values cast to intp (floats truncated towards zero)
    if image.dtype.kind in "fc" and xp is not np:
        image = as_host_intp(image)
    elif image.dtype.kind in "fc" or image.dtype == np.uint64 or not image.dtype.isnative:
        image = image.astype(np.intp)
    if not -2**63 <= background < 2**63:   # no element equals it (values are int64 at most by now)
        background = -1 if image.dtype.kind == "u" else int(image.min()) - 1 if image.size else 0
    labels = xp.empty(image.shape, np.int64)
    count = _lab.label_values(image, background=background, structure=structure, out=labels) if image.size else 0
    labels = labels.astype(np.intp, copy=False)
    return (labels, count) if return_num else labels


def label_dask(label_image, background=None, return_num=False, connectivity=None):
    """label of a Dask array. Bool images: ndimg.ndimage.label's chunk-correct Dask labelling (each chunk
    labelled alone, pieces joined across chunk faces). Other images join equal values, which that merge does
    not compare: they are labelled as one chunk (lazy and exact, but the whole image in one task)."""
    from ..ndimage._label_dask import label as ndi_label_dask

    import dask.array as da

    sample = np.zeros((1,) * label_image.ndim, label_image.dtype)
    label.__wrapped_impl__(sample, background, return_num, connectivity)   # the in-memory call's errors
    if label_image.dtype == bool:
        image = ~label_image if background == 1 else label_image
        labels, count = ndi_label_dask(image, structure=_structure(connectivity, image.ndim))
        return (labels, count) if return_num else labels
    whole = label_image.rechunk(label_image.shape)
    labels = whole.map_blocks(lambda b: label(b, background, False, connectivity), dtype=np.intp)
    labels = labels.rechunk(label_image.chunks)
    if not return_num:
        return labels
    return labels, labels.max() if labels.size else da.zeros((), np.intp)

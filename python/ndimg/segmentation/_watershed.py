"""skimage.segmentation.watershed (skimage/segmentation/_watershed.py): basins flooded from markers by
priority (the value, then the age of the queue entry). The arguments are prepared as scikit-image prepares
them (the markers from an array, a count of regular seeds, or the labelled local minima; everything padded
by the footprint's offset); the flooding is the C++ family in cpp/src/segmentation: scikit-image's heap,
replayed where its order among markers of equal value can change a label, then level by level (breadth-first
over each value's plateau), so that ties resolve as scikit-image resolves them. CuPy arrays flood on the
device (watershed_cuda.cu says which cases its schedule hands to the host)."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from ..morphology._extrema import local_minima, neighbour_steps
from ..morphology._util import validate_connectivity
from ..ndimage._binary import generate_binary_structure
from ..ndimage._label import label
from ..util._regular_grid import regular_seeds


def _validate_inputs(image, markers, mask, connectivity):
    """scikit-image's markers and mask: the markers zeroed outside the mask, the mask a bool array (on the
    image's engine)."""
    xp = xp_of(image)
    n_pixels = image.size
    if mask is None:
        mask = xp.ones(image.shape, bool)
    else:
        mask = xp.asanyarray(mask, dtype=bool)
        n_pixels = int(mask.sum())
        if mask.shape != image.shape:
            raise ValueError(f"`mask` (shape {mask.shape}) must have same shape as `image` (shape {image.shape})")
    if markers is None:
        minima = local_minima(image, connectivity=connectivity) * mask
        markers = label(minima, structure=generate_binary_structure(minima.ndim, connectivity))[0]
    elif not isinstance(markers, (np.ndarray, list, tuple)) and (isinstance(markers, np.generic)
                                                                  or not hasattr(markers, "shape")):
        # a count of markers within the mask, spread regularly over the whole image (a number, a NumPy
        # scalar; another library's arrays, 0-d ones too, are arrays)
        markers = xp.asarray(regular_seeds(image.shape, int(markers / (n_pixels / image.size))))
        markers *= mask
    else:
        markers = xp.asanyarray(markers) * mask
        if markers.shape != image.shape:
            raise ValueError(f"`markers` (shape {markers.shape}) must have same shape as `image` "
                             f"(shape {image.shape})")
    return markers, mask


@engine_aware("image", "mask", native=False)
def watershed(image, markers=None, connectivity=1, offset=None, mask=None, compactness=0, watershed_line=False):
    """Labels of the basins of `image` flooded from `markers` (an array, a count of regular seeds, or None:
    the labelled local minima), through `connectivity` (hops or a footprint centred at `offset`), within
    `mask`; `compactness` > 0 adds that multiple of the distance to the marker to the priority, and
    `watershed_line` leaves a line of zeros between basins. The labels have the markers' dtype."""
    xp = xp_of(image)
    markers, mask = _validate_inputs(image, markers, mask, connectivity)
    footprint, offset = validate_connectivity(image.ndim, connectivity, offset)
    if markers.dtype.kind not in "iub":
        raise TypeError(f"watershed: markers must be integers, not {markers.dtype}")
    if image.ndim == 0:   # (scikit-image fails padding it: a TypeError)
        raise TypeError("watershed: a 0-d image has no neighbours to flood")
    shape = tuple(s + 2 * int(p) for s, p in zip(image.shape, offset))
    inner = tuple(slice(int(p), int(p) + s) for p, s in zip(offset, image.shape))

    def padded(a, dtype):   # C-ordered working buffers, zero around (one pass each)
        out = xp.zeros(shape, dtype)
        out[inner] = a
        return out

    labels = padded(markers, np.int64)
    _, steps = neighbour_steps(shape, footprint, offset)
    _core.watershed(padded(image, np.float64), padded(mask, np.uint8), labels, steps.astype(np.int64).tolist(),
                    float(compactness), bool(watershed_line), stream=stream_ptr(labels))
    return labels[inner].astype(markers.dtype)

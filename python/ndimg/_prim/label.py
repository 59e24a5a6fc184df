"""Connected components (``cpp/src/label``): union-find over n-D arrays on the array's engine."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import stream_ptr, xp_of


def seeded_components(image, *, low, high, out=None):
    """The elements above ``low`` whose face-connected component (scipy.ndimage.label's default structure)
    of {image > low} holds an element above ``high``, as a bool array (written into ``out`` when given).
    Comparisons in double; float16 is read as float32 (exactly). ``image`` has at least one dimension."""
    if out is None:
        out = xp_of(image).empty(image.shape, dtype=bool)
    if image.dtype == np.float16:
        image = image.astype(np.float32)
    _core.seeded_components(image, float(low), float(high), out, stream=stream_ptr(out))
    return out


def seeded_roots(image, *, low, high):
    """seeded_components of ``image`` (a new bool array) and each element's component, as an int64 array
    (C-contiguous): -1 for the elements at or below ``low``, else the C-order index of the first element of
    its component (the same on both engines). For merging the components of blocks across their faces."""
    xp = xp_of(image)
    out, roots = xp.empty(image.shape, dtype=bool), xp.empty(image.shape, dtype=np.int64)
    if image.dtype == np.float16:
        image = image.astype(np.float32)
    _core.seeded_roots(image, float(low), float(high), out, roots, stream=stream_ptr(out))
    return out, roots


def _flags(structure):
    """A structure's 3**ndim flags in C order, as the core takes them."""
    return np.asarray(structure, dtype=bool).ravel().astype(np.uint8).tolist()


def label(image, *, structure, out):
    """scipy.ndimage.label's labels of the nonzero elements of ``image`` (at least one dimension) into ``out``
    (C-contiguous int32, or int64), joined by ``structure`` (a 3**ndim bool array: only its taps before the
    centre are read), numbered 1.. in C order of each component's first element. Returns the count."""
    return int(_core.label(image, _flags(structure), out, stream=stream_ptr(out)))


def label_values(image, *, background, structure, out):
    """skimage.measure.label's labels of a non-bool ``image`` into ``out`` (as ``label``): the elements other
    than ``background`` (an int64, compared as numbers), joined where their values are equal (compared in the
    image's type). Returns the count."""
    return int(_core.label_values(image, int(background), _flags(structure), out, stream=stream_ptr(out)))


def find_objects(labels, *, max_label):
    """Per label 1..max_label of ``labels`` (at least one dimension) its smallest and largest coordinate per
    axis, as an int64 array (max_label, 2, ndim) on the labels' device: -1 where the label is absent."""
    boxes = xp_of(labels).empty((max_label, 2, labels.ndim), dtype=np.int64)
    _core.find_objects(labels, int(max_label), boxes, stream=stream_ptr(boxes))
    return boxes


def value_groups(values, *, lo, hi):
    """The elements of the integer host array ``values`` (at least one dimension, all in lo..hi) grouped by
    value: counts (int64, one per value lo..hi) and their coordinates (int64, (ndim, size): by value, in C
    order within a value)."""
    counts, coords = np.empty(hi - lo + 1, np.int64), np.empty((values.ndim, values.size), np.int64)
    _core.value_groups(values, int(lo), counts, coords)
    return counts, coords


def watershed_ift(image, markers, *, structure, out):
    """scipy.ndimage.watershed_ift of host arrays (image uint8/uint16, markers and ``out`` integers, native
    byte order) into ``out``."""
    _core.watershed_ift(image, markers, _flags(structure), out)
    return out

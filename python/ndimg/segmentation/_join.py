"""skimage.segmentation.join_segmentations and relabel_sequential (skimage/segmentation/_join.py), with the
ArrayMap their maps are (skimage/util/_map_array.py's class, looked up through ndimg.util.map_array). The
distinct labels come from one count over the label range on the engine's threads where that range is short,
else from a sort."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, is_gpu_array, xp_of
from .._prim.histogram import integer_counts
from .._prim.reduce import image_stats
from ..ndimage._footprint import to_host
from ..util._map_array import map_array


class ArrayMap:
    """A map from the integers `in_values` to `out_values`, all other integers to 0, indexed like the dense
    array it stands for (np.zeros(max(in_values) + 1) holding out_values at in_values), without making it."""

    def __init__(self, in_values, out_values):
        self.in_values = in_values
        self.out_values = out_values
        self._max_str_lines = 4
        self._array = None

    def __len__(self):
        return int(xp_of(self.in_values).max(self.in_values)) + 1

    def __array__(self, dtype=None, copy=None):
        in_values, out_values = to_host(self.in_values), to_host(self.out_values)
        output = np.zeros(np.max(in_values) + 1, dtype=out_values.dtype if dtype is None else dtype)
        output[in_values] = out_values
        return output

    @property
    def dtype(self):
        return self.out_values.dtype

    def __repr__(self):
        return f"ArrayMap({self.in_values!r}, {self.out_values!r})"

    def __str__(self):
        n = len(self.in_values)
        half = self._max_str_lines // 2
        rows = [f"  {self.in_values[i]} \u2192 {self.out_values[i]}"
                for i in (range(n) if n <= self._max_str_lines + 1 else list(range(half)) + list(range(-half, 0)))]
        if n > self._max_str_lines + 1:
            rows.insert(half, "  ...")
        return "\n".join(["ArrayMap:"] + rows)

    def __call__(self, arr):
        return self.__getitem__(arr)

    def __getitem__(self, index):
        xp = xp_of(self.in_values)
        scalar = np.isscalar(index)
        if scalar:
            index = xp.array([index])
        elif isinstance(index, slice):
            start = index.start or 0
            stop = index.stop if index.stop is not None else len(self)
            index = xp.arange(start, stop, index.step)
        if index.dtype == bool:
            index = xp.flatnonzero(index)
        out = map_array(index, self.in_values.astype(index.dtype, copy=False), self.out_values)
        return out[0] if scalar else out

    def __setitem__(self, indices, values):
        if self._array is None:
            self._array = self.__array__()
        self._array[indices] = values
        self.in_values = np.flatnonzero(self._array)
        self.out_values = self._array[self.in_values]


def _counted(label_field):
    """Whether the core counts this array's values: integers below 64 unsigned bits, in native byte order (a
    NumPy scalar, as a product of 0-d arrays gives, goes to NumPy)."""
    dt = label_field.dtype
    return (isinstance(label_field, np.ndarray) or is_gpu_array(label_field)) and dt.kind in "iu" \
        and dt != np.uint64 and dt.isnative and label_field.size > 0


def _unique(label_field):
    """numpy.unique(label_field): the nonzero counts of the value range where that range is short, else a
    sort."""
    xp = xp_of(label_field)
    if _counted(label_field):
        stats = image_stats(label_field)
        span = int(stats.imax) - int(stats.imin) + 1
        if span <= 2 * label_field.size + (1 << 16):
            counts = integer_counts(label_field, lo=int(stats.imin), nbins=span)
            return (xp.flatnonzero(counts) + int(stats.imin)).astype(label_field.dtype)
    return xp.unique(label_field)


def _minimum(label_field):
    if _counted(label_field):
        return int(image_stats(label_field).imin)
    return xp_of(label_field).min(label_field)


@engine_aware("label_field", native=False)
def relabel_sequential(label_field, offset=1):
    """Labels renumbered offset, offset + 1, ... in increasing order (0 stays 0); returns the relabelled array,
    the forward map and the inverse map (ArrayMaps). The result's dtype is the input's unless the largest new
    label needs a wider one."""
    if offset <= 0:
        raise ValueError("Offset must be strictly positive.")
    if _minimum(label_field) < 0:
        raise ValueError("Cannot relabel array that contains negative values.")
    offset = int(offset)
    xp = xp_of(label_field)
    in_vals = _unique(label_field)
    # the new labels as scikit-image makes them, on the host (one per distinct label)
    starts_with_zero = bool(in_vals[0] == 0)
    if starts_with_zero:
        out_vals = np.concatenate([[0], np.arange(offset, offset + len(in_vals) - 1)])
    else:
        out_vals = np.arange(offset, offset + len(in_vals))
    input_type = label_field.dtype
    if input_type.kind not in "iu":
        raise TypeError("label_field must have an integer dtype")
    # never narrower than the input's dtype; wider (unsigned, the smallest that holds it) where the largest
    # new label does not fit below the input dtype's maximum
    required_type = np.min_scalar_type(out_vals[-1])
    if input_type.itemsize < required_type.itemsize:
        output_type = required_type
    elif out_vals[-1] < np.iinfo(input_type).max:
        output_type = input_type
    else:
        output_type = required_type
    out_vals = xp.asarray(out_vals.astype(output_type))
    out_array = xp.empty(label_field.shape, dtype=output_type)
    map_array(label_field, in_vals, out_vals, out=out_array)
    return out_array, ArrayMap(in_vals, out_vals), ArrayMap(out_vals, in_vals)


@engine_aware("s1", "s2", native=False)
def join_segmentations(s1, s2, return_mapping: bool = False):
    """The join of two segmentations: one label per distinct pair (s1, s2) of labels, numbered sequentially
    from 0 (the pair (0, 0)) in the order of the pairs; with `return_mapping`, also the ArrayMaps from the
    joined labels back to s1's and s2's."""
    if s1.shape != s2.shape:
        raise ValueError("Cannot join segmentations of different shape. "
                         f"s1.shape: {s1.shape}, s2.shape: {s2.shape}")
    s1_relabeled, _, backward_map1 = relabel_sequential(s1)
    s2_relabeled, _, backward_map2 = relabel_sequential(s2)
    # scikit-image's arithmetic and dtypes: a NumPy scalar factor (s2's dtype), products that may wrap
    factor = s2.max() + np.uint8(1)
    j_initial = factor * s1_relabeled + s2_relabeled
    j, _, map_j_to_j_initial = relabel_sequential(j_initial)
    if not return_mapping:
        return j
    labels_j = map_j_to_j_initial.out_values   # numpy.unique(j_initial)
    labels_s1_relabeled, labels_s2_relabeled = xp_of(labels_j).divmod(labels_j, factor)
    map_j_to_s1 = ArrayMap(map_j_to_j_initial.in_values, backward_map1[labels_s1_relabeled])
    map_j_to_s2 = ArrayMap(map_j_to_j_initial.in_values, backward_map2[labels_s2_relabeled])
    return j, map_j_to_s1, map_j_to_s2

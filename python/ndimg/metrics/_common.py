"""Pieces shared by the metrics: scikit-image's argument checks and float promotion, and the sparse
(row, column, value) form of a contingency table that the segmentation metrics reduce over."""
from __future__ import annotations

import numpy as np

from .._engine import xp_of
from .._prim.histogram import joint_integer_counts
from .._rules import supported_float_type


def check_shape_equality(image0, image1):
    if image0.shape != image1.shape:
        raise ValueError("Input images must have the same dimensions.")


def as_floats(image0, image1):
    """Both images in the float type scikit-image promotes their pair of dtypes to."""
    ft = supported_float_type((image0.dtype, image1.dtype))
    xp = xp_of(image0, image1)
    return xp.asarray(image0, dtype=ft), xp.asarray(image1, dtype=ft)


def entropy(counts):
    """Shannon entropy (natural log) of a histogram, normalised like scipy.stats.entropy."""
    xp = xp_of(counts)
    p = counts.reshape(-1).astype(np.float64)
    p = p / p.sum()
    nz = p[p > 0]
    return -(nz * xp.log(nz)).sum()


class Table:
    """A contingency table as unique (row, col) pairs with their values, and its shape."""

    __slots__ = ("rows", "cols", "data", "shape")

    def __init__(self, rows, cols, data, shape):
        self.rows, self.cols, self.data, self.shape = rows, cols, data, shape

    def row_sums(self):
        return xp_of(self.data).bincount(self.rows, weights=self.data, minlength=self.shape[0])

    def col_sums(self):
        return xp_of(self.data).bincount(self.cols, weights=self.data, minlength=self.shape[1])


# Label pairs counted in a dense table when it has at most this many cells (or no more than the pixels).
_DENSE_PAIRS = 1 << 20


def _label_max(labels, which):
    if labels.dtype.kind not in "iu":
        # the reference hands the labels to SciPy as sparse indices, which refuses non-integers
        raise TypeError(f"'{labels.dtype}' labels cannot be interpreted as integers")
    if labels.size == 0:
        return -1
    lo, hi = (int(v) for v in (labels.min(), labels.max()))
    if lo < 0:
        raise ValueError(f"negative axis {which} index: {lo}")
    return hi


def table_from_labels(im_true, im_test, ignore_labels, normalize):
    """Count the pixels of each (true label, test label) pair, pixels whose true label is ignored left out."""
    xp = xp_of(im_true, im_test)
    true = im_true.reshape(-1)
    test = im_test.reshape(-1)
    if true.size != test.size:
        raise ValueError("row, column, and data array must all be the same length")
    if true.size == 0:  # SciPy's sparse table of no pixels has no shape
        raise ValueError("cannot infer dimensions from zero sized index arrays")
    shape = (_label_max(true, 0) + 1, _label_max(test, 1) + 1)
    ignore = ignore_labels is not None and len(ignore_labels)
    if shape[0] * shape[1] <= max(true.size, _DENSE_PAIRS):
        rows, cols, data = _dense_pairs(im_true, im_test, shape)
        if ignore:  # ignored pixels weigh 0 but keep their pairs in the table (as explicit zeros), as in the reference
            data[xp.isin(rows, xp.asarray(np.asarray(ignore_labels)))] = 0
        if normalize:
            data /= data.sum() if ignore else true.size
        return Table(rows, cols, data, shape)
    key = true.astype(np.int64) * shape[1] + test.astype(np.int64)
    uniq, inverse = xp.unique(key, return_inverse=True)
    if ignore:
        weight = xp.isin(true, xp.asarray(np.asarray(ignore_labels)), invert=True).astype(np.float64)
        data = xp.bincount(inverse.reshape(-1), weights=weight, minlength=uniq.size)
    else:
        weight = None
        data = xp.bincount(inverse.reshape(-1), minlength=uniq.size).astype(np.float64)
    if normalize:
        data /= true.size if weight is None else xp.count_nonzero(weight)
    return Table(uniq // shape[1], uniq % shape[1], data, shape)


def _dense_pairs(im_true, im_test, shape):
    """(rows, cols, counts as float64) of the label pairs present, in (row, col) order, from the dense
    table of every pair counted in one threaded pass (joint histogram)."""
    xp = xp_of(im_true, im_test)
    if im_true.shape != im_test.shape:  # equal sizes: compared pixel by pixel in C order
        im_true, im_test = im_true.reshape(-1), im_test.reshape(-1)
    if im_true.dtype != im_test.dtype:  # labels within the table: exact in int64
        im_true, im_test = im_true.astype(np.int64), im_test.astype(np.int64)
    counts = joint_integer_counts(im_true, im_test, lo0=0, lo1=0, shape=shape).reshape(-1)
    key = xp.flatnonzero(counts)
    return key // shape[1], key % shape[1], counts[key].astype(np.float64)


def table_from_sparse(table):
    """Our Table from a user's SciPy / CuPy sparse contingency table."""
    coo = table.tocoo()
    coo.sum_duplicates()
    xp = xp_of(coo.data)
    return Table(xp.asarray(coo.row, dtype=np.int64), xp.asarray(coo.col, dtype=np.int64),
                 coo.data.astype(np.float64), tuple(coo.shape))


def scalar(x):
    """A NumPy 0-d result as NumPy's float64 scalar (what the reference returns); device results stay
    0-d device arrays, so that a metric does not synchronise the stream."""
    return x[()] if isinstance(x, np.ndarray) else x


def dtype_range(dtype):
    """scikit-image's nominal intensity range of a dtype: [-1, 1] for floats, the full range for integers."""
    if dtype.kind == "b":
        return False, True
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min, info.max
    if dtype.kind == "f":
        return -1, 1
    raise KeyError(dtype.type)

"""Pieces shared by the metrics: scikit-image's argument checks and float promotion, and the sparse
(row, column, value) form of a contingency table that the segmentation metrics reduce over."""
from __future__ import annotations

import numpy as np

from .._engine import xp_of
from .._prim.histogram import joint_integer_counts
from .._rules import supported_float_type
from ..util._dtype import limits_of


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


def check_labels(labels):
    if labels.dtype.kind not in "iu":
        # the reference hands the labels to SciPy as sparse indices, which refuses non-integers
        raise TypeError(f"'{labels.dtype}' labels cannot be interpreted as integers")


def table_extent(lo, hi, which):
    """The table's extent along axis ``which`` from its image's (min, max) label: ValueError for a negative one."""
    if lo < 0:
        raise ValueError(f"negative axis {which} index: {lo}")
    return int(hi) + 1


def dense(shape, size):
    """Whether the label pairs of ``size`` pixels are counted in a dense table of ``shape``."""
    return shape[0] * shape[1] <= max(size, _DENSE_PAIRS)


def table_from_labels(im_true, im_test, ignore_labels, normalize):
    """Count the pixels of each (true label, test label) pair, pixels whose true label is ignored left out."""
    true = im_true.reshape(-1)
    test = im_test.reshape(-1)
    if true.size != test.size:
        raise ValueError("row, column, and data array must all be the same length")
    if true.size == 0:  # SciPy's sparse table of no pixels has no shape
        raise ValueError("cannot infer dimensions from zero sized index arrays")
    shape = tuple(table_extent(*(check_labels(im) or (int(im.min()), int(im.max()))), which)
                  for which, im in enumerate((true, test)))
    d = dense(shape, true.size)
    return finish_table(*pair_keys(pair_counts(im_true, im_test, shape, d), d), shape, true.size, ignore_labels,
                        normalize)


def pair_counts(im_true, im_test, shape, dense):
    """How many pixels hold each label pair of two label images of one size: the ``shape`` table, ``dense``
    (counted in one threaded pass, a joint histogram) or as the present pairs' keys (true * shape[1] + test,
    sorted) and counts. Counts of parts of the images add up: dense tables directly, pairs by merge_pairs."""
    xp = xp_of(im_true, im_test)
    if not dense:
        key = im_true.reshape(-1).astype(np.int64) * shape[1] + im_test.reshape(-1).astype(np.int64)
        return xp.unique(key, return_counts=True)
    if im_true.shape != im_test.shape:  # equal sizes: compared pixel by pixel in C order
        im_true, im_test = im_true.reshape(-1), im_test.reshape(-1)
    if im_true.dtype != im_test.dtype:  # labels within the table: exact in int64
        im_true, im_test = im_true.astype(np.int64), im_test.astype(np.int64)
    return joint_integer_counts(im_true, im_test, lo0=0, lo1=0, shape=shape).reshape(-1)


def pair_keys(counts, dense):
    """The present pairs' keys and counts of pair_counts' result."""
    if not dense:
        return counts
    keys = xp_of(counts).flatnonzero(counts)
    return keys, counts[keys]


def merge_pairs(parts):
    """The sparse (keys, counts) of pair_counts of parts of two images merged into the whole images'."""
    xp = xp_of(parts[0][0])
    keys, inverse = xp.unique(xp.concatenate([k for k, _ in parts]), return_inverse=True)
    counts = xp.bincount(inverse.reshape(-1), weights=xp.concatenate([c for _, c in parts]), minlength=keys.size)
    return keys, counts.astype(np.int64)


def finish_table(keys, counts, shape, size, ignore_labels, normalize):
    """The Table of the present label pairs' keys and counts (of ``size`` pixels): the pairs of an ignored
    true label keep their place with a weight of 0 (explicit zeros, as in the reference); ``normalize``
    divides by the pixels counted."""
    xp = xp_of(counts)
    rows, cols, data = keys // shape[1], keys % shape[1], counts.astype(np.float64)
    ignore = ignore_labels is not None and len(ignore_labels)
    if ignore:
        data[xp.isin(rows, xp.asarray(np.asarray(ignore_labels)))] = 0
    if normalize:
        data /= data.sum() if ignore else size
    return Table(rows, cols, data, shape)


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
    return limits_of(dtype)

"""Variation of information between segmentations (skimage.metrics.variation_of_information)."""
from __future__ import annotations

from .._engine import engine_aware, xp_of
from ._common import check_shape_equality, table_from_labels, table_from_sparse


def _conditional_entropy(t, marginal, index):
    """-sum_k m_k sum_(pairs in k) (p / m_k) log2(p / m_k): entropy of one labelling given the other."""
    xp = xp_of(t.data)
    m = marginal[index]
    q = xp.where(m > 0, t.data / xp.where(m > 0, m, 1), 0)
    safe = xp.where(q > 0, q, 1)
    return -(m * q * xp.log2(safe)).sum()


@engine_aware("image0", "image1")
def variation_of_information(image0=None, image1=None, *, table=None, ignore_labels=()):
    """[H(image1 | image0), H(image0 | image1)] in bits (false splits, false merges), from the images'
    normalised contingency table or a given table (used as is)."""
    check_shape_equality(image0, image1)
    t = table_from_labels(image0, image1, ignore_labels, True) if table is None else table_from_sparse(table)
    # in the images' library: a 0-d image's table is built on the host
    return vi_from_table(t, xp_of(t.data) if image0 is None else xp_of(image0))


def vi_from_table(t, xp):
    """[H(image1 | image0), H(image0 | image1)] from a normalised contingency Table, as an ``xp`` array."""
    h1g0 = _conditional_entropy(t, t.row_sums(), t.rows)
    h0g1 = _conditional_entropy(t, t.col_sums(), t.cols)
    return xp.asarray(xp_of(t.data).stack([h1g0, h0g1]))

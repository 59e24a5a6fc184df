"""Adapted Rand error of a segmentation (skimage.metrics.adapted_rand_error)."""
from __future__ import annotations

from .._engine import engine_aware
from ._common import scalar, check_shape_equality, table_from_labels, table_from_sparse


@engine_aware("image_true", "image_test")
def adapted_rand_error(image_true=None, image_test=None, *, table=None, ignore_labels=(0,), alpha=0.5):
    """(error, precision, recall) of the adapted Rand index (SNEMI3D), from the images' contingency table
    or a given one; ``alpha`` weighs precision against recall."""
    if image_test is not None and image_true is not None:
        check_shape_equality(image_true, image_test)
    t = table_from_labels(image_true, image_test, ignore_labels, False) if table is None \
        else table_from_sparse(table)
    if alpha < 0.0 or alpha > 1.0:
        raise ValueError("alpha must be between 0 and 1")
    return are_from_table(t, alpha)


def are_from_table(t, alpha):
    """(error, precision, recall) from a contingency Table."""
    total = t.data.sum()
    sum_p_ij2 = t.data @ t.data - total
    a = t.row_sums()
    b = t.col_sums()
    sum_a2 = a @ a - total
    sum_b2 = b @ b - total
    precision = sum_p_ij2 / sum_a2
    recall = sum_p_ij2 / sum_b2
    fscore = sum_p_ij2 / (alpha * sum_a2 + (1 - alpha) * sum_b2)
    return scalar(1.0 - fscore), scalar(precision), scalar(recall)

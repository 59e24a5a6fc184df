"""skimage.util.label_points over NumPy and CuPy."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from ._dtype import cast_like_host


@engine_aware("coords", native=False)
def label_points(coords, output_shape):
    """A uint64 image of `output_shape` labelling the point coords[i] (rounded) with i + 1, 0 elsewhere."""
    if coords.shape[1] != len(output_shape):
        raise ValueError("Dimensionality of points should match the output shape")
    xp = xp_of(coords)
    if bool((coords < 0).any()):
        raise ValueError("Coordinates should be positive and start from 0")
    index = cast_like_host(xp.round(coords), np.intp)   # NaN and inf as the host casts them (-2**63 on x86)
    if xp is not np and coords.shape[0]:   # NumPy's IndexError for a point outside (CuPy would wrap around)
        for d, (col, n) in enumerate(zip(index.T, output_shape)):
            outside = (col >= n) | (col < -n)
            if bool(outside.any()):
                raise IndexError(f"index {int(col[int(outside.argmax())])} is out of bounds for axis {d} with size {n}")
    index = tuple(index.T)
    labels = xp.zeros(output_shape, dtype=np.uint64)
    if xp is np or not coords.shape[0]:
        labels[index] = xp.arange(1, coords.shape[0] + 1)
        return labels
    # CuPy's scatter of points rounded to one pixel keeps any of them, NumPy's the last: only the last is written
    flat = index[0]
    for i, n in zip(index[1:], output_shape[1:]):
        flat = flat * n + i
    order = xp.argsort(flat)   # stable (CuPy sorts stably): a pixel's points in their order
    flat = flat[order]
    last = xp.ones(flat.size, dtype=bool)
    last[:-1] = flat[1:] != flat[:-1]
    labels.reshape(-1)[flat[last]] = order[last] + 1
    return labels

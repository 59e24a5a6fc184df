"""skimage.util.regular_grid and regular_seeds (host: slices and a seed image from a shape)."""
from __future__ import annotations

import numpy as np


def regular_grid(ar_shape, n_points):
    """Slices picking about `n_points` points spread evenly over an array of `ar_shape` (a step per axis,
    as equal as the axes allow, each grid centred in its cell)."""
    ar_shape = np.asanyarray(ar_shape)
    ndim = len(ar_shape)
    unsort = np.argsort(np.argsort(ar_shape))
    sorted_dims = np.sort(ar_shape)
    space = float(np.prod(ar_shape))
    if space <= n_points:
        return (slice(None),) * ndim
    steps = np.full(ndim, (space / n_points) ** (1.0 / ndim), dtype="float64")
    if (sorted_dims < steps).any():
        # the short axes take every element; the rest share the points left
        for dim in range(ndim):
            steps[dim] = sorted_dims[dim]
            space = float(np.prod(sorted_dims[dim + 1:]))
            steps[dim + 1:] = (space / n_points) ** (1.0 / (ndim - dim - 1))
            if (sorted_dims >= steps).all():
                break
    starts = (steps // 2).astype(int)
    steps = np.round(steps).astype(int)
    grid = [slice(a, None, s) for a, s in zip(starts, steps)]
    return tuple(grid[i] for i in unsort)


def regular_seeds(ar_shape, n_points, dtype=int):
    """An image of `ar_shape` and `dtype` with regular_grid's points labelled 1, 2, ... and 0 elsewhere."""
    grid = regular_grid(ar_shape, n_points)
    seeds = np.zeros(ar_shape, dtype=dtype)
    picked = seeds[grid]
    seeds[grid] = 1 + np.reshape(np.arange(picked.size), picked.shape)
    return seeds

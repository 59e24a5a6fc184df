"""skimage.draw.ellipsoid and ellipsoid_stats. The volume is the sum of three per-axis terms broadcast
(the same values as scikit-image's full-grid arithmetic, without its full-size temporaries)."""
from __future__ import annotations

import numpy as np
from scipy.special import elliprg

from .._rules import check_allocation


def ellipsoid(a, b, c, spacing=(1.0, 1.0, 1.0), levelset=False):
    """The ellipsoid of semi-axes a, b, c on a grid of `spacing` (odd, symmetric, one sample of margin): a
    bool volume, or with `levelset` the float64 level set (x/a)**2 + (y/b)**2 + (z/c)**2 - 1."""
    if (a <= 0) or (b <= 0) or (c <= 0):
        raise ValueError('Parameters a, b, and c must all be > 0')
    offset = np.r_[1, 1, 1] * np.r_[spacing]
    low = np.ceil(-np.r_[a, b, c] - offset)
    high = np.floor(np.r_[a, b, c] + offset + 1)
    for dim in range(3):
        if (high[dim] - low[dim]) % 2 == 0:
            low[dim] -= 1
        num = np.arange(low[dim], high[dim], spacing[dim])
        if 0 not in num:
            low[dim] -= np.max(num[num < 0])
    # each axis of np.mgrid[low:high:step, ...]: the same grid arithmetic with that axis alone
    axes = [np.mgrid[(slice(low[d], high[d], spacing[d]),)][0] for d in range(3)]
    check_allocation(tuple(len(x) for x in axes), np.float64 if levelset else bool, 8)
    x, y, z = ((v / float(s)) ** 2 for v, s in zip(axes, (a, b, c)))
    xy = x[:, None] + y[None, :]
    if levelset:
        total = xy[:, :, None] + z
        total -= 1
        return total
    # the bool volume by slabs of the first axis: their float sums stay in cache
    arr = np.empty(xy.shape + z.shape, bool)
    step = max(1, (1 << 16) // max(1, xy.shape[1] * z.size))
    for i in range(0, len(x), step):
        np.less_equal(xy[i:i + step, :, None] + z, 1, out=arr[i:i + step])
    return arr


def ellipsoid_stats(a, b, c):
    """(volume, surface area) of the ellipsoid of semi-axes a, b, c (Carlson's symmetric integral R_G)."""
    if (a <= 0) or (b <= 0) or (c <= 0):
        raise ValueError('Parameters a, b, and c must all be > 0')
    vol = 4 / 3.0 * np.pi * a * b * c
    surf = 3 * vol * elliprg(1 / a**2, 1 / b**2, 1 / c**2)
    return vol, surf

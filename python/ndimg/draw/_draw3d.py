"""skimage.draw.ellipsoid and ellipsoid_stats. The volume is the sum of three per-axis terms broadcast
(the same values as scikit-image's full-grid arithmetic, without its full-size temporaries)."""
from __future__ import annotations

import numpy as np

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
    total = (x[:, None, None] + y[None, :, None]) + z[None, None, :]
    if not levelset:
        return total <= 1
    total -= 1
    return total


def ellipsoid_stats(a, b, c):
    """(volume, surface area) of the ellipsoid of semi-axes a, b, c (Carlson's symmetric integral R_G)."""
    from scipy.special import elliprg

    if (a <= 0) or (b <= 0) or (c <= 0):
        raise ValueError('Parameters a, b, and c must all be > 0')
    vol = 4 / 3.0 * np.pi * a * b * c
    surf = 3 * vol * elliprg(1 / a**2, 1 / b**2, 1 / c**2)
    return vol, surf

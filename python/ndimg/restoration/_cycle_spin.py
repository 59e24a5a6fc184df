"""skimage.restoration's cycle spinning (skimage/restoration/_cycle_spin.py): a function applied to every
circular shift of the input and the shifted-back results averaged; shifts run on threads."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from itertools import product

import numpy as np

from .._engine import engine_aware, get_num_threads, xp_of
from .._rules import as_image
from ..morphology._misc import DEPRECATED
from ..transform._warps import _channel_last
from ._rolling_ball import renamed_workers


def _shifts(ndim, multichannel, max_shifts, shift_steps):
    """Every shift of the grid range(0, max_shift + 1, step) per axis (none along a last channel axis)."""
    mc = int(multichannel)

    def per_axis(v, channel):   # scikit-image's message names max_shifts for either argument
        if np.isscalar(v):
            return (v,) * (ndim - mc) + (channel,) * mc
        if multichannel and len(v) == ndim - 1:
            return tuple(v) + (channel,)
        if len(v) != ndim:
            raise ValueError("max_shifts should have length ndim")
        return v

    max_shifts, shift_steps = per_axis(max_shifts, 0), per_axis(shift_steps, 1)
    if any(s < 1 for s in shift_steps):
        raise ValueError("shift_steps must all be >= 1")
    if multichannel and max_shifts[-1] != 0:
        raise ValueError("Multichannel cycle spinning should not have shifts along the last axis.")
    return list(product(*[range(0, s + 1, t) for s, t in zip(max_shifts, shift_steps)]))


@engine_aware("x")
@_channel_last
def cycle_spin(x, func, max_shifts, shift_steps=1, num_workers=DEPRECATED, func_kw=None, *, workers=None,
               channel_axis=None):
    """The mean of ``roll(func(roll(x, s)), -s)`` over every shift s up to `max_shifts` in steps of
    `shift_steps` (skimage.restoration.cycle_spin); `workers` threads (None: ndimg's thread count)."""
    workers = renamed_workers("num_workers", num_workers, workers, "cycle_spin")
    func_kw = {} if func_kw is None else func_kw
    x = as_image(x)
    xp = xp_of(x)
    shifts = _shifts(x.ndim, channel_axis is not None, max_shifts, shift_steps)
    axes = tuple(range(x.ndim))

    def one(shift):
        return xp.roll(func(xp.roll(x, shift, axis=axes), **func_kw), tuple(-s for s in shift), axis=axes)

    if not shifts:   # scikit-image: the first of no shifts (one worker) or a mean of none
        raise IndexError("list index out of range") if workers == 1 else ZeroDivisionError("division by zero")
    workers = get_num_threads() if workers is None else workers
    if workers == 1 or len(shifts) == 1:
        results = map(one, shifts)
    else:
        pool = ThreadPoolExecutor(max(1, min(int(workers) if workers > 0 else get_num_threads(), len(shifts))))
        results = pool.map(one, shifts)
    try:
        mean = next(results)
        for r in results:   # in the shifts' order, as scikit-image sums them
            mean += r
    finally:
        if workers != 1 and len(shifts) > 1:
            pool.shutdown()
    mean /= len(shifts)
    return mean

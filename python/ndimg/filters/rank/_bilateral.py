"""skimage.filters.rank's bilateral filters (skimage/filters/rank/bilateral.py), 2-D: the window restricted to
the grey levels in (g - s1, g + s0) around the pixel's level g (one core call each, ``cpp/src/rank``)."""
from __future__ import annotations

import operator

from ..._engine import engine_aware
from ._generic import _scalar_2d

__all__ = ["mean_bilateral", "pop_bilateral", "sum_bilateral"]


def _filter(statistic, doc):
    def fn(image, footprint, out=None, mask=None, shift_x=0, shift_y=0, s0=10, s1=10):
        return _scalar_2d(statistic, image, footprint, out, mask, shift_x, shift_y, operator.index, s0=s0, s1=s1)

    fn.__name__ = fn.__qualname__ = statistic
    fn.__doc__ = f"skimage.filters.rank.{statistic}: {doc} of the window's pixels within the grey band (2-D)."
    return engine_aware("image", "out", "mask", native=False)(fn)


mean_bilateral = _filter("mean_bilateral", "the mean")
pop_bilateral = _filter("pop_bilateral", "the number")
sum_bilateral = _filter("sum_bilateral", "the sum of the grey levels")

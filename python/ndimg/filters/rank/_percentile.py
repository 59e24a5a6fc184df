"""skimage.filters.rank's percentile filters (skimage/filters/rank/_percentile.py), 2-D: the generic
filters' statistics over the grey levels between the window's percentiles p0 and p1 (one core call each,
``cpp/src/rank``)."""
from __future__ import annotations

from ..._engine import engine_aware
from ._generic import _scalar_2d

__all__ = ["autolevel_percentile", "gradient_percentile", "mean_percentile", "subtract_mean_percentile",
           "enhance_contrast_percentile", "percentile", "pop_percentile", "sum_percentile", "threshold_percentile"]


def _apply(statistic, image, footprint, out, mask, shift_x, shift_y, p0, p1):
    return _scalar_2d(statistic, image, footprint, out, mask, shift_x, shift_y, _real, p0=p0, p1=p1)


def _real(p):
    """p0/p1 as the Cython kernels take them (a C double)."""
    if isinstance(p, str):
        raise TypeError(f"must be real number, not {type(p).__name__}")
    return float(p)


def _filter(statistic, doc):
    def fn(image, footprint, out=None, mask=None, shift_x=0, shift_y=0, p0=0, p1=1):
        return _apply(statistic, image, footprint, out, mask, shift_x, shift_y, p0, p1)

    fn.__name__ = fn.__qualname__ = statistic
    fn.__doc__ = f"skimage.filters.rank.{statistic}: {doc}, within the window's percentiles [p0, p1] (2-D)."
    return engine_aware("image", "out", "mask", native=False)(fn)


autolevel_percentile = _filter("autolevel_percentile", "the grey level stretched from [p0, p1] to the full range")
gradient_percentile = _filter("gradient_percentile", "the distance between the p0 and p1 percentiles")
mean_percentile = _filter("mean_percentile", "the mean")
subtract_mean_percentile = _filter("subtract_mean_percentile", "the pixel minus the mean, halved and shifted")
enhance_contrast_percentile = _filter("enhance_contrast_percentile", "the closer of the two percentiles")
pop_percentile = _filter("pop_percentile", "the number of pixels")
sum_percentile = _filter("sum_percentile", "the sum of the grey levels")


@engine_aware("image", "out", "mask", native=False)
def percentile(image, footprint, out=None, mask=None, shift_x=0, shift_y=0, p0=0):
    """skimage.filters.rank.percentile: the window's p0 percentile (p0 = 1: its maximum), 2-D."""
    return _apply("percentile", image, footprint, out, mask, shift_x, shift_y, p0, 0.0)


@engine_aware("image", "out", "mask", native=False)
def threshold_percentile(image, footprint, out=None, mask=None, shift_x=0, shift_y=0, p0=0):
    """skimage.filters.rank.threshold_percentile: n_bins - 1 where the pixel is at least the window's p0
    percentile, else 0 (2-D)."""
    return _apply("threshold_percentile", image, footprint, out, mask, shift_x, shift_y, p0, 0)

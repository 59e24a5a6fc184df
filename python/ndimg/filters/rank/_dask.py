"""filters.rank on Dask arrays: blockwise with the footprint's halo (the registry's rule), a 16-bit image's
histogram over the whole image's max(3, max) + 1 bins in every block (autolevel, equalize, subtract_mean,
the thresholds and noise_filter depend on it), that maximum computed first."""
from __future__ import annotations

import inspect

import numpy as np

from ._generic import _N_BINS


class _WithBins:
    """A block's call of the public function with the whole image's number of bins (picklable)."""

    def __init__(self, public, n_bins):
        self.public, self.n_bins = public, n_bins

    def __call__(self, *args, **kwargs):
        token = _N_BINS.set(self.n_bins)
        try:
            return self.public(*args, **kwargs)
        finally:
            _N_BINS.reset(token)


def _make(name):
    def call(*args, **kwargs):
        from ..._dask import _blockwise
        from ..._registry import REGISTRY

        entry = REGISTRY[f"filters.rank.{name}"]
        public = entry.load()
        fn = inspect.unwrap(public)
        image = inspect.signature(fn).bind(*args, **kwargs).arguments.get("image")
        n_bins = None
        if getattr(image, "dtype", None) == np.uint16 and image.size:
            n_bins = int(max(3, int(image.max().compute()))) + 1
        return _blockwise(_WithBins(public, n_bins), fn, entry.halo, entry.qualname, ("image", "out", "mask"),
                          args, kwargs)

    call.__name__ = call.__qualname__ = name
    return call


for _name in ("autolevel", "equalize", "gradient", "maximum", "mean", "geometric_mean", "subtract_mean", "median",
              "minimum", "modal", "enhance_contrast", "pop", "sum", "threshold", "noise_filter", "entropy", "otsu",
              "majority", "autolevel_percentile", "gradient_percentile", "mean_percentile", "subtract_mean_percentile",
              "enhance_contrast_percentile", "percentile", "pop_percentile", "sum_percentile", "threshold_percentile",
              "mean_bilateral", "pop_bilateral", "sum_bilateral"):
    globals()[_name] = _make(_name)
del _name


class _Histograms:
    """A block's windowed histograms (picklable): the public function on the block and its mask's block."""

    def __init__(self, public, kwargs):
        self.public, self.kwargs = public, kwargs

    def __call__(self, block, mask=None):
        return self.public(block, mask=mask, **self.kwargs)


def windowed_histogram(image, footprint, out=None, mask=None, shift_x=0, shift_y=0, n_bins=None):
    """Blockwise with the footprint's halo, the histogram axis added after the image's. n_bins is needed:
    its default, the whole image's maximum + 1, is the result's shape."""
    import dask.array as da
    from dask.array.overlap import ensure_minimum_chunksize, overlap, trim_internal

    from ..._registry import REGISTRY

    public = REGISTRY["filters.rank.windowed_histogram"].load()
    if out is not None:
        raise NotImplementedError("ndimg.filters.rank.windowed_histogram: out= arrays cannot take a lazy Dask "
                                  "result; drop the out= argument")
    # the function's own errors (dimensions, dtype, shifts, footprint) from a call on a small block
    public(np.zeros(tuple(min(s, 2) for s in image.shape), image.dtype), footprint, shift_x=shift_x,
           shift_y=shift_y, n_bins=1 if n_bins is None else n_bins)
    if n_bins is None:
        raise NotImplementedError("ndimg.filters.rank.windowed_histogram does not take Dask arrays with n_bins=None "
                                  "(the whole image's maximum + 1 bins: the result's shape); pass n_bins or compute() "
                                  "the array first")
    n_bins = int(n_bins)
    fp = np.shape(footprint)
    depth = [max(s // 2 + int(h), s - 1 - s // 2 - int(h)) for s, h in zip(fp, (shift_y, shift_x))]
    chunks = tuple(ensure_minimum_chunksize(d, c) if d and len(c) > 1 else c
                   for d, c in zip(depth, image.chunks))
    depth = {a: (d if len(c) > 1 else 0) for a, (d, c) in enumerate(zip(depth, chunks))}
    arrays = [image if isinstance(image, da.Array) else da.from_array(image)]
    if mask is not None:
        arrays.append(mask if isinstance(mask, da.Array) else da.from_array(mask, chunks=image.chunks))
    arrays = [overlap(a.rechunk(chunks), depth=depth, boundary="none", allow_rechunk=False) for a in arrays]
    run = _Histograms(public, dict(footprint=footprint, shift_x=shift_x, shift_y=shift_y, n_bins=n_bins))
    res = da.map_blocks(run, *arrays, new_axis=2, chunks=arrays[0].chunks + ((n_bins,),), dtype=np.float64,
                        meta=np.empty((0, 0, 0), np.float64))
    res = trim_internal(res, {**depth, 2: 0}, {0: "none", 1: "none", 2: "none"})
    return res.rechunk(image.chunks + ((n_bins,),))

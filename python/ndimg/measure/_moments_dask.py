"""measure's image moments over Dask arrays, exact across chunks and lazy.

Each chunk gives its power sums about the centre moved into the chunk's coordinates (the centre minus the
scaled coordinates of the chunk's first element), in float64 on its own engine; the sums over the chunks
are the image's moments, rounded once to scikit-image's float type (as the GPU engine's one float64 pass
rounds them). The formulas after the moments (the binomial shift to central moments, the centroid, the
inertia tensor and its eigenvalues, normalisation, Hu's invariants) are the in-memory code's, run on the
host on those few numbers. Results are Dask arrays of the in-memory shapes (eigenvalues: a list of 0-d
Dask arrays), of the chunks' array library.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from .._engine import xp_of
from ..filters._thresholding_dask import add, blocks, delayed, known, tree
from ..ndimage._footprint import to_host
from ..ndimage._measurements_dask import _origins
from . import _moments as m


def _chunk_sums(chunk, origin, center, order, spacing):
    """The chunk's float64 power sums about the image-coordinate `center`."""
    scale = np.ones(chunk.ndim) if spacing is None else spacing
    local = [float(center[d]) - int(origin[d]) * float(scale[d]) for d in range(chunk.ndim)]
    return m._moments_about(chunk, local, order, spacing, dtype=np.float64)


def _sums(image, center, order, spacing):
    """The delayed float64 power sums of a Dask image about `center` (a delayed value or a sequence)."""
    parts = (delayed(_chunk_sums)(b, o, center, order, spacing) for (b,), o in zip(blocks(image), _origins(image)))
    return tree(parts, add)


def _on_host(fn, gpu, *args):
    """fn of the host copies of the (few) moments, moved back to the device for CuPy chunks."""
    out = fn(*(to_host(a) if hasattr(a, "shape") else a for a in args))
    if gpu:
        import cupy

        return cupy.asarray(out)
    return out


def _lazy(fn, image, shape, dtype, *args):
    """fn(*args) on the host as a Dask array of `shape` and `dtype`, of the image's chunk library."""
    import dask.array as da

    value = delayed(functools.partial(_on_host, fn, _gpu(image)))(*args)
    meta = da.utils.meta_from_array(image._meta, ndim=len(shape), dtype=dtype)
    return da.from_delayed(value, shape=shape, dtype=dtype, meta=meta)


def _gpu(image):
    return xp_of(image._meta) is not np


def _check(fn, image, *args, **kw):
    """The in-memory function on a one-element image: its argument errors, and its result's dtype."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(np.ones((1,) * image.ndim, image.dtype), *args, **kw)


def _given(mu):
    """A given moments array for the one-element check (a Dask one is checked when computed)."""
    return None if mu is None or hasattr(mu, "dask") else to_host(mu)


def _rounded(sums, dtype):
    return sums.astype(dtype, copy=False)


def _central(raw, dtype):
    return m.raw_to_central(raw).astype(dtype, copy=False)


def _central_moments(image, center, order, spacing):
    """The lazy central moments, of scikit-image's float type."""
    dtype = m.float_type(image.dtype)
    shape = (order + 1,) * image.ndim
    if center is None:   # the raw moments, then the binomial shift in float64
        return _lazy(functools.partial(_central, dtype=dtype), image, shape, dtype,
                     _sums(image, (0,) * image.ndim, order, spacing))
    return _lazy(functools.partial(_rounded, dtype=dtype), image, shape, dtype, _sums(image, center, order, spacing))


def moments(image, order=3, *, spacing=None):
    dtype = _check(m.moments, image, order, spacing=spacing).dtype
    return _lazy(functools.partial(_rounded, dtype=dtype), image, (order + 1,) * image.ndim, dtype,
                 _sums(image, (0,) * image.ndim, order, spacing))


def moments_central(image, center=None, order=3, *, spacing=None, **kwargs):
    _check(m.moments_central, image, center, order, spacing=spacing, **kwargs)
    return _central_moments(image, center, order, spacing)


def _centroid(raw, dtype, ndim):
    raw = raw.astype(dtype, copy=False)
    return raw[tuple(np.eye(ndim, dtype=int))] / raw[(0,) * ndim]


def centroid(image, *, spacing=None):
    dtype = _check(m.centroid, image, spacing=spacing).dtype
    return _lazy(functools.partial(_centroid, dtype=dtype, ndim=image.ndim), image, (image.ndim,), dtype,
                 _sums(image, (0,) * image.ndim, 1, spacing))


def _tensor(image, mu, spacing):
    """The lazy inertia tensor; one known from the image's shape alone where `mu` is given."""
    if mu is not None:
        if hasattr(mu, "dask"):
            return _lazy(functools.partial(m.tensor, ndim=image.ndim), image, (image.ndim,) * 2, mu.dtype, mu)
        return known(m.tensor(np.asarray(to_host(mu)), image.ndim), like=image)
    mu = _central_moments(image, None, 2, spacing)
    return _lazy(functools.partial(m.tensor, ndim=image.ndim), image, (image.ndim,) * 2, mu.dtype, mu)


def inertia_tensor(image, mu=None, *, spacing=None):
    _check(m.inertia_tensor, image, _given(mu), spacing=spacing)
    return _tensor(image, mu, spacing)


def _eigvals(t):
    return np.asarray(sorted(m.eigvals_desc(t), reverse=True), dtype=t.dtype)


def inertia_tensor_eigvals(image, mu=None, T=None, *, spacing=None):
    if T is None:
        _check(m.inertia_tensor_eigvals, image, _given(mu), spacing=spacing)
        T = _tensor(image, mu, spacing)
    elif not hasattr(T, "dask"):
        T = known(np.asarray(to_host(T)), like=image)
    ev = _lazy(_eigvals, image, (image.ndim,), T.dtype, T)
    return [ev[k] for k in range(image.ndim)]


def _whole(fn, mu, **kw):
    """A function of a (small) moments array given as a Dask array: in one task on its whole array."""
    import dask.array as da

    sample = fn(np.ones(mu.shape, mu.dtype), **kw)   # argument errors; the result's shape and dtype
    value = delayed(functools.partial(fn, **kw))(mu.rechunk(mu.shape).to_delayed(optimize_graph=False).ravel()[0])
    meta = da.utils.meta_from_array(mu._meta, ndim=sample.ndim, dtype=sample.dtype)
    out = da.from_delayed(value, shape=sample.shape, dtype=sample.dtype, meta=meta)
    return out.rechunk(mu.chunks) if out.shape == mu.shape else out


def moments_normalized(mu, order=3, spacing=None):
    return _whole(m.moments_normalized, mu, order=order, spacing=spacing)


def moments_hu(nu):
    return _whole(m.moments_hu, nu)

"""skimage.util.compare_images over NumPy and CuPy."""
from __future__ import annotations

import functools

import numpy as np

from .._engine import engine_aware, xp_of
from ._dtype import _map, convert


def _positional(fn):
    """scikit-image's compare_images also takes method and n_tiles by position (not both ways)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        for value, name in zip(args, ("image0", "image1", "method", "n_tiles")):
            if name in kwargs:
                raise ValueError(f"{name} passed both as positional and keyword argument.")
            kwargs[name] = value
        return fn(**kwargs)

    return wrapper


@_positional
@engine_aware("image0", "image1", native=False)
def compare_images(image0, image1, *, method="diff", n_tiles=(8, 8)):
    """The two images (as img_as_float) compared: 'diff' |image1 - image0|, 'blend' their mean,
    'checkerboard' (2-D) tiles of image0 and image1 alternating on an n_tiles grid."""
    return _compare(image0, image1, method, n_tiles, lazy=False)


def dask_compare_images(image0, image1, *, method="diff", n_tiles=(8, 8)):
    """Dask arrays: the same comparison, lazily (the checkerboard's mask made in the chunks' library and
    chunked as the images)."""
    return _compare(image0, image1, method, n_tiles, lazy=True)


def _compare(image0, image1, method, n_tiles, lazy):
    if image1.shape != image0.shape:
        raise ValueError("Images must have the same shape.")
    if lazy:
        from ._dtype import _dask_convert as as_float
    else:
        as_float = convert
    a, b = as_float(image0, np.floating, False), as_float(image1, np.floating, False)
    dt = np.result_type(a.dtype, b.dtype)
    if method == "diff":
        return _map(a, dt, lambda x, y, xp, out=None: xp.abs(xp.subtract(y, x, out=out), out=out), b)
    if method == "blend":
        return _map(a, dt, lambda x, y, xp, out=None: xp.multiply(xp.add(y, x, out=out), 0.5, out=out), b)
    if method == "checkerboard":
        if a.ndim != 2:
            raise ValueError("Images must be 2-dimensional to be compared with the checkerboard method.")
        rows, cols = a.shape
        step_r, step_c = int(rows / n_tiles[0]), int(cols / n_tiles[1])
        # tile (i, j) of the n_tiles grid comes from image0 where i + j is even; beyond the grid, image1
        if not lazy:   # image1, then image0's tiles copied over it (no mask to build and read)
            out = b.astype(a.dtype, copy=True)
            tiles_c = range(n_tiles[1])   # scikit-image's TypeError for counts that are not integers
            for i in range(n_tiles[0]):
                for j in tiles_c[i % 2::2]:
                    tile = (slice(i * step_r, (i + 1) * step_r), slice(j * step_c, (j + 1) * step_c))
                    out[tile] = a[tile]
            return out
        xp = xp_of(a._meta)
        r = xp.arange(rows) // max(step_r, 1)
        c = xp.arange(cols) // max(step_c, 1)
        inside = (r < n_tiles[0])[:, None] & (c < n_tiles[1])[None, :] & (step_r > 0) & (step_c > 0)
        first = inside & ((r % 2)[:, None] == (c % 2)[None, :])   # i + j even
        import dask.array as da

        return da.where(da.from_array(first, chunks=a.chunks), a, b.astype(a.dtype, copy=False))
    raise ValueError('Wrong value for `method`. Must be either "diff", "blend" or "checkerboard".')

"""A slide level as a lazy array: a NumPy-like view whose reads go to the C++ reader, and its Dask array.

Chunks follow the level's TIFF tile grid, so each chunk read decodes only its own tiles, once.
"""
import operator
import os

import numpy as np

from .. import _core
from ._slide import SlideError

CHANNELS = ("RGBA", "RGB", "raw")
# chunk sides (pixels) of the Dask view and of the zarr store: each Dask task costs about 0.1-0.3 ms of scheduling
# and each zarr chunk about 0.1 ms of Python, against about 0.15 ms to decode a 256x256 JPEG tile on one core, so
# Dask chunks group tiles to about 2048 pixels a side; zarr chunks stay one tile (readers of a small region
# decode only its tiles) unless tiles or strips are smaller than 256 pixels
DASK_SIDE, ZARR_SIDE = 2048, 256


def check_level(slide, level):
    """``level`` as an int of the slide's range (TypeError for non-integers, ValueError out of range)."""
    if isinstance(level, (bool, np.bool_)) or not isinstance(level, (int, np.integer)):
        raise TypeError(f"level must be an integer, got {level!r}")
    level = int(level)
    n = len(slide._levels)
    if not 0 <= level < n:
        raise ValueError(f"level {level} is out of range (the slide has {n} levels)")
    return level


def check_channels(channels):
    if not isinstance(channels, str) or channels not in CHANNELS:
        raise ValueError(f"channels must be one of {', '.join(map(repr, CHANNELS))}, got {channels!r}")
    return channels


def tile_chunks(width, height, tile_width, tile_height, side):
    """A chunk (height, width) of whole tiles about ``side`` pixels a side (at least one tile); strips (tiles
    as wide as the level) are grouped into about side**2 pixels. Clipped to the level."""
    kx = max(1, round(side / tile_width))
    ky = max(1, round(side * side / (kx * tile_width * tile_height)))
    return min(tile_height * ky, max(height, 1)), min(tile_width * kx, max(width, 1))


def _spatial_index(key, n):
    """(lo, hi, local) for one spatial axis: the rows [lo, hi) to read and the index that picks the key's
    elements from them (an int drops the axis)."""
    if isinstance(key, slice):
        r = range(n)[key]
        if not r:
            return 0, 0, slice(0, 0)
        lo, hi = min(r[0], r[-1]), max(r[0], r[-1]) + 1
        return lo, hi, slice(None) if r.step == 1 else np.arange(r[0] - lo, r[-1] - lo + (1 if r.step > 0 else -1),
                                                                  r.step)
    try:
        i = range(n)[operator.index(key)]
    except TypeError:
        raise TypeError(f"a slide level takes integers and slices as indices, got {key!r}") from None
    return i, i + 1, 0


class LevelArray:
    """One level of a slide as a read-only array-like of shape (height, width, channels).

    It has ``shape``, ``dtype``, ``ndim`` and basic indexing (integers and slices); each read decodes
    only the tiles under the requested region, on the calling thread, through the tile cache when one is
    set (:meth:`CuImage.cache`). ``chunks`` is the chunk shape of the Dask and zarr views: None gives whole
    tiles about 2048 pixels a side (Dask's default), ``"tile"`` one tile (tiles and strips smaller than 256
    pixels grouped; zarr's default), else (height, width) in pixels.

    Pixels are the level's stored ones, as tifffile reads them, not resampled: ``"RGBA"`` is 8-bit colour
    with alpha 255 (0 in sparse tiles and outside the level, as in :meth:`Slide.read_region`); ``"RGB"``
    the same without alpha (0 where it would be transparent); ``"raw"`` the level's own samples (uint8 or
    uint16, every sample) as :meth:`Slide.read_region_raw` gives them. Gray levels are replicated to RGB,
    16-bit samples reduced to 8 bits as in :meth:`Slide.read_region`.
    """

    def __init__(self, slide, level, channels="RGBA", chunks="tile"):
        slide._handle()  # a closed slide: SlideError now
        self.slide = slide
        self.level = check_level(slide, level)
        self.channels = check_channels(channels)
        width, height, tw, th, _ = slide._levels[self.level]
        self.tile_shape = (th, tw)
        if channels == "raw":
            samples, bits = slide._handle().level_format(self.level)
            self.dtype = np.dtype(np.uint8 if bits == 8 else np.uint16)
        else:
            samples, self.dtype = len(channels), np.dtype(np.uint8)
        self.shape = (height, width, samples)
        if chunks is None or isinstance(chunks, str) and chunks == "tile":
            self.chunks = tile_chunks(width, height, tw, th, DASK_SIDE if chunks is None else ZARR_SIDE)
        else:  # no larger than the level: a zarr chunk is read whole
            ch, cw = _check_chunks(chunks)
            self.chunks = min(ch, max(height, 1)), min(cw, max(width, 1))

    ndim = 3

    @property
    def size(self):
        return self.shape[0] * self.shape[1] * self.shape[2]

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    def __repr__(self):
        return (f"<ndimg.io level {self.level} of {self.slide._filename!r}: shape={self.shape}, "
                f"dtype={self.dtype}, channels={self.channels!r}>")

    def __array__(self, dtype=None, copy=None):
        out = self.read(0, 0, self.shape[0], self.shape[1])
        return out if dtype is None else out.astype(dtype, copy=False)

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        if any(k is Ellipsis for k in key):
            i = key.index(Ellipsis)
            key = key[:i] + (slice(None),) * (3 - len(key) + 1) + key[i + 1:]
        if len(key) > 3:
            raise IndexError(f"too many indices for a slide level: {len(key)} for 3 axes")
        key = key + (slice(None),) * (3 - len(key))
        y0, y1, ly = _spatial_index(key[0], self.shape[0])
        x0, x1, lx = _spatial_index(key[1], self.shape[1])
        out = self.read(y0, x0, y1 - y0, x1 - x0)
        return out[:, lx][ly][..., key[2]]

    def read(self, y, x, h, w):
        """Pixels [y, y+h) x [x, x+w) of the level (0 outside it) as a new (h, w, channels) array."""
        out = np.empty((h, w, self.shape[2]), self.dtype)
        if h > 0 and w > 0:
            try:
                _core.read_level(self.slide._handle(), self.level, x, y, self.channels == "raw", out)
            except SlideError as e:
                raise SlideError(f"{self.slide._filename}: level {self.level}, {self._where(y, x, h, w)}: "
                                 f"{e}") from e
        return out

    def _where(self, y, x, h, w):
        """The failing tile of a region, found by reading its tiles one at a time (only after a failure)."""
        core, (th, tw) = self.slide._core, self.tile_shape
        if core is not None:
            one = np.empty((th, tw, self.shape[2]), self.dtype)
            for ty in range(max(y, 0) // th, (min(y + h, self.shape[0]) - 1) // th + 1):
                for tx in range(max(x, 0) // tw, (min(x + w, self.shape[1]) - 1) // tw + 1):
                    try:
                        _core.read_level(core, self.level, tx * tw, ty * th, self.channels == "raw", one)
                    except SlideError:
                        y, x, h, w = ty * th, tx * tw, th, tw
                        return f"tile (column {tx}, row {ty}) at pixels y {y}:{y + h}, x {x}:{x + w}"
        return f"pixels y {y}:{y + h}, x {x}:{x + w}"

    def token(self):
        """A name for this view's data: the file (path, size, modification time), level, channels, chunks."""
        st = os.stat(self.slide._filename)
        return (os.path.abspath(self.slide._filename), st.st_size, st.st_mtime_ns, self.level, self.channels,
                self.chunks)


def _check_chunks(chunks):
    if isinstance(chunks, str):
        raise ValueError(f"chunks must be None, 'tile', an int or (height, width), got {chunks!r}")
    if isinstance(chunks, (int, np.integer)) and not isinstance(chunks, bool):
        chunks = (chunks, chunks)
    try:
        ch, cw = (operator.index(c) for c in chunks)
    except (TypeError, ValueError):
        raise ValueError(f"chunks must be None, 'tile', an int or (height, width), got {chunks!r}") from None
    if ch < 1 or cw < 1:
        raise ValueError(f"chunks must be positive, got {chunks!r}")
    return ch, cw


def to_dask(slide, level, channels, chunks):
    """The Dask array of :meth:`Slide.to_dask`."""
    try:
        import dask.array as da
        from dask.base import tokenize
    except ImportError as e:
        raise ImportError(f"Slide.to_dask needs Dask: pip install 'dask[array]' ({e})") from e

    view = LevelArray(slide, level, channels, chunks)
    ch, cw = view.chunks
    return da.from_array(view, chunks=(ch, cw, view.shape[2]), name="ndimg-slide-" + tokenize(*view.token()),
                         asarray=False, fancy=False, lock=False, meta=np.empty((0, 0, 0), view.dtype))

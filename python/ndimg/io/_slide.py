"""OpenSlide-compatible slide objects over the C++ reader (ndimg._core.Slide)."""
import os
from collections.abc import Mapping

import numpy as np

from .. import _core

if not hasattr(_core, "Slide"):  # built without the codec libraries (see CMakeLists.txt)
    raise ImportError("ndimg was built without slide I/O: install libturbojpeg0-dev, libdeflate-dev and "
                      "libzstd-dev, then rebuild")

SlideError = _core.SlideError
SlideError.__module__ = "ndimg.io"
SlideError.__doc__ = "A slide file that cannot be read: unsupported format, truncated or corrupt data."


class _Closing:
    """`with obj:` closes obj at the end of the block."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class _AssociatedImages(Mapping):
    """Lazily decoded associated images (thumbnail, label, macro) as RGBA PIL images, like OpenSlide's."""

    def __init__(self, slide):
        self._slide = slide

    def __getitem__(self, name):
        core = self._slide._handle()
        if name not in core.associated:
            raise KeyError(name)
        w, h = core.associated[name]
        out = np.empty((h, w, 4), dtype=np.uint8)
        core.read_associated(name, out)
        from PIL import Image
        return Image.fromarray(out, "RGBA")

    def __iter__(self):
        return iter(self._slide._handle().associated)

    def __len__(self):
        return len(self._slide._handle().associated)


class Slide(_Closing):
    """A whole-slide image, with the attributes and methods of ``openslide.OpenSlide``.

    Supported formats: Aperio SVS, Philips TIFF, OME-TIFF (vendor ``"ome-tiff"``: level 0 and its SubIFD
    pyramid; OpenSlide does not read these) and generic tiled pyramidal TIFF (BigTIFF included);
    compression JPEG, JPEG 2000 (Aperio 33003/33005 included), WebP, deflate, LZW, zstd or none;
    8- or 16-bit samples, contiguous or separate planes, with or without a differencing predictor. Tiles of a region are decoded in parallel on ndimg's thread pool
    (see :func:`ndimg.set_num_threads`), and one ``Slide`` may be read from many threads at once.

    Parameters
    ----------
    filename : str or os.PathLike
        Path of the slide file.

    Raises
    ------
    SlideError
        If the file is not a slide of a supported format, or is corrupt.
    """

    def __init__(self, filename):
        filename = os.fspath(filename)
        if not os.path.exists(filename):
            raise FileNotFoundError(filename)
        self._filename = filename
        self._core = _core.Slide(filename)
        self._levels = self._core.levels
        self._associated = _AssociatedImages(self)

    def __repr__(self):
        return f"{type(self).__name__}({self._filename!r})"

    def __reduce__(self):
        # the absolute path (and whether it was closed) travels, not the open file: unpickling opens the file
        # again, so a Slide goes to Dask workers and to DataLoader workers started with "spawn"
        return _reopen, (type(self), os.path.abspath(self._filename), self._core is None)

    def close(self):
        """Release the file; reads that are running finish first."""
        self._core = None

    def _handle(self):
        core = self._core
        if core is None:
            raise SlideError("the slide is closed")
        return core

    @classmethod
    def detect_format(cls, filename):
        """The vendor name of a supported slide file, else None (like ``OpenSlide.detect_format``)."""
        try:
            return _core.Slide(os.fspath(filename)).vendor
        except SlideError:
            return None

    @property
    def level_count(self):
        return len(self._levels)

    @property
    def dimensions(self):
        return self.level_dimensions[0]

    @property
    def level_dimensions(self):
        return tuple((w, h) for w, h, *_ in self._levels)

    @property
    def level_downsamples(self):
        return tuple(lv[4] for lv in self._levels)

    @property
    def properties(self):
        return self._handle().properties

    @property
    def associated_images(self):
        return self._associated

    def get_best_level_for_downsample(self, downsample):
        """The level with the largest downsample not above ``downsample`` (level 0 if none)."""
        return self._handle().best_level_for_downsample(float(downsample))

    def read_region(self, location, level, size):
        """RGBA pixels of ``level`` as a ``(h, w, 4)`` uint8 NumPy array.

        ``location`` is the ``(x, y)`` of the top-left pixel in level-0 coordinates and ``size`` the
        ``(w, h)`` in pixels of ``level``. Where ``location / downsample`` falls between the level's pixels,
        the pixels are OpenSlide's: each tile drawn at its sub-pixel place, blending neighbouring pixels
        (cairo's bilinear filter), bit for bit. Pixels outside the slide are transparent ``(0, 0, 0, 0)``, as
        are missing (sparse) tiles, those stored with offset or byte count 0. Aperio slides, as in
        OpenSlide, draw a missing tile of a level after the first from the level above, reduced (its
        holes included), and treat a tile made from a missing tile of the level above as missing too.
        """
        # Few Python steps (plain ints skip the conversions): per-patch readers call this tens of thousands of
        # times a second from many threads, and the time each call holds the GIL is time they are serialized.
        core = self._handle()
        x, y = location
        w, h = size
        if not type(x) is type(y) is type(w) is type(h) is type(level) is int:
            x, y, w, h, level = int(x), int(y), int(w), int(h), int(level)
        if w < 0 or h < 0:
            raise ValueError(f"negative region size {size!r}")
        if not 0 <= level < len(self._levels):
            raise ValueError(f"level {level} is out of range (the slide has {len(self._levels)} levels)")
        out = np.empty((h, w, 4), dtype=np.uint8)  # the reader clears what it does not write
        if w and h:
            core.read_region(x, y, level, out)
        return out

    def read_region_raw(self, location, level, size):
        """The level's own samples as a ``(h, w, samples)`` NumPy array of its dtype (uint8 or uint16).

        Not in OpenSlide, whose RGBA pixels reduce 16-bit samples to 8 bits (``(v + 128) // 257`` for
        colour, ``v >> 8`` for gray, as libtiff does); this gives them unreduced, and every sample
        (alpha and extra samples included). ``location`` and ``size`` are as in :meth:`read_region`, but
        nothing is blended: the corner is the level pixel nearest ``location / downsample``; outside the
        level the samples are 0.
        """
        core = self._handle()
        level = int(level)
        if not 0 <= level < len(self._levels):
            raise ValueError(f"level {level} is out of range (the slide has {len(self._levels)} levels)")
        x, y = (int(v) for v in location)
        w, h = (int(v) for v in size)
        if w < 0 or h < 0:
            raise ValueError(f"negative region size {size!r}")
        samples, bits = core.level_format(level)
        out = np.zeros((h, w, samples), dtype=np.uint8 if bits == 8 else np.uint16)
        if w and h:
            core.read_region_raw(x, y, level, out)
        return out

    def to_dask(self, level=0, *, channels="RGBA", chunks=None):
        """A level as a lazy ``(height, width, channels)`` Dask array, its chunks read by ndimg's C++ reader.

        Chunks are blocks of whole TIFF tiles of the level (by default about 2048 pixels a side: 8 x 8 tiles
        of 256; strips grouped likewise), each read when computed, on the Dask worker's thread: only that
        chunk's tiles are decoded, through the tile cache when one is set (:meth:`CuImage.cache`). The
        array pickles as the slide's path, so it computes on ``distributed`` workers too. Pixels are the
        level's stored ones (as tifffile reads them), not resampled as :meth:`read_region` resamples
        regions whose level-0 corner falls between the level's pixels.

        Parameters
        ----------
        level : int
            Pyramid level (0 is full resolution).
        channels : {"RGBA", "RGB", "raw"}
            ``"RGBA"`` (default): uint8 as :meth:`read_region` gives, alpha 255 (0 in sparse tiles).
            ``"RGB"``: uint8 without alpha, the usual input of training pipelines (sparse tiles are 0).
            ``"raw"``: the level's own samples and dtype (uint8 or uint16), as :meth:`read_region_raw`.
        chunks : None, "tile", int or (height, width)
            Chunk size in pixels. None: whole tiles about 2048 pixels a side (one task per chunk costs
            Dask about as much as decoding a 256 x 256 JPEG tile: one-tile chunks read a level at 0.3-0.6 of
            the speed, see ``bench/slides_dask.py``). ``"tile"``: one tile (the zarr store's chunks).
            Multiples of the tile size avoid decoding a tile for two chunks; chunks larger than the level
            are clipped to it.

        Returns
        -------
        dask.array.Array

        Raises
        ------
        ValueError
            For a level out of range, unknown ``channels`` or bad ``chunks``.
        SlideError
            If the slide is closed. A tile that cannot be decoded raises SlideError when its chunk is
            computed, naming the file, level and tile.
        """
        from ._lazy import to_dask
        return to_dask(self, level, channels, chunks)

    def zarr_store(self, level=None, *, channels="RGBA", chunks="tile", num_workers=None):
        """A read-only zarr (format 3) store of the slide: ``zarr.open_group(store, mode="r")``.

        With ``level=None`` the store is the pyramid: a group whose arrays ``"0"``, ``"1"``, ... are the levels,
        with ``multiscales`` attributes (axes y, x, c; each level's scale to level 0) and the slide's
        properties. With a level it is that level's array alone (``zarr.open_array(store, mode="r")``).
        Arrays are ``(height, width, channels)`` with ``channels`` as in :meth:`to_dask`. Each chunk is
        decoded by the C++ reader and served uncompressed (the ``bytes`` codec), nothing recompressed, on
        ``num_workers`` threads of the store's own (default :func:`ndimg.get_num_threads`) while zarr keeps
        several requests in flight (``zarr.config`` ``async.concurrency``). The store pickles as the slide's
        path and these options.

        ``chunks="tile"`` (default): one chunk per TIFF tile (tiles and strips smaller than 256 pixels
        grouped), so a reader of a small region decodes only its tiles. zarr spends about 0.1 ms of
        Python per chunk, as much as decoding a 256 x 256 JPEG tile: to read whole levels, pass larger
        chunks (whole tiles, e.g. 2048) or use :meth:`to_dask`.
        """
        try:
            from ._zarr import SlideStore
        except ImportError as e:
            if "zarr" not in str(e):
                raise
            raise ImportError(f"Slide.zarr_store needs zarr 3: pip install 'zarr>=3' ({e})") from e
        return SlideStore(self, level, channels=channels, chunks=chunks, num_workers=num_workers)

    def get_thumbnail(self, size):
        """An RGB PIL image fitting in ``size`` = (w, h), from the best level, on a white background."""
        from PIL import Image
        dims = self.dimensions
        downsample = max(d / s for d, s in zip(dims, size))
        level = self.get_best_level_for_downsample(downsample)
        rgba = self.read_region((0, 0), level, self.level_dimensions[level])
        background = tuple(int(self.properties.get("openslide.background-color", "ffffff")[i:i + 2], 16)
                           for i in (0, 2, 4))
        alpha = rgba[..., 3:4].astype(np.uint16)
        rgb = (rgba[..., :3] * alpha + np.array(background, np.uint16) * (255 - alpha) + 127) // 255
        thumb = Image.fromarray(rgb.astype(np.uint8), "RGB")
        thumb.thumbnail(size, Image.Resampling.LANCZOS)
        return thumb


def _reopen(cls, filename, closed):
    slide = cls(filename)
    if closed:
        slide.close()
    return slide


def open_slide(filename):
    """Open a whole-slide image (like ``openslide.open_slide``, for the formats ndimg reads)."""
    return Slide(filename)

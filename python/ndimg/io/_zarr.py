"""A read-only zarr (format 3) store over a slide: a level as an array, or the pyramid as a multiscale group.

Each chunk is a tile-aligned block of a level (:class:`ndimg.io._lazy.LevelArray`), decoded by the C++ reader
and served as uncompressed bytes (the ``bytes`` codec alone): nothing is recompressed or written.
"""
import asyncio
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from zarr.abc.store import OffsetByteRequest, RangeByteRequest, Store, SuffixByteRequest
from zarr.core.buffer import default_buffer_prototype

from .._engine import get_num_threads
from ._lazy import LevelArray, check_level


def _json(doc):
    return json.dumps(doc, indent=1).encode()


def _byte_slice(n, byte_range):
    """The bytes of a value of n bytes that a zarr ByteRequest asks for, as a slice."""
    if isinstance(byte_range, RangeByteRequest):
        return slice(byte_range.start, byte_range.end)
    if isinstance(byte_range, OffsetByteRequest):
        return slice(byte_range.offset, None)
    if isinstance(byte_range, SuffixByteRequest):
        return slice(max(n - byte_range.suffix, 0), None)
    raise TypeError(f"unexpected byte range {byte_range!r}")


class SlideStore(Store):
    """A read-only zarr v3 store of a slide's pixels: see :meth:`ndimg.io.Slide.zarr_store`."""

    supports_writes = False
    supports_deletes = False
    supports_partial_writes = False
    supports_listing = True

    def __init__(self, slide, level=None, *, channels="RGBA", chunks="tile", num_workers=None):
        super().__init__(read_only=True)
        if num_workers is None:
            num_workers = get_num_threads()
        if isinstance(num_workers, bool) or not isinstance(num_workers, (int, np.integer)) or num_workers < 1:
            raise ValueError(f"num_workers must be a positive integer, got {num_workers!r}")
        self._slide, self._level, self._channels, self._num_workers = slide, level, channels, int(num_workers)
        self._chunks = "tile" if chunks is None else chunks
        self._build()

    def _build(self):
        slide, level = self._slide, self._level
        levels = range(slide.level_count) if level is None else [check_level(slide, level)]
        # key prefix -> the level it serves ("" for a single level at the root)
        self._arrays = {(f"{lv}/" if level is None else ""): LevelArray(slide, lv, self._channels, self._chunks)
                        for lv in levels}
        self._meta = {}
        w0, h0 = slide.dimensions
        for prefix, view in self._arrays.items():
            attrs = {"ndimg": {"level": view.level, "downsample": slide.level_downsamples[view.level],
                               "channels": view.channels, "tile_shape": list(view.tile_shape)}}
            if level is not None:
                attrs["ndimg"]["properties"] = dict(slide.properties)
            ch, cw = view.chunks
            self._meta[prefix + "zarr.json"] = _json({
                "zarr_format": 3, "node_type": "array", "shape": list(view.shape), "data_type": view.dtype.name,
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [ch, cw, view.shape[2]]}},
                "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                "fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                "attributes": attrs, "dimension_names": ["y", "x", "c"]})
        if level is None:
            datasets = [{"path": str(v.level), "coordinateTransformations": [
                {"type": "scale", "scale": [h0 / v.shape[0], w0 / v.shape[1], 1.0]}]} for v in self._arrays.values()]
            axes = [{"name": "y", "type": "space"}, {"name": "x", "type": "space"}, {"name": "c", "type": "channel"}]
            self._meta["zarr.json"] = _json({
                "zarr_format": 3, "node_type": "group",
                "attributes": {"multiscales": [{"name": slide._filename, "axes": axes, "datasets": datasets}],
                               "ndimg": {"vendor": slide.properties.get("openslide.vendor", ""),
                                         "properties": dict(slide.properties)}}})
        self._executor, self._pid = None, None

    def _pool(self):
        # made in the process that reads: a forked child (DataLoader workers, multiprocessing's default on
        # Linux) inherits the executor but not its threads, and work queued there would wait forever
        if self._pid != os.getpid():
            self._executor = ThreadPoolExecutor(self._num_workers, thread_name_prefix="ndimg-zarr")
            self._pid = os.getpid()
        return self._executor

    # pickled as the slide (its path) and the options; the reading threads are made anew
    def __getstate__(self):
        return {"slide": self._slide, "level": self._level, "channels": self._channels, "chunks": self._chunks,
                "num_workers": self._num_workers}

    def __setstate__(self, state):
        Store.__init__(self, read_only=True)
        self._slide, self._level = state["slide"], state["level"]
        self._channels, self._chunks, self._num_workers = state["channels"], state["chunks"], state["num_workers"]
        self._build()

    def __repr__(self):
        what = "pyramid" if self._level is None else f"level {self._level}"
        return f"<ndimg.io.SlideStore {what} of {self._slide._filename!r}, channels={self._channels!r}>"

    def __eq__(self, other):
        return (isinstance(other, SlideStore) and other._slide._filename == self._slide._filename
                and other._level == self._level and other._channels == self._channels
                and other._chunks == self._chunks)

    def __hash__(self):
        return hash((self._slide._filename, self._level, self._channels))

    def with_read_only(self, read_only=False):
        if not read_only:
            raise ValueError("a slide store is read-only")
        return self

    # ---------------------------------------------------------------------------------------- keys

    def _chunk(self, key):
        """(view, iy, ix) of a chunk key of this store, else None."""
        for prefix, view in self._arrays.items():
            if not key.startswith(prefix + "c/"):
                continue
            parts = key[len(prefix) + 2:].split("/")
            if len(parts) != 3 or not all(p.isdigit() for p in parts):
                return None
            iy, ix, ic = (int(p) for p in parts)
            ny, nx = self._grid(view)
            return (view, iy, ix) if iy < ny and ix < nx and ic == 0 else None
        return None

    @staticmethod
    def _grid(view):
        (ch, cw), (h, w) = view.chunks, view.shape[:2]
        return -(-h // ch), -(-w // cw)

    def _keys(self):
        yield from self._meta
        for prefix, view in self._arrays.items():
            ny, nx = self._grid(view)
            for iy in range(ny):
                for ix in range(nx):
                    yield f"{prefix}c/{iy}/{ix}/0"

    # ------------------------------------------------------------------------------------- reading

    @staticmethod
    def _chunk_bytes(view, iy, ix):
        ch, cw = view.chunks
        pixels = view.read(iy * ch, ix * cw, ch, cw)  # whole chunk: zarr crops the edge chunks itself
        if sys.byteorder != "little" and pixels.dtype.itemsize > 1:
            pixels = pixels.byteswap()
        return pixels.reshape(-1).view(np.uint8)

    async def get(self, key, prototype=None, byte_range=None):
        if prototype is None:
            prototype = default_buffer_prototype()
        if key in self._meta:
            data = np.frombuffer(self._meta[key], np.uint8)
        else:
            found = self._chunk(key)
            if found is None:
                return None
            # decoded on the store's threads (the C++ read releases the GIL), so zarr's concurrent requests
            # decode in parallel instead of one at a time on its event loop
            data = await asyncio.get_running_loop().run_in_executor(self._pool(), self._chunk_bytes, *found)
        if byte_range is not None:
            data = data[_byte_slice(len(data), byte_range)]
        return prototype.buffer.from_array_like(data)

    async def get_partial_values(self, prototype, key_ranges):
        return [await self.get(key, prototype, byte_range) for key, byte_range in key_ranges]

    async def exists(self, key):
        return key in self._meta or self._chunk(key) is not None

    async def getsize(self, key):
        if key in self._meta:
            return len(self._meta[key])
        found = self._chunk(key)
        if found is None:
            raise FileNotFoundError(key)
        view = found[0]
        return view.chunks[0] * view.chunks[1] * view.shape[2] * view.dtype.itemsize

    async def set(self, key, value):
        self._check_writable()

    async def delete(self, key):
        self._check_writable()

    async def list(self):
        for key in self._keys():
            yield key

    async def list_prefix(self, prefix):
        for key in self._keys():
            if key.startswith(prefix):
                yield key

    async def list_dir(self, prefix):
        prefix = prefix.rstrip("/")
        prefix = prefix + "/" if prefix else ""
        seen = set()
        for key in self._keys():
            if key.startswith(prefix):
                child = key[len(prefix):].split("/")[0]
                if child not in seen:
                    seen.add(child)
                    yield child

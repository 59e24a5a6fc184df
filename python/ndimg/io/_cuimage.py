"""cuCIM-compatible ``CuImage``: batched, multithreaded ``read_region`` and the decoded-tile cache.

The work is done by the C++ core (``ndimg/io/batch.hpp``, ``ndimg/io/tile_cache.hpp``); this module turns
cuCIM's arguments into calls of it.
"""
import atexit
import enum
import os
import warnings

import numpy as np

from .. import _core
from ._slide import Slide, SlideError, _Closing, _reopen

# a spawned child process (multiprocessing "spawn", PyTorch DataLoader workers) finds the shared-memory
# cache its parent made through this variable; forked children inherit the cache itself
_SHM_ENV = "NDIMG_TILE_CACHE_SHM"
_MiB = 1 << 20
_empty, _uint8, _read_region_rgb = np.empty, np.uint8, _core.read_region_rgb  # (one lookup each per patch)


class CacheType(enum.IntEnum):
    """Kinds of decoded-tile cache, numbered as cuCIM's ``cucim.clara.cache.CacheType``."""

    NoCache = 0
    PerProcess = 1
    SharedMemory = 2


_TYPE_NAMES = {"nocache": CacheType.NoCache, "no_cache": CacheType.NoCache,
               "per_process": CacheType.PerProcess, "shared_memory": CacheType.SharedMemory}


class ImageCache:
    """The decoded-tile cache's settings and statistics (the attributes of cuCIM's ``ImageCache``).

    Sizes are in bytes except ``config["memory_capacity"]`` (MiB, as given to :meth:`CuImage.cache`);
    ``capacity`` counts tiles. ``hit_count`` and ``miss_count`` count lookups while recording is on
    (``record_stat=True`` or :meth:`record`), shared by every process of a shared-memory cache.
    """

    def __init__(self, core, memory_capacity_mib=0, record_stat=False):
        self._core = core  # None: no cache
        self._memory_capacity_mib = memory_capacity_mib
        self._record_stat = record_stat

    def __repr__(self):
        return (f"<ndimg.io.ImageCache type:{self.config['type']} size:{self.size} "
                f"memory_size:{self.memory_size}>")

    def _get(self, name):
        return 0 if self._core is None else getattr(self._core, name)

    @property
    def type(self):
        return CacheType(self._get("type"))

    @property
    def config(self):
        name = {CacheType.NoCache: "nocache", CacheType.PerProcess: "per_process",
                CacheType.SharedMemory: "shared_memory"}[self.type]
        return {"type": name, "memory_capacity": self._memory_capacity_mib, "capacity": self.capacity,
                "record_stat": self.record()}

    @property
    def size(self):
        """Tiles held."""
        return self._get("size")

    @property
    def memory_size(self):
        """Bytes of decoded tiles held (JPEG tiles of YCbCr with 4:2:0 chroma are held as their planes: half the
        bytes of RGB)."""
        return self._get("memory_size")

    @property
    def capacity(self):
        """The most tiles it holds."""
        return self._get("capacity")

    @property
    def memory_capacity(self):
        """The most bytes of decoded pixels it holds."""
        return self._get("memory_capacity")

    @property
    def free_memory(self):
        return self.memory_capacity - self.memory_size

    @property
    def hit_count(self):
        return self._get("hit_count")

    @property
    def miss_count(self):
        return self._get("miss_count")

    @property
    def shm_name(self):
        """Name of the POSIX shared-memory segment of a shared-memory cache, else ``""``."""
        return self._core.shm_name if self._core is not None else ""

    def record(self, value=None):
        """Whether hits and misses are counted; ``record(True/False)`` switches it and resets the counts."""
        if value is None:
            return False if self._core is None else self._core.get_record()
        if not isinstance(value, bool):
            raise TypeError("record() takes None or a bool")
        if self._core is not None:
            self._core.set_record(value)
        return value

    def clear(self):
        """Drop every cached tile."""
        if self._core is not None:
            self._core.clear()


_current = ImageCache(None)


def _install(cache):
    global _current
    _current = cache
    _core.set_tile_cache(cache._core)
    if cache.type == CacheType.SharedMemory:
        os.environ[_SHM_ENV] = cache.shm_name
    else:
        os.environ.pop(_SHM_ENV, None)


def _attach_inherited_cache():
    name = os.environ.get(_SHM_ENV)
    if not name or _core.get_tile_cache() is not None:
        return
    try:
        core = _core.TileCache.attach(name)
    except Exception as e:  # the parent is gone: run without the cache
        warnings.warn(f"ndimg: cannot attach to the shared tile cache {name}: {e}", RuntimeWarning, stacklevel=2)
        return
    global _current
    _current = ImageCache(core, core.memory_capacity // _MiB, core.get_record())
    _core.set_tile_cache(core)


def preferred_memory_capacity(img=None, image_size=None, tile_size=None, patch_size=None, bytes_per_pixel=3):
    """MiB of cache that holds every tile a row of patches touches (cuCIM's function of the same name).

    Reading patches left to right, top to bottom, each tile is then decoded once. Sizes are (width,
    height); ``img`` (a :class:`CuImage`) supplies ``image_size`` and ``tile_size`` of its level 0.
    ``tile_size`` defaults to (256, 256).
    """
    if img is not None:
        image_size = img.size("XY")
        tile_size = img.resolutions["level_tile_sizes"][0]
        bytes_per_pixel = 3
    tile_size = (256, 256) if tile_size is None else tile_size
    if image_size is None or patch_size is None:
        raise ValueError("image_size (or img) and patch_size are required")
    sizes = [image_size, tile_size, patch_size]
    if any(len(v) != 2 or any(int(x) <= 0 for x in v) for v in sizes):
        raise ValueError("image_size, tile_size and patch_size must be (width, height) of positive sizes")
    (iw, ih), (tw, th), (_, ph) = ([int(x) for x in v] for v in sizes)
    across = -(-iw // tw)
    down = min(ih + th - 1, ph + th - 1) // th + 1  # tile rows a patch can overlap
    return -(-(across * tw * th * down * int(bytes_per_pixel)) // _MiB)


def _tqdm():
    try:
        from tqdm.auto import tqdm
    except ImportError:
        raise ImportError("progress=True needs tqdm (pip install tqdm)") from None
    return tqdm


def _as_int(value, name, minimum):
    if type(value) is not int:  # (plain ints skip the checks: this runs several times a patch)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be an integer, got {value!r}")
        value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


def _one_location(location):
    """(x, y) of a location given as None or as a pair of Python ints, else None (the general path)."""
    if location is None:
        return 0, 0
    if type(location) in (tuple, list) and len(location) == 2 and all(type(v) is int for v in location):
        return location
    return None


def _as_locations(location):
    """(N, 2) int64 array of (x, y) locations (a single (x, y) gives N = 1)."""
    if isinstance(location, np.ndarray):
        arr = location
    elif isinstance(location, (list, tuple)):
        arr = np.asarray(location)
    else:
        try:
            arr = np.asarray(list(location))
        except TypeError:
            raise TypeError(f"location must be an (x, y) pair or an iterable of them, got {location!r}") from None
    if arr.shape == (0,):
        arr = arr.reshape(0, 2)
    if arr.shape == (2,):
        arr = arr[None]
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"locations must be (x, y) pairs: an (N, 2) array, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        raise ValueError(f"locations must be integers, got dtype {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.int64)


class CuImage(_Closing):
    """A whole-slide image with the API of cuCIM's ``cucim.CuImage``, read by ndimg's C++ reader.

    Formats are those of :class:`ndimg.io.Slide`. Differences from cuCIM:

    - ``read_region`` returns NumPy arrays (they expose ``__array_interface__`` as cuCIM's regions do),
      not ``CuImage`` objects; ``associated_image`` likewise.
    - Pixels outside the slide are 0 (OpenSlide's transparent pixels without alpha); cuCIM fills them
      with 255 for Aperio and Philips slides. Missing (sparse) tiles are 0 too, for every vendor: Aperio's
      are not drawn from the level above as :meth:`Slide.read_region` draws them (and the tiles made from
      them give what is stored).
    - ``num_workers=0`` reads on the calling thread with ndimg's thread pool (:func:`ndimg.set_num_threads`)
      instead of refusing many locations; with ``num_workers > 0`` the reader runs that many threads of
      its own.
    - ``device="cuda"`` returns CuPy arrays (or PyTorch tensors with ``array_type="torch"``) decoded on the
      GPU by nvJPEG (see :meth:`read_region`), not ``CuImage`` objects.

    Parameters
    ----------
    path : str or os.PathLike
        Path of the slide file.
    """

    def __init__(self, path):
        self._path = os.fspath(path)
        self._slide = Slide(self._path)

    def __repr__(self):
        return f"<ndimg.io.CuImage path:{self._path}>"

    def __reduce__(self):  # a pickled CuImage reopens its file (DataLoader workers under "spawn", Dask workers)
        return _reopen, (type(self), os.path.abspath(self._path), self._slide._core is None)

    def close(self):
        """Release the file; batch iterators already made keep it open until they end."""
        self._slide.close()

    def __bool__(self):
        return self.is_loaded

    # ----------------------------------------------------------------------------------- the cache

    @staticmethod
    def cache(type=None, memory_capacity=1024, capacity=None, record_stat=False, **kwargs):
        """The decoded-tile cache: ``cache()`` returns the current one; ``cache(type, ...)`` makes a new one.

        Parameters
        ----------
        type : {"per_process", "shared_memory", "nocache", "no_cache"}, optional
            ``"per_process"``: an LRU in this process. ``"shared_memory"``: an LRU in a POSIX shared-memory
            segment, shared with forked children and attached to by processes started with "spawn" (such
            as PyTorch DataLoader workers) once they import ``ndimg.io``; the segment is removed when the
            cache is released (replaced and no longer referenced, or at exit). ``"nocache"``: none (the
            default state).
        memory_capacity : int
            MiB of decoded pixels the cache holds at most.
        capacity : int, optional
            Most tiles it holds (default: as many 256x256 RGB tiles as fit in ``memory_capacity``).
        record_stat : bool
            Count hits and misses (see :meth:`ImageCache.record`).
        **kwargs
            cuCIM's other settings (``mutex_pool_capacity``, ``list_padding``, ``extra_shared_memory_size``)
            are accepted and have no effect here.

        Returns
        -------
        ImageCache
        """
        if type is None:
            return _current
        if type not in _TYPE_NAMES:
            raise ValueError(f"unknown cache type {type!r}: use one of {sorted(_TYPE_NAMES)}")
        unknown = set(kwargs) - {"mutex_pool_capacity", "list_padding", "extra_shared_memory_size"}
        if unknown:
            raise TypeError(f"unexpected arguments {sorted(unknown)}")
        kind = _TYPE_NAMES[type]
        if kind == CacheType.NoCache:
            cache = ImageCache(None)
        else:
            memory_capacity = _as_int(memory_capacity, "memory_capacity", 1)
            capacity = 0 if capacity is None else _as_int(capacity, "capacity", 1)
            core = _core.TileCache(int(kind), memory_capacity * _MiB, capacity, bool(record_stat))
            cache = ImageCache(core, memory_capacity, bool(record_stat))
        _install(cache)
        return cache

    # ------------------------------------------------------------------------------ description

    @property
    def path(self):
        return self._path

    @property
    def is_loaded(self):
        return self._slide._core is not None

    @property
    def device(self):
        return "cpu"

    @property
    def ndim(self):
        return 3

    @property
    def dims(self):
        return "YXC"

    @property
    def shape(self):
        w, h = self._slide.dimensions
        return [h, w, 3]

    def size(self, dim_order=""):
        """Sizes of level 0 along ``dim_order`` (default ``dims``), e.g. ``size("XY") == [width, height]``."""
        return self._by_dims(self.shape, dim_order)

    @property
    def dtype(self):
        return np.dtype(np.uint8)

    @property
    def typestr(self):
        return self.dtype.str

    @property
    def channel_names(self):
        return ["R", "G", "B"]

    def _by_dims(self, values, dim_order):
        order = dim_order or self.dims
        if any(d not in self.dims for d in order):
            raise ValueError(f"dim_order {dim_order!r} names dimensions not in {self.dims!r}")
        return [values[self.dims.index(d)] for d in order]

    def _spacing(self):
        # from the level-0 TIFF resolution, as cuCIM derives it
        props = self._slide.properties
        unit = props.get("tiff.ResolutionUnit", "inch")
        xr, yr = (float(props.get(f"tiff.{k}Resolution", 0)) for k in "XY")
        if unit == "none":
            return [yr, xr, 1.0], ["", "", "color"]
        scale = 25400.0 if unit == "inch" else 10000.0
        return ([scale / yr if yr else 1.0, scale / xr if xr else 1.0, 1.0],
                ["micrometer", "micrometer", "color"])

    def spacing(self, dim_order=""):
        """Physical size of a level-0 pixel along ``dim_order`` (default ``dims``; the channel axis is 1)."""
        return self._by_dims(self._spacing()[0], dim_order)

    def spacing_units(self, dim_order=""):
        return self._by_dims(self._spacing()[1], dim_order)

    @property
    def origin(self):
        return [0.0, 0.0, 0.0]

    @property
    def direction(self):
        return [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]

    @property
    def coord_sys(self):
        return "LPS"

    @property
    def resolutions(self):
        levels = self._slide._levels
        return {"level_count": len(levels),
                "level_dimensions": tuple((w, h) for w, h, *_ in levels),
                "level_downsamples": tuple(lv[4] for lv in levels),
                "level_tile_sizes": tuple((tw, th) for _, _, tw, th, _ in levels)}

    @property
    def raw_metadata(self):
        return self._slide.properties.get("tiff.ImageDescription", "")

    @property
    def metadata(self):
        """``{"cucim": {...}}`` as cuCIM describes the image, plus the slide's properties grouped by
        namespace (``"openslide"``, ``"tiff"``, ``"aperio"``, ...)."""
        spacing, units = self._spacing()
        out = {"cucim": {"path": self._path, "ndim": self.ndim, "dims": self.dims, "shape": self.shape,
                         "dtype": {"code": 1, "bits": 8, "lanes": 1}, "channel_names": self.channel_names,
                         "spacing": spacing, "spacing_units": units, "origin": self.origin,
                         "direction": self.direction, "coord_sys": self.coord_sys,
                         "resolutions": self.resolutions, "associated_images": sorted(self.associated_images)}}
        for key, value in self._slide.properties.items():
            ns, _, name = key.partition(".")
            out.setdefault(ns, {})[name] = value
        return out

    @property
    def associated_images(self):
        return set(self._slide.associated_images)

    def associated_image(self, name, device="cpu"):
        """The associated image ``name`` ("thumbnail", "label", "macro") as an (H, W, 3) uint8 array."""
        if isinstance(device, str) and device.split(":")[0] == "cuda":
            raise NotImplementedError("associated images are read on the CPU only: use device='cpu' and copy "
                                      "(cupy.asarray)")
        _check_device(device)
        core = self._slide._handle()
        if name not in core.associated:
            raise ValueError(f"no associated image named {name!r} (the slide has {sorted(core.associated)})")
        w, h = core.associated[name]
        out = np.empty((h, w, 4), dtype=np.uint8)
        core.read_associated(name, out)
        return np.ascontiguousarray(out[..., :3])

    # ------------------------------------------------------------------------------- read_region

    def read_region(self, location=None, size=None, level=0, num_workers=0, batch_size=1, drop_last=False,
                    prefetch_factor=2, shuffle=False, seed=0, device="cpu", progress=False, array_type=None):
        """RGB pixels of one region, or an iterator over batches of patches at many locations.

        Parameters
        ----------
        location : (x, y), sequence of (x, y), (N, 2) integer array or iterable of (x, y), optional
            Top-left corner(s) in level-0 coordinates, mapped to ``level`` as cuCIM maps them: divided by
            the level's downsample in single precision, truncated toward zero. Default: (0, 0).
        size : (w, h), optional
            Region size in pixels of ``level``. Default: the whole level.
        level : int
            Pyramid level.
        num_workers : int
            Threads of the reader's own. One region is cut into tile-aligned pieces read by that many
            threads; many locations are read by that many background threads, ahead of the consumer.
            0 (default): the calling thread with ndimg's thread pool, nothing ahead.
        batch_size : int
            Patches per batch when iterating.
        drop_last : bool
            Leave out the last batch if it is short.
        prefetch_factor : int
            Batches decoded ahead of the one being consumed (with ``num_workers > 0``).
        shuffle, seed : bool, int
            Read the locations in a random order, which ``seed`` fixes (cuCIM's order: ``std::shuffle``
            with ``std::default_random_engine(seed)``).
        device : "cpu", None, "cuda" or "cuda:N"
            Where the pixels go. ``"cuda"``: decoded into GPU memory of the current (or N-th) device. JPEG
            tiles are read on CPU threads and decoded in batches by nvJPEG (its hardware engine on A100,
            H100, H200 and later), other codecs decode on CPU threads and are uploaded; a CUDA kernel
            assembles the regions. With ``num_workers > 0`` the next batch is prepared in the background
            while the current one is used. Pixels equal the CPU path's (JPEG within a few levels).
            ``NDIMG_NVJPEG_CPU_SHARE=auto`` lets ndimg's CPU threads decode a share of each batch beside
            nvJPEG, balanced from the rates both reach (a number in [0, 1] fixes the share; default 0).
        progress : bool
            Show a tqdm progress bar (over pieces of a region, or over batches); needs ``tqdm``.
        array_type : {None, "cupy", "torch"}
            With ``device="cuda"``: the array library that allocates the output, on its current stream
            (default CuPy). The pixels are written in that stream's order.

        Returns
        -------
        numpy.ndarray or iterator
            With a single location (or none) and ``batch_size == 1``: an (h, w, 3) uint8 array. Otherwise an
            iterator (with ``len()``) yielding (h, w, 3) arrays when ``batch_size == 1`` and
            (B, h, w, 3) arrays otherwise, B = ``batch_size`` except for a short last batch. Pixels outside
            the level are 0. Dropping the iterator early (``break``, ``del``) stops its threads.

        Raises
        ------
        ValueError
            For a bad level, size, location shape, batch_size, num_workers or prefetch_factor.
        RuntimeError
            For ``device="cuda"`` where it cannot be served (no CUDA build, GPU, array library or nvJPEG);
            the message says what is missing.
        """
        # The per-patch call (one (x, y) and (w, h) of ints, the defaults otherwise) in few Python steps, as
        # many threads make it at once and the GIL serializes them while they run Python; anything else,
        # invalid input included, takes the general path below.
        if (type(location) is tuple and type(size) is tuple and len(location) == 2 and len(size) == 2
                and type(level) is int and num_workers == 0 and batch_size == 1 and device == "cpu"
                and array_type is None and not progress and type(prefetch_factor) is type(seed) is int
                and prefetch_factor >= 0 and seed >= 0):
            (x, y), (w, h) = location, size
            core = self._slide._core
            if (type(x) is type(y) is type(w) is type(h) is int and w > 0 and h > 0 and core is not None
                    and 0 <= level < len(self._slide._levels)):
                out = _empty((h, w, 3), _uint8)
                _read_region_rgb(core, x, y, level, out, 0, None)
                return out
        gpu = _check_device(device, array_type)
        core = self._slide._handle()
        levels = self._slide._levels
        level = _as_int(level, "level", 0)
        if level >= len(levels):
            raise ValueError(f"level {level} is out of range (the slide has {len(levels)} levels)")
        if size is None:
            w, h = levels[level][:2]
        else:
            try:
                w, h = size
            except (TypeError, ValueError):
                raise ValueError(f"size must be (width, height), got {size!r}") from None
            w, h = _as_int(w, "width", 1), _as_int(h, "height", 1)
        num_workers = _as_int(num_workers, "num_workers", 0)
        batch_size = _as_int(batch_size, "batch_size", 1)
        prefetch_factor = _as_int(prefetch_factor, "prefetch_factor", 0)
        seed = _as_int(seed, "seed", 0)
        one = _one_location(location)
        xy = _as_locations(location) if one is None else None
        if progress:
            _tqdm()  # fail before starting any thread
        if batch_size == 1 and (one is not None or len(xy) == 1):  # cuCIM: one location, one region
            x, y = one if one is not None else (int(xy[0, 0]), int(xy[0, 1]))
            if gpu is not None:
                from ._gpu import read_one
                return read_one(gpu, core, x, y, level, w, h)
            return self._read_one(core, x, y, level, w, h, num_workers, progress)
        if xy is None:
            xy = _as_locations(one)
        if gpu is not None:
            from ._gpu import GpuBatchIterator
            loader = _core.GpuPatchLoader(core, xy, level, w, h, batch_size, prefetch_factor, num_workers,
                                          bool(shuffle), seed, bool(drop_last), gpu.device)
            return GpuBatchIterator(loader, gpu, (h, w, 3), batch_size == 1, progress)
        loader = _core.PatchLoader(core, xy, level, w, h, batch_size, prefetch_factor, num_workers,
                                   bool(shuffle), seed, bool(drop_last))
        return BatchIterator(loader, batch_size == 1, progress)

    def to_dask(self, level=0, *, channels="RGB", chunks=None):
        """A level as a lazy Dask array chunked by tiles: :meth:`ndimg.io.Slide.to_dask`, RGB by default as this
        class's regions are."""
        return self._slide.to_dask(level, channels=channels, chunks=chunks)

    def zarr_store(self, level=None, *, channels="RGB", chunks="tile", num_workers=None):
        """A read-only zarr store of the pyramid or of a level: :meth:`ndimg.io.Slide.zarr_store`, RGB by
        default."""
        return self._slide.zarr_store(level, channels=channels, chunks=chunks, num_workers=num_workers)

    def _read_one(self, core, x, y, level, w, h, num_workers, progress):
        out = np.empty((h, w, 3), dtype=np.uint8)
        if not progress:
            _core.read_region_rgb(core, x, y, level, out, num_workers, None)
            return out
        bar = _tqdm()(total=None, unit="piece", desc="read_region")

        def report(done, total):
            bar.total = total
            bar.update(done - bar.n)

        try:
            _core.read_region_rgb(core, x, y, level, out, num_workers, report)
        finally:
            bar.close()
        return out


def _check_device(device, array_type=None):
    """None for the CPU; for "cuda[:N]" the GPU target (ndimg.io._gpu.Target), or RuntimeError saying why
    it cannot be served."""
    if device is None or device == "cpu":
        if array_type is not None:
            raise ValueError("array_type applies to device='cuda' only")
        return None
    if isinstance(device, str) and device.split(":")[0] == "cuda":
        from ._gpu import target
        return target(device, array_type)
    raise ValueError(f"device must be 'cpu', None or 'cuda', got {device!r}")


class BatchIterator:
    """Batches of patches from :meth:`CuImage.read_region`, decoded ahead on background threads.

    ``len()`` is the number of batches; ``locations`` the (N, 2) level-0 locations in delivery order
    (after ``shuffle`` and ``drop_last``). Each batch is a new array that stays valid (cuCIM refills one
    buffer, so its batches must be copied before the next). ``close()`` (or dropping the iterator) stops
    the threads; one iterator may be consumed from several threads.
    """

    def __init__(self, loader, squeeze, progress):
        self._bar = None
        self._loader = loader
        self._squeeze = squeeze
        self._locations = loader.locations
        self._len = loader.batch_count
        self._bar = _tqdm()(total=self._len, unit="batch", desc="read_region") if progress else None

    def __iter__(self):
        return self

    def __len__(self):
        return self._len

    @property
    def locations(self):
        return self._locations

    def _fetch(self, loader):
        """The next batch from the loader, or None after the last."""
        return loader.next()

    def __next__(self):
        loader = self._loader
        if loader is None:
            raise StopIteration
        try:
            batch = self._fetch(loader)
        except BaseException:
            self.close()
            raise
        if batch is None:
            self.close()
            raise StopIteration
        if self._bar is not None:
            self._bar.update(1)
        return batch[0] if self._squeeze else batch

    def close(self):
        loader, self._loader = self._loader, None
        if loader is not None:
            loader.close()
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __del__(self):
        self.close()


def _release_cache():  # at exit: unmap the cache (and remove the shared segment this process created)
    _core.set_tile_cache(None)


_attach_inherited_cache()
atexit.register(_release_cache)

__all__ = ["CuImage", "BatchIterator", "CacheType", "ImageCache", "SlideError", "preferred_memory_capacity"]

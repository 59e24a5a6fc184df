"""The decoded-tile cache (CuImage.cache): statistics, bounds, LRU eviction, identical pixels, and the
shared-memory cache seen from child processes (fork and spawn)."""
import multiprocessing as mp
import os
import shutil
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import tifffile

from ndimg.io import CacheType, CuImage, Slide, SlideError, preferred_memory_capacity

TILE = 256 * 256 * 3  # bytes of one decoded RGB tile of the test slides
# what the cache holds of one of their JPEG tiles (YCbCr with 4:2:0 chroma): its planes, Y and the halved Cb, Cr
KEPT = 256 * 256 + 2 * 128 * 128


@pytest.fixture(autouse=True)
def no_cache_after():
    yield
    CuImage.cache("nocache")


def tile_region(img, tx, ty):
    """Reads exactly tile (tx, ty) of level 0 (one cache lookup)."""
    return img.read_region((256 * tx, 256 * ty), (256, 256))


def test_default_is_no_cache():
    cache = CuImage.cache()
    assert cache.type == CacheType.NoCache == 0
    assert (cache.size, cache.memory_size, cache.capacity, cache.memory_capacity, cache.hit_count,
            cache.miss_count, cache.free_memory) == (0,) * 7
    assert cache.config["type"] == "nocache" and not cache.record()


def test_configuration():
    cache = CuImage.cache("per_process", memory_capacity=2048)
    assert cache.type == CacheType.PerProcess and CuImage.cache() is cache
    assert cache.memory_capacity == cache.free_memory == 2048 << 20
    assert cache.capacity == (2048 << 20) // TILE  # as cuCIM's default
    assert cache.config == {"type": "per_process", "memory_capacity": 2048, "capacity": cache.capacity,
                            "record_stat": False}
    cache = CuImage.cache("shared_memory", memory_capacity=64, capacity=7, record_stat=True)
    assert cache.type == CacheType.SharedMemory and cache.capacity == 7 and cache.record()
    assert CuImage.cache("no_cache").type == CacheType.NoCache
    for bad in [dict(type="lru"), dict(type="per_process", memory_capacity=0),
                dict(type="per_process", memory_capacity=-5), dict(type="per_process", capacity=0)]:
        with pytest.raises(ValueError):
            CuImage.cache(**bad)


def test_hits_and_misses(tifffile_slides):
    with CuImage(tifffile_slides["jpeg"]) as img:
        cache = CuImage.cache("per_process", memory_capacity=16, record_stat=True)
        first = tile_region(img, 1, 2)
        assert (cache.hit_count, cache.miss_count, cache.size, cache.memory_size) == (0, 1, 1, KEPT)
        np.testing.assert_array_equal(tile_region(img, 1, 2), first)
        assert (cache.hit_count, cache.miss_count) == (1, 1)
        img.read_region((10, 10), (300, 300))  # tiles (0..2, 0..2): 4 new, none cached
        assert (cache.hit_count, cache.miss_count, cache.size) == (1, 5, 5)
        img.read_region((200, 200), (100, 100))  # tiles (0,0), (1,0), (0,1), (1,1)
        assert (cache.hit_count, cache.miss_count) == (5, 5)
        assert cache.free_memory == (16 << 20) - 5 * KEPT
        cache.record(False)
        tile_region(img, 1, 2)
        assert (cache.hit_count, cache.miss_count, cache.record()) == (0, 0, False)
        cache.record(True)
        cache.clear()
        assert cache.size == cache.memory_size == 0
        tile_region(img, 1, 2)
        assert (cache.hit_count, cache.miss_count) == (0, 1)


@pytest.mark.parametrize("kind", ["per_process", "shared_memory"])
def test_threads_missing_a_tile_together_decode_it_once(tifffile_slides, kind):
    import threading
    threads = 8
    with CuImage(tifffile_slides["jpeg"]) as img, Slide(tifffile_slides["jpeg"]) as s:
        expected = [s.read_region((256 * t + 5, 300), 0, (200, 100))[..., :3] for t in range(4)]
        cache = CuImage.cache(kind, memory_capacity=16, record_stat=True)
        barrier = threading.Barrier(threads)
        got = {}

        def read(k):
            for t in range(4):  # each thread reads tile (t, 1), all at once
                barrier.wait()
                got[k, t] = img.read_region((256 * t + 5, 300), (200, 100))

        pool = [threading.Thread(target=read, args=(k,)) for k in range(threads)]
        for th in pool:
            th.start()
        for th in pool:
            th.join()
        for (k, t), g in got.items():
            np.testing.assert_array_equal(g, expected[t])
        assert (cache.miss_count, cache.hit_count, cache.size) == (4, 4 * threads - 4, 4)


@pytest.mark.parametrize("kind", ["per_process", "shared_memory"])
def test_capacity_and_lru_eviction(tifffile_slides, kind):
    with CuImage(tifffile_slides["jpeg"]) as img:
        cache = CuImage.cache(kind, memory_capacity=1, capacity=3, record_stat=True)
        for t in [(0, 0), (1, 0), (2, 0)]:
            tile_region(img, *t)
        assert cache.size == 3
        tile_region(img, 0, 0)  # hit: now the most recent
        tile_region(img, 3, 0)  # evicts (1, 0), the least recent
        assert cache.size == 3 and (cache.hit_count, cache.miss_count) == (1, 4)
        tile_region(img, 0, 0)
        tile_region(img, 2, 0)
        assert (cache.hit_count, cache.miss_count) == (3, 4)
        tile_region(img, 1, 0)
        assert (cache.hit_count, cache.miss_count) == (3, 5)
        # the memory bound: 1 MiB holds 10 tiles whatever the count capacity
        cache = CuImage.cache(kind, memory_capacity=1, capacity=1000)
        for t in range(48):
            tile_region(img, t % 8, t // 8)
        assert cache.size == 10 and cache.memory_size == 10 * KEPT <= cache.memory_capacity
        # read by many threads at once, tiles that find every other one taken (being stored or read) are decoded
        # without being stored
        img.read_region(level=0, num_workers=16)
        assert 0 < cache.size <= 10 and cache.memory_size == cache.size * KEPT


@pytest.mark.parametrize("kind", ["per_process", "shared_memory"])
@pytest.mark.parametrize("name", ["jpeg", "gray_deflate", "odd_tiles_lzw"])
def test_same_pixels_with_cache(tifffile_slides, kind, name, rng):
    path = tifffile_slides[name]
    with CuImage(path) as img, Slide(path) as s:
        xy = [(int(rng.integers(-50, 2000)), int(rng.integers(-50, 1500))) for _ in range(24)]
        expected = [s.read_region(p, 0, (300, 200))[..., :3] for p in xy]
        levels = [s.read_region((0, 0), lv, s.level_dimensions[lv])[..., :3] for lv in range(s.level_count)]
        cache = CuImage.cache(kind, memory_capacity=2, record_stat=True)  # small: hits and evictions
        for _ in range(2):
            got = np.concatenate(list(img.read_region(xy, (300, 200), num_workers=4, batch_size=5)))
            np.testing.assert_array_equal(got, np.stack(expected))
            with ThreadPoolExecutor(6) as pool:
                for g, e in zip(pool.map(lambda p: img.read_region(p, (300, 200)), xy), expected):
                    np.testing.assert_array_equal(g, e)
            for lv, ref in enumerate(levels):
                np.testing.assert_array_equal(img.read_region(level=lv, num_workers=3), ref)
        assert cache.size > 0 and cache.memory_size <= cache.memory_capacity
        for i in range(2):  # the second read of a region finds its tiles
            hits = cache.hit_count
            np.testing.assert_array_equal(img.read_region(xy[-1], (300, 200)), expected[-1])
        assert cache.hit_count > hits


def child_reads(path, queue):
    img = CuImage(path)
    img.read_region((0, 0), (512, 512))  # 4 tiles
    cache = CuImage.cache()
    queue.put((int(cache.type), cache.shm_name, cache.hit_count, cache.miss_count))


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_shared_cache_across_processes(tifffile_slides, method):
    path = tifffile_slides["jpeg"]
    cache = CuImage.cache("shared_memory", memory_capacity=8, record_stat=True)
    ctx = mp.get_context(method)
    queue = ctx.Queue()
    # the child runs a function of an importable module: ndimg's own read_region, on a pickled CuImage
    p = ctx.Process(target=CuImage.read_region, args=(CuImage(path), (0, 0), (512, 512)))
    p.start()
    p.join(60)
    assert p.exitcode == 0
    assert (cache.size, cache.miss_count, cache.hit_count) == (4, 4, 0)  # filled by the child
    with CuImage(path) as img:
        img.read_region((0, 0), (512, 512))
    assert (cache.size, cache.miss_count, cache.hit_count) == (4, 4, 4)  # hits in the parent
    if method == "fork":  # the child also sees the parent's tiles
        p = ctx.Process(target=child_reads, args=(path, queue))
        p.start()
        result = queue.get(timeout=60)
        p.join(60)
        assert result == (int(CacheType.SharedMemory), cache.shm_name, 8, 4)


def test_shared_segment_removed_when_replaced():
    cache = CuImage.cache("shared_memory", memory_capacity=4)
    name = cache.shm_name
    assert name and os.path.exists("/dev/shm" + name) and os.environ["NDIMG_TILE_CACHE_SHM"] == name
    CuImage.cache("per_process", memory_capacity=4)
    assert os.path.exists("/dev/shm" + name)  # still referenced here
    del cache
    assert not os.path.exists("/dev/shm" + name) and "NDIMG_TILE_CACHE_SHM" not in os.environ


def test_cache_survives_fork_with_busy_threads(tifffile_slides):
    """A fork while reader threads hold the private cache's locks leaves the child a working cache."""
    path = tifffile_slides["jpeg"]
    CuImage.cache("per_process", memory_capacity=1, record_stat=True)
    with CuImage(path) as img:
        xy = [(x, y) for x in range(0, 1800, 97) for y in range(0, 1300, 101)]
        it = img.read_region(xy, (64, 64), num_workers=4, batch_size=4, prefetch_factor=8)
        next(it)
        ctx = mp.get_context("fork")
        for _ in range(3):
            p = ctx.Process(target=CuImage.read_region, args=(img, (0, 0), (700, 700)))
            p.start()
            p.join(30)
            assert p.exitcode == 0
        assert sum(len(b) for b in it) == len(xy) - 4


def child_loop(path):
    img = CuImage(path)
    while True:
        img.read_region((0, 0), (1024, 768))


def test_shared_cache_survives_killed_process(tifffile_slides):
    """A process killed while it may hold a shard's lock leaves a cache the others keep using."""
    import signal
    import time
    path = tifffile_slides["jpeg"]
    cache = CuImage.cache("shared_memory", memory_capacity=16)  # one shard
    with CuImage(path) as img, Slide(path) as s:
        expected = s.read_region((0, 0), 0, (1024, 768))[..., :3]
        ctx = mp.get_context("fork")
        for delay in (0.2, 0.35, 0.5):
            p = ctx.Process(target=child_loop, args=(path,))
            p.start()
            time.sleep(delay)  # reading cached tiles: mostly copying under the lock
            os.kill(p.pid, signal.SIGKILL)
            p.join(10)
            np.testing.assert_array_equal(img.read_region((0, 0), (1024, 768)), expected)
        assert 0 < cache.size <= 12


def test_preferred_memory_capacity(tifffile_slides):
    # the values cuCIM's own tests give for these sizes
    big = dict(image_size=(1024 * 1024, 1024 * 1024), tile_size=(256, 256), bytes_per_pixel=3)
    assert preferred_memory_capacity(None, patch_size=(256, 256), **big) == 1536
    assert preferred_memory_capacity(None, patch_size=(512, 512), **big) == 2304
    assert preferred_memory_capacity(None, (32, 24), (16, 16), (32, 32), 3) == 1
    assert preferred_memory_capacity(None, (32, 24), patch_size=(32, 32)) == 1
    with CuImage(tifffile_slides["jpeg"]) as img:  # 2000 x 1500, tiles 256: 8 across x 2 rows x 192 KiB
        assert preferred_memory_capacity(img, patch_size=(256, 256)) == 3
    with pytest.raises(ValueError):
        preferred_memory_capacity(None, (32, 24), (0, 16), (32, 32))


def all_equal(path, regions, expected):
    img = CuImage(path)
    return all(np.array_equal(img.read_region(r, (200, 150), num_workers=2), e)
               for _ in range(3) for r, e in zip(regions, expected))


def child_compares(path, regions, expected):
    if not all_equal(path, regions, expected):
        raise SystemExit(3)


def test_shared_cache_concurrent_processes(tifffile_slides, rng):
    """Three processes and the parent read through one small shared cache at once: every pixel right."""
    path = tifffile_slides["jpeg"]
    with CuImage(path) as img, Slide(path) as s:
        regions = [(int(rng.integers(0, 1800)), int(rng.integers(0, 1350))) for _ in range(12)]
        expected = [s.read_region(r, 0, (200, 150))[..., :3] for r in regions]
        cache = CuImage.cache("shared_memory", memory_capacity=2, record_stat=True)  # evictions all along
        ctx = mp.get_context("fork")
        procs = [ctx.Process(target=child_compares, args=(path, regions[i:] + regions[:i], expected[i:] + expected[:i]))
                 for i in range(3)]
        for p in procs:
            p.start()
        assert all_equal(path, regions, expected)
        for p in procs:
            p.join(60)
            assert p.exitcode == 0
        assert cache.hit_count > 0 and cache.memory_size <= 2 << 20


def rgba_of(level, x, y, w, h):
    """Region (x, y, w, h) of a decoded level as Slide.read_region gives it: RGBA, transparent outside."""
    if level.ndim == 2:
        level = np.repeat(level[..., None], 3, axis=2)
    out = np.zeros((h, w, 4), np.uint8)
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, level.shape[1]), min(y + h, level.shape[0])
    if x0 < x1 and y0 < y1:
        out[y0 - y:y1 - y, x0 - x:x1 - x, :3] = level[y0:y1, x0:x1]
        out[y0 - y:y1 - y, x0 - x:x1 - x, 3] = 255
    return out


@pytest.mark.parametrize("name", ["jpeg", "jpeg_rgb", "vips_jpeg", "aperio", "gray_jpeg", "wide_jpeg"])
def test_jpeg_tiles_in_part_and_in_the_cache_match_whole_decodes(request, tifffile_slides, aperio_slide, tmp_path,
                                                                 slide_image, name):
    # Without the cache a JPEG tile met in part decodes only its wanted rows and columns (libjpeg's row
    # skipping and cropping); with it the whole tile is decoded straight into the cache's 16 KiB blocks,
    # rows that straddle two blocks (or, 5504 pixels wide, three) through a spill row. Both must give
    # tifffile's whole-tile decode to the bit: regions at every offset within a tile, one pixel to several
    # tiles, at the slide's edges, on misses and on hits.
    if name == "vips_jpeg":
        path = request.getfixturevalue("vips_slides")["jpeg"]  # skips without libvips
    elif name == "aperio":
        path = aperio_slide
    elif name == "gray_jpeg":
        path = str(tmp_path / "gray_jpeg.tif")
        tifffile.imwrite(path, slide_image[..., 0].copy(), tile=(240, 240), compression="jpeg")
    elif name == "wide_jpeg":  # 16,512-byte rows
        path = str(tmp_path / "wide_jpeg.tif")
        tifffile.imwrite(path, np.tile(slide_image[:80], (1, 3, 1)), tile=(32, 5504), compression="jpeg")
    else:
        path = tifffile_slides[name]
    level = tifffile.imread(path, key=0)
    rng = np.random.default_rng(7)
    with Slide(path) as s:
        w0, h0 = s.dimensions
        regions = [(int(rng.integers(-20, w0)), int(rng.integers(-20, h0)), int(rng.integers(1, 400)),
                    int(rng.integers(1, 400))) for _ in range(40)]
        regions += [(1, 1, 256, 256), (255, 255, 2, 2), (w0 - 7, h0 - 5, 30, 30), (17, 3, 1, 1), (0, 0, w0, h0)]
        expected = [rgba_of(level, *r) for r in regions]
        for r, want in zip(regions, expected):
            np.testing.assert_array_equal(s.read_region(r[:2], 0, r[2:]), want, err_msg=f"uncached {r}")
        cache = CuImage.cache("per_process", memory_capacity=64, record_stat=True)
        for what in ("miss", "hit"):
            cache.clear()
            for r, want in zip(regions, expected):
                if what == "hit":
                    s.read_region(r[:2], 0, r[2:])
                np.testing.assert_array_equal(s.read_region(r[:2], 0, r[2:]), want, err_msg=f"cached {r} ({what})")
        assert cache.miss_count > 0 and cache.hit_count > 0


def test_corrupt_jpeg_tile_with_cache_then_usable(tifffile_slides, tmp_path):
    # a tile that fails to decode into the cache's blocks gives its reservation back: nothing is held for it
    path = str(tmp_path / "corrupt.tif")
    shutil.copy(tifffile_slides["jpeg"], path)
    level = tifffile.imread(path, key=0)
    with tifffile.TiffFile(path) as t:
        off, count = t.pages[0].dataoffsets[1], t.pages[0].databytecounts[1]  # tile (1, 0)
    with open(path, "r+b") as f:
        f.seek(off + 2)
        f.write(b"\x00" * (count - 2))  # no markers after the start of image
    cache = CuImage.cache("per_process", memory_capacity=16, record_stat=True)
    with Slide(path) as s:
        np.testing.assert_array_equal(s.read_region((0, 0), 0, (256, 256)), rgba_of(level, 0, 0, 256, 256))
        for _ in range(2):
            with pytest.raises(SlideError, match="JPEG"):
                s.read_region((300, 10), 0, (20, 20))
            assert (cache.size, cache.memory_size) == (1, KEPT)
        np.testing.assert_array_equal(s.read_region((0, 256), 0, (256, 256)), rgba_of(level, 0, 256, 256, 256))
        assert (cache.size, cache.memory_size, cache.hit_count) == (2, 2 * KEPT, 0)


@pytest.mark.parametrize("kind", ["per_process", "shared_memory"])
def test_first_rows_of_a_tile_let_go_are_decoded_alone(tifffile_slides, kind):
    # A reader wanting only a tile's first rows (at most an eighth of them) of a tile the cache held whole and
    # has evicted gets those rows decoded and kept alone; a reader wanting more replaces them with the whole
    # tile. A tile never held, or one held before the cache was emptied, is decoded whole.
    # The test slide's tiles are kept as planes, in blocks of 16 KiB: a tile's first 16 rows (one MCU row: the
    # first 15 can be read) take a block of Y rows and one of each chroma plane's.
    path = tifffile_slides["jpeg"]
    level = tifffile.imread(path, key=0)
    top = 3 * 16 << 10
    with CuImage(path) as img:
        cache = CuImage.cache(kind, memory_capacity=1, capacity=1000, record_stat=True)  # 10 whole tiles
        tile_region(img, 0, 0)
        for t in range(1, 11):
            tile_region(img, t % 8, t // 8)  # (0, 0), the least recent, goes
        assert cache.size == 10 and cache.memory_size == 10 * KEPT
        np.testing.assert_array_equal(img.read_region((0, 0), (256, 2)), level[:2, :256])
        assert cache.size == 11 and cache.memory_size == 10 * KEPT + top
        misses = cache.miss_count
        np.testing.assert_array_equal(img.read_region((3, 1), (100, 14)), level[1:15, 3:103])  # a hit on those rows
        assert (cache.miss_count, cache.memory_size) == (misses, 10 * KEPT + top)
        np.testing.assert_array_equal(img.read_region((0, 0), (256, 40)), level[:40, :256])  # more: decoded whole
        assert cache.miss_count == misses + 1 and cache.memory_size == 10 * KEPT
        np.testing.assert_array_equal(tile_region(img, 0, 0), level[:256, :256])
        assert cache.miss_count == misses + 1
        np.testing.assert_array_equal(img.read_region((256 * 6, 256 * 3), (256, 2)),
                                      level[768:770, 1536:1792])  # never held
        assert cache.memory_size == 10 * KEPT
        cache.clear()
        np.testing.assert_array_equal(img.read_region((256, 0), (256, 2)), level[:2, 256:512])  # held, then emptied
        assert cache.memory_size == KEPT


@pytest.mark.parametrize("tile", [16, 240, 256, 512])
def test_ycbcr_420_tiles_kept_as_planes_read_the_same(tmp_path, rng, tile):
    # JPEG tiles of YCbCr with 4:2:0 chroma are kept as their planes and converted as they are read (chroma
    # upsampling and colour conversion as libjpeg-turbo does them): every API reads the same bytes as without the
    # cache, on noise (colours that clip) and smooth content, at tile edges and corners, odd offsets, 1-pixel
    # rows and columns, and from tiles the cache holds only the first rows of.
    h, w = 3 * tile + 32, 3 * tile + 48
    smooth = np.stack([*np.meshgrid(np.linspace(0, 255, w), np.linspace(255, 0, h)), np.full((h, w), 128.0)], -1)
    img = np.where(rng.random((h, w, 1)) < 0.5, rng.integers(0, 256, (h, w, 3)), smooth).astype(np.uint8)
    path = str(tmp_path / "ycc.tif")
    tifffile.imwrite(path, img, tile=(tile, tile), compression="jpeg", compressionargs={"level": 90}, metadata=None)
    edges = [t * tile + d for t in range(4) for d in (-1, 0, 1)]
    regions = [(int(x), int(y), int(rw), int(rh)) for x, y, rw, rh in
               [(rng.choice(edges), rng.choice(edges), rng.choice([1, 2, 3, 17, tile + 1]),
                 rng.choice([1, 2, 15, 16, 17, tile - 1])) for _ in range(40)] +
               [(int(rng.integers(-20, w)), int(rng.integers(-20, h)), int(rng.integers(1, 300)),
                 int(rng.integers(1, 300))) for _ in range(20)] + [(1, 1, tile, tile), (0, 0, w, h)]]
    with Slide(path) as s, CuImage(path) as c:
        want_rgba = [s.read_region((x, y), 0, (rw, rh)) for x, y, rw, rh in regions]
        want_raw = [s.read_region_raw((x, y), 0, (rw, rh)) for x, y, rw, rh in regions if x >= 0 and y >= 0]
        for kind in ["per_process", "shared_memory"]:
            cache = CuImage.cache(kind, memory_capacity=64, record_stat=True)
            for _ in range(2):  # misses, then hits
                for (x, y, rw, rh), want in zip(regions, want_rgba):
                    np.testing.assert_array_equal(s.read_region((x, y), 0, (rw, rh)), want)
                    np.testing.assert_array_equal(c.read_region((x, y), (rw, rh)), want[..., :3])
                got = [s.read_region_raw((x, y), 0, (rw, rh)) for x, y, rw, rh in regions if x >= 0 and y >= 0]
                for g, want in zip(got, want_raw):
                    np.testing.assert_array_equal(g, want)
                batches = c.read_region([(x, y) for x, y, _, _ in regions], (33, 21), num_workers=3, batch_size=7)
                np.testing.assert_array_equal(np.concatenate(list(batches)),
                                              np.stack([s.read_region((x, y), 0, (33, 21))[..., :3]
                                                        for x, y, _, _ in regions]))
            # each plane in blocks of 16 KiB holding whole rows: Y's tile rows of tile bytes, then Cb's and Cr's
            blocks = -(-tile // (16384 // tile)) + 2 * -(-(tile // 2) // (16384 // (tile // 2)))
            assert cache.hit_count > 0 and cache.memory_size == cache.size * blocks * 16384
            # tiles held only in their first rows (let go of, then wanted for a row or two): the rows there, and the
            # rows below them decoded anew
            cache.clear()
            for y in (0, tile, 2 * tile):
                for x in (0, tile, 2 * tile):
                    c.read_region((x, y), (tile, tile))
            cache = CuImage.cache(kind, memory_capacity=1, capacity=2)
            for x in (0, tile, 2 * tile):
                c.read_region((x, tile), (tile, tile))
            for rows in (1, 2, 14, 15, 16, 17, 31, 33):
                for x in (0, tile + 3):
                    np.testing.assert_array_equal(s.read_region((x, tile), 0, (tile, rows)),
                                                  want_rgba[-1][tile:tile + rows, x:x + tile])

"""Slides as arrays: Slide.to_dask and Slide.zarr_store against tifffile's and OpenSlide's decoding of slides
written by tifffile and libvips; pickling of slides (spawned processes, distributed workers); bad input."""
import multiprocessing
import os
import pickle
import sys

import numpy as np
import pytest
import tifffile

import ndimg.io
from ndimg.io import SlideError
from ndimg.io._lazy import LevelArray, tile_chunks
from helpers_io import reference_levels, write_pyramid

da = pytest.importorskip("dask.array")
zarr = pytest.importorskip("zarr")


def tifffile_levels(path):
    """Every level of the file's pyramid as tifffile decodes it (gray as (h, w, 1))."""
    return [lv[..., None] if lv.ndim == 2 else lv for lv in reference_levels(path)]


def as_channels(ref, channels):
    """tifffile's 8-bit samples as the view's channels (gray replicated; alpha 255)."""
    rgb = np.repeat(ref, 3, axis=-1) if ref.shape[-1] == 1 else ref[..., :3]
    if channels == "RGB":
        return rgb
    return np.concatenate([rgb, np.full(rgb.shape[:2] + (1,), 255, np.uint8)], axis=-1)


def assert_close(got, expected, tol):
    assert got.shape == expected.shape and got.dtype == expected.dtype
    diff = np.abs(got.astype(np.int32) - expected.astype(np.int32)).max() if got.size else 0
    assert diff <= tol, f"max difference {diff} > {tol}"


def tol_of(name):
    return 2 if "jpeg" in name else 0


TIFFFILE_NAMES = ["jpeg", "deflate", "lzw_predictor", "odd_tiles_lzw", "subifds_zstd", "gray_deflate"]
VIPS_NAMES = ["jpeg", "deflate_bigtiff", "none"]


@pytest.fixture(scope="module")
def slides(tifffile_slides, vips_slides):
    out = {f"tifffile-{k}": v for k, v in tifffile_slides.items()}
    out.update({f"vips-{k}": v for k, v in vips_slides.items()})
    return out


# ----------------------------------------------------------------------------------------- pixels

@pytest.mark.parametrize("name", [f"tifffile-{n}" for n in TIFFFILE_NAMES] + [f"vips-{n}" for n in VIPS_NAMES])
@pytest.mark.parametrize("channels", ["RGBA", "RGB"])
def test_dask_levels_match_tifffile(slides, name, channels):
    path = slides[name]
    refs = tifffile_levels(path)
    with ndimg.io.Slide(path) as s:
        assert s.level_count == len(refs)
        for level, ref in enumerate(refs):
            a = s.to_dask(level, channels=channels)
            expected = as_channels(ref, channels)
            assert a.shape == expected.shape and a.dtype == np.uint8
            assert_close(a.compute(), expected, tol_of(name))


@pytest.mark.parametrize("name", ["tifffile-jpeg", "tifffile-odd_tiles_lzw", "vips-jpeg", "vips-deflate"])
def test_dask_levels_match_openslide(slides, name):
    """OpenSlide's read_region of a whole level from (0, 0) is the level's stored pixels at any downsample."""
    openslide = pytest.importorskip("openslide")
    path = slides[name]
    with openslide.OpenSlide(path) as ref, ndimg.io.Slide(path) as s:
        assert s.level_dimensions == ref.level_dimensions
        for level, (w, h) in enumerate(ref.level_dimensions):
            expected = np.asarray(ref.read_region((0, 0), level, (w, h)))
            assert_close(s.to_dask(level).compute(), expected, tol_of(name))
            assert_close(s.to_dask(level, channels="RGB").compute(), expected[..., :3], tol_of(name))


def test_aperio_levels_match_tifffile_and_openslide(aperio_slide):
    openslide = pytest.importorskip("openslide")
    with tifffile.TiffFile(aperio_slide) as t:
        refs = [t.pages[0].asarray(), t.pages[2].asarray()]  # page 1 is the thumbnail
    with ndimg.io.Slide(aperio_slide) as s, openslide.OpenSlide(aperio_slide) as ref:
        assert s.level_count == 2
        for level, expected in enumerate(refs):
            assert_close(s.to_dask(level, channels="RGB").compute(), expected, 2)
            w, h = ref.level_dimensions[level]
            assert_close(s.to_dask(level).compute(), np.asarray(ref.read_region((0, 0), level, (w, h))), 2)


def test_sparse_tiles_are_transparent_as_in_openslide(tmp_path, slide_image):
    """A tile stored with byte count 0: alpha 0 in RGBA (as OpenSlide), 0 in RGB and raw."""
    openslide = pytest.importorskip("openslide")
    path = write_pyramid(str(tmp_path / "sparse.tif"), slide_image, levels=2, compression="deflate")
    with tifffile.TiffFile(path) as t:
        tag = t.pages[0].tags["TileByteCounts"]
        size = {3: 2, 4: 4, 16: 8}[int(tag.dtype)]
    with open(path, "r+b") as f:  # tile (row 1, column 2) of 8 across
        f.seek(tag.valueoffset + size * (8 + 2))
        f.write(bytes(size))
    with ndimg.io.Slide(path) as s, openslide.OpenSlide(path) as ref:
        got = s.to_dask(0).compute()
        np.testing.assert_array_equal(got, np.asarray(ref.read_region((0, 0), 0, ref.dimensions)))
        assert not got[256:512, 512:768].any() and (got[:256, ..., 3] == 255).all()
        rgb, raw = s.to_dask(0, channels="RGB").compute(), s.to_dask(0, channels="raw").compute()
        np.testing.assert_array_equal(rgb, raw)
        assert not rgb[256:512, 512:768].any()
        np.testing.assert_array_equal(rgb[:256], slide_image[:256])


def test_default_chunks_follow_the_tile_grid(slides):
    with ndimg.io.Slide(slides["tifffile-odd_tiles_lzw"]) as s:  # tiles 496 wide, 240 high
        th, tw = 240, 496
        for level in range(s.level_count):
            a = s.to_dask(level)
            assert all(c % th == 0 for c in a.chunks[0][:-1]) and all(c % tw == 0 for c in a.chunks[1][:-1])
            assert a.chunks[2] == (4,)
        big = ndimg.io.Slide(slides["vips-jpeg"]).to_dask(0)  # 2000 x 1500 in tiles of 256: 8 x 8 tiles
        assert big.chunks[:2] == ((1500,), (2000,)) or big.chunksize[:2] == (2048, 2048)
        assert s.to_dask(0, chunks="tile").chunksize == (th, tw, 4)
        assert s.zarr_store(0)._arrays[""].chunks == (th, tw)


def test_small_tiles_and_strips_are_grouped(tmp_path, slide_image):
    path = write_pyramid(str(tmp_path / "t16.tif"), slide_image[:700, :900].copy(), levels=2, tile=(16, 32),
                         compression="deflate")
    refs = tifffile_levels(path)
    with ndimg.io.Slide(path) as s:
        assert s.to_dask(0).chunksize == (700, 900, 4)  # whole tiles about 2048 a side, clipped to the level
        assert s.to_dask(0, chunks="tile").chunksize == (256, 256, 4)  # 16 x 8 tiles
        z = zarr.open_group(s.zarr_store(channels="RGB"), mode="r")
        assert z["0"].chunks == z["1"].chunks == (256, 256, 3)
        np.testing.assert_array_equal(z["0"][:], refs[0])
        np.testing.assert_array_equal(z["1"][100:, 7:300], refs[1][100:, 7:300])
    # strips (tiles as wide as the level; the readers' levels are tiled, but the rule covers them): about
    # side**2 pixels of whole strips
    assert tile_chunks(50000, 30000, 50000, 16, 2048) == (80, 50000)
    assert tile_chunks(2000, 3000, 2000, 1, 256) == (33, 2000)
    assert tile_chunks(2000, 10, 2000, 16, 2048) == (10, 2000)


@pytest.mark.parametrize("chunks", [(1, 7), (9, 1), 37, (100, 300), (5000, 5000), (240, 496)])
def test_chunk_borders(slides, chunks):
    """Chunks of one row or column, uneven chunks not on tile borders, one chunk larger than the level."""
    path = slides["tifffile-odd_tiles_lzw"]
    ref = as_channels(tifffile_levels(path)[0], "RGB")
    with ndimg.io.Slide(path) as s:
        a = s.to_dask(0, channels="RGB", chunks=chunks)
        if isinstance(chunks, tuple) and 1 in chunks:
            a, ref = a[200:260, 470:530], ref[200:260, 470:530]  # across a tile corner, in 60 x 9 tasks
        np.testing.assert_array_equal(a.compute(), ref)


def test_indexing(slides):
    path = slides["tifffile-deflate"]
    ref = as_channels(tifffile_levels(path)[0], "RGBA")
    with ndimg.io.Slide(path) as s:
        a = s.to_dask(0)
        for key in [(slice(None, None, -3), slice(5, -7, 2), slice(None, None, -1)), (17, slice(None), 2),
                    (slice(300, 301), -1), (Ellipsis, 0), (slice(10, 3),), (-1, -1, -1), (slice(250, 790, 7), 1000)]:
            np.testing.assert_array_equal(a[key].compute(), ref[key])
        with pytest.raises(IndexError):
            a[s.level_dimensions[0][1]]
        # the lazy level each chunk is read from takes the same keys, and only those
        view = LevelArray(s, 0, "RGBA")
        for key in [(slice(None, None, -3), slice(5, -7, 2)), (17, Ellipsis, 2), (-1, slice(1990, None))]:
            np.testing.assert_array_equal(view[key], ref[key])
        np.testing.assert_array_equal(np.asarray(view), ref)
        for key in [np.array([1, 2]), (slice(None), [3]), (0, 0, 0, 0), 1.5]:
            with pytest.raises((TypeError, IndexError)):
                view[key]
        with pytest.raises(IndexError):
            view[1500]


def test_raw_samples_16bit(tmp_path, slide_image):
    """channels="raw": the level's own uint16 samples, unreduced; RGBA reduces them as read_region does."""
    img16 = slide_image.astype(np.uint16) * 257 + np.arange(slide_image.shape[1], dtype=np.uint16)[:, None] % 200
    path = write_pyramid(str(tmp_path / "u16.tif"), img16, compression="zlib")
    refs = tifffile_levels(path)
    with ndimg.io.Slide(path) as s:
        for level, ref in enumerate(refs):
            raw = s.to_dask(level, channels="raw")
            assert raw.dtype == np.uint16
            np.testing.assert_array_equal(raw.compute(), ref)
            rgba = s.to_dask(level).compute()
            np.testing.assert_array_equal(rgba[..., :3], ((ref.astype(np.uint32) + 128) // 257).astype(np.uint8))
        z = zarr.open_array(s.zarr_store(1, channels="raw"), mode="r")
        assert z.dtype == np.uint16
        np.testing.assert_array_equal(z[:], refs[1])


def test_gray_raw_has_one_channel(slides):
    path = slides["tifffile-gray_deflate"]
    ref = tifffile_levels(path)[1]
    with ndimg.io.Slide(path) as s:
        raw = s.to_dask(1, channels="raw")
        assert raw.shape == ref.shape and raw.shape[-1] == 1
        np.testing.assert_array_equal(raw.compute(), ref)


def test_cuimage_to_dask_is_rgb(slides):
    path = slides["vips-deflate"]
    ref = tifffile_levels(path)
    with ndimg.io.CuImage(path) as img:
        a = img.to_dask(1)
        assert a.shape[-1] == 3
        np.testing.assert_array_equal(a.compute(), ref[1])
        np.testing.assert_array_equal(zarr.open_array(img.zarr_store(2), mode="r")[:], ref[2])


# ------------------------------------------------------------------------------------------- zarr

@pytest.mark.parametrize("name", ["tifffile-jpeg", "tifffile-odd_tiles_lzw", "vips-jpeg", "vips-lzw"])
def test_zarr_pyramid_matches_tifffile(slides, name):
    path = slides[name]
    refs = tifffile_levels(path)
    with ndimg.io.Slide(path) as s:
        g = zarr.open_group(s.zarr_store(), mode="r")
        assert sorted(g.array_keys(), key=int) == [str(i) for i in range(len(refs))]
        datasets = g.attrs["multiscales"][0]["datasets"]
        for level, ref in enumerate(refs):
            z = g[str(level)]
            assert z.shape == ref.shape[:2] + (4,) and z.dtype == np.uint8
            assert datasets[level]["path"] == str(level)
            scale = datasets[level]["coordinateTransformations"][0]["scale"]
            assert scale == pytest.approx([refs[0].shape[0] / ref.shape[0], refs[0].shape[1] / ref.shape[1], 1])
            assert_close(z[:], as_channels(ref, "RGBA"), tol_of(name))
            # a region inside one tile and one across tiles
            assert_close(z[3:40, 250:300, :3], ref[3:40, 250:300], tol_of(name))
        assert g.attrs["ndimg"]["properties"]["openslide.level-count"] == str(len(refs))


def test_zarr_level_store_and_dask_from_zarr(slides):
    path = slides["vips-deflate"]
    ref = tifffile_levels(path)[0]
    with ndimg.io.Slide(path) as s:
        store = s.zarr_store(0, channels="RGB")
        z = zarr.open_array(store, mode="r")
        assert z.chunks == (256, 256, 3) and z.metadata.dimension_names == ("y", "x", "c")
        assert z.metadata.codecs[0].to_dict()["name"] == "bytes" and len(z.metadata.codecs) == 1
        np.testing.assert_array_equal(z[:], ref)
        np.testing.assert_array_equal(da.from_zarr(z).compute(), ref)
        np.testing.assert_array_equal(zarr.open_array(s.zarr_store(0, channels="RGB", chunks=1024), mode="r")[:], ref)
        huge = zarr.open_array(s.zarr_store(0, channels="RGB", chunks=10 ** 9), mode="r")  # clipped to the level
        assert huge.chunks == ref.shape
        np.testing.assert_array_equal(huge[:], ref)
        grouped = da.from_zarr(s.zarr_store(channels="RGB"), component="1")
        np.testing.assert_array_equal(grouped.compute(), tifffile_levels(path)[1])


def test_zarr_store_is_read_only_and_lists_its_keys(slides):
    import asyncio
    from zarr.abc.store import OffsetByteRequest, RangeByteRequest, SuffixByteRequest
    from zarr.core.buffer import default_buffer_prototype

    path = slides["tifffile-deflate"]  # 2000 x 1500, tiles 256: 8 x 6 chunks at level 0
    ref = as_channels(tifffile_levels(path)[0], "RGB")
    with ndimg.io.Slide(path) as s:
        store = s.zarr_store(0, channels="RGB")
        proto = default_buffer_prototype()

        async def run():
            keys = [k async for k in store.list()]
            assert len(keys) == 1 + 8 * 6 and "zarr.json" in keys and "c/5/7/0" in keys
            assert sorted([k async for k in store.list_dir("")]) == ["c", "zarr.json"]
            assert await store.exists("c/5/7/0") and not await store.exists("c/6/0/0")
            assert await store.get("c/0/8/0", proto) is None and await store.get("nothing", proto) is None
            tile = (await store.get("c/1/2/0", proto)).to_bytes()
            assert len(tile) == await store.getsize("c/1/2/0") == 256 * 256 * 3
            np.testing.assert_array_equal(np.frombuffer(tile, np.uint8).reshape(256, 256, 3),
                                          ref[256:512, 512:768])
            part = (await store.get("c/1/2/0", proto, RangeByteRequest(6, 30))).to_bytes()
            assert part == tile[6:30]
            assert (await store.get("c/1/2/0", proto, SuffixByteRequest(9))).to_bytes() == tile[-9:]
            assert (await store.get("c/1/2/0", proto, OffsetByteRequest(7))).to_bytes() == tile[7:]
            assert (await store.get("zarr.json", proto, RangeByteRequest(0, 5))).to_bytes() == b'{\n "z'
            got = await store.get_partial_values(proto, [("c/1/2/0", RangeByteRequest(1, 4)), ("c/9/9/0", None)])
            assert got[0].to_bytes() == tile[1:4] and got[1] is None
            # the edge chunk is whole, zero past the level
            edge = np.frombuffer((await store.get("c/5/7/0", proto)).to_bytes(), np.uint8).reshape(256, 256, 3)
            np.testing.assert_array_equal(edge[:1500 - 1280, :2000 - 1792], ref[1280:, 1792:])
            assert not edge[1500 - 1280:].any() and not edge[:, 2000 - 1792:].any()
            with pytest.raises(ValueError):
                await store.set("c/0/0/0", proto.buffer.from_bytes(b"x"))

        asyncio.run(run())
        assert store.read_only and not store.supports_writes
        with pytest.raises(ValueError):
            zarr.open_array(store, mode="r")[0, 0] = 1


# -------------------------------------------------------------------------------------- pickling

def test_pickle_round_trips(slides, monkeypatch):
    path = slides["vips-jpeg"]
    monkeypatch.chdir(os.path.dirname(path))
    s = ndimg.io.Slide(os.path.basename(path))  # a relative path pickles as absolute (workers' directories differ)
    data = pickle.dumps(s)
    monkeypatch.chdir("/")
    s2 = pickle.loads(data)
    assert type(s2) is ndimg.io.Slide and s2._core is not s._core and s2.level_dimensions == s.level_dimensions
    np.testing.assert_array_equal(s2.read_region((10, 20), 1, (300, 200)), s.read_region((10, 20), 1, (300, 200)))
    img = pickle.loads(pickle.dumps(ndimg.io.CuImage(path)))
    assert type(img) is ndimg.io.CuImage and img.is_loaded
    s2.close()
    closed = pickle.loads(pickle.dumps(s2))
    with pytest.raises(SlideError, match="closed"):
        closed.read_region((0, 0), 0, (1, 1))
    c = ndimg.io.CuImage(path)
    c.close()
    assert not pickle.loads(pickle.dumps(c)).is_loaded
    with ndimg.io.Slide(path) as s:
        a = s.to_dask(1, channels="RGB")
        np.testing.assert_array_equal(pickle.loads(pickle.dumps(a)).compute(), a.compute())
        store = pickle.loads(pickle.dumps(s.zarr_store(channels="RGB")))
        assert_close(zarr.open_group(store, mode="r")["2"][:], tifffile_levels(path)[2], 2)


def test_spawned_processes_read_pickled_slides(slides):
    """A Slide, CuImage and Dask array go to processes started with "spawn" (PyTorch DataLoader workers'
    start method) and read there."""
    path = slides["vips-deflate"]
    refs = tifffile_levels(path)
    s = ndimg.io.Slide(path)
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        regions = pool.starmap(ndimg.io.Slide.read_region, [(s, (0, 0), 1, (400, 300)), (s, (512, 0), 0, (100, 50))])
        arrays = pool.map(np.asarray, [s.to_dask(2, channels="RGB"), ndimg.io.CuImage(path).to_dask(1)])
    np.testing.assert_array_equal(regions[0][..., :3], refs[1][:300, :400])
    np.testing.assert_array_equal(regions[1][..., :3], refs[0][:50, 512:612])
    np.testing.assert_array_equal(arrays[0], refs[2])
    np.testing.assert_array_equal(arrays[1], refs[1])


_INHERITED = {}  # what forked children use as they inherited it (not pickled)


def _sum_of_inherited(key):
    return int(_INHERITED[key][:].sum(dtype=np.uint64))


def test_forked_children_read_a_store_used_before_the_fork(slides):
    """A forked child (multiprocessing's default on Linux, DataLoader workers) inherits the store's thread
    pool without its threads: the store makes its own there instead of queueing work nobody runs."""
    path = slides["vips-deflate"]
    ref = tifffile_levels(path)[1]
    z = zarr.open_array(ndimg.io.Slide(path).zarr_store(1, channels="RGB", num_workers=2), mode="r")
    np.testing.assert_array_equal(z[:], ref)
    _INHERITED["z"] = z
    try:
        with multiprocessing.get_context("fork").Pool(2) as pool:
            sums = pool.map_async(_sum_of_inherited, ["z", "z"]).get(timeout=30)
    finally:
        _INHERITED.clear()
    assert sums == [int(ref.sum(dtype=np.uint64))] * 2


def test_distributed_process_workers(slides, tmp_path):
    distributed = pytest.importorskip("distributed")
    path = slides["vips-jpeg"]
    refs = tifffile_levels(path)
    bad = str(tmp_path / "bad.tif")
    corrupt_tile(write_pyramid(bad, refs[0][:300, :400].copy(), tile=(128, 128), compression="jpeg"), 1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  worker_dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        with ndimg.io.Slide(path) as s:
            a = s.to_dask(0, channels="RGB", chunks=512)
            assert_close(client.compute(a).result(), refs[0], 2)
            z = da.from_zarr(s.zarr_store(1, channels="RGB"))
            assert_close(client.compute(z).result(), refs[1], 2)
        with ndimg.io.Slide(bad) as s:
            with pytest.raises(SlideError, match=r"bad\.tif: level 0, tile \(column 1, row 0\)"):
                client.compute(s.to_dask(0, chunks=128)).result()


# ------------------------------------------------------------------------------------- bad input

def corrupt_tile(path, index):
    """Zero a JPEG tile of level 0 past its first two bytes."""
    with tifffile.TiffFile(path) as t:
        off, count = t.pages[0].dataoffsets[index], t.pages[0].databytecounts[index]
    with open(path, "r+b") as f:
        f.seek(off + 2)
        f.write(b"\x00" * (count - 2))
    return path


@pytest.fixture
def small_jpeg(tmp_path, slide_image):
    """A JPEG pyramid of 400x300, 200x150, 100x75 in tiles of 128x128."""
    return write_pyramid(str(tmp_path / "small.tif"), slide_image[:300, :400].copy(), tile=(128, 128),
                         compression="jpeg")


def test_corrupt_tile_fails_at_compute_naming_it(small_jpeg):
    ref = tifffile_levels(small_jpeg)[0]
    corrupt_tile(small_jpeg, 1)  # column 1, row 0
    with ndimg.io.Slide(small_jpeg) as s:
        a = s.to_dask(0, channels="RGB")  # one chunk of 3 x 4 tiles: creating it reads nothing
        message = r"small\.tif: level 0, tile \(column 1, row 0\) at pixels y 0:128, x 128:256: corrupt JPEG"
        with pytest.raises(SlideError, match=message):
            a.compute()
        tiles = s.to_dask(0, channels="RGB", chunks=128)
        with pytest.raises(SlideError, match=message):
            tiles.compute()
        assert_close(tiles[:, :128].compute(), ref[:, :128], 2)  # the other chunks still read
        assert_close(tiles[128:, 128:].compute(), ref[128:, 128:], 2)
        z = zarr.open_array(s.zarr_store(0), mode="r")
        with pytest.raises(SlideError, match=message):
            z[:]
        assert_close(z[:, 256:, :3], ref[:, 256:], 2)  # chunks of 2 x 2 tiles (tiles under 256 are grouped)


def test_bad_arguments(small_jpeg):
    with ndimg.io.Slide(small_jpeg) as s:
        for level in (3, -1):
            with pytest.raises(ValueError, match="out of range"):
                s.to_dask(level)
            with pytest.raises(ValueError, match="out of range"):
                s.zarr_store(level)
        for level in (1.0, "0", None, True):
            with pytest.raises(TypeError, match="level must be an integer"):
                s.to_dask(level)
        with pytest.raises(ValueError, match="channels must be one of"):
            s.to_dask(0, channels="rgb")
        with pytest.raises(ValueError, match="channels must be one of"):
            s.zarr_store(channels="BGR")
        for chunks in (0, (0, 5), (-1, 3), "auto", (1, 2, 3), 1.5):
            with pytest.raises(ValueError, match="chunks must be"):
                s.to_dask(0, chunks=chunks)
        for n in (0, -2, 1.5, True):
            with pytest.raises(ValueError, match="num_workers"):
                s.zarr_store(num_workers=n)
        with pytest.raises(TypeError, match="integers and slices"):
            LevelArray(s, 0)[[1, 2]]
    # closed: at creation, and at compute for a view made before closing
    s = ndimg.io.Slide(small_jpeg)
    a, store = s.to_dask(1), s.zarr_store(2)
    s.close()
    with pytest.raises(SlideError, match="closed"):
        s.to_dask(0)
    with pytest.raises(SlideError, match=r"small\.tif: level 1, .*the slide is closed"):
        a.compute()
    with pytest.raises(SlideError, match="closed"):
        zarr.open_array(store, mode="r")[:]


def test_missing_dask_or_zarr_is_a_clear_import_error(small_jpeg, monkeypatch):
    for name in ("dask", "dask.array", "dask.base", "zarr", "zarr.abc", "zarr.abc.store", "zarr.core.buffer"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "ndimg.io._zarr", raising=False)
    with ndimg.io.Slide(small_jpeg) as s:
        with pytest.raises(ImportError, match="to_dask needs Dask"):
            s.to_dask(0)
        with pytest.raises(ImportError, match="zarr_store needs zarr 3"):
            s.zarr_store()

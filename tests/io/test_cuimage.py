"""ndimg.io.CuImage (cuCIM's API): every read path gives Slide.read_region's RGB pixels; batching, shuffle,
drop_last, workers, bad arguments, and iterators dropped early."""
import gc
import os
import pickle
import sys
import time

import numpy as np
import pytest
import tifffile

import ndimg.io
from helpers_io import expected_region
from ndimg.io import CuImage, Slide, SlideError

NAMES = ["jpeg", "lzw_predictor", "odd_tiles_lzw", "gray_deflate", "subifds_zstd"]


def cucim_corner(slide, level, v):
    """cuCIM's level coordinate for level-0 coordinate v (its tiff.cpp: `location /= downsample` on an int64,
    the downsample a float, the mean of the level-size ratios in float), truncated toward zero."""
    (w0, h0), (w, h) = slide.dimensions, slide.level_dimensions[level]
    ds = (np.float32(w0) / np.float32(w) + np.float32(h0) / np.float32(h)) / np.float32(2)
    return int(np.float32(v) / ds)


_levels = {}


def slide_rgb(slide, location, level, size):
    """What cuCIM reads at `location`: the level's pixels (Slide's, read from a whole-pixel corner) from
    cuCIM's level coordinates on (Slide itself blends where OpenSlide's corner falls between pixels)."""
    key = (slide._filename, level)
    if key not in _levels:
        _levels[key] = slide.read_region((0, 0), level, slide.level_dimensions[level])[..., :3]
    lx, ly = (cucim_corner(slide, level, v) for v in location)
    return expected_region(_levels[key], lx, ly, *size)[..., :3]


def random_locations(rng, slide, n, margin=100):
    w0, h0 = slide.dimensions
    return [(int(rng.integers(-margin, w0)), int(rng.integers(-margin, h0))) for _ in range(n)]


@pytest.fixture(params=NAMES)
def path(request, tifffile_slides):
    return tifffile_slides[request.param]


@pytest.mark.parametrize("num_workers", [0, 1, 3])
def test_region_matches_slide(path, num_workers):
    with CuImage(path) as img, Slide(path) as s:
        for level in range(s.level_count):
            w, h = s.level_dimensions[level]
            ds = s.level_downsamples[level]
            for (x, y), size in [((0, 0), (w, h)), ((-37, -5), (301, 77)), ((int(ds * (w - 100)), int(ds * (h - 33))), (250, 90)),
                                 ((13, 29), (1, 1)), ((-5000, 10 ** 7), (20, 10))]:
                got = img.read_region((x, y), size, level, num_workers=num_workers)
                assert got.dtype == np.uint8 and got.shape == (size[1], size[0], 3) and got.flags.c_contiguous
                np.testing.assert_array_equal(got, slide_rgb(s, (x, y), level, size))


def test_whole_level(path):
    with CuImage(path) as img, Slide(path) as s:
        for level in range(s.level_count):
            expected = slide_rgb(s, (0, 0), level, s.level_dimensions[level])
            for num_workers in (0, 1, 4):
                np.testing.assert_array_equal(img.read_region(level=level, num_workers=num_workers), expected)


def test_default_region(tifffile_slides):
    path = tifffile_slides["jpeg"]
    with CuImage(path) as img, Slide(path) as s:
        # the default is the whole of level 0; a location without size reads a level-sized region there
        np.testing.assert_array_equal(img.read_region(num_workers=2), slide_rgb(s, (0, 0), 0, s.dimensions))
        np.testing.assert_array_equal(img.read_region((64, 32), level=1),
                                      slide_rgb(s, (64, 32), 1, s.level_dimensions[1]))


def as_list(xy):
    return [tuple(p) for p in xy]


LOCATION_KINDS = {
    "list": as_list,
    "tuple_of_lists": lambda xy: tuple(list(p) for p in xy),
    "int32_array": lambda xy: np.asarray(xy, np.int32),
    "int64_array": lambda xy: np.asarray(xy, np.int64),
    "generator": lambda xy: (p for p in as_list(xy)),
}


@pytest.mark.parametrize("kind", list(LOCATION_KINDS))
def test_batches_match_slide(tifffile_slides, kind, rng):
    path = tifffile_slides["jpeg"]
    with CuImage(path) as img, Slide(path) as s:
        for level in (0, 1):
            xy = random_locations(rng, s, 11)
            it = img.read_region(LOCATION_KINDS[kind](xy), (64, 48), level, num_workers=2, batch_size=4)
            assert len(it) == 3
            batches = list(it)
            assert [b.shape for b in batches] == [(4, 48, 64, 3), (4, 48, 64, 3), (3, 48, 64, 3)]
            np.testing.assert_array_equal(it.locations, np.asarray(xy))
            got = np.concatenate(batches)
            for patch, loc in zip(got, xy):
                np.testing.assert_array_equal(patch, slide_rgb(s, loc, level, (64, 48)))


def test_batch_size_one_yields_patches(tifffile_slides, rng):
    path = tifffile_slides["lzw_predictor"]
    with CuImage(path) as img, Slide(path) as s:
        xy = random_locations(rng, s, 5)
        patches = list(img.read_region(xy, (30, 20), num_workers=2))
        assert len(patches) == 5
        for patch, loc in zip(patches, xy):
            assert patch.shape == (20, 30, 3)
            np.testing.assert_array_equal(patch, slide_rgb(s, loc, 0, (30, 20)))
        # as in cuCIM: one location (even in a list) with batch_size 1 is one region; batch_size > 1 iterates
        one = img.read_region([xy[0]], (30, 20), num_workers=2)
        np.testing.assert_array_equal(one, slide_rgb(s, xy[0], 0, (30, 20)))
        (batch,) = list(img.read_region(xy[0], (30, 20), batch_size=2))
        assert batch.shape == (1, 20, 30, 3)
        # no locations: an empty iterator
        assert list(img.read_region(np.zeros((0, 2), np.int64), (30, 20), batch_size=2)) == []


def test_shuffle(tifffile_slides, rng):
    path = tifffile_slides["jpeg"]
    xy = [(int(x), int(y)) for x, y in zip(rng.integers(0, 1800, 40), rng.integers(0, 1300, 40))]
    with CuImage(path) as img, Slide(path) as s:
        def run(seed, workers=2):
            it = img.read_region(xy, (32, 32), num_workers=workers, batch_size=8, shuffle=True, seed=seed)
            return it.locations, np.concatenate(list(it))

        loc_a, a = run(7)
        loc_b, b = run(7, workers=3)
        loc_c, _ = run(8)
        np.testing.assert_array_equal(loc_a, loc_b)
        np.testing.assert_array_equal(a, b)
        assert sorted(map(tuple, loc_a.tolist())) == sorted(xy)  # a permutation
        assert loc_a.tolist() != [list(p) for p in xy] and loc_a.tolist() != loc_c.tolist()
        for patch, loc in zip(a, loc_a):
            np.testing.assert_array_equal(patch, slide_rgb(s, tuple(loc), 0, (32, 32)))


@pytest.mark.parametrize("drop_last, shapes", [(True, [3, 3]), (False, [3, 3, 1])])
def test_drop_last(tifffile_slides, rng, drop_last, shapes):
    path = tifffile_slides["deflate"]
    with CuImage(path) as img, Slide(path) as s:
        xy = random_locations(rng, s, 7)
        it = img.read_region(xy, (16, 16), num_workers=2, batch_size=3, drop_last=drop_last)
        assert len(it) == len(shapes)
        batches = list(it)
        assert [len(b) for b in batches] == shapes
        for patch, loc in zip(np.concatenate(batches), xy):
            np.testing.assert_array_equal(patch, slide_rgb(s, loc, 0, (16, 16)))


def test_workers_and_prefetch_agree(tifffile_slides, rng):
    path = tifffile_slides["jpeg"]
    with CuImage(path) as img:
        xy = np.asarray(random_locations(rng, img._slide, 30))
        runs = [np.concatenate(list(img.read_region(xy, (100, 70), 1, num_workers=nw, batch_size=4,
                                                    prefetch_factor=pf)))
                for nw, pf in [(0, 2), (1, 2), (4, 2), (4, 0), (3, 7)]]
        for r in runs[1:]:
            np.testing.assert_array_equal(r, runs[0])


def test_aperio_description(aperio_slide):
    with CuImage(aperio_slide) as img, Slide(aperio_slide) as s:
        assert img.resolutions == {"level_count": 2, "level_dimensions": s.level_dimensions,
                                   "level_downsamples": s.level_downsamples,
                                   "level_tile_sizes": ((256, 256), (256, 256))}
        w, h = s.dimensions
        assert img.shape == [h, w, 3] and img.size("XY") == [w, h] and img.size() == [h, w, 3]
        assert img.dims == "YXC" and img.ndim == 3 and img.channel_names == ["R", "G", "B"]
        assert img.dtype == np.uint8 and img.device == "cpu"
        assert img.associated_images == set(s.associated_images)
        for name in s.associated_images:
            np.testing.assert_array_equal(img.associated_image(name), np.asarray(s.associated_images[name])[..., :3])
        md = img.metadata
        assert md["aperio"]["MPP"] == "0.4990" and md["openslide"]["vendor"] == "aperio"
        assert md["cucim"]["resolutions"] == img.resolutions and md["cucim"]["shape"] == img.shape
        assert img.raw_metadata == s.properties["tiff.ImageDescription"]
        with pytest.raises(ValueError):
            img.associated_image("nope")
        copy = pickle.loads(pickle.dumps(img))
        np.testing.assert_array_equal(copy.read_region((5, 5), (40, 40)), img.read_region((5, 5), (40, 40)))


def test_spacing_from_resolution(tmp_path, slide_image):
    path = str(tmp_path / "res.tif")
    tifffile.imwrite(path, slide_image[:256, :256], tile=(128, 128), resolution=(2000, 4000),
                     resolutionunit="CENTIMETER")
    with CuImage(path) as img:
        assert img.spacing() == pytest.approx([2.5, 5.0, 1.0])
        assert img.spacing("XY") == pytest.approx([5.0, 2.5])
        assert img.spacing_units() == ["micrometer", "micrometer", "color"]
        with pytest.raises(ValueError):
            img.spacing("Z")


@pytest.mark.parametrize("kwargs", [
    dict(location=(0, 0), size=(-1, 5)), dict(location=(0, 0), size=(0, 5)), dict(location=(0, 0), size=(5,)),
    dict(location=(0, 0), size=(5, 5), level=99), dict(location=(0, 0), size=(5, 5), level=-1),
    dict(location=(0, 0), size=(5, 5), batch_size=0), dict(location=[(0, 0)], size=(5, 5), num_workers=-1),
    dict(location=[(0, 0), (1, 1)], size=(5, 5), prefetch_factor=-1),
    dict(location=np.zeros((3, 3), np.int64), size=(5, 5)), dict(location=[0, 1, 2, 3], size=(5, 5)),
    dict(location=np.zeros((2, 2, 2), np.int64), size=(5, 5)), dict(location=[(0.5, 1.0)], size=(5, 5)),
    dict(location=[(0, 0), (1, 2, 3)], size=(5, 5)), dict(location=(0, 0), size=(5, 5), device="tpu"),
    dict(location=(2 ** 62, 0), size=(5, 5)), dict(location=[(0, 0), (0, -2 ** 62)], size=(5, 5)),
    dict(location=(0, 0), size=(2 ** 62, 5)), dict(location=(0, 0), size=(5, 5), seed=-1),
    dict(location=(0, 0), size=(5, 5), prefetch_factor=-1), dict(location=(0, 0), size=(5, 5), level=True),
])
def test_bad_arguments(tifffile_slides, kwargs):
    with CuImage(tifffile_slides["deflate"]) as img:
        with pytest.raises(ValueError):
            img.read_region(**kwargs)


def test_per_patch_call_matches_general_path(tifffile_slides, rng):
    # (x, y) and (w, h) tuples of ints take a short path; other spellings of the same call take the general one
    with CuImage(tifffile_slides["jpeg"]) as img, Slide(tifffile_slides["jpeg"]) as slide:
        for x, y in random_locations(rng, slide, 6):
            want = slide_rgb(slide, (x, y), 1, (37, 21))
            for loc, size, level, extra in (((x, y), (37, 21), 1, {}), ([x, y], [37, 21], 1, {}),
                                            ((np.int64(x), np.int32(y)), (np.int64(37), 21), np.int64(1), {}),
                                            ((x, y), (37, 21), 1, dict(device=None))):
                got = img.read_region(loc, size, level, **extra)
                assert got.shape == (21, 37, 3) and got.dtype == np.uint8
                np.testing.assert_array_equal(got, want)


def test_closed_and_missing(tifffile_slides, tmp_path):
    with pytest.raises(FileNotFoundError):
        CuImage(str(tmp_path / "missing.tif"))
    img = CuImage(tifffile_slides["deflate"])
    it = img.read_region([(0, 0), (10, 10), (20, 20)], (8, 8), num_workers=1)
    img.close()
    assert not img.is_loaded
    with pytest.raises(SlideError):
        img.read_region((0, 0), (8, 8))
    assert len(list(it)) == 3  # an iterator made before close keeps reading


def test_corrupt_tile_raises_at_its_batch(tmp_path, slide_image):
    from helpers_io import write_pyramid
    path = write_pyramid(str(tmp_path / "c.tif"), slide_image[:512, :512].copy(), levels=1, tile=(128, 128),
                         compression="jpeg")
    with tifffile.TiffFile(path) as t:
        offset, count = t.pages[0].dataoffsets[5], t.pages[0].databytecounts[5]  # tile (1, 1)
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(b"\xff\xd8" + bytes(count - 2))
    with CuImage(path) as img:
        it = img.read_region([(0, 0), (10, 0), (150, 150), (300, 300)], (16, 16), num_workers=2, batch_size=2)
        assert next(it).shape == (2, 16, 16, 3)
        with pytest.raises(SlideError):
            next(it)
        assert list(it) == []
        assert img.read_region((300, 300), (16, 16)).shape == (16, 16, 3)  # still usable
        # one worker takes the whole batch as one run of patches: the bad one's error still reaches the batch
        it = img.read_region([(0, 0), (150, 150), (10, 0), (300, 300)], (16, 16), num_workers=1, batch_size=4)
        with pytest.raises(SlideError):
            next(it)
        assert list(it) == []


def os_threads():
    return len(os.listdir("/proc/self/task"))


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads in /proc")
def test_dropped_iterators_stop_and_free(tifffile_slides, rng):
    path = tifffile_slides["jpeg"]
    with CuImage(path) as img:
        xy = np.asarray(random_locations(rng, img._slide, 64))
        img.read_region(xy[:1], (8, 8))  # start ndimg's thread pool before the baseline
        baseline = os_threads()
        it = img.read_region(xy, (128, 128), num_workers=4, batch_size=8, prefetch_factor=3)
        next(it)
        assert os_threads() == baseline + 4
        del it
        assert os_threads() == baseline
        for batch in img.read_region(xy, (128, 128), num_workers=3, batch_size=8):
            break
        del batch
        gc.collect()
        assert os_threads() == baseline

        def drop_many(n):
            for _ in range(n):
                it = img.read_region(xy, (128, 128), num_workers=2, batch_size=8, prefetch_factor=2)
                next(it)
                del it

        drop_many(20)  # warm up the allocator
        before = rss()
        drop_many(150)
        # each leaked iterator would keep up to 3 batches of 393 KiB (about 175 MiB in all)
        assert rss() - before < 40 << 20
        deadline = time.monotonic() + 5
        while os_threads() != baseline and time.monotonic() < deadline:
            time.sleep(0.01)
        assert os_threads() == baseline


def test_progress_bar(tifffile_slides, capsys):
    pytest.importorskip("tqdm")
    with CuImage(tifffile_slides["deflate"]) as img:
        whole = img.read_region(num_workers=2, progress=True)
        np.testing.assert_array_equal(whole, img.read_region())
        assert "100%" in capsys.readouterr().err
        batches = list(img.read_region([(0, 0)] * 10, (8, 8), batch_size=2, num_workers=1, progress=True))
        assert len(batches) == 5
        assert "5/5" in capsys.readouterr().err


def test_progress_without_tqdm(tifffile_slides, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    with CuImage(tifffile_slides["deflate"]) as img:
        with pytest.raises(ImportError, match="tqdm"):
            img.read_region(progress=True)
        with pytest.raises(ImportError, match="tqdm"):
            img.read_region([(0, 0), (1, 1)], (8, 8), progress=True)
        assert img.read_region((0, 0), (8, 8)).shape == (8, 8, 3)


def test_exported():
    assert ndimg.io.CuImage is CuImage


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_iterator_in_forked_child(tifffile_slides):
    """A child forked while an iterator runs can drop its copy (no workers to join there) and a batch it
    holds (its buffer is freed there, not given back to the parent's pool), and still read."""
    with CuImage(tifffile_slides["jpeg"]) as img:
        xy = [(x, x) for x in range(0, 1400, 50)]
        it = img.read_region(xy, (64, 64), num_workers=3, batch_size=2)
        first = next(it)
        pid = os.fork()
        if pid == 0:  # the child: only os._exit leaves it
            code = 1
            try:
                try:
                    next(it)
                except SlideError:
                    pass
                except RuntimeError as e:
                    code = 0 if "forked" in str(e) else 3
                del it, first
                gc.collect()
                if img.read_region((5, 5), (64, 64)).shape != (64, 64, 3):
                    code = 4
            finally:
                os._exit(code)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.02)
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung")
        assert os.waitstatus_to_exitcode(status) == 0
        assert sum(len(b) for b in it) == len(xy) - 2  # the parent's iterator is unaffected


@pytest.mark.parametrize("num_workers", [0, 3])
def test_iterator_shared_by_threads(tifffile_slides, num_workers):
    """Threads pulling from one iterator get every batch exactly once."""
    from concurrent.futures import ThreadPoolExecutor
    path = tifffile_slides["jpeg"]
    xy = [(x, y) for x in range(0, 1900, 150) for y in range(0, 1400, 150)]
    with CuImage(path) as img, Slide(path) as s:
        it = img.read_region(xy, (40, 40), num_workers=num_workers, batch_size=1, prefetch_factor=1)
        with ThreadPoolExecutor(4) as pool:
            got = [p for chunk in pool.map(lambda _: list(it), range(4)) for p in chunk]
        assert len(got) == len(xy)
        expected = {slide_rgb(s, loc, 0, (40, 40)).tobytes() for loc in xy}
        assert {p.tobytes() for p in got} == expected

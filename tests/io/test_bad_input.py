"""Corrupt and unsupported files give SlideError (bad arguments ValueError), never a crash, and a slide
whose tile failed stays usable."""
import struct

import numpy as np
import pytest
import tifffile

import ndimg.io
from ndimg.io import SlideError
from helpers_io import assert_pixels, expected_region


def patch(path, offset, fmt, value):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(struct.pack("<" + fmt, value))


def tag_location(path, page, name):
    """(file offset of the value, struct code, count) of a tag of a classic little-endian TIFF."""
    with tifffile.TiffFile(path) as t:
        tag = t.pages[page].tags[name]
        code = {1: "B", 3: "H", 4: "I", 16: "Q"}[int(tag.dtype)]
        return tag.valueoffset, code, tag.count


@pytest.fixture
def small_tiff(tmp_path, slide_image):
    """A JPEG pyramid of 3 levels: 400x300, 200x150, 100x75 (tiles 128x128)."""
    from helpers_io import write_pyramid
    return write_pyramid(str(tmp_path / "small.tif"), slide_image[:300, :400].copy(), tile=(128, 128),
                         compression="jpeg")


def reference(path, page=0):
    with tifffile.TiffFile(path) as t:
        return t.pages[page].asarray()


def assert_still_reads(ref, s, x, y, w, h):
    assert_pixels(s.read_region((x, y), 0, (w, h)), expected_region(ref, x, y, w, h), 2)


def test_ifd_loop(small_tiff):
    with tifffile.TiffFile(small_tiff) as t:
        last, first = t.pages[-1], t.pages[0]
        next_ptr = last.offset + 2 + 12 * len(last.tags)
        first_offset = first.offset
    patch(small_tiff, next_ptr, "I", first_offset)
    with pytest.raises(SlideError, match="loop"):
        ndimg.io.Slide(small_tiff)


def test_ifd_offset_past_end(small_tiff):
    with tifffile.TiffFile(small_tiff) as t:
        last = t.pages[-1]
        next_ptr = last.offset + 2 + 12 * len(last.tags)
    patch(small_tiff, next_ptr, "I", 10 ** 9)
    with pytest.raises(SlideError, match="truncated"):
        ndimg.io.Slide(small_tiff)


def test_tile_offset_past_end_then_usable(small_tiff):
    ref = reference(small_tiff)
    off, code, _ = tag_location(small_tiff, 0, "TileOffsets")
    patch(small_tiff, off, code, 10 ** 9)  # tile (0, 0) of level 0
    with ndimg.io.Slide(small_tiff) as s:
        for _ in range(2):
            with pytest.raises(SlideError):
                s.read_region((10, 10), 0, (50, 50))
        assert_still_reads(ref, s, 130, 0, 200, 128)


def test_corrupt_jpeg_tile_then_usable(small_tiff):
    ref = reference(small_tiff)
    with tifffile.TiffFile(small_tiff) as t:
        page = t.pages[0]
        off, count = page.dataoffsets[1], page.databytecounts[1]
    with open(small_tiff, "r+b") as f:
        f.seek(off + 2)
        f.write(b"\x00" * (count - 2))
    with ndimg.io.Slide(small_tiff) as s:
        with pytest.raises(SlideError, match="JPEG"):
            s.read_region((130, 0), 0, (20, 20))
        assert_still_reads(ref, s, 0, 0, 128, 300)


def test_truncated_file(small_tiff, tmp_path, slide_image):
    data = open(small_tiff, "rb").read()
    cut = str(tmp_path / "cut.tif")
    open(cut, "wb").write(data[: len(data) // 2])
    with pytest.raises(SlideError):
        ndimg.io.Slide(cut)  # later directories lie past the end
    # one level only: the directory survives, the tiles past the cut fail and the others still read
    one = str(tmp_path / "one.tif")
    tifffile.imwrite(one, slide_image[:300, :400], tile=(128, 128), compression="deflate")
    data, ref = open(one, "rb").read(), reference(one)
    with tifffile.TiffFile(one) as t:
        page = t.pages[0]
        last_tile = int(page.dataoffsets[-1])
    open(one, "wb").write(data[: last_tile + 10])
    with ndimg.io.Slide(one) as s:
        with pytest.raises(SlideError, match="truncated"):
            s.read_region((0, 0), 0, (400, 300))
        assert_still_reads(ref, s, 0, 0, 384, 128)


@pytest.mark.parametrize("name,value", [("TileWidth", 0), ("TileLength", 0), ("ImageWidth", 0),
                                        ("ImageWidth", "max"), ("ImageLength", "max")])
def test_bad_sizes(small_tiff, name, value):
    off, code, _ = tag_location(small_tiff, 0, name)
    patch(small_tiff, off, code, (1 << (8 * struct.calcsize(code))) - 1 if value == "max" else value)
    with pytest.raises(SlideError):
        ndimg.io.Slide(small_tiff)


def test_absurd_tile_size_allocates_nothing(tmp_path, slide_image):
    path = str(tmp_path / "onetile.tif")
    tifffile.imwrite(path, slide_image[:100, :200], tile=(256, 256), compression="deflate")
    for name in ("TileWidth", "TileLength"):
        off, code, _ = tag_location(path, 0, name)
        patch(path, off, code, 60000)  # still one tile, but 60000x60000x3 decoded bytes
    with ndimg.io.Slide(path) as s:
        with pytest.raises(SlideError, match="too large"):
            s.read_region((0, 0), 0, (10, 10))


def test_unsupported_formats(tmp_path, slide_image):
    text = tmp_path / "notes.txt"
    text.write_text("not a slide at all")
    stripped = str(tmp_path / "stripped.tif")
    tifffile.imwrite(stripped, slide_image[:64, :64])
    for path in (str(text), stripped):
        with pytest.raises(SlideError, match="unsupported format"):
            ndimg.io.Slide(path)
        assert ndimg.io.Slide.detect_format(path) is None
    with pytest.raises(FileNotFoundError):
        ndimg.io.open_slide(str(tmp_path / "missing.svs"))


def test_garbage_never_crashes(small_tiff):
    """Random byte flips in the directories give a slide or SlideError; reads give pixels or SlideError."""
    data = bytearray(open(small_tiff, "rb").read())
    with tifffile.TiffFile(small_tiff) as t:
        spans = [(p.offset, p.offset + 2 + 12 * len(p.tags) + 4) for p in t.pages]
    rng = np.random.default_rng(0)
    for trial in range(60):
        buf = bytearray(data)
        a, b = spans[trial % len(spans)]
        for i in rng.integers(a, b, size=4):
            buf[i] = int(rng.integers(256))
        path = small_tiff + f".{trial}"
        open(path, "wb").write(bytes(buf))
        try:
            s = ndimg.io.Slide(path)
        except SlideError:
            continue
        for level in range(s.level_count):
            try:
                s.read_region((0, 0), level, (64, 64))
            except SlideError:
                pass


def tag_entry(path, page, name):
    """File offset of a tag's 12-byte directory entry (classic little-endian TIFF)."""
    with tifffile.TiffFile(path) as t:
        return t.pages[page].tags[name].offset


def test_tag_with_no_values(small_tiff):
    """fuzz/regressions/tag-count-zero-memcpy-null: a tag whose count is 0 has no data (an ASCII tag reads
    as empty text; a number that is needed is an error, not undefined behaviour)."""
    ref = reference(small_tiff)
    patch(small_tiff, tag_entry(small_tiff, 0, "Software") + 4, "I", 0)
    with ndimg.io.Slide(small_tiff) as s:
        assert s.properties.get("tiff.Software", "") == ""
        assert_still_reads(ref, s, 0, 0, 200, 150)
    patch(small_tiff, tag_entry(small_tiff, 0, "Compression") + 4, "I", 0)
    with pytest.raises(SlideError, match="empty"):
        ndimg.io.Slide(small_tiff)


def test_directories_sharing_data_are_bounded(tmp_path, slide_image):
    """Directories may not read more than about twice the file: copies of one directory that all point at
    one large description would otherwise make a small file demand memory quadratic in its size."""
    path = str(tmp_path / "shared.tif")
    tifffile.imwrite(path, slide_image[:32, :32], tile=(16, 16), description="x" * 100_000, metadata=None)
    with tifffile.TiffFile(path) as t:
        page = t.pages[0]
        first, size = page.offset, 2 + 12 * len(page.tags) + 4
    data = bytearray(open(path, "rb").read())
    ifd = bytes(data[first:first + size])
    copies = 8
    start = len(data) + (len(data) & 1)  # word-aligned
    data += b"\0" * (start - len(data))
    data[first + size - 4:first + size] = struct.pack("<I", start)  # the original links to the first copy
    for i in range(copies):
        nxt = start + (i + 1) * size if i + 1 < copies else 0
        data += ifd[:-4] + struct.pack("<I", nxt)
    open(path, "wb").write(bytes(data))
    with pytest.raises(SlideError, match="more data than the file holds"):
        ndimg.io.Slide(path)
    # two copies stay within the bound and read as a slide (two levels of one size)
    data[first + size - 4 + 0:first + size] = struct.pack("<I", start + (copies - 1) * size)
    open(path, "wb").write(bytes(data))
    with ndimg.io.Slide(path) as s:
        assert s.level_count == 2


def set_entry(path, page, name, type_code, count, value):
    """Rewrites a tag's directory entry (classic little-endian TIFF) with an inline value."""
    entry = tag_entry(path, page, name)
    patch(path, entry + 2, "H", type_code)
    patch(path, entry + 4, "I", count)
    patch(path, entry + 8, "I", value)


def test_width_near_4g_does_not_wrap_the_tile_count(small_tiff):
    """fuzz/regressions/width-wraps-tile-count: a width of 2^32 - 8 made the tile count wrap to 0 in 32 bits,
    so a directory with no tiles passed validation and reads indexed past its (empty) tile list."""
    set_entry(small_tiff, 0, "ImageWidth", 4, 1, 2 ** 32 - 8)
    for name in ("TileOffsets", "TileByteCounts"):
        patch(small_tiff, tag_entry(small_tiff, 0, name) + 4, "I", 0)
    with pytest.raises(SlideError, match="tiles where its size implies"):
        ndimg.io.Slide(small_tiff)


# ------------------------------------------------------------------------------------ issue 22, item 7

def test_batch_too_large_is_memory_error(small_tiff):
    """A batch buffer no machine holds (4096 patches of 2^18 x 2^18 x 3 bytes: 768 TiB, past any machine's memory
    and x86-64's 128 TiB of user address space, below the 2^62 bytes refused up front) is a MemoryError naming
    its size, from the consumer's thread whether background workers or the caller would fill it (workers
    died with an uncaught bad_alloc, aborting the process); nothing stays allocated, the iterator ends and
    the image still reads. In a child process, so that a regression aborts it, not the test run."""
    code = f"""
import numpy as np
from ndimg.io import CuImage
img = CuImage({small_tiff!r})
for workers in (0, 4):
    it = img.read_region([(0, 0)] * 8192, (2 ** 18, 2 ** 18), 0, batch_size=4096, num_workers=workers)
    try:
        next(it)
        raise SystemExit("no error")
    except MemoryError as e:
        assert "844424930131968 bytes" in str(e), e
    assert list(it) == []
    it.close()
# a batch size times patch size past any address space: refused before anything is allocated
try:
    img.read_region([(0, 0)] * 2, (2 ** 20, 2 ** 20), 0, batch_size=2 ** 31, num_workers=1)
    raise SystemExit("no error")
except MemoryError as e:
    assert "too large" in str(e), e
# this process's own peak (VmHWM, KiB): ru_maxrss also counts the parent's memory from before the exec
assert int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) < 1 << 20  # under 1 GiB at any time
assert img.read_region((0, 0), (16, 16)).shape == (16, 16, 3)
assert [b.shape for b in img.read_region([(0, 0)] * 8, (64, 64), 0, batch_size=4, num_workers=2)] == [(4, 64, 64, 3)] * 2
print("ok")
"""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_fifo_and_other_non_regular_files_are_refused(tmp_path):
    """Opening a FIFO for reading waits for a writer: Slide and detect_format blocked forever. Non-regular
    files are refused at once (SlideError, like OpenSlide's unsupported format; detect_format None). In a
    child process with a time limit, so that a regression fails instead of hanging the run."""
    import os
    import subprocess
    import sys
    fifo = str(tmp_path / "slide.svs")
    os.mkfifo(fifo)
    code = f"""
import pytest, ndimg.io
for path in ({fifo!r}, {str(tmp_path)!r}, "/dev/null"):
    for open_ in (ndimg.io.Slide, ndimg.io.CuImage):
        with pytest.raises(ndimg.io.SlideError, match="not a regular file"):
            open_(path)
    assert ndimg.io.Slide.detect_format(path) is None
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


openslide = pytest.importorskip("openslide")


def test_latin1_description_decodes_as_openslide(tmp_path, slide_image):
    """A Latin-1 "µ" (byte 0xB5, not UTF-8) in ImageDescription made properties, get_thumbnail,
    CuImage.metadata and spacing raise UnicodeDecodeError. openslide-python decodes OpenSlide's bytes as
    UTF-8 with each invalid byte replaced (U+FFFD): the same here."""
    path = str(tmp_path / "latin1.svs")
    desc = ("Aperio Image Library v12.0.15 \r\n512x512 [0,0 512x512] (256x256) JPEG/RGB Q=70|AppMag = 20|"
            "MPP = 0.499|Scale = 1 um|Left = 25.69")
    with tifffile.TiffWriter(path) as t:
        t.write(slide_image[:512, :512], tile=(256, 256), compression="jpeg", description=desc, metadata=None)
    data = bytearray(open(path, "rb").read())
    at = data.index(b"1 um|")
    data[at + 2] = 0xB5  # "1 \xb5m"
    open(path, "wb").write(bytes(data))
    with ndimg.io.Slide(path) as s, openslide.OpenSlide(path) as o:
        assert dict(s.properties) == {k: v for k, v in o.properties.items() if k != "openslide.quickhash-1"}
        assert s.properties["aperio.Scale"] == "1 \ufffdm"
        assert s.get_thumbnail((64, 64)).size == o.get_thumbnail((64, 64)).size
    img = ndimg.io.CuImage(path)
    assert img.metadata["aperio"]["Scale"] == "1 \ufffdm"
    assert len(img.spacing()) == 3
    assert "\ufffd" in img.raw_metadata


def write_repeated(path, image, code, first, last, dtype="s"):
    """A tiled TIFF whose directory holds tag `code` twice: `first` then `last` (a DocumentName entry, written
    after the tags below it, renumbered to `code`; so first is tifffile's own entry when code < 269)."""
    kw = dict(description=last) if code == 270 else {}
    tifffile.imwrite(path, image, tile=(256, 256), metadata=None, extratags=[(269, dtype, 1 if dtype != "s" else 0,
                                                                              first if code == 270 else last, True)],
                     **kw)
    with tifffile.TiffFile(path) as t:
        patch(path, t.pages[0].tags["DocumentName"].offset, "H", code)
    return path


APERIO_DESC = "Aperio Image Library v12.0.15 \r\n512x512 [0,0 512x512] (256x256) JPEG/RGB Q=70|AppMag = 20|MPP = 0.5"


@pytest.mark.parametrize("order", ["aperio_first", "aperio_last"])
def test_repeated_description_detects_as_openslide(tmp_path, slide_image, order):
    """A repeated ImageDescription: OpenSlide detects the vendor (and lists tiff.* properties) from its own TIFF
    reader, which keeps the last of a repeated tag; the vendor and properties match it either way round."""
    first, last = (APERIO_DESC, "plain") if order == "aperio_first" else ("plain", APERIO_DESC)
    path = write_repeated(str(tmp_path / f"{order}.tif"), slide_image[:512, :512], 270, first, last)
    with ndimg.io.Slide(path) as s, openslide.OpenSlide(path) as o:
        assert s.properties["openslide.vendor"] == o.properties["openslide.vendor"]
        assert dict(s.properties) == {k: v for k, v in o.properties.items() if k != "openslide.quickhash-1"}
    assert ndimg.io.Slide.detect_format(path) == openslide.OpenSlide.detect_format(path)


def test_repeated_pixel_tag_keeps_the_first_as_libtiff(tmp_path, slide_image):
    """A repeated Photometric (RGB, then YCbCr): libtiff, which decodes OpenSlide's pixels, keeps the first;
    ndimg kept the last and refused the image."""
    img = slide_image[:512, :512].copy()
    path = write_repeated(str(tmp_path / "photometric.tif"), img, 262, None, 6, dtype="H")
    with ndimg.io.Slide(path) as s, openslide.OpenSlide(path) as o:
        got = s.read_region((0, 0), 0, (512, 512))
        np.testing.assert_array_equal(got, np.asarray(o.read_region((0, 0), 0, (512, 512))))
        assert_pixels(got, expected_region(img, 0, 0, 512, 512), 0)

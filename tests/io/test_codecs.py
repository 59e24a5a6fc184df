"""JPEG 2000, WebP, 16-bit samples, predictors and separate planes: ndimg.io against OpenSlide where it
reads the file, else against tifffile (imagecodecs) decoding the same file."""
import shutil
import subprocess

import imagecodecs
import numpy as np
import pytest
import tifffile

import ndimg.io
from helpers_io import APERIO, assert_pixels, expected_region, smooth_rgb

openslide = pytest.importorskip("openslide")


@pytest.fixture(scope="module")
def image():
    return smooth_rgb(np.random.default_rng(55), 600, 800)


def to8(ref, gray=False):
    """libtiff's RGBA reduction of 16-bit samples, which OpenSlide shows: gray v >> 8, colour rounded."""
    if ref.dtype == np.uint8:
        return ref
    return (ref >> 8).astype(np.uint8) if gray else ((ref.astype(np.uint32) + 128) // 257).astype(np.uint8)


def check_tifffile(path, tol, planar=False):
    """Every page of the main chain against tifffile: RGBA, and the raw samples."""
    with tifffile.TiffFile(path) as t:
        refs = [p.asarray() for p in t.pages]
    with ndimg.io.Slide(path) as s:
        assert s.level_count == len(refs)
        for level, ref in enumerate(refs):
            if planar:
                ref = np.moveaxis(ref, 0, -1)
            h, w = ref.shape[:2]
            ds = s.level_downsamples[level]
            raw = s.read_region_raw((0, 0), level, (w, h))
            ref3 = ref if ref.ndim == 3 else ref[..., None]
            assert raw.dtype == ref.dtype and raw.shape == ref3.shape
            assert np.abs(raw.astype(np.int64) - ref3).max() <= tol * (257 if ref.dtype == np.uint16 else 1)
            for x, y, rw, rh in ((0, 0, w, h), (-7, -3, 300, 200), (w - 50, h - 20, 100, 60)):
                got = s.read_region((round(x * ds), round(y * ds)), level, (rw, rh))
                assert_pixels(got, expected_region(to8(ref, ref.ndim == 2), x, y, rw, rh), tol)


def check_openslide(path, tol=0):
    with ndimg.io.Slide(path) as s, openslide.OpenSlide(path) as o:
        assert s.level_dimensions == o.level_dimensions
        for level in range(o.level_count):
            w, h = o.level_dimensions[level]
            ds = int(o.level_downsamples[level])
            got = s.read_region((-3 * ds, -5 * ds), level, (w + 9, h + 11))
            assert_pixels(got, np.asarray(o.read_region((-3 * ds, -5 * ds), level, (w + 9, h + 11))), tol)


def write_levels(path, img, levels=2, **kw):
    kw.setdefault("tile", (128, 128))
    with tifffile.TiffWriter(path, byteorder=kw.pop("byteorder", "<")) as t:
        for i in range(levels):
            lv = img[..., :: 2 ** i, :: 2 ** i] if kw.get("planarconfig") else img[:: 2 ** i, :: 2 ** i]
            t.write(np.ascontiguousarray(lv), subfiletype=1 if i else 0, **kw)
    return path


# ------------------------------------------------------------------------------------- JPEG 2000, WebP

@pytest.mark.parametrize("name,kw,tol", [
    ("j2k_lossless", dict(compression="jpeg2000", compressionargs=dict(level=0)), 0),
    ("j2k_lossy", dict(compression="jpeg2000", compressionargs=dict(level=30)), 2),
    ("webp_lossless", dict(compression="webp", compressionargs=dict(lossless=True)), 0),
    ("webp_lossy", dict(compression="webp", compressionargs=dict(level=80)), 2),
])
def test_tifffile_jpeg2000_webp(tmp_path, image, name, kw, tol):
    check_tifffile(write_levels(str(tmp_path / f"{name}.tif"), image, photometric="rgb", **kw), tol)


def test_webp_rgba_and_16bit_jpeg2000(tmp_path, image, rng):
    alpha = rng.integers(0, 256, image.shape[:2], dtype=np.uint8)
    rgba = np.dstack([image, alpha])
    check_tifffile(write_levels(str(tmp_path / "rgba.tif"), rgba, photometric="rgb", compression="webp",
                                compressionargs=dict(lossless=True), extrasamples=["unassalpha"]), 0)
    img16 = rng.integers(0, 65536, (300, 400, 3), dtype=np.uint16)
    check_tifffile(write_levels(str(tmp_path / "j2k16.tif"), img16, photometric="rgb", compression="jpeg2000",
                                compressionargs=dict(level=0)), 0)


@pytest.mark.parametrize("comp", ["jp2k", "webp"])
def test_vips_jpeg2000_webp(tmp_path, image, comp):
    vips = shutil.which("vips")
    if vips is None:
        pytest.skip("libvips (vips) is not installed")
    src, path = str(tmp_path / "src.tif"), str(tmp_path / f"{comp}.tif")
    tifffile.imwrite(src, image)
    subprocess.run([vips, "tiffsave", src, path, "--tile", "--pyramid", "--tile-width", "256", "--tile-height",
                    "256", "--compression", comp], check=True)
    check_tifffile(path, 2)


def ycbcr(rgb):
    r, g, b = (rgb[..., i].astype(np.float64) for i in range(3))
    y = 0.299 * r + 0.587 * g + 0.114 * b
    cb, cr = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b, 128 + 0.5 * r - 0.418688 * g - 0.081312 * b
    return np.clip(np.round(np.stack([y, cb, cr], -1)), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("comp", [33003, 33005])
def test_aperio_jpeg2000_matches_openslide(tmp_path, image, comp):
    """Aperio SVS whose 240-pixel tiles are J2K codestreams: YCbCr (33003) or RGB with MCT (33005)."""
    def encode(tile):
        if comp == 33003:
            return imagecodecs.jpeg2k_encode(ycbcr(tile), codecformat="J2K", reversible=True, mct=False)
        return imagecodecs.jpeg2k_encode(tile, codecformat="J2K", reversible=True)

    def tiles(a, t=240):
        for r in range(0, a.shape[0], t):
            for c in range(0, a.shape[1], t):
                tile = np.zeros((t, t, 3), np.uint8)
                part = a[r:r + t, c:c + t]
                tile[:part.shape[0], :part.shape[1]] = part
                yield encode(tile)

    path = str(tmp_path / f"{comp}.svs")
    h, w = image.shape[:2]
    with tifffile.TiffWriter(path) as t:
        for i, lv in enumerate((image, image[::4, ::4].copy())):
            t.write(tiles(lv), shape=lv.shape, dtype=np.uint8, tile=(240, 240), compression=comp,
                    photometric="rgb", description=APERIO.format(w=w, h=h), metadata=None)
    check_openslide(path, 0)
    with ndimg.io.Slide(path) as s:  # and close to the image encoded (33003 rounds through YCbCr)
        assert np.abs(s.read_region((0, 0), 0, (w, h))[..., :3].astype(int) - image).max() <= (2 if comp == 33003 else 0)


def test_corrupt_jpeg2000_and_webp_tiles(tmp_path, image):
    for comp in ("jpeg2000", "webp"):
        path = write_levels(str(tmp_path / f"{comp}.tif"), image, levels=1, photometric="rgb", compression=comp)
        with tifffile.TiffFile(path) as t:
            off, n = t.pages[0].dataoffsets[1], t.pages[0].databytecounts[1]
        data = bytearray(open(path, "rb").read())
        data[off + n // 3: off + n] = bytes(n - n // 3)  # zero most of tile 1
        data[off + 2: off + 12] = b"\xff" * 10  # and its header
        bad = str(tmp_path / f"bad_{comp}.tif")
        open(bad, "wb").write(bytes(data))
        with ndimg.io.Slide(bad) as s:
            with pytest.raises(ndimg.io.SlideError):
                s.read_region((128, 0), 0, (128, 128))
            good = s.read_region((0, 0), 0, (128, 128))  # tile 0 still reads
            assert good[..., 3].all()


# ----------------------------------------------------------------- 16-bit samples, predictors, planes

@pytest.mark.parametrize("name,shape,kw", [
    ("rgb16", (300, 400, 3), dict()),
    ("rgb16_lzw_predictor", (300, 400, 3), dict(compression="lzw", predictor=True)),
    # gray levels of whole tiles: OpenSlide (libtiff) blackens part of 16-bit gray edge tiles
    ("gray16_deflate_predictor", (256, 512), dict(compression="zlib", predictor=True)),
    ("rgb16_planes_zstd", (3, 300, 400), dict(compression="zstd", planarconfig="separate")),
    ("rgb8_planes_deflate_predictor", (3, 300, 400), dict(compression="zlib", predictor=True,
                                                          planarconfig="separate")),
])
def test_samples_match_openslide(tmp_path, rng, name, shape, kw):
    dtype = np.uint8 if "8" in name.split("_")[0] else np.uint16
    img = rng.integers(0, np.iinfo(dtype).max + 1, shape, dtype=dtype)
    path = write_levels(str(tmp_path / f"{name}.tif"), img, photometric="rgb" if len(shape) == 3 else "minisblack",
                        **kw)
    check_openslide(path)
    check_tifffile(path, 0, planar="planarconfig" in kw)


@pytest.mark.parametrize("kw", [dict(), dict(compression="zlib", predictor=True),
                                dict(compression="lzw", planarconfig="separate")])
def test_big_endian_16bit_matches_tifffile(tmp_path, rng, kw):
    planar = "planarconfig" in kw
    img = rng.integers(0, 65536, (3, 200, 300) if planar else (200, 300, 3), dtype=np.uint16)
    check_tifffile(write_levels(str(tmp_path / "be.tif"), img, photometric="rgb", byteorder=">", **kw), 0, planar)


def test_raw_read_of_8bit_and_bad_arguments(tmp_path, image):
    path = write_levels(str(tmp_path / "a.tif"), image, compression="zstd")
    with ndimg.io.Slide(path) as s:
        raw = s.read_region_raw((-2, -3), 0, (50, 40))
        assert raw.dtype == np.uint8 and raw.shape == (40, 50, 3)
        assert not raw[:3].any() and not raw[:, :2].any()
        np.testing.assert_array_equal(raw[3:, 2:], image[:37, :48])
        with pytest.raises(ValueError):
            s.read_region_raw((0, 0), 2, (1, 1))
        with pytest.raises(ValueError):
            s.read_region_raw((0, 0), 0, (-1, 1))


def test_unknown_file_is_unsupported(tmp_path):
    path = tmp_path / "x.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    with pytest.raises(ndimg.io.SlideError, match="unsupported format"):
        ndimg.io.Slide(str(path))
    assert ndimg.io.Slide.detect_format(str(path)) is None

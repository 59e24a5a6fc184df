"""ndimg's own Huffman decoding of JPEG tiles (cpp/src/io/jpeg_huffman.cpp) against libjpeg-turbo's
whole decoder (Pillow's): tiles written by Pillow's encoder in every sampling layout, with and without
restart markers, from flat to noise (codes longer than the fast lookup), read whole, in part and through
the tile cache; and damaged tiles."""
import io

import numpy as np
import pytest
import tifffile
from PIL import Image

import ndimg.io
from ndimg.io import CuImage

TILE = 32
H, W = 64, 96  # 2 x 3 tiles

LAYOUTS = {"444": dict(subsampling=0), "422": dict(subsampling=1), "420": dict(subsampling=2), "gray": {}}
RESTARTS = {"none": {}, "every_mcu": dict(restart_marker_blocks=1), "every_5": dict(restart_marker_blocks=5),
            "every_row": dict(restart_marker_rows=1)}


def content(kind, rng, gray):
    shape = (H, W) if gray else (H, W, 3)
    if kind == "noise":  # q100 noise: the longest codes and largest values
        return rng.integers(0, 256, shape, dtype=np.uint8)
    if kind == "flat":
        return np.full(shape, 77, np.uint8)
    y, x = np.mgrid[:H, :W]
    base = 128 + 60 * np.sin(x / 7.0) * np.cos(y / 5.0)
    img = base[..., None] + np.array([0, 25, -25]) if not gray else base
    return np.clip(img + rng.normal(0, 6, img.shape), 0, 255).astype(np.uint8)


def encode_tiles(img, **kw):
    tiles = []
    for ty in range(0, H, TILE):
        for tx in range(0, W, TILE):
            b = io.BytesIO()
            Image.fromarray(img[ty:ty + TILE, tx:tx + TILE]).save(b, "JPEG", **kw)
            tiles.append(b.getvalue())
    return tiles


def write(path, tiles, gray, subsampling):
    kw = dict(photometric="minisblack") if gray else dict(photometric="ycbcr", subsampling=subsampling)
    tifffile.imwrite(path, iter(tiles), shape=(H, W) if gray else (H, W, 3), dtype=np.uint8, tile=(TILE, TILE),
                     compression="jpeg", **kw)


def libjpeg_decode(tiles, gray):
    """libjpeg-turbo's own decoding (Pillow), assembled; gray as RGB like read_region."""
    out = np.zeros((H, W, 3), np.uint8)
    for i, t in enumerate(tiles):
        ty, tx = divmod(i, W // TILE)
        px = np.asarray(Image.open(io.BytesIO(t)))
        out[ty * TILE:(ty + 1) * TILE, tx * TILE:(tx + 1) * TILE] = px[..., None] if gray else px
    return out


@pytest.fixture(params=["nocache", "per_process"])
def tile_cache(request):
    if request.param == "nocache":
        CuImage.cache("nocache")
    else:
        CuImage.cache("per_process", memory_capacity=64)
    yield request.param
    CuImage.cache("nocache")


@pytest.mark.parametrize("optimize", [False, True])  # True: each tile its own Huffman tables
@pytest.mark.parametrize("kind,quality", [("smooth", 75), ("noise", 100), ("flat", 10)])
@pytest.mark.parametrize("restart", list(RESTARTS))
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_tiles_match_libjpeg_exactly(tmp_path, rng, tile_cache, layout, restart, kind, quality, optimize):
    gray = layout == "gray"
    kw = dict(quality=quality, optimize=optimize, **LAYOUTS[layout], **RESTARTS[restart])
    tiles = encode_tiles(content(kind, rng, gray), **kw)
    if restart != "none":
        assert all(b"\xff\xdd" in t for t in tiles)  # the encoder wrote a restart interval
    path = str(tmp_path / "t.tif")
    write(path, tiles, gray, (2, 2) if layout == "420" else (2, 1) if layout == "422" else (1, 1))
    ref = libjpeg_decode(tiles, gray)
    with ndimg.io.Slide(path) as s:
        whole = s.read_region((0, 0), 0, (W, H))
        np.testing.assert_array_equal(whole[..., :3], ref)
        assert (whole[..., 3] == 255).all()
        # parts of tiles: rows skipped, columns cropped, and tiles cut at both ends
        for x, y, w, h in ((5, 7, 50, 40), (31, 33, 2, 30), (40, 1, 56, 62), (0, 63, 96, 1)):
            got = s.read_region((x, y), 0, (w, h))
            np.testing.assert_array_equal(got[..., :3], ref[y:y + h, x:x + w], err_msg=f"region {x, y, w, h}")
    with CuImage(path) as img:
        np.testing.assert_array_equal(np.asarray(img.read_region((3, 9), (80, 50), 0)), ref[9:59, 3:83])


def scan_start(t):
    i = t.index(b"\xff\xda")
    return i + 2 + (t[i + 2] << 8 | t[i + 3])


def test_truncated_tile_decodes_gray_past_its_data(tmp_path, rng):
    """libjpeg's rule: what lies past the end of the data is uniform gray (zero coefficients); the rows
    whose data is whole are as decoded from the complete tile."""
    img = content("smooth", rng, False)
    tiles = encode_tiles(img, quality=90, subsampling=0)
    ref = libjpeg_decode(tiles, False)
    t = tiles[0]
    s0 = scan_start(t)
    tiles[0] = t[:s0 + (len(t) - s0) // 3]  # a third of the first tile's data, no EOI
    path = str(tmp_path / "cut.tif")
    write(path, tiles, False, (1, 1))
    with ndimg.io.Slide(path) as s:
        got = s.read_region((0, 0), 0, (W, H))[..., :3]
        assert (got[:8, :TILE] == ref[:8, :TILE]).all()  # the first MCU row's data is there
        assert (got[TILE - 8:TILE, :TILE] == 128).all()  # the last MCU row's is not
        np.testing.assert_array_equal(got[:, TILE:], ref[:, TILE:])  # the other tiles are whole
        np.testing.assert_array_equal(got[TILE:], ref[TILE:])


@pytest.mark.parametrize("restart", ["none", "every_mcu"])
def test_damaged_tiles_never_crash(tmp_path, restart):
    """Bit flips, stray markers (RSTn out of order, markers libjpeg skips) and cut bytes in the scans:
    every read returns pixels or raises SlideError, the same twice, and the slide reads on."""
    rng = np.random.default_rng(3)
    img = content("smooth", rng, False)
    clean = encode_tiles(img, quality=85, subsampling=2, **RESTARTS[restart])
    for trial in range(12):
        tiles = []
        for t in clean:
            b = bytearray(t)
            s0 = scan_start(b)
            for _ in range(int(rng.integers(1, 5))):
                p = int(rng.integers(s0, len(b) - 2))
                kind = trial % 4
                if kind == 0:
                    b[p] ^= 1 << int(rng.integers(8))
                elif kind == 1:
                    b[p:p] = bytes([0xFF, 0xD0 + int(rng.integers(8))])
                elif kind == 2:
                    b[p:p] = bytes([0xFF, int(rng.integers(1, 0xC0))])
                else:
                    del b[p:p + int(rng.integers(1, 30))]
            tiles.append(bytes(b))
        path = str(tmp_path / f"bad{trial}.tif")
        write(path, tiles, False, (2, 2))
        with ndimg.io.Slide(path) as s:
            results = []
            for _ in range(2):
                try:
                    results.append(s.read_region((0, 0), 0, (W, H)))
                except ndimg.io.SlideError:
                    results.append(None)
            assert (results[0] is None) == (results[1] is None)
            if results[0] is not None:
                np.testing.assert_array_equal(results[0], results[1])
            part = s.read_region((W - 5, H - 5), 0, (10, 10))  # outside is transparent, whatever the data
            assert part.shape == (10, 10, 4) and (part[5:, :, 3] == 0).all()


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_progressive_tiles_match_libjpeg(tmp_path, rng, tile_cache, layout):
    """Scans ndimg does not decode itself (progressive: libjpeg-turbo's decoder stays) read the same."""
    gray = layout == "gray"
    tiles = encode_tiles(content("smooth", rng, gray), quality=80, progressive=True, **LAYOUTS[layout])
    path = str(tmp_path / "p.tif")
    write(path, tiles, gray, (2, 2) if layout == "420" else (2, 1) if layout == "422" else (1, 1))
    ref = libjpeg_decode(tiles, gray)
    with ndimg.io.Slide(path) as s:
        np.testing.assert_array_equal(s.read_region((0, 0), 0, (W, H))[..., :3], ref)
        np.testing.assert_array_equal(s.read_region((5, 7), 0, (50, 40))[..., :3], ref[7:47, 5:55])

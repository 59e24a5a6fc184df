"""Shared checks for the slide tests."""
import numpy as np
import tifffile

H, W = 1500, 2000
APERIO = ("Aperio Image Library v12.0.15 \r\n{w}x{h} [0,0 {w}x{h}] (256x256) JPEG/RGB Q=70|AppMag = 20|"
          "StripeWidth = 2040|ScanScope ID = SS1234|Filename = test|Date = 01/02/20|Time = 10:11:12|"
          "MPP = 0.4990|Left = 25.69|Top = 23.44")


def smooth_rgb(rng, h, w):
    """A smooth colour image with a little noise: JPEG-friendly yet not trivially compressible."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    base = np.stack([127 + 100 * np.sin(xx / 97 + c) * np.cos(yy / 131 - c) for c in (0.0, 1.0, 2.0)], -1)
    return np.clip(base + rng.normal(0, 3, base.shape), 0, 255).astype(np.uint8)


def write_pyramid(path, img, levels=3, subifds=False, **kw):
    """A tiled pyramid written by tifffile: full resolution, then 2x, 4x ... reductions."""
    kw.setdefault("tile", (256, 256))
    reductions = [img[:: 2 ** i, :: 2 ** i].copy() for i in range(levels)]
    with tifffile.TiffWriter(path, bigtiff=kw.pop("bigtiff", False)) as t:
        if subifds:
            t.write(reductions[0], subifds=levels - 1, **kw)
            for r in reductions[1:]:
                t.write(r, subfiletype=1, **kw)
        else:
            for i, r in enumerate(reductions):
                t.write(r, subfiletype=1 if i else 0, **kw)
    return path


def reference_levels(path):
    """Each tiled page of the main chain, or the SubIFD pyramid of a single page, decoded by tifffile."""
    with tifffile.TiffFile(path) as t:
        if len(t.pages) == 1 and t.pages[0].subifds:
            return [lv.asarray() for lv in t.series[0].levels]
        return [p.asarray() for p in t.pages if p.is_tiled]


# name -> tifffile write() arguments
TIFFFILE_LAYOUTS = {
    "none": dict(compression=None),
    "deflate": dict(compression="deflate"),
    "adobe_deflate": dict(compression="zlib", predictor=True),
    "lzw": dict(compression="lzw"),
    "lzw_predictor": dict(compression="lzw", predictor=True),
    "zstd": dict(compression="zstd"),
    "jpeg": dict(compression="jpeg"),
    # Photometric RGB JPEG: photometric="rgb" would only name the input's colour space (stored as YCbCr)
    "jpeg_rgb": dict(compression="jpeg", compressionargs={"outcolorspace": "rgb"}),
    "bigtiff_deflate": dict(compression="deflate", bigtiff=True),
    "subifds_zstd": dict(compression="zstd", subifds=True),
    "odd_tiles_lzw": dict(compression="lzw", tile=(240, 496)),
}


VIPS_COMPRESSIONS = ["jpeg", "deflate", "lzw", "none", "zstd"]



def expected_region(ref_level, x, y, w, h):
    """RGBA that read_region should give for pixels [x, x+w) x [y, y+h) of a level decoded by a reference
    (gray is replicated; outside the level everything is 0)."""
    if ref_level.ndim == 2:
        ref_level = np.repeat(ref_level[..., None], 3, axis=-1)
    out = np.zeros((h, w, 4), np.uint8)
    H, W = ref_level.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    if x0 < x1 and y0 < y1:
        out[y0 - y:y1 - y, x0 - x:x1 - x, :3] = ref_level[y0:y1, x0:x1, :3]
        out[y0 - y:y1 - y, x0 - x:x1 - x, 3] = 255
    return out


def assert_pixels(got, expected, tol, premultiplied=False):
    """Equal alpha, colours within `tol` (with `premultiplied`, colour x alpha / 255 within `tol`)."""
    assert got.shape == expected.shape and got.dtype == np.uint8
    np.testing.assert_array_equal(got[..., 3], expected[..., 3])
    got, expected = got.astype(np.int32), expected.astype(np.int32)
    if premultiplied:
        got, expected = (v[..., :3] * v[..., 3:] // 255 for v in (got, expected))
    diff = np.abs(got - expected).max() if got.size else 0
    assert diff <= tol, f"max difference {diff} > {tol}"

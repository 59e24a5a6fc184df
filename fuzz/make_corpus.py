"""Writes the seed corpus fuzz/corpus/: small slides of every layout and compression, by third-party
writers (tifffile + imagecodecs, and libvips when installed). Run: python3 fuzz/make_corpus.py

Small images (a few tiles of 16 pixels) keep the seeds a few KB each, so the fuzzer mutates container
and codec data rather than bulk pixels. Compressions the reader does not support yet (JPEG 2000, WebP)
are written too: they exercise the parser now and their decoders once they land.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import tifffile

HERE = os.path.dirname(os.path.abspath(__file__))
H, W = 48, 64
APERIO = ("Aperio Image Library v12.0.15 \r\n{w}x{h} [0,0 {w}x{h}] (16x16) JPEG/RGB Q=70|AppMag = 20|"
          "MPP = 0.4990|Left = 25.69|Top = 23.44")


def image(h=H, w=W, seed=0):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    base = np.stack([127 + 100 * np.sin(xx / 7 + c) * np.cos(yy / 11 - c) for c in (0.0, 1.0, 2.0)], -1)
    return np.clip(base + rng.normal(0, 2, base.shape), 0, 255).astype(np.uint8)


def pyramid(path, img, levels=2, subifds=False, bigtiff=False, **kw):
    first = 1 if kw.get("planarconfig") == "separate" else 0  # (samples, y, x) for separate planes
    reductions = [img[(slice(None),) * first + (slice(None, None, 2 ** i),) * 2].copy() for i in range(levels)]
    with tifffile.TiffWriter(path, bigtiff=bigtiff, byteorder=kw.pop("byteorder", "<")) as t:
        if subifds:
            t.write(reductions[0], subifds=levels - 1, metadata=None, **kw)
            for r in reductions[1:]:
                t.write(r, subfiletype=1, metadata=None, **kw)
        else:
            for i, r in enumerate(reductions):
                t.write(r, subfiletype=1 if i else 0, metadata=None, **kw)


def aperio(path, img, compression="jpeg"):
    sub = "Aperio Image Library v12.0.15 \r\n{w}x{h} -> {a}x{b} - |AppMag = 20|MPP = 0.4990"
    with tifffile.TiffWriter(path) as t:
        t.write(img, tile=(16, 16), compression=compression, description=APERIO.format(w=W, h=H), metadata=None)
        thumb = img[::4, ::4].copy()
        t.write(thumb, compression="jpeg", rowsperstrip=4, metadata=None,
                description=sub.format(w=W, h=H, a=thumb.shape[1], b=thumb.shape[0]))
        lvl = img[::2, ::2].copy()
        t.write(lvl, tile=(16, 16), compression=compression, metadata=None,
                description=sub.format(w=W, h=H, a=lvl.shape[1], b=lvl.shape[0]))
        t.write(img[:12, :20].copy(), compression="lzw", subfiletype=1, metadata=None,
                description="Aperio Image Library v12.0.15\r\nlabel 20x12")
        t.write(img[10:22, :24].copy(), compression="jpeg", subfiletype=9, metadata=None,
                description="Aperio Image Library v12.0.15\r\nmacro 24x12")


def main(out=os.path.join(HERE, "corpus")):
    os.makedirs(out, exist_ok=True)
    img = image()
    gray = img[..., 1].copy()
    tiled = dict(tile=(16, 16))
    seeds = {
        "tiled_none": (pyramid, img, dict(compression=None, **tiled)),
        "tiled_jpeg_ycbcr": (pyramid, img, dict(compression="jpeg", **tiled)),
        # Photometric RGB JPEG (tifffile's photometric= names the input's colour space, not the file's)
        "tiled_jpeg_rgb": (pyramid, img, dict(compression="jpeg", compressionargs={"outcolorspace": "rgb"},
                                              **tiled)),
        "tiled_deflate": (pyramid, img, dict(compression="deflate", **tiled)),
        "tiled_adobe_deflate_predictor": (pyramid, img, dict(compression="zlib", predictor=True, **tiled)),
        "tiled_lzw": (pyramid, img, dict(compression="lzw", **tiled)),
        "tiled_lzw_predictor_bigendian": (pyramid, img, dict(compression="lzw", predictor=True,
                                                              byteorder=">", **tiled)),
        "tiled_zstd_subifds": (pyramid, img, dict(compression="zstd", subifds=True, **tiled)),
        "tiled_jpeg2000": (pyramid, img, dict(compression="jpeg2000", **tiled)),
        "tiled_webp": (pyramid, img, dict(compression="webp", **tiled)),
        "bigtiff_deflate": (pyramid, img, dict(compression="deflate", bigtiff=True, **tiled)),
        "bigtiff_jpeg": (pyramid, img, dict(compression="jpeg", bigtiff=True, **tiled)),
        "gray_deflate": (pyramid, gray, dict(compression="deflate", **tiled)),
        "gray_miniswhite_lzw": (pyramid, gray, dict(compression="lzw", photometric="miniswhite", **tiled)),
        "gray_jpeg": (pyramid, gray, dict(compression="jpeg", **tiled)),
        "rgba_zstd": (pyramid, np.dstack([img, gray]), dict(compression="zstd", extrasamples=[2], **tiled)),
        "planar_deflate": (pyramid, np.moveaxis(img, -1, 0).copy(), dict(compression="deflate",
                                                                          photometric="rgb", planarconfig="separate", **tiled)),
        "uint16_zstd": (pyramid, img.astype(np.uint16) * 257, dict(compression="zstd", **tiled)),
        "stripped_jpeg": (pyramid, img, dict(compression="jpeg", rowsperstrip=8)),
        "stripped_lzw": (pyramid, img, dict(compression="lzw", rowsperstrip=10)),
        "stripped_none": (pyramid, img, dict(compression=None, rowsperstrip=20)),
    }
    for name, (fn, data, kw) in seeds.items():
        try:
            fn(os.path.join(out, name + ".tif"), data, **kw)
        except Exception as e:  # a codec missing from this imagecodecs build
            print(f"skipped {name}: {e}", file=sys.stderr)
    aperio(os.path.join(out, "aperio_jpeg.svs"), img)
    aperio(os.path.join(out, "aperio_jpeg2000.svs"), img, compression=33003)  # Aperio's JPEG 2000 YCbCr code
    aperio(os.path.join(out, "aperio_jpeg2000_rgb.svs"), img, compression=33005)  # and RGB
    vips = shutil.which("vips")
    if vips is None:
        print("libvips not found: skipped the vips-written seeds", file=sys.stderr)
        return
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src.tif")
        tifffile.imwrite(src, image(40, 72, seed=1))
        for comp, extra in (("jpeg", ["--Q", "80"]), ("deflate", ["--predictor", "horizontal"]), ("lzw", []),
                            ("none", []), ("zstd", []), ("webp", [])):
            for big in ([], ["--bigtiff"]) if comp in ("jpeg", "zstd") else ([],):
                name = f"vips_{comp}{'_bigtiff' if big else ''}.tif"
                subprocess.run([vips, "tiffsave", src, os.path.join(out, name), "--tile", "--pyramid",
                                "--tile-width", "16", "--tile-height", "16", "--compression", comp, *extra, *big],
                               check=True)
        subprocess.run([vips, "tiffsave", src, os.path.join(out, "vips_jpeg_subifd.tif"), "--tile", "--pyramid",
                        "--subifd", "--tile-width", "16", "--tile-height", "16", "--compression", "jpeg"],
                       check=True)


if __name__ == "__main__":
    main(*sys.argv[1:])

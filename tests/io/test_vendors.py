"""Philips TIFF (against OpenSlide) and OME-TIFF (against tifffile) slides written by tifffile."""
import base64

import imagecodecs
import numpy as np
import pytest
import tifffile

import ndimg.io
from helpers_io import assert_pixels, expected_region, smooth_rgb

openslide = pytest.importorskip("openslide")


@pytest.fixture(scope="module")
def image():
    return smooth_rgb(np.random.default_rng(77), 1000, 1300)


def philips_xml(levels, spacing, label=None, macro=None, barcode="SLIDE-42"):
    attr = '<Attribute Name="{}" Group="0x0" Element="0x0" PMSVR="{}">{}</Attribute>'.format
    reps = "".join('<DataObject ObjectType="PixelDataRepresentation">'
                   + attr("DICOM_PIXEL_SPACING", "IDoubleArray", f"&quot;{spacing * 2 ** i:g}&quot; &quot;{spacing * 2 ** i:g}&quot;")
                   + attr("PIIM_PIXEL_DATA_REPRESENTATION_NUMBER", "IUInt16", i) + "</DataObject>"
                   for i in range(levels))
    assoc = "".join('<DataObject ObjectType="DPScannedImage">' + attr("PIM_DP_IMAGE_TYPE", "IString", kind)
                    + attr("PIM_DP_IMAGE_DATA", "IString", base64.b64encode(data).decode()) + "</DataObject>"
                    for kind, data in (("LABELIMAGE", label), ("MACROIMAGE", macro)) if data is not None)
    return ('<?xml version="1.0" encoding="UTF-8" ?>\n<DataObject ObjectType="DPUfsImport">'
            + attr("DICOM_MANUFACTURER", "IString", "PHILIPS &amp; co")
            + attr("PIM_DP_UFS_BARCODE", "IString", base64.b64encode(barcode.encode()).decode())
            + attr("DICOM_DERIVATION_DESCRIPTION", "IString",
                   'tiff-useBigTIFF=1-levels=40,20,10-q80-sourceFilename="T12-x.isyntax"')
            + '<Attribute Name="PIM_DP_SCANNED_IMAGES" PMSVR="IDataObjectArray"><Array>'
            + '<DataObject ObjectType="DPScannedImage">'
            + attr("DICOM_PIXEL_SPACING", "IDoubleArray", f"&quot;{spacing:g}&quot; &quot;{spacing:g}&quot;")
            + attr("PIM_DP_IMAGE_TYPE", "IString", "WSI")
            + '<Attribute Name="PIIM_PIXEL_DATA_REPRESENTATION_SEQUENCE" PMSVR="IDataObjectArray"><Array>'
            + reps + "</Array></Attribute></DataObject>" + assoc + "</Array></Attribute></DataObject>")


def write_philips(path, img, levels=3, tile=256, sparse=(), xml_associated=True, excess=0):
    """Levels padded with white to whole tiles (plus `excess` tiles, which OpenSlide clips away); level-0
    tiles (row, col) in `sparse` are written empty (byte count 0); label and macro in the XML or as
    directories."""
    label = imagecodecs.jpeg_encode(img[:200, :300].copy(), level=90)
    macro = imagecodecs.jpeg_encode(img[100:400, :500].copy(), level=90)
    xml = philips_xml(levels, 0.00025, *((label, macro) if xml_associated else ()))
    with tifffile.TiffWriter(path, bigtiff=True) as t:
        for i in range(levels):
            lv = img[:: 2 ** i, :: 2 ** i]
            extra = excess if i else 0
            h, w = ((-(-n // tile) + extra) * tile for n in lv.shape[:2])
            pad = np.full((h, w, 3), 255, np.uint8)
            pad[:lv.shape[0], :lv.shape[1]] = lv
            kw = dict(tile=(tile, tile), software="Philips DP v1.0", metadata=None, photometric="rgb",
                      description=xml if i == 0 else None, subfiletype=1 if i else 0)
            if i == 0 and sparse:
                tiles = (b"" if (r, c) in sparse else
                         imagecodecs.zlib_encode(pad[r * tile:(r + 1) * tile, c * tile:(c + 1) * tile].tobytes())
                         for r in range(h // tile) for c in range(w // tile))
                t.write(tiles, shape=pad.shape, dtype=np.uint8, compression="zlib", **kw)
            else:
                t.write(pad, compression="jpeg", **kw)
        if not xml_associated:
            for name, a in (("Label", img[:200, :300]), ("Macro", img[100:400, :500])):
                t.write(a.copy(), compression="jpeg", description=name, metadata=None, software="Philips DP v1.0")
    return path


@pytest.mark.parametrize("kw", [dict(), dict(xml_associated=False), dict(sparse={(1, 1), (0, 3)}),
                                dict(excess=1)], ids=["xml_images", "directory_images", "sparse", "excess"])
def test_philips_matches_openslide(tmp_path, image, kw):
    path = write_philips(str(tmp_path / "philips.tiff"), image, **kw)
    with ndimg.io.Slide(path) as s, openslide.OpenSlide(path) as o:
        assert s.level_dimensions == o.level_dimensions
        assert s.level_downsamples == o.level_downsamples
        assert dict(s.properties) == {k: v for k, v in o.properties.items() if k != "openslide.quickhash-1"}
        assert s.properties["openslide.vendor"] == "philips"
        assert s.properties["openslide.barcode"] == "SLIDE-42"
        assert sorted(s.associated_images) == sorted(o.associated_images) == ["label", "macro"]
        for name in o.associated_images:
            assert_pixels(np.asarray(s.associated_images[name]), np.asarray(o.associated_images[name]), 0)
        for level in range(o.level_count):
            w, h = o.level_dimensions[level]
            ds = int(o.level_downsamples[level])
            # whole level pixels, and (one level-0 pixel on) corners between them, which OpenSlide paints
            # tile by tile at a sub-pixel offset, the padded edges clipped
            for x, y, rw, rh, past in ((-5, -3, w + 20, h + 20, 0), (w - 70, h - 50, 300, 200, 0),
                                       (w - 70, h - 50, 300, 200, 1), (200, 100, 300, 200, 1)):
                loc = (x * ds + past, y * ds + past)
                assert_pixels(s.read_region(loc, level, (rw, rh)), np.asarray(o.read_region(loc, level, (rw, rh))), 0)
        if kw.get("sparse"):  # a sparse tile is transparent
            assert not s.read_region((256, 256), 0, (256, 256)).any()


def test_philips_bad_spacings(tmp_path, image):
    path = str(tmp_path / "bad.tiff")
    with tifffile.TiffWriter(path) as t:  # two levels, one pixel spacing
        for i in range(2):
            t.write(image[:: 2 ** i, :: 2 ** i].copy(), tile=(256, 256), software="Philips", metadata=None,
                    description=philips_xml(1, 0.00025) if i == 0 else None, subfiletype=i)
    with pytest.raises(ndimg.io.SlideError, match="downsample"):
        ndimg.io.Slide(path)


@pytest.mark.parametrize("xml", ['<DataObject ObjectType="DPUfsImport"><Attribute>', "<DataObject ObjectType="
                                 '"DPUfsImport"><Attribute Name="a">&bogus;</Attribute></DataObject>'])
def test_philips_malformed_xml(tmp_path, image, xml):
    path = str(tmp_path / "bad.tiff")
    tifffile.imwrite(path, image[:300, :300], tile=(256, 256), software="Philips", metadata=None, description=xml)
    with pytest.raises(ndimg.io.SlideError, match="XML"):
        ndimg.io.Slide(path)


def write_ome(path, img, levels=3, **meta):
    reductions = [img[:: 2 ** i, :: 2 ** i].copy() for i in range(levels)]
    with tifffile.TiffWriter(path, ome=True) as t:
        t.write(reductions[0], subifds=levels - 1, tile=(256, 256), compression="zlib", photometric="rgb",
                metadata=dict(axes="YXS", **meta))
        for r in reductions[1:]:
            t.write(r, subfiletype=1, tile=(256, 256), compression="zlib", photometric="rgb")
    return path


def test_ome_tiff_matches_tifffile(tmp_path, image):
    path = write_ome(str(tmp_path / "s.ome.tif"), image, PhysicalSizeX=0.25, PhysicalSizeY=500,
                     PhysicalSizeYUnit="nm", Name="slide-1", Channel={"Name": ["RGB"]})
    with tifffile.TiffFile(path) as t:
        refs = [lv.asarray() for lv in t.series[0].levels]
    with ndimg.io.Slide(path) as s:
        assert s.level_dimensions == tuple((r.shape[1], r.shape[0]) for r in refs)
        assert s.level_downsamples == (1.0, 2.0, 4.0)
        for level, ref in enumerate(refs):
            h, w = ref.shape[:2]
            ds = s.level_downsamples[level]
            assert_pixels(s.read_region((int(-4 * ds), 0), level, (w + 8, h)), expected_region(ref, -4, 0, w + 8, h), 0)
        p = s.properties
        assert p["openslide.vendor"] == "ome-tiff" and ndimg.io.Slide.detect_format(path) == "ome-tiff"
        assert p["openslide.mpp-x"] == "0.25" and p["openslide.mpp-y"] == "0.5"
        assert p["ome.Image.Name"] == "slide-1"
        assert p["ome.Pixels.SizeX"] == str(image.shape[1]) and p["ome.Pixels.Type"] == "uint8"
        assert p["ome.Channel[0].Name"] == "RGB" and p["ome.Channel[0].SamplesPerPixel"] == "3"
        assert "openslide.objective-power" not in p


def test_ome_tiff_without_physical_size(tmp_path, image):
    path = write_ome(str(tmp_path / "s.ome.tif"), image[:300, :400], levels=1)
    with ndimg.io.Slide(path) as s:
        assert s.level_count == 1 and "openslide.mpp-x" not in s.properties

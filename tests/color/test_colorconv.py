"""ndimg.color beyond the generated registry cases: data attributes, threads and blocks, warnings, quirks of
scikit-image's conversions that ndimg keeps."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import skimage.color as sc

import ndimg
import ndimg.color as nc
from helpers import assert_close, to_engine, to_host

STAINS = [n for n in sc.__all__ if "_from_" in n]


def test_stain_matrices_and_color_dict():
    assert len(STAINS) == 22
    for name in STAINS:
        np.testing.assert_array_equal(getattr(nc, name), getattr(sc, name), err_msg=name)
    assert nc.color_dict == sc.color_dict
    assert all(type(a) is type(b) for k, v in sc.color_dict.items() for a, b in zip(nc.color_dict[k], v))
    assert set(sc.__all__) <= set(dir(nc)) and set(sc.__all__) <= set(nc.__all__)


@pytest.mark.parametrize("illuminant", ["A", "B", "C", "D50", "D55", "D65", "D75", "E"])
@pytest.mark.parametrize("observer", ["2", "10", "R"])
def test_xyz_tristimulus_values(illuminant, observer):
    # derived from the chromaticities: within a rounding of scikit-image's table
    np.testing.assert_allclose(nc.xyz_tristimulus_values(illuminant=illuminant.lower(), observer=observer.lower()),
                               sc.xyz_tristimulus_values(illuminant=illuminant, observer=observer), rtol=1e-15)


CONVERSIONS = ["rgb2hsv", "hsv2rgb", "rgb2xyz", "xyz2rgb", "rgb2lab", "lab2rgb", "rgb2luv", "luv2rgb", "rgb2hed",
               "hed2rgb", "rgb2yuv", "ycbcr2rgb", "lab2lch", "lch2lab", "rgb2gray"]


@pytest.mark.parametrize("name", CONVERSIONS)
@pytest.mark.parametrize("channel_axis", [-1, 0, 1])
def test_blocks_and_threads(rng, name, channel_axis):
    """An image of many blocks (and a moved channel axis: strided pixels) gives the same values on 1 and 2
    threads, and scikit-image's."""
    img = np.moveaxis(rng.random((301, 257, 3)), -1, channel_axis).astype(np.float32)
    fn = getattr(nc, name)
    old = ndimg.get_num_threads()
    try:
        ndimg.set_num_threads(1)
        one = fn(img, channel_axis=channel_axis)
        ndimg.set_num_threads(2)
        two = fn(img, channel_axis=channel_axis)
    finally:
        ndimg.set_num_threads(old)
    np.testing.assert_array_equal(one, two)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(sc, name)(img, channel_axis=channel_axis)
    assert two.dtype == expected.dtype and two.shape == expected.shape
    assert_close(two, expected, f"color.{name}")


def test_rgb2hsv_nan_pixels(rng):
    """A pixel with a NaN channel: saturation and value 0 as in scikit-image; the hue (uninitialised there)
    is 0 in ndimg. Every other pixel equals scikit-image's."""
    img = rng.random((9, 11, 3))
    img[2, 3, 1] = np.nan
    img[5, 5] = np.nan
    got = nc.rgb2hsv(img)
    expected = sc.rgb2hsv(img)
    bad = np.isnan(img).any(-1)
    assert (got[bad] == 0).all()
    np.testing.assert_array_equal(got[bad][:, 1:], expected[bad][:, 1:])
    np.testing.assert_allclose(got[~bad], expected[~bad], rtol=1e-12)


@pytest.mark.parametrize("name, message", [
    ("lab2xyz", "Conversion from CIE-LAB to XYZ color space resulted in 2 negative Z values"),
    ("lab2rgb", "Conversion from CIE-LAB, via XYZ to sRGB color space resulted in 2 negative Z values")])
def test_negative_z_warning(name, message):
    """One warning counting the clipped pixels of all blocks, at the caller's line (as scikit-image's tests
    require), through the engine wrappers."""
    lab = np.zeros((200, 300, 3))
    lab[0, 0] = (0, 0, 300)
    lab[-1, -1] = (10, 5, 400)
    with pytest.warns(UserWarning, match=message) as record:
        got = getattr(nc, name)(lab)
    assert len(record) == 1 and record[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(got, getattr(sc, name)(lab), f"color.{name}")


def test_ycbcr2rgb_offsets_in_input_dtype(rng):
    """The offsets are subtracted in the input's dtype before it is scaled: uint8 wraps around (as there)."""
    img = rng.integers(0, 256, (13, 7, 3)).astype(np.uint8)
    np.testing.assert_allclose(nc.ycbcr2rgb(img), sc.ycbcr2rgb(img), rtol=1e-12)
    with pytest.raises(OverflowError):
        nc.ycbcr2rgb(img.astype(np.int8))


def test_gray2rgba_alpha_cast_warns():
    img = np.ones((5, 5), np.uint8)
    with pytest.warns(UserWarning, match="alpha cannot be safely cast to image dtype uint8") as record:
        out = nc.gray2rgba(img, 0.5)
    assert record[0].filename == __file__
    np.testing.assert_array_equal(out, sc.gray2rgba(img, 0))
    with pytest.raises(ValueError, match="alpha.shape must match image.shape"):
        nc.gray2rgba(img, np.ones((5, 5, 1)))


@pytest.mark.parametrize("bg_label", [0, 3])
def test_label2rgb_background_quirk(rng, bg_label):
    """bg_color=None: scikit-image shows the image where a pixel's colour index (not its label) equals
    bg_label; ndimg does the same."""
    labels = rng.integers(0, 7, (40, 50))
    image = rng.random((40, 50, 3))
    np.testing.assert_allclose(nc.label2rgb(labels, image, bg_label=bg_label, bg_color=None),
                               sc.label2rgb(labels, image, bg_label=bg_label, bg_color=None), rtol=1e-12)


@pytest.mark.parametrize("scale", [1, 10**12])
@pytest.mark.parametrize("kind", ["overlay", "avg"])
def test_label2rgb_label_ranges(rng, scale, kind):
    """Labels of a small range (ranked by a lookup table) and of a huge one (sorted): scikit-image's colours
    and means; an integer image's means truncate as there."""
    labels = rng.integers(-3, 40, (61, 70)) * scale
    image = rng.integers(0, 256, (61, 70, 3)).astype(np.uint8)
    got = nc.label2rgb(labels, image, kind=kind, bg_label=2 * scale)
    expected = sc.label2rgb(labels, image, kind=kind, bg_label=2 * scale)
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("name", ["deltaE_cie76", "deltaE_ciede94", "deltaE_cmc"])
def test_delta_e_against_one_colour(rng, name):
    lab1 = rng.random((31, 17, 3)) * [100, 200, 200] - [0, 100, 100]
    lab2 = np.array([50.0, 10.0, -20.0])
    assert_close(getattr(nc, name)(lab1, lab2), getattr(sc, name)(lab1, lab2), f"color.{name}")


def test_engine_round_trip(engine, rng):
    """The array type out is the input's (CuPy in, CuPy out)."""
    img = rng.random((17, 23, 3)).astype(np.float32)
    got = nc.rgb2lab(to_engine(img, engine))
    assert type(got) is type(to_engine(img[:1], engine))
    assert_close(to_host(got), sc.rgb2lab(img), "color.rgb2lab")


@pytest.mark.parametrize("columns", [1, 10])
def test_stains_matrix_columns(rng, columns):
    """A stain matrix of many columns (several passes of at most 8 output channels) and a vector (no channel
    axis out), as scikit-image's matmul gives them."""
    img = rng.integers(0, 256, (23, 19, 3)).astype(np.uint8)
    m = rng.random((3, columns)) - 0.3
    for conv in (m, m[:, 0]):
        for name in ("separate_stains", "combine_stains"):
            got, expected = getattr(nc, name)(img, conv), getattr(sc, name)(img, conv)
            assert got.shape == expected.shape and got.dtype == expected.dtype
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.float32])
@pytest.mark.parametrize("name", ["lab2lch", "lch2lab"])
def test_lab_lch_further_channels(rng, dtype, name):
    """Channels after the third are kept, scaled as img_as_float scales them."""
    img = (rng.random((13, 11, 5)) * 100).astype(dtype)
    got, expected = getattr(nc, name)(img), getattr(sc, name)(img)
    assert got.dtype == expected.dtype
    assert_close(got, expected, f"color.{name}")


@pytest.mark.parametrize("name", ["rgb2lab", "rgb2hsv", "ycbcr2rgb", "rgb2gray"])
def test_byte_order_and_float16(rng, name):
    """Big-endian pixels and float16 (no C++ type: read as float32; ycbcr2rgb subtracts its offsets in float16
    first, as scikit-image does)."""
    img = rng.random((9, 14, 3))
    for x in (img.astype(">f8"), img.astype(np.float16), (img * 255).astype(">u2")):
        got, expected = getattr(nc, name)(x), getattr(sc, name)(x)
        assert got.dtype == expected.dtype.newbyteorder("=")   # rgb2hsv's np.empty_like keeps '>f8' there
        assert_close(got, expected.astype(got.dtype), f"color.{name}")


@pytest.mark.parametrize("name", ["deltaE_cie76", "deltaE_ciede94", "deltaE_ciede2000", "deltaE_cmc"])
def test_delta_e_one_pixel_and_channels(rng, name):
    """One pixel each (a NumPy scalar; cmc's float32 promoted to float64 as scikit-image's scalars promote), a
    fourth channel ignored, int16 against float32 (float64 out)."""
    fn, ref = getattr(nc, name), getattr(sc, name)
    lab1 = (rng.random((13, 9, 4)) * [100, 200, 200, 1] - [0, 100, 100, 0]).astype(np.float32)
    lab2 = (rng.random((13, 9, 4)) * [100, 200, 200, 1] - [0, 100, 100, 0]).astype(np.float32)
    for a, b in ((lab1[3, 4, :3], lab2[5, 6, :3]), (lab1, lab2), (lab1.astype(np.int16), lab2)):
        got, expected = fn(a, b), ref(a, b)
        assert type(got) is type(expected) and got.dtype == expected.dtype
        assert_close(got, expected, f"color.{name}")


@pytest.mark.parametrize("name", ["lab2xyz", "lab2rgb"])
def test_negative_z_count_on_each_engine(engine, name):
    """The clipped pixels are counted over the whole launch (CUDA: per block) on every engine."""
    lab = np.zeros((300, 257, 3))
    lab[::7, ::5] = (10, 5, 400)
    count = int(np.count_nonzero((lab[..., 0] + 16) / 116 - lab[..., 2] / 200 < 0))
    with pytest.warns(UserWarning, match=f"resulted in {count} negative Z values"):
        got = getattr(nc, name)(to_engine(lab, engine))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(to_host(got), getattr(sc, name)(lab), f"color.{name}")

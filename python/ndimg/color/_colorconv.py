"""skimage.color's colour space conversions (skimage/color/colorconv.py) over NumPy or CuPy.

Each conversion is one pass of the C++ colour family (cpp/src/color): the per-pixel math written once, run in
blocks of pixels over the CPU engine's threads or one CUDA thread per pixel, reading any channel_axis through
strides (no copy), chained conversions (rgb2lab, lab2rgb, rgb2luv, ...) fused into the same pass. Dtypes,
channel_axis handling and errors follow scikit-image: integers are scaled as img_as_float does, float16
computes in float32, the rest keep their float type.

Design decision: results agree with scikit-image to rounding (the registry's tolerances, about 1e-6 relative
for float32), not bit for bit: its 3 x 3 products are BLAS matrix products, ours are fused per pixel in the
same operation order, each product and sum rounded on its own on both engines.
"""
from __future__ import annotations

import numpy as np
from scipy import linalg

from .. import _core
from .._blocks import blockwise_rows, stack_last
from .._engine import engine_aware, stream_ptr, xp_of
from .._rules import array_argument, as_image, channel_as_last_axis, moved_channel_axis, supported_float_type
from ..morphology._footprints import warn_user

# ---------------------------------------------------------------------------------------------------
# Conversion matrices (the published definitions; the inverses computed)
# ---------------------------------------------------------------------------------------------------
xyz_from_rgb = np.array([[0.412453, 0.357580, 0.180423],      # sRGB (D65)
                         [0.212671, 0.715160, 0.072169],
                         [0.019334, 0.119193, 0.950227]])
rgb_from_xyz = linalg.inv(xyz_from_rgb)
xyz_from_rgbcie = np.array([[0.49, 0.31, 0.20], [0.17697, 0.81240, 0.01063], [0.00, 0.01, 0.99]]) / 0.17697
rgbcie_from_xyz = linalg.inv(xyz_from_rgbcie)
rgbcie_from_rgb = rgbcie_from_xyz @ xyz_from_rgb
rgb_from_rgbcie = rgb_from_xyz @ xyz_from_rgbcie
yuv_from_rgb = np.array([[0.299, 0.587, 0.114],
                         [-0.14714119, -0.28886916, 0.43601035],
                         [0.61497538, -0.51496512, -0.10001026]])
rgb_from_yuv = linalg.inv(yuv_from_rgb)
yiq_from_rgb = np.array([[0.299, 0.587, 0.114],
                         [0.59590059, -0.27455667, -0.32134392],
                         [0.21153661, -0.52273617, 0.31119955]])
rgb_from_yiq = linalg.inv(yiq_from_rgb)
ypbpr_from_rgb = np.array([[0.299, 0.587, 0.114], [-0.168736, -0.331264, 0.5], [0.5, -0.418688, -0.081312]])
rgb_from_ypbpr = linalg.inv(ypbpr_from_rgb)
ycbcr_from_rgb = np.array([[65.481, 128.553, 24.966], [-37.797, -74.203, 112.0], [112.0, -93.786, -18.214]])
rgb_from_ycbcr = linalg.inv(ycbcr_from_rgb)
ydbdr_from_rgb = np.array([[0.299, 0.587, 0.114], [-0.45, -0.883, 1.333], [-1.333, 1.116, 0.217]])
rgb_from_ydbdr = linalg.inv(ydbdr_from_rgb)
_GRAY = (0.2125, 0.7154, 0.0721)   # rgb2gray's weights (Rec. 709 luma)


def _stain(first, second, third=None):
    """A stain matrix (rows: the stains' RGB optical densities) and its inverse; a missing third stain is
    the cross product of the two given (Ruifrok & Johnston's colour deconvolution, Landini's vectors)."""
    m = np.array([first, second, third if third is not None else (0.0, 0.0, 0.0)], dtype=np.float64)
    if third is None:
        m[2] = np.cross(m[0], m[1])
    return m, linalg.inv(m)


_H, _DAB = (0.650, 0.704, 0.286), (0.268, 0.570, 0.776)
rgb_from_hed, hed_from_rgb = _stain((0.65, 0.70, 0.29), (0.07, 0.99, 0.11), (0.27, 0.57, 0.78))
rgb_from_hdx, hdx_from_rgb = _stain(_H, _DAB)                                        # haematoxylin + DAB
rgb_from_fgx, fgx_from_rgb = _stain((0.46420921, 0.83008335, 0.30827187), (0.94705542, 0.25373821, 0.19650764))
rgb_from_bex, bex_from_rgb = _stain((0.834750233, 0.513556283, 0.196330403), (0.092789, 0.954111, 0.283111))
rgb_from_rbd, rbd_from_rgb = _stain((0.21393921, 0.85112669, 0.47794022), (0.74890292, 0.60624161, 0.26731082), _DAB)
rgb_from_gdx, gdx_from_rgb = _stain((0.98003, 0.144316, 0.133146), _DAB)              # methyl green + DAB
rgb_from_hax, hax_from_rgb = _stain(_H, (0.2743, 0.6796, 0.6803))                    # haematoxylin + AEC
rgb_from_bro, bro_from_rgb = _stain((0.853033, 0.508733, 0.112656), (0.09289875, 0.8662008, 0.49098468),
                                    (0.10732849, 0.36765403, 0.9237484))
rgb_from_bpx, bpx_from_rgb = _stain((0.7995107, 0.5913521, 0.10528667), (0.09997159, 0.73738605, 0.6680326))
rgb_from_ahx, ahx_from_rgb = _stain((0.874622, 0.457711, 0.158256), (0.552556, 0.7544, 0.353744))
rgb_from_hpx, hpx_from_rgb = _stain((0.644211, 0.716556, 0.266844), (0.175411, 0.972178, 0.154589))
STAIN_MATRICES = {f"{a}_from_{b}": globals()[f"{a}_from_{b}"] for s in
                  ("hed", "hdx", "fgx", "bex", "rbd", "gdx", "hax", "bro", "bpx", "ahx", "hpx")
                  for a, b in (("rgb", s), (s, "rgb"))}

# CIE XYZ of the standard illuminants (Y = 1) for the 2 and 10 degree observers and R's grDevices ('R'),
# from their chromaticities x, y as (x, y, 1 - x - y) * (Y / y), Y = 1; D65/2 is the historical sRGB white.
_CHROMATICITY = {
    "A": {"2": (0.44757, 0.40745), "10": (0.45117, 0.40594)},
    "B": {"2": (0.34842, 0.35161), "10": (0.34980, 0.35270)},
    "C": {"2": (0.31006, 0.31616), "10": (0.31039, 0.31905)},
    "D50": {"2": (0.34567, 0.35850), "10": (0.34773, 0.35952), "R": (0.34574, 0.35867)},
    "D55": {"2": (0.33242, 0.34743), "10": (0.33411, 0.34877), "R": (0.3325, 0.34761)},
    "D65": {"10": (0.31382, 0.33100), "R": (0.3137, 0.3291)},
    "D75": {"2": (0.29902, 0.31485), "10": (0.29968, 0.31740)},
}
_illuminants = {name: {obs: (x * (1 / y), 1, (1 - x - y) * (1 / y)) for obs, (x, y) in chroma.items()}
                for name, chroma in _CHROMATICITY.items()}
_illuminants["D65"]["2"] = (0.95047, 1.0, 1.08883)
for _obs in _illuminants.values():
    _obs.setdefault("R", _obs["2"])
_illuminants["E"] = {"2": (1.0, 1.0, 1.0), "10": (1.0, 1.0, 1.0), "R": (1.0, 1.0, 1.0)}


_WHITES = {(name, obs): np.array(xyz) for name, table in _illuminants.items() for obs, xyz in table.items()}


def xyz_tristimulus_values(*, illuminant, observer, dtype=float):
    """The CIE XYZ tristimulus values of an illuminant's white for an observer (skimage's), a new array."""
    illuminant = illuminant.upper()
    observer = observer.upper()
    try:
        white = _WHITES[illuminant, observer]
    except KeyError:
        raise ValueError(f"Unknown illuminant/observer combination (`{illuminant}`, `{observer}`)") from None
    return white.astype(dtype)


# ---------------------------------------------------------------------------------------------------
# Per-pixel kernels over NumPy blocks (label2rgb's; the conversions run in C++)
# ---------------------------------------------------------------------------------------------------
def _run(kernel, arr, out, *more):
    """kernel(pixels (n, c), out (n, k), *more pixels) over all pixels of channel-last `arr` (and of the
    arrays `more` of its pixel shape) into the C-contiguous `out`. NumPy: blocks of pixels on the engine's
    threads."""
    def block(o, *a):
        kernel(a[0].reshape(-1, a[0].shape[-1]), o.reshape(-1, o.shape[-1]),
               *(x.reshape(-1, x.shape[-1]) for x in a[1:]))

    arrays = (out, arr) + more
    # scikit-image's divisions by zero and casts of NaN are expected (their results are masked or kept)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if all(type(a) is np.ndarray for a in arrays) and arr.shape[:-1]:
            if all(a.flags.c_contiguous for a in arrays):   # one pixel axis: blocks of any length
                arrays = tuple(a.reshape(-1, a.shape[-1]) for a in arrays)
            blockwise_rows(block, *arrays)
        else:
            block(*arrays)


# ---------------------------------------------------------------------------------------------------
# The C++ conversions
# ---------------------------------------------------------------------------------------------------
def _check_channels(arr, n=3):
    if arr.shape[-1] != n:
        raise ValueError(f"the input array must have size {n} along `channel_axis`, got {arr.shape}")


def rgb2lab_numpy(rgb):
    """rgb2lab (D65, 2 degrees) of a channel-last float NumPy image by scikit-image's own NumPy operations in its
    order (its BLAS product, NumPy's power and cbrt), bit for bit: for callers whose result hinges on the last
    bits (quickshift's densities break near-ties by 1e-5 noise). The public conversions run the fused C++ pass."""
    arr = rgb.copy()
    mask = arr > 0.04045
    arr[mask] = np.power((arr[mask] + 0.055) / 1.055, 2.4)
    arr[~mask] /= 12.92
    arr = (arr @ xyz_from_rgb.T.astype(arr.dtype)) / xyz_tristimulus_values(illuminant="D65", observer="2",
                                                                             dtype=arr.dtype)
    mask = arr > 0.008856
    arr[mask] = np.cbrt(arr[mask])
    arr[~mask] = 7.787 * arr[~mask] + 16.0 / 116.0
    x, y, z = arr[..., 0], arr[..., 1], arr[..., 2]
    return np.concatenate([v[..., np.newaxis] for v in (116.0 * y - 16.0, 500.0 * (x - y), 200.0 * (y - z))],
                          axis=-1)


def _prepare(image, channel_axis, n=3, needs_array=False):
    """(xp, channel-last array, axis to move results back to, float dtype): skimage's channel_as_last_axis
    and _prepare_colorarray, without converting (the C++ pass converts as it reads). needs_array: the
    function reads ``.ndim`` first, where lists fail (AttributeError) unless a channel axis was moved."""
    if needs_array and moved_channel_axis(channel_axis) is None:
        array_argument(image, "ndim")
    image = as_image(image)
    xp = xp_of(image)
    arr, back = channel_as_last_axis(image, channel_axis)
    _check_channels(arr, n)
    return xp, arr, back, _float_type(arr.dtype)


def _float_type(dtype):
    """supported_float_type, refusing what img_as_float refuses (object arrays) as scikit-image does."""
    if dtype.kind == "O":
        raise ValueError(f"Cannot convert from {dtype} to float64.")
    return supported_float_type(dtype)


def _core_convert(arr, out, conversion, matrix=None, vec=None):
    """One C++ pass of `conversion` from the channel-last `arr` into `out` (channel-last, its float dtype);
    float16 (no C++ type) is read as float32, another byte order as the native one. Returns the number of
    pixels whose Z was clipped (lab2xyz, lab2rgb)."""
    if arr.dtype == np.float16 or not arr.dtype.isnative:
        arr = arr.astype(np.float32 if arr.dtype == np.float16 else arr.dtype.newbyteorder("="))
    m = [] if matrix is None else np.asarray(matrix, np.float64).ravel().tolist()
    v = [] if vec is None else np.asarray(vec, np.float64).ravel().tolist()
    return _core.color_convert(arr, out, conversion, m, v, stream=stream_ptr(arr))


def _convert(image, channel_axis, conversion, *, matrix=None, vec=None, channels=3, needs_array=False,
             prepared=None):
    """A conversion of an image whose channels are at `channel_axis` into a new float image, the result's
    channels where the input had them (channels None: one channel, dropped, as rgb2gray)."""
    xp, arr, back, dt = prepared or _prepare(image, channel_axis, needs_array=needs_array)
    out = xp.empty(arr.shape[:-1] + (channels or 1,), dt)
    count = _core_convert(arr, out, conversion, matrix, vec)
    if channels is None:
        out = out.reshape(arr.shape[:-1])
    elif back is not None:
        out = xp.moveaxis(out, -1, back)
    return out, count


def _conversion(name, matrix=None, offsets=None, channels=3):
    """A public conversion that is one C++ pass with fixed constants."""
    conversion = getattr(_core.ColorConversion, name)

    def convert(image, *, channel_axis=-1):
        return _convert(image, channel_axis, conversion, matrix=matrix, vec=offsets, channels=channels)[0]
    return convert


_Conv = _core.ColorConversion


@engine_aware("rgb")
def rgb2hsv(rgb, *, channel_axis=-1):
    return _convert(rgb, channel_axis, _Conv.RgbToHsv, needs_array=True)[0]


@engine_aware("hsv")
def hsv2rgb(hsv, *, channel_axis=-1):
    return _conversion("HsvToRgb")(hsv, channel_axis=channel_axis)


@engine_aware("xyz")
def xyz2rgb(xyz, *, channel_axis=-1):
    return _conversion("XyzToRgb", rgb_from_xyz)(xyz, channel_axis=channel_axis)


@engine_aware("rgb")
def rgb2xyz(rgb, *, channel_axis=-1):
    return _conversion("RgbToXyz", xyz_from_rgb)(rgb, channel_axis=channel_axis)


@engine_aware("rgb")
def rgb2rgbcie(rgb, *, channel_axis=-1):
    return _conversion("Matrix", rgbcie_from_rgb)(rgb, channel_axis=channel_axis)


@engine_aware("rgbcie")
def rgbcie2rgb(rgbcie, *, channel_axis=-1):
    return _conversion("Matrix", rgb_from_rgbcie)(rgbcie, channel_axis=channel_axis)


@engine_aware("rgb")
def rgb2gray(rgb, *, channel_axis=-1):
    return _conversion("Matrix", _GRAY, channels=None)(rgb, channel_axis=channel_axis)


@engine_aware("rgb")
def rgb2yuv(rgb, *, channel_axis=-1):
    return _conversion("Matrix", yuv_from_rgb)(rgb, channel_axis=channel_axis)


@engine_aware("rgb")
def rgb2yiq(rgb, *, channel_axis=-1):
    return _conversion("Matrix", yiq_from_rgb)(rgb, channel_axis=channel_axis)


@engine_aware("rgb")
def rgb2ypbpr(rgb, *, channel_axis=-1):
    return _conversion("Matrix", ypbpr_from_rgb)(rgb, channel_axis=channel_axis)


@engine_aware("rgb")
def rgb2ycbcr(rgb, *, channel_axis=-1):
    return _conversion("Matrix", ycbcr_from_rgb, _YCBCR_OFFSETS)(rgb, channel_axis=channel_axis)


@engine_aware("rgb")
def rgb2ydbdr(rgb, *, channel_axis=-1):
    return _conversion("Matrix", ydbdr_from_rgb)(rgb, channel_axis=channel_axis)


@engine_aware("yuv")
def yuv2rgb(yuv, *, channel_axis=-1):
    return _conversion("Matrix", rgb_from_yuv)(yuv, channel_axis=channel_axis)


@engine_aware("yiq")
def yiq2rgb(yiq, *, channel_axis=-1):
    return _conversion("Matrix", rgb_from_yiq)(yiq, channel_axis=channel_axis)


@engine_aware("ypbpr")
def ypbpr2rgb(ypbpr, *, channel_axis=-1):
    return _conversion("Matrix", rgb_from_ypbpr)(ypbpr, channel_axis=channel_axis)


@engine_aware("ydbdr")
def ydbdr2rgb(ydbdr, *, channel_axis=-1):
    return _conversion("Matrix", rgb_from_ydbdr)(ydbdr, channel_axis=channel_axis)


_YCBCR_OFFSETS = (16, 128, 128)


@engine_aware("ycbcr")
def ycbcr2rgb(ycbcr, *, channel_axis=-1):
    if moved_channel_axis(channel_axis) is None:   # scikit-image's ycbcr.copy()[..., 0] on what it was given
        if isinstance(ycbcr, list):
            raise TypeError("list indices must be integers or slices, not tuple")
        if not hasattr(ycbcr, "copy"):
            raise AttributeError(f"{type(ycbcr).__name__!r} object has no attribute 'copy'")
    ycbcr = as_image(ycbcr)
    arr, _ = channel_as_last_axis(ycbcr, channel_axis)
    if arr.ndim:
        # scikit-image subtracts the offsets in the input's own dtype, before converting it (integers wrap,
        # an int8 input refuses 128, bool refuses subtraction, fewer than 3 channels fail to index): the same
        # on one pixel raises the same
        probe = arr[(slice(0, 1),) * (arr.ndim - 1)].copy()
        probe[..., 0] -= 16
        probe[..., 1] -= 128
        probe[..., 2] -= 128
    prepared = _prepare(ycbcr, channel_axis)
    if arr.dtype == np.float16:   # subtracted in float16 here (C++ has no float16), the pass reads float32
        xp, arr, back, dt = prepared
        prepared = xp, arr - xp.asarray(_YCBCR_OFFSETS, np.float16), back, dt
        return _convert(ycbcr, channel_axis, _Conv.Matrix, matrix=rgb_from_ycbcr, prepared=prepared)[0]
    return _convert(ycbcr, channel_axis, _Conv.OffsetMatrix, matrix=rgb_from_ycbcr, vec=_YCBCR_OFFSETS,
                    prepared=prepared)[0]


def _white(illuminant, observer, dtype=float):
    return xyz_tristimulus_values(illuminant=illuminant, observer=observer, dtype=dtype)


@engine_aware("xyz")
def xyz2lab(xyz, illuminant="D65", observer="2", *, channel_axis=-1):
    prepared = _prepare(xyz, channel_axis)
    white = _white(illuminant, observer)   # after the shape check, as scikit-image checks them
    return _convert(xyz, channel_axis, _Conv.XyzToLab, vec=white, prepared=prepared)[0]


def _lab(lab, channel_axis, illuminant, observer, conversion, matrix=None):
    """lab2xyz and lab2rgb: one float32 pixel whose Z is clipped computes in float64 (scikit-image stacks it
    with the int 0 there); the clipped pixels counted."""
    xp, arr, back, dt = _prepare(lab, channel_axis)
    white = _white(illuminant, observer)
    if arr.ndim == 1 and dt == np.float32:
        L, _, b = arr.astype(dt)
        if bool((L + 16.0) / 116.0 - b / 200.0 < 0):
            arr, dt = arr.astype(np.float64), np.dtype(np.float64)
    return _convert(lab, channel_axis, conversion, matrix=matrix, vec=white, prepared=(xp, arr, back, dt))


def _warn_negative_z(count, via=""):
    if count:
        warn_user(f"Conversion from CIE-LAB{via} to XYZ color space resulted in {count} negative Z values that "
                  "have been clipped to zero" if not via else
                  f"Conversion from CIE-LAB, via XYZ to sRGB color space resulted in {count} negative Z values "
                  "that have been clipped to zero")


@engine_aware("lab")
def lab2xyz(lab, illuminant="D65", observer="2", *, channel_axis=-1):
    out, count = _lab(lab, channel_axis, illuminant, observer, _Conv.LabToXyz)
    _warn_negative_z(count)
    return out


@engine_aware("rgb")
def rgb2lab(rgb, illuminant="D65", observer="2", *, channel_axis=-1):
    prepared = _prepare(rgb, channel_axis)
    white = _white(illuminant, observer)
    return _convert(rgb, channel_axis, _Conv.RgbToLab, matrix=xyz_from_rgb, vec=white, prepared=prepared)[0]


@engine_aware("lab")
def lab2rgb(lab, illuminant="D65", observer="2", *, channel_axis=-1):
    out, count = _lab(lab, channel_axis, illuminant, observer, _Conv.LabToRgb, rgb_from_xyz)
    _warn_negative_z(count, via=True)
    return out


def _luv(image, channel_axis, conversion, illuminant="D65", observer="2", matrix=None, needs_array=False):
    prepared = _prepare(image, channel_axis, needs_array=needs_array)
    white = _white(illuminant, observer, prepared[3])   # in the pixels' float type, as scikit-image's
    return _convert(image, channel_axis, conversion, matrix=matrix, vec=white, prepared=prepared)[0]


@engine_aware("xyz")
def xyz2luv(xyz, illuminant="D65", observer="2", *, channel_axis=-1):
    return _luv(xyz, channel_axis, _Conv.XyzToLuv, illuminant, observer, needs_array=True)


@engine_aware("luv")
def luv2xyz(luv, illuminant="D65", observer="2", *, channel_axis=-1):
    return _luv(luv, channel_axis, _Conv.LuvToXyz, illuminant, observer)


@engine_aware("rgb")
def rgb2luv(rgb, *, channel_axis=-1):
    return _luv(rgb, channel_axis, _Conv.RgbToLuv, matrix=xyz_from_rgb)


@engine_aware("luv")
def luv2rgb(luv, *, channel_axis=-1):
    return _luv(luv, channel_axis, _Conv.LuvToRgb, matrix=rgb_from_xyz)


def _stain_matrix(conv_matrix):
    """The matrix as 2-D (a vector as one column: the product then has no channel axis, as NumPy's)."""
    m = np.asarray(conv_matrix)
    if m.ndim == 1 and len(m) == 3:
        return m[:, None], True
    if m.ndim != 2 or m.shape[0] != 3:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                         f"(n?,k),(k,m?)->(n?,m?) (size {m.shape[0] if m.ndim else 0} is different from 3)")
    return m, False


_STAIN_GROUP = 8   # output channels per C++ pass


def _stains(image, channel_axis, conversion, m):
    """separate_stains and combine_stains: float64 pixels times the 3 x k matrix `m` (k output channels, none
    for a vector), the input read in its float type."""
    m, vector = _stain_matrix(m)
    dt = np.result_type(np.float64, m.dtype)   # the log divided by a NumPy float64: float64 whatever the input
    xp, arr, back, _ = _prepare(image, channel_axis)
    out = xp.empty(arr.shape[:-1] + (m.shape[1],), np.float64)
    for j in range(0, m.shape[1], _STAIN_GROUP):
        _core_convert(arr, out[..., j:j + _STAIN_GROUP], conversion, m[:, j:j + _STAIN_GROUP].T)
    out = out.astype(dt, copy=False)
    if vector:
        out = out.reshape(arr.shape[:-1])
    return out if back is None else xp.moveaxis(out, -1, back)


@engine_aware("rgb")
def separate_stains(rgb, conv_matrix, *, channel_axis=-1):
    return _stains(rgb, channel_axis, _Conv.SeparateStains, conv_matrix)


@engine_aware("stains")
def combine_stains(stains, conv_matrix, *, channel_axis=-1):
    # exp(-(stains * log_adjust) @ m) computed as exp((stains * log_adjust) @ -m): the same bits
    return _stains(stains, channel_axis, _Conv.CombineStains, -np.asarray(conv_matrix))


@engine_aware("rgb")
def rgb2hed(rgb, *, channel_axis=-1):
    return separate_stains(rgb, hed_from_rgb, channel_axis=channel_axis)


@engine_aware("hed")
def hed2rgb(hed, *, channel_axis=-1):
    return combine_stains(hed, rgb_from_hed, channel_axis=channel_axis)


def _lab_like(image, channel_axis, conversion):
    """lab2lch and lch2lab: channels 1 and 2 replaced, any further channels kept (skimage's
    _prepare_lab_array: at least 3 channels)."""
    image = as_image(image)
    xp = xp_of(image)
    arr, back = channel_as_last_axis(image, channel_axis)
    if arr.shape[-1] < 3:
        raise ValueError("Input image has less than 3 channels.")
    dt = _float_type(arr.dtype)
    out = xp.empty(arr.shape, dt)
    _core_convert(arr, out[..., :3], conversion)
    if arr.shape[-1] > 3:   # the further channels as img_as_float makes them
        extra = out[..., 3:]
        extra[...] = arr[..., 3:]
        if arr.dtype.kind in "iu":
            extra *= 1.0 / np.iinfo(arr.dtype).max
            if arr.dtype.kind == "i":
                xp.maximum(extra, -1.0, out=extra)
    return out if back is None else xp.moveaxis(out, -1, back)


@engine_aware("lab")
def lab2lch(lab, *, channel_axis=-1):
    return _lab_like(lab, channel_axis, _Conv.LabToLch)


@engine_aware("lch")
def lch2lab(lch, *, channel_axis=-1):
    return _lab_like(lch, channel_axis, _Conv.LchToLab)


@engine_aware("image")
def gray2rgb(image, *, channel_axis=-1):
    return _stack_channels(as_image(image), (), channel_axis)


def _stack_channels(arr, extra, channel_axis):
    """np.stack((arr,) * 3 + extra, axis=channel_axis): channel-last NumPy output filled on the engine's
    threads."""
    xp = xp_of(arr)
    planes = (arr,) * 3 + tuple(extra)
    if type(arr) is not np.ndarray or arr.ndim == 0 or channel_axis not in (-1, arr.ndim):
        return xp.stack(planes, axis=channel_axis)
    return stack_last(planes)


@engine_aware("image")
def gray2rgba(image, alpha=None, *, channel_axis=-1):
    arr = as_image(image)
    xp = xp_of(arr)
    if alpha is None:
        from ..util._dtype import dtype_limits
        alpha = dtype_limits(arr, clip_negative=False)[1]
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        alpha_arr = xp.asarray(alpha).astype(arr.dtype)
    if not bool(xp.array_equal(alpha_arr, xp.asarray(alpha))):
        warn_user(f"alpha cannot be safely cast to image dtype {arr.dtype.name}")
    try:
        alpha_arr = xp.broadcast_to(alpha_arr, arr.shape)
    except ValueError as e:
        raise ValueError("alpha.shape must match image.shape") from e
    return _stack_channels(arr, (alpha_arr,), channel_axis)


def _validate_channel_axis(channel_axis, ndim):
    if not isinstance(channel_axis, int):
        raise TypeError("channel_axis must be an integer")
    if channel_axis < -ndim or channel_axis >= ndim:
        raise np.exceptions.AxisError("channel_axis exceeds array dimensions")


@engine_aware("rgba")
def rgba2rgb(rgba, background=(1, 1, 1), *, channel_axis=-1):
    arr = as_image(rgba)
    xp = xp_of(arr)
    _validate_channel_axis(channel_axis, arr.ndim)
    channel_axis = channel_axis % arr.ndim
    if arr.shape[channel_axis] != 4:
        raise ValueError(f"the input array must have size 4 along `channel_axis`, got {arr.shape}")
    dt = _float_type(arr.dtype)
    bg = np.ravel(np.asarray(background)).astype(dt)
    if len(bg) != 3:
        raise ValueError(f"background must be an array-like containing 3 RGB values. Got {len(bg)} items")
    if np.any(bg < 0) or np.any(bg > 1):
        raise ValueError("background RGB values must be floats between 0 and 1.")
    arr = xp.moveaxis(arr, channel_axis, -1)
    out = xp.empty(arr.shape[:-1] + (3,), dt)
    _core_convert(arr, out, _Conv.RgbaToRgb, vec=bg)
    return xp.moveaxis(out, -1, channel_axis)


_SPACES = ("rgb", "hsv", "rgb cie", "xyz", "yuv", "yiq", "ypbpr", "ycbcr", "ydbdr")


def _identity(arr, *, channel_axis=-1):
    return arr


@engine_aware("arr")
def convert_colorspace(arr, fromspace, tospace, *, channel_axis=-1):
    """Convert between the colour spaces named by `fromspace` and `tospace` (via RGB)."""
    fromdict = dict(zip(_SPACES, (_identity, hsv2rgb, rgbcie2rgb, xyz2rgb, yuv2rgb, yiq2rgb, ypbpr2rgb,
                                  ycbcr2rgb, ydbdr2rgb)))
    todict = dict(zip(_SPACES, (_identity, rgb2hsv, rgb2rgbcie, rgb2xyz, rgb2yuv, rgb2yiq, rgb2ypbpr,
                                rgb2ycbcr, rgb2ydbdr)))
    fromspace = fromspace.lower()
    tospace = tospace.lower()
    if fromspace not in fromdict:
        raise ValueError(f"`fromspace` has to be one of {fromdict.keys()}")
    if tospace not in todict:
        raise ValueError(f"`tospace` has to be one of {todict.keys()}")
    return todict[tospace](fromdict[fromspace](arr, channel_axis=channel_axis), channel_axis=channel_axis)

"""skimage.transform's warps (0.26): warp, warp_coords, warp_polar, resize, rescale, rotate, swirl,
resize_local_mean and downscale_local_mean, on ndimg's interpolation.

scikit-image warps a 2-D image (with or without a trailing channel axis) by a homography at orders 1 and 3
with its own Cython loop (_warp_fast: bilinear, or Catmull-Rom bicubic, which is not a B-spline), and
everything else with scipy.ndimage.map_coordinates at computed coordinates, its numpy.pad mode names
translated to scipy's. ndimg does the same on its engines: the homography loop is the C++ primitive
``_core.warp_homography``; affine matrices at orders 2, 4 and 5 run ndimg.ndimage.affine_transform (no
coordinate array), projective ones and order 0 map_coordinates at coordinates computed on the engine as
scikit-image computes them (order 0: their rounding decides ties); callables
(``cr = f(cr, **map_args)``, scikit-image's (col, row) convention) are evaluated on the host as there
(ndimg's own swirl and polar mappings run on the engine). resize is a Gaussian (anti-aliasing) and
ndimg.ndimage.zoom with grid_mode, as scikit-image's.
"""
from __future__ import annotations

import functools
import math
import warnings

import numpy as np

from .. import _core
from .._blocks import _on_threads
from .._engine import engine_aware, stream_ptr, xp_of
from .._rules import channel_as_last_axis, convert_to_float, interpolation_order
from . import _warps_dask as _wd
from ..filters._window import _as_int as safe_as_int
from ..measure._block import block_reduce
from ..ndimage import affine_transform, gaussian_filter, map_coordinates, zoom
from ..ndimage._interpolation import _host

# numpy.pad's mode names (scikit-image's) -> scipy.ndimage's (scikit-image's _to_ndimage_mode, with the grid
# variants of constant and wrap)
_NDI_MODES = {"constant": "grid-constant", "edge": "nearest", "symmetric": "reflect", "reflect": "mirror",
              "wrap": "grid-wrap"}
# the classes whose params scikit-image's warp takes as a homography matrix (and their subclasses:
# Euclidean); matched by name so that scikit-image's transforms and ndimg's serve alike
_HOMOGRAPHIES = ("ProjectiveTransform", "AffineTransform", "SimilarityTransform")


def _ndi_mode(mode):
    try:
        return _NDI_MODES[mode]
    except (KeyError, TypeError):
        raise ValueError(f"Unknown mode: '{mode}', or cannot translate mode. The mode should be one of 'constant', "
                         "'edge', 'symmetric', 'reflect', or 'wrap'. See the documentation of numpy.pad for more "
                         "info.") from None


_CALLABLE_2D = "Only 2-D images (grayscale or color) are supported, when providing a callable `inverse_map`."


def _warn_biquadratic(stacklevel):
    warnings.warn("Bi-quadratic interpolation behavior has changed due to a bug in the implementation of "
                  "scikit-image (it now wraps scipy's interpolation); use bi-linear or bi-cubic interpolation "
                  "instead.", UserWarning, stacklevel=stacklevel + 1)


def _homography(inverse_map):
    """The 3x3 matrix scikit-image's warp reads from `inverse_map` (a (3, 3) array, or a projective, affine or
    similarity transform), else None."""
    if hasattr(inverse_map, "shape") and hasattr(inverse_map, "dtype"):
        return inverse_map if tuple(inverse_map.shape) == (3, 3) else None
    if any(c.__name__ in _HOMOGRAPHIES for c in type(inverse_map).__mro__):
        params = np.asarray(inverse_map.params)
        return params if params.shape == (3, 3) else None
    return None


def _convert(image, preserve_range):
    """convert_to_float (Dask arrays chunk by chunk)."""
    if _wd.is_dask(image):
        return _wd.convert(image, preserve_range)
    return convert_to_float(image, preserve_range)


def _clip_warp_output(input_image, output_image, mode, cval, clip):
    """scikit-image's clip of a warp's output to the input's range (NaN-aware), widened to cval where the
    constant mode put cval outside that range into the output: in place, returned (Dask: a lazy clip)."""
    if _wd.is_dask(output_image):
        return _wd.clip_warp_output(input_image, output_image, mode, cval, clip)
    if not clip:
        return output_image
    xp = xp_of(input_image)
    min_val = xp.min(input_image)
    if bool(xp.isnan(min_val)):
        min_func, max_func = xp.nanmin, xp.nanmax
        min_val = min_func(input_image)
    else:
        min_func, max_func = xp.min, xp.max
    max_val = max_func(input_image)
    if mode == "constant" and not bool(min_val <= cval <= max_val) and \
            bool(min_func(output_image) <= cval <= max_func(output_image)):
        cval = input_image.dtype.type(cval)
        min_val, max_val = xp.minimum(min_val, cval), xp.maximum(max_val, cval)
    xp.clip(output_image, min_val, max_val, out=output_image)
    return output_image


def _stack_channels(coords2, shape, dtype, xp):
    """(len(shape),) + shape coordinates from (row, col) planes: each channel reads its own index."""
    coords = xp.empty((len(shape),) + tuple(shape), dtype=dtype)
    if len(shape) == 3:
        coords[0] = coords2[0][..., None]
        coords[1] = coords2[1][..., None]
        coords[2] = xp.arange(shape[2], dtype=dtype)
    else:
        coords[0], coords[1] = coords2
    return coords


def _coords_of(coord_map, shape, dtype, xp):
    """scikit-image's warp_coords in namespace xp: coord_map applied to the (P, 2) (col, row) points in its
    order (columns outer), as (ndim, rows, cols[, bands])."""
    shape = tuple(int(s) for s in shape)
    rows, cols = shape[0], shape[1]
    xy = xp.indices((cols, rows), dtype=dtype).reshape(2, -1).T
    xy = coord_map(xy)
    xy = xy.T.reshape((-1, cols, rows)).swapaxes(1, 2)
    return _stack_channels((xy[1], xy[0]), shape, dtype, xp)


def warp_coords(coord_map, shape, dtype=np.float64):
    """Source coordinates for the output of a 2-D warp (skimage.transform.warp_coords): ``coord_map`` maps
    (P, 2) arrays of output (col, row) to input (col, row); the result is (ndim, rows, cols[, bands]) for
    map_coordinates. Evaluated on the host (the callable is the caller's)."""
    return _coords_of(coord_map, safe_as_int(shape), dtype, np)


def _apply_homography(matrix, xp):
    """(P, 2) points through a 3x3 homography as scikit-image's ProjectiveTransform applies it (the same
    operations in the same order, so that order-0 ties round alike; a zero w becomes eps)."""
    m = xp.asarray(matrix)

    def apply(xy):
        h = xp.concatenate((xy, xp.ones((xy.shape[0], 1))), axis=1) @ m.T
        w = h[:, -1]
        return h[:, :-1] / xp.where(w == 0, np.finfo(float).eps, w)[:, None]

    return apply


def _matrix_warp(image, matrix, output_shape, order, mode, cval):
    """warp by a homography at orders other than scikit-image's fast ones (its map_coordinates path)."""
    xp = xp_of(image)
    ndi_mode = _ndi_mode(mode)
    nd = image.ndim
    if order > 0 and matrix[2, 0] == 0 and matrix[2, 1] == 0 and matrix[2, 2] == 1:
        # affine: output (row, col[, ch]) -> input (row, col[, ch]) without a coordinate array (order 0 takes
        # the coordinates below: their rounding decides ties)
        m = np.eye(nd)
        m[:2, :2] = matrix[1::-1, 1::-1]
        offset = np.zeros(nd)
        offset[:2] = matrix[1::-1, 2]
        return affine_transform(image, m, offset, output_shape=tuple(output_shape), order=order, mode=ndi_mode,
                                cval=cval, prefilter=order > 1)
    coords = _coords_of(_apply_homography(matrix, xp), output_shape, np.float64, xp)
    return map_coordinates(image, coords, order=order, mode=ndi_mode, cval=cval, prefilter=order > 1)


def _fast_warp(image, matrix, output_shape, order, mode, cval):
    """scikit-image's _warp_fast: the C++ homography loop (bilinear or Catmull-Rom), channels in turn."""
    _ndi_mode(mode)
    if _wd.is_dask(image):
        return _wd.fast_warp(image, matrix, output_shape, order, mode, cval)
    xp = xp_of(image)
    out = xp.empty((int(output_shape[0]), int(output_shape[1])) + image.shape[2:], dtype=image.dtype)
    _core.warp_homography(image, matrix.ravel().tolist(), out, order, getattr(_core.PadMode, mode), float(cval), [],
                          stream=stream_ptr(out))
    return out


@engine_aware("image")
def warp(image, inverse_map, map_args=None, output_shape=None, order=None, mode="constant", cval=0.0, clip=True,
         preserve_range=False):
    """Warp an image by an inverse coordinate map (skimage.transform.warp): a transform object (scikit-image's
    or ndimg's), a (3, 3) homography, a callable ``cr = f(cr, **map_args)`` on (col, row) arrays, or an array of
    input coordinates of every output element (n-D). Orders 0-5, scikit-image's modes, cval, clip and
    preserve_range; the output is float (order 0: the input's dtype)."""
    if map_args is None:
        map_args = {}
    if image.size == 0:
        raise ValueError("Cannot warp empty image with dimensions", image.shape)
    order = interpolation_order(image.dtype, order)
    if order > 0:
        image = _convert(image, preserve_range)
    output_shape = np.array(image.shape) if output_shape is None else safe_as_int(output_shape)
    if order == 2:
        _warn_biquadratic(2)
    matrix = _homography(inverse_map)
    warped = None
    if matrix is not None:
        matrix = _host(matrix)
        if order in (1, 3) and not map_args and image.ndim in (2, 3):
            warped = _fast_warp(image, matrix, output_shape, order, mode, cval)
    if warped is None:
        if matrix is None and hasattr(inverse_map, "shape") and hasattr(inverse_map, "dtype"):
            # a Dask image's map_coordinates takes coordinates of any library (moved to its chunks' there)
            coords = inverse_map if _wd.is_dask(image) else xp_of(image).asarray(inverse_map)
            warped = map_coordinates(image, coords, order=order, mode=_ndi_mode(mode), cval=cval, prefilter=order > 1)
        else:
            if image.ndim < 2 or image.ndim > 3:
                raise ValueError(_CALLABLE_2D)
            if image.ndim == 3 and len(output_shape) == 2:
                output_shape = (output_shape[0], output_shape[1], image.shape[2])
            output_shape = tuple(int(s) for s in output_shape)
            if matrix is not None and not map_args:
                warped = _matrix_warp(image, matrix, output_shape, order, mode, cval)
            else:
                coords = warp_coords(lambda xy: inverse_map(xy, **map_args), output_shape)
                warped = map_coordinates(image, xp_of(image).asarray(coords), order=order, mode=_ndi_mode(mode),
                                         cval=cval, prefilter=order > 1)
    return _clip_warp_output(image, warped, mode, cval, clip)


def _preprocess_resize_output_shape(image, output_shape):
    """scikit-image's: trailing singleton axes added to the image where output_shape is longer, the channel
    count kept where it is one shorter."""
    output_shape = tuple(output_shape)
    if len(output_shape) > image.ndim:
        image = image.reshape(image.shape + (1,) * (len(output_shape) - image.ndim))
    elif len(output_shape) == image.ndim - 1:
        output_shape = output_shape + (image.shape[-1],)
    elif len(output_shape) < image.ndim:
        raise ValueError("output_shape length cannot be smaller than the image number of dimensions")
    return image, output_shape


@engine_aware("image")
def resize(image, output_shape, order=None, mode="reflect", cval=0, clip=True, preserve_range=False,
           anti_aliasing=None, anti_aliasing_sigma=None):
    """Resize an n-D image to `output_shape` (skimage.transform.resize): a Gaussian against aliasing where it
    shrinks, then ndimg.ndimage.zoom in grid mode at order 0-5."""
    image, output_shape = _preprocess_resize_output_shape(image, output_shape)
    input_shape, input_type = image.shape, image.dtype
    if input_type == np.float16:
        image = image.astype(np.float32)
    if anti_aliasing is None:
        anti_aliasing = (input_type != bool and not (np.issubdtype(input_type, np.integer) and order == 0)
                         and any(x < y for x, y in zip(output_shape, input_shape)))
    if input_type == bool and anti_aliasing:
        raise ValueError("anti_aliasing must be False for boolean images")
    factors = np.divide(input_shape, output_shape)
    order = interpolation_order(input_type, order)
    if order > 0:
        image = _convert(image, preserve_range)
    ndi_mode = _ndi_mode(mode)
    filtered = image
    if anti_aliasing:
        if anti_aliasing_sigma is None:
            sigma = np.maximum(0, (factors - 1) / 2)
        else:
            sigma = np.atleast_1d(anti_aliasing_sigma) * np.ones_like(factors)
            if np.any(sigma < 0):
                raise ValueError("Anti-aliasing standard deviation must be greater than or equal to zero")
            if np.any((sigma > 0) & (factors <= 1)):
                warnings.warn("Anti-aliasing standard deviation greater than zero but not down-sampling along all "
                              "axes", UserWarning, stacklevel=2)
        filtered = gaussian_filter(image, sigma, cval=cval, mode=ndi_mode)
    out = zoom(filtered, [1 / f for f in factors], order=order, mode=ndi_mode, cval=cval, grid_mode=True)
    return _clip_warp_output(image, out, mode, cval, clip)


def _channel_last(fn):
    """scikit-image's channel_as_last_axis for functions of one image: the channel axis moved last for the
    call (channel_axis=-1) and moved back in the result."""
    @functools.wraps(fn)
    def wrapper(image, *args, channel_axis=None, **kwargs):
        if channel_axis is None:
            return fn(image, *args, channel_axis=None, **kwargs)
        moved, back = channel_as_last_axis(image, channel_axis)
        out = fn(moved, *args, channel_axis=-1, **kwargs)
        return out if back is None else xp_of(out).moveaxis(out, -1, back)

    return wrapper


@engine_aware("image")
@_channel_last
def rescale(image, scale, order=None, mode="reflect", cval=0, clip=True, preserve_range=False, anti_aliasing=None,
            anti_aliasing_sigma=None, *, channel_axis=None):
    """Scale an n-D image by `scale` (one factor, or one per spatial axis) (skimage.transform.rescale): resize
    to ``max(round(scale * shape), 1)``."""
    scale = np.atleast_1d(scale)
    multichannel = channel_axis is not None
    if len(scale) > 1:
        if len(scale) != image.ndim - multichannel:
            raise ValueError("Supply a single scale, or one value per spatial axis")
        if multichannel:
            scale = np.concatenate((scale, [1]))
    orig_shape = np.asarray(image.shape)
    output_shape = np.maximum(np.round(scale * orig_shape), 1)
    if multichannel:
        output_shape[-1] = orig_shape[-1]
    return resize(image, output_shape, order=order, mode=mode, cval=cval, clip=clip, preserve_range=preserve_range,
                  anti_aliasing=anti_aliasing, anti_aliasing_sigma=anti_aliasing_sigma)


@engine_aware("image")
def rotate(image, angle, resize=False, center=None, order=None, mode="constant", cval=0, clip=True,
           preserve_range=False):
    """Rotate an image by `angle` degrees counter-clockwise about `center` ((col, row); default the image's
    centre) (skimage.transform.rotate); with `resize` the output holds the whole rotated image. A warp by the
    rotation's homography: scikit-image's fast loop at orders 1 and 3."""
    rows, cols = image.shape[0], image.shape[1]
    if image.dtype == np.float16:
        image = image.astype(np.float32)
    center = np.array((cols, rows)) / 2.0 - 0.5 if center is None else np.asarray(center)
    # scikit-image's composition: translate by -center, rotate, translate back (SimilarityTransform params)
    theta = np.deg2rad(angle)
    c, s = math.cos(theta), math.sin(theta)
    shift_to, rot, shift_back = np.eye(3), np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]]), np.eye(3)
    shift_to[:2, 2] = -center
    shift_back[:2, 2] = center
    tform = shift_back @ rot @ shift_to
    output_shape = None
    if resize:
        corners = np.array([[0, 0, 1], [0, rows - 1, 1], [cols - 1, rows - 1, 1], [cols - 1, 0, 1]], dtype=float)
        inv = corners @ np.linalg.inv(tform).T
        inv = inv[:, :2] / inv[:, 2:]
        minc, minr = inv[:, 0].min(), inv[:, 1].min()
        maxc, maxr = inv[:, 0].max(), inv[:, 1].max()
        output_shape = np.around((maxr - minr + 1, maxc - minc + 1))
        translate = np.eye(3)
        translate[:2, 2] = (minc, minr)
        tform = tform @ translate
    tform[2] = (0, 0, 1)   # exactly affine: the fast loop
    return warp(image, tform, output_shape=output_shape, order=order, mode=mode, cval=cval, clip=clip,
                preserve_range=preserve_range)


@engine_aware("image")
def downscale_local_mean(image, factors, cval=0, clip=True):
    """Down-sample an n-D image by the mean of each block of `factors` (skimage.transform.downscale_local_mean),
    padded with `cval` to whole blocks; `clip` is unused, as there. The blocks are summed axis by axis as
    strided slices (one pass over the image) in NumPy's accumulator for np.mean, then divided."""
    ok = not np.isscalar(factors) and len(factors) == image.ndim and image.ndim > 0 and \
        all(isinstance(f, (int, np.integer)) and f >= 1 for f in factors)
    if not ok or image.dtype.kind not in "biuf":   # block_reduce's errors (and its object/complex means)
        return block_reduce(image, factors, np.mean, cval)
    xp = xp_of(image)
    pad = [(0, -n % f) for n, f in zip(image.shape, factors)]
    if any(p for _, p in pad):
        image = xp.pad(image, pad, mode="constant", constant_values=cval)
    acc_type = np.float32 if image.dtype in (np.float16, np.float32) else np.float64
    out_type = image.dtype if image.dtype.kind == "f" else np.dtype(np.float64)
    acc = image
    for axis, f in enumerate(factors):
        if f == 1:
            continue
        index = [slice(None)] * image.ndim
        total = None
        for i in range(f):
            index[axis] = slice(i, None, f)
            part = acc[tuple(index)]
            if total is None:
                total = part.astype(acc_type)
            else:
                total += part
        acc = total
    acc = acc.astype(acc_type, copy=acc is image)
    acc /= acc_type(math.prod(int(f) for f in factors))
    return acc.astype(out_type, copy=False)


def _engine_coords(plane, shape, xp):
    """The (ndim,) + shape input coordinates of a mapping of ndimg's own: plane(r0, r1, xp) gives the (row,
    col) input coordinates of output rows r0..r1; NumPy computes them in blocks of rows on the engine's
    threads (its ufuncs release the GIL)."""
    rows, cols = int(shape[0]), int(shape[1])
    if xp is not np:
        return _stack_channels(plane(0, rows, xp), shape, np.float64, xp)
    coords = np.empty((2, rows, cols))
    nblocks = max(1, min(rows, 64))

    def run(first, last):
        for b in range(first, last):
            r0, r1 = b * rows // nblocks, (b + 1) * rows // nblocks
            coords[0, r0:r1], coords[1, r0:r1] = plane(r0, r1, np)

    _on_threads(run, nblocks)
    return coords if len(shape) == 2 else _stack_channels(coords, shape, np.float64, np)


def _swirl_plane(cols, center, rotation, strength, radius):
    """scikit-image's swirl mapping of output rows r0..r1: output (row, col) -> input (row, col)."""
    x0, y0 = (float(v) for v in center)
    radius = radius / 5 * np.log(2)

    def plane(r0, r1, xp):
        x = xp.arange(cols, dtype=np.float64)[None, :] - x0
        y = xp.arange(r0, r1, dtype=np.float64)[:, None] - y0
        rho = xp.sqrt(x ** 2 + y ** 2)
        theta = rotation + strength * xp.exp(-rho / radius) + xp.arctan2(y, x)
        return y0 + rho * xp.sin(theta), x0 + rho * xp.cos(theta)

    return plane


def _mapped_warp(image, plane_of, output_shape, order, mode, cval, clip, preserve_range):
    """warp with a mapping of ndimg's own, its coordinates computed on the engine by plane_of(output shape)
    (see _engine_coords)."""
    if image.size == 0:
        raise ValueError("Cannot warp empty image with dimensions", image.shape)
    order = interpolation_order(image.dtype, order)
    if order > 0:
        image = _convert(image, preserve_range)
    output_shape = image.shape if output_shape is None else tuple(int(s) for s in safe_as_int(output_shape))
    if order == 2:
        _warn_biquadratic(3)
    if image.ndim < 2 or image.ndim > 3:
        raise ValueError(_CALLABLE_2D)
    if image.ndim == 3 and len(output_shape) == 2:
        output_shape = (output_shape[0], output_shape[1], image.shape[2])
    ndi_mode = _ndi_mode(mode)
    warped = map_coordinates(image, _engine_coords(plane_of(output_shape), output_shape, xp_of(image)), order=order,
                             mode=ndi_mode, cval=cval, prefilter=order > 1)
    return _clip_warp_output(image, warped, mode, cval, clip)


@engine_aware("image")
def swirl(image, center=None, strength=1, radius=100, rotation=0, output_shape=None, order=None, mode="reflect",
          cval=0, clip=True, preserve_range=False):
    """A swirl about `center` ((col, row); default the image's centre) (skimage.transform.swirl), its
    coordinates computed on the engine."""
    if center is None:
        center = np.array(image.shape)[:2][::-1] / 2
    return _mapped_warp(image, lambda shape: _swirl_plane(int(shape[1]), center, rotation, strength, radius),
                        output_shape, order, mode, cval, clip, preserve_range)


def _polar_plane(cols, k_angle, k_radius, center, log):
    """scikit-image's (log-)polar mapping of output rows r0..r1: (angle row, radius col) -> input (row, col)."""
    def plane(r0, r1, xp):
        angle = xp.arange(r0, r1, dtype=np.float64)[:, None] / k_angle
        rad = xp.arange(cols, dtype=np.float64)[None, :] / k_radius
        if log:
            rad = xp.exp(rad)
        return rad * xp.sin(angle) + center[0], rad * xp.cos(angle) + center[1]

    return plane


@engine_aware("image")
@_channel_last
def warp_polar(image, center=None, *, radius=None, output_shape=None, scaling="linear", channel_axis=None,
               **kwargs):
    """Remap an image to polar or log-polar coordinates (skimage.transform.warp_polar): output rows are angles
    (360 by default), columns radii; `kwargs` go to warp (order, mode, cval, clip, preserve_range)."""
    multichannel = channel_axis is not None
    if image.ndim != 2 and not multichannel:
        raise ValueError(f"Input array must be 2-dimensional when `channel_axis=None`, got {image.ndim}")
    if image.ndim != 3 and multichannel:
        raise ValueError(f"Input array must be 3-dimensional when `channel_axis` is specified, got {image.ndim}")
    if center is None:
        center = (np.array(image.shape)[:2] / 2) - 0.5
    if radius is None:
        w, h = np.array(image.shape)[:2] / 2
        radius = np.sqrt(w ** 2 + h ** 2)
    if output_shape is None:
        height, width = 360, int(np.ceil(radius))
        output_shape = (height, width)
    else:
        output_shape = safe_as_int(output_shape)
        height, width = output_shape[0], output_shape[1]
    if scaling == "linear":
        k_radius = width / radius
    elif scaling == "log":
        k_radius = width / np.log(radius)
    else:
        raise ValueError("Scaling value must be in {'linear', 'log'}")
    k_angle = height / (2 * np.pi)
    center = tuple(float(c) for c in center)
    unknown = set(kwargs) - {"order", "mode", "cval", "clip", "preserve_range"}
    if unknown:
        raise TypeError(f"warp() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    return _mapped_warp(image, lambda shape: _polar_plane(int(shape[1]), k_angle, k_radius, center, scaling == "log"),
                        output_shape, kwargs.get("order"), kwargs.get("mode", "constant"), kwargs.get("cval", 0.0),
                        kwargs.get("clip", True), kwargs.get("preserve_range", False))


def _local_mean_weights(old_size, new_size, grid_mode, dtype):
    """scikit-image's (new_size, old_size) area weights (rows sum to one: the overlap of each new cell with
    each old one, cells at pixel edges (grid_mode) or between pixel centres) as each new cell's run of old
    cells: (taps, weights), both (new_size, width), weights 0 past a run. Built per run, not as the dense
    matrix (new_size x old_size operations on the host: 65 ms for 3840 -> 1280); the overlaps are the dense
    matrix's values, a run's sum may round differently from the dense row's. A cell that overlaps nothing
    gets NaN weights (0 / 0), as the dense row does."""
    if grid_mode:
        old_breaks = np.linspace(0, old_size, num=old_size + 1, dtype=dtype)
        new_breaks = np.linspace(0, old_size, num=new_size + 1, dtype=dtype)
    else:
        old, new = old_size - 1, new_size - 1
        old_breaks = np.pad(np.linspace(0.5, old - 0.5, old, dtype=dtype), 1, "constant", constant_values=(0, old))
        val = np.inf if new == 0 else 0.5 * old / new
        new_breaks = np.pad(np.linspace(val, old - val, new, dtype=dtype), 1, "constant", constant_values=(0, old))
    # old cell j overlaps new cell i where old_breaks[j + 1] > new_breaks[i] and old_breaks[j] < new_breaks[i + 1]
    lo = np.searchsorted(old_breaks[1:], new_breaks[:-1], side="right")
    hi = np.searchsorted(old_breaks[:-1], new_breaks[1:], side="left") - 1
    runs = lo[:, None] + np.arange(max(int((hi - lo).max()), 0) + 1)
    taps = np.minimum(runs, old_size - 1)
    upper = np.minimum(new_breaks[1:, None], old_breaks[1:][taps])
    lower = np.maximum(new_breaks[:-1, None], old_breaks[:-1][taps])
    weights = np.where(runs <= hi[:, None], np.maximum(upper - lower, 0), 0).astype(dtype, copy=False)
    with np.errstate(invalid="ignore", divide="ignore"):
        weights /= weights.sum(axis=1, keepdims=True)
    return taps, weights


def _apply_weights(a, taps, w, axis, xp):
    """The area weights (taps, w) of _local_mean_weights applied along `axis` of `a` (scikit-image's tensordot
    with the dense weights): a few weighted gathers. A non-finite value makes its whole line NaN, as the
    dense product's zero weights times it do."""
    new = taps.shape[0]
    lazy = _wd.is_dask(a)
    # the weights in the array library of the image (of a Dask image's chunks: CuPy takes no NumPy operand),
    # each sent once; take's indices stay xp's (Dask's take splits NumPy indices by chunk)
    put = xp_of(a._meta).asarray if lazy else xp.asarray
    shape = [1] * a.ndim
    shape[axis] = new
    w_dev, taps_dev = put(np.ascontiguousarray(w.T)), xp.asarray(np.ascontiguousarray(taps.T))
    out = None
    for k in range(taps.shape[1]):
        term = xp.take(a, taps_dev[k], axis=axis)
        term *= w_dev[k].reshape(shape)
        if out is None:
            out = term
        else:
            out += term
    if lazy or not bool(xp.isfinite(a).all()):
        # the dense product's zero weights: NaN anywhere on the line, or an infinity outside the cell's run
        inf = xp.isinf(a)
        inside = None
        for k in range(taps.shape[1]):
            hit = xp.take(inf, taps_dev[k], axis=axis) & (w_dev[k] > 0).reshape(shape)
            inside = hit.astype(np.intp) if inside is None else inside + hit
        bad = xp.isnan(a).any(axis=axis, keepdims=True) | (inf.sum(axis=axis, keepdims=True) > inside)
        if lazy:   # Dask: the NaN lines as a lazy mask (no value is looked at now)
            return xp.where(bad, out.dtype.type(np.nan), out)
        out[bad] = np.nan
    return out


@engine_aware("image")
def resize_local_mean(image, output_shape, grid_mode=True, preserve_range=False, *, channel_axis=None):
    """Resize an n-D image by local means (area interpolation) (skimage.transform.resize_local_mean): along
    each axis a product with the (new, old) overlap weights."""
    xp = xp_of(image)
    if channel_axis is not None:
        if channel_axis < -image.ndim or channel_axis >= image.ndim:
            raise ValueError("invalid channel_axis")
        image = xp.moveaxis(image, channel_axis, -1)
        nc = image.shape[-1]
        output_ndim = len(output_shape)
        if output_ndim == image.ndim - 1:
            output_shape = tuple(output_shape) + (nc,)
        elif output_ndim == image.ndim:
            if output_shape[channel_axis] != nc:
                raise ValueError("Cannot reshape along the channel_axis. Use channel_axis=None to reshape along all "
                                 "axes.")
            channel_axis = channel_axis % image.ndim
            output_shape = tuple(output_shape[:channel_axis]) + tuple(output_shape[channel_axis:]) + (nc,)
        else:
            raise ValueError("len(output_shape) must be image.ndim or (image.ndim - 1) when a channel_axis is "
                             "specified.")
        resized = image
    else:
        resized, output_shape = _preprocess_resize_output_shape(image, output_shape)
    resized = _convert(resized, preserve_range)
    dtype = resized.dtype
    for axis, (old_size, new_size) in enumerate(zip(image.shape, output_shape)):
        if old_size == new_size:
            continue
        resized = _apply_weights(resized, *_local_mean_weights(old_size, new_size, grid_mode, dtype), axis, xp)
    if channel_axis is not None:
        resized = xp.moveaxis(resized, -1, channel_axis)
    return resized

"""scikit-image's shared conventions (dtype conversion, float types, argument checks), written once for
NumPy and CuPy working arrays. Tests hold them to scikit-image's own helpers."""
from __future__ import annotations

import math
import operator
import os
import sys

import numpy as np



def supported_float_type(dtype, allow_complex=False):
    """float16 -> float32, float32/float64 kept, everything else -> float64 (complex refused unless allowed)."""
    if isinstance(dtype, (tuple, list)):
        return np.result_type(*(supported_float_type(d, allow_complex) for d in dtype))
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        if not allow_complex:
            raise ValueError("complex valued input is not supported")
        return np.dtype(np.complex64) if dtype == np.complex64 else np.dtype(np.complex128)
    if dtype == np.float16 or dtype == np.float32:
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def img_as_float(image, force_copy=False):
    """scikit-image's img_as_float of a working array (NumPy or CuPy): ndimg.util's conversion, without the
    public function's engine routing."""
    from .util._dtype import convert

    return convert(image, np.floating, force_copy)


def convert_to_float(image, preserve_range):
    """skimage's convert_to_float: float16 -> float32; with preserve_range integers become float64
    unchanged, otherwise img_as_float."""
    if image.dtype == np.float16:
        return image.astype(np.float32)
    if preserve_range:
        if image.dtype.char not in "df":
            return image.astype(np.float64)
        return image
    return img_as_float(image)


def check_nD(array, ndim, arg_name="image"):
    """skimage's check_nD: ValueError for an empty array or one of the wrong dimensionality (anything else
    is looked at as a NumPy array, as there)."""
    if not hasattr(array, "ndim"):
        array = np.asanyarray(array)
    ndims = [ndim] if np.isscalar(ndim) else list(ndim)
    if array.size == 0:
        raise ValueError(f"The parameter `{arg_name}` cannot be an empty array")
    if array.ndim not in ndims:
        raise ValueError(
            f"The parameter `{arg_name}` must be a {'-or-'.join(str(n) for n in ndims)}-dimensional array")


def as_image(image):
    """Lists and scalars become NumPy arrays (scikit-image's coercion); engine arrays pass through."""
    if hasattr(image, "__array_namespace__") or hasattr(image, "__cuda_array_interface__") or isinstance(image, np.ndarray):
        return image
    return np.asarray(image)


def _physical_memory():
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # no sysconf: only the address-space bound applies
        return sys.maxsize


def check_allocation(shape, dtype, extra_bytes_per_element=0):
    """Where the reference would allocate an array of `shape` (it runs out of memory, we would not): NumPy's
    ValueError when the size overflows the address space, its MemoryError when the array (plus
    `extra_bytes_per_element` of working arrays the reference keeps beside it) exceeds physical memory.
    Raised before any work, instead of computing a result the reference cannot."""
    dtype = np.dtype(dtype)
    elements = math.prod(int(s) for s in shape)
    if elements * dtype.itemsize > sys.maxsize:
        raise ValueError("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.")
    if elements * (dtype.itemsize + extra_bytes_per_element) > _physical_memory():
        size = float(elements * dtype.itemsize)
        for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
            if size < 1024 or unit == "EiB":
                break
            size /= 1024
        raise MemoryError(f"Unable to allocate {size:.3g} {unit} for an array with shape {tuple(shape)} and data "
                          f"type {dtype}")


def channel_axis_index(channel_axis, ndim):
    """`channel_axis` as an axis in [0, ndim), refused as scikit-image's ``shape[channel_axis]`` refuses it."""
    axis = operator.index(channel_axis)
    if not -ndim <= axis < ndim:
        raise IndexError("tuple index out of range")
    return axis % ndim


def check_extendable(shape):
    """np.pad's ValueError for an empty axis, where scikit-image pads an image in a mode other than 'constant'."""
    if 0 in shape:
        raise ValueError(f"can't extend empty axis {list(shape).index(0)} using modes other than 'constant' or 'empty'")


def array_argument(image, attribute="dtype"):
    """`image` as given, where scikit-image reads its attributes without converting it: anything but an array
    fails there with AttributeError (it does not take lists or scalars)."""
    if hasattr(image, "dtype") and hasattr(image, "shape"):
        return image
    raise AttributeError(f"{type(image).__name__!r} object has no attribute {attribute!r}")


def interpolation_order(dtype, order):
    """scikit-image's _validate_interpolation_order: None -> 0 for bool, else 1; 0..5; bool only with 0."""
    if order is None:
        return 0 if dtype == bool else 1
    if order < 0 or order > 5:
        raise ValueError("Spline interpolation order has to be in the range 0-5.")
    if dtype == bool and order != 0:
        raise ValueError("Input image dtype is bool. Interpolation is not defined with bool data type. Please set "
                         "order to 0 or explicitly cast input image to another data type.")
    return order


def moved_channel_axis(channel_axis):
    """The axis scikit-image's channel_as_last_axis moves last, or None where it moves none (None, -1);
    ValueError for several channel axes."""
    if channel_axis is None:
        return None
    axes = (channel_axis,) if np.isscalar(channel_axis) else tuple(channel_axis)
    if len(axes) > 1:
        raise ValueError("only a single channel axis is currently supported")
    return None if axes[0] == -1 else axes[0]


def channel_as_last_axis(image, channel_axis):
    """scikit-image's channel_as_last_axis: (the image with its channel axis last, the axis to move results'
    channels back to, or None where nothing moved), for NumPy, CuPy and Dask arrays."""
    axis = moved_channel_axis(channel_axis)
    if axis is None:
        return image, None
    if type(image).__module__.startswith("dask"):
        import dask.array as da

        return da.moveaxis(image, axis, -1), axis
    from ._engine import xp_of

    return xp_of(image).moveaxis(image, axis, -1), axis

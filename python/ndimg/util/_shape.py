"""skimage.util.view_as_blocks and view_as_windows: strided views of the caller's array (NumPy or CuPy;
a PyTorch CUDA tensor gets a tensor view of its memory back)."""
from __future__ import annotations

import numbers

import numpy as np

from .._engine import engine_aware


def _as_strided(a, shape, strides):
    if isinstance(a, np.ndarray):
        return np.lib.stride_tricks.as_strided(a, shape=shape, strides=strides)
    import cupy

    return cupy.lib.stride_tricks.as_strided(a, shape=shape, strides=strides)


@engine_aware("arr_in", native=False)
def view_as_blocks(arr_in, block_shape):
    """The non-overlapping blocks of `arr_in` as a view of shape (n_blocks per axis..., block_shape...)."""
    if not isinstance(block_shape, tuple):
        raise TypeError("block needs to be a tuple")
    block = np.array(block_shape)
    if (block <= 0).any():
        raise ValueError("'block_shape' elements must be strictly positive")
    if block.size != arr_in.ndim:
        raise ValueError("'block_shape' must have the same length as 'arr_in.shape'")
    shape = np.array(arr_in.shape)
    if (shape % block).sum() != 0:
        raise ValueError("'block_shape' is not compatible with 'arr_in'")
    return _as_strided(arr_in, tuple(int(s) for s in shape // block) + tuple(int(b) for b in block),
                       tuple(int(s) for s in np.array(arr_in.strides) * block) + tuple(arr_in.strides))


def _is_array(a):
    if isinstance(a, np.ndarray):
        return True
    return type(a).__module__.split(".")[0] == "cupy" and hasattr(a, "__cuda_array_interface__")


@engine_aware("arr_in", native=False)
def view_as_windows(arr_in, window_shape, step=1):
    """Every window of `window_shape` (every `step`-th along each axis) as a view of shape
    (windows per axis..., window_shape...)."""
    if not _is_array(arr_in):
        raise TypeError("`arr_in` must be a numpy ndarray")
    ndim = arr_in.ndim
    if isinstance(window_shape, numbers.Number):
        window_shape = (window_shape,) * ndim
    if not len(window_shape) == ndim:
        raise ValueError("`window_shape` is incompatible with `arr_in.shape`")
    if isinstance(step, numbers.Number):
        if step < 1:
            raise ValueError("`step` must be >= 1")
        step = (step,) * ndim
    if len(step) != ndim:
        raise ValueError("`step` is incompatible with `arr_in.shape`")
    shape = np.array(arr_in.shape)
    window = np.array(window_shape, dtype=shape.dtype)
    if (shape - window < 0).any():
        raise ValueError("`window_shape` is too large")
    if (window - 1 < 0).any():
        raise ValueError("`window_shape` is too small")
    stepping = arr_in[tuple(slice(None, None, st) for st in step)].strides
    count = (shape - window) // np.array(step) + 1
    return _as_strided(arr_in, tuple(int(c) for c in count) + tuple(int(w) for w in window),
                       tuple(stepping) + tuple(arr_in.strides))

"""skimage.morphology.reconstruction (skimage/morphology/grayreconstruct.py): geodesic reconstruction by
dilation or erosion, in the mask's float type. The CPU engine runs Vincent's hybrid scans and FIFO (each
element touched a few times), over tiles of rows on the threads for large images (each tile summarised and
the tiles joined exactly, as the Dask path joins chunks: _reconstruction_dask.py); the GPU engine iterates
the geodesic dilation with ndimg.ndimage.grey_dilation until stable. Erosion is the dilation of the negated
images (exact in floating point)."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, xp_of
from .._rules import supported_float_type
from ..ndimage._footprint import to_host
from ..ndimage._grey import grey_dilation

_CHECK_EVERY = 4   # GPU: dilations between convergence checks (each check synchronises)
_TILE_ROWS = 0     # CPU: depth of the tiles along axis 0 (tests set it to tile small images); 0: automatic


def _neighbourhood(footprint, offset, ndim):
    """scikit-image's footprint and offset checks; the neighbour steps (k, ndim): a value flows from p to
    p + step."""
    if footprint is None:
        footprint = np.ones([3] * ndim, dtype=bool)
    else:
        footprint = np.asarray(to_host(footprint)).astype(bool, copy=True)
    if offset is None:
        if not all(d % 2 == 1 for d in footprint.shape):
            raise ValueError("Footprint dimensions must all be odd")
        offset = np.array([d // 2 for d in footprint.shape])
    else:
        offset = np.asarray(offset)
        if offset.ndim != footprint.ndim:
            raise ValueError("Offset and footprint ndims must be equal.")
        if not all(0 <= o < d for o, d in zip(offset, footprint.shape)):
            raise ValueError("Offset must be included inside footprint")
    footprint[tuple(slice(int(d), int(d) + 1) for d in offset)] = False
    if footprint.ndim != ndim:
        raise ValueError("footprint and image must have the same number of dimensions")
    steps = np.argwhere(footprint) - np.asarray(offset, dtype=np.int64)
    # sources p - step and receivers p + step both stay inside the padding
    pad = [(r, r) for r in (max(int(o), int(d) - 1 - int(o)) for o, d in zip(offset, footprint.shape))]
    return steps, pad


def _dilate_cpu(J, I, steps, pad, tile_rows=None):
    """The reconstruction of J under I (float NumPy arrays, J <= I) on the CPU engine, as a new array; tile_rows
    (default _TILE_ROWS): the depth of its tiles, 0 automatic, -1 none."""
    low = J.min()
    # padding: J == I there, never raised
    Jp = np.ascontiguousarray(np.pad(J, pad, mode="constant", constant_values=low))
    Ip = np.ascontiguousarray(np.pad(I, pad, mode="constant", constant_values=low))
    strides = np.array(Jp.strides) // Jp.itemsize
    offsets = (steps @ strides).astype(np.int64).tolist() if len(steps) else []
    offsets = [o for o in offsets if o != 0]
    _core.reconstruct_dilation(Jp, Ip, offsets, [p[0] for p in pad], [p[1] for p in pad],
                               _TILE_ROWS if tile_rows is None else tile_rows)
    return Jp[tuple(slice(a, s - b) for (a, b), s in zip(pad, Jp.shape))]


def _dilate_xp(J, I, steps):
    """The same on any xp (the GPU engine): J <- min(max over sources p - step of J, I) until stable, the
    geodesic dilation being ndimg.ndimage.grey_dilation with the steps as its footprint."""
    xp = xp_of(J)
    if len(steps) == 0:
        return J.copy()
    r = np.abs(steps).max(axis=0)
    fp = np.zeros(tuple(2 * r + 1), bool)
    fp[tuple((r + steps).T)] = True     # grey_dilation's output at p reads p - (k - centre)
    fp[tuple(r)] = True
    low = float(xp.min(J)) if J.size else 0.0
    while True:
        before = J
        for _ in range(_CHECK_EVERY):
            J = xp.minimum(grey_dilation(J, footprint=fp, mode="constant", cval=low), I)
        if bool(xp.all(J == before)):
            return J


def _dilate(J, I, steps, pad, tile_rows=None):
    """The reconstruction of J under I on the arrays' engine (J non-empty); tile_rows: see _dilate_cpu."""
    return _dilate_cpu(J, I, steps, pad, tile_rows) if xp_of(J) is np else _dilate_xp(J, I, steps)


def _check_order(seed, mask, method):
    """scikit-image's error for a seed above the mask (dilation) or below it (erosion)."""
    xp = xp_of(seed, mask)
    if method == "dilation" and bool(xp.any(seed > mask)):
        raise ValueError("Intensity of seed image must be less than that of the mask image for reconstruction "
                         "by dilation.")
    elif method == "erosion" and bool(xp.any(seed < mask)):
        raise ValueError("Intensity of seed image must be greater than that of the mask image for reconstruction "
                         "by erosion.")


def _signed(seed, mask, sign):
    """The seed (a new array) and mask in the mask's float type, negated for erosion (sign -1): the images
    whose reconstruction by dilation is the result (times sign)."""
    xp = xp_of(seed, mask)
    fdt = supported_float_type(mask.dtype)
    J = seed.astype(fdt) * sign if sign < 0 else seed.astype(fdt, copy=True)
    I = mask.astype(fdt) * sign if sign < 0 else mask.astype(fdt, copy=False)
    if I.dtype.kind == "f" and bool(xp.isnan(I).any()):
        # scikit-image ranks NaN above every value (after the erosion's negation too): an unbounded mask
        I = xp.where(xp.isnan(I), xp.asarray(np.inf, I.dtype), I)
    return J, I


@engine_aware("seed", "mask")
def reconstruction(seed, mask, method="dilation", footprint=None, offset=None):
    """Morphological reconstruction of `seed` under `mask` (dilation: seed <= mask) or over it (erosion:
    seed >= mask), neighbours given by `footprint` (default: 3**ndim ones) about `offset` (default its
    centre). Returns the mask's float type (float16 -> float32, integers -> float64)."""
    assert tuple(seed.shape) == tuple(mask.shape)
    _check_order(seed, mask, method)
    steps, pad = _neighbourhood(footprint, offset, seed.ndim)
    if method not in ("dilation", "erosion"):
        raise ValueError(f"Reconstruction method can be one of 'erosion' or 'dilation'. Got '{method}'.")
    sign = 1 if method == "dilation" else -1
    J, I = _signed(seed, mask, sign)
    if J.ndim == 0 or J.size == 0:
        if J.size == 0:
            J.min()   # numpy's ValueError for an empty reduction, as scikit-image's pad value
        return J * sign if sign < 0 else J
    rec = _dilate(J, I, steps, pad)
    if sign < 0:
        rec = -rec
    return rec

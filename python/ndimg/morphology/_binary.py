"""skimage.morphology's binary morphology (deprecated since scikit-image 0.26) over ndimg.ndimage's binary
erosion and dilation: each footprint of a sequence with its repetitions as scipy's iterations."""
from __future__ import annotations

import functools

from .._engine import engine_aware, xp_of
from ..ndimage import binary_dilation as _ndi_dilation, binary_erosion as _ndi_erosion
from ._footprints import as_sequence, pad_footprint, warn_user
from ._gray import _default

_HINTS = {
    "binary_erosion": "Use `skimage.morphology.erosion` instead. Note the pixel shift by 1 for even-sized "
                      "footprints (see docstring notes).",
    "binary_dilation": "Use `skimage.morphology.dilation` instead. Note the lack of mirroring for non-symmetric "
                       "footprints (see docstring notes).",
    "binary_opening": "Use `skimage.morphology.opening` instead.",
    "binary_closing": "Use `skimage.morphology.closing` instead.",
}


def _deprecated(fn):
    """scikit-image 0.26's FutureWarning, once per call: outside the engine wrapper, so that a Dask call warns
    when it is made, not once per block."""
    @functools.wraps(fn)
    def warned(*args, **kwargs):
        warn_user(f"`{fn.__name__}` is deprecated since version 0.26 and will be removed in version 0.28. "
                  f"{_HINTS[fn.__name__]}", FutureWarning)
        return fn(*args, **kwargs)

    return warned


def _apply(filt, image, footprint, out, mode, border_value):
    """`filt` with each footprint of the sequence (repetitions as iterations), the last into `out`.
    Even sizes get their extra zero at the end (scipy's binary centre, unlike the grayscale operators)."""
    if mode not in {"max", "min", "ignore"}:
        raise ValueError(f"unsupported mode, got {mode!r}")
    xp = xp_of(image)
    if out is None:
        out = xp.empty(image.shape, dtype=bool)
    steps = as_sequence(pad_footprint(footprint, pad_end=True))
    if not steps:
        raise IndexError("empty footprint sequence")
    src = image
    for i, (fp, n) in enumerate(steps):
        dst = out if i == len(steps) - 1 else xp.empty(image.shape, dtype=out.dtype)
        filt(src, structure=fp, output=dst, iterations=n, border_value=border_value)
        src = dst
    return out


def _erode(image, footprint, out, mode):
    return _apply(_ndi_erosion, image, footprint, out, mode, mode != "min")


def _dilate(image, footprint, out, mode):
    return _apply(_ndi_dilation, image, footprint, out, mode, mode == "max")


@_deprecated
@engine_aware("image", "out")
def binary_erosion(image, footprint=None, out=None, *, mode="ignore"):
    """Binary erosion (deprecated): True where the footprint fits; the border is True unless mode='min'."""
    footprint = _default(image, footprint)
    return _erode(image, footprint, out, mode)


@_deprecated
@engine_aware("image", "out")
def binary_dilation(image, footprint=None, out=None, *, mode="ignore"):
    """Binary dilation (deprecated), scipy's (reflected footprint); the border is False unless mode='max'."""
    footprint = _default(image, footprint)
    return _dilate(image, footprint, out, mode)


@_deprecated
@engine_aware("image", "out")
def binary_opening(image, footprint=None, out=None, *, mode="ignore"):
    """Binary opening (deprecated): binary erosion, then binary dilation."""
    footprint = _default(image, footprint)
    return _dilate(_erode(image, footprint, None, mode), footprint, out, mode)


@_deprecated
@engine_aware("image", "out")
def binary_closing(image, footprint=None, out=None, *, mode="ignore"):
    """Binary closing (deprecated): binary dilation, then binary erosion."""
    footprint = _default(image, footprint)
    return _erode(_dilate(image, footprint, None, mode), footprint, out, mode)


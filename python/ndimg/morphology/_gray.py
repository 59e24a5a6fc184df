"""skimage.morphology's grayscale morphology (erosion, dilation, opening, closing, the top-hats) over
ndimg.ndimage's grey erosion and dilation: flat boxes run as separable van Herk passes, other footprints as
tap lists, footprint sequences (decompositions) one element after the other."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from ..ndimage import generate_binary_structure, grey_dilation, grey_erosion
from ._footprints import as_sequence, mirror_footprint, pad_footprint

_SUPPORTED_MODES = {"reflect", "constant", "nearest", "mirror", "wrap", "max", "min", "ignore"}


def _default(image, footprint):
    """scikit-image's default footprint: the cross (connectivity 1) of the image's dimensionality."""
    return generate_binary_structure(image.ndim, 1) if footprint is None else footprint


def _border(dtype, mode, cval):
    """'max' and 'min' as scipy's 'constant' with the dtype's largest or smallest value (infinities for
    floats); 'ignore' is the one that never wins (max for erosion, min for dilation, chosen by the caller)."""
    if mode not in ("max", "min"):
        return mode, cval
    high = mode == "max"
    if dtype == np.bool_:
        return "constant", high
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return "constant", info.max if high else info.min
    return "constant", np.inf if high else -np.inf


def _apply(filt, image, footprints, out, mode, cval):
    """`filt` with each footprint of the sequence, its repetitions in turn, the last pass into `out` and
    the ones before through temporaries of out's dtype (scikit-image's out.copy() between passes)."""
    xp = xp_of(image)
    if not footprints:
        raise IndexError("empty footprint sequence")
    # the first footprint runs at least once, whatever its count (scikit-image's loop)
    steps = [fp for i, (fp, n) in enumerate(footprints) for _ in range(max(n, 1) if i == 0 else n)]
    merged = _merge_boxes(steps)
    if len(merged) < len(steps) and out.dtype == image.dtype and (
            mode != "constant" or _representable(cval, image.dtype)) and not (
            image.dtype.kind == "f" and bool(xp.isnan(image).any())):
        steps = merged
    src, spare = image, None
    for i, fp in enumerate(steps):
        if i == len(steps) - 1:
            dst = out
        else:
            dst = spare if spare is not None else xp.empty_like(out)
        filt(src, footprint=fp, output=dst, mode=mode, cval=cval)
        spare = src if src is not image and src is not out else None
        src = dst
    return out


def _representable(cval, dtype):
    """A border value the passes store unchanged (scipy takes the extreme in double precision and casts it
    to the image's type: a value that does not survive that cast differs between one pass and several)."""
    try:
        c = float(cval)
        with np.errstate(invalid="ignore", over="ignore"):
            return c == c and float(np.asarray(c).astype(dtype)) == c
    except (TypeError, ValueError, OverflowError):
        return False


def _merge_boxes(steps):
    """Runs of flat odd-sized boxes as one box (a decomposed rectangle: one van Herk pass per axis instead of
    one per box). Exact in every mode: the min (max) over nested windows is the min over their union, border
    values included (a constant that survives the image's type and the nearest value add nothing new; the
    symmetric and periodic extensions are kept by symmetric windows). Not with NaN, whose outcome depends on
    the order of comparisons."""
    merged = []
    for fp in steps:
        fp = np.asarray(fp)
        box = fp.size > 0 and all(n % 2 for n in fp.shape) and bool(fp.all())
        if box and merged and merged[-1][1] and merged[-1][0].ndim == fp.ndim:
            shape = tuple(a + b - 1 for a, b in zip(merged[-1][0].shape, fp.shape))
            merged[-1] = (np.ones(shape, bool), True)
        else:
            merged.append((fp, box))
    return [fp for fp, _ in merged]


def _check_mode(mode):
    if mode not in _SUPPORTED_MODES:
        raise ValueError(f"unsupported mode, got {mode!r}")


def _erode(image, footprint, out, mode, cval):
    if out is None:
        out = xp_of(image).empty_like(image)
    _check_mode(mode)
    mode, cval = _border(image.dtype, "max" if mode == "ignore" else mode, cval)
    # an even-sized footprint gets its extra zero in front, so that its centre is scikit-image's
    return _apply(grey_erosion, image, as_sequence(pad_footprint(footprint, pad_end=False)), out, mode, cval)


def _dilate(image, footprint, out, mode, cval):
    if out is None:
        out = xp_of(image).empty_like(image)
    _check_mode(mode)
    mode, cval = _border(image.dtype, "min" if mode == "ignore" else mode, cval)
    # scipy's grey_dilation reflects its footprint: mirroring first gives scikit-image's unreflected one
    footprint = mirror_footprint(pad_footprint(footprint, pad_end=False))
    return _apply(grey_dilation, image, as_sequence(footprint), out, mode, cval)


@engine_aware("image", "out")
def erosion(image, footprint=None, out=None, *, mode="reflect", cval=0.0):
    """Grayscale erosion: the minimum over `footprint` (an array or a sequence of (array, repetitions))."""
    return _erode(image, _default(image, footprint), out, mode, cval)


@engine_aware("image", "out")
def dilation(image, footprint=None, out=None, *, mode="reflect", cval=0.0):
    """Grayscale dilation: the maximum over `footprint` (not reflected; even sizes centred as erosion's)."""
    return _dilate(image, _default(image, footprint), out, mode, cval)


def _open(image, footprint, out, mode, cval):
    footprint = pad_footprint(_default(image, footprint), pad_end=False)
    return _dilate(_erode(image, footprint, None, mode, cval), mirror_footprint(footprint), out, mode, cval)


def _close(image, footprint, out, mode, cval):
    footprint = pad_footprint(_default(image, footprint), pad_end=False)
    return _erode(_dilate(image, footprint, None, mode, cval), mirror_footprint(footprint), out, mode, cval)


@engine_aware("image", "out")
def opening(image, footprint=None, out=None, *, mode="reflect", cval=0.0):
    """Grayscale opening: erosion, then dilation with the mirrored footprint."""
    return _open(image, footprint, out, mode, cval)


@engine_aware("image", "out")
def closing(image, footprint=None, out=None, *, mode="reflect", cval=0.0):
    """Grayscale closing: dilation, then erosion with the mirrored footprint."""
    return _close(image, footprint, out, mode, cval)


def _xor(xp, a, b, out):
    """Bools by truth (a filter's bool bytes may be other than 0 and 1), as NumPy's logical_xor reads them."""
    xp.not_equal(a.view(np.uint8) != 0 if a.dtype == np.bool_ else a != 0,
                 b.view(np.uint8) != 0 if b.dtype == np.bool_ else b != 0, out=out)


@engine_aware("image", "out")
def white_tophat(image, footprint=None, out=None, *, mode="reflect", cval=0.0):
    """image - opening (xor for a bool output), in the output's dtype: unsigned values wrap as NumPy's."""
    xp = xp_of(image)
    if out is image:
        opened = _open(image, footprint, None, mode, cval)
        if opened.dtype == np.bool_:
            _xor(xp, out, opened, out)
        else:
            out -= opened
        return out
    out = _open(image, footprint, out, mode, cval)
    if out.dtype == np.bool_:
        _xor(xp, image, out, out)
    else:
        xp.subtract(image, out, out=out)
    return out


@engine_aware("image", "out")
def black_tophat(image, footprint=None, out=None, *, mode="reflect", cval=0.0):
    """closing - image (xor for a bool output), in the output's dtype."""
    xp = xp_of(image)
    if out is image:
        closed = _close(image, footprint, None, mode, cval)
        if closed.dtype == np.bool_:
            _xor(xp, closed, out, out)
        else:
            xp.subtract(closed, out, out=out)
        return out
    out = _close(image, footprint, out, mode, cval)
    if out.dtype == np.bool_:
        _xor(xp, out, image, out)
    else:
        out -= image
    return out

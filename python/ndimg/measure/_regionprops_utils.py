"""euler_number, perimeter and perimeter_crofton (skimage/measure/_regionprops_utils.py), for one image and
for every label of a label image at once: each is a sum, per label, of a weight looked up from the local
configuration of the label's pixels (2x2(x2) windows for the Euler number and Crofton's perimeter, the
3x3 neighbourhood of border pixels for the perimeter). Whole-array operations of the input's library, so
both engines run them; no loop over labels.
"""
from __future__ import annotations

from math import sqrt
from numbers import Real

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from ..morphology._label import as_host_intp

# Euler characteristic of one 2x2 window by its configuration (bit 1: the window's last pixel, 2: the one
# above it, 4: the one left of it, 8: the diagonal one), 4- and 8-connectivity
_EULER_2D_4 = np.array([0, 1, 0, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0, 0, 0, 0])
_EULER_2D_8 = np.array([0, 0, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0, 0, 0, -1, 0])


def _euler_3d_26():
    """8 x the Euler characteristic contribution of each 2x2x2 configuration, 26-connectivity (the index:
    scikit-image's code, see _corner_bits). For 6-connectivity a window holds a share of the cubical complex
    of the foreground: its voxels (each in 8 windows), axis edges (4), squares (2) and cube (1), so 8 x the
    share is V - 2E + 4F - 8C; 26-connectivity of a set is 6-connectivity of its complement, whose code is
    255 - code."""
    bits = _corner_bits(3)
    corners = list(bits)
    six = np.zeros(256, np.int64)
    for code in range(256):
        on = {c for c in corners if code & bits[c]}
        e = sum(1 for a in on for b in on if a < b and sum(abs(x - y) for x, y in zip(a, b)) == 1)
        f = sum(1 for axis in range(3) for level in (0, 1)
                if all(c in on for c in corners if c[axis] == level))
        six[code] = len(on) - 2 * e + 4 * f - 8 * (len(on) == 8)
    return six[::-1].copy()


def normalize_spacing(spacing, ndims):
    """scikit-image's spacing check: a scalar or one finite real number per axis."""
    spacing = np.array(spacing)
    if spacing.shape == ():
        spacing = np.broadcast_to(spacing, shape=(ndims,))
    elif spacing.shape != (ndims,):
        raise ValueError(f"spacing isn't a scalar nor a sequence of shape {(ndims,)}, got {spacing}.")
    if not all(isinstance(s, Real) for s in spacing):
        raise TypeError(f"Element of spacing isn't float or integer type, got {spacing}.")
    if not all(np.isfinite(spacing)):
        raise ValueError(f"Invalid spacing parameter. All elements must be finite, got {spacing}.")
    return spacing


def _window_sums(labels, nlabels, coefs, bits):
    """Per label 0..nlabels-1 (labels: int64, 0 = none, padded by one zero on every side), the sum over all
    2^ndim windows of coefs[the configuration of the label's pixels in the window] (bits: the weight of each
    corner, the corners being the offsets in {0, 1}^ndim, in C order). A window holding several labels
    counts once for each: for the corner holding it first."""
    xp = xp_of(labels)
    nd = labels.ndim
    offsets = [tuple((k >> (nd - 1 - d)) & 1 for d in range(nd)) for k in range(2 ** nd)]
    views = [labels[tuple(slice(o, labels.shape[d] - 1 + o) for d, o in enumerate(off))] for off in offsets]
    coefs = xp.asarray(coefs, dtype=np.float64)
    out = xp.zeros(nlabels, np.float64)
    for k, owner in enumerate(views):
        first = owner > 0
        for j in range(k):
            first &= views[j] != owner
        code = xp.zeros(owner.shape, np.int64)
        for j, v in enumerate(views):
            code += (v == owner) * bits[offsets[j]]
        out += xp.bincount(owner[first], weights=coefs[code[first]], minlength=nlabels)[:nlabels]
    return out


def _pad(labels):
    xp = xp_of(labels)
    return xp.pad(labels.astype(np.int64, copy=False), 1)


def _corner_bits(nd):
    """The configuration bit of each 2^nd window corner (offset in {0, 1}^nd): scikit-image's convolution
    kernels [[0, 0, 0], [0, 1, 4], [0, 2, 8]] (and 16/32/64/128 for the earlier plane in 3-D)."""
    if nd == 2:
        return {(1, 1): 1, (0, 1): 2, (1, 0): 4, (0, 0): 8}
    return {(1, 1, 1): 1, (1, 0, 1): 2, (1, 1, 0): 4, (1, 0, 0): 8,
            (0, 1, 1): 16, (0, 0, 1): 32, (0, 1, 0): 64, (0, 0, 0): 128}


_EULER_3D = None


def euler_coefs(nd, connectivity):
    global _EULER_3D
    if nd == 2:
        return _EULER_2D_4 if connectivity == 1 else _EULER_2D_8
    if connectivity == 2:
        raise NotImplementedError("For 3D images, Euler number is implemented for connectivities 1 and 3 only")
    if _EULER_3D is None:
        _EULER_3D = _euler_3d_26()
    return _EULER_3D[::-1] if connectivity == 1 else _EULER_3D


def euler_per_label(labels, nlabels, connectivity):
    """The Euler number of each label 1..nlabels (index 0: label 1) of a 2-D or 3-D label image."""
    nd = labels.ndim
    sums = _window_sums(_pad(labels), nlabels + 1, euler_coefs(nd, connectivity), _corner_bits(nd))[1:]
    xp = xp_of(sums)
    if nd == 2:
        return xp.rint(sums).astype(np.int64)
    return xp.trunc(0.125 * sums).astype(np.int64)


def crofton_coefs(directions):
    if directions == 2:
        return np.array([0, np.pi / 2, 0, 0, 0, np.pi / 2, 0, 0, np.pi / 2, np.pi, 0, 0, np.pi / 2, np.pi, 0, 0])
    a, b, c = np.pi / 4 * (1 + 1 / np.sqrt(2)), np.pi / (4 * np.sqrt(2)), np.pi / (2 * np.sqrt(2))
    return np.array([0, a, b, c, 0, a, 0, b, np.pi / 4, np.pi / 2, b, b, np.pi / 4, np.pi / 2, 0, 0])


def crofton_per_label(labels, nlabels, directions):
    return _window_sums(_pad(labels), nlabels + 1, crofton_coefs(directions), _corner_bits(2))[1:]


_PERIMETER_WEIGHTS = np.zeros(50)
_PERIMETER_WEIGHTS[[5, 7, 15, 17, 25, 27]] = 1
_PERIMETER_WEIGHTS[[21, 33]] = sqrt(2)
_PERIMETER_WEIGHTS[[13, 23]] = (1 + sqrt(2)) / 2


def perimeter_per_label(labels, nlabels, neighborhood):
    """scikit-image's perimeter of each label 1..nlabels of a 2-D label image: over the label's border pixels
    (a pixel of the label with a neighbour, 4- or 8-connected by `neighborhood`, outside it or outside the
    image), the weight of 1 + 2 x its edge neighbours and 10 x its diagonal neighbours that are border pixels
    of the same label."""
    xp = xp_of(labels)
    p = _pad(labels)
    h, w = labels.shape
    centre = p[1:h + 1, 1:w + 1]
    at = lambda dy, dx, a=p: a[1 + dy:h + 1 + dy, 1 + dx:w + 1 + dx]  # noqa: E731
    edges = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    diags = [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    inside = centre > 0
    for dy, dx in edges + (diags if neighborhood != 4 else []):
        inside &= at(dy, dx) == centre
    border = (centre > 0) & ~inside
    bp = xp.pad(border, 1)
    value = xp.ones(centre.shape, np.int64)
    for weight, offs in ((2, edges), (10, diags)):
        for dy, dx in offs:
            value += weight * ((at(dy, dx) == centre) & at(dy, dx, bp))
    weights = xp.asarray(_PERIMETER_WEIGHTS)
    sums = xp.bincount(centre[border], weights=weights[xp.minimum(value[border], 49)], minlength=nlabels + 1)
    return sums[1:nlabels + 1]


def _config_hist(mask):
    """The histogram of the 2^ndim-window configurations (scikit-image's codes, see _corner_bits) of a 2-D or
    3-D bool image padded by one zero on every side: one pass of the core, no per-label bookkeeping."""
    hist = xp_of(mask).zeros(2 ** (2 ** mask.ndim), np.int64)
    _core.measure_window_codes(mask, hist, stream=stream_ptr(hist))
    return hist.astype(np.float64)


@engine_aware("image")
def euler_number(image, connectivity=None):
    image = image > 0   # scikit-image's first step (and its errors for lists and complex input)
    if connectivity is None:
        connectivity = image.ndim
    if image.ndim not in (2, 3):   # scikit-image takes them for 3-D and its kernel then fails so
        raise RuntimeError(f"weights.ndim (3) must match len(axes) ({image.ndim})")
    return euler_of_counts(_config_hist(image), image.ndim, connectivity)


def euler_of_counts(hist, nd, connectivity):
    """The Euler number of a 2-D or 3-D image from its window codes' counts (float64, on its device)."""
    xp = xp_of(hist)
    total = hist @ xp.asarray(euler_coefs(nd, connectivity), dtype=np.float64)
    if nd == 2:
        return np.int64(round(float(total))) if xp is np else xp.rint(total).astype(np.int64)
    return int(0.125 * float(total)) if xp is np else xp.trunc(0.125 * total).astype(np.int64)


@engine_aware("image")
def perimeter(image, neighborhood=4):
    """scikit-image's perimeter, its arithmetic as it runs: the image as uint8, its border (the image minus
    its binary erosion) and the border's 3x3 weighted sum in uint8 (one pass of the core), the histogram of
    those sums weighted."""
    if image.ndim != 2:
        raise NotImplementedError("`perimeter` supports 2D images only")
    xp = xp_of(image)
    if xp is not np and image.dtype.kind in "fc":   # CUDA saturates inf (-> 255): NumPy's wrapped cast instead
        image = as_host_intp(image)
    hist = xp.zeros(256, np.int64)
    _core.measure_perimeter_codes(image.astype(np.uint8), neighborhood != 4, hist, stream=stream_ptr(hist))
    return perimeter_of_counts(hist)


def perimeter_of_counts(hist):
    """The perimeter from the counts of its codes (int64, 256 bins, on their device)."""
    xp = xp_of(hist)
    hist = hist if xp is np else hist.get()   # 256 counts: the product on the host
    size = max(50, int(np.flatnonzero(hist).max(initial=0)) + 1)   # np.bincount's length in scikit-image
    if size != 50:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                         f"(n?,k),(k,m?)->(n?,m?) (size 50 is different from {size})")
    total = hist[:50].astype(np.float64) @ _PERIMETER_WEIGHTS
    return np.float64(total) if xp is np else xp.asarray(total)


@engine_aware("image")
def perimeter_crofton(image, directions=4):
    if image.ndim != 2:
        raise NotImplementedError("`perimeter_crofton` supports 2D images only")
    return crofton_of_counts(_config_hist(image > 0), directions)


def crofton_of_counts(hist, directions):
    """Crofton's perimeter from the window codes' counts (float64, on their device)."""
    xp = xp_of(hist)
    total = hist @ xp.asarray(crofton_coefs(directions))
    return np.float64(total) if xp is np else total

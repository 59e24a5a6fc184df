"""skimage.feature's texture descriptors on the ndimg engines: local binary patterns (a C++ kernel,
cpp/src/feature/texture.hpp), gray-level co-occurrence matrices (ndimg's joint histogram of the image and
its shifted self, one per distance and angle) and their properties, and multi-block LBP codes.
"""
from __future__ import annotations

import functools
import math
import operator
import warnings

import numpy as np

from .. import _core
from .._engine import engine_aware, xp_of
from .._prim import feature as _feature
from .._prim import histogram as _histogram
from .._rules import array_argument, as_image, check_allocation, check_nD

_LBP_METHODS = ("default", "ror", "uniform", "nri_uniform", "var")


def _c_int(value):
    """A Python number as Cython passes it to a C int parameter: integers and floats (truncated)."""
    if isinstance(value, (float, np.floating)):
        return int(value)
    return operator.index(value)


@engine_aware("image")
def local_binary_pattern(image, P, R, method="default"):
    """Local binary patterns of a 2-D image (skimage.feature.local_binary_pattern): P points on a circle of
    radius R, sampled bilinearly (zero outside); float64 codes, or local variances for method 'var'."""
    check_nD(image, 2)
    image = array_argument(image)
    method = {m: m for m in _LBP_METHODS}[method.lower()]
    if np.issubdtype(image.dtype, np.floating):
        warnings.warn(
            "Applying `local_binary_pattern` to floating-point images may give unexpected results when small "
            "numerical differences between adjacent pixels are present. It is recommended to use this function "
            "with images of integer dtype.", stacklevel=3)
    P, R = _c_int(P), float(R)
    angles = 2 * np.pi * np.arange(P, dtype=np.float64) / P
    rp = np.round(-R * np.sin(angles), 5)
    cp = np.round(R * np.cos(angles), 5)
    return _feature.local_binary_pattern(image.astype(np.float64, copy=False), rp=rp, cp=cp, method=method)


def _offset(value):
    """Cython's round of scikit-image's GLCM offsets: half away from zero, truncated to an integer."""
    return int(value + 0.5) if value > 0.0 else int(value - 0.5)


def _check_dtype_levels(dtype, levels):
    """graycomatrix's refusals of an image dtype (in memory and over Dask)."""
    if np.issubdtype(dtype, np.floating):
        raise ValueError("Float images are not supported by graycomatrix. Convert the image to an unsigned integer "
                         "type.")
    if dtype not in (np.uint8, np.int8) and levels is None:
        raise ValueError("The levels argument is required for data types other than uint8. The resulting matrix "
                         "will be at least levels ** 2 in size.")


def _symmetric_normed(P, symmetric, normed, xp):
    """graycomatrix's finish of the counts P (in memory and over Dask): P + P^T, then each matrix over its sum."""
    if symmetric:
        P = P + xp.transpose(P, (1, 0, 2, 3))
    if normed:
        P = P.astype(np.float64)
        sums = xp.sum(P, axis=(0, 1), keepdims=True)
        sums[sums == 0] = 1
        P /= sums
    return P


@engine_aware("image", native=False)
def graycomatrix(image, distances, angles, levels=None, symmetric=False, normed=False):
    """Gray-level co-occurrence matrices (levels, levels, len(distances), len(angles)) of a 2-D integer image
    (skimage.feature.graycomatrix)."""
    check_nD(image, 2)
    check_nD(distances, 1, "distances")
    check_nD(angles, 1, "angles")
    image = as_image(image)
    xp = xp_of(image)
    if not image.dtype.isnative:
        raise ValueError("Big-endian buffer not supported on little-endian compiler")
    image_max = image.max()
    _check_dtype_levels(image.dtype, levels)
    if np.issubdtype(image.dtype, np.signedinteger) and bool(xp.any(image < 0)):
        raise ValueError("Negative-valued images are not supported.")
    if levels is None:
        levels = 256
    if image_max >= levels:
        raise ValueError("The maximum grayscale value in the image should be smaller than the number of levels.")
    distances = np.ascontiguousarray(distances, dtype=np.float64)
    angles = np.ascontiguousarray(angles, dtype=np.float64)
    levels = operator.index(levels)
    check_allocation((levels, levels, len(distances), len(angles)), np.uint32)
    P = xp.zeros((levels, levels, len(distances), len(angles)), dtype=np.uint32)
    if image.dtype == bool:
        image = image.view(np.uint8)
    rows, cols = image.shape
    for a, angle in enumerate(angles):
        for d, distance in enumerate(distances):
            dr, dc = _offset(math.sin(angle) * distance), _offset(math.cos(angle) * distance)
            r0, r1 = max(0, -dr), min(rows, rows - dr)
            c0, c1 = max(0, -dc), min(cols, cols - dc)
            if r0 >= r1 or c0 >= c1:
                continue
            first = image[r0:r1, c0:c1]
            second = image[r0 + dr:r1 + dr, c0 + dc:c1 + dc]
            P[:, :, d, a] = _histogram.joint_integer_counts(first, second, lo0=0, lo1=0, shape=(levels, levels))
    return _symmetric_normed(P, symmetric, normed, xp)


_PROPS = ("contrast", "dissimilarity", "homogeneity", "ASM", "energy", "correlation", "entropy", "variance", "mean",
          "std")
_CORE_PROPS = frozenset(_PROPS) - {"entropy"}   # entropy's log is NumPy's own (SIMD) one


@engine_aware("P")
def graycoprops(P, prop="contrast"):
    """A property of each gray-level co-occurrence matrix of P (skimage.feature.graycoprops): a
    (len(distances), len(angles)) float64 array."""
    check_nD(P, 4, "P")
    P = array_argument(P, "shape")
    xp = xp_of(P)
    levels, levels2, num_dist, num_angle = P.shape
    if levels != levels2:
        raise ValueError("num_level and num_level2 must be equal.")
    if num_dist <= 0:
        raise ValueError("num_dist must be positive.")
    if num_angle <= 0:
        raise ValueError("num_angle must be positive.")
    if (xp is np and prop in _CORE_PROPS and num_dist * num_angle > 1
            and (P.dtype.kind in "iu" or P.dtype in (np.float32, np.float64))):
        # one pass per sum in C++; the sums over several matrices run in (row, column) order as NumPy's do
        # (a single matrix NumPy sums pairwise: left to the code below)
        out = np.empty(num_dist * num_angle)
        _core.glcm_props(np.ascontiguousarray(P).reshape(levels, levels, -1), getattr(_core.GlcmProp, prop), out)
        return out.reshape(num_dist, num_angle)
    P = P.astype(np.float64)
    sums = xp.sum(P, axis=(0, 1), keepdims=True)
    sums[sums == 0] = 1
    P /= sums
    if prop not in _PROPS:
        raise ValueError(f"{prop} is an invalid property")
    I = xp.arange(levels).reshape((levels, 1, 1, 1))
    J = xp.arange(levels).reshape((1, levels, 1, 1))
    if prop in ("contrast", "dissimilarity", "homogeneity"):
        diff = I - J
        weights = {"contrast": lambda: diff ** 2, "dissimilarity": lambda: xp.abs(diff),
                   "homogeneity": lambda: 1.0 / (1.0 + diff ** 2)}[prop]()
        return xp.sum(P * weights, axis=(0, 1))
    if prop in ("ASM", "energy"):
        asm = xp.sum(P ** 2, axis=(0, 1))
        return xp.sqrt(asm) if prop == "energy" else asm
    if prop == "entropy":
        ln = xp.zeros_like(P)
        nonzero = P != 0
        ln[nonzero] = -xp.log(P[nonzero])
        return xp.sum(P * ln, axis=(0, 1))
    mean = xp.sum(I * P, axis=(0, 1))
    if prop == "mean":
        return mean
    if prop in ("variance", "std"):
        var = xp.sum(P * ((I - mean) ** 2), axis=(0, 1))
        return xp.sqrt(var) if prop == "std" else var
    # correlation; 1 where either standard deviation is (near) zero
    diff_i = I - mean
    diff_j = J - xp.sum(J * P, axis=(0, 1))
    std_i = xp.sqrt(xp.sum(P * diff_i ** 2, axis=(0, 1)))
    std_j = xp.sqrt(xp.sum(P * diff_j ** 2, axis=(0, 1)))
    cov = xp.sum(P * (diff_i * diff_j), axis=(0, 1))
    flat = (std_i < 1e-15) | (std_j < 1e-15)
    results = xp.ones((num_dist, num_angle), dtype=np.float64)
    results[~flat] = cov[~flat] / (std_i[~flat] * std_j[~flat])
    return results


# the eight neighbour rectangles of multi-block LBP, clockwise from the top left (bit 7 first)
_MLBP_OFFSETS = ((-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1))


@engine_aware("int_image")
def multiblock_lbp(int_image, r, c, width, height):
    """The 8-bit multi-block LBP code of the 3x3 grid of (height, width) rectangles with top left corner
    (r, c), from an integral image (skimage.feature.multiblock_lbp). Each rectangle sum is taken in float32
    from its integral image corners, as scikit-image does; a grid reaching outside the image raises
    IndexError (scikit-image reads past the array)."""
    int_image = as_image(int_image)
    if int_image.ndim != 2:   # scikit-image's fused 2-D signature
        raise TypeError("No matching signature found")
    xp = xp_of(int_image)
    r, c, width, height = (operator.index(v) for v in (r, c, width, height))
    rows, cols = int_image.shape
    cr, cc = r + height, c + width
    rects = [(cr, cc)] + [(cr + dr * height, cc + dc * width) for dr, dc in _MLBP_OFFSETS]
    # the integral image corners each rectangle sum reads: (r1, c1), then (r0-1, c0-1), (r0-1, c1), (r1, c0-1)
    corners = []
    for r0, c0 in rects:
        r1, c1 = r0 + height - 1, c0 + width - 1
        corners.append([(r1, c1), (r0 - 1, c0 - 1) if r0 >= 1 and c0 >= 1 else None,
                        (r0 - 1, c1) if r0 >= 1 else None, (r1, c0 - 1) if c0 >= 1 else None])
    points = [p for rect in corners for p in rect if p is not None]
    if any(not (0 <= pr < rows and 0 <= pc < cols) for pr, pc in points):
        raise IndexError(f"multiblock_lbp: the 3x3 grid of {height}x{width} rectangles at ({r}, {c}) reaches "
                         f"outside the {rows}x{cols} integral image")
    idx = np.array(points, dtype=np.intp).reshape(-1, 2)
    values = int_image[xp.asarray(idx[:, 0]), xp.asarray(idx[:, 1])].astype(np.float32)
    values = iter(values.get().tolist() if xp is not np else values.tolist())
    sums = []
    for rect in corners:
        s = np.float32(0)
        for k, p in enumerate(rect):
            if p is not None:
                v = np.float32(next(values))
                s = s - v if k >= 2 else s + v
        sums.append(s)
    code = 0
    for bit, s in enumerate(sums[1:]):
        code |= int(s >= sums[0]) << (7 - bit)
    return code


_multiblock_lbp = multiblock_lbp   # the general path (any engine, every error as scikit-image's)


@functools.wraps(_multiblock_lbp)   # engine-aware as the general path it falls back to
def multiblock_lbp(int_image, r, c, width, height):
    if type(int_image) is np.ndarray:
        # a host image: one core call, as the work is a few dozen reads and the cost is mostly the call's own
        try:
            code = _core.multiblock_lbp(int_image, r, c, width, height)
        except TypeError:   # not a native 2-D image of a core dtype, or not integers: the general path
            code = -1       # converts or raises as scikit-image does
        if code >= 0:
            return code
    return _multiblock_lbp(int_image, r, c, width, height)

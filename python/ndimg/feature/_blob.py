"""skimage.feature's blob detectors (blob.py in scikit-image 0.26): blob_log, blob_dog and blob_doh.

A scale-space cube (Laplacian of Gaussian, difference of Gaussians or SURF's Hessian determinant, one image
per scale, on the image's engine), its local maxima (peak_local_max's mask and ordering), then the overlapping
blobs pruned on the host with a KD-tree (scipy.spatial) in scikit-image's pair order.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import spatial

from .._engine import engine_aware, xp_of
from .._prim.feature_deriv import hessian_det_box
from .._rules import check_nD
from ..filters._gaussian import gaussian
from ..ndimage._separable import gaussian_laplace
from ..transform._integral import integral_image
from ._corner_cy import _float_image
from ._peak import _peak_local_max


def _disk_overlap(d, r1, r2):
    """Area of the lens two disks (radii r1, r2, centres d apart) share, over the smaller disk's area."""
    ratio1 = np.clip((d**2 + r1**2 - r2**2) / (2 * d * r1), -1, 1)
    ratio2 = np.clip((d**2 + r2**2 - r1**2) / (2 * d * r2), -1, 1)
    a, b, c, e = -d + r2 + r1, d - r2 + r1, d + r2 - r1, d + r2 + r1
    area = r1**2 * math.acos(ratio1) + r2**2 * math.acos(ratio2) - 0.5 * math.sqrt(abs(a * b * c * e))
    return area / (math.pi * (min(r1, r2) ** 2))


def _sphere_overlap(d, r1, r2):
    """Volume two balls share over the smaller ball's volume."""
    vol = (math.pi / (12 * d) * (r1 + r2 - d) ** 2
           * (d**2 + 2 * d * (r1 + r2) - 3 * (r1**2 + r2**2) + 6 * r1 * r2))
    return vol / (4.0 / 3 * math.pi * min(r1, r2) ** 3)


def _overlap(blob1, blob2, sigma_dim):
    """The fraction of the smaller blob (radius sqrt(ndim) sigma) inside the larger; 0 beyond 3-D."""
    ndim = len(blob1) - sigma_dim
    if ndim > 3:
        return 0.0
    if blob1[-1] == blob2[-1] == 0:
        return 0.0
    # distances in units of the larger blob's radius
    if blob1[-1] > blob2[-1]:
        big, r1, r2 = blob1[-sigma_dim:], 1, blob2[-1] / blob1[-1]
    else:
        big, r1, r2 = blob2[-sigma_dim:], blob1[-1] / blob2[-1], 1
    scale = big * math.sqrt(ndim)
    d = np.sqrt(np.sum((blob2[:ndim] / scale - blob1[:ndim] / scale) ** 2))
    if d > r1 + r2:
        return 0.0
    if d <= abs(r1 - r2):
        return 1.0
    return _disk_overlap(d, r1, r2) if ndim == 2 else _sphere_overlap(d, r1, r2)


def _overlaps_estimate(b1, b2, sigma_dim):
    """_overlap of many pairs at once in float64 (rows of b1 and b2): within float32 rounding of the exact
    values, to screen out the pairs that cannot reach the threshold."""
    ndim = b1.shape[1] - sigma_dim
    if ndim > 3:
        return np.zeros(len(b1))
    b1, b2 = b1.astype(np.float64), b2.astype(np.float64)
    s1, s2 = b1[:, -1], b2[:, -1]
    big1 = s1 > s2
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(big1[:, None], b1[:, -sigma_dim:], b2[:, -sigma_dim:]) * math.sqrt(ndim)
        r1, r2 = np.where(big1, 1.0, s1 / s2), np.where(big1, s2 / s1, 1.0)
        d = np.sqrt(np.sum((b2[:, :ndim] / scale - b1[:, :ndim] / scale) ** 2, axis=1))
        if ndim == 2:
            acos1 = np.arccos(np.clip((d**2 + r1**2 - r2**2) / (2 * d * r1), -1, 1))
            acos2 = np.arccos(np.clip((d**2 + r2**2 - r1**2) / (2 * d * r2), -1, 1))
            prod = (-d + r2 + r1) * (d - r2 + r1) * (d + r2 - r1) * (d + r2 + r1)
            lens = (r1**2 * acos1 + r2**2 * acos2 - 0.5 * np.sqrt(np.abs(prod))) / (np.pi * np.minimum(r1, r2) ** 2)
        else:
            lens = (np.pi / (12 * d) * (r1 + r2 - d) ** 2 * (d**2 + 2 * d * (r1 + r2) - 3 * (r1**2 + r2**2)
                                                              + 6 * r1 * r2)) / (4.0 / 3 * np.pi * np.minimum(r1, r2) ** 3)
    out = np.where(d > r1 + r2, 0.0, np.where(d <= np.abs(r1 - r2), 1.0, lens))
    return np.where((s1 == 0) & (s2 == 0), 0.0, out)


def _prune(blobs, overlap, sigma_dim=1):
    """Of each pair of blobs overlapping by more than `overlap`, the smaller dropped (pairs in the order
    scipy's KD-tree gives them, as scikit-image's _prune_blobs). A pair holding an already dropped blob
    changes nothing, and nor does one below the threshold. A float64 estimate, within float32 rounding of the
    exact overlap (a continuous function of the blobs), decides the pairs clearly below or above the threshold;
    the exact computation only those within 1e-3 of it (and NaNs)."""
    reach = 2 * blobs[:, -sigma_dim:].max() * math.sqrt(blobs.shape[1] - sigma_dim)
    found = spatial.cKDTree(blobs[:, :-sigma_dim]).query_pairs(reach)
    if not found:
        return blobs
    # the set's own iteration order, as scikit-image's np.array(list(...)), without the tuples' list
    pairs = np.fromiter(itertools.chain.from_iterable(found), np.intp, 2 * len(found)).reshape(-1, 2)
    estimate = _overlaps_estimate(blobs[pairs[:, 0]], blobs[pairs[:, 1]], sigma_dim)
    near = ~(estimate < overlap - 1e-3)
    sigma = blobs[:, -1]   # a view: dropping a blob zeroes its (last) sigma in `blobs`
    for (i, j), sure in zip(pairs[near].tolist(), (estimate[near] > overlap + 1e-3).tolist()):
        if sigma[i] == 0 or sigma[j] == 0:
            continue
        if sure or _overlap(blobs[i], blobs[j], sigma_dim) > overlap:
            if sigma[i] > sigma[j]:
                sigma[j] = 0
            else:
                sigma[i] = 0
    kept = blobs[blobs[:, -1] > 0]
    return kept if len(kept) else np.stack([])   # scikit-image's stack of no rows: its ValueError


def _exclude_border(ndim, exclude_border):
    """peak_local_max's exclude_border over the cube: the image's axes, none along the scales."""
    if isinstance(exclude_border, tuple):
        if len(exclude_border) != ndim:
            raise ValueError("`exclude_border` should have the same length as the dimensionality of the image.")
        for exclude in exclude_border:
            if not isinstance(exclude, int):
                raise ValueError("exclude border, when expressed as a tuple, must only contain ints.")
        return exclude_border + (0,)
    if isinstance(exclude_border, int):   # True too: one pixel, as scikit-image's check comes after this one
        return (exclude_border,) * ndim + (0,)
    raise ValueError(f'Unsupported value ({exclude_border}) for exclude_border')


def _sigmas(min_sigma, max_sigma, ndim, float_dtype):
    scalar = bool(np.isscalar(max_sigma) and np.isscalar(min_sigma))
    if np.isscalar(max_sigma):
        max_sigma = np.full(ndim, max_sigma, dtype=float_dtype)
    if np.isscalar(min_sigma):
        min_sigma = np.full(ndim, min_sigma, dtype=float_dtype)
    return np.asarray(min_sigma, dtype=float_dtype), np.asarray(max_sigma, dtype=float_dtype), scalar


def _cube_peaks(cube, threshold, threshold_rel, exclude_border):
    """peak_local_max of the scale-space cube (scales, *image axes) in 3 x ... x 3 neighbourhoods, with the
    coordinates and order of scikit-image's cube (*image axes, scales): the scales lead here, so that every
    filter pass runs along long lines. `exclude_border` as scikit-image's (scales last)."""
    n = cube.ndim
    xp = xp_of(cube)
    footprint = np.ones((3,) * n)
    if not bool(xp.isfinite(cube).all()):
        # NaN: the maximum filter's outcome depends on the order it meets the values in, so scikit-image's
        cube = xp.ascontiguousarray(xp.moveaxis(cube, 0, -1))
        return _peak_local_max(cube, 1, threshold, threshold_rel, exclude_border, np.inf, footprint, None, np.inf,
                               np.inf)
    if isinstance(exclude_border, tuple):
        exclude_border = exclude_border[-1:] + exclude_border[:-1]
    return _peak_local_max(cube, 1, threshold, threshold_rel, exclude_border, np.inf, footprint, None, np.inf,
                           np.inf, axes=tuple(range(1, n)) + (0,))


def _blobs_of_cube(cube, sigma_list, ndim, scalar_sigma, threshold, threshold_rel, exclude_border, overlap,
                   float_dtype):
    """The cube's local maxima as blobs (coordinates, sigma or sigmas), pruned."""
    xp = xp_of(cube)
    peaks = _cube_peaks(cube, threshold, threshold_rel, exclude_border)
    if peaks.size == 0:
        out = np.empty((0, ndim + (1 if scalar_sigma else ndim)))
    else:
        sig = sigma_list[peaks[:, -1]]
        if scalar_sigma:
            sig = sig[:, 0:1]
        out = _prune(np.hstack([peaks.astype(float_dtype)[:, :-1], sig]), overlap, sigma_dim=sig.shape[1])
    return out if xp is np else xp.asarray(out)


@engine_aware("image")
def blob_log(image, min_sigma=1, max_sigma=50, num_sigma=10, threshold=0.2, overlap=0.5, log_scale=False, *,
             threshold_rel=None, exclude_border=False):
    """Blobs as maxima of the scale-normalised Laplacian of Gaussian over space and scale (n-D), as
    ``skimage.feature.blob_log``: rows (coordinates..., sigma or one sigma per axis)."""
    image = _float_image(image)
    xp = xp_of(image)
    float_dtype = image.dtype
    min_sigma, max_sigma, scalar_sigma = _sigmas(min_sigma, max_sigma, image.ndim, float_dtype)
    if log_scale:
        sigma_list = np.logspace(np.log10(min_sigma), np.log10(max_sigma), num_sigma)
    else:
        sigma_list = np.linspace(min_sigma, max_sigma, num_sigma)
    cube = xp.empty((len(sigma_list),) + image.shape, dtype=float_dtype)
    for i, s in enumerate(sigma_list):
        # -(LoG) * mean(s)**2, as one rounding: the LoG times -mean(s)**2
        gaussian_laplace.__wrapped_impl__(image, s, output=cube[i, ...])
        cube[i, ...] *= -(np.mean(s) ** 2)
    return _blobs_of_cube(cube, sigma_list, image.ndim, scalar_sigma, threshold, threshold_rel,
                          _exclude_border(image.ndim, exclude_border), overlap, float_dtype)


@engine_aware("image")
def blob_dog(image, min_sigma=1, max_sigma=50, sigma_ratio=1.6, threshold=0.5, overlap=0.5, *, threshold_rel=None,
             exclude_border=False):
    """Blobs as maxima of the difference of Gaussians over space and scale (n-D), as
    ``skimage.feature.blob_dog``: rows (coordinates..., sigma or one sigma per axis)."""
    image = _float_image(image)
    xp = xp_of(image)
    float_dtype = image.dtype
    min_sigma, max_sigma, scalar_sigma = _sigmas(min_sigma, max_sigma, image.ndim, float_dtype)
    if sigma_ratio <= 1.0:
        raise ValueError('sigma_ratio must be > 1.0')
    k = int(np.mean(np.log(max_sigma / min_sigma) / np.log(sigma_ratio) + 1))
    sigma_list = np.array([min_sigma * (sigma_ratio**i) for i in range(k + 1)])
    cube = xp.empty((k,) + image.shape, dtype=float_dtype)
    blur = gaussian.__wrapped_impl__
    previous = blur(image, sigma=sigma_list[0], mode='reflect')
    for i, s in enumerate(sigma_list[1:]):
        current = blur(image, sigma=s, mode='reflect')
        xp.subtract(previous, current, out=cube[i, ...])
        previous = current
    cube *= 1 / (sigma_ratio - 1)
    return _blobs_of_cube(cube, sigma_list, image.ndim, scalar_sigma, threshold, threshold_rel,
                          _exclude_border(image.ndim, exclude_border), overlap, float_dtype)


@engine_aware("image")
def blob_doh(image, min_sigma=1, max_sigma=30, num_sigma=10, threshold=0.01, overlap=0.5, log_scale=False, *,
             threshold_rel=None):
    """Blobs as maxima of SURF's approximate Hessian determinant over space and scale (2-D), as
    ``skimage.feature.blob_doh``: rows (row, col, sigma)."""
    check_nD(image, 2)
    image = _float_image(image)
    xp = xp_of(image)
    integral = xp.ascontiguousarray(integral_image.__wrapped_impl__(image), dtype=np.float64)
    if log_scale:
        sigma_list = np.logspace(math.log(min_sigma, 10), math.log(max_sigma, 10), num_sigma)
    else:
        sigma_list = np.linspace(min_sigma, max_sigma, num_sigma)
    cube = xp.empty((len(sigma_list),) + image.shape, dtype=image.dtype)
    for j, s in enumerate(sigma_list):
        hessian_det_box(integral, sigma=s, out=cube[j, ...])
    peaks = _cube_peaks(cube, threshold, threshold_rel, False)
    if peaks.size == 0:
        out = np.empty((0, 3))
    else:
        out = peaks.astype(np.float64)
        out[:, -1] = sigma_list[peaks[:, -1]]
        out = _prune(out, overlap)
    return out if xp is np else xp.asarray(out)

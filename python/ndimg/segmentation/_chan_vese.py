"""skimage.segmentation.chan_vese on the ndimg engines: scikit-image's semi-implicit Chan-Vese iteration step
for step (the same expressions in the same order, so the same values and the same number of iterations),
written over xp (NumPy or CuPy)."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from .._prim.reduce import numpy_sum
from .._rules import supported_float_type
from ..ndimage._distance import distance_transform_edt

_ETA = 1e-16


def _edge_padded(phi, xp):
    """np.pad(phi, 1, mode='edge'), written in four strokes."""
    P = xp.empty((phi.shape[0] + 2, phi.shape[1] + 2), phi.dtype)
    P[1:-1, 1:-1] = phi
    P[0, 1:-1] = phi[0]
    P[-1, 1:-1] = phi[-1]
    P[:, 0] = P[:, 1]
    P[:, -1] = P[:, -2]
    return P


def _variation(image, phi, mu, lambda1, lambda2, dt, xp):
    """One semi-implicit step of the level set (scikit-image's _cv_calculate_variation)."""
    P = _edge_padded(phi, xp)
    phixp = P[1:-1, 2:] - P[1:-1, 1:-1]
    phixn = P[1:-1, 1:-1] - P[1:-1, :-2]
    phix0 = (P[1:-1, 2:] - P[1:-1, :-2]) / 2.0
    phiyp = P[2:, 1:-1] - P[1:-1, 1:-1]
    phiyn = P[1:-1, 1:-1] - P[:-2, 1:-1]
    phiy0 = (P[2:, 1:-1] - P[:-2, 1:-1]) / 2.0
    C1 = 1.0 / xp.sqrt(_ETA + phixp**2 + phiy0**2)
    C2 = 1.0 / xp.sqrt(_ETA + phixn**2 + phiy0**2)
    C3 = 1.0 / xp.sqrt(_ETA + phix0**2 + phiyp**2)
    C4 = 1.0 / xp.sqrt(_ETA + phix0**2 + phiyn**2)
    K = P[1:-1, 2:] * C1 + P[1:-1, :-2] * C2 + P[2:, 1:-1] * C3 + P[:-2, 1:-1] * C4
    Hphi = (phi > 0).astype(image.dtype)
    c1, c2 = _averages(image, Hphi, xp)
    difference = -lambda1 * (image - c1) ** 2 + lambda2 * (image - c2) ** 2
    delta = _delta(phi)
    new_phi = phi + (dt * delta) * (mu * K + difference)
    return new_phi / (1 + mu * dt * delta * (C1 + C2 + C3 + C4))


def _heavyside(x, xp, eps=1.0):
    return 0.5 * (1.0 + (2.0 / np.pi) * xp.arctan(x / eps))


def _delta(x, eps=1.0):
    return eps / (eps**2 + x**2)


def _averages(image, H, xp):
    """The means of the image weighted by H and by 1 - H (a zero weight sum leaves the plain sum)."""
    Hinv = 1.0 - H
    Hsum = numpy_sum(H)
    Hinvsum = numpy_sum(Hinv)
    inside = numpy_sum(image * H)
    outside = numpy_sum(image * Hinv)
    if Hsum != 0:
        inside /= Hsum
    if Hinvsum != 0:
        outside /= Hinvsum
    return inside, outside


def _energy(image, phi, mu, lambda1, lambda2, xp):
    """The Chan-Vese energy of the level set (scikit-image's _cv_energy)."""
    H = _heavyside(phi, xp)
    c1, c2 = _averages(image, H, xp)
    avgenergy = lambda1 * (image - c1) ** 2 * H + lambda2 * (image - c2) ** 2 * (1.0 - H)
    P = _edge_padded(phi, xp)
    fy = (P[2:, 1:-1] - P[:-2, 1:-1]) / 2.0
    fx = (P[1:-1, 2:] - P[1:-1, :-2]) / 2.0
    lenenergy = mu * _delta(phi) * xp.sqrt(fx**2 + fy**2)
    return numpy_sum(avgenergy) + numpy_sum(lenenergy)


def _disk(image_size, divisor, xp):
    """scikit-image's 'disk' (divisor 1) and 'small disk' (divisor 2) level sets: signed distances to the
    centre pixel scaled by the radius."""
    res = xp.ones(image_size)
    cy, cx = int((image_size[0] - 1) / 2), int((image_size[1] - 1) / 2)
    res[cy, cx] = 0.0
    if divisor == 1:
        radius = float(min(cx, cy))
        return (radius - distance_transform_edt(res)) / radius
    radius = float(min(cx, cy)) / 2.0
    return (radius - distance_transform_edt(res)) / (radius * 3)


def _checkerboard(image_size, square_size, dtype, xp):
    yv = xp.arange(image_size[0], dtype=dtype).reshape(image_size[0], 1)
    xv = xp.arange(image_size[1], dtype=dtype)
    sf = np.pi / square_size
    xv *= sf
    yv *= sf
    return xp.sin(yv) * xp.sin(xv)


def _init_level_set(init_level_set, image_shape, dtype, xp):
    if isinstance(init_level_set, str):
        if init_level_set == "checkerboard":
            res = _checkerboard(image_shape, 5, dtype, xp)
        elif init_level_set == "disk":
            res = _disk(image_shape, 1, xp)
        elif init_level_set == "small disk":
            res = _disk(image_shape, 2, xp)
        else:
            raise ValueError("Incorrect name for starting level set preset.")
    else:
        res = init_level_set
    return res.astype(dtype, copy=False)


def _host_scalar(x, xp):
    """An energy as scikit-image lists it: a NumPy scalar (a CuPy 0-d array copied to the host)."""
    return x[()] if xp is np else x.get()[()]


@engine_aware("image")
def chan_vese(image, mu=0.25, lambda1=1.0, lambda2=1.0, tol=1e-3, max_num_iter=500, dt=0.5,
              init_level_set="checkerboard", extended_output=False):
    """Chan-Vese segmentation (skimage.segmentation.chan_vese)."""
    if len(image.shape) != 2:
        raise ValueError("Input image should be a 2D array.")
    xp = xp_of(image)
    float_dtype = supported_float_type(image.dtype)
    phi = _init_level_set(init_level_set, image.shape, float_dtype, xp)
    if type(phi) is not xp.ndarray or phi.shape != image.shape:
        raise ValueError("The dimensions of initial level set do not match the dimensions of image.")
    image = image.astype(float_dtype, copy=False)
    image = image - xp.min(image)
    if xp.max(image) != 0:
        image = image / xp.max(image)

    # the energies are only reported: without extended_output they are not computed (they steer nothing)
    i = 0
    old_energy = _energy(image, phi, mu, lambda1, lambda2, xp) if extended_output else None
    energies = []
    phivar = tol + 1
    while phivar > tol and i < max_num_iter:
        oldphi = phi
        phi = _variation(image, phi, mu, lambda1, lambda2, dt, xp)
        sq = (phi - oldphi) ** 2
        phivar = xp.sqrt(numpy_sum(sq) / sq.size)   # NumPy's mean, bit for bit on either engine
        if extended_output:
            new_energy = _energy(image, phi, mu, lambda1, lambda2, xp)
            energies.append(_host_scalar(old_energy, xp))
            old_energy = new_energy
        i += 1
    segmentation = phi > 0
    if extended_output:
        return segmentation, phi, energies
    return segmentation

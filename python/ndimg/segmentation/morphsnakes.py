"""skimage.segmentation's morphological snakes on the ndimg engines: morphological Chan-Vese and geodesic
active contours (their level-set helpers are in _level_set_utils). scikit-image's iterations step for step (same data terms, same
update order); the curvature operator's erosions and dilations by line footprints run on ndimg's binary
morphology (threaded on the CPU engine, CUDA on the GPU)."""
from __future__ import annotations

from itertools import cycle

import numpy as np

from .._blocks import blockable, blockwise
from .._engine import engine_aware, xp_of
from .._rules import check_nD
from ..ndimage._binary import binary_dilation, binary_erosion
from ._level_set_utils import init_level_set as init_level_set_by_name


def _line_footprints(ndim):
    """The lines of 3 pixels through the centre of a 3**ndim cube along the axes and the diagonals of its
    axis planes, in scikit-image's order (its _P2 and _P3)."""
    if ndim == 2:
        return [np.eye(3, dtype=bool), np.array([[0, 1, 0]] * 3, dtype=bool), np.flipud(np.eye(3, dtype=bool)),
                np.rot90([[0, 1, 0]] * 3).astype(bool)]
    feet = [np.zeros((3, 3, 3), dtype=bool) for _ in range(9)]
    feet[0][:, :, 1] = 1
    feet[1][:, 1, :] = 1
    feet[2][1, :, :] = 1
    feet[3][:, [0, 1, 2], [0, 1, 2]] = 1
    feet[4][:, [0, 1, 2], [2, 1, 0]] = 1
    feet[5][[0, 1, 2], :, [0, 1, 2]] = 1
    feet[6][[0, 1, 2], :, [2, 1, 0]] = 1
    feet[7][[0, 1, 2], [0, 1, 2], :] = 1
    feet[8][[0, 1, 2], [2, 1, 0], :] = 1
    return feet


_FEET = {2: _line_footprints(2), 3: _line_footprints(3)}


def _feet(u):
    feet = _FEET.get(u.ndim)
    if feet is None:
        raise ValueError("u has an invalid number of dimensions (should be 2 or 3)")
    return feet


def _over_lines(u, op, join):
    """op(u, line footprint) for every line footprint (scipy's border 0), joined by the bool ufunc `join`."""
    out = None
    for foot in _feet(u):
        r = op(u, foot)
        out = r if out is None else getattr(xp_of(r), join)(out, r, out=out)
    return out


def _sup_inf(u):
    """The supremum of the erosions by the line footprints, as a bool array."""
    return _over_lines(u, binary_erosion, "logical_or")


def _inf_sup(u):
    """The infimum of the dilations by the line footprints, as a bool array."""
    return _over_lines(u, binary_dilation, "logical_and")


def _as_int8(b):
    """A 0/1 bool array as the int8 array scikit-image's operators return (the same bytes)."""
    return b.view(np.int8)


class _Curvature:
    """scikit-image's curvature operator: SI o IS and IS o SI in turn, the turn kept across calls (its
    module-level cycle does so too, so a run continues where the previous one stopped)."""

    def __init__(self):
        self.turns = cycle((lambda u: _sup_inf(_inf_sup(u)), lambda u: _inf_sup(_sup_inf(u))))

    def __call__(self, u):
        return _as_int8(next(self.turns)(u))


_curvop = _Curvature()


def _check_input(image, init_level_set):
    check_nD(image, [2, 3])
    if len(image.shape) != len(init_level_set.shape):
        raise ValueError("The dimensions of the initial level set do not match the dimensions of the image.")


def _level_set(init_level_set, image_shape, xp):
    """A named initial level set made on the image's engine; an array as given."""
    res = init_level_set_by_name(init_level_set, image_shape)
    return xp.asarray(res) if isinstance(init_level_set, str) else res


def _set_where(u, aux, below, above, xp):
    """u = `below` where aux < 0, `above` where aux > 0, in place (scikit-image's two masked assignments;
    NaN leaves u)."""
    xp.copyto(u, np.int8(below), where=aux < 0)
    xp.copyto(u, np.int8(above), where=aux > 0)


def _region_step(u, image, du, c0, c1, lambda1, lambda2, xp):
    """The Chan-Vese step on the contour: u = 1 where |grad u| (lambda1 (I - c1)^2 - lambda2 (I - c0)^2) < 0,
    0 where > 0, each term as scikit-image rounds it; on the CPU engine's threads, block by block."""
    def step(u, image, *du):
        abs_du = xp.abs(du[0])
        for d in du[1:]:
            abs_du += xp.abs(d)
        aux = abs_du * (lambda1 * (image - c1) ** 2 - lambda2 * (image - c0) ** 2)
        _set_where(u, aux, 1, 0, xp)

    arrays = (u, image, *du)
    if blockable(*arrays):
        blockwise(step, *arrays)
    else:
        step(*arrays)


def _advect(u, image, dimage, du, xp):
    """The geodesic step: u = 1 where grad(image) . grad(u) > 0, 0 where < 0, the dot product summed into an
    array of the image's dtype as scikit-image sums it; on the CPU engine's threads, block by block."""
    def step(u, *grads):
        aux = xp.zeros(u.shape, image.dtype)
        for el1, el2 in zip(grads[:len(grads) // 2], grads[len(grads) // 2:]):
            aux += el1 * el2
        _set_where(u, aux, 0, 1, xp)

    arrays = (u, *dimage, *du)
    if image.dtype.kind != "f" or not blockable(*arrays):   # integers fail in the sum, as there
        return step(*arrays)
    blockwise(step, *arrays)


def _no_callback(u):
    return None


@engine_aware("image")
def morphological_chan_vese(image, num_iter, init_level_set="checkerboard", smoothing=1, lambda1=1, lambda2=1,
                            iter_callback=_no_callback):
    """Morphological active contours without edges (skimage.segmentation.morphological_chan_vese)."""
    xp = xp_of(image)
    init_level_set = _level_set(init_level_set, image.shape, xp)
    _check_input(image, init_level_set)
    u = (init_level_set > 0).astype(np.int8)
    # float16 region sums as NumPy's (its pairwise float32 sums rounded once to float16): CuPy's tree of float32
    # sums may round to the neighbouring float16, which moves c0 or c1 and flips pixels near the boundary
    total = (lambda a: xp.asarray(a.get().sum())) if xp is not np and image.dtype == np.float16 else (lambda a: a.sum())
    iter_callback(u)
    for _ in range(num_iter):
        outside = 1 - u
        c0 = total(image * outside) / float(outside.sum() + 1e-8)
        c1 = total(image * u) / float(u.sum() + 1e-8)
        _region_step(u, image, xp.gradient(u), c0, c1, lambda1, lambda2, xp)
        for _ in range(smoothing):
            u = _curvop(u)
        iter_callback(u)
    return u


@engine_aware("gimage")
def morphological_geodesic_active_contour(gimage, num_iter, init_level_set="disk", smoothing=1, threshold="auto",
                                          balloon=0, iter_callback=_no_callback):
    """Morphological geodesic active contours (skimage.segmentation.morphological_geodesic_active_contour)."""
    image = gimage
    xp = xp_of(image)
    init_level_set = _level_set(init_level_set, image.shape, xp)
    _check_input(image, init_level_set)
    if isinstance(threshold, str) and threshold == "auto":
        if image.dtype.kind == "c":   # NumPy's refusal (CuPy's percentile fails to compile a complex kernel)
            raise TypeError("a must be an array of real numbers")
        threshold = xp.percentile(image, 40)
    structure = np.ones((3,) * len(image.shape), dtype=bool)
    dimage = xp.gradient(image)
    if balloon != 0:
        grow = image > threshold / np.abs(balloon)
    u = (init_level_set > 0).astype(np.int8)
    iter_callback(u)
    for _ in range(num_iter):
        if balloon != 0:
            aux = (binary_dilation if balloon > 0 else binary_erosion)(u, structure)
            xp.copyto(u, aux, where=grow)
        _advect(u, image, dimage, xp.gradient(u), xp)
        for _ in range(smoothing):
            u = _curvop(u)
        iter_callback(u)
    return u

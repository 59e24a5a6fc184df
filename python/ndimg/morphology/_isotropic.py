"""skimage.morphology's isotropic binary morphology: a threshold of ndimg.ndimage's exact Euclidean distance
transform, so the cost does not grow with the radius."""
from __future__ import annotations

from .._engine import engine_aware, xp_of
from ..ndimage import distance_transform_edt


def _erode(image, radius, out, spacing):
    dist = distance_transform_edt(image, sampling=spacing)
    return xp_of(dist).greater(dist, radius, out=out)


def _dilate(image, radius, out, spacing):
    xp = xp_of(image)
    # the background as NumPy's logical_not finds it (CuPy's has no complex loop)
    dist = distance_transform_edt(xp.asarray(image) == 0, sampling=spacing)
    return xp.less_equal(dist, radius, out=out)


@engine_aware("image", "out")
def isotropic_erosion(image, radius, out=None, spacing=None):
    """True where the nearest False pixel is farther than `radius` (in `spacing` units)."""
    return _erode(image, radius, out, spacing)


@engine_aware("image", "out")
def isotropic_dilation(image, radius, out=None, spacing=None):
    """True where a True pixel lies within `radius` (in `spacing` units)."""
    return _dilate(image, radius, out, spacing)


@engine_aware("image", "out")
def isotropic_opening(image, radius, out=None, spacing=None):
    """Isotropic erosion, then isotropic dilation (both into `out` where given)."""
    return _dilate(_erode(image, radius, out, spacing), radius, out, spacing)


@engine_aware("image", "out")
def isotropic_closing(image, radius, out=None, spacing=None):
    """Isotropic dilation, then isotropic erosion (both into `out` where given)."""
    return _erode(_dilate(image, radius, out, spacing), radius, out, spacing)

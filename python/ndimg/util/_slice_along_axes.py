"""skimage.util.slice_along_axes: a view of the caller's array."""
from __future__ import annotations

from .._engine import engine_aware


@engine_aware("image", native=False)
def slice_along_axes(image, slices, axes=None, copy=False):
    """image[a:b] along each of `axes` (all axes in order by default) for each (a, b) of `slices`; negative
    bounds count from the end. copy=True copies a view."""
    if not slices:
        return image
    if axes is None:
        axes = list(range(image.ndim))
        if len(axes) < len(slices):
            raise ValueError("More `slices` than available axes")
    elif len(axes) != len(slices):
        raise ValueError("`axes` and `slices` must have equal length")
    if len(axes) != len(set(axes)):
        raise ValueError("`axes` must be unique")
    if not all(0 <= a < image.ndim for a in axes):
        raise ValueError(f"axes {axes} out of range; image has only {image.ndim} dimensions")
    index = [slice(None)] * image.ndim
    for (a, b), ax in zip(slices, axes):
        n = image.shape[ax]
        a, b = (a % n if a < 0 else a), (b % n if b < 0 else b)
        if a > b:
            raise ValueError(f"Invalid slice ({a}, {b}): must be ordered `(min_val, max_val)`")
        if a < 0 or b > n:
            raise ValueError(f"Invalid slice ({a}, {b}) for image with dimensions {image.shape}")
        index[ax] = slice(a, b)
    view = image[tuple(index)]
    if copy and view.base is not None:
        view = view.copy()
    return view

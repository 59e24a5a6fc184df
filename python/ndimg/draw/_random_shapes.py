"""skimage.draw.random_shapes: scikit-image's sequence of draws from the same NumPy Generator (so a seed
gives scikit-image's image and labels), with ndimg's fills drawing the shapes. A shape is its box's mask
(upper-left corner, uint8 mask), tested and painted through slices of the image rather than coordinates."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ._draw import _ellipse_box, _mask_coords, _polygon_mask


def _generate_rectangle_mask(point, image, shape, random):
    """A rectangle with its top-left corner at `point`: (its pixels, its label)."""
    available_width = min(image[1] - point[1], shape[1]) - shape[0]
    available_height = min(image[0] - point[0], shape[1]) - shape[0]
    r = shape[0] + random.integers(max(1, available_height)) - 1
    c = shape[0] + random.integers(max(1, available_width)) - 1
    rectangle = _polygon_mask([point[0], point[0] + r, point[0] + r, point[0]],
                              [point[1], point[1], point[1] + c, point[1] + c], None)
    label = ('rectangle', ((point[0], point[0] + r + 1), (point[1], point[1] + c + 1)))
    return rectangle, label


def _generate_circle_mask(point, image, shape, random):
    """A disk about `point`; ArithmeticError when none of the sizes fits."""
    if shape[0] == 1 or shape[1] == 1:
        raise ValueError('size must be > 1 for circles')
    min_radius = shape[0] // 2.0
    max_radius = shape[1] // 2.0
    left = point[1]
    right = image[1] - point[1]
    top = point[0]
    bottom = image[0] - point[0]
    available_radius = min(left, right, top, bottom, max_radius) - min_radius
    if available_radius < 0:
        raise ArithmeticError('cannot fit shape to image')
    radius = int(min_radius + random.integers(max(1, available_radius)))
    disk = _ellipse_box(point[0], point[1], radius, radius)
    # scikit-image labels disks 'circle'
    label = ('circle', ((point[0] - radius + 1, point[0] + radius), (point[1] - radius + 1, point[1] + radius)))
    return disk, label


def _generate_triangle_mask(point, image, shape, random):
    """An equilateral triangle standing on `point` (its bottom-left corner)."""
    if shape[0] == 1 or shape[1] == 1:
        raise ValueError('dimension must be > 1 for triangles')
    available_side = min(image[1] - point[1], point[0], shape[1]) - shape[0]
    side = shape[0] + random.integers(max(1, available_side)) - 1
    triangle_height = int(np.ceil(np.sqrt(3 / 4.0) * side))
    triangle = _polygon_mask([point[0], point[0] - triangle_height, point[0]],
                             [point[1], point[1] + side // 2, point[1] + side], None)
    label = ('triangle', ((point[0] - triangle_height, point[0] + 1), (point[1], point[1] + side + 1)))
    return triangle, label


def _generate_ellipse_mask(point, image, shape, random):
    """A randomly rotated ellipse about `point`, clipped to the image."""
    if shape[0] == 1 or shape[1] == 1:
        raise ValueError('size must be > 1 for ellipses')
    min_radius = shape[0] / 2.0
    max_radius = shape[1] / 2.0
    left = point[1]
    right = image[1] - point[1]
    top = point[0]
    bottom = image[0] - point[0]
    available_radius = min(left, right, top, bottom, max_radius)
    if available_radius < min_radius:
        raise ArithmeticError('cannot fit shape to image')
    r_radius = random.uniform(min_radius, available_radius + 1)
    c_radius = random.uniform(min_radius, available_radius + 1)
    rotation = random.uniform(-np.pi, np.pi)
    ellipse = _ellipse_box(point[0], point[1], r_radius, c_radius, shape=image[:2], rotation=rotation)
    (r0, c0), mask = ellipse
    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    min_x = np.min(rows) + r0   # an empty ellipse raises here, as np.min of its coordinates does
    max_x = np.max(rows) + r0 + 1
    min_y = np.min(cols) + c0
    max_y = np.max(cols) + c0 + 1
    label = ('ellipse', ((min_x, max_x), (min_y, max_y)))
    return ellipse, label


SHAPE_GENERATORS = dict(rectangle=_generate_rectangle_mask, circle=_generate_circle_mask,
                        triangle=_generate_triangle_mask, ellipse=_generate_ellipse_mask)
SHAPE_CHOICES = list(SHAPE_GENERATORS.values())


def _generate_random_colors(num_colors, num_channels, intensity_range, random):
    """num_colors colours of num_channels channels, each channel drawn within its (min, max)."""
    if num_channels == 1:
        intensity_range = (intensity_range,)
    elif len(intensity_range) == 1:
        intensity_range = intensity_range * num_channels
    colors = [random.integers(r[0], r[1] + 1, size=num_colors) for r in intensity_range]
    return np.transpose(colors)


def _paint(image, filled, box, color, allow_overlap):
    """Paint the shape `box` (upper-left corner, uint8 mask) with `color` and mark it filled, unless it
    overlaps a filled pixel (and overlap is not allowed); whether it was painted. A box reaching past the
    image goes through its coordinates, as scikit-image indexes (and fails) with them."""
    (r0, c0), mask = box
    h, w = mask.shape
    if r0 < 0 or c0 < 0 or r0 + h > filled.shape[0] or c0 + w > filled.shape[1]:
        indices = _mask_coords(mask, r0, c0)
        if not (allow_overlap or not filled[indices].any()):
            return False
        image[indices] = color
        filled[indices] = True
        return True
    inside = mask.view(bool)
    region = (slice(r0, r0 + h), slice(c0, c0 + w))
    if not allow_overlap and np.logical_and(filled[region], inside).any():
        return False
    image[region][inside] = color
    filled[region] |= inside
    return True


def random_shapes(image_shape, max_shapes, min_shapes=1, min_size=2, max_size=None, num_channels=3, shape=None,
                  intensity_range=None, allow_overlap=False, num_trials=100, rng=None, *, channel_axis=-1):
    """A uint8 image (background 255) of min_shapes..max_shapes random rectangles, circles, triangles and
    ellipses (or only `shape`), and their labels [(kind, ((r0, r1), (c0, c1))), ...]."""
    if min_size > image_shape[0] or min_size > image_shape[1]:
        raise ValueError('Minimum dimension must be less than ncols and nrows')
    max_size = max_size or max(image_shape[0], image_shape[1])
    if channel_axis is None:
        num_channels = 1
    if intensity_range is None:
        intensity_range = (0, 254) if num_channels == 1 else ((0, 254),)
    else:
        tmp = (intensity_range,) if num_channels == 1 else intensity_range
        for intensity_pair in tmp:
            for intensity in intensity_pair:
                if not (0 <= intensity <= 255):
                    raise ValueError('Intensity range must lie within (0, 255) interval')

    rng = np.random.default_rng(rng)
    user_shape = shape
    image_shape = (image_shape[0], image_shape[1], num_channels)
    image = np.full(image_shape, 255, dtype=np.uint8)
    # all channels of a pixel are filled together: one plane says which pixels are
    filled = np.zeros(image_shape[:2], dtype=bool)
    labels = []

    num_shapes = rng.integers(min_shapes, max_shapes + 1)
    colors = _generate_random_colors(num_shapes, num_channels, intensity_range, rng)
    shape = (min_size, max_size)
    for shape_idx in range(num_shapes):
        if user_shape is None:
            shape_generator = rng.choice(SHAPE_CHOICES)
        else:
            shape_generator = SHAPE_GENERATORS[user_shape]
        for _ in range(num_trials):
            column = rng.integers(max(1, image_shape[1] - min_size))
            row = rng.integers(max(1, image_shape[0] - min_size))
            point = (row, column)
            try:
                indices, label = shape_generator(point, image_shape, shape, rng)
            except ArithmeticError:
                continue  # the shape does not fit there
            if _paint(image, filled, indices, colors[shape_idx], allow_overlap):
                labels.append(label)
                break
        else:
            warnings.warn('Could not fit any shapes to image, consider reducing the minimum dimension',
                          stacklevel=2)

    if channel_axis is None:
        image = np.squeeze(image, axis=2)
    else:
        image = np.moveaxis(image, -1, channel_axis)
    return image, labels

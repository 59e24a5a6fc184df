"""skimage.feature.plot_matched_features (0.26): matplotlib drawing, host-only; GPU images and keypoints are
copied to the host at the boundary."""
from __future__ import annotations

import numpy as np

from .._engine import is_gpu_array
from .._rules import img_as_float
from ..ndimage._footprint import to_host


def _host(a):
    return to_host(a) if is_gpu_array(a) else a


def _padded(image, shape):
    if list(image.shape) == shape:
        return image
    out = np.zeros(shape, dtype=image.dtype)
    out[:image.shape[0], :image.shape[1]] = image
    return out


def plot_matched_features(image0, image1, *, keypoints0, keypoints1, matches, ax, keypoints_color='k',
                          matches_color=None, only_matches=False, alignment='horizontal'):
    """Two images side by side (or stacked: `alignment`) on the matplotlib axes `ax`, their keypoints as
    circles and each match as a line (skimage.feature.plot_matched_features)."""
    image0, image1 = img_as_float(np.asarray(_host(image0))), img_as_float(np.asarray(_host(image1)))
    keypoints0, keypoints1, matches = _host(keypoints0), _host(keypoints1), _host(matches)
    shape0, shape1 = list(image0.shape), list(image1.shape)
    for axis in (0, 1):   # both padded to the larger extent along the first two axes
        size = max(image0.shape[axis], image1.shape[axis])
        shape0[axis] = shape1[axis] = size
    image0, image1 = _padded(image0, shape0), _padded(image1, shape1)
    offset = np.array(image0.shape)
    if alignment == 'horizontal':
        image = np.concatenate([image0, image1], axis=1)
        offset[0] = 0
    elif alignment == 'vertical':
        image = np.concatenate([image0, image1], axis=0)
        offset[1] = 0
    else:
        raise ValueError(
            f"`plot_matched_features` accepts either 'horizontal' or 'vertical' for alignment, but '{alignment}' "
            f"was given. See https://scikit-image.org/docs/dev/api/skimage.feature.html"
            f"#skimage.feature.plot_matched_features for details.")
    if not only_matches:
        ax.scatter(keypoints0[:, 1], keypoints0[:, 0], facecolors='none', edgecolors=keypoints_color)
        ax.scatter(keypoints1[:, 1] + offset[1], keypoints1[:, 0] + offset[0], facecolors='none',
                   edgecolors=keypoints_color)
    ax.imshow(image, cmap='gray')
    ax.axis((0, image0.shape[1] + offset[1], image0.shape[0] + offset[0], 0))
    n = matches.shape[0]
    from matplotlib.colors import is_color_like

    if matches_color is None:
        rng = np.random.default_rng(seed=0)
        colors = [rng.random(3) for _ in range(n)]
    elif is_color_like(matches_color):
        colors = [matches_color] * n
    elif hasattr(matches_color, "__len__") and len(matches_color) == n:
        colors = matches_color   # matplotlib checks each colour
    else:
        raise ValueError('`matches_color` needs to be a single color or a sequence of length equal to the number '
                         'of matches.')
    for i, (idx0, idx1) in enumerate(matches):
        ax.plot((keypoints0[idx0, 1], keypoints1[idx1, 1] + offset[1]),
                (keypoints0[idx0, 0], keypoints1[idx1, 0] + offset[0]), '-', color=colors[i])

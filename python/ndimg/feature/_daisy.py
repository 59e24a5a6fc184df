"""skimage.feature.daisy (0.26) over xp: the orientation maps and their Gaussian smoothing (ndimg.filters)
on the image's engine; the optional visualisation drawn on the host."""
from __future__ import annotations

import math

import numpy as np

from .._engine import engine_aware, xp_of
from .._rules import check_nD, img_as_float


def _daisy_picture(image, descs, step, radius, rings, histograms, orientations, sigmas, ring_radii, angles):
    """scikit-image's DAISY picture (host arrays): per descriptor, its histograms' circles and bins."""
    from ..color._colorconv import gray2rgb
    from ..draw import circle_perimeter_aa, line_aa, set_color

    out = gray2rgb(image)
    theta = [2 * math.pi * j / histograms for j in range(histograms)]
    for i in range(descs.shape[0]):
        for j in range(descs.shape[1]):
            color = [1, 0, 0]
            y, x = i * step + radius, j * step + radius
            rr, cc, val = circle_perimeter_aa(y, x, int(sigmas[0]))
            set_color(out, (rr, cc), color, alpha=val)
            top = np.max(descs[i, j, :])
            for o_num, o in enumerate(angles):
                size = descs[i, j, o_num] / top
                rr, cc, val = line_aa(y, x, int(y + sigmas[0] * size * math.sin(o)),
                                      int(x + sigmas[0] * size * math.cos(o)))
                set_color(out, (rr, cc), color, alpha=val)
            for r_num, r in enumerate(ring_radii):
                shade = float(1 + r_num) / rings
                color = (1 - shade, 1, shade)
                for t_num, t in enumerate(theta):
                    hy, hx = y + int(round(r * math.sin(t))), x + int(round(r * math.cos(t)))
                    rr, cc, val = circle_perimeter_aa(hy, hx, int(sigmas[r_num + 1]))
                    set_color(out, (rr, cc), color, alpha=val)
                    for o_num, o in enumerate(angles):
                        size = descs[i, j, orientations + (r_num * histograms + t_num) * orientations + o_num]
                        size /= top
                        rr, cc, val = line_aa(hy, hx, int(hy + sigmas[r_num + 1] * size * math.sin(o)),
                                              int(hx + sigmas[r_num + 1] * size * math.cos(o)))
                        set_color(out, (rr, cc), color, alpha=val)
    return out


@engine_aware("image")
def daisy(image, step=4, radius=15, rings=3, histograms=8, orientations=8, normalization='l1', sigmas=None,
          ring_radii=None, visualize=False):
    """Dense DAISY descriptors (skimage.feature.daisy): gradient magnitudes weighted into `orientations`
    circular-normal bins, smoothed by a Gaussian per ring, sampled on `rings` rings of `histograms` points
    around a grid of centres `step` apart; (P, Q, (rings * histograms + 1) * orientations)."""
    check_nD(image, 2, 'img')
    xp = xp_of(image)
    image = img_as_float(image)
    float_dtype = image.dtype
    if sigmas is not None and ring_radii is not None and len(sigmas) - 1 != len(ring_radii):
        raise ValueError('`len(sigmas)-1 != len(ring_radii)`')
    if ring_radii is not None:
        rings = len(ring_radii)
        radius = ring_radii[-1]
    if sigmas is not None:
        rings = len(sigmas) - 1
    if sigmas is None:
        sigmas = [radius * (i + 1) / float(2 * rings) for i in range(rings)]
    if ring_radii is None:
        ring_radii = [radius * (i + 1) / float(rings) for i in range(rings)]
    if normalization not in ['l1', 'l2', 'daisy', 'off']:
        raise ValueError('Invalid normalization method.')
    from ..filters import gaussian

    # forward differences, 0 on the last column (row)
    dx = xp.zeros(image.shape, dtype=float_dtype)
    dy = xp.zeros(image.shape, dtype=float_dtype)
    dx[:, :-1] = xp.diff(image, n=1, axis=1)
    dy[:-1, :] = xp.diff(image, n=1, axis=0)
    grad_mag = xp.sqrt(dx**2 + dy**2)
    grad_ori = xp.arctan2(dy, dx)
    kappa = orientations / np.pi
    angles = [2 * o * np.pi / orientations - np.pi for o in range(orientations)]
    hist = xp.empty((orientations,) + image.shape, dtype=float_dtype)
    for i, o in enumerate(angles):
        # each bin weighted by the circular normal distribution around its angle, then by the magnitude
        hist[i] = xp.exp(kappa * xp.cos(grad_ori - o))
        hist[i] = xp.multiply(hist[i], grad_mag)
    sigmas = [sigmas[0]] + list(sigmas)
    # each ring's smoothing of all orientation maps at once (no smoothing across them)
    smooth = [gaussian(hist, sigma=(0, s, s), mode='reflect').astype(float_dtype, copy=False) for s in sigmas]
    theta = [2 * np.pi * j / histograms for j in range(histograms)]
    desc_dims = (rings * histograms + 1) * orientations
    # only the grid's samples are gathered (scikit-image assembles every pixel's descriptor, then steps)
    n_r, n_c = image.shape[0] - 2 * radius, image.shape[1] - 2 * radius
    rows, cols = len(range(0, max(n_r, 0), step)), len(range(0, max(n_c, 0), step))
    # laid out as scikit-image's (descriptor axis first), so that the normalisations sum in its order
    descs = xp.empty((desc_dims, rows, cols), dtype=float_dtype)

    def sampled(maps, y0, x0):   # the maps' samples from (y0, x0) on
        return maps[:, y0:y0 + n_r:step, x0:x0 + n_c:step]

    descs[:orientations] = sampled(smooth[0], radius, radius)
    idx = orientations
    for i in range(rings):
        for j in range(histograms):
            y_min = radius + int(round(ring_radii[i] * math.sin(theta[j])))
            x_min = radius + int(round(ring_radii[i] * math.cos(theta[j])))
            descs[idx:idx + orientations] = sampled(smooth[i + 1], y_min, x_min)
            idx += orientations
    descs = descs.swapaxes(0, 1).swapaxes(1, 2)
    if normalization != 'off':
        descs += 1e-10
        if normalization == 'l1':
            descs /= xp.sum(descs, axis=2)[:, :, None]
        elif normalization == 'l2':
            descs /= xp.sqrt(xp.sum(descs**2, axis=2))[:, :, None]
        else:
            for i in range(0, desc_dims, orientations):
                norms = xp.sqrt(xp.sum(descs[:, :, i:i + orientations] ** 2, axis=2))
                descs[:, :, i:i + orientations] /= norms[:, :, None]
    if not visualize:
        return descs
    host = (lambda a: a) if xp is np else (lambda a: a.get())
    picture = _daisy_picture(host(image), host(descs), step, radius, rings, histograms, orientations, sigmas,
                             ring_radii, angles)
    return descs, xp.asarray(picture)

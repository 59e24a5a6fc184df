"""skimage.feature.SIFT (0.26): scale-invariant keypoints (difference-of-Gaussian extrema refined to sub-pixel
positions) with dominant orientations and 128-value gradient-histogram descriptors, on the image's engine.

The Gaussian scale space is ndimg's rescale and gaussian; the extrema test (26 neighbours), the descriptors'
patch pixels and their histograms are C++ kernels (cpp/src/feature/sift.*, both engines); refinement,
orientations and the per-pixel exp/arctan2 are array code over all keypoints of an octave at once
(scikit-image loops over keypoints in Python). Every per-keypoint formula keeps scikit-image's operand precisions and order, and each histogram sums
its contributions in scikit-image's pixel order (``ufunc.at``, the kernel's loop), so on the CPU the results are
scikit-image's; CuPy's orientation histograms sum by atomics (any order) and its exp/arctan2 round their own
way, hence the GPU's tolerance (tests/feature/test_sift.py)."""
from __future__ import annotations

import math

import numpy as np

from .._engine import CUDA, from_working, to_working
from .._prim.feature_kp import sift_descriptor_histograms, sift_extrema, sift_patches
from .._rules import check_nD, img_as_float, supported_float_type
from ..filters import gaussian
from ..ndimage._footprint import to_host
from ..transform import rescale
from ._censure import _keypoint_input

_BATCH = 1 << 22    # pixels of the keypoints' patches handled at once


def _add_at(xp, target, index, values):
    """target[index] += values in the order given (NumPy: scikit-image's sums) or by atomics (CuPy)."""
    if xp is np:
        np.add.at(target, index, values)
    elif hasattr(xp.add, "at"):   # CuPy 13 on
        xp.add.at(target, index, values.astype(target.dtype))
    else:
        import cupyx

        cupyx.scatter_add(target, index, values.astype(target.dtype))


def _batches(extent, limit=_BATCH):
    """Consecutive index ranges of keypoints whose patches (of `extent` pixels each) hold about `limit`."""
    step = max(1, limit // max(1, int(extent)))
    return lambda n: ((i, min(i + step, n)) for i in range(0, n, step))


def _size_batches(area, limit=_BATCH):
    """Consecutive index ranges over keypoints sorted by patch `area` (host array), each about `limit` pixels of
    its largest patch's size."""
    i, n = 0, len(area)
    while i < n:
        j = i + 1
        while j < n and (j + 1 - i) * max(1, int(area[j])) <= limit:
            j += 1
        yield i, j
        i = j


def _edgeness(hxx, hyy, hxy):
    trace = hxx + hyy
    determinant = hxx * hyy - hxy * hxy
    return (trace * trace) / determinant


def _sparse_gradient(vol, positions):
    """Central differences of `vol` at integer positions (N, 3)."""
    p0, p1, p2 = positions[..., 0], positions[..., 1], positions[..., 2]
    g0 = vol[p0 + 1, p1, p2] - vol[p0 - 1, p1, p2]
    g0 *= 0.5
    g1 = vol[p0, p1 + 1, p2] - vol[p0, p1 - 1, p2]
    g1 *= 0.5
    g2 = vol[p0, p1, p2 + 1] - vol[p0, p1, p2 - 1]
    g2 *= 0.5
    return g0, g1, g2


def _hessian(d, positions):
    """The six second differences of `d` at integer positions (N, 3)."""
    p0, p1, p2 = positions[..., 0], positions[..., 1], positions[..., 2]
    two_d0 = 2 * d[p0, p1, p2]
    h00 = d[p0 - 1, p1, p2] + d[p0 + 1, p1, p2] - two_d0
    h11 = d[p0, p1 - 1, p2] + d[p0, p1 + 1, p2] - two_d0
    h22 = d[p0, p1, p2 - 1] + d[p0, p1, p2 + 1] - two_d0
    h01 = 0.25 * (d[p0 + 1, p1 + 1, p2] - d[p0 - 1, p1 + 1, p2] - d[p0 + 1, p1 - 1, p2] + d[p0 - 1, p1 - 1, p2])
    h02 = 0.25 * (d[p0 + 1, p1, p2 + 1] - d[p0 + 1, p1, p2 - 1] + d[p0 - 1, p1, p2 - 1] - d[p0 - 1, p1, p2 + 1])
    h12 = 0.25 * (d[p0, p1 + 1, p2 + 1] - d[p0, p1 + 1, p2 - 1] + d[p0, p1 - 1, p2 - 1] - d[p0, p1 - 1, p2 + 1])
    return h00, h11, h22, h01, h02, h12


def _offsets(grad, hess, xp):
    """The sub-pixel offsets -H^-1 g (the inverse by cofactors)."""
    h00, h11, h22, h01, h02, h12 = hess
    g0, g1, g2 = grad
    det = h00 * h11 * h22
    det -= h00 * h12 * h12
    det -= h01 * h01 * h22
    det += 2 * h01 * h02 * h12
    det -= h02 * h02 * h11
    aa = (h11 * h22 - h12 * h12) / det
    ab = (h02 * h12 - h01 * h22) / det
    ac = (h01 * h12 - h02 * h11) / det
    bb = (h00 * h22 - h02 * h02) / det
    bc = (h01 * h02 - h00 * h12) / det
    cc = (h00 * h11 - h01 * h01) / det
    offset0 = -aa * g0 - ab * g1 - ac * g2
    offset1 = -ab * g0 - bb * g1 - bc * g2
    offset2 = -ac * g0 - bc * g1 - cc * g2
    return xp.stack((offset0, offset1, offset2), axis=-1)


def _local_extrema(dog, threshold, xp):
    """(N, 3) interior (row, col, scale) positions, in that order's row-major order, of a (scales, rows, cols)
    stack whose value is at least `threshold` in magnitude and strictly below or strictly above all 26
    neighbours."""
    found = xp.moveaxis(sift_extrema(dog, threshold=threshold), 0, -1)
    return xp.stack(xp.nonzero(found), axis=1).astype(np.intp)


def _octave_gradients(octave, scales, xp):
    """np.gradient's row and column gradients of the (scales, rows, cols) `octave`, of its images from the least
    to the largest of `scales` (the scale indices its keypoints use), and that first index; None without
    keypoints. Indices outside the octave (attributes set by hand) take every image, as scikit-image does."""
    if scales.shape[0] == 0:
        return None
    lo, hi = int(scales.min()), int(scales.max()) + 1
    if lo < 0 or hi > octave.shape[0]:
        lo, hi = 0, octave.shape[0]
    g_row, g_col = xp.gradient(octave[lo:hi], axis=(1, 2))
    return g_row, g_col, lo


def _patch_grid(lo, hi, xp):
    """Rows (or columns) lo..hi-1 of each keypoint, padded to the longest: (K, L) indices and validity."""
    span = int(to_host(hi - lo).max()) if lo.shape[0] else 0
    idx = lo[:, None] + xp.arange(max(span, 0))[None, :]
    return idx, idx < hi[:, None]


class SIFT:
    """SIFT detector and descriptor extractor (skimage.feature.SIFT), with scikit-image's arguments and
    attributes (``keypoints``, ``positions``, ``sigmas``, ``scales``, ``orientations``, ``octaves``,
    ``descriptors``, ``scalespace_sigmas``, ``deltas``), results as the image's array type."""

    def __init__(self, upsampling=2, n_octaves=8, n_scales=3, sigma_min=1.6, sigma_in=0.5, c_dog=0.04 / 3,
                 c_edge=10, n_bins=36, lambda_ori=1.5, c_max=0.8, lambda_descr=6, n_hist=4, n_ori=8):
        if upsampling in [1, 2, 4]:
            self.upsampling = upsampling
        else:
            raise ValueError("upsampling must be 1, 2 or 4")
        self.n_octaves = n_octaves
        self.n_scales = n_scales
        self.sigma_min = sigma_min / upsampling
        self.sigma_in = sigma_in
        self.c_dog = (2 ** (1 / n_scales) - 1) / (2 ** (1 / 3) - 1) * c_dog
        self.c_edge = c_edge
        self.n_bins = n_bins
        self.lambda_ori = lambda_ori
        self.c_max = c_max
        self.lambda_descr = lambda_descr
        self.n_hist = n_hist
        self.n_ori = n_ori
        self.delta_min = 1 / upsampling
        self.float_dtype = None
        self.scalespace_sigmas = None
        self.keypoints = None
        self.positions = None
        self.sigmas = None
        self.scales = None
        self.orientations = None
        self.octaves = None
        self.descriptors = None

    @property
    def deltas(self):
        """The sampling distances of the octaves."""
        return self.delta_min * np.power(2, np.arange(self.n_octaves), dtype=self.float_dtype)

    def _set_number_of_octaves(self, image_shape):
        size_min = 12  # the last octave's smallest side
        s0 = min(image_shape) * self.upsampling
        max_octaves = int(math.log2(s0 / size_min) + 1)
        if max_octaves < self.n_octaves:
            self.n_octaves = max_octaves

    def _create_scalespace(self, image, xp):
        """Per octave a (n_scales + 3, rows, cols) stack of increasingly blurred images (scikit-image keeps the
        scales last; the scales first keep each image contiguous for the filters and gradients)."""
        scalespace = []
        if self.upsampling > 1:
            image = rescale(image, self.upsampling, order=1)
        image = gaussian(image, sigma=self.upsampling * math.sqrt(self.sigma_min ** 2 - self.sigma_in ** 2),
                         mode='reflect')
        tmp = np.power(2, np.arange(self.n_scales + 3) / self.n_scales)
        tmp *= self.sigma_min
        sigmas = self.deltas[:, np.newaxis] / self.deltas[0] * tmp[np.newaxis, :]
        self.scalespace_sigmas = sigmas
        var_diff = np.diff(sigmas * sigmas, axis=1)
        gaussian_sigmas = np.sqrt(var_diff) / self.deltas[:, np.newaxis]
        for o in range(self.n_octaves):
            octave = xp.empty((self.n_scales + 3,) + image.shape, dtype=self.float_dtype)
            octave[0] = image
            for s in range(1, self.n_scales + 3):
                octave[s] = gaussian(octave[s - 1], sigma=float(gaussian_sigmas[o, s - 1]), mode='reflect')
            scalespace.append(octave)
            if o < self.n_octaves - 1:
                image = octave[self.n_scales][::2, ::2]
        return scalespace

    @staticmethod
    def _inrange(a, dim):
        return (a[:, 0] > 0) & (a[:, 0] < dim[0] - 1) & (a[:, 1] > 0) & (a[:, 1] < dim[1] - 1)

    def _find_localize_evaluate(self, dogspace, img_shape, xp):
        """The refined extrema: positions (image pixels), scale indices, sigmas and octave of each."""
        extrema_pos, extrema_scales, extrema_sigmas = [], [], []
        threshold = self.c_dog * 0.8
        ft = self.float_dtype
        for o, (dog, delta) in enumerate(zip(dogspace, self.deltas)):
            keys = _local_extrema(dog, threshold, xp)
            octave = xp.moveaxis(dog, 0, -1)
            if keys.size == 0:
                extrema_pos.append(xp.empty((0, 2)))
                continue
            oshape = octave.shape
            upper = xp.asarray([a - 1 for a in oshape])
            refinement_iterations = 5
            offset_max = 0.6
            for i in range(refinement_iterations):
                if i > 0:
                    keys = keys[self._inrange(keys, oshape), :]
                grad = _sparse_gradient(octave, keys)
                hess = _hessian(octave, keys)
                off = _offsets(grad, hess, xp)
                if i == refinement_iterations - 1:
                    break
                # move a key one sample towards an offset beyond offset_max (where it stays inside)
                wrong_position_pos = (off > offset_max) & (keys + 1 < upper)
                wrong_position_neg = (off < -offset_max) & (keys - 1 > 0)
                if not bool(xp.any(wrong_position_neg | wrong_position_pos)):
                    break
                keys[wrong_position_pos] += 1
                keys[wrong_position_neg] -= 1
            finished = xp.all(xp.abs(off) < offset_max, axis=1)
            keys = keys[finished]
            off = off[finished]
            grad = [g[finished] for g in grad]
            w = octave[keys[:, 0], keys[:, 1], keys[:, 2]]
            for i in range(3):
                w += 0.5 * grad[i] * off[:, i]
            h00, h11, h01 = hess[0][finished], hess[1][finished], hess[3][finished]
            sigmaratio = self.scalespace_sigmas[0, 1] / self.scalespace_sigmas[0, 0]
            contrast_filter = xp.abs(w) > self.c_dog
            edge_threshold = np.square(self.c_edge + 1) / self.c_edge
            edge_response = _edgeness(h00[contrast_filter], h11[contrast_filter], h01[contrast_filter])
            edge_filter = xp.abs(edge_response) <= edge_threshold
            keys = keys[contrast_filter][edge_filter]
            off = off[contrast_filter][edge_filter]
            yx = ((keys[:, :2] + off[:, :2]) * delta).astype(ft)
            sigmas = xp.asarray(self.scalespace_sigmas[o])[keys[:, 2]] * xp.power(sigmaratio, off[:, 2])
            inside = xp.all(((yx - sigmas[:, None]) > 0.0) & ((yx + sigmas[:, None]) < xp.asarray(img_shape)),
                            axis=1)
            extrema_pos.append(yx[inside])
            extrema_scales.append(keys[inside, 2])
            extrema_sigmas.append(sigmas[inside])
        octave_indices = xp.concatenate([xp.full(len(p), i) for i, p in enumerate(extrema_pos)])
        if len(octave_indices) == 0:
            raise RuntimeError("SIFT found no features. Try passing in an image containing "
                               "greater intensity contrasts between adjacent pixels.")
        return (xp.concatenate(extrema_pos), xp.concatenate(extrema_scales), xp.concatenate(extrema_sigmas),
                octave_indices)

    def _compute_orientation(self, positions_oct, scales_oct, sigmas_oct, octaves, gaussian_scalespace, xp):
        """Each keypoint's dominant orientations: the peaks (at least c_max of the highest) of its smoothed
        histogram of Gaussian-weighted gradient directions; a second or later peak adds a keypoint at the
        end. Returns the row and column gradients of the scale space."""
        ft = self.float_dtype
        n_bins = self.n_bins
        gradient_space = []
        hist_all = xp.zeros((len(sigmas_oct), n_bins), dtype=ft)
        for o, (octave, delta) in enumerate(zip(gaussian_scalespace, self.deltas)):
            in_oct = xp.nonzero(octaves == o)[0]
            gradient_space.append(_octave_gradients(octave, scales_oct[in_oct], xp))
            if in_oct.shape[0] == 0:
                continue
            g_row, g_col, first = gradient_space[o]
            oshape = octave.shape[1:]
            yx = positions_oct[in_oct] / delta
            sigma = sigmas_oct[in_oct] / delta
            radius = 3 * self.lambda_ori * sigma
            p_min = xp.maximum(0, yx - radius[:, None] + 0.5).astype(int)
            p_max = xp.minimum(yx + radius[:, None] + 0.5, xp.asarray([oshape[0] - 1, oshape[1] - 1])).astype(int)
            extent = to_host((p_max - p_min + 1).max(axis=0)).prod() if len(in_oct) else 0
            for a, b in _batches(extent)(in_oct.shape[0]):
                rows, row_ok = _patch_grid(p_min[a:b, 0], p_max[a:b, 0] + 1, xp)
                cols, col_ok = _patch_grid(p_min[a:b, 1], p_max[a:b, 1] + 1, xp)
                scale = scales_oct[in_oct[a:b]][:, None, None] - first
                at = (scale, xp.minimum(rows, oshape[0] - 1)[:, :, None],
                      xp.minimum(cols, oshape[1] - 1)[:, None, :])
                gradient_row = g_row[at]
                gradient_col = g_col[at]
                r = rows.astype(ft)
                c = cols.astype(ft)
                r -= yx[a:b, 0:1]
                c -= yx[a:b, 1:2]
                r, c = r[:, :, None], c[:, None, :]
                magnitude = xp.sqrt(xp.square(gradient_row) + xp.square(gradient_col))
                theta = xp.mod(xp.arctan2(gradient_col, gradient_row), 2 * np.pi)
                kernel = xp.exp(xp.divide(r * r + c * c, -2 * (self.lambda_ori * sigma[a:b, None, None]) ** 2))
                bins = xp.floor((theta / (2 * np.pi) * n_bins + 0.5) % n_bins).astype(int)
                bins += (in_oct[a:b] * n_bins)[:, None, None]
                valid = row_ok[:, :, None] & col_ok[:, None, :]
                _add_at(xp, hist_all.reshape(-1), bins[valid], (kernel * magnitude)[valid])
        # six passes of a circular 3-tap mean, each sum left to right (np.convolve's order)
        third = ft.type(1 / 3)
        hist = hist_all
        for _ in range(6):
            hist = (xp.roll(hist, 1, axis=1) * third + hist * third) + xp.roll(hist, -1, axis=1) * third
        peak = ((hist >= self.c_max * hist.max(axis=1, keepdims=True)) & (hist >= xp.roll(hist, 1, axis=1))
                & (hist >= xp.roll(hist, -1, axis=1)))
        key, m = xp.nonzero(peak)
        h0, h1, h2 = hist[key, (m - 1) % n_bins], hist[key, m], hist[key, (m + 1) % n_bins]
        ori = (m + (h0 - h2) / (2 * (h0 + h2 - 2 * h1)) + 0.5) * 2 * np.pi / n_bins
        ori = xp.where(ori > np.pi, ori - 2 * np.pi, ori)
        first = xp.ones(key.shape[0], dtype=bool)
        first[1:] = key[1:] != key[:-1]
        orientations = xp.zeros(len(sigmas_oct), dtype=ft)
        orientations[key[first]] = ori[first]
        extra = key[~first]
        self.positions = xp.concatenate((positions_oct, positions_oct[extra]))
        self.scales = xp.concatenate((scales_oct, scales_oct[extra]))
        self.sigmas = xp.concatenate((sigmas_oct, sigmas_oct[extra]))
        self.orientations = xp.concatenate((orientations.astype(np.float64), ori[~first]))
        # scikit-image appends a list: an empty one makes the octaves float64
        self.octaves = xp.concatenate((octaves, octaves[extra])) if extra.shape[0] else octaves.astype(np.float64)
        return gradient_space

    def _compute_descriptor(self, gradient_space, xp):
        """Per keypoint n_hist x n_hist histograms of n_ori gradient directions (relative to its orientation)
        over a rotated square patch, trilinearly weighted, clipped at 0.2 of their norm and quantised to uint8."""
        ft = self.float_dtype
        n_hist, n_ori = self.n_hist, self.n_ori
        n_key = len(self.scales)
        hist_all = xp.zeros((n_key, n_hist, n_hist, n_ori), dtype=ft)
        hists = np.arange(1, n_hist + 1, dtype=ft)
        ori_bins = xp.asarray((2 * np.pi * np.arange(1, n_ori + 1, dtype=ft)) / n_ori)
        for o, (gradient, delta) in enumerate(zip(gradient_space, self.deltas)):
            numbers = xp.nonzero(self.octaves == o)[0]
            if numbers.shape[0] == 0:
                continue
            g_row, g_col, first = gradient
            dim = g_row.shape[1:]
            center_pos = self.positions[numbers] / delta
            sigma = self.sigmas[numbers] / delta
            radius = self.lambda_descr * (1 + 1 / n_hist) * sigma
            radius_patch = math.sqrt(2) * radius
            p_min = xp.maximum(0, center_pos - radius_patch[:, None] + 0.5).astype(int)
            p_max = xp.minimum(center_pos + radius_patch[:, None] + 0.5,
                               xp.asarray([dim[0] - 1, dim[1] - 1])).astype(int)
            # keypoints by patch size, so that each batch's padded grid fits its patches closely
            area = to_host(xp.prod(xp.maximum(p_max - p_min, 0), axis=1))
            order = np.argsort(area, kind="stable")
            area = area[order]
            order = xp.asarray(order)
            numbers, center_pos, sigma, radius = numbers[order], center_pos[order], sigma[order], radius[order]
            p_min, p_max = p_min[order], p_max[order]
            # the per-keypoint scalars as scikit-image's Python floats meet the image's float arrays
            ori = self.orientations[numbers]
            host_ori = to_host(ori)   # libm's cosine and sine, as math.cos and math.sin give them
            cos_a = xp.asarray(np.array([math.cos(v) for v in host_ori.tolist()], dtype=ft))
            sin_a = xp.asarray(np.array([math.sin(v) for v in host_ori.tolist()], dtype=ft))
            rad_k = radius.astype(ft)
            lam_sig = self.lambda_descr * sigma
            kernel_div = (-2 * lam_sig ** 2).astype(ft)
            spacing = (2 * lam_sig / n_hist).astype(ft)
            rc_bins = (xp.asarray(hists) - ft.type((1 + n_hist) / 2))[None, :] * spacing[:, None]
            geometry = xp.stack((center_pos[:, 0].astype(ft), center_pos[:, 1].astype(ft), cos_a, sin_a, rad_k),
                                axis=1)
            bounds = xp.stack((self.scales[numbers] - first, p_min[:, 0], p_max[:, 0], p_min[:, 1], p_max[:, 1]),
                              axis=1)
            for a, b in _size_batches(area):
                # the patch pixels in scikit-image's order, keypoint by keypoint
                starts, pix = sift_patches(g_row, g_col, geometry[a:b], bounds[a:b])
                # each pixel's keypoint (CuPy's repeat takes no array of counts)
                k_of = xp.searchsorted(starts[1:], xp.arange(pix.shape[0]), side='right')
                r_norm, c_norm, gradient_row, gradient_col = pix[:, 0], pix[:, 1], pix[:, 2], pix[:, 3]
                theta = xp.arctan2(gradient_col, gradient_row) - ori[a:b].astype(ft)[k_of]
                kernel = xp.exp((r_norm * r_norm + c_norm * c_norm) / kernel_div[a:b][k_of])
                magnitude = xp.sqrt(gradient_row * gradient_row + gradient_col * gradient_col) * kernel
                hist_all[numbers[a:b]] = sift_descriptor_histograms(
                    xp.stack((r_norm, c_norm, theta, magnitude), axis=1), starts, rc_bins[a:b], spacing[a:b],
                    ori_bins, n_hist=n_hist, n_ori=n_ori)
        hist_all = hist_all.reshape(n_key, -1)
        if xp is np:
            # NumPy's norm of one vector (a BLAS dot), as scikit-image takes it keypoint by keypoint
            norms = np.array([np.linalg.norm(h) for h in hist_all], dtype=ft).reshape(-1, 1)
            hist_all = np.minimum(hist_all, 0.2 * norms)
            norms = np.array([np.linalg.norm(h) for h in hist_all], dtype=ft).reshape(-1, 1)
        else:
            hist_all = xp.minimum(hist_all, 0.2 * xp.linalg.norm(hist_all, axis=1, keepdims=True))
            norms = xp.linalg.norm(hist_all, axis=1, keepdims=True)
        descriptor = (512 * hist_all) / norms
        self.descriptors = xp.minimum(xp.floor(descriptor), 255).astype(np.uint8)

    def _preprocess(self, image, method):
        call, image = _keypoint_input(image, f"SIFT.{method}")
        check_nD(image, 2)
        image = img_as_float(image)
        self.float_dtype = np.dtype(supported_float_type(image.dtype))
        image = image.astype(self.float_dtype, copy=False)
        self._set_number_of_octaves(image.shape)
        return call, image

    def _detect(self, image, xp):
        gaussian_scalespace = self._create_scalespace(image, xp)
        dog_scalespace = [xp.diff(layer, axis=0) for layer in gaussian_scalespace]
        found = self._find_localize_evaluate(dog_scalespace, image.shape, xp)
        gradient_space = self._compute_orientation(*found, gaussian_scalespace, xp)
        self.keypoints = xp.round(self.positions).astype(int)
        return gradient_space

    def _publish(self, call, names):
        for k in names:
            setattr(self, k, from_working(getattr(self, k), call.library))

    def detect(self, image):
        """Detect the keypoints: sets keypoints, positions, scales, sigmas, orientations and octaves."""
        call, image = self._preprocess(image, "detect")
        self._detect(image, call.xp)
        self._publish(call, ("keypoints", "positions", "scales", "sigmas", "orientations", "octaves"))

    def extract(self, image):
        """The descriptors of the keypoints found before (``positions``, ``scales``, ``sigmas``,
        ``orientations`` and ``octaves``)."""
        call, image = self._preprocess(image, "extract")
        xp = call.xp
        for k in ("positions", "scales", "sigmas", "orientations", "octaves"):
            v = getattr(self, k)
            setattr(self, k, to_working(v, call.library) if call.engine == CUDA else np.asarray(v))
        gaussian_scalespace = self._create_scalespace(image, xp)
        self._compute_descriptor([_octave_gradients(octave, self.scales[self.octaves == o], xp)
                                  for o, octave in enumerate(gaussian_scalespace)], xp)
        self._publish(call, ("descriptors",))

    def detect_and_extract(self, image):
        """Detect the keypoints and extract their descriptors (one scale space for both)."""
        call, image = self._preprocess(image, "detect_and_extract")
        self._compute_descriptor(self._detect(image, call.xp), call.xp)
        self._publish(call, ("keypoints", "positions", "scales", "sigmas", "orientations", "octaves",
                             "descriptors"))

"""skimage.feature.BRIEF (0.26): binary descriptors from pixel-pair comparisons of the Gaussian-smoothed
image, on the image's engine (the smoothing is ndimg.filters.gaussian; the comparisons are ORB's steered
pair tests at angle 0, one core call). The sampling pattern comes from the same NumPy generator draws as scikit-image's."""
from __future__ import annotations

import copy

import numpy as np

from .._engine import CUDA, engine_for, from_working, to_working
from .._prim.feature import steered_pair_tests
from .._rules import check_nD
from ..ndimage._footprint import to_host
from ._corner_cy import _grayscale_2d


def _mask_border_keypoints(image_shape, keypoints, distance):
    """The keypoints at least `distance` pixels inside the image (scikit-image's border rule)."""
    rows, cols = image_shape[:2]
    return (((distance - 1) < keypoints[:, 0]) & (keypoints[:, 0] < (rows - distance + 1))
            & ((distance - 1) < keypoints[:, 1]) & (keypoints[:, 1] < (cols - distance + 1)))


class BRIEF:
    """BRIEF binary descriptor extractor (skimage.feature.BRIEF): `descriptor_size` comparisons of pixel pairs
    drawn in a `patch_size` square ('normal' or 'uniform' sampling) around each keypoint of the image smoothed
    by a Gaussian of `sigma`. `rng` seeds the pattern as scikit-image's does (a Generator is spawned from, so
    the caller's stream is not advanced; each extract draws from a copy, so repeated calls agree)."""

    def __init__(self, descriptor_size=256, patch_size=49, mode='normal', sigma=1, rng=1):
        mode = mode.lower()
        if mode not in ('normal', 'uniform'):
            raise ValueError("`mode` must be 'normal' or 'uniform'.")
        self.descriptor_size = descriptor_size
        self.patch_size = patch_size
        self.mode = mode
        self.sigma = sigma
        if isinstance(rng, np.random.Generator):
            # an independent child of the caller's generator, which can then be deep-copied safely
            bit = rng._bit_generator
            (child,) = bit._seed_seq.spawn(1)
            self.rng = np.random.Generator(type(bit)(child))
        elif rng is None:
            self.rng = np.random.default_rng(np.random.SeedSequence())
        else:
            self.rng = np.random.default_rng(rng)
        self.descriptors = None
        self.mask = None

    def _pairs(self, rng):
        """The (descriptor_size, 2) offsets of the first and the second pixel of each comparison."""
        size, patch = self.descriptor_size, self.patch_size
        if self.mode == 'normal':
            samples = np.array((patch / 5.0) * rng.standard_normal(size * 8), dtype=np.int32)
            samples = samples[(samples < (patch // 2)) & (samples > -(patch - 2) // 2)]
            return samples[:size * 2].reshape(size, 2), samples[size * 2:size * 4].reshape(size, 2)
        samples = np.array(rng.integers(-(patch - 2) // 2, (patch // 2) + 1, (size * 2, 2)), dtype=np.int32)
        return np.split(samples, 2)

    def extract(self, image, keypoints):
        """Descriptors of the keypoints ((N, 2) rows and columns) far enough from the border: sets
        ``descriptors`` ((Q, descriptor_size) bool) and ``mask`` ((N,) bool: which keypoints have one), as the
        image's array type."""
        from ..filters import gaussian

        call = engine_for(image)
        xp = call.xp
        if call.engine == CUDA:
            image = to_working(image, call.library)
        check_nD(image, 2)
        rng = copy.deepcopy(self.rng)
        image = _grayscale_2d(image if xp is not np else np.asarray(image))
        image = gaussian(image, sigma=self.sigma, mode='reflect')
        pos1, pos2 = self._pairs(rng)
        keypoints = to_host(keypoints)
        mask = _mask_border_keypoints(image.shape, keypoints, self.patch_size // 2)
        kp = np.array(keypoints[mask, :], dtype=np.int64, order='C')
        # ORB's steered tests at angle 0 (its rows take the pairs' second axis): flat offsets, so that scikit-image's
        # unchecked reads past a row's end land in the next row; reads past the image's end (uniform sampling at
        # the last allowed keypoint) are undefined there and clamped here
        ft = image.dtype
        pairs = np.stack([pos1[:, 1], pos1[:, 0], pos2[:, 1], pos2[:, 0]], axis=1).astype(ft)
        descriptors = steered_pair_tests(image, xp.asarray(kp), xp.zeros(len(kp), ft), xp.ones(len(kp), ft),
                                         xp.asarray(pairs)) if len(kp) and len(pos1) else \
            xp.zeros((len(kp), self.descriptor_size), dtype=bool)
        if descriptors.shape[1] != self.descriptor_size:   # fewer samples than asked (tiny patches)
            raise ValueError(f"could not broadcast input array from shape {descriptors.shape} into shape "
                             f"{(len(kp), self.descriptor_size)}")
        self.mask = from_working(xp.asarray(mask), call.library) if xp is not np else mask
        self.descriptors = from_working(descriptors, call.library) if xp is not np else descriptors

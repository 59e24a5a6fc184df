"""skimage.feature.ORB (0.26): oriented FAST keypoints and rotated BRIEF descriptors over a Gaussian pyramid,
on the image's engine. Each octave's FAST response, peaks, Harris response and intensity-centroid
orientations are ndimg's (corner_fast, corner_peaks, corner_harris, corner_orientations); the descriptors'
steered pair comparisons are one core call (steered_pair_tests) over all keypoints and pairs, in the image's
float precision as scikit-image's loop computes them. Keypoints are ranked on the host (NumPy's argsort,
scikit-image's order)."""
from __future__ import annotations

import numpy as np

from .._engine import CUDA, from_working, to_working
from .._prim.feature import steered_pair_tests
from .._rules import check_nD
from ..ndimage._footprint import to_host
from ..transform import pyramid_gaussian
from ._brief import _mask_border_keypoints
from ._censure import _keypoint_input
from ._corner_cy import _grayscale_2d, corner_fast, corner_orientations
from ._deriv import corner_harris
from ._orb_pattern import PAIRS
from ._peak import corner_peaks

OFAST_MASK = np.zeros((31, 31))
OFAST_UMAX = [15, 15, 15, 15, 14, 14, 14, 13, 13, 12, 11, 10, 9, 8, 6, 3]
for _i in range(-15, 16):
    for _j in range(-OFAST_UMAX[abs(_i)], OFAST_UMAX[abs(_i)] + 1):
        OFAST_MASK[15 + _j, 15 + _i] = 1
del _i, _j


def _orb_descriptors(image, keypoints, orientations, xp):
    """(N, 256) bool: for each keypoint (integer row, col) and angle (radians), the comparisons of the pattern's
    pairs rotated by the angle (offsets rounded as scikit-image's loop rounds them)."""
    if keypoints.shape[0] == 0:
        return xp.zeros((0, len(PAIRS)), dtype=bool)
    ft = image.dtype
    # the loop takes libm's double sine of the angle and works in the image's precision from there; taken on the
    # host (one per keypoint) as CUDA's sine and cosine may round differently
    angle = to_host(orientations).astype(np.float64)
    return steered_pair_tests(image, keypoints, xp.asarray(np.sin(angle).astype(ft)),
                              xp.asarray(np.cos(angle).astype(ft)), xp.asarray(PAIRS.astype(ft)))


class ORB:
    """Oriented FAST and rotated BRIEF (skimage.feature.ORB): `n_keypoints` FAST corners of the largest Harris
    response over `n_scales` pyramid levels (each `downscale` smaller), their intensity-centroid orientations,
    and 256-bit descriptors. Results (``keypoints``, ``scales``, ``orientations``, ``responses``,
    ``descriptors``, ``mask_``) come back as the image's array type."""

    def __init__(self, downscale=1.2, n_scales=8, n_keypoints=500, fast_n=9, fast_threshold=0.08, harris_k=0.04):
        self.downscale = downscale
        self.n_scales = n_scales
        self.n_keypoints = n_keypoints
        self.fast_n = fast_n
        self.fast_threshold = fast_threshold
        self.harris_k = harris_k
        self.keypoints = None
        self.scales = None
        self.responses = None
        self.orientations = None
        self.descriptors = None

    @staticmethod
    def _working(image, method):
        call, image = _keypoint_input(image, f"ORB.{method}")
        check_nD(image, 2)
        return call, image

    def _build_pyramid(self, image, xp):
        image = _grayscale_2d(image)
        return list(pyramid_gaussian(image, self.n_scales - 1, self.downscale, channel_axis=None))

    def _detect_octave(self, octave_image, xp):
        dtype = octave_image.dtype
        fast_response = corner_fast(octave_image, self.fast_n, self.fast_threshold)
        keypoints = corner_peaks(fast_response, min_distance=1)
        if len(keypoints) == 0:
            return (xp.zeros((0, 2), dtype=dtype), xp.zeros((0,), dtype=dtype), xp.zeros((0,), dtype=dtype))
        keypoints = keypoints[_mask_border_keypoints(octave_image.shape, keypoints, distance=16)]
        if xp is np:
            orientations = corner_orientations(octave_image, keypoints, OFAST_MASK)
        else:
            # on the host: CUDA's atan2 differs from libm's in the last bit, and the descriptors steer by it
            orientations = xp.asarray(corner_orientations(to_host(octave_image), to_host(keypoints), OFAST_MASK))
        harris_response = corner_harris(octave_image, method='k', k=self.harris_k)
        return keypoints, orientations, harris_response[keypoints[:, 0], keypoints[:, 1]]

    def _extract_octave(self, octave_image, keypoints, orientations, xp):
        mask = _mask_border_keypoints(octave_image.shape, keypoints, distance=20)
        keypoints = keypoints[mask].astype(np.intp)
        return _orb_descriptors(octave_image, keypoints, orientations[mask], xp), mask

    def _keep_best(self, call, **found):
        """The attributes: everything found, or its n_keypoints largest responses (NumPy's argsort order)."""
        responses = found['responses']
        if responses.shape[0] >= self.n_keypoints:
            best = np.argsort(to_host(responses))[::-1][:self.n_keypoints]
            best = call.xp.asarray(best.copy())
            found = {k: v[best] for k, v in found.items()}
        for k, v in found.items():
            setattr(self, k, from_working(v, call.library))

    def detect(self, image):
        """Detect oriented FAST keypoints of a 2-D image."""
        call, image = self._working(image, "detect")
        xp = call.xp
        pyramid = self._build_pyramid(image, xp)
        keypoints, orientations, scales, responses = [], [], [], []
        for octave, octave_image in enumerate(pyramid):
            octave_image = xp.ascontiguousarray(octave_image)
            if xp.squeeze(octave_image).ndim < 2:
                break   # no keypoints in an image that is not really 2-D any more
            kp, ori, resp = self._detect_octave(octave_image, xp)
            keypoints.append(kp * self.downscale ** octave)
            orientations.append(ori)
            scales.append(xp.full(kp.shape[0], self.downscale ** octave, dtype=octave_image.dtype))
            responses.append(resp)
        self._keep_best(call, keypoints=xp.vstack(keypoints), scales=xp.hstack(scales),
                        orientations=xp.hstack(orientations), responses=xp.hstack(responses))

    def extract(self, image, keypoints, scales, orientations):
        """Descriptors of given keypoints (float row, col), scales (their pyramid factor) and orientations
        (radians): sets ``descriptors`` and ``mask_`` (which keypoints are far enough from the border)."""
        call, image = self._working(image, "extract")
        xp = call.xp
        keypoints, scales, orientations = (to_working(v, call.library) if call.engine == CUDA else np.asarray(v)
                                           for v in (keypoints, scales, orientations))
        pyramid = self._build_pyramid(image, xp)
        descriptors, masks = [], []
        # on the host, as scikit-image does: a float32 scale's log in CuPy can differ in the last bit and land an
        # exact octave (1.2**k) on the other side of its truncation
        octaves = xp.asarray((np.log(to_host(scales)) / np.log(self.downscale)).astype(np.intp))
        for octave, octave_image in enumerate(pyramid):
            in_octave = octaves == octave
            if int(xp.sum(in_octave)) > 0:
                octave_keypoints = keypoints[in_octave]
                octave_keypoints /= self.downscale ** octave
                d, m = self._extract_octave(xp.ascontiguousarray(octave_image), octave_keypoints,
                                            orientations[in_octave], xp)
                descriptors.append(d)
                masks.append(m)
        self.descriptors = from_working(xp.vstack(descriptors), call.library)
        self.mask_ = from_working(xp.hstack(masks), call.library)

    def detect_and_extract(self, image):
        """Detect oriented FAST keypoints and extract their descriptors (one pyramid for both)."""
        call, image = self._working(image, "detect_and_extract")
        xp = call.xp
        pyramid = self._build_pyramid(image, xp)
        keypoints, responses, scales, orientations, descriptors = [], [], [], [], []
        for octave, octave_image in enumerate(pyramid):
            octave_image = xp.ascontiguousarray(octave_image)
            if xp.squeeze(octave_image).ndim < 2:
                break
            kp, ori, resp = self._detect_octave(octave_image, xp)
            if len(kp) == 0:
                # scikit-image keeps the empty (float) keypoints and responses, no scales or orientations
                keypoints.append(kp)
                responses.append(resp)
                descriptors.append(xp.zeros((0, 256), dtype=bool))
                continue
            d, mask = self._extract_octave(octave_image, kp, ori, xp)
            scaled = kp[mask] * self.downscale ** octave
            keypoints.append(scaled)
            responses.append(resp[mask])
            orientations.append(ori[mask])
            scales.append(self.downscale ** octave * xp.ones(scaled.shape[0], dtype=np.intp))
            descriptors.append(d)
        if len(scales) == 0:
            raise RuntimeError("ORB found no features. Try passing in an image containing "
                               "greater intensity contrasts between adjacent pixels.")
        self._keep_best(call, keypoints=xp.vstack(keypoints), scales=xp.hstack(scales),
                        orientations=xp.hstack(orientations), responses=xp.hstack(responses),
                        descriptors=xp.vstack(descriptors))

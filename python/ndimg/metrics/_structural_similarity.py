"""Structural similarity index (skimage.metrics.structural_similarity)."""
from __future__ import annotations

import warnings

import numpy as np

from .._blocks import blockable, blockwise
from .._engine import engine_aware, xp_of
from .._prim import reduce
from .._rules import channel_axis_index, supported_float_type
from ..ndimage._separable import gaussian_filter, uniform_filter
from ._common import check_shape_equality, dtype_range, scalar

_WIN_TOO_BIG = ("win_size exceeds image extent. Either ensure that your images are at least 7x7; or pass "
                "win_size explicitly in the function call, with an odd value less than or equal to the smaller "
                "side of your images. If your images are multichannel (with color channels), set channel_axis "
                "to the axis number corresponding to the channels.")
_FLOAT_NEEDS_RANGE = ("Since image dtype is floating point, you must specify the data_range parameter. Please "
                      "read the documentation carefully (including the note). It is recommended that you always "
                      "specify the data_range anyway.")


@engine_aware("im1", "im2")
def structural_similarity(im1, im2, *, win_size=None, gradient=False, data_range=None, channel_axis=None,
                          gaussian_weights=False, full=False, **kwargs):
    """Mean structural similarity of two images (Wang et al. 2004), optionally with its gradient with respect
    to ``im2``'s pixels and the full SSIM image. Local statistics use a ``win_size`` uniform window or, with
    ``gaussian_weights``, a Gaussian (``sigma``, truncated at 3.5 sigma); ``K1``, ``K2``, ``sigma`` and
    ``use_sample_covariance`` are accepted as keywords. With ``channel_axis`` each channel is compared
    separately and the channel means are averaged."""
    check_shape_equality(im1, im2)
    float_type = supported_float_type(im1.dtype)
    if channel_axis is not None:
        return _per_channel(im1, im2, float_type, channel_axis,
                            dict(win_size=win_size, gradient=gradient, data_range=data_range,
                                 gaussian_weights=gaussian_weights, full=full, **kwargs))
    return _ssim(im1, im2, float_type, win_size, gradient, data_range, gaussian_weights, full, **kwargs)


def _per_channel(im1, im2, float_type, channel_axis, args):
    xp = xp_of(im1, im2)
    axis = channel_axis_index(channel_axis, im1.ndim)
    at = lambda c: (slice(None),) * axis + (c,)
    nch = im1.shape[axis]
    mssim = xp.empty(nch, dtype=float_type)
    extra = [xp.empty(im1.shape, dtype=float_type) for _ in range(int(bool(args["gradient"])) + int(bool(args["full"])))]
    for c in range(nch):
        res = _ssim(im1[at(c)], im2[at(c)], float_type, **args)
        res = res if isinstance(res, tuple) else (res,)
        mssim[c] = res[0]
        for dst, src in zip(extra, res[1:]):
            dst[at(c)] = src
    m = scalar(mssim.mean())
    return (m, *extra) if extra else m


class _Window:
    """The checked parameters of one SSIM computation: the local mean (a uniform or Gaussian window of
    radius ``radius``), the covariance normalisation and the constants c1, c2."""

    def __init__(self, im1, im2, win_size, data_range, gaussian_weights, K1=0.01, K2=0.03, sigma=1.5,
                 use_sample_covariance=True, **ignored):
        if K1 < 0:
            raise ValueError("K1 must be positive")
        if K2 < 0:
            raise ValueError("K2 must be positive")
        if sigma < 0:
            raise ValueError("sigma must be positive")
        truncate = 3.5  # an 11-tap Gaussian at the default sigma, as in Wang et al.
        if win_size is None:
            win_size = 2 * int(truncate * sigma + 0.5) + 1 if gaussian_weights else 7
        if any(s < win_size for s in im1.shape):
            raise ValueError(_WIN_TOO_BIG)
        if win_size % 2 != 1:
            raise ValueError("Window size must be odd.")
        if data_range is None:
            if im1.dtype.kind == "f" or im2.dtype.kind == "f":
                raise ValueError(_FLOAT_NEEDS_RANGE)
            if im1.dtype != im2.dtype:
                warnings.warn("Inputs have mismatched dtypes. Setting data_range based on im1.dtype.", stacklevel=5)
            dmin, dmax = dtype_range(im1.dtype)
            data_range = dmax - dmin
            if im1.dtype.kind in "iu" and im1.dtype != np.uint8:
                warnings.warn(f"Setting data_range based on im1.dtype. data_range = {data_range:.0f}. "
                              "Please specify data_range explicitly to avoid mistakes.", stacklevel=5)
        self.sigma, self.truncate, self.win_size, self.gaussian = sigma, truncate, win_size, gaussian_weights
        self.radius = int(truncate * sigma + 0.5) if gaussian_weights else (win_size - 1) // 2
        self.pad = (win_size - 1) // 2
        n = win_size**im1.ndim
        self.cov_norm = n / (n - 1) if use_sample_covariance else 1.0
        self.c1, self.c2 = (K1 * data_range) ** 2, (K2 * data_range) ** 2

    def local_mean(self, x):
        if self.gaussian:
            return gaussian_filter(x, self.sigma, mode="reflect", truncate=self.truncate)
        return uniform_filter(x, size=self.win_size)

    def terms(self, ux, uy, uxx, uyy, uxy):
        """(a1, a2, b1, b2) of the SSIM quotient (a1 a2) / (b1 b2), pixel by pixel, from the local means of
        x, y, x*x, y*y and x*y."""
        vx = self.cov_norm * (uxx - ux * ux)
        vy = self.cov_norm * (uyy - uy * uy)
        vxy = self.cov_norm * (uxy - ux * uy)
        return 2 * ux * uy + self.c1, 2 * vxy + self.c2, ux**2 + uy**2 + self.c1, vx + vy + self.c2

    def maps(self, im1, im2, float_type, gradient):
        """The SSIM image of two images (or blocks with their halo) and, with ``gradient``, the gradient of
        the SSIM image's sum with respect to im2 (Avanaki 2009, eqs. 7-8): the mean's divides it by the
        pixel count. The pointwise steps run on the CPU engine's threads (NumPy alone is one core)."""
        local_mean = self.local_mean
        xp = xp_of(im1, im2)
        im1 = im1.astype(float_type, copy=False)
        im2 = im2.astype(float_type, copy=False)
        xx, yy, xy = (xp.empty_like(im1) for _ in range(3))

        def products(x, y, xx, yy, xy):
            xp.multiply(x, x, out=xx)
            xp.multiply(y, y, out=yy)
            xp.multiply(x, y, out=xy)

        _pointwise(products, im1, im2, xx, yy, xy)
        ux, uy, uxx, uyy, uxy = (local_mean(v) for v in (im1, im2, xx, yy, xy))
        if not gradient:
            s = xx  # reused: its local mean is taken

            def quotient(ux, uy, uxx, uyy, uxy, s):
                a1, a2, b1, b2 = self.terms(ux, uy, uxx, uyy, uxy)
                xp.divide(a1 * a2, b1 * b2, out=s)

            _pointwise(quotient, ux, uy, uxx, uyy, uxy, s)
            return s, None
        a1, a2, b1, b2 = self.terms(ux, uy, uxx, uyy, uxy)
        d = b1 * b2
        s = (a1 * a2) / d
        grad = local_mean(a1 / d) * im1
        grad += local_mean(-s / b2) * im2
        grad += local_mean((ux * (a2 - a1) - uy * (b2 - b1) * s) / d)
        return s, grad


def _pointwise(fn, *arrays):
    """fn over the arrays, on the CPU engine's threads where blockwise can split them (else whole)."""
    if blockable(*arrays):
        blockwise(fn, *arrays)
    else:
        fn(*arrays)


def _ssim(im1, im2, float_type, win_size, gradient, data_range, gaussian_weights, full, **kwargs):
    w = _Window(im1, im2, win_size, data_range, gaussian_weights, **kwargs)
    s, grad = w.maps(im1, im2, float_type, gradient)
    # one threaded (or device) pass over the strided crop: CuPy's mean(dtype=float64) of it took 6 ms at 4K
    mssim = scalar(reduce.mean(s[tuple(slice(w.pad, n_ - w.pad) for n_ in s.shape)], dtype=np.float64))
    if not gradient:
        return (mssim, s) if full else mssim
    grad *= 2 / im1.size
    return (mssim, grad, s) if full else (mssim, grad)

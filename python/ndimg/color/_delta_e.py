"""skimage.color's colour differences (skimage/color/delta_e.py) over NumPy or CuPy.

Each difference is per pixel: the formula is written once over the L, a, b planes of both inputs. Inputs of
one shape run in blocks of pixels on the CPU engine's threads; inputs that broadcast against each other (an
image against one colour) run whole. Intermediate dtypes follow scikit-image's expressions (NumPy float64
scalars promote float32 planes where its code uses them), so float32 results round as its do.
"""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from .._rules import supported_float_type
from ._colorconv import _planes, _polar, _run


def _float_dtype(lab1, lab2):
    return supported_float_type((lab1.dtype, lab2.dtype))


def _difference(lab1, lab2, channel_axis, formula):
    """formula(L1, a1, b1, L2, a2, b2, float32 input) over the inputs' first 3 channels."""
    xp = xp_of(lab1, lab2)
    lab1, lab2 = xp.asarray(lab1), xp.asarray(lab2)
    dt = _float_dtype(lab1, lab2)
    f32 = dt == np.float32
    c1 = xp.moveaxis(lab1, channel_axis, -1)
    c2 = xp.moveaxis(lab2, channel_axis, -1)
    if xp is not np and c1.ndim == 1 and c2.ndim == 1:
        # one pixel each: scikit-image's NumPy scalars promote in in-place sums where 0-d GPU arrays keep their
        # dtype (cmc's float32 -> float64): the three values computed as NumPy scalars
        return xp.asarray(_difference(lab1.get(), lab2.get(), channel_axis, formula))
    # one pixel each: scikit-image computes on NumPy scalars, whose in-place sums promote (cmc: to float64)
    if c1.shape != c2.shape or c1.shape[-1] < 3 or type(c1) is not np.ndarray or c1.ndim == 1:
        p1 = xp.moveaxis(lab1.astype(dt, copy=False), channel_axis, 0)[:3]
        p2 = xp.moveaxis(lab2.astype(dt, copy=False), channel_axis, 0)[:3]
        L1, a1, b1 = p1   # fewer than 3 channels: scikit-image's unpacking ValueError
        L2, a2, b2 = p2
        with np.errstate(divide="ignore", invalid="ignore"):
            return formula(L1, a1, b1, L2, a2, b2, f32)
    out = np.empty(c1.shape[:-1] + (1,), dt)

    def kernel(a, o, b):
        o[:, 0] = formula(*_planes(a[:, :3], dt, scale=False), *_planes(b[:, :3], dt, scale=False), f32)

    _run(kernel, c1, out, c2)
    return out.reshape(c1.shape[:-1])


def _dH2(a1, b1, a2, b2, f32):
    """scikit-image's get_dH2: the squared hue difference, computed in float64 (float32 if the inputs are)."""
    a1, b1, a2, b2 = (x.astype(np.float64, copy=False) for x in (a1, b1, a2, b2))
    xp = xp_of(a1)
    out = 2 * (xp.hypot(a1, b1) * xp.hypot(a2, b2) - (a1 * a2 + b1 * b2))
    return out.astype(np.float32) if f32 else out


@engine_aware("lab1", "lab2")
def deltaE_cie76(lab1, lab2, channel_axis=-1):
    def formula(L1, a1, b1, L2, a2, b2, f32):
        return xp_of(L1).sqrt((L2 - L1) ** 2 + (a2 - a1) ** 2 + (b2 - b1) ** 2)
    return _difference(lab1, lab2, channel_axis, formula)


@engine_aware("lab1", "lab2")
def deltaE_ciede94(lab1, lab2, kH=1, kC=1, kL=1, k1=0.045, k2=0.015, *, channel_axis=-1):
    def formula(L1, a1, b1, L2, a2, b2, f32):
        xp = xp_of(L1)
        C1, C2 = xp.hypot(a1, b1), xp.hypot(a2, b2)
        dH2 = _dH2(a1, b1, a2, b2, f32)
        SC = 1 + k1 * C1
        SH = 1 + k2 * C1
        dE2 = ((L1 - L2) / (kL * 1)) ** 2
        dE2 += ((C1 - C2) / (kC * SC)) ** 2
        dE2 += dH2 / (kH * SH) ** 2
        return xp.sqrt(xp.maximum(dE2, 0))
    return _difference(lab1, lab2, channel_axis, formula)


def _ciede2000(L1, a1, b1, L2, a2, b2, kL, kC, kH):
    xp = xp_of(L1)
    Cbar = 0.5 * (xp.hypot(a1, b1) + xp.hypot(a2, b2))
    c7 = Cbar ** 7
    scale = 1 + 0.5 * (1 - xp.sqrt(c7 / (c7 + 25 ** 7)))
    C1, h1 = _polar(a1 * scale, b1)
    C2, h2 = _polar(a2 * scale, b2)
    Lbar = 0.5 * (L1 + L2)
    tmp = (Lbar - 50) ** 2
    SL = 1 + 0.015 * tmp / xp.sqrt(20 + tmp)
    L_term = (L2 - L1) / (kL * SL)
    Cbar = 0.5 * (C1 + C2)
    SC = 1 + 0.045 * Cbar
    C_term = (C2 - C1) / (kC * SC)
    h_diff = h2 - h1
    h_sum = h1 + h2
    CC = C1 * C2
    chroma = CC != 0.0   # where either chroma is 0 the hue difference is 0 and the mean hue their sum
    dH = xp.where(h_diff > np.pi, h_diff - 2 * np.pi, xp.where(h_diff < -np.pi, h_diff + 2 * np.pi, h_diff))
    dH = xp.where(chroma, dH, 0.0)
    dH_term = 2 * xp.sqrt(CC) * xp.sin(dH / 2)
    wrap = chroma & (xp.abs(h_diff) > np.pi)
    Hbar = xp.where(wrap & (h_sum < 2 * np.pi), h_sum + 2 * np.pi,
                    xp.where(wrap & (h_sum >= 2 * np.pi), h_sum - 2 * np.pi, h_sum))
    Hbar = xp.where(chroma, Hbar, Hbar * 2) * 0.5
    T = (1 - 0.17 * xp.cos(Hbar - np.deg2rad(30)) + 0.24 * xp.cos(2 * Hbar)
         + 0.32 * xp.cos(3 * Hbar + np.deg2rad(6)) - 0.20 * xp.cos(4 * Hbar - np.deg2rad(63)))
    SH = 1 + 0.015 * Cbar * T
    H_term = dH_term / (kH * SH)
    c7 = Cbar ** 7
    Rc = 2 * xp.sqrt(c7 / (c7 + 25 ** 7))
    dtheta = np.deg2rad(30) * xp.exp(-(((xp.rad2deg(Hbar) - 275) / 25) ** 2))
    R_term = -xp.sin(2 * dtheta) * Rc * C_term * H_term
    dE2 = L_term ** 2   # accumulated in place: in the planes' dtype, as scikit-image's
    dE2 += C_term ** 2
    dE2 += H_term ** 2
    dE2 += R_term
    return xp.sqrt(xp.maximum(dE2, 0))


@engine_aware("lab1", "lab2")
def deltaE_ciede2000(lab1, lab2, kL=1, kC=1, kH=1, *, channel_axis=-1):
    xp = xp_of(lab1, lab2)
    lab1, lab2 = xp.asarray(lab1), xp.asarray(lab2)
    channel_axis = channel_axis % lab1.ndim
    one = lab1.ndim == 1 and lab2.ndim == 1
    if one:
        lab1, lab2, channel_axis = lab1[None, :], lab2[None, :], channel_axis + 1
    out = _difference(lab1, lab2, channel_axis, lambda *p: _ciede2000(*p[:6], kL, kC, kH))
    return out[0] if one else out


@engine_aware("lab1", "lab2")
def deltaE_cmc(lab1, lab2, kL=1, kC=1, *, channel_axis=-1):
    def formula(L1, a1, b1, L2, a2, b2, f32):
        xp = xp_of(L1)
        C1, h1 = _polar(a1, b1)
        C2 = xp.hypot(a2, b2)
        dH2 = _dH2(a1, b1, a2, b2, f32)
        deg = xp.rad2deg(h1)
        T = xp.where((deg >= 164) & (deg <= 345), 0.56 + 0.2 * xp.abs(xp.cos(h1 + np.deg2rad(168))),
                     0.36 + 0.4 * xp.abs(xp.cos(h1 + np.deg2rad(35))))
        c1_4 = C1 ** 4
        F = xp.sqrt(c1_4 / (c1_4 + 1900))
        SL = xp.where(L1 < 16, 0.511, 0.040975 * L1 / (1.0 + 0.01765 * L1))
        SC = 0.638 + 0.0638 * C1 / (1.0 + 0.0131 * C1)
        SH = SC * (F * T + 1 - F)
        dE2 = ((L1 - L2) / (kL * SL)) ** 2
        dE2 += ((C1 - C2) / (kC * SC)) ** 2
        dE2 += dH2 / (SH ** 2)
        return xp.sqrt(xp.maximum(dE2, 0))
    return _difference(lab1, lab2, channel_axis, formula)

"""PyWavelets' n-D discrete wavelet transform (wavedecn/waverecn, mode 'symmetric') in any array namespace: the
transform of denoise_wavelet and estimate_sigma on both engines (its filter taps, pywt.Wavelet, are read from
PyWavelets). NumPy float arrays go one axis at a time through the C++ transform (cpp/src/wavelet, the same
order of summation, in parallel over the lines); other arrays through the array code below.

Every coefficient is PyWavelets' to the bit: its products and sums one tap at a time over the whole array, in
PyWavelets' order of summation, each rounded on its own, from +0 (float32 data with float32 taps, as
PyWavelets). Not the separable primitive: it sums in scipy's order, and its last-bit differences decide which
details of a flat region are exactly zero, which the noise estimate's median leaves out (denoise_wavelet of a
clipped noisy image with bior3.5 moved by 0.027 through it).

Along one axis of n samples and a filter of F taps (F is even for every discrete wavelet):
- analysis: output k is the convolution at i = 2k + 1 of the signal extended by half-sample mirroring
  (period 2n, as PyWavelets folds signals shorter than the filter), (n + F - 1) // 2 outputs; PyWavelets adds
  the taps in order 0..F-1, except that an output reaching past the right end adds those taps first,
  downwards from i - n to 0;
- synthesis: PyWavelets' 'valid' upsampling convolution, whose even and odd outputs are the coefficients
  convolved with the even and odd taps of the reconstruction filter (F / 2 taps each, in order): 2 (n - F / 2 + 1)
  samples, the approximation's share plus the detail's.
"""
from __future__ import annotations

import functools
import warnings
from itertools import product

import numpy as np

from .. import _core
from .._engine import xp_of


def _working(a):
    """PyWavelets' working dtype: float32, float64 and complex as they are, float16 as float32, anything else
    float64 (None stays None)."""
    if a is None or a.dtype in (np.float32, np.float64, np.complex64, np.complex128):
        return a
    return a.astype(np.float32 if a.dtype == np.float16 else np.float64)


def _along(a, axis, index):
    return a[(slice(None),) * axis + (index,)]


@functools.lru_cache(maxsize=None)
def _float32_taps(name):
    """PyWavelets' float32 filters (dec_lo, dec_hi, rec_lo, rec_hi), read as its float32 transforms' responses to
    unit impulses: some are not the float64 taps rounded (coif3 and up scale float32 taps by a float32 sqrt(2))."""
    import pywt

    wavelet = pywt.Wavelet(name)
    taps = wavelet.dec_len
    # analysis (zero extension): output k of an impulse at p is tap 2k + 1 - p; p = taps, taps + 1 give all taps
    impulses = np.zeros((2, 3 * taps), np.float32)
    impulses[0, taps] = impulses[1, taps + 1] = 1
    dec = np.zeros((2, taps), np.float32)
    for p, bands in zip((taps, taps + 1), zip(*pywt.dwt(impulses, wavelet, mode="zero", axis=-1))):
        k = np.arange(bands[0].shape[-1])
        t = 2 * k + 1 - p
        inside = (t >= 0) & (t < taps)
        for bank, band in zip(dec, bands):
            bank[t[inside]] = band[inside]
    # synthesis: an impulse at taps / 2 - 1 among `taps` coefficients gives the filter as the first outputs
    impulse, zero = np.zeros(taps, np.float32), np.zeros(taps, np.float32)
    impulse[taps // 2 - 1] = 1
    rec = [pywt.idwt(impulse, zero, wavelet)[:taps], pywt.idwt(zero, impulse, wavelet)[:taps]]
    return (*dec, *rec)


def _filters(wavelet, dtype):
    """The four filters as PyWavelets applies them to data of `dtype` (float32 or float64)."""
    if dtype == np.float32:
        return _float32_taps(wavelet.name)
    return tuple(np.asarray(f, dtype=np.float64)
                 for f in (wavelet.dec_lo, wavelet.dec_hi, wavelet.rec_lo, wavelet.rec_hi))


def _analysis_order(n, taps):
    """PyWavelets' order of one analysis level: at step s, output k adds tap t[s, k] times sample x[at[s, k]]."""
    i = 2 * np.arange((n + taps - 1) // 2) + 1
    past = i - n   # >= 0: the output reaches past the right end, whose taps come first, downwards
    s = np.arange(taps)[:, None]
    t = np.where(s <= past, past - s, s)
    at = (i - t) % (2 * n)   # the half-sample symmetric extension
    return t, np.where(at >= n, 2 * n - 1 - at, at)


def dwt(x, wavelet, axis=-1):
    """The approximation and detail coefficients of one level along `axis` (pywt.dwt, mode 'symmetric', of a
    pywt.Wavelet)."""
    xp = xp_of(x)
    x = _working(x)
    axis %= x.ndim
    if x.dtype.kind == "c":   # PyWavelets' complex transform: real taps, so the parts' transforms
        parts = (dwt(x.real, wavelet, axis), dwt(x.imag, wavelet, axis))
        bands = tuple(xp.empty(re.shape, x.dtype) for re in parts[0])
        for band, re, im in zip(bands, *parts):
            band.real[...], band.imag[...] = re, im
        return bands
    if xp is np:
        x = np.ascontiguousarray(x)
        dec_lo, dec_hi = _filters(wavelet, x.dtype)[:2]
        shape = list(x.shape)
        shape[axis] = (shape[axis] + len(dec_lo) - 1) // 2
        lo, hi = np.empty(shape, x.dtype), np.empty(shape, x.dtype)
        _core.wavelet_dwt(x, lo, hi, axis, dec_lo.tolist(), dec_hi.tolist())
        return lo, hi
    taps, at = _analysis_order(x.shape[axis], wavelet.dec_len)
    at = xp.asarray(at)
    shape = [1] * x.ndim
    shape[axis] = -1
    # each output's taps in its own order: one weight per output and step
    weights = [xp.asarray(bank[taps]) for bank in _filters(wavelet, x.dtype)[:2]]
    lo = hi = None
    for s in range(len(at)):
        sample = xp.take(x, at[s], axis=axis)
        term_lo = sample * weights[0][s].reshape(shape)
        sample *= weights[1][s].reshape(shape)
        if lo is None:   # PyWavelets' sums start from +0, so none is -0
            term_lo += 0
            sample += 0
            lo, hi = term_lo, sample
        else:
            lo += term_lo
            hi += sample
    return lo, hi


def _upsampled(c, rec, axis):
    """One band's share of the synthesis along `axis`: its even and odd outputs (the 'valid' convolutions with
    the even and odd reconstruction taps, tap by tap in order)."""
    half, n = len(rec) // 2, c.shape[axis]
    phases = []
    for phase in (0, 1):
        acc = None
        for j in range(half):
            term = _along(c, axis, slice(half - 1 - j, n - j)) * rec[2 * j + phase]
            if acc is None:   # from +0, as PyWavelets' sums
                term += 0
                acc = term
            else:
                acc += term
        phases.append(acc)
    return phases


def idwt(ca, cd, wavelet, axis):
    """The signal from its approximation and detail coefficients along `axis` (pywt.idwt, 'symmetric'):
    two bands of one shape (None for a missing one)."""
    bands = [_working(c) for c in (ca, cd)]
    if ca is not None and cd is not None and ca.dtype != cd.dtype:   # PyWavelets upcasts a mixed pair to float64
        bands = [c.astype(np.float64, copy=False) for c in bands]
    dtype = next(c.dtype for c in bands if c is not None)
    filters = _filters(wavelet, dtype)[2:]
    present = next(c for c in bands if c is not None)
    if xp_of(present) is np and dtype.kind == "f":
        axis %= present.ndim
        shape = list(present.shape)
        shape[axis] = 2 * max(0, shape[axis] - len(filters[0]) // 2 + 1)
        out = np.empty(shape, dtype)
        # an absent band: no filter, and the other band's array in its place (not read)
        ca, cd = (np.ascontiguousarray(present if c is None else c) for c in bands)
        _core.wavelet_idwt(ca, cd, out, axis, *([] if c is None else f.tolist() for c, f in zip(bands, filters)))
        return out
    phases = None
    for c, rec in zip(bands, filters):
        if c is None:
            continue
        share = _upsampled(c, rec, axis)
        phases = share if phases is None else [p + s for p, s in zip(phases, share)]
    even, odd = phases
    xp = xp_of(even)
    shape = list(even.shape)
    shape[axis] *= 2
    out = xp.empty(shape, dtype=even.dtype)
    out[(slice(None),) * axis + (slice(0, None, 2),)] = even
    out[(slice(None),) * axis + (slice(1, None, 2),)] = odd
    return out


def dwtn(data, wavelet):
    """Single-level n-D transform over every axis (pywt.dwtn): the 2^ndim bands keyed 'a'/'d' per axis."""
    coeffs = [("", data)]
    for axis in range(data.ndim):
        coeffs = [(key + k, band) for key, x in coeffs for k, band in zip("ad", dwt(x, wavelet, axis))]
    return dict(coeffs)


def idwtn(coeffs, wavelet):
    """The inverse of dwtn (pywt.idwtn): the last axis first."""
    ndim = max(len(k) for k in coeffs)
    for axis in reversed(range(ndim)):
        coeffs = {key: idwt(coeffs.get(key + "a"), coeffs.get(key + "d"), wavelet, axis)
                  for key in map("".join, product("ad", repeat=axis))}
    return coeffs[""]


def wavedecn(data, wavelet, level):
    """Multilevel decomposition [cAn, {details n}, ..., {details 1}] (pywt.wavedecn, mode 'symmetric'), with
    PyWavelets' level checks."""
    import pywt

    max_level = min(pywt.dwt_max_level(n, wavelet.dec_len) for n in data.shape)
    if level < 0:
        raise ValueError("Level value of %d is too low . Minimum level is 0." % level)
    if level > max_level:
        warnings.warn(f"Level value of {level} is too high: all coefficients will experience boundary effects.",
                      stacklevel=2)
    details = []
    a = data
    for _ in range(level):
        bands = dwtn(a, wavelet)
        a = bands.pop("a" * data.ndim)
        details.append(bands)
    return [a] + details[::-1]


def waverecn(coeffs, wavelet):
    """The inverse of wavedecn (pywt.waverecn): each level's approximation cut to its details' shape (an odd
    length comes back one sample longer)."""
    a = coeffs[0]
    for details in coeffs[1:]:
        shape = next(iter(details.values())).shape
        a = idwtn({**details, "a" * a.ndim: a[tuple(slice(s) for s in shape)]}, wavelet)
    return a

"""skimage.util.random_noise: the same draws from the same `rng` as scikit-image (NumPy's Generator, on the
host, so a seed gives the very noise scikit-image gives), the arithmetic over blocks on the CPU engine's
threads (or on the GPU for CuPy input)."""
from __future__ import annotations

import numpy as np

from .._engine import engine_aware, xp_of
from .._rules import array_argument
from ._dtype import _map, _reduce, convert

_KIND = {"gaussian": "gaussian_values", "localvar": "localvar_values", "poisson": "poisson_values",
         "salt": "sp_values", "pepper": "sp_values", "s&p": "s&p_values", "speckle": "gaussian_values"}
_ALLOWED = {"gaussian_values": ["mean", "var"], "localvar_values": ["local_vars"], "sp_values": ["amount"],
            "s&p_values": ["amount", "salt_vs_pepper"], "poisson_values": []}


def _bernoulli(p, shape, rng):
    """True with probability p; p of exactly 0 or 1 draws nothing (scikit-image's stream)."""
    if p == 0:
        return np.zeros(shape, dtype=bool)
    if p == 1:
        return np.ones(shape, dtype=bool)
    return rng.random(shape) <= p


def _device(xp, a):
    return a if xp is np else xp.asarray(a)


def _host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def _clipped(fn, low):
    """fn, its result clipped to [low, 1] (low None: not clipped)."""
    if low is None:
        return fn

    def clipped(*args):
        xp = args[-1]
        return xp.clip(fn(*args), low, 1.0)

    return clipped


def _noisy(image, noise, fn, low):
    """fn(x, n, xp) of image and its float64 noise (drawn C-ordered), clipped to [low, 1] unless low is None;
    blockwise into the noise's memory (the result is float64: image is a float of at most 64 bits)."""
    xp = xp_of(image)
    fn = _clipped(fn, low)
    if xp is np and image.flags.c_contiguous:
        from .._blocks import blockwise

        def inplace(n, x):
            n[...] = fn(x, n, np)

        blockwise(inplace, noise, image)
        return noise
    return fn(image, _device(xp, noise), xp)


def _sp(image, rng, amount, salt_vs_pepper, low_clip):
    flipped = _bernoulli(amount, image.shape, rng)
    salted = _bernoulli(salt_vs_pepper, image.shape, rng)
    xp = xp_of(image)
    flipped, salted = _device(xp, flipped), _device(xp, salted)
    one, low = image.dtype.type(1), image.dtype.type(low_clip)
    return _map(image, image.dtype, lambda x, f, s, xp: xp.where(f, xp.where(s, one, low), x),
                flipped, salted)


@engine_aware("image", native=False)
def random_noise(image, mode="gaussian", rng=None, clip=True, **kwargs):
    """`image` (as img_as_float) with random noise of `mode`: 'gaussian' (mean, var), 'localvar'
    (local_vars, the variance per element), 'poisson' (of the image's values times the power of 2 at least
    its number of distinct values), 'salt', 'pepper', 's&p' (amount, salt_vs_pepper), 'speckle'
    (image * gaussian noise added). Clipped to [0, 1], or [-1, 1] for an image with negative values."""
    mode = mode.lower()
    image = array_argument(image, "min")   # scikit-image reads image.min() first
    low_clip = -1.0 if _reduce(image, np.min) < 0 else 0.0
    image = convert(image, np.floating)
    rng = np.random.default_rng(rng)
    allowed = _ALLOWED[_KIND[mode]]
    for key in kwargs:
        if key not in allowed:
            raise ValueError(f"{key} keyword not in allowed keywords {allowed}")
    kw = {"mean": 0.0, "var": 0.01, "amount": 0.05, "salt_vs_pepper": 0.5}
    kw.update(kwargs)
    xp = xp_of(image)
    if mode in ("gaussian", "speckle"):
        noise = rng.normal(kw["mean"], kw["var"] ** 0.5, image.shape)
        add = (lambda x, n, xp: x + n) if mode == "gaussian" else (lambda x, n, xp: x + x * n)
        return _noisy(image, noise, add, low_clip if clip else None)
    elif mode == "localvar":
        local_vars = kw["local_vars"] if "local_vars" in kwargs else xp.zeros_like(image) + 0.01
        if bool((local_vars <= 0).any()):
            raise ValueError("All values of `local_vars` must be > 0.")
        out = image + _device(xp, rng.normal(0, _host(local_vars) ** 0.5))
    elif mode == "poisson":
        vals = 2 ** np.ceil(np.log2(len(xp.unique(image))))
        if low_clip == -1.0:
            old_max = image.max()
            image = (image + 1.0) / (old_max + 1.0)
        out = _device(xp, rng.poisson(_host(image * vals)) / float(vals))
        if low_clip == -1.0:
            out = out * (old_max + 1.0) - 1.0
    elif mode == "salt":
        out = _sp(image, rng, kw["amount"], 1.0, low_clip)
    elif mode == "pepper":
        out = _sp(image, rng, kw["amount"], 0.0, low_clip)
    else:
        out = _sp(image, rng, kw["amount"], kw["salt_vs_pepper"], low_clip)
    if clip:
        out = _map(out, out.dtype, _clipped(lambda o, xp: o, low_clip))
    return out

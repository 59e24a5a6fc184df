"""skimage.util.random_noise: the same draws from the same `rng` as scikit-image (NumPy's Generator, on the
host, so a seed gives the very noise scikit-image gives), the arithmetic over blocks on the CPU engine's
threads (or on the GPU for CuPy input)."""
from __future__ import annotations

import functools
import math

import numpy as np

from .._blocks import _on_threads, pipelined
from .._engine import engine_aware, get_num_threads, xp_of
from .._prim import random
from .._rules import array_argument
from ..ndimage._footprint import to_host
from ._dtype import _map, _put, _reduce, convert

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


def _clipped(fn, low):
    """fn, its result clipped to [low, 1] (low None: not clipped)."""
    if low is None:
        return fn

    def clipped(*args, out=None):
        y = fn(*args, out=out)
        return args[-1].clip(y, low, 1.0, out=out)

    return clipped


_CHUNK = 1 << 18   # elements of noise drawn at a time


@functools.cache
def _normal_is_scaled():
    """Whether Generator.normal(loc, scale) gives loc + scale * standard_normal() rounded step by step, as
    NumPy's C computes it where the compiler contracts nothing into a fused multiply-add (x86-64 builds); then
    the standard draw (2.5x faster: normal's per-element broadcasting of loc and scale costs more than the
    draw) and two array operations give its values bit for bit. Checked once on this NumPy build."""
    z = np.random.default_rng(1).standard_normal(4096)
    want = np.random.default_rng(1).normal(0.3, 0.7, 4096)
    return np.array_equal((z * 0.7 + 0.3).view(np.uint64), want.view(np.uint64))


def _scaled(mean, std):
    """Whether N(mean, std) draws can be standard draws scaled (scalar real parameters that normal takes)."""
    return (all(isinstance(v, (int, float, np.integer, np.floating)) for v in (mean, std)) and std >= 0
            and _normal_is_scaled())


def _scale(z, mean, std, xp):
    """z * std + mean in place: Generator.normal's loc + scale * z, each operation rounded on its own."""
    xp.multiply(z, std, out=z)
    return xp.add(z, mean, out=z)


def _gpu_normal(xp, rng, shape, mean, std):
    """N(mean, std) draws of `shape` on the GPU: standard draws chunk by chunk into one host buffer, each sent
    on in the caller's stream, then scaled there (a whole-image host array would cost as much in page faults
    as the draw itself)."""
    n = math.prod(shape)
    out = xp.empty(n, np.float64)
    buf = np.empty(min(n, _CHUNK))
    stream = xp.cuda.get_current_stream()
    for at in range(0, n, _CHUNK):
        part = buf[:min(_CHUNK, n - at)]
        rng.standard_normal(out=part)
        out[at:at + part.size].set(part, stream=stream)   # returns once the buffer is staged: free to refill
    return _scale(out, mean, std, xp).reshape(shape)


def _noisy(image, rng, mean, std, fn, low):
    """fn(x, n, xp, out=None) of image and its float64 N(mean, std) noise, clipped to [low, 1] unless low is
    None. The noise is drawn as standard normals and scaled by the engine where that gives normal's values.
    On the CPU engine it is drawn chunk by chunk (the same stream as one draw of the whole shape), each
    chunk's arithmetic on a worker thread while the next one is drawn."""
    xp = xp_of(image)
    fn = _clipped(fn, low)
    if not _scaled(mean, std):
        draw = lambda shape: _device(xp, rng.normal(mean, std, shape))
    elif xp is np:
        draw = lambda shape: _scale(rng.standard_normal(shape), mean, std, np)
    else:
        draw = lambda shape: _gpu_normal(xp, rng, shape, mean, std)
    if xp is not np or not image.flags.c_contiguous or get_num_threads() < 2 or image.size <= _CHUNK:
        return fn(image, draw(image.shape), xp)
    out = np.empty(image.shape, np.result_type(image.dtype, np.float64))
    x, o = image.reshape(-1), out.reshape(-1)
    parts = [slice(at, at + _CHUNK) for at in range(0, x.size, _CHUNK)]
    if _scaled(mean, std):   # drawn into the output's own blocks, scaled and combined there by the workers
        pipelined(lambda b: rng.standard_normal(out=o[parts[b]]),
                  lambda b, z: fn(x[parts[b]], _scale(z, mean, std, np), np, out=z), len(parts))
    else:
        pipelined(lambda b: rng.normal(mean, std, o[parts[b]].size),
                  lambda b, n: fn(x[parts[b]], n, np, out=o[parts[b]]), len(parts))
    return out


def _gaussian(x, n, xp, out=None):
    return xp.add(x, n, out=out)


def _speckle(x, n, xp, out=None):
    y = xp.multiply(x, n, out=out)
    return xp.add(x, y, out=y)


def _jumpable(rng):
    """Whether blocks of the uniform stream can be drawn apart: a bit generator that jumps ahead by a count of
    64-bit draws (one per float64 of Generator.random)."""
    return type(rng.bit_generator) in (np.random.PCG64, np.random.PCG64DXSM)


def _sp_draws(rng, n, amount, salt_vs_pepper, consume):
    """consume(part, flips, salts) over blocks of `n` pixels on the engine's threads, flips and salts each
    block's stretch of scikit-image's two Bernoulli streams (all flips, then all salt choices) of a jumpable
    generator; the caller's generator is then advanced past both, as one draw of each would leave it."""
    flips = n if amount not in (0, 1) else 0
    salts = n if salt_vs_pepper not in (0, 1) else 0
    start = rng.bit_generator.state

    def run(first, last):
        # a copy of the caller's bit generator, set to each block's place in the stream
        bits = type(rng.bit_generator)(0)
        draw = np.random.Generator(bits)

        def draws(at, size, skip, count, p):
            if not count:
                return np.full(size, p == 1)
            bits.state = start
            bits.advance(skip + at)
            return draw.random(size) <= p

        for at in range(first * _CHUNK, min(last * _CHUNK, n), _CHUNK):
            part = slice(at, min(at + _CHUNK, n))
            size = part.stop - at
            consume(part, draws(at, size, 0, flips, amount), draws(at, size, flips, salts, salt_vs_pepper))

    _on_threads(run, -(-n // _CHUNK))
    rng.bit_generator.advance(flips + salts)


def _pcg64_masks(xp, rng, shape, amount, salt_vs_pepper):
    """scikit-image's flip and salt masks (_bernoulli's two draws) of a PCG64 generator, computed in xp's
    library by ndimg's copy of the stream; the generator is advanced past both draws."""
    n = math.prod(shape)
    skip = 0
    masks = []
    for p in (amount, salt_vs_pepper):
        if p in (0, 1):
            masks.append(xp.full(shape, p == 1))
            continue
        masks.append(random.pcg64_random(rng.bit_generator, offset=skip, out=xp.empty(shape)) <= p)
        skip += n
    rng.bit_generator.advance(skip)
    return masks


def _sp(image, rng, amount, salt_vs_pepper, low_clip, clip):
    """Salt (1) and pepper (low_clip) at a fraction `amount` of the pixels, salt_vs_pepper of them salt:
    scikit-image's draws. With a jumpable generator the draws run on the engine's threads (_sp_draws): on the
    CPU engine with the arithmetic, for a GPU image into two masks sent to the device; a GPU image with
    NumPy's default PCG64 draws them on the device (ndimg's copy of the stream)."""
    xp = xp_of(image)
    one, low = image.dtype.type(1), image.dtype.type(low_clip)
    threaded = _jumpable(rng) and image.size > _CHUNK
    if xp is np and image.flags.c_contiguous and threaded:
        x, out = image.reshape(-1), np.empty(image.size, image.dtype)

        def consume(part, f, s):
            # salt 1 or pepper low as s * (1 - low) + low, exact for low 0 and -1 (np.where of two scalars
            # is NumPy's slow path: 5x the time of the arithmetic)
            sp = s.astype(image.dtype)
            sp *= one - low
            sp += low
            y = np.where(f, sp, x[part])
            out[part] = np.clip(y, low_clip, 1.0) if clip else y

        _sp_draws(rng, image.size, amount, salt_vs_pepper, consume)
        return out.reshape(image.shape)
    if xp is not np and type(rng.bit_generator) is np.random.PCG64:   # NumPy's default: drawn on the device
        flipped, salted = _pcg64_masks(xp, rng, image.shape, amount, salt_vs_pepper)
    elif threaded:
        flipped, salted = np.empty(image.size, bool), np.empty(image.size, bool)

        def consume(part, f, s):
            flipped[part], salted[part] = f, s

        _sp_draws(rng, image.size, amount, salt_vs_pepper, consume)
        flipped, salted = (_device(xp, m.reshape(image.shape)) for m in (flipped, salted))
    else:
        flipped = _device(xp, _bernoulli(amount, image.shape, rng))
        salted = _device(xp, _bernoulli(salt_vs_pepper, image.shape, rng))
    out = _map(image, image.dtype, lambda x, f, s, xp, out=None: _put(xp.where(f, xp.where(s, one, low), x), out),
               flipped, salted)
    return _map(out, out.dtype, _clipped(lambda o, xp, out=None: _put(o, out), low_clip)) if clip else out


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
        add = _gaussian if mode == "gaussian" else _speckle
        return _noisy(image, rng, kw["mean"], kw["var"] ** 0.5, add, low_clip if clip else None)
    elif mode == "localvar":
        local_vars = kw["local_vars"] if "local_vars" in kwargs else xp.zeros_like(image) + 0.01
        if bool((local_vars <= 0).any()):
            raise ValueError("All values of `local_vars` must be > 0.")
        out = image + _device(xp, rng.normal(0, to_host(local_vars) ** 0.5))
    elif mode == "poisson":
        vals = 2 ** np.ceil(np.log2(len(xp.unique(image))))
        if low_clip == -1.0:
            old_max = image.max()
            image = (image + 1.0) / (old_max + 1.0)
        out = _device(xp, rng.poisson(to_host(image * vals)) / float(vals))
        if low_clip == -1.0:
            out = out * (old_max + 1.0) - 1.0
    else:
        q = {"salt": 1.0, "pepper": 0.0}.get(mode, kw["salt_vs_pepper"])
        return _sp(image, rng, kw["amount"], q, low_clip, clip)
    if clip:
        out = _map(out, out.dtype, _clipped(lambda o, xp, out=None: _put(o, out), low_clip))
    return out

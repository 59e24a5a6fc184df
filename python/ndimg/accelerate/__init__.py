"""Zero-code-change acceleration of scikit-image programs.

    ndimg.accelerate()            # every skimage function ndimg implements now runs ndimg where it can
    ndimg.accelerate(False)       # back to scikit-image
    with ndimg.accelerated(): ...
    python -m ndimg.accelerate script.py [args]      (or: python -m ndimg.accelerate -m module [args])

While on, ``skimage.<module>.<function>`` -- however it was imported, ``from skimage.filters import
gaussian`` before or after included -- runs ndimg when its arguments are supported (arrays of accepted
dtypes and known keywords, see ndimg.backends.skimage.placement) and scikit-image otherwise. NumPy
inputs run on the CPU engine (or by the NDIMG_SKIMAGE_NUMPY=gpu policy), GPU arrays on the CUDA engine.
``NDIMG_LOG=1`` (or logger "ndimg" at DEBUG) logs each call: which implementation ran and, for a
fallback, why. :func:`stats` counts calls per function.

    ndimg.accelerate(device="gpu")              # NumPy inputs above the crossover round-trip through the GPU
    ndimg.accelerate(device="gpu", lazy=True)   # ... and their results stay there until NumPy code uses them
    with ndimg.accelerated(device="gpu", lazy=True): ...

``device`` sets the NumPy policy (``"cpu"``, ``"gpu"``; see ndimg.backends.skimage). With ``lazy=True``
the gpu policy's results come back as :class:`LazyArray`: the device array, taken as is (no copy) by the
next ndimg call, and copied to the host once at the first NumPy use (``np.asarray``, ufuncs, NumPy
functions, operators, indexing, methods, pickling), after which it is that NumPy array. A comparison with
a scalar (a threshold's mask) stays on the device. A LazyArray is not a ``numpy.ndarray``: code that checks
``isinstance(x, np.ndarray)`` takes ``x.materialize()`` (the NumPy array) or runs with ``lazy=False``.
See ndimg.accelerate._lazy for the details (the buffer protocol on Python 3.11 vs 3.12+).
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import os
import sys
import threading
import types

from ._lazy import LazyArray, is_lazy, set_lazy  # noqa: F401  (ndimg.accelerate.LazyArray)

log = logging.getLogger("ndimg")

_lock = threading.Lock()
_patches = []  # (namespace dict, key, original, wrapper) to undo
_stats: dict[str, dict[str, int]] = {}


def _count(reference, which):
    counts = _stats.setdefault(reference, {"ndimg": 0, "skimage": 0})
    counts[which] += 1


def stats():
    """Calls since the last reset, per 'skimage.<module>:<name>': {'ndimg': n, 'skimage': m}."""
    return {k: dict(v) for k, v in _stats.items()}


def reset_stats():
    _stats.clear()


def _wrap(reference, original, spec):
    from ..backends.skimage import implementation, placement

    @functools.wraps(original)
    def accelerated(*args, **kwargs):
        where, why = placement(spec, args, kwargs)
        if where is None:
            _count(reference, "skimage")
            log.debug("%s: scikit-image ran (%s)", reference, why)
            return original(*args, **kwargs)
        _count(reference, "ndimg")
        log.debug("%s: ndimg ran (%s input)", reference, where)
        return implementation(spec)(*args, **kwargs)

    accelerated.__ndimg_original__ = original
    return accelerated


def _targets():
    """(reference, public module, name, spec) of every registry function mirroring scikit-image whose
    ndimg implementation loads; for a class entry the spec is the class itself."""
    from .._registry import REGISTRY
    from ..backends.skimage import spec_for

    for e in REGISTRY.values():
        if not e.reference.startswith("skimage."):
            continue
        try:
            spec = e.load() if e.kind == "class" else spec_for(e.reference)
        except (ImportError, AttributeError) as exc:  # declared but not built on this installation
            log.debug("%s: not accelerated (%s)", e.reference, exc)
            continue
        mod, name = e.reference.split(":")
        yield e.reference, importlib.import_module(mod), name, spec


def _enable():
    originals = {}
    for reference, module, name, spec in _targets():
        original = getattr(module, name)
        if hasattr(original, "__ndimg_original__"):
            continue
        # a class is substituted as is: a call wrapper would hide its classmethods and break isinstance
        originals[id(original)] = (original, spec if isinstance(spec, type) else _wrap(reference, original, spec))
    # every namespace holding one of the originals -- public modules, scikit-image's private modules,
    # user modules that did `from skimage.x import f` -- gets the wrapper
    for mod in list(sys.modules.values()):
        ns = getattr(mod, "__dict__", None)
        if not isinstance(ns, dict) or mod is sys.modules[__name__]:
            continue
        for key, value in list(ns.items()):
            hit = originals.get(id(value))
            if hit is not None and hit[0] is value:
                ns[key] = hit[1]
                _patches.append((ns, key, value, hit[1]))
            elif type(value) in (dict, tuple) and getattr(mod, "__name__", "").startswith("skimage."):
                # scikit-image's tables of classes (transform's TRANSFORMS, warp's HOMOGRAPHY_TRANSFORMS)
                # hold ndimg's classes too, or isinstance checks against the public names would split
                swapped = _swap_classes(value, originals)
                if swapped is not value:
                    ns[key] = swapped
                    _patches.append((ns, key, value, swapped))
    log.debug("ndimg.accelerate: on, %d functions in %d places", len(originals), len(_patches))


def _swap_classes(table, originals):
    """A copy of a dict's values or a tuple's items with substituted classes swapped in (the table itself
    where it holds none)."""
    def swap(v):
        hit = originals.get(id(v)) if isinstance(v, type) else None
        return hit[1] if hit is not None and hit[0] is v else v

    items = table.values() if isinstance(table, dict) else table
    if all(swap(v) is v for v in items):
        return table
    return {k: swap(v) for k, v in table.items()} if isinstance(table, dict) else tuple(swap(v) for v in table)


def _disable():
    while _patches:
        ns, key, original, wrapper = _patches.pop()
        if ns.get(key) is wrapper:
            ns[key] = original
    log.debug("ndimg.accelerate: off")


def is_enabled():
    return bool(_patches)


DEVICES = ("cpu", "gpu")


def enable(on=True, device=None, lazy=False):
    """Turn acceleration on (``on=True``) or off; returns whether it was on before. ``device``: "cpu" or
    "gpu", the NumPy policy (None: unchanged, NDIMG_SKIMAGE_NUMPY's); ``lazy=True`` (with the gpu policy):
    results of NumPy calls run on the GPU stay there as LazyArrays (see the module docstring)."""
    from ..backends import skimage as backend

    if device is not None and device not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES} or None, got {device!r}")
    if lazy and on and (device or backend.get_numpy_policy()) != "gpu":
        raise ValueError("lazy=True needs device='gpu' (the gpu policy): only its results live on the GPU")
    with _lock:
        was = bool(_patches)
        if on and device is not None:
            backend.set_numpy_policy(device)
        set_lazy(on and lazy)
        if on and not was:
            _configure_logging()
            _enable()
        elif not on and was:
            _disable()
        return was


@contextlib.contextmanager
def accelerated(on=True, device=None, lazy=False):
    """``with ndimg.accelerated(): ...`` -- acceleration (``device``, ``lazy`` as in :func:`enable`) inside
    the block, the previous state (NumPy policy and laziness included) after."""
    from ..backends import skimage as backend

    policy, force, was_lazy = backend._policy, backend._force_gpu, is_lazy()
    was = enable(on, device, lazy)
    try:
        yield
    finally:
        enable(was)
        backend.set_numpy_policy(policy, force)
        set_lazy(was_lazy)


def _configure_logging():
    if os.environ.get("NDIMG_LOG", "").strip() not in ("", "0") and not log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("[ndimg] %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.DEBUG)


def main(argv=None):
    """``python -m ndimg.accelerate script.py [args]`` / ``python -m ndimg.accelerate -m module [args]``."""
    import runpy

    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or (argv[0] == "-m" and len(argv) < 2):
        print("usage: python -m ndimg.accelerate script.py [args] | -m module [args]", file=sys.stderr)
        return 2
    enable()
    if argv[0] == "-m":
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")
    return 0


class _CallableModule(types.ModuleType):
    """Lets ``ndimg.accelerate()`` / ``ndimg.accelerate(False)`` call :func:`enable` while
    ``ndimg.accelerate.stats()`` stays a module attribute."""

    def __call__(self, on=True, device=None, lazy=False):
        return enable(on, device, lazy)


sys.modules[__name__].__class__ = _CallableModule

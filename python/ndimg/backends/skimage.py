"""ndimg as scikit-image's dispatch backend (the scikit-image 0.26 contract, skimage/util/_backends.py).

Entry points (pyproject.toml): group ``skimage_backends`` -> this module (``can_has``,
``get_implementation``); group ``skimage_backend_infos`` -> :func:`info`.

Which calls ndimg takes:
- GPU arrays (CuPy, PyTorch CUDA tensors, ...), which scikit-image cannot compute on: always.
- NumPy arrays: by the NumPy policy, ``NDIMG_SKIMAGE_NUMPY`` or :func:`set_numpy_policy`:
  ``off`` (default: installing ndimg changes nothing for NumPy programs, not even a warning),
  ``cpu`` (ndimg's CPU engine), ``gpu`` (round trip through the GPU above the function family's measured
  crossover size kept in the registry, the CPU engine below it or where no crossover is measured).
Results have the input's array type; under ``ndimg.accelerate(device="gpu", lazy=True)`` the gpu policy's
results are LazyArrays (ndimg.accelerate._lazy) and a LazyArray argument runs where its data are.
"""
from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import numpy as np

from .._engine import library_of
from ..accelerate._lazy import LazyArray, is_lazy, wrap
from .._registry import ALL, REGISTRY, gpu_crossover

POLICIES = ("off", "cpu", "gpu")
_policy = None  # None: read NDIMG_SKIMAGE_NUMPY on first use
_force_gpu = False  # 'gpu' policy for every size (conformance runs), see set_numpy_policy
_MISSING = object()


def set_numpy_policy(policy, force_gpu=False):
    """'off', 'cpu' or 'gpu' for NumPy inputs (see the module docstring); None: back to the environment.
    ``force_gpu=True`` with 'gpu' ignores the crossover: every NumPy call of a function with a CUDA engine
    round-trips through the GPU whatever its size (tools/skimage-conformance --mode gpu)."""
    global _policy, _force_gpu
    if policy is not None and policy not in POLICIES:
        raise ValueError(f"NumPy policy must be one of {POLICIES}, got {policy!r}")
    if force_gpu and policy != "gpu":
        raise ValueError("force_gpu=True needs the 'gpu' policy")
    _policy, _force_gpu = policy, bool(force_gpu)


def get_numpy_policy():
    if _policy is not None:
        return _policy
    env = os.environ.get("NDIMG_SKIMAGE_NUMPY", "off").strip().lower() or "off"
    if env not in POLICIES:
        raise ValueError(f"NDIMG_SKIMAGE_NUMPY must be one of {POLICIES}, got {env!r}")
    return env


# --- which scikit-image functions are dispatchable --------------------------------------------------------
_DECORATED = re.compile(r"^@dispatchable[ \t]*\n(?:@.*\n)*def[ \t]+(\w+)", re.M)


def _skimage_root():
    import importlib.util

    spec = importlib.util.find_spec("skimage")
    return Path(next(iter(spec.submodule_search_locations)))


def _public_module(relative):
    """scikit-image's public module of a source file, by its rule (skimage.<first part>, except rank)."""
    parts = relative.with_suffix("").parts
    if parts[:2] == ("filters", "rank"):
        return "skimage.filters.rank"
    return f"skimage.{parts[0]}"


@functools.cache
def dispatchable_functions():
    """'skimage.<module>:<name>' of every function scikit-image marks ``@dispatchable``, read from its
    sources: this runs while scikit-image imports itself (its decorator asks for our info), so importing
    its modules here would be circular."""
    root = _skimage_root()
    modules = {e.reference.split(":")[0].split(".")[1] for e in REGISTRY.values() if e.reference.startswith("skimage.")}
    found = set()
    for mod in sorted(modules):
        for path in sorted((root / mod).rglob("*.py")):
            text = path.read_text(encoding="utf-8", errors="replace")
            if "@dispatchable" not in text:
                continue
            public = _public_module(path.relative_to(root))
            found.update(f"{public}:{name}" for name in _DECORATED.findall(text))
    return frozenset(found)


@functools.cache
def supported_functions():
    """The registry's functions that scikit-image dispatches, as 'skimage.<module>:<name>'."""
    return tuple(sorted(e.reference for e in REGISTRY.values() if e.reference in dispatchable_functions()))


def info():
    """Entry point of group ``skimage_backend_infos``."""
    from skimage.util._backends import BackendInformation

    return BackendInformation(list(supported_functions()))


# --- per call: can_has, get_implementation ------------------------------------------------------------------
class _Spec:
    """What can_has needs of one function, computed once: its array parameters with the dtypes each accepts,
    the names and number of its parameters, and the argument values ndimg refuses (registry
    ``extra["unsupported"]``: {parameter: (values, ...) or a predicate of the value}, e.g. median's
    behavior='rank')."""

    __slots__ = ("entry", "impl", "arrays", "params", "varkw", "npositional", "refused", "hostonly")

    def __init__(self, entry):
        import inspect

        self.entry = entry
        self.impl = entry.load()
        sig = inspect.signature(self.impl)
        names = list(sig.parameters)
        self.params = frozenset(names)
        self.varkw = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())  # takes any keyword
        self.npositional = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in sig.parameters.values())
        if any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values()):   # estimate_transform's *args
            self.npositional = float("inf")
        self.arrays = tuple((names.index(n), n, sig.parameters[n].default is None,
                             frozenset(_PARAM_DTYPES.get(n, entry.dtypes)))
                            for n in getattr(self.impl, "__array_params__", ()))
        self.refused = tuple((names.index(n), n, values if callable(values) else frozenset(values))
                             for n, values in entry.extra.get("unsupported", {}).items())
        # functions without array parameters (window, gabor_kernel): nothing to place, they run on the host
        self.hostonly = not self.arrays and not isinstance(self.impl, type)


# array parameters whose dtype is not the function's (masks: any dtype, read as nonzero)
_PARAM_DTYPES = {"mask": ALL, "intensity_image": ALL, "reference_mask": ALL, "moving_mask": ALL}   # regionprops: the labels' dtypes are the entry's


@functools.cache
def spec_for(reference):
    """The _Spec of the registry entry mirroring 'skimage.<module>:<name>' (KeyError if none)."""
    return _Spec(_by_reference()[reference])


@functools.cache
def _by_reference():
    return {e.reference: e for e in REGISTRY.values()}


@functools.cache
def _specs():
    return {name: spec_for(name) for name in supported_functions()}


_DTYPE_NAMES: dict = {}


def _dtype_name(x):
    """'float32', ... for NumPy, CuPy and PyTorch dtypes alike (memoised: str(dtype) is slow)."""
    dt = getattr(x, "dtype", None)
    try:
        return _DTYPE_NAMES[dt]
    except KeyError:
        name = _DTYPE_NAMES[dt] = str(dt).rsplit(".", 1)[-1] if dt is not None else None
        return name
    except TypeError:  # an unhashable dtype attribute
        return None


def placement(spec, args, kwargs):
    """('numpy' or 'gpu', None) when ndimg takes a call with these arguments, else (None, why not): a check
    of the types, dtypes and names of the arguments only, nothing converted."""
    if len(args) > spec.npositional:
        return None, f"{len(args)} positional arguments"
    if not (spec.varkw or spec.params.issuperset(kwargs)):
        return None, f"unknown keyword(s) {sorted(set(kwargs) - spec.params)}"
    for pos, name, values in spec.refused:
        v = args[pos] if pos < len(args) else kwargs.get(name, _MISSING)
        try:
            if values(v) if callable(values) else v in values:
                return None, f"{name}={v!r}"
        except TypeError:  # unhashable (an array): not one of the refused values
            pass
    host = gpu = False
    for pos, name, may_be_none, dtypes in spec.arrays:
        v = args[pos] if pos < len(args) else kwargs.get(name, _MISSING)
        if v is _MISSING or v is None:
            if v is None and not may_be_none:
                return None, f"'{name}' is None"
            continue
        if type(v) is np.ndarray:
            host = True
        else:
            try:
                lib = library_of(v)
            except TypeError:  # e.g. a PyTorch CPU tensor
                lib = None
            if type(v) is LazyArray:  # a NumPy result of lazy=True: NumPy code's value, its device array used
                host = True
            elif lib in (None, "numpy"):  # lists, scalars, NumPy subclasses: scikit-image's own coercion
                return None, f"'{name}' is a {type(v).__module__}.{type(v).__qualname__}"
            else:
                gpu = True
        if _dtype_name(v) not in dtypes:
            return None, f"'{name}' has dtype {_dtype_name(v)}"
    if host and gpu:
        return None, "NumPy and GPU arrays mixed"
    if not (host or gpu):
        return ("numpy", None) if spec.hostonly else (None, "no array argument")
    return ("gpu" if gpu else "numpy"), None


def can_has(name, *args, **kwargs):
    """Whether ndimg takes this call: a check of types, dtypes and argument names only."""
    spec = _specs().get(name)
    if spec is None:
        return False
    where = placement(spec, args, kwargs)[0]
    if where == "gpu":
        return True
    return where == "numpy" and get_numpy_policy() != "off"


def get_implementation(name):
    """ndimg's implementation of a supported 'skimage.<module>:<name>' (KeyError for others)."""
    return implementation(_specs()[name])


def implementation(spec):
    """The callable for a spec under the current NumPy policy (the 'gpu' round trip where measured)."""
    if get_numpy_policy() != "gpu" or _crossover(spec) is None:
        return spec.impl
    return functools.partial(_round_trip, spec)


def _crossover(spec):
    """Elements above which the 'gpu' policy round-trips this function; None: never (-1: always). Under
    lazy=True the lazy crossover: the result stays on the device for the next call."""
    if _force_gpu:
        return -1 if "cuda" in spec.entry.engines else None
    return gpu_crossover(spec.entry, lazy=is_lazy())


def _round_trip(spec, *args, **kwargs):
    """The 'gpu' policy: NumPy inputs larger than the family's crossover computed on the GPU."""
    if placement(spec, args, kwargs)[0] != "numpy" or any(
            type(v) is LazyArray and v.on_device for pos, name, _, _ in spec.arrays
            for v in [args[pos] if pos < len(args) else kwargs.get(name)]):
        return spec.impl(*args, **kwargs)  # data on the device: the engine takes them there (_engine._lazy_call)
    size = 0
    for pos, name, _, _ in spec.arrays:
        v = args[pos] if pos < len(args) else kwargs.get(name)
        size += getattr(v, "size", 0)
    if spec.hostonly or size <= _crossover(spec):
        return spec.impl(*args, **kwargs)
    import cupy

    # the array written in place: `out`, or the registry's extra["inplace"] parameter (set_color's image)
    written = spec.entry.extra.get("inplace", "out")
    out = next((v for pos, name, _, _ in spec.arrays if name == written
                for v in [args[pos] if pos < len(args) else kwargs.get(name)] if type(v) in (np.ndarray, LazyArray)), None)
    # only the array parameters go up: other NumPy arguments (a sigma per axis, ...) stay host values
    up = lambda v: cupy.asarray(np.asarray(v)) if type(v) in (np.ndarray, LazyArray) else v  # LazyArray: materialized
    args = list(args)
    for pos, name, _, _ in spec.arrays:
        if pos < len(args):
            args[pos] = up(args[pos])
        elif name in kwargs:
            kwargs[name] = up(kwargs[name])
    y = spec.impl(*args, **kwargs)
    if out is None and is_lazy():  # ndimg.accelerate(lazy=True): the results stay on the device
        return wrap(y, lambda v: _to_host(v, kwargs.get("sparse_type")))
    y = _to_host(y, kwargs.get("sparse_type"))
    if out is None:
        return y
    if written != "out":   # modified in place on the GPU: copied back, the function's own result returned
        out[...] = next(v for pos, name, _, _ in spec.arrays if name == written
                        for v in [args[pos] if pos < len(args) else kwargs.get(name)]).get()
        return y
    out[...] = y  # the caller's NumPy `out` is filled and returned, as without the round trip
    return out


def _to_host(y, sparse_type=None):
    if isinstance(y, tuple):
        return tuple(_to_host(v, sparse_type) for v in y)
    if isinstance(y, list):
        return [_to_host(v, sparse_type) for v in y]
    if isinstance(y, dict):  # regionprops_table's columns
        return {k: _to_host(v, sparse_type) for k, v in y.items()}
    if type(y).__module__.startswith("cupyx.scipy.sparse"):
        host = y.get()
        if sparse_type == "array":
            import scipy.sparse

            host = scipy.sparse.csr_array(host)
        return host
    if hasattr(y, "get") and hasattr(y, "__cuda_array_interface__"):
        host = y.get()
        return host[()] if host.ndim == 0 else host
    return y


def spatch_toml(functions=None):
    """The same description as a spatch backend entry-point TOML (for the dispatch library scikit-image may
    adopt): GPU array types primary, NumPy secondary (NumPy calls stay opt-in through the NumPy policy),
    and every registry function mirroring scikit-image (or the given references) with its implementation."""
    if functions is None:
        functions = sorted(e.reference for e in REGISTRY.values() if e.reference.startswith("skimage."))
    by_ref = _by_reference()
    lines = ['name = "ndimg"', 'primary_types = ["cupy:ndarray", "torch:Tensor"]',
             'secondary_types = ["numpy:ndarray"]', "requires_opt_in = false", ""]
    for ref in functions:
        lines += [f'[functions."{ref}"]', f'function = "{by_ref[ref].impl}"', ""]
    return "\n".join(lines)

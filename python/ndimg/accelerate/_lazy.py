"""Device-resident results for NumPy code: the lazy array of ``ndimg.accelerate(device="gpu", lazy=True)``.

A :class:`LazyArray` holds the result of a call the ``gpu`` policy ran on the GPU, still on the device. The
next ndimg call takes that device array as is (no copy); any NumPy use -- ``np.asarray``, a ufunc, a NumPy
function, an operator, indexing, iteration, a method such as ``.sum()``, pickling, ``repr`` -- copies it to
the host once (:meth:`LazyArray.materialize`) and from then on it is that NumPy array: the device copy is
dropped, so in-place NumPy updates are what later ndimg calls see.

One exception keeps the device copy: a comparison with a scalar (``edges > t``, a threshold's mask) is exact
on either device, so it runs where the array is and gives a lazy boolean array.

A lazy array is not a ``numpy.ndarray``: ``isinstance(x, np.ndarray)`` is False. Code that checks it takes
``x.materialize()`` (or ``np.asarray(x)``: that array, on Python 3.12+ a view of it), or runs with
``lazy=False``.

The buffer protocol: Python 3.12+ (PEP 688) takes ``__buffer__``, so ``memoryview(x)`` materializes, and
``np.asarray(x)`` then reads that buffer (a view of the materialized array). On Python 3.11 a Python class
cannot export a buffer: ``memoryview(x)`` raises TypeError (use ``memoryview(x.materialize())``), while
``np.asarray(x)`` goes through ``__array__`` and returns the materialized array itself.

The proxy is generic over the device array: anything with a ``.get()`` (CuPy) or an ``__array__`` copy to
the host, plus ``shape``/``dtype``; so its behaviour is testable without a GPU.
"""
from __future__ import annotations

import functools
import operator
import threading

import numpy as np

_lazy_on = False            # ndimg.accelerate(..., lazy=True): GPU results of NumPy calls stay on the device
_materializing = threading.Lock()


def set_lazy(on):
    global _lazy_on
    _lazy_on = bool(on)


def is_lazy():
    return _lazy_on


def _host_copy(d):
    return d.get() if hasattr(d, "get") else np.array(d, copy=True)


def _unwrap(v):
    """A LazyArray as its NumPy array; containers (as NumPy functions take them) recursively."""
    if type(v) is LazyArray:
        return v.materialize()
    if type(v) in (list, tuple):
        return type(v)(_unwrap(e) for e in v)
    if type(v) is dict:
        return {k: _unwrap(e) for k, e in v.items()}
    return v


_NDARRAY_NAMES = frozenset(dir(np.ndarray))
_COMPARISONS = {"__lt__": operator.lt, "__le__": operator.le, "__gt__": operator.gt, "__ge__": operator.ge,
                "__eq__": operator.eq, "__ne__": operator.ne}


class LazyArray:
    """A NumPy result kept on the device until NumPy code touches it (see the module docstring)."""

    __slots__ = ("_device", "_host", "__weakref__")
    __hash__ = None  # as numpy.ndarray

    def __init__(self, device):
        self._device = device
        self._host = None

    # --- the two states -----------------------------------------------------------------------------------
    def materialize(self):
        """The NumPy array (copied from the device on the first call, the same array afterwards)."""
        host = self._host
        if host is None:
            with _materializing:
                if self._host is None:
                    self._host = _host_copy(self._device)
                    self._device = None  # the NumPy array is the value now: in-place updates must be seen
                host = self._host
        return host

    @property
    def on_device(self):
        """True until the first NumPy use."""
        return self._host is None

    def device_array(self):
        """The device array (no copy) while on the device, else None."""
        return self._device

    def _value(self):
        host = self._host
        return self._device if host is None else host

    # --- metadata without a copy ----------------------------------------------------------------------------
    shape = property(lambda self: tuple(self._value().shape))
    dtype = property(lambda self: np.dtype(self._value().dtype))
    ndim = property(lambda self: len(self._value().shape))
    size = property(lambda self: int(np.prod(self._value().shape, dtype=np.int64)))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.dtype.itemsize)

    def __getattr__(self, name):
        # ndarray's attributes and methods (.T, .astype, .sum, .reshape, .flags, ...) on the NumPy array.
        # Other names (hasattr probes: .get, pandas' _typ) raise without a copy; dunders are not forwarded,
        # so NumPy's conversion protocols find __array__ (and __buffer__) and nothing else
        if name.startswith("__") or name not in _NDARRAY_NAMES:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(self.materialize(), name)

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(dir(np.ndarray)))

    # --- NumPy's protocols --------------------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        host = self.materialize()
        if dtype is None and not copy:
            return host
        return np.array(host, dtype=dtype, copy=copy)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if "out" in kwargs:
            kwargs["out"] = _unwrap(kwargs["out"])
        return getattr(ufunc, method)(*_unwrap(inputs), **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return func(*_unwrap(args), **_unwrap(kwargs))

    def __array_namespace__(self, api_version=None):
        # the result is NumPy's: NumPy's namespace (which also checks api_version)
        return np.empty(0).__array_namespace__(api_version=api_version)

    def __buffer__(self, flags):  # Python 3.12+ (PEP 688); inert on 3.11
        return memoryview(self.materialize())

    def __reduce_ex__(self, protocol):  # pickled (and copied) as the NumPy array
        return self.materialize().__reduce_ex__(protocol)

    def __reduce__(self):
        return self.materialize().__reduce__()

    # --- Python's protocols on the NumPy array ----------------------------------------------------------------
    def __repr__(self):
        return repr(self.materialize())

    def __str__(self):
        return str(self.materialize())

    def __format__(self, spec):
        return format(self.materialize(), spec)

    def __getitem__(self, key):
        return self.materialize()[_unwrap(key)]

    def __setitem__(self, key, value):
        self.materialize()[_unwrap(key)] = _unwrap(value)

    def __len__(self):
        return len(self.materialize())

    def __iter__(self):
        return iter(self.materialize())

    def __contains__(self, v):
        return _unwrap(v) in self.materialize()

    def __bool__(self):
        return bool(self.materialize())

    def __int__(self):
        return int(self.materialize())

    def __float__(self):
        return float(self.materialize())

    def __complex__(self):
        return complex(self.materialize())

    def __index__(self):
        return operator.index(self.materialize())

    def __copy__(self):
        return self.materialize().copy()

    def __deepcopy__(self, memo):
        return self.materialize().copy()

    def _device_compare(self, other, op):
        """`op(self, other)` on the device for a real scalar `other`, computed in the dtype NumPy's promotion
        picks (so the mask is NumPy's bit for bit); None where NumPy's answer needs NumPy (out-of-range
        integers, complex, arrays)."""
        if self._host is not None or isinstance(other, (bool, np.bool_)) or \
                not isinstance(other, (int, float, np.integer, np.floating)):
            return None
        try:
            common = np.result_type(self.dtype, other)
        except (TypeError, OverflowError):
            return None
        if common.kind not in "biuf":
            return None
        if common.kind in "biu" and not (isinstance(other, (int, np.integer))
                                         and np.iinfo(common).min <= other <= np.iinfo(common).max):
            return None
        d = self._device
        if d.dtype != common:
            d = d.astype(common)
        return LazyArray(op(d, common.type(other)))


def _binary(op):
    def forward(self, other):
        return op(self.materialize(), _unwrap(other))

    def reflected(self, other):
        return op(_unwrap(other), self.materialize())

    def inplace(self, other):
        host = self.materialize()
        result = op(host, _unwrap(other))  # the in-place operator: NumPy updates `host`
        return self if result is host else result

    return forward, reflected, inplace


for _name, _op, _iop in [("add", operator.add, operator.iadd), ("sub", operator.sub, operator.isub),
                         ("mul", operator.mul, operator.imul), ("matmul", operator.matmul, operator.imatmul),
                         ("truediv", operator.truediv, operator.itruediv),
                         ("floordiv", operator.floordiv, operator.ifloordiv), ("mod", operator.mod, operator.imod),
                         ("pow", operator.pow, operator.ipow), ("lshift", operator.lshift, operator.ilshift),
                         ("rshift", operator.rshift, operator.irshift), ("and", operator.and_, operator.iand),
                         ("or", operator.or_, operator.ior), ("xor", operator.xor, operator.ixor)]:
    _f, _r, _ = _binary(_op)
    _i = _binary(_iop)[2]
    setattr(LazyArray, f"__{_name}__", _f)
    setattr(LazyArray, f"__r{_name}__", _r)
    setattr(LazyArray, f"__i{_name}__", _i)
LazyArray.__divmod__, LazyArray.__rdivmod__, _ = _binary(divmod)
for _name, _op in [("neg", operator.neg), ("pos", operator.pos), ("abs", operator.abs), ("invert", operator.invert)]:
    setattr(LazyArray, f"__{_name}__", functools.wraps(_op)(lambda self, _op=_op: _op(self.materialize())))


def _comparison(name, op):
    def compare(self, other):
        on_device = self._device_compare(other, op)
        return on_device if on_device is not None else op(self.materialize(), _unwrap(other))

    compare.__name__ = name
    return compare


for _name, _op in _COMPARISONS.items():
    setattr(LazyArray, _name, _comparison(_name, _op))
del _name, _op, _iop, _f, _r, _i, _


# --- results of the gpu policy and inputs of ndimg's calls ------------------------------------------------------
def wrap(y, to_host):
    """A GPU call's result for NumPy code under lazy=True: arrays (also in tuples and lists) as LazyArrays;
    0-d results, tables (regionprops_table's dict, small) and sparse matrices by `to_host`, the eager path's
    conversion."""
    if isinstance(y, tuple):
        return tuple(wrap(v, to_host) for v in y)
    if isinstance(y, list):
        return [wrap(v, to_host) for v in y]
    if hasattr(y, "__cuda_array_interface__") and getattr(y, "ndim", 0) > 0 and hasattr(y, "get"):
        return LazyArray(y)
    return to_host(y)


def library(x):
    """'lazy' for a LazyArray on the device, 'numpy' once materialized (the engine then takes that array)."""
    return "lazy" if x._host is None else "numpy"


def as_working(v):
    """An array argument of a call run on the GPU for lazy inputs: a LazyArray's device array (no copy), a
    NumPy array (or a materialized LazyArray's) copied up; sequences element by element."""
    import cupy

    if type(v) is LazyArray:
        return v._device if v._host is None else cupy.asarray(v._host)
    if isinstance(v, np.ndarray):
        return cupy.asarray(v)
    if isinstance(v, (list, tuple)):
        return type(v)(as_working(e) for e in v)
    return v


def as_host(v):
    """An array argument with its LazyArrays materialized (a call that stays on the CPU)."""
    if type(v) in (list, tuple):
        return type(v)(as_host(e) for e in v)
    return v.materialize() if type(v) is LazyArray else v


@functools.cache
def _cuda_impls():
    """'module:function' of every registry implementation with a CUDA engine."""
    from .._registry import REGISTRY

    return frozenset(e.impl for e in REGISTRY.values() if "cuda" in e.engines)


def has_cuda(fn):
    """Whether the engine_aware body `fn` is a registry function with a CUDA engine (others: unknown,
    their lazy inputs are materialized)."""
    return f"{fn.__module__}:{fn.__name__}" in _cuda_impls()

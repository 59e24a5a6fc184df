"""Which engine runs a call, and how its results return to the caller's array library.

NumPy (and lists/scalars, coerced the way scikit-image coerces them) run on the CPU engine. Arrays on a
CUDA device -- CuPy, PyTorch CUDA tensors, anything with ``__cuda_array_interface__`` or a CUDA
``__dlpack__`` -- run on the CUDA engine: they are viewed zero-copy as CuPy arrays (the working
namespace of our Python code), CuPy allocates through the caller's library (PyTorch's caching allocator
for tensors) and queues on the caller's current stream, and results are handed back zero-copy as the
caller's type.

Host arrays of other Array API libraries -- PyTorch CPU tensors, array_api_strict arrays, any array with a CPU
``__dlpack__`` that array-api-compat gives a namespace -- run on the CPU engine: engine_aware views them
zero-copy as NumPy arrays (DLPack) and hands the results back zero-copy in the caller's library.
"""
from __future__ import annotations

import functools
import sys
import types

import numpy as np

from . import _core
from .accelerate._lazy import LazyArray

CPU, CUDA = "cpu", "cuda"


def _cupy():
    try:
        import cupy
    except ImportError as e:  # pragma: no cover - only without CuPy on a GPU array
        raise TypeError("ndimg needs CuPy to work on GPU arrays (pip install cupy-cuda13x)") from e
    return cupy


def _cupy_ndarray():
    """cupy.ndarray once CuPy is imported (never imports it), else None: the fast type check below."""
    cp = sys.modules.get("cupy")
    return getattr(cp, "ndarray", None)


def library_of(x):
    """'numpy', 'cupy', 'torch', 'cuda' (another CUDA array library) or None (not an array). A LazyArray of
    ndimg.accelerate(lazy=True) is 'numpy' (NumPy code's value: host code materializes it); engine_aware
    and the gpu policy take its device array instead."""
    if x is None:
        return None
    t = type(x)
    if t is np.ndarray:
        return "numpy"
    if t is _cupy_ndarray():
        return "cupy"
    if t is LazyArray:
        return "numpy"
    if isinstance(x, np.ndarray):
        return "numpy"
    mod = t.__module__.split(".", 1)[0]
    if mod == "cupy" and hasattr(x, "__cuda_array_interface__"):
        return "cupy"
    if mod == "torch" and hasattr(x, "is_cuda"):
        return "torch" if x.is_cuda else None  # CPU tensors: see host_namespace
    if hasattr(x, "__cuda_array_interface__"):
        return "cuda"
    dl = getattr(x, "__dlpack_device__", None)
    if dl is not None:
        try:
            kind = dl()[0]
        except Exception:
            return None
        if kind in (2, 13):  # kDLCUDA, kDLCUDAManaged
            return "cuda"
    return None


_KDLCPU, _KDLCUDAHOST = 1, 3


def host_namespace(x):
    """The Array API namespace of `x` when it is a host array of a library other than NumPy (a PyTorch CPU
    tensor, an array_api_strict array, ...), else None. Arrays on other devices than the CPU and CUDA raise."""
    t = type(x)
    if isinstance(x, (np.ndarray, np.generic)) or not (hasattr(t, "__dlpack__") or hasattr(t, "__array_namespace__")):
        return None
    if t.__module__.startswith("dask"):
        return None
    try:
        import array_api_compat
    except ImportError as e:  # pragma: no cover - a declared dependency
        raise TypeError(f"ndimg needs array-api-compat to take {t.__module__}.{t.__qualname__} arrays") from e
    try:
        ns = array_api_compat.array_namespace(x)
    except TypeError:
        return None
    if array_api_compat.is_numpy_namespace(ns):
        return None
    try:
        kind = x.__dlpack_device__()[0]
    except Exception as e:
        raise TypeError(f"ndimg cannot read the device of this {t.__module__}.{t.__qualname__} array ({e})") from e
    if kind not in (_KDLCPU, _KDLCUDAHOST):
        raise TypeError(f"ndimg runs on the CPU and on CUDA devices; this {t.__module__}.{t.__qualname__} array is "
                        f"on DLPack device type {kind}")
    return ns


def api_to_numpy(x):
    """A host Array API array as a NumPy array sharing its memory (DLPack, any strides). A PyTorch tensor
    that requires grad is detached: ndimg's results carry no autograd history (they are not differentiable)."""
    if hasattr(x, "detach") and hasattr(x, "resolve_conj"):
        x = x.detach().resolve_conj().resolve_neg()  # DLPack exports neither grad nor lazy conj/neg bits
    try:
        return np.from_dlpack(x)
    except (BufferError, RuntimeError, TypeError, ValueError) as e:
        raise TypeError(f"ndimg cannot view this {type(x).__module__}.{type(x).__qualname__} of dtype {x.dtype} as a "
                        f"NumPy array ({e}); convert it to a NumPy-compatible dtype first") from e


class HostCall:
    """The Array API library of a call's host arguments: its namespace, the device of its first array, and the
    caller's arrays by the id of their NumPy views (a result that is one of them, e.g. `output`, goes back as
    the caller's own array)."""

    __slots__ = ("ns", "device", "views")

    def __init__(self, ns, device):
        self.ns, self.device, self.views = ns, device, {}


def numpy_to_api(y, api):
    """A NumPy result in the library of HostCall `api`, zero-copy, on its device (tuples, lists and dicts
    recursively). Scalars stay scalars, as for NumPy inputs; arrays of a dtype the library cannot hold (object,
    float16 for array_api_strict) and other objects stay as they are."""
    if isinstance(y, np.ndarray):
        if id(y) in api.views:
            return api.views[id(y)]
        if y.dtype.kind not in "biufc":
            return y
        if not y.dtype.isnative:
            y = y.astype(y.dtype.newbyteorder("="))
        elif any(st < 0 for st in y.strides):  # a reversed view: PyTorch aborts the process on negative strides
            y = y.copy()
        try:
            try:
                return api.ns.from_dlpack(y, device=api.device)
            except TypeError:  # a library predating from_dlpack's device argument (Array API 2023.12)
                return api.ns.from_dlpack(y)
        except (BufferError, RuntimeError, TypeError, ValueError):
            return y
    if isinstance(y, tuple) and not hasattr(y, "_fields"):
        return tuple(numpy_to_api(v, api) for v in y)
    if isinstance(y, tuple):  # a named tuple keeps its type
        return type(y)(*(numpy_to_api(v, api) for v in y))
    if isinstance(y, list):
        return [numpy_to_api(v, api) for v in y]
    if isinstance(y, dict):
        return {k: numpy_to_api(v, api) for k, v in y.items()}
    if isinstance(y, types.GeneratorType):  # the pyramids: each level as it comes
        return (numpy_to_api(v, api) for v in y)
    return y


def is_gpu_array(x):
    return library_of(x) in ("cupy", "torch", "cuda")


def host_only(name, *arrays):
    """Functions without a CUDA engine refuse GPU arrays by name (never a silent host copy)."""
    if any(is_gpu_array(a) for a in arrays):
        raise TypeError(f"{name}: the CUDA engine is not built yet; pass a NumPy array (e.g. cupy.asnumpy(x))")


class Call:
    """The engine of one call: ``xp`` is NumPy or CuPy, ``library`` the caller's array library."""

    __slots__ = ("engine", "library", "xp")

    def __init__(self, engine, library, xp):
        self.engine, self.library, self.xp = engine, library, xp


_CPU_CALL = Call(CPU, "numpy", np)


def _call_for(libs):
    """The Call for the libraries of a call's array arguments (None entries ignored); mixing raises."""
    gpu = None
    host = False
    for lib in libs:
        if lib is None:
            continue
        if lib == "numpy":
            host = True
        else:
            if gpu is not None and gpu != lib:
                raise TypeError(f"ndimg cannot mix {gpu} and {lib} arrays in one call")
            gpu = lib
    if gpu is None:
        return _CPU_CALL
    if host:
        raise TypeError(f"ndimg cannot mix NumPy and {gpu} (GPU) arrays in one call; move them to one device")
    return Call(CUDA, gpu, _cupy())


def engine_for(*arrays):
    """The Call for these arguments (None entries and non-arrays are ignored); mixing raises TypeError."""
    return _call_for([library_of(a) for a in arrays])


def xp_of(*arrays):
    """The working namespace (numpy or cupy) of already-converted arrays."""
    return engine_for(*arrays).xp


def to_working(x, lib):
    """A caller's GPU array as a zero-copy CuPy array."""
    if lib == "cupy":
        return x
    cp = _cupy()
    if lib == "torch" or not hasattr(x, "__cuda_array_interface__"):
        return cp.from_dlpack(x)
    return cp.asarray(x)


def from_working(y, lib):
    """A CuPy result returned as the caller's type, zero-copy (tuples, lists and dicts recursively)."""
    if lib in ("numpy", "cupy", "cuda"):
        return y  # a generic CUDA-array library receives CuPy arrays (they export both protocols)
    cp = _cupy()
    if isinstance(y, cp.ndarray):
        import torch

        return torch.from_dlpack(y)
    if isinstance(y, tuple):
        return tuple(from_working(v, lib) for v in y)
    if isinstance(y, list):
        return [from_working(v, lib) for v in y]
    if isinstance(y, dict):
        return {k: from_working(v, lib) for k, v in y.items()}
    return y


def from_host(y, lib):
    """A host (NumPy) result of host-only work as the caller's array library `lib` (a library_of name)."""
    if lib in (None, "numpy"):
        return y
    return from_working(_cupy().asarray(y), lib)


@functools.lru_cache(maxsize=None)
def _torch_allocator():
    """A CuPy allocator drawing from PyTorch's caching allocator on the current stream."""
    import torch

    cp = _cupy()

    class _Block:
        __slots__ = ("ptr",)

        def __init__(self, ptr):
            self.ptr = ptr

        def __del__(self):
            torch.cuda.caching_allocator_delete(self.ptr)

    def alloc(size):
        dev = cp.cuda.Device().id
        stream = torch.cuda.current_stream(dev)
        ptr = torch.cuda.caching_allocator_alloc(max(size, 1), dev, stream) if size else 0
        mem = cp.cuda.UnownedMemory(ptr, size, _Block(ptr) if ptr else None, dev)
        return cp.cuda.MemoryPointer(mem, 0)

    return alloc


def _run_on_gpu(call, first, fn, args, kwargs):
    """The body on the input's device, the caller's stream and allocator; results as the caller's type."""
    cp = call.xp
    dev = first.device.id if hasattr(first, "device") and hasattr(first.device, "id") else cp.cuda.Device().id
    if call.library != "torch":
        if dev == cp.cuda.runtime.getDevice():  # the common case: no context switches to pay for
            return fn(*args, **kwargs)
        with cp.cuda.Device(dev):
            return fn(*args, **kwargs)
    import torch

    with cp.cuda.Device(dev), cp.cuda.ExternalStream(torch.cuda.current_stream(dev).cuda_stream, dev), \
            cp.cuda.using_allocator(_torch_allocator()):
        return from_working(fn(*args, **kwargs), "torch")


_OUTPUTS = ("out", "output")  # arrays written in place: never replaced by a copy


def _native(args, kwargs, swapped):
    """The arguments with each (position or name, value) of `swapped` as a NumPy array (a NumPy scalar is the
    0-d array the references see) in native byte order, as the references compute (their results are native
    too); `kwargs` is updated in place."""
    args = list(args)
    for at, v in swapped:
        v = np.asarray(v)
        if not v.dtype.isnative:
            v = v.astype(v.dtype.newbyteorder("="))
        if isinstance(at, int):
            args[at] = v
        else:
            kwargs[at] = v
    return args


def _host_api_args(v, seq, libs, api):
    """(`v` with its host Array API arrays as NumPy views, or None when it has none; their libraries; the
    call's HostCall). One call takes one such library (NumPy arrays and lists may come beside it)."""
    items = list(v) if seq else [v]
    found = False
    for k, (e, lib) in enumerate(zip(items, libs)):
        ns = host_namespace(e) if lib is None else None
        if ns is not None:
            if api is None:
                api = HostCall(ns, e.device)
            elif ns is not api.ns:
                raise TypeError(f"ndimg cannot mix {api.ns.__name__} and {ns.__name__} arrays in one call")
            found, items[k], libs[k] = True, api_to_numpy(e), "numpy"
            api.views[id(items[k])] = e
    if not found:
        return None, libs, api
    return (type(v)(items) if seq else items[0]), libs, api


def array_api_host(fn):
    """The Array API route of engine_aware for a public function outside it (coordinates, descriptors, footprints,
    pyramids: their own NumPy/CuPy handling): host Array API arrays among any of its arguments (or in lists and
    tuples of them) reach it as NumPy views and its results go back to their library. The registry applies
    it (Entry.load)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        api = None
        for at, v in [*enumerate(args), *kwargs.items()]:
            seq = isinstance(v, (list, tuple))
            libs = [library_of(e) for e in v] if seq else [library_of(v)]
            if None in libs:
                v, libs, api = _host_api_args(v, seq, libs, api)
                if v is not None:
                    args = _put(args, kwargs, at, v)
        return fn(*args, **kwargs) if api is None else numpy_to_api(fn(*args, **kwargs), api)

    return wrapper


def _put(args, kwargs, at, v):
    """Argument `at` (a position or a name) set to `v`; returns the positional arguments."""
    if isinstance(at, int):
        args = list(args)
        args[at] = v
    else:
        kwargs[at] = v
    return args


def engine_aware(*array_params, native=True):
    """Decorator for a public function: GPU arguments named in `array_params` (positions or keywords,
    also sequences of arrays) reach the body as CuPy arrays, results go back as the caller's type. NumPy
    scalars reach it as 0-d arrays, inputs in the other byte order in the native one (`native=False`: as
    given, for a body that returns the input's own values, as scikit-image does). A Dask array among them
    hands the call to ndimg._dask (blockwise by the registry's halo rule, or its dask= implementation). Host
    arrays of another Array API library (PyTorch CPU, array_api_strict) reach it as NumPy views and its
    results go back to that library (host_namespace)."""

    def deco(fn):
        import inspect

        names = list(inspect.signature(fn).parameters)
        params = [(p, names.index(p)) for p in array_params]
        positions = [i for _, i in params]
        n_positional = max(positions, default=-1) + 1
        single = positions[0] if len(positions) == 1 else None

        def working(v, lib):
            return to_working(v, lib) if lib not in (None, "numpy", "cupy") else v

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            # the common call, every array argument a native-order NumPy array given by position: the loop
            # below would change nothing (its cost is most of a call on a small input)
            if single is not None:
                if len(args) > single and type(args[single]) is np.ndarray and args[single].dtype.isnative:
                    return fn(*args, **kwargs)
            elif len(args) >= n_positional and all(type(args[i]) is np.ndarray and args[i].dtype.isnative
                                                   for i in positions):
                return fn(*args, **kwargs)
            seen = []  # the library of every array argument (and of every element of sequences)
            gpu_args = []  # (position or name, value, its libraries) of the arguments holding GPU arrays
            swapped = []  # (position or name, value) of NumPy scalars and inputs in the other byte order
            api = None  # HostCall of host Array API arguments (torch CPU, ...): viewed as NumPy, results back
            for p, i in params:
                at = i if i < len(args) else p
                v = args[i] if i < len(args) else kwargs.get(p)
                if v is None:
                    continue
                seq = isinstance(v, (list, tuple))
                libs = [_library(e) for e in v] if seq else [_library(v)]
                if not seq and libs[0] is None and type(v).__module__.startswith("dask"):
                    from . import _dask  # imports dask: only once a Dask array is seen

                    return _dask.call(wrapper, fn, array_params, args, kwargs)
                if None in libs:
                    viewed, libs, api = _host_api_args(v, seq, libs, api)
                    if viewed is not None:
                        v = viewed
                        args = _put(args, kwargs, at, v)
                seen.extend(libs)
                if "lazy" in libs:
                    continue  # converted by _lazy_call below, with the other arguments
                if any(lib not in (None, "numpy") for lib in libs):
                    gpu_args.append((at, v, libs if seq else None))
                elif native and not seq and p not in _OUTPUTS and (
                        isinstance(v, np.generic) or isinstance(v, np.ndarray) and not v.dtype.isnative):
                    swapped.append((at, v))
            if "lazy" in seen:
                return _lazy_call(wrapper, fn, params, seen, args, kwargs)
            call = _call_for(seen)
            if call.engine == CPU:
                if swapped:
                    args = _native(args, kwargs, swapped)
                return fn(*args, **kwargs) if api is None else numpy_to_api(fn(*args, **kwargs), api)
            args = list(args)
            first = None
            for at, v, libs in gpu_args:
                if libs is None:  # one array: its library is the call's (mixing raised above)
                    w = working(v, call.library)
                    gpu = [w]
                else:
                    w = type(v)(working(e, lib) for e, lib in zip(v, libs))
                    gpu = [e for e, lib in zip(w, libs) if lib not in (None, "numpy")]
                if isinstance(at, int):
                    args[at] = w
                else:
                    kwargs[at] = w
                if first is None:
                    first = gpu[0]
            return _run_on_gpu(call, first, fn, args, kwargs)

        wrapper.__wrapped_impl__ = fn
        wrapper.__array_params__ = array_params
        return wrapper

    return deco


def _library(x):
    """library_of, with 'lazy' for a LazyArray (engine_aware hands those calls to _lazy_call)."""
    return "lazy" if type(x) is LazyArray else library_of(x)


def _lazy_call(wrapper, fn, params, libs, args, kwargs):
    """A call with LazyArrays among its array arguments: on the GPU with their device arrays (no copy) and
    the NumPy arrays copied up, where one is still on the device and `fn` has a CUDA engine; results lazy
    under ndimg.accelerate(lazy=True), else NumPy. Otherwise the LazyArrays materialize and the call runs
    as with NumPy arrays."""
    from .accelerate import _lazy

    gpu = next((lib for lib in libs if lib not in (None, "numpy", "lazy")), None)
    if gpu is not None:
        raise TypeError(f"ndimg cannot mix lazy NumPy results and {gpu} (GPU) arrays in one call; "
                        "materialize() them or move them to one device")
    found = [(i if i < len(args) else p, p, args[i] if i < len(args) else kwargs.get(p)) for p, i in params]
    found = [(at, p, v if isinstance(v, (list, tuple)) else (v,)) for at, p, v in found if v is not None]
    on_device = any(type(e) is LazyArray and e.on_device for _, _, v in found for e in v)
    # a NumPy array written in place stays the caller's: such a call runs on the host
    host_out = any(p in _OUTPUTS and (isinstance(v[0], np.ndarray) or type(v[0]) is LazyArray and not v[0].on_device)
                   for _, p, v in found)
    convert = _lazy.as_working if on_device and not host_out and _lazy.has_cuda(fn) else _lazy.as_host
    args = list(args)
    first = None
    for at, _, _ in found:
        w = convert(args[at] if isinstance(at, int) else kwargs[at])
        if isinstance(at, int):
            args[at] = w
        else:
            kwargs[at] = w
        if first is None:
            first = next((e for e in (w if isinstance(w, (list, tuple)) else (w,))
                          if hasattr(e, "__cuda_array_interface__")), None)
    if convert is _lazy.as_host:
        return wrapper(*args, **kwargs)
    from .backends.skimage import _to_host

    y = _run_on_gpu(Call(CUDA, "cupy", _cupy()), first, fn, args, kwargs)
    return _lazy.wrap(y, _to_host) if _lazy.is_lazy() else _to_host(y)


def stream_ptr(x):
    """The stream a core call on working array `x` queues on: 0 for NumPy, else CuPy's current stream
    (the caller's, set up by engine_aware)."""
    if isinstance(x, np.ndarray):
        return 0
    return _cupy().cuda.get_current_stream().ptr


def set_num_threads(n):
    """Number of CPU threads the CPU engine uses (n <= 0 or None: the default, all cores or
    NDIMG_NUM_THREADS)."""
    _core.set_num_threads(0 if n is None else int(n))


def get_num_threads():
    return _core.get_num_threads()

"""``CuImage.read_region(..., device="cuda")``: regions decoded into GPU memory by the C++ core
(``ndimg/io/gpu_decode.hpp``), in arrays allocated here by the caller's library on its current stream."""
import importlib.util
import os

from .. import _core, _engine
from ._cuimage import BatchIterator

_LIBRARIES = ("cupy", "torch")


def _nvjpeg_candidates():
    """libnvjpeg files of the nvidia-nvjpeg wheels (and PyTorch's bundled copy), newest CUDA first."""
    found = []
    for pkg in ("nvidia.cu13", "nvidia.nvjpeg", "nvidia.cu12", "torch"):
        try:
            spec = importlib.util.find_spec(pkg)
        except (ImportError, ValueError):
            continue
        for root in (spec.submodule_search_locations or []) if spec else []:
            lib = os.path.join(root, "lib")
            if os.path.isdir(lib):
                found += [os.path.join(lib, f) for f in sorted(os.listdir(lib), reverse=True)
                          if f.startswith("libnvjpeg.so")]
    return found


_candidates_set = False


class Target:
    """Where GPU pixels go: a device index and the array library allocating them."""

    __slots__ = ("device", "library")

    def __init__(self, device, library):
        self.device, self.library = device, library

    def empty(self, shape):
        """(array, device pointer, stream pointer): uint8 C-contiguous, allocated by the library on the
        current stream of self.device."""
        if self.library == "torch":
            import torch

            with torch.cuda.device(self.device):
                out = torch.empty(shape, dtype=torch.uint8, device=f"cuda:{self.device}")
                return out, out.data_ptr(), torch.cuda.current_stream(self.device).cuda_stream
        cp = _engine._cupy()
        with cp.cuda.Device(self.device):
            out = cp.empty(shape, dtype=cp.uint8)
            return out, out.data.ptr, cp.cuda.get_current_stream().ptr


def target(device, array_type):
    """The Target of device "cuda" / "cuda:N", or RuntimeError naming what is missing."""
    library = "cupy" if array_type is None else array_type
    if library not in _LIBRARIES:
        raise ValueError(f"array_type must be one of {_LIBRARIES} (or None for CuPy), got {array_type!r}")
    head, _, index = device.partition(":")
    if head != "cuda" or (index and not index.isdigit()):
        raise ValueError(f"device must be 'cpu', None, 'cuda' or 'cuda:N', got {device!r}")
    if not hasattr(_core, "GpuPatchLoader"):
        raise RuntimeError("device='cuda' needs ndimg built with its CUDA engine and the slide reader "
                           "(this build has " + ("no CUDA engine)" if not _core.built_with_cuda else "no slide reader)"))
    if library == "torch":
        try:
            import torch
        except ImportError:
            raise RuntimeError("array_type='torch' needs PyTorch (pip install torch)") from None
        if not torch.cuda.is_available():
            raise RuntimeError("device='cuda' needs a CUDA GPU, and PyTorch sees none")
        count, current = torch.cuda.device_count(), torch.cuda.current_device()
    else:
        try:
            import cupy
        except ImportError:
            raise RuntimeError("device='cuda' returns CuPy arrays and CuPy is not installed (pip install "
                               "cupy-cuda13x), or pass array_type='torch'") from None
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as e:  # no driver, no device
            raise RuntimeError(f"device='cuda' needs a CUDA GPU and none is usable: {e}") from None
        if count == 0:
            raise RuntimeError("device='cuda' needs a CUDA GPU and none is present")
        current = cupy.cuda.runtime.getDevice()
    dev = int(index) if index else current
    if dev >= count:
        raise RuntimeError(f"device {device!r}: there are {count} CUDA devices")
    global _candidates_set
    if not _candidates_set:
        _core.gpu_set_nvjpeg_candidates(_nvjpeg_candidates())
        _candidates_set = True
    return Target(dev, library)


def read_one(gpu, core, x, y, level, w, h):
    if max(w, h) > 1 << 48:  # before allocating; the core checks the rest (check_size in ndimg/io/batch.hpp)
        raise ValueError("region size is too large")
    out, ptr, stream = gpu.empty((h, w, 3))
    _core.gpu_read_region(core, x, y, level, w, h, gpu.device, ptr, stream)
    return out


class GpuBatchIterator(BatchIterator):
    """Batches of patches decoded into GPU memory (CuPy arrays, or PyTorch tensors with
    ``array_type="torch"``); otherwise like :class:`ndimg.io.BatchIterator`. Each batch is a new array,
    written in the order of its library's current stream at the time of ``next()``. One consumer thread
    at a time."""

    def __init__(self, loader, gpu, patch_shape, squeeze, progress):
        self._gpu = gpu
        self._patch_shape = tuple(patch_shape)
        super().__init__(loader, squeeze, progress)

    def _fetch(self, loader):
        count = loader.next_count()
        if not count:
            return None
        out, ptr, stream = self._gpu.empty((count, *self._patch_shape))
        return out if loader.next(ptr, stream) else None

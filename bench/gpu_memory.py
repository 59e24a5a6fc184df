"""Peak device memory of registry functions on the CUDA engine, against their input plus output bytes.

    python bench/gpu_memory.py ndimage.label ndimage.distance_transform_edt [--out DIR]

Each of the entries' bench cases runs once on CuPy inputs. Two peaks are added, which bounds the true peak
from above (they need not coincide): CuPy's pool (the input, the output and any CuPy temporaries of the
Python layer, tracked by a memory hook) and the high-water mark of the CUDA default pool that ndimg's C++
scratch comes from (cudaMemPoolAttrUsedMemHigh, reset before each call).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cupy as cp
import numpy as np
from cupy.cuda import memory_hook

sys.path.append(str(Path(__file__).resolve().parents[1] / "python"))  # after site-packages: an installed ndimg wins
import ndimg  # noqa: E402
from ndimg import _cases, _registry  # noqa: E402

_USED_MEM_HIGH = 8  # cudaMemPoolAttrUsedMemHigh


class _Peak(memory_hook.MemoryHook):
    """Live and peak bytes of CuPy's pool (pool-level malloc/free, not the driver's allocations)."""
    name = "ndimg-peak"

    def __init__(self):
        self.live = self.peak = 0
        self.sizes = {}

    def malloc_postprocess(self, device_id, size, mem_size, mem_ptr, pmem_id):
        self.sizes[mem_ptr] = mem_size
        self.live += mem_size
        self.peak = max(self.peak, self.live)

    def free_postprocess(self, device_id, mem_size, mem_ptr, pmem_id):
        self.live -= self.sizes.pop(mem_ptr, mem_size)


def _nbytes(result):
    if isinstance(result, (tuple, list)):
        return sum(_nbytes(r) for r in result)
    return int(result.nbytes) if hasattr(result, "nbytes") else 0


def measure(entry, shape, kwargs):
    args, call = _cases.bench_inputs(entry, shape, kwargs)
    fn = entry.load()
    dev = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    fn(*dev, **call)  # warm: lazy CUDA module loads and pools settle
    cp.cuda.Device().synchronize()
    pool = cp.cuda.runtime.deviceGetDefaultMemPool(cp.cuda.Device().id)
    cp.cuda.runtime.memPoolSetAttribute(pool, _USED_MEM_HIGH, 0)
    hook = _Peak()
    base = sum(int(a.nbytes) for a in dev if isinstance(a, cp.ndarray))
    with hook:
        out = fn(*dev, **call)
        cp.cuda.Device().synchronize()
    scratch = int(cp.cuda.runtime.memPoolGetAttribute(pool, _USED_MEM_HIGH))
    in_out = base + _nbytes(out)
    peak = base + hook.peak + scratch
    return in_out, hook.peak, scratch, peak


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="+", help="registry names, e.g. ndimage.label")
    p.add_argument("--out", type=Path, help="write the markdown table to DIR/gpu-memory.md")
    a = p.parse_args()
    rows = ["| function | case | input+output | CuPy peak | ndimg scratch peak | peak / (in+out) |", "|---|---|---|---|---|---|"]
    mib = 2.0**20
    for name in a.names:
        entry = _registry.REGISTRY[name]
        for shape, kwargs in entry.bench:
            in_out, cupy_peak, scratch, peak = measure(entry, shape, kwargs)
            label = shape + "".join(f" {k}={v}" for k, v in kwargs.items())
            rows.append(f"| `{name}` | {label} | {in_out / mib:.1f} MiB | {cupy_peak / mib:.1f} MiB | "
                        f"{scratch / mib:.1f} MiB | {peak / in_out:.2f}x |")
    text = f"GPU: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; ndimg {ndimg.__file__}\n\n" + "\n".join(rows) + "\n"
    print(text)
    if a.out:
        a.out.mkdir(parents=True, exist_ok=True)
        (a.out / "gpu-memory.md").write_text(text)


if __name__ == "__main__":
    main()

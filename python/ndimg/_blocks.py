"""Pointwise NumPy work on all of the CPU engine's threads: NumPy alone is one core, but its ufuncs release
the GIL, so the same operations over blocks on a thread pool scale with the cores (DESIGN.md: pointwise work).
"""
from __future__ import annotations

import contextvars
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _core
from ._engine import get_num_threads

# elements per block: one block of each operand stays in a core's cache through all of a step's operations
_BLOCK = 1 << 16


def blockwise(fn, *arrays):
    """fn(*blocks) over matching 1-D blocks of C-contiguous NumPy arrays of one size, on the CPU engine's
    thread count. NumPy alone is one core and one memory sweep per operation; NumPy's ufuncs release the
    GIL, so threads scale, and the operations of one block reuse it from cache (the same values)."""
    flat = [a.reshape(-1) for a in arrays]
    n = flat[0].size
    nblocks = -(-n // _BLOCK)

    def run(first, last):
        for b in range(first, last):
            fn(*(a[b * _BLOCK:(b + 1) * _BLOCK] for a in flat))

    _on_threads(run, nblocks)


def _on_threads(run, nblocks):
    """run(b, b + 1) for every block b on the engine's threads, the caller's among them. Each thread takes the
    next block when it is done with one: a thread the OS leaves waiting (a busy machine) holds no share of
    the work back, where fixed ranges per thread would make everyone wait for its range."""
    workers = min(get_num_threads(), nblocks)
    if workers <= 1:
        return run(0, nblocks)
    blocks = iter(range(nblocks))   # shared: next() is atomic under the GIL

    def work():
        for b in blocks:
            run(b, b + 1)

    with ThreadPoolExecutor(workers - 1) as pool:
        # each worker in a copy of the caller's context, so np.errstate applies there too
        done = [pool.submit(contextvars.copy_context().run, work) for _ in range(workers - 1)]
        work()
        for d in done:
            d.result()


def blockwise_rows(fn, *arrays, row_elements=_BLOCK):
    """fn(*blocks) over matching blocks of whole rows (first axis) of NumPy arrays of one length, on the CPU
    engine's threads: blockwise for arrays whose rows must stay together (points with their coordinates,
    pixels with their channels). A block holds about `row_elements` elements of the widest array's rows."""
    n = arrays[0].shape[0]
    width = max(max(1, a.size // max(n, 1)) for a in arrays)
    step = max(1, row_elements // width)
    nblocks = -(-n // step)

    def run(first, last):
        for b in range(first, last):
            fn(*(a[b * step:(b + 1) * step] for a in arrays))

    _on_threads(run, nblocks)


def stack_last(planes):
    """np.stack(planes, axis=-1) of NumPy arrays of one shape (at least 1-D): C-contiguous planes of one
    dtype (of 1 to 8 bytes) in one threaded C++ sweep, each pixel's values written side by side; others by
    blocks of rows on the threads (NumPy alone writes every plane with a stride, one pass each)."""
    out = np.empty(planes[0].shape + (len(planes),), np.result_type(*planes))
    if (len(planes) <= 64 and out.dtype.kind in "biuf" and out.dtype != np.float16 and out.itemsize in (1, 2, 4, 8)
            and all(p.dtype == out.dtype and p.flags.c_contiguous for p in planes)):
        _core.stack_channels(list(planes), out)
        return out

    def fill(o, *srcs):
        for j, src in enumerate(srcs):
            o[..., j] = src

    blockwise_rows(fill, out, *planes)
    return out


def blockable(*arrays):
    """Whether blockwise can take these arrays (C-contiguous NumPy arrays; anything else, CuPy included, is
    computed whole)."""
    return all(type(a) is np.ndarray and a.flags.c_contiguous for a in arrays)


def pipelined(produce, consume, nblocks):
    """consume(b, produce(b)) for b in range(nblocks): produce runs in order on the caller's thread (a source
    that must stay serial, e.g. a random stream, drawing without the GIL), each consume on the engine's other
    threads while the next block is produced."""
    workers = get_num_threads() - 1
    if workers < 1:
        for b in range(nblocks):
            consume(b, produce(b))
        return
    with ThreadPoolExecutor(workers) as pool:
        done = [pool.submit(contextvars.copy_context().run, consume, b, produce(b)) for b in range(nblocks)]
        for d in done:
            d.result()

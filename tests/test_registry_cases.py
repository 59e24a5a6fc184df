"""Tests generated from the registry: every entry's cases against its reference, on each engine.

- test_case: entry x case x dtype x ndim x layout, sampled (every dtype at every ndim with the first case;
  every case at every ndim with the entry's main dtype and one more, turning through the dtypes; every
  layout at every ndim with the first case): same values at the registry tolerance and the same array type
  out as in.
- test_bad: each bad case raises the reference's exception type.
- test_odd_input: big-endian, 0-d, float16, bool, complex64, NaN/inf, 1e308 and nested-list inputs behave like
  the reference: where it raises, ndimg raises the same type; where it succeeds, ndimg gives close results.
- test_torch: a torch CUDA tensor in gives a torch tensor out (cuda engine, torch installed).
- test_array_api_host: a PyTorch CPU tensor, and an array_api_strict array, in gives the same type out (CPU
  engine, through DLPack), values as the reference's: every entry taking arrays, its first case at its main
  dtype (the conversion is one funnel, ndimg._engine.engine_aware: the dtype x case cross product is test_case's).
A reviewed difference is listed in the entry's known_differences and runs as xfail(strict=True).
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from helpers import CUDA_READY, assert_close, assert_raises_like, check_result, on_engine, public_type, to_engine
from ndimg._cases import IMAGE_KINDS, LAYOUTS, TEST_SHAPES, make_inputs
from ndimg._registry import Arr, entries

ENTRIES = entries()


def main_dtype(entry):
    """The dtype a case is first tried with: float32 where accepted (the common image type)."""
    for d in ("float32", "float64", "uint8"):
        if d in entry.dtypes:
            return d
    return entry.dtypes[0]


def _ndims(entry, c):
    nd = entry.ndim or (None,)
    return [n for n in nd if c.ndim is None or n in c.ndim]


def _case_params():
    out = []
    for e in ENTRIES:
        main = main_dtype(e)
        seen = set()
        for i, c in enumerate(e.cases):
            key = f"case:{c!r}"
            dtypes = [c.dtype] if c.dtype else ([*e.dtypes] if i == 0 else [main, e.dtypes[i % len(e.dtypes)]])
            for nd in _ndims(e, c):
                combos = [(d, "c") for d in dtypes]
                if i == 0:
                    combos += [(c.dtype or main, lay) for lay in LAYOUTS[1:]]
                for d, lay in combos:
                    if e.ndim == () and (d != dtypes[0] or lay != "c"):
                        continue   # generators: no input to vary
                    if (i, nd, d, lay) in seen:
                        continue
                    seen.add((i, nd, d, lay))
                    reason = e.known_differences.get(key) or e.known_differences.get(f"dtype:{d}")
                    out.append(pytest.param(e, c, d, nd, lay,
                                            marks=[pytest.mark.xfail(strict=True, reason=reason)] if reason else [],
                                            id=f"{e.qualname}-{c!r}-{d}-{nd}d-{lay}"))
    return out


def _shape(c, ndim):
    return c.shape if c.shape is not None else TEST_SHAPES.get(ndim, ())


def _make(entry, c, rng, dtype, ndim, layout, kinds=None):
    """(positional inputs, kwargs) of one call, on the host."""
    kinds = kinds or c.inputs or entry.inputs
    shape = _shape(c, ndim)
    args = make_inputs(entry, shape, dtype, rng, layout, kinds=kinds)
    kw = {k: (make_inputs(entry, shape, v.dtype or dtype, rng, layout, kinds=(v.kind,))[0] if isinstance(v, Arr)
              else v) for k, v in c.kwargs.items()}
    if c.prep is not None:
        args, kw = c.prep(args, kw)
    return args, kw


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _comparable(entry, result, probe):
    """The values of a result to compare: an LPIFilter2D applied to `probe`; try_all_threshold's images."""
    if entry.name == "LPIFilter2D":
        return result(probe)
    if entry.name == "try_all_threshold":
        fig, axes = result
        import matplotlib.pyplot as plt

        plt.close(fig)
        return [np.asarray(im.get_array()) for ax in axes for im in ax.get_images()]
    return result


def _run_and_compare(entry, c, args, kw, engine, rng, dtype, ndim, layout, byteorder=True):
    ref = entry.load_reference()
    fn = entry.load()
    gargs, gkw = on_engine(engine, args, kw)
    expected = _quiet(ref, *args, **kw)
    got = _quiet(fn, *gargs, **gkw)
    if entry.name in ("LPIFilter2D", "try_all_threshold"):
        probe = make_inputs(entry, _shape(c, ndim), dtype, rng, layout, kinds=("image",))[0]
        expected = _quiet(_comparable, entry, expected, probe)
        got = _quiet(_comparable, entry, got, to_engine(probe, engine))
        if entry.name == "try_all_threshold":
            got = [np.asarray(g) for g in got]
            expected = [np.asarray(x) for x in expected]
            engine = "cpu"   # matplotlib holds host arrays
    check_result(entry, got, expected, engine, args, kw, byteorder=byteorder)


@pytest.mark.parametrize("entry, c, dtype, ndim, layout", _case_params())
def test_case(engine, rng, entry, c, dtype, ndim, layout):
    if engine not in entry.engines:
        pytest.skip(f"{entry.qualname} runs on {entry.engines}")
    args, kw = _make(entry, c, rng, dtype, ndim, layout)
    _run_and_compare(entry, c, args, kw, engine, rng, dtype, ndim, layout)


def _bad_params():
    out = []
    for e in ENTRIES:
        for c in e.bad:
            reason = e.known_differences.get(f"bad:{c!r}")
            out.append(pytest.param(e, c, marks=[pytest.mark.xfail(strict=True, reason=reason)] if reason else [],
                                    id=f"{e.qualname}-{c!r}"))
    return out


@pytest.mark.parametrize("entry, c", _bad_params())
def test_bad(engine, rng, entry, c):
    if engine not in entry.engines:
        pytest.skip(f"{entry.qualname} runs on {entry.engines}")
    ndim = (_ndims(entry, c) or [None])[0]
    args, kw = _make(entry, c, rng, c.dtype or main_dtype(entry), ndim, "c")
    gargs, gkw = on_engine(engine, args, kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if c.exc is MemoryError:
            # The reference is not called: its huge allocation fails at once where the host refuses it, but a
            # host that overcommits grants it and the kernel's OOM killer then ends the test process.
            with pytest.raises(MemoryError):
                entry.load()(*gargs, **gkw)
            return
        assert_raises_like(lambda: entry.load_reference()(*args, **kw), lambda: entry.load()(*gargs, **gkw), c.exc)


# ---------------------------------------------------------------------------------------------------
# odd inputs: the reference's behaviour on the same call is the expectation
# ---------------------------------------------------------------------------------------------------
def _odd(base, convert=None, values=None, cpu_only=False):
    return dict(base=base, convert=convert, values=values, cpu_only=cpu_only)


def _nan(a):
    a = a.copy()
    a.flat[:: max(1, a.size // 5)] = np.nan
    return a


def _inf(a):
    a = a.copy()
    a.flat[:: max(1, a.size // 5)] = np.inf
    a.flat[1:: max(1, a.size // 4)] = -np.inf
    return a


def _huge(a):
    a = a.copy()
    a.flat[:: max(1, a.size // 5)] = 1e308
    return a


def _complex(a):
    return (a + 0.25j * a[::-1].reshape(a.shape) if a.ndim else a + 0.25j).astype(np.complex64)


ODD = {
    "big_endian_f4": _odd("float32", lambda a: a.astype(">f4"), cpu_only=True),   # CuPy holds native order only
    "big_endian_u2": _odd("uint16", lambda a: a.astype(">u2"), cpu_only=True),
    "0d": _odd(None, values="0d"),
    "float16": _odd("float32", lambda a: a.astype(np.float16)),
    "bool": _odd("bool"),
    "complex64": _odd("float32", _complex),
    "nan": _odd("float32", values=_nan),
    "inf": _odd("float32", values=_inf),
    "1e308": _odd("float64", values=_huge),   # finite, but sums and squares overflow
    "list": _odd(None, lambda a: a.tolist(), cpu_only=True),   # nested Python lists (a host input)
}


def _odd_params():
    out = []
    for e in ENTRIES:
        if "none" in e.inputs or not e.ndim:
            continue   # generators take no array
        for name in ODD:
            # at each dimensionality of the entry's first case (a 0-d input has none)
            for nd in [None] if name == "0d" else _ndims(e, e.cases[0]):
                reason = e.known_differences.get(name) or e.known_differences.get(f"{name}:{nd}d")
                out.append(pytest.param(e, name, nd, id=f"{e.qualname}-{name}" + (f"-{nd}d" if nd else ""),
                                        marks=[pytest.mark.xfail(strict=True, reason=reason)] if reason else []))
    return out


@pytest.mark.parametrize("entry, odd, ndim", _odd_params())
def test_odd_input(request, engine, rng, entry, odd, ndim):
    if engine not in entry.engines:
        pytest.skip(f"{entry.qualname} runs on {entry.engines}")
    # a difference of one engine only: "cuda:nan", "cuda:inf:2d"
    key = f"{engine}:{odd}"
    reason = entry.known_differences.get(key) or entry.known_differences.get(f"{key}:{ndim}d")
    if reason:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))
    spec = ODD[odd]
    crash = entry.extra.get("reference_crashes", {}).get(odd)
    if crash:   # an xfail would still call the reference, and a crash ends the whole test run
        pytest.skip(f"the reference crashes the process on this input: {crash}")
    if spec["cpu_only"] and engine != "cpu":
        pytest.skip("a host-only input (CuPy holds native byte order only)")
    c = entry.cases[0]
    kinds = c.inputs or entry.inputs
    if odd == "0d":
        c = type(c)(c.kwargs, c.inputs, c.ndim, (), c.dtype, c.prep, c.id)
    base = spec["base"] or c.dtype or main_dtype(entry)
    args, kw = _make(entry, c, rng, base, ndim, "c")
    args = list(args)
    first = True
    for i, kind in enumerate(k for k in kinds if k != "none"):
        if kind.partition(":")[0] not in IMAGE_KINDS:
            continue
        if spec["convert"]:
            args[i] = spec["convert"](args[i])
        if callable(spec["values"]) and first:
            args[i] = spec["values"](args[i])
        first = False
    ref = entry.load_reference()
    try:
        expected = _quiet(ref, *args, **kw)
    except Exception as exc:
        gargs, gkw = on_engine(engine, args, kw)
        with pytest.raises(public_type(type(exc))):
            _quiet(entry.load(), *gargs, **gkw)
        return
    _run_and_compare(entry, c, tuple(args), kw, engine, rng, base, ndim, "c", byteorder=False)


@pytest.mark.skipif(not CUDA_READY, reason="no CUDA device")
@pytest.mark.parametrize("entry", [pytest.param(e, id=e.qualname) for e in ENTRIES
                                   if "cuda" in e.engines and e.ndim and "none" not in e.inputs])
def test_torch(rng, entry):
    torch = pytest.importorskip("torch")
    c = entry.cases[0]
    ndim = _ndims(entry, c)[0]
    dtype = c.dtype or main_dtype(entry)
    args, kw = _make(entry, c, rng, dtype, ndim, "c")
    targs = [torch.as_tensor(a, device="cuda") if isinstance(a, np.ndarray) else a for a in args]
    got = _quiet(entry.load(), *targs, **kw)
    expected = _quiet(entry.load_reference(), *args, **kw)

    def as_cupy(g, x):
        # torch in, torch out (scalar metrics as 0-d tensors; sparse tables stay cupyx, torch has no scipy-style
        # matrix); then the CuPy engine's comparison rules (ridge, threshold, sparse, scalar) apply
        if isinstance(x, (tuple, list)):
            assert isinstance(g, (tuple, list)) and len(g) == len(x), type(g)
            return type(x)(as_cupy(gi, xi) for gi, xi in zip(g, x))
        if isinstance(x, dict):   # value_indices: torch index arrays under the reference's keys
            assert isinstance(g, dict), type(g)
            return {k: as_cupy(v, x[k]) if k in x else v for k, v in g.items()}
        if isinstance(x, np.ndarray):
            assert isinstance(g, torch.Tensor), type(g)
        if isinstance(g, torch.Tensor):
            assert g.is_cuda, g.device
            return cp.from_dlpack(g)
        return g

    cp = pytest.importorskip("cupy")
    check_result(entry, as_cupy(got, expected), expected, "cuda", args, kw)


def _api_libraries():
    """(id, to the library, its array type) of the host Array API libraries installed."""
    out = []
    try:
        import torch

        out.append(("torch_cpu", torch.asarray, torch.Tensor))
    except ImportError:
        pass
    try:
        import array_api_strict as xs

        out.append(("array_api_strict", xs.asarray, type(xs.asarray(0))))
    except ImportError:
        pass
    return out


def _from_api(got, expected, api_type):
    """`got` with its arrays of the Array API library as NumPy arrays, after checking that each array the reference
    returns came back as the library's type, on the CPU, and each scalar as a scalar."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(expected), type(got)
        return type(got)(_from_api(g, x, api_type) for g, x in zip(got, expected))
    if isinstance(expected, dict):
        assert isinstance(got, dict), type(got)
        return {k: _from_api(v, expected[k], api_type) if k in expected else v for k, v in got.items()}
    if isinstance(expected, np.ndarray) and expected.dtype.kind in "biufc":
        assert type(got) is api_type, type(got)
        assert got.__dlpack_device__()[0] == 1, got.device   # kDLCPU
        return np.from_dlpack(got)
    if isinstance(expected, (np.generic, int, float, bool)):
        assert not isinstance(got, api_type), type(got)
    return got


@pytest.mark.parametrize("api", [pytest.param(a, id=a[0]) for a in _api_libraries()])
@pytest.mark.parametrize("entry", [pytest.param(e, id=e.qualname) for e in ENTRIES
                                   if e.ndim and e.cases and "none" not in e.inputs])
def test_array_api_host(rng, entry, api):
    _, to_api, api_type = api
    c = entry.cases[0]
    ndim = _ndims(entry, c)[0]
    args, kw = _make(entry, c, rng, c.dtype or main_dtype(entry), ndim, "c")
    gargs, gkw = on_engine("cpu", args, kw, convert=to_api)
    expected = _quiet(entry.load_reference(), *args, **kw)
    got = _quiet(entry.load(), *gargs, **gkw)
    if entry.name == "try_all_threshold":   # matplotlib's images hold host arrays
        got, expected = (_quiet(_comparable, entry, r, None) for r in (got, expected))
    else:
        got = _from_api(got, expected, api_type)
    check_result(entry, got, expected, "cpu", args, kw)


def test_known_differences_name_generated_tests():
    """Every key of the reviewed table names tests that exist (a stale key would xfail nothing)."""
    for e in ENTRIES:
        cases = {f"case:{c!r}" for c in e.cases} | {f"dtype:{d}" for d in e.dtypes}
        bads = {f"bad:{c!r}" for c in e.bad}
        odd = {f"{eng}{k}{nd}" for eng in ["", *(f"{x}:" for x in e.engines)] for k in ODD
               for nd in ["", *(f":{n}d" for n in e.ndim)]} if e.ndim and "none" not in e.inputs else set()
        stale = set(e.known_differences) - cases - bads - odd
        assert not stale, (e.qualname, stale)


def test_every_entry_declares_cases_and_bench():
    from ndimg._cases import SHAPES

    for e in ENTRIES:
        if e.extra.get("tested_in"):   # classes, and calls taking them: compared with the reference in that file
            assert (Path(__file__).parent.parent / e.extra["tested_in"]).is_file(), e.qualname
            continue
        assert e.cases and e.bench, e.qualname
        assert all(shape in SHAPES for shape, _ in e.bench), e.qualname

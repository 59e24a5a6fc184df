"""ndimg as scikit-image's dispatch backend: the supported list, can_has, get_implementation, the NumPy
policy, and scikit-image's own dispatch through the entry points declared in pyproject.toml."""
import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import numpy as np
import pytest
import skimage.filters
import skimage.metrics

import ndimg
import ndimg.backends.skimage as backend
from helpers import CUDA_READY, assert_close, to_engine, to_host
from ndimg._registry import REGISTRY

PKG_ROOT = str(Path(ndimg.__file__).resolve().parents[1])  # the ndimg under test: source tree or site-packages
ROOT = Path(__file__).resolve().parents[2]
MSE = "skimage.metrics:mean_squared_error"
NRMSE = "skimage.metrics:normalized_root_mse"


@pytest.fixture(autouse=True)
def _policy():
    backend.set_numpy_policy(None)
    yield
    backend.set_numpy_policy(None)


def test_supported_functions_are_registry_entries_that_skimage_dispatches():
    names = backend.supported_functions()
    assert MSE in names and NRMSE in names
    references = {e.reference for e in REGISTRY.values()}
    for name in names:
        assert name in references
        mod, fn = name.split(":")
        # scikit-image marks it in its source (independent of our scan: its own inspect)
        import importlib
        import inspect

        src = inspect.getsource(inspect.unwrap(getattr(importlib.import_module(mod), fn)))
        assert src.lstrip().startswith("@dispatchable")
    # a registry function scikit-image does not dispatch is not listed
    assert "skimage.metrics:peak_signal_noise_ratio" in references
    assert "skimage.metrics:peak_signal_noise_ratio" not in names
    assert set(backend.info().supported_functions) == set(names)


def test_can_has_numpy_follows_the_policy(rng, monkeypatch):
    a, b = rng.random((5, 6)), rng.random((5, 6))
    monkeypatch.delenv("NDIMG_SKIMAGE_NUMPY", raising=False)
    assert not backend.can_has(MSE, a, b)  # default: off
    monkeypatch.setenv("NDIMG_SKIMAGE_NUMPY", "cpu")
    assert backend.can_has(MSE, a, b)
    backend.set_numpy_policy("off")  # the setter wins over the environment
    assert not backend.can_has(MSE, a, b)
    backend.set_numpy_policy("gpu")
    assert backend.can_has(NRMSE, a, b, normalization="min-max")
    with pytest.raises(ValueError):
        backend.set_numpy_policy("fast")
    backend.set_numpy_policy(None)
    monkeypatch.setenv("NDIMG_SKIMAGE_NUMPY", "fast")
    with pytest.raises(ValueError):
        backend.get_numpy_policy()


def test_can_has_refuses_what_ndimg_does_not_take(rng):
    backend.set_numpy_policy("cpu")
    a = rng.random((4, 4))
    assert not backend.can_has("skimage.metrics:no_such_function", a, a)
    assert not backend.can_has("skimage.filters:gaussian", a)  # not dispatchable in scikit-image
    assert not backend.can_has(MSE, a.tolist(), a)  # lists: scikit-image's own coercion
    assert not backend.can_has(MSE, a, 3.0)
    assert not backend.can_has(MSE, a.astype(np.float16), a)  # dtype outside the registry's
    assert not backend.can_has(MSE, a.astype(np.complex128), a)
    assert not backend.can_has(MSE, a, a, a)  # too many positional arguments
    assert not backend.can_has(NRMSE, a, a, norm="mean")  # unknown keyword
    assert not backend.can_has(MSE, a, None)
    assert not backend.can_has(MSE)


def test_can_has_converts_and_allocates_nothing(rng):
    backend.set_numpy_policy("cpu")

    class Tripwire(np.ndarray):
        def __array__(self, *a, **k):
            raise AssertionError("converted")

    a = rng.random((4, 4))
    assert not backend.can_has(MSE, a.view(Tripwire), a)


def test_placement_masks_refused_values_and_array_less_functions(rng):
    a = rng.random((6, 7)).astype(np.float32)
    spec = backend.spec_for
    # a mask is read as nonzero: any dtype, whatever dtypes the image takes
    for mask in (a > 0.5, (a > 0.5).astype(np.uint8)):
        assert backend.placement(spec("skimage.filters:sobel"), (a,), {"mask": mask}) == ("numpy", None)
    assert backend.placement(spec("skimage.filters:sobel"), (a.astype(np.float16),), {})[0] is None
    # values ndimg refuses (registry extra["unsupported"]), by keyword or position
    median = spec("skimage.filters:median")
    assert backend.placement(median, (a,), {"behavior": "rank"}) == (None, "behavior='rank'")
    assert backend.placement(median, (a, None, None, "nearest", 0.0, "rank"), {})[0] is None
    assert backend.placement(median, (a,), {"behavior": "ndimage"}) == ("numpy", None)
    # functions without array parameters run on the host; a class (LPIFilter2D) is not taken
    assert backend.placement(spec("skimage.filters:window"), ("hann", (5, 5)), {}) == ("numpy", None)
    assert backend.placement(spec("skimage.filters:gabor_kernel"), (0.2,), {}) == ("numpy", None)
    assert backend.placement(spec("skimage.filters:LPIFilter2D"), (lambda r, c: r,), {})[0] is None
    # structural_similarity takes K1, K2, sigma, use_sample_covariance through **kwargs, as scikit-image
    ssim = spec("skimage.metrics:structural_similarity")
    assert backend.placement(ssim, (a, a), {"K1": 0.02, "use_sample_covariance": False}) == ("numpy", None)


def test_force_gpu_needs_the_gpu_policy_and_ignores_the_crossover(monkeypatch):
    from ndimg import _registry

    with pytest.raises(ValueError):
        backend.set_numpy_policy("cpu", force_gpu=True)
    monkeypatch.setattr(_registry, "CROSSOVER", {})
    backend.set_numpy_policy("gpu", force_gpu=True)
    spec_impl = REGISTRY["metrics.mean_squared_error"].load()
    assert backend.get_implementation(MSE) is not spec_impl  # the round trip, although nothing is measured
    # a function without a CUDA engine stays on the CPU
    assert backend.implementation(backend.spec_for("skimage.filters:window")) is REGISTRY["filters.window"].load()
    backend.set_numpy_policy(None)
    assert backend.get_implementation(MSE) is spec_impl


@pytest.mark.parametrize("name", [MSE, NRMSE])
def test_get_implementation_numpy_cpu(rng, name):
    backend.set_numpy_policy("cpu")
    a = rng.integers(0, 255, (7, 9)).astype(np.uint8)
    b = rng.integers(0, 255, (7, 9)).astype(np.uint8)
    impl = backend.get_implementation(name)
    ref = getattr(skimage.metrics, name.split(":")[1])
    got, expected = impl(a, b), ref(a, b)
    assert type(got) is type(expected)
    assert_close(np.asarray(got), np.asarray(expected), "metrics." + name.split(":")[1])
    with pytest.raises(KeyError):
        backend.get_implementation("skimage.filters:gaussian")


def test_gpu_policy_without_measured_crossover_runs_the_cpu_engine(rng, monkeypatch):
    from ndimg import _registry

    monkeypatch.setattr(_registry, "CROSSOVER", {})
    backend.set_numpy_policy("gpu")
    spec_impl = REGISTRY["metrics.mean_squared_error"].load()
    assert backend.get_implementation(MSE) is spec_impl


@pytest.mark.skipif(not CUDA_READY, reason="no CUDA device")
def test_gpu_arrays_dispatch_by_default_and_come_back_on_the_gpu(rng):
    import cupy

    a, b = rng.random((6, 5)), rng.random((6, 5))
    ga, gb = to_engine(a, "cuda"), to_engine(b, "cuda")
    assert backend.can_has(MSE, ga, gb)  # policy off: GPU arrays still dispatch
    assert not backend.can_has(MSE, ga, b)  # mixed devices: left to scikit-image
    got = backend.get_implementation(MSE)(ga, gb)
    assert isinstance(got, cupy.ndarray)
    assert_close(to_host(got)[()], skimage.metrics.mean_squared_error(a, b), "metrics.mean_squared_error")


@pytest.mark.skipif(not CUDA_READY, reason="no CUDA device")
def test_gpu_policy_round_trip_above_crossover(rng, monkeypatch):
    from ndimg import _registry

    monkeypatch.setattr(_registry, "CROSSOVER", {REGISTRY["metrics.mean_squared_error"].family: 10})
    backend.set_numpy_policy("gpu")
    impl = backend.get_implementation(MSE)
    for shape in [(2, 2), (30, 30)]:  # below and above the crossover
        a, b = rng.random(shape), rng.random(shape)
        got = impl(a, b)
        assert type(got) is np.float64
        assert_close(np.asarray(got), np.asarray(skimage.metrics.mean_squared_error(a, b)),
                     "metrics.mean_squared_error")


@pytest.mark.skipif(not CUDA_READY, reason="no CUDA device")
def test_force_gpu_round_trips_every_size(rng):
    backend.set_numpy_policy("gpu", force_gpu=True)
    impl = backend.get_implementation(MSE)
    for shape in [(1, 1), (3, 2)]:
        a, b = rng.random(shape), rng.random(shape)
        got = impl(a, b)
        assert type(got) is np.float64
        assert_close(np.asarray(got), np.asarray(skimage.metrics.mean_squared_error(a, b)),
                     "metrics.mean_squared_error")
    # a NumPy `out` is filled and returned
    image = rng.random((5, 6)).astype(np.float32)
    out = np.zeros_like(image)
    got = backend.implementation(backend.spec_for("skimage.filters:gaussian"))(image, sigma=1, out=out)
    assert got is out
    assert_close(out, skimage.filters.gaussian(image, sigma=1), "filters.gaussian")
    # NumPy arguments that are not images (a sigma per axis) stay on the host (found by mode (b) of
    # tools/skimage-conformance: filters.gaussian read sigma with np.asarray)
    sigma = np.array([1.0, 2.0])
    got = backend.implementation(backend.spec_for("skimage.filters:gaussian"))(image, sigma=sigma)
    assert type(got) is np.ndarray
    assert_close(got, skimage.filters.gaussian(image, sigma=sigma), "filters.gaussian")


# --- scikit-image's own dispatch through the declared entry points -----------------------------------------
def _entry_point_dist(tmp_path):
    """A distribution declaring exactly pyproject.toml's entry points (what `pip install` writes), so that
    scikit-image's importlib.metadata lookup finds them without installing the package."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    groups = project["entry-points"]
    assert set(groups) >= {"skimage_backends", "skimage_backend_infos"}
    dist = tmp_path / "ndimg_entry_points-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ndimg-entry-points\nVersion: 0\n")
    (dist / "entry_points.txt").write_text(
        "".join(f"[{g}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n" for g, eps in groups.items()))
    return tmp_path


SCRIPT = textwrap.dedent("""
    import json, warnings
    import numpy as np
    import skimage.metrics as m
    from skimage.util._backends import DispatchNotification
    rng = np.random.default_rng(0)
    a, b = rng.random((8, 7)), rng.random((8, 7))
    out = {"wrapped": hasattr(m.mean_squared_error, "__wrapped__"),
           "psnr_wrapped": hasattr(m.peak_signal_noise_ratio, "__wrapped__")}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = m.mean_squared_error(a, b)
        out["nrmse"] = float(m.normalized_root_mse(a, b, normalization="mean"))
    out["notes"] = [str(x.message) for x in w if issubclass(x.category, DispatchNotification)]
    out["mse"] = float(r)
    out["type"] = type(r).__name__
    out["expected"] = float(np.mean((a - b) ** 2))
    print(json.dumps(out))
""")


def _run(tmp_path, policy, script=SCRIPT):
    env = dict(os.environ)
    env.pop("SKIMAGE_NO_DISPATCHING", None)
    env["PYTHONPATH"] = os.pathsep.join([str(_entry_point_dist(tmp_path)), PKG_ROOT])
    if policy is None:
        env.pop("NDIMG_SKIMAGE_NUMPY", None)
    else:
        env["NDIMG_SKIMAGE_NUMPY"] = policy
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_entry_points_numpy_stays_with_skimage_by_default(tmp_path):
    r = _run(tmp_path, None)
    assert r["wrapped"] and not r["psnr_wrapped"]
    assert r["notes"] == []
    assert r["type"] == "float64" and r["mse"] == pytest.approx(r["expected"], rel=1e-12)


def test_entry_points_numpy_cpu_policy_dispatches_to_ndimg(tmp_path):
    r = _run(tmp_path, "cpu")
    assert len(r["notes"]) == 2 and all("'ndimg' backend" in n for n in r["notes"])
    assert r["type"] == "float64" and r["mse"] == pytest.approx(r["expected"], rel=1e-12)


GPU_SCRIPT = textwrap.dedent("""
    import json, warnings
    import cupy, numpy as np
    import skimage.metrics as m
    from skimage.util._backends import DispatchNotification
    rng = np.random.default_rng(0)
    a, b = rng.random((8, 7)), rng.random((8, 7))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = m.mean_squared_error(cupy.asarray(a), cupy.asarray(b))
    print(json.dumps({"notes": [str(x.message) for x in w if issubclass(x.category, DispatchNotification)],
                      "type": type(r).__module__.split(".")[0], "mse": float(r),
                      "expected": float(np.mean((a - b) ** 2))}))
""")


@pytest.mark.skipif(not CUDA_READY, reason="no CUDA device")
def test_entry_points_cupy_dispatches_to_ndimg_by_default(tmp_path):
    r = _run(tmp_path, None, GPU_SCRIPT)
    assert len(r["notes"]) == 1 and "'ndimg' backend" in r["notes"][0]
    assert r["type"] == "cupy" and r["mse"] == pytest.approx(r["expected"], rel=1e-12)


def test_spatch_toml_describes_the_registry():
    doc = tomllib.loads(backend.spatch_toml())
    assert doc["name"] == "ndimg" and "cupy:ndarray" in doc["primary_types"]
    assert doc["secondary_types"] == ["numpy:ndarray"]
    skimage_entries = {e.reference: e for e in REGISTRY.values() if e.reference.startswith("skimage.")}
    assert set(doc["functions"]) == set(skimage_entries)
    for ref, f in doc["functions"].items():
        assert f["function"] == skimage_entries[ref].impl
    mse = doc["functions"][MSE]["function"]
    mod, fn = mse.split(":")
    import importlib

    assert getattr(importlib.import_module(mod), fn) is REGISTRY["metrics.mean_squared_error"].load()


def _installed():
    from importlib.metadata import PackageNotFoundError, distribution

    import ndimg

    try:
        dist = distribution("ndimg")
    except PackageNotFoundError:
        return None
    # only the installation actually imported (not a stale one shadowed by a source checkout)
    here = Path(ndimg.__file__).resolve()
    return dist if Path(dist.locate_file("ndimg/__init__.py")).resolve() == here else None


@pytest.mark.skipif(_installed() is None, reason="the imported ndimg is not a pip installation")
def test_installed_distribution_registers_the_backend():
    from importlib.metadata import entry_points

    (impl,) = [ep for ep in entry_points(group="skimage_backends") if ep.name == "ndimg"]
    (infos,) = [ep for ep in entry_points(group="skimage_backend_infos") if ep.name == "ndimg"]
    assert impl.load() is backend or impl.load().__name__ == backend.__name__
    assert set(infos.load()().supported_functions) == set(backend.supported_functions())
    from skimage.util._backends import all_backends

    assert "ndimg" in all_backends()

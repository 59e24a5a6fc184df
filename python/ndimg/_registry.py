"""ONE declaration per public function of ndimg.

The Python namespaces (``ndimg.filters``, ``ndimg.ndimage``, ...), the scikit-image backend, the
conformance/unit tests and the benchmarks are all derived from this table. An entry says where the
implementation lives, which scikit-image (or scipy) function it mirrors, which dtypes and
dimensionalities it accepts, which engines run it, and the tolerance of its results against the reference.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field

INTS = ("uint8", "uint16", "uint32", "int8", "int16", "int32", "int64")
FLOATS = ("float32", "float64")
NUMERIC = INTS + FLOATS
ALL = ("bool",) + NUMERIC


@dataclass(frozen=True)
class Case:
    """One call of an entry: keyword arguments plus test-only settings (see ``case``)."""
    kwargs: dict
    inputs: tuple | None = None     # input kinds replacing the entry's (ndimg._cases.KINDS)
    ndim: tuple | None = None       # only at these dimensionalities (e.g. channel_axis cases at 3)
    shape: tuple | None = None      # a fixed input shape instead of the test grid's
    dtype: str | None = None        # a fixed input dtype instead of the entry's dtypes
    prep: object = None             # callable(inputs tuple) -> inputs tuple, after they are made
    id: str = ""
    exc: type | None = None         # bad cases: the exception type the reference raises

    def __repr__(self):
        return self.id or ",".join(f"{k}={v!r}" for k, v in self.kwargs.items()) or "default"


def case(*, _inputs=None, _ndim=None, _shape=None, _dtype=None, _prep=None, _id="", **kwargs):
    """A test case: ``case(sigma=2, mode="wrap")``. Underscored keys are settings, not arguments."""
    return Case(kwargs, _inputs, _ndim, _shape, _dtype, _prep, _id)


def bad(exc, *, _inputs=None, _ndim=None, _shape=None, _dtype=None, _prep=None, _id="", **kwargs):
    """A call the reference refuses with `exc` (ndimg must raise the same type): ``bad(ValueError, sigma=-1)``."""
    return Case(kwargs, _inputs, _ndim, _shape, _dtype, _prep, _id, exc)


@dataclass(frozen=True)
class Entry:
    module: str                 # public ndimg module: "filters", "ndimage", ...
    name: str                   # public name, same as the reference's
    impl: str                   # "module.path:function" of the implementation
    reference: str              # "skimage.filters:gaussian" / "scipy.ndimage:gaussian_filter"
    dtypes: tuple = NUMERIC     # accepted input dtypes (tests draw from these)
    ndim: tuple = (2, 3)        # dimensionalities tested (the function may accept more)
    engines: tuple = ("cpu", "cuda")
    rtol: float = 1e-5          # tolerance against the reference, float results
    atol: float = 1e-6
    # positional array inputs, as kinds that ndimg._cases.make_inputs makes: ("image",), ("image", "noisy"),
    # ("labels", "labels2"), ("mask", "mask2"), ("none",) for generators; "kind:arg" passes a size
    inputs: tuple = ("image",)
    # test cases (``case(...)``) and calls the reference refuses (``bad(Exc, ...)``); tests/test_registry_cases.py
    cases: tuple = (Case({}),)
    bad: tuple = ()
    # benchmark cases: ("shape name", kwargs) over ndimg._cases.SHAPES; empty = not benchmarked
    bench: tuple = ()
    # reviewed differences from the reference: {test class: reason}; the generated test of that class is
    # xfail(strict=True). Classes: the odd inputs ("big_endian_f4", "big_endian_u2", "0d", "float16", "bool",
    # "complex64", "nan", "inf"), "case:<id or repr>" and "bad:<id or repr>".
    known_differences: dict = field(default_factory=dict)
    family: str = ""            # function family, for the NumPy->GPU crossover kept per family
    # "unsupported": {parameter: (values, ...)} that ndimg refuses: the scikit-image backend and
    # ndimg.accelerate leave such calls to scikit-image
    extra: dict = field(default_factory=dict)

    @property
    def qualname(self):
        return f"{self.module}.{self.name}"

    def load(self):
        mod, fn = self.impl.split(":")
        return getattr(importlib.import_module(mod), fn)

    def load_reference(self):
        mod, fn = self.reference.split(":")
        return getattr(importlib.import_module(mod), fn)


REGISTRY: dict[str, Entry] = {}


def register(module, name, impl=None, reference=None, **kw):
    ref_mod = {"ndimage": "scipy.ndimage"}.get(module, f"skimage.{module}")
    e = Entry(module, name, impl or f"ndimg.{module}._{name}:{name}", reference or f"{ref_mod}:{name}", **kw)
    REGISTRY[e.qualname] = e
    return e


def entries(module=None):
    return [e for e in REGISTRY.values() if module is None or e.module == module]


def export(module, namespace):
    """Give a public module its names from the registry, each imported on first use (PEP 562), so that
    ``import ndimg`` stays cheap. Returns the module's ``__getattr__`` and ``__dir__``."""
    table = {e.name: e for e in entries(module)}
    namespace["__all__"] = sorted(table)

    def __getattr__(name):
        e = table.get(name)
        if e is None:
            raise AttributeError(f"module 'ndimg.{module}' has no attribute {name!r}")
        fn = e.load()
        namespace[name] = fn
        return fn

    def __dir__():
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__


# ---------------------------------------------------------------------------------------------------
# ndimg.ndimage: scipy.ndimage's primitives (reference: scipy.ndimage)
# ---------------------------------------------------------------------------------------------------
_S = "ndimg.ndimage._separable"
_R = "ndimg.ndimage._rank"
_C = "ndimg.ndimage._correlate"
register("ndimage", "correlate1d", f"{_S}:correlate1d", dtypes=ALL, ndim=(1, 2, 3))
register("ndimage", "convolve1d", f"{_S}:convolve1d", dtypes=ALL, ndim=(1, 2, 3))
register("ndimage", "gaussian_filter1d", f"{_S}:gaussian_filter1d", dtypes=NUMERIC, ndim=(1, 2, 3))
register("ndimage", "gaussian_filter", f"{_S}:gaussian_filter", dtypes=NUMERIC, family="separable",
         bench=(("2d_f32", dict(sigma=4)), ("3d_f32", dict(sigma=2))))
register("ndimage", "uniform_filter1d", f"{_S}:uniform_filter1d", dtypes=NUMERIC, ndim=(1, 2, 3))
register("ndimage", "uniform_filter", f"{_S}:uniform_filter", dtypes=NUMERIC, family="separable",
         bench=(("2d_f32", dict(size=9)), ("3d_f32", dict(size=9))))
register("ndimage", "sobel", f"{_S}:sobel", dtypes=NUMERIC, family="separable", bench=(("2d_f32", {}),))
register("ndimage", "prewitt", f"{_S}:prewitt", dtypes=NUMERIC, family="separable")
register("ndimage", "laplace", f"{_S}:laplace", dtypes=NUMERIC, family="separable")
register("ndimage", "gaussian_gradient_magnitude", f"{_S}:gaussian_gradient_magnitude", dtypes=NUMERIC,
         family="separable")
register("ndimage", "gaussian_laplace", f"{_S}:gaussian_laplace", dtypes=NUMERIC, family="separable")
register("ndimage", "correlate", f"{_C}:correlate", dtypes=ALL, family="stencil")
register("ndimage", "convolve", f"{_C}:convolve", dtypes=ALL, family="stencil")
register("ndimage", "minimum_filter1d", f"{_R}:minimum_filter1d", dtypes=NUMERIC, ndim=(1, 2, 3))
register("ndimage", "maximum_filter1d", f"{_R}:maximum_filter1d", dtypes=NUMERIC, ndim=(1, 2, 3))
register("ndimage", "minimum_filter", f"{_R}:minimum_filter", dtypes=NUMERIC, family="rank")
register("ndimage", "maximum_filter", f"{_R}:maximum_filter", dtypes=NUMERIC, family="rank")
register("ndimage", "median_filter", f"{_R}:median_filter", dtypes=NUMERIC, family="rank",
         bench=(("2d_f32", dict(size=3)), ("2d_f32", dict(size=5))))
register("ndimage", "rank_filter", f"{_R}:rank_filter", dtypes=NUMERIC, family="rank")
register("ndimage", "percentile_filter", f"{_R}:percentile_filter", dtypes=NUMERIC, family="rank")

# ---------------------------------------------------------------------------------------------------
# ndimg.filters: skimage.filters 0.26 (skimage.filters.rank comes later)
# ---------------------------------------------------------------------------------------------------
_F = "ndimg.filters"
for _name, _file, _kw in [
    ("gaussian", "_gaussian", dict(family="separable", bench=(("2d_f32", dict(sigma=4)), ("3d_f32", dict(sigma=2)),
                                                              ("2d_rgb_u8", dict(sigma=2, channel_axis=-1))))),
    ("difference_of_gaussians", "_gaussian", dict(family="separable")),
    ("sobel", "_edges", dict(family="separable", bench=(("2d_f32", {}),))),
    ("sobel_h", "_edges", dict(ndim=(2,), family="separable")),
    ("sobel_v", "_edges", dict(ndim=(2,), family="separable")),
    ("scharr", "_edges", dict(family="separable")),
    ("scharr_h", "_edges", dict(ndim=(2,), family="separable")),
    ("scharr_v", "_edges", dict(ndim=(2,), family="separable")),
    ("prewitt", "_edges", dict(family="separable")),
    ("prewitt_h", "_edges", dict(ndim=(2,), family="separable")),
    ("prewitt_v", "_edges", dict(ndim=(2,), family="separable")),
    ("roberts", "_stencil_edges", dict(ndim=(2,), family="stencil")),
    ("roberts_pos_diag", "_stencil_edges", dict(ndim=(2,), family="stencil")),
    ("roberts_neg_diag", "_stencil_edges", dict(ndim=(2,), family="stencil")),
    ("farid", "_edges", dict(family="separable")),
    ("farid_h", "_edges", dict(ndim=(2,), family="separable")),
    ("farid_v", "_edges", dict(ndim=(2,), family="separable")),
    ("laplace", "_stencil_edges", dict(family="stencil")),
    # behavior='rank' is skimage.filters.rank.median, not in ndimg yet (scikit-image runs it under acceleration)
    ("median", "_median", dict(family="rank", bench=(("2d_f32", {}),), extra={"unsupported": {"behavior": ("rank",)}})),
    ("unsharp_mask", "_unsharp_mask", dict(family="separable")),
    ("butterworth", "_fft_based", dict(dtypes=ALL, atol=1e-5, family="fft")),
    ("correlate_sparse", "_sparse", dict(family="stencil")),
    ("gabor", "_gabor", dict(ndim=(2,), family="stencil")),
    ("gabor_kernel", "_gabor", dict(ndim=(), engines=("cpu",))),
    # ridges: float32 inputs run the Gaussian derivatives in float (scikit-image/scipy in double), which the
    # second derivatives and eigenvalue ratios amplify; float64 agrees to ~1e-12
    ("hessian", "_ridges", dict(family="separable", dtypes=ALL, rtol=2e-4, atol=2e-5)),
    ("frangi", "_ridges", dict(family="separable", dtypes=ALL, rtol=2e-4, atol=2e-5,
                               bench=(("2d_f32", dict(sigmas=(1, 3))), ("3d_f32", dict(sigmas=(1, 3)))))),
    ("meijering", "_ridges", dict(family="separable", dtypes=ALL, rtol=2e-4, atol=2e-5)),
    ("sato", "_ridges", dict(family="separable", dtypes=ALL, rtol=2e-4, atol=2e-5,
                             bench=(("2d_f32", dict(sigmas=(1, 3))),))),
    ("wiener", "_lpi_filter", dict(ndim=(2,), dtypes=ALL, atol=1e-4, family="fft")),
    ("LPIFilter2D", "_lpi_filter", dict(ndim=(2,), dtypes=ALL, atol=1e-4, family="fft")),
    ("filter_forward", "_lpi_filter", dict(ndim=(2,), dtypes=ALL, atol=1e-4, family="fft")),
    ("filter_inverse", "_lpi_filter", dict(ndim=(2,), dtypes=ALL, atol=1e-4, family="fft")),
    ("window", "_window", dict(ndim=(), engines=("cpu",))),
    ("rank_order", "_rank_order", dict(family="sort")),
    ("apply_hysteresis_threshold", "_thresholding", dict(family="label")),
    ("threshold_isodata", "_thresholding", dict(family="histogram")),
    ("threshold_li", "_thresholding", dict(family="histogram")),
    ("threshold_local", "_thresholding", dict(family="separable")),
    ("threshold_mean", "_thresholding", dict(family="histogram")),
    ("threshold_minimum", "_thresholding", dict(family="histogram")),
    ("threshold_multiotsu", "_thresholding", dict(family="histogram")),
    ("threshold_niblack", "_thresholding", dict(family="separable")),
    ("threshold_otsu", "_thresholding", dict(family="histogram", bench=(("2d_f32", {}),))),
    ("threshold_sauvola", "_thresholding", dict(family="separable")),
    ("threshold_triangle", "_thresholding", dict(family="histogram")),
    ("threshold_yen", "_thresholding", dict(family="histogram")),
    ("try_all_threshold", "_thresholding", dict(ndim=(2,), engines=("cpu",))),
]:
    register("filters", _name, f"{_F}.{_file}:{_name}", **_kw)
del _name, _file, _kw

# ---------------------------------------------------------------------------------------------------
# ndimg.metrics: skimage.metrics 0.26
# ---------------------------------------------------------------------------------------------------
_M = "ndimg.metrics"
for _name, _file, _kw in [
    ("mean_squared_error", "_simple_metrics", dict(dtypes=ALL, family="reduction")),
    ("normalized_root_mse", "_simple_metrics", dict(dtypes=ALL, family="reduction")),
    ("peak_signal_noise_ratio", "_simple_metrics", dict(dtypes=ALL, family="reduction")),
    ("normalized_mutual_information", "_simple_metrics", dict(dtypes=NUMERIC, rtol=1e-7, atol=1e-9,
                                                              family="histogram")),
    ("structural_similarity", "_structural_similarity", dict(dtypes=NUMERIC, rtol=1e-5, atol=1e-5,
                                                              family="separable")),
    ("hausdorff_distance", "_set_metrics", dict(dtypes=ALL, rtol=1e-12, atol=1e-12, family="point_set")),
    ("hausdorff_pair", "_set_metrics", dict(dtypes=ALL, family="point_set")),
    ("contingency_table", "_contingency_table", dict(dtypes=INTS, ndim=(1, 2, 3), family="label_count")),
    ("adapted_rand_error", "_adapted_rand_error", dict(dtypes=INTS, rtol=1e-9, atol=1e-12, family="label_count")),
    ("variation_of_information", "_variation_of_information", dict(dtypes=INTS, rtol=1e-9, atol=1e-12,
                                                                    family="label_count")),
]:
    register("metrics", _name, f"{_M}.{_file}:{_name}", **_kw)
del _name, _file, _kw

# ---------------------------------------------------------------------------------------------------
# NumPy -> GPU crossover per function family, for the scikit-image backend's "gpu" NumPy policy: the
# input size (elements) above which copying NumPy input to the GPU, computing there and copying back is
# faster than the CPU engine. A family absent here (or None) is NOT MEASURED yet: the "gpu" policy then
# keeps that family on the CPU engine. Fill in only from bench/ measurements, stating machine and date.
# ---------------------------------------------------------------------------------------------------
# Measured by bench/dispatch.py on an H100 host (16 cores), 2026-11-22: the smallest size tried is 65536
# elements, so a family at 65536 round-trips at every size measured.
CROSSOVER: dict[str, int | None] = {"histogram": 65536, "label_count": 65536, "rank": 65536,
                                    "reduction": 262144, "separable": 65536}


def gpu_crossover(entry):
    """Elements above which the 'gpu' NumPy policy round-trips through the GPU; None: stay on the CPU."""
    return CROSSOVER.get(entry.family)

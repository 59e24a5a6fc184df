"""regionprops, regionprops_table and the moments family against skimage.measure: what the generated registry
cases cannot say (object properties, label dtypes, the RegionProperties protocol, caching, warnings, the
one-pass tables on many regions, the exact 2-D hull spans, the primitives' argument checks)."""
import pickle
import warnings

import numpy as np
import pytest
import skimage.measure as ref
from scipy import ndimage as ndi

import ndimg.measure as ours
from helpers import to_engine, to_host
from ndimg import _core
from ndimg._cases import KINDS

_OBJECTS = ("image", "image_convex", "image_filled", "image_intensity", "coords", "coords_scaled", "slice")


def _blobs(rng, shape, n):
    return KINDS["blobs"](rng, shape, None, "c", [], str(n))


def _assert_same(x, g, name):
    """One property: objects exactly (arrays, slices), numbers within 1e-7 relative, types alike for scalars."""
    g = to_host(g)
    if name == "slice" or isinstance(x, tuple) and x and isinstance(x[0], slice):
        assert g == x, name
    elif name in _OBJECTS:
        np.testing.assert_array_equal(np.asarray(g), np.asarray(x), err_msg=name)
        assert np.asarray(g).dtype == np.asarray(x).dtype, name
    else:
        # a flat region's minor axis is 4 sqrt(an eigenvalue that cancels to rounding noise, ~eps * the
        # tensor's trace): ~1e-7 on these shapes either side, in any order of the sums
        atol = 1e-6 if name == "axis_minor_length" else 1e-9
        np.testing.assert_allclose(np.asarray(g, float), np.asarray(x, float), rtol=1e-7, atol=atol, err_msg=name)


def _compare_regions(expected, got):
    assert len(got) == len(expected)
    for x, g in zip(expected, got):
        assert g.label == x.label and g.bbox == x.bbox
        for name in x:
            try:
                xv = getattr(x, name)
            except Exception as exc:
                with pytest.raises(type(exc)):
                    getattr(g, name)
                continue
            _assert_same(xv, getattr(g, name), name)


def _quiet(f, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint16", "int32", "uint32", "int64", "uint64"])
def test_label_dtypes_every_property(rng, dtype):
    labels = _blobs(rng, (40, 50), 9).astype(dtype)
    intensity = rng.random((40, 50))
    _compare_regions(_quiet(ref.regionprops, labels, intensity), _quiet(ours.regionprops, labels, intensity))


@pytest.mark.parametrize("shape, channels, spacing", [((48, 40), None, None), ((48, 40), 3, (0.5, 2.0)),
                                                     ((14, 16, 18), None, (1.0, 2.0, 0.5)), ((14, 16, 18), 2, None)])
def test_every_property_with_channels_and_spacing(rng, engine, shape, channels, spacing):
    labels = _blobs(rng, shape, 7)
    intensity = rng.random(shape + ((channels,) if channels else ()))
    expected = _quiet(ref.regionprops, labels, intensity, spacing=spacing)
    got = _quiet(ours.regionprops, to_engine(labels, engine), to_engine(intensity, engine), spacing=spacing)
    _compare_regions(expected, got)


def test_table_object_columns_and_offset(rng):
    labels = _blobs(rng, (30, 36), 6)
    intensity = rng.random((30, 36))
    props = ("label", "image", "image_convex", "image_filled", "image_intensity", "coords", "coords_scaled", "slice")
    x = ref.regionprops_table(labels, intensity, props, spacing=(1.5, 1.0))
    g = ours.regionprops_table(labels, intensity, props, spacing=(1.5, 1.0))
    assert list(g) == list(x)
    for k in x:
        assert g[k].dtype == x[k].dtype, k
        for a, b in zip(x[k], g[k]):
            _assert_same(a, b, "slice" if k == "slice" else "image")
    xr, gr = ref.regionprops(labels, offset=(5, -3)), ours.regionprops(labels, offset=(5, -3))
    for a, b in zip(xr, gr):
        np.testing.assert_array_equal(b.coords, a.coords)
        np.testing.assert_allclose(b.centroid, a.centroid)


def test_table_many_regions_bench_properties(rng):
    """The benchmark's ten properties (deprecated names included) on 800 regions: one table pass."""
    labels = _blobs(rng, (512, 384), 800)
    intensity = rng.random((512, 384)).astype(np.float32)
    props = ("label", "area", "bbox", "centroid", "eccentricity", "orientation", "major_axis_length",
             "minor_axis_length", "intensity_mean", "solidity")
    x = _quiet(ref.regionprops_table, labels, intensity, props)
    g = _quiet(ours.regionprops_table, labels, intensity, props)
    assert list(g) == list(x)
    for k in x:
        assert g[k].dtype == x[k].dtype, k
        np.testing.assert_allclose(g[k], x[k], rtol=1e-6, atol=1e-9, err_msg=k)


def test_table_separator_extra_properties_and_no_regions(rng):
    labels = _blobs(rng, (24, 30), 5)
    intensity = rng.random((24, 30, 3))

    def quartiles(mask, img):
        return np.percentile(img[mask], q=(25, 50, 75))

    def rows(mask):
        return mask.any(axis=1).sum()

    for lab in (labels, np.zeros_like(labels)):
        kw = dict(properties=("label", "centroid_weighted", "inertia_tensor"), separator="::",
                  extra_properties=(quartiles, rows))
        x, g = ref.regionprops_table(lab, intensity, **kw), ours.regionprops_table(lab, intensity, **kw)
        assert list(g) == list(x)
        for k in x:
            assert g[k].dtype == x[k].dtype and g[k].shape == x[k].shape, k
            np.testing.assert_allclose(g[k], x[k], rtol=1e-9, atol=1e-12, err_msg=k)


def test_region_protocol():
    labels = np.zeros((10, 12), np.int32)
    labels[2:6, 3:9] = 3
    labels[7:9, 1:4] = 5
    intensity = np.arange(120, dtype=float).reshape(10, 12)
    x, g = ref.regionprops(labels, intensity), ours.regionprops(labels, intensity)
    assert repr(g[0]) == repr(x[0])
    assert list(g[0]) == list(x[0])
    assert g[0] == g[0] and not g[0] == g[1] and not g[0] == 3
    with pytest.warns(FutureWarning, match="deprecated"):
        assert g[0]["mean_intensity"] == x[0]["intensity_mean"]
    with pytest.warns(FutureWarning, match="deprecated"):
        assert g[1].bbox_area == x[1].area_bbox
    assert g[0]["Area"] == x[0].area  # CamelCase names: items only, warned
    with pytest.raises(AttributeError, match="unavailable"):
        ours.regionprops(labels)[0].intensity_mean
    with pytest.raises(AttributeError):
        g[0].not_a_property
    again = pickle.loads(pickle.dumps(g[0]))
    assert again.area == g[0].area and again.label == 3
    # a region made by hand has its own one-region tables
    from ndimg.measure._regionprops import RegionProperties

    r = RegionProperties((slice(2, 6), slice(3, 9)), 3, labels, intensity, True)
    assert r.area == 24 and r.intensity_mean == x[0].intensity_mean


def test_extra_property_shadowing_warns_and_intensity_required():
    labels = np.zeros((6, 6), np.uint8)
    labels[1:4, 1:5] = 1

    def area(mask):
        return 0

    def needs_intensity(mask, img):
        return 1

    with pytest.warns(UserWarning, match="shadowed"):
        r = ours.regionprops(labels, extra_properties=(area,))[0]
    assert r.area == 12
    r = ours.regionprops(labels, extra_properties=(needs_intensity,))[0]
    with pytest.raises(AttributeError, match="intensity image required"):
        r.needs_intensity


def test_cache_off_reads_the_label_image_again():
    labels = np.zeros((12, 12), np.int32)
    labels[2:9, 2:9] = 1
    labels[4:6, 4:6] = 0
    region = ours.regionprops(labels.copy())[0]
    f0 = region.image_filled
    region._label_image[2:9, 2:5] = 0
    np.testing.assert_array_equal(region.image_filled, f0)
    region._cache_active = False
    assert np.any(region.image_filled != f0)


@pytest.mark.parametrize("seed", range(6))
def test_hull_spans_exact_on_random_masks(seed):
    """The exact 2-D hull against scikit-image's convex_hull_image (Qhull, tolerance) of random masks."""
    from skimage.morphology import convex_hull_image

    rng = np.random.default_rng(seed)
    for shape in ((1, 1), (1, 7), (9, 1), (13, 17), (31, 8)):
        mask = rng.random(shape) < rng.uniform(0.05, 0.5)
        if not mask.any():
            mask[shape[0] // 2, shape[1] // 2] = True
        labels = mask.astype(np.int32)
        x = ref.regionprops(labels)[0]
        g = ours.regionprops(labels)[0]
        np.testing.assert_array_equal(g.image_convex, convex_hull_image(x.image))
        assert g.area_convex == x.area_convex and g.solidity == x.solidity
        assert ours.regionprops_table(labels, properties=("area_convex",))["area_convex"][0] == x.area_convex


def test_feret_and_convex_3d(rng):
    labels = _blobs(rng, (16, 18, 20), 4)
    x, g = ref.regionprops(labels), ours.regionprops(labels)
    for a, b in zip(x, g):
        np.testing.assert_array_equal(b.image_convex, a.image_convex)
        np.testing.assert_allclose(b.feret_diameter_max, a.feret_diameter_max, rtol=1e-12)


def test_orientation_of_symmetric_regions():
    """mu11 is 0 up to rounding for regions symmetric about an axis: the sign scikit-image's sums give."""
    labels = np.zeros((40, 40), np.int32)
    labels[5:8, 2:30] = 1          # a line-like bar: mu11 exactly 0
    labels[12:25, 10:13] = 2
    yy, xx = np.mgrid[:40, :40]
    labels[(yy - 31) ** 2 / 16 + (xx - 25) ** 2 / 49 <= 1] = 3   # an axis-aligned ellipse
    for lab in (labels, labels.T.copy()):
        x = ref.regionprops_table(lab, properties=("orientation", "eccentricity", "inertia_tensor"))
        g = ours.regionprops_table(lab, properties=("orientation", "eccentricity", "inertia_tensor"))
        for k in x:
            np.testing.assert_allclose(g[k], x[k], rtol=1e-9, atol=1e-12, err_msg=k)


def test_nonfinite_intensity_like_scikit_image(rng):
    labels = _blobs(rng, (30, 30), 6)
    intensity = rng.random((30, 30))
    intensity[::7, ::5] = np.nan
    intensity[3, 3] = np.inf
    intensity[20, 11] = 1e308
    props = ("intensity_max", "intensity_min", "intensity_mean", "intensity_std", "intensity_median",
             "moments_weighted", "moments_weighted_central", "centroid_weighted")
    x = _quiet(ref.regionprops_table, labels, intensity, props)
    g = _quiet(ours.regionprops_table, labels, intensity, props)
    for k in x:
        # first-order central moments are 0 up to rounding (~1e-16 either side): an absolute allowance there
        atol = 1e-9 if "central" in k else 0
        np.testing.assert_allclose(g[k], x[k], rtol=1e-7, atol=atol, equal_nan=True, err_msg=k)


def test_errors_like_scikit_image(rng):
    labels = _blobs(rng, (12, 14), 3)
    for call in (lambda m: m.regionprops(labels.astype(float)),
                 lambda m: m.regionprops(labels > 0),
                 lambda m: m.regionprops(labels[0]),
                 lambda m: m.regionprops(labels, np.zeros((12, 13))),
                 lambda m: m.regionprops(labels, offset=(1, 2, 3)),
                 lambda m: m.regionprops(labels, spacing=(1, np.inf)),
                 lambda m: m.regionprops(labels, spacing=(1, "a")),
                 lambda m: m.regionprops_table(labels[None], properties=("eccentricity",)),
                 lambda m: m.regionprops_table(labels, properties=("perimeter",), spacing=(1, 2)),
                 lambda m: m.regionprops_table(labels, properties=("nope",)),
                 lambda m: m.euler_number(np.ones((3, 3, 3)), connectivity=2),
                 lambda m: m.perimeter(np.ones((3, 3, 3))),
                 lambda m: m.moments_normalized(np.ones((3, 3)), order=3),
                 lambda m: m.moments_hu(np.ones((4, 4, 4)))):
        with pytest.raises(Exception) as expected:
            call(ref)
        with pytest.raises(expected.type):
            call(ours)


def test_dask_regionprops_refused(rng):
    """regionprops' region objects hold the whole image: Dask input is refused (regionprops_table takes it,
    tests/measure/test_regionprops_dask.py)."""
    da = pytest.importorskip("dask.array")
    labels = da.from_array(_blobs(rng, (20, 20), 3), chunks=10)
    with pytest.raises(NotImplementedError, match="Dask"):
        ours.regionprops(labels)


def test_primitives_refuse_bad_arguments():
    slots = np.zeros((4, 5), np.int32)
    out = np.zeros((1, 16))
    z = np.zeros((1, 2))
    with pytest.raises(ValueError):   # order too high for the table
        _core.measure_label_moments(np.empty(0), slots, np.zeros((1, 2), np.int64), z, np.ones(2), 9, out)
    with pytest.raises(ValueError):   # origin of the wrong dtype
        _core.measure_label_moments(np.empty(0), slots, z, z, np.ones(2), 3, out)
    with pytest.raises(ValueError):   # a box beyond the image
        _core.measure_hull_spans(slots, np.array([[0, 0, 9, 5]], np.int64), np.zeros(1, np.int64),
                                 np.zeros((9, 2), np.int64))
    with pytest.raises(ValueError):   # rows beyond spans
        _core.measure_hull_spans(slots, np.array([[0, 0, 4, 5]], np.int64), np.zeros(1, np.int64),
                                 np.zeros((2, 2), np.int64))


def test_label_moments_match_crop_moments(rng):
    """The one-pass per-label moments against scikit-image's moments of each region's crop."""
    labels = ndi.label(rng.random((60, 70)) > 0.6)[0]
    w = rng.random((60, 70))
    boxes = ndi.find_objects(labels)
    n = len(boxes)
    origin = np.array([[s.start for s in b] for b in boxes], np.int64)
    out = np.zeros((n, 16))
    _core.measure_label_moments(w, (labels - 1).astype(np.int32), origin, np.zeros((n, 2)), np.array([1.0, 2.0]),
                                3, out)
    for i, b in enumerate(boxes):
        x = ref.moments((labels[b] == i + 1) * w[b], 3, spacing=(1.0, 2.0))
        np.testing.assert_allclose(out[i].reshape(4, 4), x, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("nd", [2, 3])
def test_moments_family_float32_bitwise(rng, nd):
    """float32 images: the same sums in the same order and types as scikit-image (bitwise)."""
    img = rng.random((17, 23) if nd == 2 else (7, 9, 11)).astype(np.float32)
    for f, kw in (("moments", {}), ("moments_central", {}), ("moments_central", dict(order=4)),
                  ("centroid", {}), ("inertia_tensor", {})):
        x, g = getattr(ref, f)(img, **kw), getattr(ours, f)(img, **kw)
        assert g.dtype == x.dtype
        np.testing.assert_array_equal(g, x)


def test_euler_and_perimeters_on_random_masks(rng):
    for _ in range(5):
        m2 = rng.random((25, 31)) > 0.5
        m3 = rng.random((9, 10, 11)) > 0.6
        for c in (1, 2):
            assert ours.euler_number(m2, c) == ref.euler_number(m2, c)
        for c in (1, 3):
            assert ours.euler_number(m3, c) == ref.euler_number(m3, c)
        for nb in (4, 8):
            assert ours.perimeter(m2, nb) == pytest.approx(ref.perimeter(m2, nb), rel=1e-12)
        for d in (2, 4):
            assert ours.perimeter_crofton(m2, d) == pytest.approx(ref.perimeter_crofton(m2, d), rel=1e-12)
    # not masks: scikit-image's uint8 arithmetic (a histogram longer than its weights fails)
    grey = np.zeros((6, 6), np.uint8)
    grey[2:4, 2:4] = 2
    assert ours.perimeter(grey) == ref.perimeter(grey)
    grey = (rng.random((12, 13)) * 3).astype(np.uint8)
    with pytest.raises(ValueError):
        ref.perimeter(grey)
    with pytest.raises(ValueError):
        ours.perimeter(grey)

"""skimage.measure.regionprops and regionprops_table (skimage/measure/_regionprops.py) on the ndimg engines.

Every numeric property of every region comes from per-label tables computed once per label image, on first
use, for all regions together (a ``_Regions`` batch): bounding boxes from find_objects, raw and central
moments (plain and intensity-weighted, up to order 3) from one pass each of ``_core.measure_label_moments``,
the intensity statistics from the label-indexed reductions of ndimg.ndimage, the Euler number and the
perimeters from per-label sums of local-configuration weights; everything derived from them (inertia tensor,
its eigenvalues, axes, eccentricity, orientation, normalised and Hu moments) is vectorised over the regions.
Only the geometry that needs a region's own pixels (convex image, solidity, Feret diameter, filled image,
coordinates) works on the region's crop, lazily. ``regionprops`` returns lazy RegionProperties reading these
tables; ``regionprops_table`` takes whole columns, with no loop over regions for the tabled properties.
"""
from __future__ import annotations

import inspect
from math import pi
from warnings import warn

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of
from ..ndimage import _measurements as _meas
from .._prim import label as _lab
from . import _moments as _mom
from . import _regionprops_utils as _utils

__all__ = ["regionprops", "regionprops_table", "RegionProperties"]

# deprecated names (keys) scikit-image 0.26 still accepts, and the current ones
PROPS = {
    "Area": "area", "BoundingBox": "bbox", "BoundingBoxArea": "area_bbox", "bbox_area": "area_bbox",
    "CentralMoments": "moments_central", "Centroid": "centroid", "ConvexArea": "area_convex",
    "convex_area": "area_convex", "ConvexImage": "image_convex", "convex_image": "image_convex",
    "Coordinates": "coords", "Eccentricity": "eccentricity", "EquivDiameter": "equivalent_diameter_area",
    "equivalent_diameter": "equivalent_diameter_area", "EulerNumber": "euler_number", "Extent": "extent",
    "FeretDiameter": "feret_diameter_max", "FeretDiameterMax": "feret_diameter_max", "FilledArea": "area_filled",
    "filled_area": "area_filled", "FilledImage": "image_filled", "filled_image": "image_filled",
    "HuMoments": "moments_hu", "Image": "image", "InertiaTensor": "inertia_tensor",
    "InertiaTensorEigvals": "inertia_tensor_eigvals", "IntensityImage": "image_intensity",
    "intensity_image": "image_intensity", "Label": "label", "LocalCentroid": "centroid_local",
    "local_centroid": "centroid_local", "MajorAxisLength": "axis_major_length",
    "major_axis_length": "axis_major_length", "MaxIntensity": "intensity_max", "max_intensity": "intensity_max",
    "MeanIntensity": "intensity_mean", "mean_intensity": "intensity_mean", "MinIntensity": "intensity_min",
    "min_intensity": "intensity_min", "std_intensity": "intensity_std", "MinorAxisLength": "axis_minor_length",
    "minor_axis_length": "axis_minor_length", "Moments": "moments", "NormalizedMoments": "moments_normalized",
    "Orientation": "orientation", "Perimeter": "perimeter", "CroftonPerimeter": "perimeter_crofton",
    "Slice": "slice", "Solidity": "solidity", "WeightedCentralMoments": "moments_weighted_central",
    "weighted_moments_central": "moments_weighted_central", "WeightedCentroid": "centroid_weighted",
    "weighted_centroid": "centroid_weighted", "WeightedHuMoments": "moments_weighted_hu",
    "weighted_moments_hu": "moments_weighted_hu", "WeightedLocalCentroid": "centroid_weighted_local",
    "weighted_local_centroid": "centroid_weighted_local", "WeightedMoments": "moments_weighted",
    "weighted_moments": "moments_weighted", "WeightedNormalizedMoments": "moments_weighted_normalized",
    "weighted_moments_normalized": "moments_weighted_normalized",
}

_INT_COLUMNS = ("bbox", "euler_number", "label", "num_pixels")
OBJECT_COLUMNS = ["coords", "coords_scaled", "image", "image_convex", "image_filled", "image_intensity", "slice"]
COL_DTYPES = {name: (int if name in _INT_COLUMNS else object if name in OBJECT_COLUMNS else float) for name in (
    "area", "area_bbox", "area_convex", "area_filled", "axis_major_length", "axis_minor_length", "bbox", "centroid",
    "centroid_local", "centroid_weighted", "centroid_weighted_local", "coords", "coords_scaled", "eccentricity",
    "equivalent_diameter_area", "euler_number", "extent", "feret_diameter_max", "image", "image_convex",
    "image_filled", "image_intensity", "inertia_tensor", "inertia_tensor_eigvals", "intensity_max",
    "intensity_mean", "intensity_median", "intensity_min", "intensity_std", "label", "moments", "moments_central",
    "moments_hu", "moments_normalized", "moments_weighted", "moments_weighted_central", "moments_weighted_hu",
    "moments_weighted_normalized", "num_pixels", "orientation", "perimeter", "perimeter_crofton", "slice",
    "solidity")}
PROP_VALS = set(PROPS.values())
_require_intensity_image = (
    "image_intensity", "intensity_max", "intensity_mean", "intensity_median", "intensity_min", "intensity_std",
    "moments_weighted", "moments_weighted_central", "centroid_weighted", "centroid_weighted_local",
    "moments_weighted_hu", "moments_weighted_normalized",
)
_ONLY_2D = ("eccentricity", "moments_hu", "orientation", "perimeter", "perimeter_crofton", "moments_weighted_hu")
_ORDER = 3   # regionprops' moments


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _n_required_args(func):
    spec = inspect.getfullargspec(func)
    return len(spec.args) - (len(spec.defaults) if spec.defaults else 0)


def _extra_dtype(func, *, intensity, ndim):
    """An extra property's column dtype: its result's when it has one shape for a 1-pixel and an 8-pixel
    sample region (scikit-image's inference), object otherwise."""
    small = np.pad(np.ones((1,) * ndim, bool), (0, 1))
    large = np.pad(np.ones((2,) * ndim, bool), (1, 0))
    rng = np.random.default_rng()
    call = (lambda m: func(m, rng.random(m.shape))) if intensity and _n_required_args(func) == 2 else func
    a, b = call(small), call(large)
    if np.isscalar(a) and np.isscalar(b) or np.array(a).shape == np.array(b).shape:
        return np.array(a).dtype.type
    return np.object_


# ---------------------------------------------------------------------------------------------------
# per-region pixel geometry (crops)
# ---------------------------------------------------------------------------------------------------

def _diamond(ndim):
    """The 2 * ndim midpoints of a pixel's faces, relative to its centre."""
    off = np.zeros((2 * ndim, ndim))
    for k in range(2 * ndim):
        off[k, k // 2] = -0.5 if k % 2 == 0 else 0.5
    return off


def _hull(points):
    from scipy.spatial import ConvexHull

    return ConvexHull(points)


def hull_spans(slots, starts, stops):
    """The column span [lo, hi] of each 2-D region's convex hull image (scikit-image's convex_hull_image of
    the region's crop) on each row of its box, for all regions at once (region i: slot i): spans (rows, 2)
    int64 and the first row of each region in it."""
    xp = xp_of(slots)
    heights = (stops[:, 0] - starts[:, 0]).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(heights)[:-1]]).astype(np.int64)
    spans = xp.empty((int(heights.sum()), 2), np.int64)
    boxes = np.ascontiguousarray(np.concatenate([starts, stops], axis=1), dtype=np.int64)
    _core.measure_hull_spans(xp.ascontiguousarray(slots), xp.asarray(boxes), xp.asarray(offsets), spans,
                             stream=stream_ptr(spans))
    return spans, offsets


def _spans_image(spans, c0, c1):
    xp = xp_of(spans)
    cols = xp.arange(c0, c1)
    return (cols >= spans[:, :1]) & (cols <= spans[:, 1:])


def convex_image(mask):
    """scikit-image's convex_hull_image of a bool mask (the pixel centres on or in the hull of its pixels'
    face midpoints); with its warnings and empty results. 2-D: exact, by hull_spans; 3-D: Qhull's facets
    with a 1e-10 tolerance (host)."""
    from scipy.spatial import QhullError

    nd = mask.ndim
    if not mask.any():
        warn("Input image is entirely zero, no valid convex hull. Returning empty image", UserWarning)
        return xp_of(mask).zeros(mask.shape, bool)
    if nd == 2:
        xp = xp_of(mask)
        slots = xp.where(mask, 0, -1).astype(np.int32)
        spans, _ = hull_spans(slots, np.zeros((1, 2), np.int64), np.array([mask.shape], np.int64))
        return _spans_image(spans, 0, mask.shape[1])
    xp, mask = xp_of(mask), _host(mask)
    # the first and last voxel of each line hold every vertex of the voxels' hull (and so of its sum with the
    # face midpoints); voxels in one plane have no 3-D hull (scikit-image: Qhull fails, an empty image)
    lines = np.argwhere(mask.any(axis=-1))
    sub = mask[tuple(lines.T)]
    first, last = sub.argmax(axis=1), mask.shape[-1] - 1 - sub[:, ::-1].argmax(axis=1)
    coords = np.concatenate([np.column_stack([lines, first]), np.column_stack([lines, last])])
    if len(coords) <= nd or np.linalg.matrix_rank(coords - coords[0]) < nd:
        warn("Failed to get convex hull image. Returning empty image, see error message below:\n"
             "the region's voxels lie in one plane (no 3-D hull)")
        return xp.zeros(mask.shape, bool)
    try:
        hull = _hull(_unique_points((coords[:, None, :] + _diamond(nd)).reshape(-1, nd), mask.shape))
    except QhullError as err:
        warn(f"Failed to get convex hull image. Returning empty image, see error message below:\n{err}")
        return xp.zeros(mask.shape, bool)
    return xp.asarray(_inside(hull.equations, mask.shape))   # Qhull is host code: the caller's array type


def _unique_points(pts, shape):
    """The distinct points (half-integer coordinates within one of `shape`), by an integer key per point:
    repeated points can make Qhull fail; numpy.unique over rows sorts 10x slower."""
    twice = np.rint(2 * pts).astype(np.int64) + 1
    key = np.ravel_multi_index(tuple(twice.T), tuple(2 * s + 2 for s in shape))
    return pts[np.unique(key, return_index=True)[1]]


def _inside(eq, shape, tol=1e-10):
    """The grid points p of `shape` with eq[:, :nd] . p + eq[:, nd] < tol for every facet: along each line of
    the last axis an interval, bounded by the facets' crossings (facets x lines, not x points)."""
    nd = len(shape)
    lead = np.indices(shape[:-1]).reshape(nd - 1, -1).astype(np.float64)
    rest = eq[:, :nd - 1] @ lead + eq[:, nd:]            # (facets, lines): all but the last axis' term
    a = eq[:, nd - 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = (tol - rest) / a[:, None]                  # x < bound (a > 0), x > bound (a < 0)
    hi = np.min(np.where(a[:, None] > 0, bound, np.inf), axis=0, initial=np.inf)
    lo = np.max(np.where(a[:, None] < 0, bound, -np.inf), axis=0, initial=-np.inf)
    flat = a == 0
    ok = np.all(rest[flat] < tol, axis=0) if flat.any() else np.ones(lead.shape[1], bool)
    first = np.clip(np.floor(lo) + 1, 0, shape[-1])
    last = np.clip(np.ceil(hi) - 1, -1, shape[-1] - 1)
    x = np.arange(shape[-1])
    inside = ok[:, None] & (x >= first[:, None]) & (x <= last[:, None])
    return inside.reshape(shape)


def feret_max(convex, spacing):
    """The largest distance between the points of the 0.5 iso-contour (2-D) or iso-surface (3-D) of a convex
    image padded by 2: those points are the midpoints between each pixel of the image and its outside
    face-neighbours, so the largest distance is between vertices of their hull."""
    from scipy.spatial import QhullError
    from scipy.spatial.distance import pdist

    img = np.pad(convex, 2)
    pts = []
    for axis in range(img.ndim):
        lo = img[tuple(slice(None, -1) if d == axis else slice(None) for d in range(img.ndim))]
        hi = img[tuple(slice(1, None) if d == axis else slice(None) for d in range(img.ndim))]
        edge = np.argwhere(lo != hi).astype(np.float64)
        edge[:, axis] += 0.5
        pts.append(edge)
    pts = np.concatenate(pts) * np.asarray(spacing, np.float64)
    if len(pts) > 3 * img.ndim:
        try:
            pts = pts[_hull(pts).vertices]
        except QhullError:
            pass
    return float(np.sqrt(np.max(pdist(pts, "sqeuclidean"))))


# ---------------------------------------------------------------------------------------------------
# the batch: per-label tables of one label image
# ---------------------------------------------------------------------------------------------------

class _Regions:
    """The regions of one label image (labels: host int64, starts/stops: host (n, ndim) boxes) and their
    property columns, each computed for all regions on first use (xp arrays, leading axis: region)."""

    def __init__(self, label_image, intensity_image, labels, starts, stops, spacing, offset, multichannel):
        self.label_image, self.intensity_image = label_image, intensity_image
        self.labels, self.starts, self.stops = labels, starts, stops
        self.spacing = np.asarray(spacing, np.float64)
        self.offset = offset
        self.multichannel = multichannel
        self.ndim = label_image.ndim
        self.n = len(labels)
        self._cols, self._host_cols, self._slots = {}, {}, None

    # ---- plumbing ----
    @property
    def xp(self):   # not kept: regions pickle
        return xp_of(self.label_image)

    def slots(self):
        """int32 slot image: the region index of each element, -1 elsewhere."""
        if self._slots is None:
            xp, labels = self.xp, self.label_image
            lo, hi = int(self.labels.min()), int(self.labels.max())
            if hi - lo < 4 * self.n + (1 << 16):
                kind, table = _core.SlotMap.dense, np.full(hi - lo + 1, -1, np.int32)
                table[self.labels - lo] = np.arange(self.n, dtype=np.int32)
            else:   # sparse labels: the sorted labels as keys
                kind, table, lo = _core.SlotMap.sorted, self.labels.astype(np.int64), 0
            out = xp.empty(labels.shape, np.int32)
            _core.measure_slots(labels.astype(_meas.labels_dtype(labels), copy=False), kind, lo, xp.asarray(table),
                                out, stream=stream_ptr(out))
            self._slots = out
        return self._slots

    def column(self, name):
        if name not in self._cols:
            self._cols[name] = getattr(self, "_c_" + name)()
        return self._cols[name]

    def host(self, name):
        if name not in self._host_cols:
            col = self.column(name)
            self._host_cols[name] = col if isinstance(col, list) else _host(col)
        return self._host_cols[name]

    def _label_moments(self, weights, center):
        xp = self.xp
        out = xp.zeros((self.n, (_ORDER + 1) ** self.ndim), np.float64)
        origin = xp.asarray(self.starts.astype(np.int64))
        if weights is not None and weights.dtype == np.float16:
            weights = weights.astype(np.float32)
        _core.measure_label_moments(weights if weights is not None else xp.empty(0, np.float64), self.slots(),
                                    origin, xp.ascontiguousarray(center, dtype=np.float64),
                                    xp.asarray(self.spacing), _ORDER, out, stream=stream_ptr(out))
        return out.reshape((self.n,) + (_ORDER + 1,) * self.ndim)

    def _channels(self):
        img = self.intensity_image
        return [img[..., c] for c in range(img.shape[-1])] if self.multichannel else [img]

    def _per_channel(self, f):
        cols = [f(ch, c) for c, ch in enumerate(self._channels())]
        return self.xp.stack(cols, axis=-1) if self.multichannel else cols[0]

    def _unit(self, m):
        """[m[:, e_d] / m[:, 0]] for each axis d: (n, ndim) (plus the channel axis of weighted moments)."""
        nd = self.ndim
        m0 = m[(slice(None),) + (0,) * nd]
        return self.xp.stack([m[(slice(None),) + tuple(int(a == d) for a in range(nd))] / m0 for d in range(nd)],
                             axis=1)

    # ---- moments and what derives from them ----
    def _c_moments(self):
        return self._label_moments(None, self.xp.zeros((self.n, self.ndim)))

    def _c_num_pixels(self):
        return self.column("moments")[(slice(None),) + (0,) * self.ndim].astype(np.int64)

    def _c_area(self):
        return self.column("num_pixels") * np.prod(self.spacing)

    def _c_label(self):
        return self.xp.asarray(self.labels)

    def _c_bbox(self):
        return self.xp.asarray(np.concatenate([self.starts, self.stops], axis=1))

    def _c_area_bbox(self):
        return self.xp.asarray(np.prod(self.stops - self.starts, axis=1) * np.prod(self.spacing))

    def _c_centroid_local(self):
        return self._unit(self.column("moments"))

    def _c_centroid(self):
        xp = self.xp
        return xp.asarray(self.starts * self.spacing + self.offset) + self.column("centroid_local")

    def _c_moments_central(self):
        return self._label_moments(None, self.column("centroid_local"))

    def _c_moments_normalized(self):
        return _mom.normalized(self.column("moments_central"), _ORDER, self.spacing, lead=1)

    def _c_moments_hu(self):
        return _mom.hu(self.column("moments_normalized"), lead=1)

    def _c_inertia_tensor(self):
        return _mom.tensor(self.column("moments_central"), self.ndim, lead=1)

    def _c_inertia_tensor_eigvals(self):
        return _mom.eigvals_desc(self.column("inertia_tensor"))

    def _c_eccentricity(self):
        xp = self.xp
        ev = self.column("inertia_tensor_eigvals")
        l1, l2 = ev[:, 0], ev[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            return xp.where(l1 == 0, 0.0, xp.sqrt(xp.maximum(1 - l2 / xp.where(l1 == 0, 1, l1), 0)))

    def _c_orientation(self):
        xp = self.xp
        t = self.column("inertia_tensor")
        a, b, c = t[:, 0, 0], t[:, 0, 1], t[:, 1, 1]
        # A region symmetric about an axis has mu11 = 0 up to rounding, and where c <= a the sign of that noise
        # picks +pi/2 or -pi/2: for those few regions the tensor as scikit-image sums it, over the region's crop.
        odd = np.flatnonzero(_host((xp.abs(b) <= 1e-12 * (xp.abs(a) + xp.abs(c))) & (c <= a)))
        if odd.size:
            # patched on the host: the sign of a zero b picks the angle, and CuPy writes a scalar -0.0 into an
            # element as +0.0 (fill's memset for values == 0)
            a, b, c = (_host(v).copy() for v in (a, b, c))
            for i in odd.tolist():
                crop = self.crop(i).astype(np.uint8)
                m = _mom._moments_about(crop, (0, 0), _ORDER, self.spacing)
                ctr = np.asarray([m[1, 0] / m[0, 0], m[0, 1] / m[0, 0]])
                ti = _mom.tensor(_mom._moments_about(crop, ctr, _ORDER, self.spacing), 2)
                a[i], b[i], c[i] = ti[0, 0], ti[0, 1], ti[1, 1]
            a, b, c = (xp.asarray(v) for v in (a, b, c))
        diag = xp.where(b < 0, pi / 4.0, -pi / 4.0)
        return xp.where(a - c == 0, diag, 0.5 * xp.arctan2(-2 * b, c - a))

    def _c_axis_major_length(self):
        xp = self.xp
        ev = self.column("inertia_tensor_eigvals")
        if self.ndim == 2:
            return 4 * xp.sqrt(ev[:, 0])
        return xp.sqrt(xp.maximum(0, 10 * (ev[:, 0] + ev[:, 1] - ev[:, 2])))

    def _c_axis_minor_length(self):
        xp = self.xp
        ev = self.column("inertia_tensor_eigvals")
        if self.ndim == 2:
            return 4 * xp.sqrt(ev[:, -1])
        return xp.sqrt(xp.maximum(0, 10 * (-ev[:, 0] + ev[:, 1] + ev[:, 2])))

    def _c_equivalent_diameter_area(self):
        return (2 * self.ndim * self.column("area") / pi) ** (1 / self.ndim)

    def _c_extent(self):
        return self.column("area") / self.column("area_bbox")

    # ---- local-configuration sums ----
    def _region_ids(self):
        return self.slots().astype(np.int64) + 1

    def _c_euler_number(self):
        return _utils.euler_per_label(self._region_ids(), self.n, self.ndim)

    def _c_perimeter(self):
        return _utils.perimeter_per_label(self._region_ids(), self.n, 4) * self.spacing[0]

    def _c_perimeter_crofton(self):
        return _utils.crofton_per_label(self._region_ids(), self.n, 4) * self.spacing[0]

    # ---- intensity ----
    def _groups(self, ch):
        ch = _meas.as_real(ch)
        return _meas.Groups(ch, self.slots(), self.n, np.arange(self.n), False, ch.dtype)

    def _stat_dtype(self):
        """numpy.mean's dtype for the intensity dtype (float32 stays float32)."""
        return np.mean(np.zeros(1, self.intensity_image.dtype)).dtype

    def _extreme(self, which):
        xp = self.xp

        def one(ch, _):
            g = self._groups(ch)
            mins, maxs, _a, _b, nans, _c = _meas.extrema_tables(g)
            v = (mins if which == "min" else maxs).astype(np.float64)
            return xp.where(nans > 0, np.nan, v)

        return self._per_channel(one)

    def _c_intensity_min(self):
        return self._extreme("min")

    def _c_intensity_max(self):
        return self._extreme("max")

    def _numpy_per_region(self, ch, f):
        """f(the region's values) per region with NumPy's own reductions (float16 intensity: NumPy rounds its
        steps to float16, which one float64 pass cannot reproduce)."""
        return self.xp.asarray(np.array([f(_host(ch[sl])[self.crop(i)]) for i, sl in enumerate(self._slices())],
                                        np.float64))

    def _slices(self):
        return [tuple(slice(int(a), int(b)) for a, b in zip(lo, hi)) for lo, hi in zip(self.starts, self.stops)]

    def _c_intensity_mean(self):
        dt = self._stat_dtype()

        def one(ch, _):
            if ch.dtype == np.float16:
                return self._numpy_per_region(ch, np.mean)
            counts, sums, _i = _meas.moments(self._groups(ch))
            return (sums / counts).astype(dt).astype(np.float64)

        return self._per_channel(one)

    def _c_intensity_std(self):
        xp, dt = self.xp, self._stat_dtype()

        def one(ch, _):
            if ch.dtype == np.float16:
                return self._numpy_per_region(ch, np.std)
            g = self._groups(ch)
            counts, sums, _i = _meas.moments(g)
            sq = _meas.centered(g, _meas.means_of(counts, sums))
            return xp.sqrt(sq / counts).astype(dt).astype(np.float64)

        return self._per_channel(one)

    def _c_intensity_median(self):
        xp = self.xp

        def one(ch, _):
            g = self._groups(ch)
            if xp is np:
                out = np.zeros(self.n, np.float32 if g.input.dtype == np.float32 else np.float64)
                _core.measure_median(g.input, g.slots, out, True)
            else:
                out, nan = _meas._median_sorted(g, _meas.moments(g)[0])
                out = xp.where(nan, np.nan, out)
            return out.astype(self._stat_dtype()).astype(np.float64)   # NumPy rounds a median to the dtype

        return self._per_channel(one)

    def _weighted(self, ch, center):
        xp = self.xp
        m = self._label_moments(ch, center)
        poisoned = self._poisoned(ch)
        if poisoned is not None:
            m = xp.where(poisoned.reshape((-1,) + (1,) * self.ndim), np.nan, m)
        # sums that overflow: inf - inf is NaN or +-inf by the order of the sums, so those few regions are
        # summed as scikit-image does, over the crop
        flat = m.reshape(self.n, -1)
        odd = np.flatnonzero(_host(~xp.isfinite(flat).all(axis=1)))
        if odd.size:
            m = m.copy()
            center = _host(center)
            for i, sl in zip(odd.tolist(), [self._slices()[k] for k in odd.tolist()]):
                crop = (_host(ch[sl]) * self.crop(i)).astype(np.float64)
                m[i] = xp.asarray(_mom._moments_about(crop, center[i], _ORDER, self.spacing))
        return m

    def _c_moments_weighted(self):
        return self._per_channel(lambda ch, c: self._weighted(ch, self.xp.zeros((self.n, self.ndim))))

    def _poisoned(self, ch):
        """The regions whose box holds a NaN or infinity outside the region (None: none anywhere): scikit-image
        weighs the box's values by the mask, and NaN * 0 or inf * 0 makes all its weighted moments NaN."""
        xp = self.xp
        if ch.dtype.kind != "f":
            return None
        bad = ~xp.isfinite(ch)
        if not bool(bad.any()):
            return None
        # bad values per box (a summed-area table, inclusion-exclusion over the box's corners) minus the
        # region's own (label-indexed counts)
        sat = xp.pad(bad.astype(np.int64), [(1, 0)] * self.ndim)
        for axis in range(self.ndim):
            sat = xp.cumsum(sat, axis=axis)
        in_box = xp.zeros(self.n, np.int64)
        for corner in np.ndindex(*(2,) * self.ndim):
            idx = tuple(xp.asarray(np.where(corner[d], self.stops[:, d], self.starts[:, d])) for d in range(self.ndim))
            in_box += (-1) ** (self.ndim - sum(corner)) * sat[idx]
        slots = self.slots()
        own = xp.bincount(slots[bad & (slots >= 0)], minlength=self.n)[:self.n]
        return in_box > own

    def _c_centroid_weighted_local(self):
        return self._unit(self.column("moments_weighted"))

    def _c_centroid_weighted(self):
        ctr = self.column("centroid_weighted_local")
        shift = self.xp.asarray(self.starts * self.spacing)
        return ctr + (shift[..., None] if self.multichannel else shift)

    def _c_moments_weighted_central(self):
        ctr = self.column("centroid_weighted_local")
        return self._per_channel(lambda ch, c: self._weighted(ch, ctr[..., c] if self.multichannel else ctr))

    def _channel_map(self, src, f):
        m = self.column(src)
        if not self.multichannel:
            return f(m)
        return self.xp.stack([f(m[..., c]) for c in range(m.shape[-1])], axis=-1)

    def _c_moments_weighted_normalized(self):
        return self._channel_map("moments_weighted_central",
                                 lambda mu: _mom.normalized(mu, _ORDER, self.spacing, lead=1))

    def _c_moments_weighted_hu(self):
        return self._channel_map("moments_weighted_normalized", lambda nu: _mom.hu(nu, lead=1))

    # ---- per-region crops ----
    def crop(self, i, label_image=None):
        """The region's mask in its bounding box (host NumPy)."""
        sl = tuple(slice(int(a), int(b)) for a, b in zip(self.starts[i], self.stops[i]))
        img = self.label_image if label_image is None else label_image
        return _host(img[sl] == self.labels[i])

    def _crops(self, f):
        return [f(self.crop(i)) for i in range(self.n)]

    def _c_image_convex(self):
        if self.ndim == 3:
            return self._crops(convex_image)
        spans, offsets = self.column("hull_spans")
        ends = offsets + (self.stops[:, 0] - self.starts[:, 0])
        return [_spans_image(spans[a:b], c0, c1) for a, b, c0, c1 in
                zip(offsets.tolist(), ends.tolist(), self.starts[:, 1].tolist(), self.stops[:, 1].tolist())]

    def _c_hull_spans(self):
        return hull_spans(self.slots(), self.starts, self.stops)

    def _c_area_convex(self):
        xp, px = self.xp, np.prod(self.spacing)
        if self.ndim == 3:
            return xp.asarray(np.array([np.sum(m) * px for m in self.column("image_convex")], np.float64))
        spans, _ = self.column("hull_spans")
        rows = xp.asarray(np.repeat(np.arange(self.n), self.stops[:, 0] - self.starts[:, 0]))
        width = xp.maximum(spans[:, 1] - spans[:, 0] + 1, 0).astype(np.float64)
        return xp.bincount(rows, weights=width, minlength=self.n) * px

    def _c_solidity(self):
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.column("area") / self.column("area_convex")

    def _c_feret_diameter_max(self):
        return self.xp.asarray(np.array([feret_max(_host(m), self.spacing) for m in self.column("image_convex")]))

    def _c_area_filled(self):
        from ..ndimage import binary_fill_holes

        px = np.prod(self.spacing)
        st = np.ones((3,) * self.ndim)
        return self.xp.asarray(np.array([np.sum(binary_fill_holes(m, st)) * px for m in self._crops(lambda m: m)],
                                        np.float64))


_TABLED = {name[3:] for name in dir(_Regions) if name.startswith("_c_")} - {"image_convex", "hull_spans"}


def _check(prop, ndim, spacing):
    """scikit-image's errors of a property for this image (2-D only, unsupported spacing)."""
    if prop in _ONLY_2D and ndim > 2:
        raise NotImplementedError(f"Property {prop} is not implemented for 3D images")
    if prop in ("moments_hu", "moments_weighted_hu") and any(s != 1.0 for s in spacing):
        raise NotImplementedError("`moments_hu` supports spacing = (1, 1) only")
    if prop in ("perimeter", "perimeter_crofton") and len(np.unique(spacing)) != 1:
        raise NotImplementedError("`perimeter` supports isotropic spacings only")


# ---------------------------------------------------------------------------------------------------
# RegionProperties
# ---------------------------------------------------------------------------------------------------

def _tabled(name):
    def get(self):
        _check(name, self._ndim, self._spacing)   # before the intensity image, as scikit-image
        if self._intensity_image is None and name in _require_intensity_image:
            raise AttributeError(f"Attribute '{name}' unavailable when `intensity_image` has not been specified.")
        return self._value(name)

    get.__name__ = name
    return property(get)


def _cached(f):
    name = f.__name__

    def get(self):
        if not self._cache_active:
            return f(self)
        if name not in self._cache:
            self._cache[name] = f(self)
        return self._cache[name]

    get.__name__ = name
    return get


class RegionProperties:
    """The properties of one labelled region (skimage.measure.RegionProperties): attributes and items,
    computed lazily; the numeric ones read the tables its label image's regions share."""

    def __init__(self, slice, label, label_image, intensity_image, cache_active, *, extra_properties=None,
                 spacing=None, offset=None, _regions=None, _row=0):
        if intensity_image is not None:
            ndim = label_image.ndim
            if not (intensity_image.shape[:ndim] == label_image.shape and intensity_image.ndim in (ndim, ndim + 1)):
                raise ValueError("Label and intensity image shapes must match, except for channel (last) axis.")
            multichannel = label_image.shape < intensity_image.shape
        else:
            multichannel = False
        self.label = label
        if offset is None:
            offset = np.zeros((label_image.ndim,), dtype=int)
        self._offset = np.array(offset)
        self._slice = slice
        self.slice = slice
        self._label_image = label_image
        self._intensity_image = intensity_image
        self._cache_active = cache_active
        self._cache = {}
        self._ndim = label_image.ndim
        self._multichannel = multichannel
        self._spatial_axes = tuple(range(self._ndim))
        self._spacing = _utils.normalize_spacing(np.full(self._ndim, 1.0) if spacing is None else spacing,
                                                 self._ndim)
        self._pixel_area = np.prod(self._spacing)
        if _regions is None:   # a region made by hand: its own one-region tables
            starts = np.array([[s.start for s in slice]], np.int64)
            stops = np.array([[s.stop for s in slice]], np.int64)
            _regions = _Regions(label_image, intensity_image, np.array([label], np.int64), starts, stops,
                                self._spacing, self._offset, multichannel)
        self._regions, self._row = _regions, _row
        self._extra_properties = {}
        if extra_properties is not None:
            for func in extra_properties:
                name = func.__name__
                if hasattr(type(self), name) or name in PROPS or name in ("label", "slice"):
                    warn(f"Extra property '{name}' is shadowed by existing property and will be inaccessible. "
                         f"Consider renaming it.")
            self._extra_properties = {func.__name__: func for func in extra_properties}

    def _value(self, name):
        """Row of a shared column, as scikit-image's types for one region."""
        v = self._regions.host(name)[self._row]
        if name in ("intensity_mean", "intensity_std", "intensity_median") and not self._multichannel:
            return self._regions._stat_dtype().type(v) if name != "intensity_median" else _median_type(self, v)
        if name == "eccentricity" and self._regions.host("inertia_tensor_eigvals")[self._row][0] == 0:
            return 0   # scikit-image's int for a region without extent
        if name in ("eccentricity", "orientation", "axis_major_length", "axis_minor_length", "feret_diameter_max"):
            return float(v)
        if name == "euler_number" and self._ndim == 3:
            return int(v)
        if name in ("centroid", "centroid_weighted"):   # per channel (2-D rows): arrays of the caller's library
            return tuple(v if v.ndim == 1 else self._regions.column(name)[self._row])
        if name == "inertia_tensor_eigvals":
            return list(v)
        if isinstance(v, np.ndarray):   # the caller's array library: the row of the (device) column
            return self._regions.column(name)[self._row].copy()
        return v

    def __getattr__(self, attr):
        if attr == "__setstate__":   # unpickling reads it before the instance has attributes
            return self.__getattribute__(attr)
        if self._intensity_image is None and attr in _require_intensity_image:
            raise AttributeError(f"Attribute '{attr}' unavailable when `intensity_image` has not been specified.")
        if attr in self._extra_properties:
            func = self._extra_properties[attr]
            n_args = _n_required_args(func)
            if n_args == 2:
                if self._intensity_image is None:
                    raise AttributeError(f"intensity image required to calculate {attr}")
                if self._multichannel:
                    return np.stack([func(self.image, self.image_intensity[..., i])
                                     for i in range(self.image_intensity.shape[-1])], axis=-1)
                return func(self.image, self.image_intensity)
            if n_args == 1:
                return func(self.image)
            raise AttributeError(f"Custom regionprop function's number of arguments must be 1 or 2, but {attr} "
                                 f"takes {n_args} arguments.")
        if attr in PROPS and attr.lower() == attr:
            if self._intensity_image is None and PROPS[attr] in _require_intensity_image:
                raise AttributeError(f"Attribute '{attr}' unavailable when `intensity_image` has not been "
                                     f"specified.")
            warn(f"`RegionProperties.{attr}` is deprecated starting in version 0.26 and will be removed in version "
                 f"2.0. Use `RegionProperties.{PROPS[attr]}` instead. ", category=FutureWarning, stacklevel=2)
            return getattr(self, PROPS[attr])
        return self.__getattribute__(attr)

    def __setattr__(self, name, value):
        super().__setattr__(PROPS.get(name, name), value)

    # ---- tabled properties ----
    num_pixels = _tabled("num_pixels")
    area = _tabled("area")
    area_bbox = _tabled("area_bbox")
    centroid = _tabled("centroid")
    centroid_local = _tabled("centroid_local")
    eccentricity = _tabled("eccentricity")
    equivalent_diameter_area = _tabled("equivalent_diameter_area")
    euler_number = _tabled("euler_number")
    extent = _tabled("extent")
    inertia_tensor = _tabled("inertia_tensor")
    inertia_tensor_eigvals = _tabled("inertia_tensor_eigvals")
    axis_major_length = _tabled("axis_major_length")
    axis_minor_length = _tabled("axis_minor_length")
    moments = _tabled("moments")
    moments_central = _tabled("moments_central")
    moments_hu = _tabled("moments_hu")
    moments_normalized = _tabled("moments_normalized")
    orientation = _tabled("orientation")
    perimeter = _tabled("perimeter")
    perimeter_crofton = _tabled("perimeter_crofton")
    intensity_max = _tabled("intensity_max")
    intensity_mean = _tabled("intensity_mean")
    intensity_median = _tabled("intensity_median")
    intensity_min = _tabled("intensity_min")
    intensity_std = _tabled("intensity_std")
    centroid_weighted = _tabled("centroid_weighted")
    centroid_weighted_local = _tabled("centroid_weighted_local")
    moments_weighted = _tabled("moments_weighted")
    moments_weighted_central = _tabled("moments_weighted_central")
    moments_weighted_hu = _tabled("moments_weighted_hu")
    moments_weighted_normalized = _tabled("moments_weighted_normalized")

    # ---- properties of the region's own pixels ----
    @property
    def bbox(self):
        return tuple([self.slice[i].start for i in range(self._ndim)] + [self.slice[i].stop for i in range(self._ndim)])

    @property
    @_cached
    def image(self):
        return self._label_image[self.slice] == self.label

    @property
    @_cached
    def image_convex(self):
        return convex_image(self.image)

    @property
    @_cached
    def area_convex(self):
        return np.sum(self.image_convex) * self._pixel_area

    @property
    def solidity(self):
        return self.area / self.area_convex

    @property
    def feret_diameter_max(self):
        return feret_max(_host(self.image_convex), self._spacing)

    @property
    @_cached
    def image_filled(self):
        from ..ndimage import binary_fill_holes

        return binary_fill_holes(self.image, np.ones((3,) * self._ndim))

    @property
    def area_filled(self):
        return np.sum(self.image_filled) * self._pixel_area

    @property
    @_cached
    def image_intensity(self):
        if self._intensity_image is None:
            raise AttributeError("No intensity image specified.")
        xp = xp_of(self._intensity_image)
        mask = self.image if not self._multichannel else xp.expand_dims(self.image, self._ndim)
        return self._intensity_image[self.slice] * mask

    def _local_indices(self):
        xp = xp_of(self._label_image)
        start = xp.asarray([self.slice[i].start for i in range(self._ndim)])
        return xp.argwhere(self.image) + start

    @property
    def coords_scaled(self):
        xp = xp_of(self._label_image)
        return self._local_indices() * xp.asarray(self._spacing) + xp.asarray(self._offset)

    @property
    def coords(self):
        return self._local_indices() + xp_of(self._label_image).asarray(self._offset)

    # ---- mapping and comparison ----
    def __iter__(self):
        props = PROP_VALS if self._intensity_image is not None else PROP_VALS.difference(_require_intensity_image)
        return iter(sorted(props))

    def __getitem__(self, key):
        if key in PROPS:
            warn(f"`RegionProperties[{key!r}]` is deprecated starting in version 0.26 and will be removed in version "
                 f"2.0. Use `RegionProperties[{PROPS[key]!r}]` instead. ", category=FutureWarning, stacklevel=2)
            key = PROPS[key]
        return getattr(self, key)

    def __eq__(self, other):
        if not isinstance(other, RegionProperties):
            return False
        for key in PROP_VALS:
            try:
                np.testing.assert_equal(getattr(self, key, None), getattr(other, key, None))
            except AssertionError:
                return False
        return True

    def __repr__(self):
        return f"<{type(self).__qualname__}: label={self.label!r}, bbox={self.bbox}>"


def _median_type(region, v):
    dt = region._intensity_image.dtype
    return np.float32(v) if dt == np.float32 else np.float16(v) if dt == np.float16 else np.float64(v)


# ---------------------------------------------------------------------------------------------------
# the public functions
# ---------------------------------------------------------------------------------------------------

def _regions_of(label_image, intensity_image, spacing, offset):
    """The _Regions of a label image (None for no region), with regionprops' argument checks."""
    xp = xp_of(label_image)
    label_image = xp.asarray(label_image)
    if label_image.ndim not in (2, 3):
        raise TypeError("Only 2-D and 3-D images supported.")
    if label_image.dtype.kind not in "iu":
        if label_image.dtype == bool:
            raise TypeError("Non-integer image types are ambiguous: use skimage.measure.label to label the "
                            "connected components of label_image, or label_image.astype(np.uint8) to interpret "
                            "the True values as a single label.")
        raise TypeError("Non-integer label_image types are ambiguous")
    if offset is None:
        offset_arr = np.zeros((label_image.ndim,), dtype=int)
    else:
        offset_arr = np.asarray(offset)
        if offset_arr.ndim != 1 or offset_arr.size != label_image.ndim:
            raise ValueError(f"Offset should be an array-like of integers of shape (label_image.ndim,); {offset} "
                             f"was provided.")
    if not label_image.dtype.isnative:
        label_image = label_image.astype(label_image.dtype.newbyteorder("="))
    top = int(label_image.max()) if label_image.size else 0
    if top < 1:
        return label_image, offset_arr, None
    boxes = _host(_lab.find_objects(label_image, max_label=top))
    present = np.flatnonzero(boxes[:, 0, 0] >= 0)
    if present.size == 0:
        return label_image, offset_arr, None
    starts, stops = boxes[present, 0], boxes[present, 1] + 1
    multichannel = intensity_image is not None and label_image.shape < intensity_image.shape
    return label_image, offset_arr, (present + 1, starts, stops, multichannel)


@engine_aware("label_image", "intensity_image")
def regionprops(label_image, intensity_image=None, cache=True, *, extra_properties=None, spacing=None, offset=None):
    label_image, offset_arr, found = _regions_of(label_image, intensity_image, spacing, offset)
    if found is None:
        return []
    labels, starts, stops, multichannel = found
    first = RegionProperties(tuple(slice(int(a), int(b)) for a, b in zip(starts[0], stops[0])), int(labels[0]),
                             label_image, intensity_image, cache, extra_properties=extra_properties,
                             spacing=spacing, offset=offset_arr, _regions=_EMPTY)
    regions = _Regions(label_image, intensity_image, labels, starts, stops, first._spacing, offset_arr,
                       first._multichannel)
    out = []
    lo, hi = starts.tolist(), stops.tolist()
    for i, label in enumerate(labels.tolist()):
        r = object.__new__(RegionProperties)
        r.__dict__.update(first.__dict__)
        r.__dict__.update(label=label, _slice=tuple(map(slice, lo[i], hi[i])), _cache={}, _regions=regions,
                          _row=i)
        r.__dict__["slice"] = r.__dict__["_slice"]
        out.append(r)
    return out


_EMPTY = object()   # regionprops makes its first region without tables (they are shared, made after)


def _split(out, name, col, separator):
    """The columns of a property of per-region shape col.shape[1:]: one per element."""
    if col.ndim == 1:
        out[name] = col
        return
    for ind in np.ndindex(col.shape[1:]):
        out[separator.join(map(str, (name,) + ind))] = col[(slice(None),) + ind]


@engine_aware("label_image", "intensity_image")
def regionprops_table(label_image, intensity_image=None, properties=("label", "bbox"), *, cache=True, separator="-",
                      extra_properties=None, spacing=None):
    regions = regionprops(label_image, intensity_image=intensity_image, cache=cache,
                          extra_properties=extra_properties, spacing=spacing)
    if len(regions) == 0:   # the columns of a one-pixel region, emptied: the right names and dtypes
        xp = xp_of(label_image)
        ndim = label_image.ndim
        one = xp.zeros((3,) * ndim, dtype=int)
        one[(1,) * ndim] = 1
        if intensity_image is not None:
            intensity_image = xp.zeros(one.shape + intensity_image.shape[ndim:], dtype=intensity_image.dtype)
        out = regionprops_table(one, intensity_image, properties, cache=cache, separator=separator,
                                extra_properties=extra_properties, spacing=spacing)
        return {k: v[:0] for k, v in out.items()}
    if extra_properties is not None:
        properties = list(properties) + [prop.__name__ for prop in extra_properties]
    return _table(regions, properties, separator)


def _table(regions, properties, separator):
    first = regions[0]
    batch = first._regions
    xp = batch.xp
    n = len(regions)
    out = {}
    for orig in properties:
        prop = PROPS.get(orig, orig)
        if prop in _TABLED:
            _check(prop, first._ndim, first._spacing)
            if first._intensity_image is None and prop in _require_intensity_image:
                raise AttributeError(f"Attribute '{prop}' unavailable when `intensity_image` has not been "
                                     f"specified.")
            col = batch.column(prop)
            dtype = np.int64 if COL_DTYPES[prop] is int else np.float64
            _split(out, orig, xp.asarray(col).astype(dtype, copy=False), separator)
            continue
        value = getattr(first, prop)
        if prop in COL_DTYPES:
            dtype = COL_DTYPES[prop]
        else:
            dtype = _extra_dtype(first._extra_properties[prop], intensity=first._intensity_image is not None,
                                 ndim=first._ndim)
        if np.isscalar(value) or prop in OBJECT_COLUMNS or dtype is np.object_:
            col = np.empty(n, dtype=dtype)
            for i in range(n):
                col[i] = regions[i][prop]
            out[orig] = np.copy(col) if col.dtype == object else xp.asarray(col)   # numeric: the caller's library
        else:
            shape = np.shape(_host(value) if hasattr(value, "get") else value)
            col = np.empty((n,) + shape, dtype=dtype)
            for i in range(n):
                v = regions[i][prop]
                col[i] = _host(v) if hasattr(v, "get") else np.asarray(v)
            _split(out, orig, xp.asarray(col), separator)   # numeric: the caller's array library
    return out

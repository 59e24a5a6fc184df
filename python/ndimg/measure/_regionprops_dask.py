"""regionprops_table over Dask arrays, exact across chunks and lazy.

Every property of a region is computed from its bounding box alone (scikit-image crops the label and
intensity images to it), so the table is made in three lazy steps:
1. each chunk's bounding boxes of its labels, moved by the chunk's origin, merged into the image's;
2. each chunk's regions that lie wholly inside it: one in-memory regionprops_table of the chunk (the other
   labels cleared), positions moved by the chunk's origin;
3. the regions that cross a chunk border: each chunk gives the parts of their boxes it holds (the region's
   mask and its intensities), put together into one crop per region, measured like step 2.
The rows are put in label order. Each column is a Dask array of unknown length (the number of regions is
known only once computed), of scikit-image's dtype.
"""
from __future__ import annotations

import numpy as np

from .._engine import xp_of
from ..filters._thresholding_dask import delayed
from ..ndimage._measurements_dask import _origins
from . import _regionprops as rp


def _boxes(labels, origin):
    """{label: (start, stop)} of one chunk's labels, in image coordinates."""
    regions = rp._regions_of(labels, None, None, None)[2]
    if regions is None:
        return {}
    found, starts, stops, _ = regions
    o = np.asarray(origin)
    return {int(k): (a + o, b + o) for k, a, b in zip(found.tolist(), starts, stops)}


def _merge_boxes(*parts):
    """The image's boxes {label: (start, stop)} from the chunks'."""
    out = {}
    for part in parts:
        for k, (a, b) in part.items():
            if k in out:
                a0, b0 = out[k]
                out[k] = (np.minimum(a0, a), np.maximum(b0, b))
            else:
                out[k] = (a, b)
    return out


def _inside(boxes, origin, shape):
    """The labels whose box lies wholly inside the chunk at `origin` of `shape`."""
    lo, hi = np.asarray(origin), np.asarray(origin) + np.asarray(shape)
    return [k for k, (a, b) in boxes.items() if np.all(a >= lo) and np.all(b <= hi)]


def _objects(values):
    """A 1-D object array of `values` (arrays or tuples kept whole)."""
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    return out


def _measure(labels, intensity, origin, keep, kw):
    """Rows of the regions `keep` of a label image whose first element is at `origin` of the whole image:
    {column: values} with positions in the image's coordinates (and "__label" for the order). regionprops'
    own offset moves neither bbox nor centroid_weighted, and does not scale by the spacing: not used."""
    xp = xp_of(labels)
    if not keep:
        return None
    labels = xp.where(xp.isin(labels, xp.asarray(keep, dtype=labels.dtype)), labels, 0)
    regions = rp.regionprops(labels, intensity_image=intensity, cache=kw["cache"],
                             extra_properties=kw["extra_properties"], spacing=kw["spacing"])
    props = list(kw["properties"]) + ([p.__name__ for p in kw["extra_properties"]] if kw["extra_properties"] else [])
    table = rp._table(regions, props, kw["separator"])
    # positions moved from the crop's coordinates to the image's: by the origin, scaled where the property is
    o = np.asarray(origin, dtype=np.int64)
    scaled = o * np.asarray(regions[0]._spacing, dtype=np.float64)
    sep = kw["separator"]
    for orig in props:
        prop = rp.PROPS.get(orig, orig)
        if prop in ("bbox", "centroid", "centroid_weighted"):
            for name in [n for n in table if n.startswith(orig + sep) and
                         all(i.isdigit() for i in n[len(orig) + len(sep):].split(sep))]:
                k = int(name[len(orig) + len(sep):].split(sep)[0])
                table[name] = table[name] + (int(o[k % o.size]) if prop == "bbox" else float(scaled[k]))
        elif prop in ("coords", "coords_scaled"):
            shift = o if prop == "coords" else scaled
            table[orig] = _objects([v + xp_of(v).asarray(shift) for v in table[orig]])
        elif prop == "slice":
            table[orig] = _objects([tuple(slice(s.start + int(d), s.stop + int(d), s.step) for s, d in zip(v, o))
                                    for v in table[orig]])
    table["__label"] = np.asarray([r.label for r in regions])
    return table


def _chunk_rows(labels, intensity, origin, boxes, kw):
    return _measure(labels, intensity, origin, _inside(boxes, origin, labels.shape), kw)


def _pieces(labels, intensity, origin, boxes):
    """The parts of the crossing regions' boxes this chunk holds: [(label, box start, where in the box,
    the region's mask there, its intensities there)]."""
    out = []
    lo = np.asarray(origin)
    hi = lo + np.asarray(labels.shape)
    crossing = set(boxes) - set(_inside(boxes, origin, labels.shape))
    for k in sorted(crossing):
        a, b = boxes[k]
        s, e = np.maximum(a, lo), np.minimum(b, hi)
        if np.any(s >= e):
            continue
        local = tuple(slice(int(x - y), int(z - y)) for x, z, y in zip(s, e, lo))
        mask = labels[local] == k
        if not bool(mask.any()):
            continue
        where = tuple(slice(int(x - y), int(z - y)) for x, z, y in zip(s, e, a))
        out.append((k, a, b, where, mask, None if intensity is None else intensity[local]))
    return out


def _crossing_rows(kw, dtype, *parts):
    """Rows of the regions that cross chunk borders, each measured on its crop put together from the
    chunks' pieces."""
    crops = {}
    for part in parts:
        for k, a, b, where, mask, values in part:
            if k not in crops:
                xp = xp_of(mask)
                shape = tuple(int(v) for v in b - a)
                crop = [a, xp.zeros(shape, dtype=dtype), None]
                if values is not None:
                    crop[2] = xp.zeros(shape + values.shape[len(shape):], dtype=values.dtype)
                crops[k] = crop
            crop = crops[k]
            crop[1][where] = xp_of(mask).where(mask, k, crop[1][where])
            if values is not None:
                crop[2][where] = values
    return [_measure(lab, values, tuple(int(v) for v in a), [k], kw) for k, (a, lab, values) in sorted(crops.items())]


def _assemble(empty, rows, crossing):
    """The table in label order (scikit-image's), of the empty table's columns and dtypes."""
    parts = [r for r in list(rows) + list(crossing) if r is not None]
    if not parts:
        return empty
    order = np.argsort(np.concatenate([p["__label"] for p in parts]), kind="stable")
    out = {}
    for name, col in empty.items():
        if isinstance(col, np.ndarray) and col.dtype == object:
            out[name] = np.concatenate([p[name] for p in parts])[order]
        else:
            xp = xp_of(col)
            out[name] = xp.concatenate([xp.asarray(p[name]) for p in parts])[xp.asarray(order)].astype(col.dtype,
                                                                                                         copy=False)
    return out


def regionprops_table(label_image, intensity_image=None, properties=("label", "bbox"), *, cache=True, separator="-",
                      extra_properties=None, spacing=None):
    """regionprops_table of a Dask label image (and intensity image): a dict of lazy columns."""
    import operator

    import dask.array as da
    from dask import delayed as dask_delayed

    label_image = da.asarray(label_image)
    ndim = label_image.ndim
    if intensity_image is not None:
        intensity_image = da.asarray(intensity_image)
        if intensity_image.shape[:ndim] != label_image.shape:
            raise ValueError("Label and intensity image shapes must match, except for channel (last) axis.")
        intensity_image = intensity_image.rechunk(label_image.chunks + tuple((n,) for n in intensity_image.shape[ndim:]))
    # the columns, their dtypes and scikit-image's argument checks, from an image without regions
    meta = label_image._meta
    zeros = xp_of(meta).zeros((1,) * ndim, dtype=label_image.dtype)
    sample = None
    if intensity_image is not None:
        sample = xp_of(intensity_image._meta).zeros((1,) * ndim + intensity_image.shape[ndim:],
                                                    dtype=intensity_image.dtype)
    empty = rp.regionprops_table(zeros, sample, properties, cache=cache, separator=separator,
                                 extra_properties=extra_properties, spacing=spacing)
    kw = dict(properties=properties, cache=cache, separator=separator, extra_properties=extra_properties,
              spacing=spacing)
    labs = label_image.to_delayed(optimize_graph=False).ravel()
    vals = [None] * len(labs) if intensity_image is None else intensity_image.to_delayed(optimize_graph=False).ravel()
    origins = _origins(label_image)
    pairs = list(zip(labs, vals))
    boxes = delayed(_merge_boxes)(*(delayed(_boxes)(lab, o) for (lab, _), o in zip(pairs, origins)))
    rows = [delayed(_chunk_rows)(lab, val, o, boxes, kw) for (lab, val), o in zip(pairs, origins)]
    pieces = [delayed(_pieces)(lab, val, o, boxes) for (lab, val), o in zip(pairs, origins)]
    crossing = delayed(_crossing_rows)(kw, label_image.dtype, *pieces)
    table = delayed(_assemble)(empty, rows, crossing)
    out = {}
    for name, col in empty.items():
        value = dask_delayed(operator.getitem, pure=True)(table, name)
        out[name] = da.from_delayed(value, shape=(np.nan,) + col.shape[1:], dtype=col.dtype,
                                    meta=col[:0] if not (isinstance(col, np.ndarray) and col.dtype == object) else None)
    return out

"""skimage.segmentation.find_boundaries and mark_boundaries (skimage/segmentation/boundaries.py): label
boundaries from grey dilations and erosions (ndimg.morphology) on the input's engine; the subpixel boundaries
from one erosion and one dilation of the label image interleaved with separator elements."""
from __future__ import annotations

import numpy as np

from .._blocks import blockwise_rows
from .._engine import engine_aware, xp_of
from .._rules import img_as_float, supported_float_type
from ..color._colorconv import gray2rgb
from ..morphology._gray import dilation, erosion
from ..ndimage._binary import generate_binary_structure
from ..ndimage._interpolation import zoom


def _find_boundaries_subpixel(label_img):
    """The boundaries on the grid of twice the resolution (2 * s - 1 per axis): a separator element (one of an
    odd coordinate) is a boundary where its 3**ndim window holds two different labels. scikit-image fills the
    separators with the dtype's largest value, so labels of that value count as separators. The smallest and
    largest of the other values in each window are one erosion and one dilation, of int64 codes that stay
    exact where the morphology's border values pass through double precision (the 64-bit dtypes' extremes
    do not)."""
    xp = xp_of(label_img)
    info = np.iinfo(label_img.dtype)
    if label_img.dtype.itemsize < 8:
        codes, top = label_img.astype(np.int64), int(info.max)
    else:   # the values' ranks, the dtype's largest value ranked with the separators
        values, codes = xp.unique(label_img, return_inverse=True)
        codes = codes.reshape(label_img.shape).astype(np.int64, copy=False)
        top = int(values.size)
        if values.size and values[-1] == info.max:
            codes[codes == top - 1] = top
    ndim = label_img.ndim
    pixels = (slice(None, None, 2),) * ndim
    expanded = xp.full([2 * s - 1 for s in label_img.shape], top, np.int64)
    expanded[pixels] = codes
    box = np.ones((3,) * ndim, bool)
    smallest = erosion(expanded, box)           # the separators' value never lowers a minimum
    expanded[expanded == top] = -(2**32) - 1    # ... nor raises a maximum, once below every other value
    largest = dilation(expanded, box)
    boundaries = smallest < largest             # no other value in the window: top < -2**32 - 1 is false
    boundaries[pixels] = False
    return boundaries


@engine_aware("label_img", native=False)
def find_boundaries(label_img, connectivity=1, mode="thick", background=0):
    """Boolean array, True where labels change: `mode` 'thick' (both sides), 'inner' (inside objects),
    'outer' (in the background, and between touching objects) or 'subpixel' (a grid of 2 * s - 1 per axis)."""
    if label_img.dtype == "bool":
        label_img = label_img.astype(np.uint8)
    ndim = label_img.ndim
    if mode == "subpixel":
        return _find_boundaries_subpixel(label_img)
    footprint = generate_binary_structure(ndim, connectivity)
    boundaries = dilation(label_img, footprint) != erosion(label_img, footprint)
    if mode == "inner":
        boundaries &= label_img != background
    elif mode == "outer":
        max_label = np.iinfo(label_img.dtype).max
        background_image = label_img == background
        inverted_background = label_img.copy()
        inverted_background[background_image] = max_label
        footprint = generate_binary_structure(ndim, ndim)
        adjacent_objects = dilation(label_img, footprint) != erosion(inverted_background, footprint)
        adjacent_objects &= ~background_image
        boundaries &= background_image | adjacent_objects
    return boundaries


def _paint(marked, where, value):
    """marked[where] = value, over blocks of whole pixels on the CPU engine's threads when `marked` holds
    channels (last axis) for each element of `where`."""
    if type(marked) is np.ndarray and marked.ndim == where.ndim + 1 and marked.shape[:-1] == where.shape \
            and marked.flags.c_contiguous and marked.size:
        rows = marked.reshape(-1, marked.shape[-1])
        rows[np.zeros(0, bool)] = value   # NumPy's own checks of the value, on an empty selection

        def fill(m, w):
            m[w] = value

        blockwise_rows(fill, rows, np.ascontiguousarray(where).reshape(-1))
        return
    xp = xp_of(marked)
    marked[where] = value if xp is np else xp.asarray(value, dtype=marked.dtype)   # CuPy takes arrays


@engine_aware("image", "label_img")
def mark_boundaries(image, label_img, color=(1, 1, 0), outline_color=None, mode="outer", background_label=0):
    """The image as float RGB (gray images stacked to three channels) with the label boundaries
    (find_boundaries in `mode`) painted in `color`, and around them, in `outline_color` when given, their
    3x3 dilation. 'subpixel' first zooms the image to 2 * s - 1 per axis (cubic, mirror mode)."""
    float_dtype = supported_float_type(image.dtype)
    marked = img_as_float(image, force_copy=True)
    marked = marked.astype(float_dtype, copy=False)
    if marked.ndim == 2:
        marked = gray2rgb(marked)
    if mode == "subpixel":
        # an extra line of elements between the lines of every axis but the channels', interpolated
        marked = zoom(marked, [2 - 1 / s for s in marked.shape[:-1]] + [1], mode="mirror")
    boundaries = find_boundaries(label_img, mode=mode, background=background_label)
    if outline_color is not None:
        outlines = dilation(boundaries, np.ones((3, 3), np.uint8))
        _paint(marked, outlines, outline_color)
    _paint(marked, boundaries, color)
    return marked


def _mark_block(image, labels, ndim, **kw):
    return mark_boundaries(image, labels.reshape(labels.shape[:ndim]), **kw)


def mark_boundaries_dask(image, label_img, color=(1, 1, 0), outline_color=None, mode="outer", background_label=0):
    """Dask arrays: each block with a halo of the boundaries' reach (1, 2 with an outline) marked in memory,
    the labels chunked like the image's spatial axes; a 2-D image gains its channel axis in every block."""
    import dask.array as da
    from dask.array.overlap import overlap, trim_internal

    from .._registry import NotBlockwise, REGISTRY

    # the in-memory call's errors on a small sample, before any graph is made
    ndim = label_img.ndim
    mark_boundaries(np.zeros((2,) * image.ndim if image.ndim == ndim else (2,) * ndim + image.shape[ndim:],
                             image.dtype),
                    np.zeros((2,) * ndim, label_img.dtype), color, outline_color, mode, background_label)
    try:
        depth = REGISTRY["segmentation.mark_boundaries"].halo(ndim, mode=mode, outline_color=outline_color)
    except NotBlockwise as e:
        raise NotImplementedError(f"ndimg.segmentation.mark_boundaries does not take Dask arrays with these "
                                  f"arguments: {e}; compute() the array first") from None
    if not isinstance(image, da.Array):
        image = da.from_array(image)
    spatial = tuple(min(c, s) for c, s in zip(image.chunksize[:ndim], image.shape))
    chunks = tuple(da.core.normalize_chunks(spatial, image.shape[:ndim]))
    chunks = tuple(c if len(c) == 1 else da.overlap.ensure_minimum_chunksize(depth, c) for c in chunks)
    image = image.rechunk(chunks + tuple((s,) for s in image.shape[ndim:]))
    labels = (label_img if isinstance(label_img, da.Array) else da.from_array(label_img)).rechunk(chunks)
    halo = {a: (depth if len(chunks[a]) > 1 else 0) for a in range(ndim)}
    halo.update({a: 0 for a in range(ndim, image.ndim)})
    labels = overlap(labels, depth={a: halo[a] for a in range(ndim)}, boundary="none")
    # the labels given the image's channel axes (of one element), so that blocks pair up axis by axis
    labels = labels.reshape(labels.shape + (1,) * (image.ndim - ndim), merge_chunks=False)
    blocks = overlap(image, depth=halo, boundary="none"), labels
    dtype = supported_float_type(image.dtype)
    out_chunks = blocks[0].chunks if image.ndim > 2 else blocks[0].chunks + ((3,),)
    marked = da.map_blocks(_mark_block, *blocks, ndim=ndim, color=color, outline_color=outline_color, mode=mode,
                           background_label=background_label, dtype=dtype, chunks=out_chunks,
                           new_axis=[2] if image.ndim == 2 else None,
                           meta=np.empty((0,) * len(out_chunks), dtype))
    halo.setdefault(len(out_chunks) - 1, 0)
    return trim_internal(marked, halo, {a: "none" for a in halo})


def _subpixel_block(block, block_info=None):
    """The subpixel boundaries of an overlapped block (a halo of one element where a neighbour block is),
    cut to the block's own part of the 2 * s - 1 grid: from its first element to before the next block's."""
    loc, num = block_info[0]["chunk-location"], block_info[0]["num-chunks"]
    # a left halo is 2 elements of the grid; a right halo's element is not kept, the separator before it is
    cut = tuple(slice(2 if j else 0, 2 * block.shape[a] - 1 - (1 if j + 1 < n else 0))
                for a, (j, n) in enumerate(zip(loc, num)))
    return _find_boundaries_subpixel(block)[cut]


def find_boundaries_dask(label_img, connectivity=1, mode="thick", background=0):
    """Dask arrays: blocks with a halo of one element (the boundaries' 3**ndim reach). The subpixel grid's
    blocks are each block's 2 * c elements (the last one's 2 * c - 1): the separators after a block's last
    element read the next block's first, its halo."""
    from dask.array.overlap import ensure_minimum_chunksize, overlap

    find_boundaries(np.zeros((2,) * label_img.ndim, label_img.dtype), connectivity, mode, background)   # its errors
    ndim = label_img.ndim
    chunks = tuple(c if len(c) == 1 else ensure_minimum_chunksize(1, c) for c in label_img.chunks)
    label_img = label_img.rechunk(chunks)
    depth = {a: (1 if len(c) > 1 else 0) for a, c in enumerate(chunks)}
    if mode != "subpixel":
        return label_img.map_overlap(find_boundaries, depth=depth, boundary="none", dtype=bool,
                                     connectivity=connectivity, mode=mode, background=background,
                                     meta=np.empty((0,) * ndim, bool))
    if label_img.dtype == bool:
        label_img = label_img.astype(np.uint8)
    blocks = overlap(label_img, depth=depth, boundary="none") if any(depth.values()) else label_img
    out_chunks = tuple(tuple(2 * s - (1 if i + 1 == len(c) else 0) for i, s in enumerate(c)) for c in chunks)
    return blocks.map_blocks(_subpixel_block, dtype=bool, chunks=out_chunks, meta=np.empty((0,) * ndim, bool))

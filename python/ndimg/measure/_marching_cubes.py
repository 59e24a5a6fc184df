"""marching_cubes and mesh_surface_area (skimage.measure._marching_cubes_lewiner): marching cubes on either
engine (its own cell tiling, scikit-image's vertices, normals and values; a CuPy volume's mesh is built on the
GPU and returned as CuPy arrays) and the mesh area over xp."""
from __future__ import annotations

import numpy as np

from .. import _core
from .._engine import engine_aware, stream_ptr, xp_of


def _remove_degenerate_faces(vertices, faces, *arrays):
    """scikit-image's remove_degenerate_faces: faces with two equal corners are dropped and their equal vertices
    merged into the lower-numbered one (in face order), the other vertices renumbered."""
    vmap = np.arange(len(vertices), dtype=np.int32)
    corners = vertices[faces]   # (F, 3, 3)
    eq = [np.all(corners[:, i] == corners[:, j], axis=1) for i, j in ((0, 1), (0, 2), (1, 2))]
    bad = eq[0] | eq[1] | eq[2]
    for f in np.flatnonzero(bad):   # few: in face order, as there
        for (i, j), same in zip(((0, 1), (0, 2), (1, 2)), eq):
            if same[f]:
                a, b = faces[f, i], faces[f, j]
                vmap[a] = vmap[b] = min(vmap[a], vmap[b])
    keep = vmap == np.arange(len(vertices))
    renumber = np.cumsum(keep) - 1
    return (vertices[keep], renumber[vmap[faces[~bad]]]) + tuple(a[keep] for a in arrays)


@engine_aware("volume", "mask")
def marching_cubes(volume, level=None, *, spacing=(1.0, 1.0, 1.0), gradient_direction="descent", step_size=1,
                   allow_degenerate=True, method="lewiner", mask=None):
    """The `level` isosurface of a 3-D volume (default: the middle of its range) as (verts (V, 3), faces
    (F, 3) int32, normals (V, 3), values (V,)), in array-axis order scaled by `spacing`.

    method: 'lewiner' (ambiguous cell faces resolved by their bilinear saddle, so the surface has no holes)
    or 'lorensen' (corners above the level never joined across a face); step_size: cells of that many
    voxels; mask: cells whose far corner is masked out are skipped; gradient_direction: 'descent' (faces
    wound around the lower values) or 'ascent'. The vertices are scikit-image's (the same points, in another
    order); the tiling of a cell is ndimg's own, so faces differ where a cell has several tilings.
    """
    xp = xp_of(volume, mask)
    if method not in ("lewiner", "lorensen"):
        raise ValueError("method should be either 'lewiner' or 'lorensen'")
    if not isinstance(volume, xp.ndarray) or volume.ndim != 3:
        raise ValueError("Input volume should be a 3D numpy array.")
    if volume.shape[0] < 2 or volume.shape[1] < 2 or volume.shape[2] < 2:
        raise ValueError("Input array must be at least 2x2x2.")
    volume = xp.ascontiguousarray(volume, np.float32)
    vmin, vmax = volume.min(), volume.max()
    if xp is not np:   # the extremes as NumPy float32 scalars: the level rounds as on the host
        vmin, vmax = vmin.get()[()], vmax.get()[()]
    if level is None:
        level = 0.5 * (vmin + vmax)
    else:
        level = float(level)
        if level < vmin or level > vmax:
            raise ValueError("Surface level must be within volume data range.")
    if len(spacing) != 3:
        raise ValueError("`spacing` must consist of three floats.")
    step_size = int(step_size)
    if step_size < 1:
        raise ValueError("step_size must be at least one.")
    if mask is not None:
        if not mask.shape == volume.shape:
            raise ValueError("volume and mask must have the same shape.")
        mask = xp.ascontiguousarray(mask, dtype=bool).view(np.uint8)
    vertices, faces, normals, values = _core.marching_cubes(volume, mask, float(level), step_size, method == "lewiner",
                                                            stream=stream_ptr(volume))
    if not len(vertices):
        raise RuntimeError("No surface found at the given iso value.")
    if gradient_direction == "descent":
        faces = np.fliplr(faces)
    elif not gradient_direction == "ascent":
        raise ValueError(f"Incorrect input {gradient_direction} in `gradient_direction`, see docstring.")
    if not np.array_equal(spacing, (1, 1, 1)):
        vertices = vertices * np.r_[spacing]
    if not allow_degenerate:
        vertices, faces, normals, values = _remove_degenerate_faces(vertices.astype(np.float32), faces, normals, values)
    if xp is np:
        return vertices, faces, normals, values
    return tuple(xp.asarray(np.ascontiguousarray(a)) for a in (vertices, faces, normals, values))


@engine_aware("verts", "faces")
def mesh_surface_area(verts, faces):
    """Half the summed cross-product norms of the triangles' edge vectors (NumPy or CuPy)."""
    xp = xp_of(verts, faces)
    corners = verts[faces]
    a = corners[:, 0, :] - corners[:, 1, :]
    b = corners[:, 0, :] - corners[:, 2, :]
    return ((xp.cross(a, b) ** 2).sum(axis=1) ** 0.5).sum() / 2.0

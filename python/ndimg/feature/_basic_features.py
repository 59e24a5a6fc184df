"""skimage.feature.multiscale_basic_features (scikit-image 0.26's _basic_features.py): per channel and per
scale, the Gaussian-blurred image, its Sobel gradient magnitude and the eigenvalues of its finite-difference
Hessian, stacked along a last axis. The filters run on ndimg's engines (threaded C++ on the CPU, so the
`workers` pool of scikit-image has nothing left to do: it is checked, not used); host 2-D images take the
blurs, then every pixel's features in one C++ sweep."""
from __future__ import annotations

import numpy as np

from .._blocks import blockable, stack_last
from .._engine import engine_aware, xp_of
from .._prim.feature_deriv import basic_features_2d
from ..filters._edges import sobel
from ..filters._gaussian import gaussian
from ..util._dtype import convert
from ._deriv import _eigvals, hessian_finite_differences


def _single_scale(img, sigma, intensity, edges, texture):
    smooth = gaussian.__wrapped_impl__(img, sigma=sigma, preserve_range=False)
    out = []
    if intensity:
        out.append(smooth)
    if edges:
        out.append(sobel.__wrapped_impl__(smooth))
    if texture:
        out.extend(_eigvals(hessian_finite_differences(smooth, range(img.ndim))))
    return out


@engine_aware("image")
def multiscale_basic_features(image, intensity=True, edges=True, texture=True, sigma_min=0.5, sigma_max=16,
                              num_sigma=None, workers=None, *, channel_axis=None):
    """Local features of each pixel at `num_sigma` scales from `sigma_min` to `sigma_max` (base-2 log
    spaced), as ``skimage.feature.multiscale_basic_features``: float32, features along the last axis."""
    if not any([intensity, edges, texture]):
        raise ValueError("At least one of `intensity`, `edges` or `textures`must be True for features to be "
                         "computed.")
    if workers is not None and workers <= 0:   # scikit-image's thread pool refuses it
        raise ValueError("max_workers must be greater than 0")
    xp = xp_of(image)
    if channel_axis is None:
        image = image[..., np.newaxis]
    elif channel_axis != -1:
        image = xp.moveaxis(image, channel_axis, -1)
    if num_sigma is None:
        num_sigma = int(np.log2(sigma_max) - np.log2(sigma_min) + 1)
    sigmas = np.logspace(np.log2(sigma_min), np.log2(sigma_max), num=num_sigma, base=2, endpoint=True)
    channels = (xp.ascontiguousarray(convert(image[..., c], np.float32)) for c in range(image.shape[-1]))
    if xp is np and image.ndim == 3 and min(image.shape[:2]) >= 2 and image.shape[-1]:
        # host 2-D: a channel's blurs, then their features in one sweep, written side by side (a channel at
        # a time: its blurs are all that is held besides the result)
        nf = int(intensity) + int(edges) + 2 * int(texture)
        out = np.empty(image.shape[:2] + (nf * len(sigmas) * image.shape[-1],), np.float32)
        for c, img in enumerate(channels):
            basic_features_2d([gaussian.__wrapped_impl__(img, sigma=s, preserve_range=False) for s in sigmas],
                              intensity=intensity, edges=edges, texture=texture, out=out, first=c * nf * len(sigmas))
        return out
    features = []
    for img in channels:
        for s in sigmas:
            features.extend(_single_scale(img, s, intensity, edges, texture))
    return _stack_last(features)


def _stack_last(features):
    """xp.stack(features, axis=-1), host features in one threaded sweep."""
    xp = xp_of(features[0])
    if not blockable(*features) or features[0].ndim == 0:
        return xp.stack(features, axis=-1)
    return stack_last(features)


def multiscale_basic_features_dask(image, intensity=True, edges=True, texture=True, sigma_min=0.5, sigma_max=16,
                                   num_sigma=None, workers=None, *, channel_axis=None):
    """multiscale_basic_features of a Dask array: blocks (channels whole, the spatial halo of the largest
    blur plus two differences) each give their pixels' features; the channels axis becomes the features."""
    import dask.array as da
    from dask.array.overlap import ensure_minimum_chunksize, overlap, trim_internal

    from .._registry import REGISTRY

    kw = dict(intensity=intensity, edges=edges, texture=texture, sigma_min=sigma_min, sigma_max=sigma_max,
              num_sigma=num_sigma, workers=workers)
    shape = [3] * image.ndim   # np.gradient needs 2 pixels per axis; one channel
    if channel_axis is not None and -image.ndim <= channel_axis < image.ndim:
        shape[channel_axis] = 1
    # the argument checks, and the number of features per channel
    sample = multiscale_basic_features(np.zeros_like(image._meta, shape=tuple(shape)), channel_axis=channel_axis,
                                       **kw)
    image = image[..., None] if channel_axis is None else da.moveaxis(image, channel_axis, -1)
    n_feat = sample.shape[-1]
    ndim = image.ndim - 1
    reach = REGISTRY["feature.multiscale_basic_features"].halo(ndim, **kw)
    # an axis the halo would span, or of one chunk, is whole in every block
    whole = [len(image.chunks[a]) == 1 or reach >= image.shape[a] for a in range(ndim)]
    depth = {a: 0 if whole[a] else reach for a in range(ndim)}
    depth[ndim] = 0
    chunks = tuple((image.shape[a],) if whole[a] else ensure_minimum_chunksize(reach, image.chunks[a])
                   for a in range(ndim))
    image = image.rechunk(chunks + ((image.shape[-1],),))
    blocks = overlap(image, depth=depth, boundary="none", allow_rechunk=False) if any(depth.values()) else image
    out = blocks.map_blocks(lambda b: multiscale_basic_features(b, channel_axis=-1, **kw),
                            chunks=blocks.chunks[:-1] + ((n_feat * image.shape[-1],),), dtype=np.float32,
                            meta=sample[(slice(0, 0),) * sample.ndim])
    if any(depth.values()):
        out = trim_internal(out, depth, {a: "none" for a in depth})
    return out

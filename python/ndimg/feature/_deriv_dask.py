"""Dask paths of the derivative features that return a list of images (hessian_matrix, structure_tensor):
each block (with the halo of the entry's rule) computes every element at once; the list holds one lazy
array per element."""
from __future__ import annotations

from .._dask import _blockwise
from .._registry import REGISTRY
from ._deriv import _warn_gaussian_derivatives, hessian_matrix_elements, structure_tensor_elements


def _elements(public, qualname, image, kwargs):
    return list(_blockwise(public, public.__wrapped_impl__, REGISTRY[qualname].halo, f"ndimg.{qualname}",
                           public.__array_params__, (image,), kwargs))


def hessian_matrix(image, sigma=1, mode='constant', cval=0, order='rc', use_gaussian_derivatives=None):
    if order in ("rc", "xy"):
        use_gaussian_derivatives = _warn_gaussian_derivatives(use_gaussian_derivatives, 5)
    return _elements(hessian_matrix_elements, "feature.hessian_matrix", image,
                     dict(sigma=sigma, mode=mode, cval=cval, order=order,
                          use_gaussian_derivatives=use_gaussian_derivatives))


def structure_tensor(image, sigma=1, mode='constant', cval=0, order='rc'):
    return _elements(structure_tensor_elements, "feature.structure_tensor", image,
                     dict(sigma=sigma, mode=mode, cval=cval, order=order))

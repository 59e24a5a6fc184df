"""hessian_matrix_eigvals and structure_tensor_eigenvalues take the list of matrix elements, which the
generated cases do not make: compared with scikit-image here, on each engine and on Dask arrays."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import skimage.feature as skf

import ndimg.feature as F
from helpers import check_result, to_engine, to_host


def _elems(kind, image):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "hessian":
            return skf.hessian_matrix(image, sigma=1.5, use_gaussian_derivatives=False)
        return skf.structure_tensor(image, sigma=1.2)


FUNCS = {"hessian": ("hessian_matrix_eigvals", "feature.hessian_matrix_eigvals"),
         "tensor": ("structure_tensor_eigenvalues", "feature.structure_tensor_eigenvalues")}


@pytest.mark.parametrize("kind", sorted(FUNCS))
@pytest.mark.parametrize("shape", [(17, 23), (7, 9, 11), (3, 5, 4, 6)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eigvals_match_skimage(engine, rng, kind, shape, dtype):
    image = rng.random(shape).astype(dtype)
    elems = _elems(kind, image)
    name, qual = FUNCS[kind]
    expected = getattr(skf, name)(elems)
    got = getattr(F, name)([to_engine(e, engine) for e in elems])
    check_result(qual, got, expected, engine, tol=(1e-4, 1e-5))


@pytest.mark.parametrize("kind", sorted(FUNCS))
def test_eigvals_five_dimensions(rng, kind):
    """Matrices larger than the per-pixel kernel's (5 x 5): LAPACK, as scikit-image."""
    image = rng.random((3, 4, 3, 4, 3))
    elems = _elems(kind, image)
    name, qual = FUNCS[kind]
    check_result(qual, getattr(F, name)(elems), getattr(skf, name)(elems), tol=(1e-7, 1e-9))


def test_eigvals_integer_elements(rng):
    """Other dtypes: scikit-image's own expression in the elements' type: float16 computes in float16; integer
    elements fail where the float square root is added in place (TypeError)."""
    elems = [rng.random((6, 7)).astype(np.float16) for _ in range(3)]
    check_result("feature.hessian_matrix_eigvals", F.hessian_matrix_eigvals(elems),
                 skf.hessian_matrix_eigvals(elems), tol="exact")
    ints = [rng.integers(-50, 50, (6, 7)).astype(np.int32) for _ in range(3)]
    with pytest.raises(TypeError):
        skf.hessian_matrix_eigvals(ints)
    with pytest.raises(TypeError):
        F.hessian_matrix_eigvals(ints)


def test_eigvals_repeated_and_zero(rng):
    """Exactly repeated eigenvalues (a multiple of the identity) and all-zero matrices."""
    a = np.zeros((5, 6, 7))
    a[2:] = 3.0
    elems = [a, np.zeros_like(a), np.zeros_like(a), a, np.zeros_like(a), a]
    check_result("feature.hessian_matrix_eigvals", F.hessian_matrix_eigvals(elems),
                 skf.hessian_matrix_eigvals(elems), tol=(1e-12, 1e-12))


def test_eigvals_dask(engine, rng):
    da = pytest.importorskip("dask.array")
    image = rng.random((17, 23)).astype(np.float32)
    elems = _elems("tensor", image)
    lazy = F.structure_tensor_eigenvalues([da.from_array(to_engine(e, engine), chunks=(5, 9), asarray=False)
                                           for e in elems])
    assert isinstance(lazy, da.Array) and lazy.shape == (2, 17, 23)
    got = lazy.compute(scheduler="sync")
    check_result("feature.structure_tensor_eigenvalues", got, skf.structure_tensor_eigenvalues(elems), engine,
                 tol=(1e-4, 1e-5))
    assert np.array_equal(to_host(got), to_host(F.structure_tensor_eigenvalues([to_engine(e, engine)
                                                                                  for e in elems])))

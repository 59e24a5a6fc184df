"""filters.frangi / hessian / sato / meijering against scikit-image 0.26 on fresh random inputs."""
import warnings

import numpy as np
import pytest
import skimage.filters as sf

from ndimg import filters as nf
from ndimg._registry import ALL
from helpers import MODES, assert_close, assert_raises_like, check_against_reference, random_image, to_engine, to_host

NAMES = ["frangi", "hessian", "sato", "meijering"]


def check(name, x, engine, **kw):
    """Our result on `engine` against scikit-image's on the same values (helpers.assert_close_ridge);
    returns ours on the host (of scikit-image's dtype)."""
    return to_host(check_against_reference(engine, f"filters.{name}", x, **kw))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", [(13, 10), (7, 6, 5)])
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_dtypes_layouts(engine, rng, name, dtype, shape, layout):
    x = random_image(rng, shape, dtype, layout)
    check(name, x, engine, sigmas=[0.8, 2])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("mode", MODES)
def test_modes_and_polarity(engine, rng, name, mode):
    x = random_image(rng, (11, 12), "float64")
    check(name, x, engine, sigmas=[1, 1.5], mode=mode, cval=0.7, black_ridges=False)
    check(name, random_image(rng, (6, 5, 4), "float64"), engine, sigmas=[1.2], mode=mode, cval=-0.3)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("ndim", [2, 3])
def test_default_sigmas(engine, rng, name, ndim):
    x = random_image(rng, (16, 15) if ndim == 2 else (8, 7, 6), "float64")
    check(name, x, engine)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(1, 1), (1, 7), (2, 3, 1), (1, 1, 1)])
def test_small_shapes(engine, rng, name, shape):
    check(name, random_image(rng, shape, "float32"), engine, sigmas=[0.5, 1, 3])


@pytest.mark.parametrize("kw", [dict(alpha=0.2), dict(beta=1.5), dict(gamma=0.05), dict(gamma=None),
                                dict(alpha=0.9, beta=0.1, gamma=3.0)])
@pytest.mark.parametrize("name", ["frangi", "hessian"])
@pytest.mark.parametrize("ndim", [2, 3])
def test_frangi_constants(engine, rng, kw, name, ndim):
    x = random_image(rng, (12, 11) if ndim == 2 else (7, 8, 6), "float64")
    check(name, x, engine, sigmas=[1, 2.5], **kw)


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
@pytest.mark.parametrize("alpha", [None, 0.0, -0.4])
def test_meijering_any_ndim_and_alpha(engine, rng, ndim, alpha):
    x = random_image(rng, (9, 8, 5, 4)[:ndim], "float64")
    check("meijering", x, engine, sigmas=[1, 2], alpha=alpha)


@pytest.mark.parametrize("name", NAMES)
def test_repeated_eigenvalues(engine, name):
    # an isotropic bump: at its centre the 3-D Hessian is a multiple of the identity, along its axes two
    # eigenvalues coincide
    g = np.arange(-6, 7, dtype=np.float64)
    x = np.exp(-(g[:, None, None] ** 2 + g[None, :, None] ** 2 + g[None, None, :] ** 2) / 8)
    check(name, x, engine, sigmas=[1, 2])
    check(name, -x, engine, sigmas=[1, 2])
    check(name, np.full((5, 6, 4), 3.0), engine, sigmas=[1])


@pytest.mark.parametrize("name", ["frangi", "hessian"])
def test_scale_range_warns_and_overrides_sigmas(engine, rng, name):
    x = random_image(rng, (12, 10), "float64")
    with pytest.warns(UserWarning):
        ref = getattr(sf, name)(x, sigmas=[5], scale_range=(1, 3), scale_step=0.5)
    with pytest.warns(UserWarning):
        got = getattr(nf, name)(to_engine(x, engine), sigmas=[5], scale_range=(1, 3), scale_step=0.5)
    assert_close(got, ref, f"filters.{name}")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check(name, x, engine, sigmas=[1], scale_range=(1, 3))  # one of the two alone is ignored


def test_sato_float64_scale_promotes_float32(engine, rng):
    x = random_image(rng, (12, 10), "float32")
    ref = check("sato", x, engine, sigmas=np.arange(1, 3.0))
    assert ref.dtype == np.float64
    assert check("sato", x, engine, sigmas=[1.0, 2]).dtype == np.float32


@pytest.mark.parametrize("name", NAMES)
def test_no_sigmas(engine, rng, name):
    check(name, random_image(rng, (6, 5), "uint8"), engine, sigmas=[])


@pytest.mark.parametrize("name", NAMES)
def test_nan_spreads_like_skimage(engine, rng, name):
    x = random_image(rng, (9, 10), "float64")
    x[4, 4] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ref = getattr(sf, name)(x, sigmas=[1])
        got = to_host(getattr(nf, name)(to_engine(x, engine), sigmas=[1]))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("bad", [
    dict(image=np.zeros((0, 5))), dict(image=np.zeros((3, 4)), mode="bogus"),
    dict(image=np.zeros((3, 4)), sigmas=2), dict(image=[[1.0, 2.0], [3.0, 4.0]]),
])
def test_bad_input_raises_like_skimage(engine, name, bad):
    bad = dict(bad)
    image = bad.pop("image")
    assert_raises_like(lambda: getattr(sf, name)(image, **bad),
                       lambda: getattr(nf, name)(to_engine(image, engine), **bad))


@pytest.mark.parametrize("name", ["frangi", "hessian", "sato"])
@pytest.mark.parametrize("shape", [(5,), (3, 3, 3, 3)])
def test_wrong_ndim_raises(engine, name, shape):
    x = np.ones(shape)
    assert_raises_like(lambda: getattr(sf, name)(x),
                       lambda: getattr(nf, name)(to_engine(x, engine)), ValueError, match="2-or-3-dimensional")

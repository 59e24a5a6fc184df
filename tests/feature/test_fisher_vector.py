"""feature.learn_gmm / fisher_vector against scikit-image 0.26: the same fitted mixture for the same
scikit-learn arguments, the same Fisher vectors (plain and improved), GPU descriptors in and a GPU vector out,
and the same refusals (ndimg's exceptions carry scikit-image's names and messages)."""
import numpy as np
import pytest
import skimage.feature as sf

import ndimg.feature as nf
from ndimg.feature import _fisher_vector as fv
from helpers import array_type, to_engine, to_host

pytest.importorskip("sklearn")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(8)
    return [rng.random((40, 5)) for _ in range(3)], rng.random((25, 5))


@pytest.mark.parametrize("as_list", [True, False])
def test_learn_gmm_like_skimage(engine, data, as_list):
    train, _ = data
    args = dict(n_modes=3, gm_args=dict(covariance_type="diag", random_state=1))
    ref = sf.learn_gmm(train if as_list else np.vstack(train), **args)
    given = [to_engine(t, engine) for t in train] if as_list else to_engine(np.vstack(train), engine)
    ours = nf.learn_gmm(given, **args)
    for name in ("weights_", "means_", "covariances_"):
        np.testing.assert_array_equal(getattr(ours, name), getattr(ref, name))


@pytest.mark.parametrize("kw", [dict(), dict(improved=True), dict(improved=True, alpha=0.3)], ids=repr)
def test_fisher_vector_like_skimage(engine, data, kw):
    train, x = data
    gmm = sf.learn_gmm(train, n_modes=4, gm_args=dict(covariance_type="diag", random_state=0))
    expected = sf.fisher_vector(x, gmm, **kw)
    got = nf.fisher_vector(to_engine(x, engine), gmm, **kw)
    assert type(got) is array_type(engine)
    np.testing.assert_array_equal(to_host(got), expected)


def test_refusals(data):
    train, x = data
    gmm = sf.learn_gmm(train, n_modes=2, gm_args=dict(covariance_type="diag", random_state=0))
    cases = [(lambda f: f.learn_gmm("abc"), fv.DescriptorException),
             (lambda f: f.learn_gmm([[1, 2]]), fv.DescriptorException),
             (lambda f: f.learn_gmm([np.zeros((3, 2)), np.zeros(3)]), fv.DescriptorException),
             (lambda f: f.learn_gmm([np.zeros((3, 2)), np.zeros((3, 4))]), fv.DescriptorException),
             (lambda f: f.learn_gmm(train, n_modes=0), fv.FisherVectorException),
             (lambda f: f.learn_gmm(train, n_modes=2.0), fv.FisherVectorException),
             (lambda f: f.learn_gmm(train, gm_args=dict(covariance_type="full")), fv.FisherVectorException),
             (lambda f: f.learn_gmm(train, gm_args=dict(random_state=0)), KeyError),
             (lambda f: f.fisher_vector([[1.0]], gmm), fv.DescriptorException),
             (lambda f: f.fisher_vector(x, "gmm"), fv.FisherVectorException),
             (lambda f: f.fisher_vector(x, gmm, improved=True, alpha=1), fv.FisherVectorException)]
    for call, exc in cases:
        with pytest.raises(Exception) as ref:
            call(sf)
        with pytest.raises(exc) as ours:
            call(nf)
        assert type(ref.value).__name__ == type(ours.value).__name__ and str(ref.value) == str(ours.value)

"""skimage.feature's Fisher vectors (0.26): learn_gmm and fisher_vector. scikit-learn's GaussianMixture is the
kept library for the mixture model, which works on host arrays: GPU descriptors are copied to the host at the
boundary, and fisher_vector's result goes back as the caller's array type."""
from __future__ import annotations

import numpy as np

from .._engine import from_host, is_gpu_array, library_of
from ..ndimage._footprint import to_host

# the registry's names here (the exceptions: scikit-image's private module skimage.feature._fisher_vector)
__all__ = ["DescriptorException", "FisherVectorException", "fisher_vector", "learn_gmm"]


class FisherVectorException(Exception):
    pass


class DescriptorException(FisherVectorException):
    pass


def _gaussian_mixture():
    try:
        from sklearn.mixture import GaussianMixture
    except ImportError:
        raise ImportError('scikit-learn is not installed. Please ensure it is installed in order to use the Fisher '
                          'vector functionality.')
    return GaussianMixture


def learn_gmm(descriptors, *, n_modes=32, gm_args=None):
    """A diagonal-covariance Gaussian mixture of `n_modes` modes fitted to the descriptors (an (N, D) array
    or a list of them) with scikit-learn (skimage.feature.learn_gmm); `gm_args` go to GaussianMixture."""
    GaussianMixture = _gaussian_mixture()
    if is_gpu_array(descriptors):
        descriptors = to_host(descriptors)
    elif isinstance(descriptors, list):
        descriptors = [to_host(d) if is_gpu_array(d) else d for d in descriptors]
    if not isinstance(descriptors, (list, np.ndarray)):
        raise DescriptorException('Please ensure descriptors are either a NumPy array, or a list of NumPy arrays.')
    first = descriptors[0]
    if isinstance(descriptors, list) and not isinstance(first, np.ndarray):
        raise DescriptorException('Please ensure descriptors are a list of NumPy arrays.')
    if isinstance(descriptors, list):
        if not all(len(e.shape) == len(first.shape) for e in descriptors):
            raise DescriptorException('Please ensure all elements of your descriptor list are of rank 2.')
        if not all(e.shape[1] == first.shape[1] for e in descriptors):
            raise DescriptorException('Please ensure all descriptors are of the same dimensionality.')
    if not isinstance(n_modes, int) or n_modes <= 0:
        raise FisherVectorException('Please ensure n_modes is a positive integer.')
    if gm_args and 'covariance_type' in gm_args and gm_args['covariance_type'] != 'diag':
        raise FisherVectorException('Covariance type must be "diag".')
    if gm_args and 'covariance_type' not in gm_args:
        # scikit-image reads gm_args['covariance_type'] before asking whether it is there
        raise KeyError('covariance_type')
    if isinstance(descriptors, list):
        descriptors = np.vstack(descriptors)
    if gm_args:
        gmm = GaussianMixture(n_components=n_modes, **gm_args)
    else:
        gmm = GaussianMixture(n_components=n_modes, covariance_type='diag')
    gmm.fit(descriptors)
    return gmm


def fisher_vector(descriptors, gmm, *, improved=False, alpha=0.5):
    """The Fisher vector of the descriptors ((N, D)) under `gmm` (a fitted diagonal GaussianMixture): the
    normalised gradients of the log-likelihood with respect to the weights, means and variances
    (skimage.feature.fisher_vector); `improved` applies the power and L2 normalisations."""
    GaussianMixture = _gaussian_mixture()
    lib = library_of(descriptors)
    if lib not in (None, "numpy"):
        descriptors = to_host(descriptors)
    if not isinstance(descriptors, np.ndarray):
        raise DescriptorException('Please ensure descriptors is a NumPy array.')
    if not isinstance(gmm, GaussianMixture):
        raise FisherVectorException('Please ensure gmm is a sklearn.mixture.GaussianMixture object.')
    if improved and not isinstance(alpha, float):
        raise FisherVectorException('Please ensure that the alpha parameter is a float.')
    n = len(descriptors)
    weights, means, covariances = gmm.weights_, gmm.means_, gmm.covariances_
    posterior = gmm.predict_proba(descriptors)
    # the mixture's sufficient statistics
    pp_sum = posterior.mean(axis=0, keepdims=True).T
    pp_x = posterior.T.dot(descriptors) / n
    pp_x_2 = posterior.T.dot(np.power(descriptors, 2)) / n
    # gradients with respect to the weights, means and variances
    d_pi = pp_sum.squeeze() - weights
    d_mu = pp_x - pp_sum * means
    d_sigma = -pp_x_2 - pp_sum * np.power(means, 2) + pp_sum * covariances + 2 * pp_x * means
    # the analytical diagonal normalisation
    sqrt_weights = np.sqrt(weights)
    d_pi /= sqrt_weights
    d_mu /= sqrt_weights[:, np.newaxis] * np.sqrt(covariances)
    d_sigma /= np.sqrt(2) * sqrt_weights[:, np.newaxis] * covariances
    fv = np.hstack((d_pi, d_mu.ravel(), d_sigma.ravel()))
    if improved:
        fv = np.sign(fv) * np.power(np.abs(fv), alpha)
        fv = fv / np.linalg.norm(fv)
    return from_host(fv, lib)

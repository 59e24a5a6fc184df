"""skimage.future's trainable segmentation (skimage/future/trainable_segmentation.py): TrainableSegmenter,
fit_segmenter and predict_segmenter. scikit-learn is the kept library for the classifier, which works on host
arrays: GPU features are copied to the host for it, and the predicted labels go back to the caller's
library. The default features are ndimg.feature.multiscale_basic_features, on the image's engine."""
from __future__ import annotations

from .._engine import engine_aware, from_host, library_of
from ..ndimage._footprint import to_host

try:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.exceptions import NotFittedError

    has_sklearn = True
except ImportError:
    has_sklearn = False

    class NotFittedError(Exception):
        pass


def _default_features(image):
    from ..feature import multiscale_basic_features

    return multiscale_basic_features(image)


def _on_host(a):
    return to_host(a) if library_of(a) not in (None, "numpy") else a


class TrainableSegmenter:
    """Estimator for classifying pixels (see skimage.future.TrainableSegmenter).

    clf: a classifier with fit and predict (default: scikit-learn's RandomForestClassifier(n_estimators=100,
    n_jobs=-1)); features_func: image -> features (..., n_features) (default: multiscale_basic_features).
    """

    def __init__(self, clf=None, features_func=None):
        if clf is None:
            if not has_sklearn:
                raise ImportError("Please install scikit-learn or pass a classifier instance"
                                  "to TrainableSegmenter.")
            clf = RandomForestClassifier(n_estimators=100, n_jobs=-1)
        self.clf = clf
        self.features_func = features_func

    def compute_features(self, image):
        if self.features_func is None:
            self.features_func = _default_features
        self.features = self.features_func(image)

    def fit(self, image, labels):
        """Train the classifier on the features of `image` at the pixels where `labels` > 0."""
        self.compute_features(image)
        fit_segmenter(labels, self.features, self.clf)

    def predict(self, image):
        """The label of every pixel of `image`, from its features."""
        if self.features_func is None:
            self.features_func = _default_features
        return predict_segmenter(self.features_func(image), self.clf)


@engine_aware("labels", "features")
def fit_segmenter(labels, features, clf):
    """Train `clf` on the features (shape labels.shape + (n_features,)) of the pixels where labels > 0
    (see skimage.future.fit_segmenter). Returns clf."""
    labels, features = _on_host(labels), _on_host(features)
    mask = labels > 0
    clf.fit(features[mask], labels[mask].ravel())
    return clf


@engine_aware("features")
def predict_segmenter(features, clf):
    """The labels `clf` predicts for each pixel's features (see skimage.future.predict_segmenter)."""
    lib = library_of(features)
    features = _on_host(features)
    sh = features.shape
    if features.ndim > 2:
        features = features.reshape((-1, sh[-1]))
    try:
        predicted = clf.predict(features)
    except NotFittedError:
        raise NotFittedError("You must train the classifier `clf` first"
                             "for example with the `fit_segmenter` function.")
    except ValueError as err:
        if err.args and "x must consist of vectors of length" in err.args[0]:
            raise ValueError(err.args[0] + "\n"
                             + "Maybe you did not use the same type of features for training the classifier.")
        raise err
    out = predicted.reshape(sh[:-1])
    return from_host(out, lib)

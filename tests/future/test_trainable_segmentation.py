"""skimage.future's trainable segmentation against scikit-image's: the same classifier (a seeded
scikit-learn forest, one job) trained on the same features predicts the same labels."""
from __future__ import annotations

import numpy as np
import pytest

sklearn_ensemble = pytest.importorskip("sklearn.ensemble")
from skimage import future as sf  # noqa: E402

import ndimg.future as nf  # noqa: E402
from helpers import to_engine, to_host  # noqa: E402


def _clf():
    return sklearn_ensemble.RandomForestClassifier(n_estimators=10, random_state=0, n_jobs=1)


def _data(rng, shape):
    image = np.zeros(shape)
    image[: shape[0] // 2] = 1.0
    image += 0.2 * rng.random(shape)
    labels = np.zeros(shape, np.uint8)
    labels[:3] = 1
    labels[-3:] = 2
    return image, labels


def _features(image):
    return np.stack([image, image**2, np.gradient(image, axis=0)], axis=-1)


@pytest.mark.parametrize("shape", [(20, 24), (8, 9, 10)])
def test_fit_predict_segmenter(engine, rng, shape):
    image, labels = _data(rng, shape)
    feats = _features(image)
    expected = sf.predict_segmenter(feats, sf.fit_segmenter(labels, feats, _clf()))
    clf = nf.fit_segmenter(to_engine(labels, engine), to_engine(feats, engine), _clf())
    got = nf.predict_segmenter(to_engine(feats, engine), clf)
    assert type(got) is type(to_engine(labels, engine))
    np.testing.assert_array_equal(to_host(got), expected)
    # 2-D features (pixels x features) too
    np.testing.assert_array_equal(nf.predict_segmenter(feats.reshape(-1, 3), clf),
                                  sf.predict_segmenter(feats.reshape(-1, 3), clf))


def test_predict_segmenter_errors(rng):
    image, labels = _data(rng, (20, 24))
    feats = _features(image)
    for mod in (sf, nf):
        with pytest.raises(sf.trainable_segmentation.NotFittedError, match="You must train"):
            mod.predict_segmenter(feats, _clf())
    clf = nf.fit_segmenter(labels, feats, _clf())
    with pytest.raises(ValueError) as ref:
        sf.predict_segmenter(feats[..., :2], clf)
    with pytest.raises(ValueError) as got:
        nf.predict_segmenter(feats[..., :2], clf)
    assert str(got.value) == str(ref.value)


def test_trainable_segmenter(rng):
    image, labels = _data(rng, (20, 24))
    ref, seg = sf.TrainableSegmenter(clf=_clf(), features_func=_features), nf.TrainableSegmenter(
        clf=_clf(), features_func=_features)
    ref.fit(image, labels)
    seg.fit(image, labels)
    np.testing.assert_array_equal(seg.features, ref.features)
    np.testing.assert_array_equal(seg.predict(image), ref.predict(image))
    assert isinstance(nf.TrainableSegmenter().clf, sklearn_ensemble.RandomForestClassifier)


def test_trainable_segmenter_default_features(engine, rng):
    # multiscale_basic_features by default: ndimg's on the image's engine (float32 within its tolerance)
    image, labels = _data(rng, (24, 26))
    ref, seg = sf.TrainableSegmenter(clf=_clf()), nf.TrainableSegmenter(clf=_clf())
    ref.fit(image, labels)
    seg.fit(to_engine(image, engine), to_engine(labels, engine))
    np.testing.assert_allclose(to_host(seg.features), ref.features, rtol=1e-4, atol=1e-5)
    got = seg.predict(to_engine(image, engine))
    assert type(got) is type(to_engine(image, engine))
    np.testing.assert_array_equal(to_host(got), ref.predict(image))

"""feature.plot_matched_features against scikit-image 0.26 on matplotlib's Agg backend: the same image,
axis limits, keypoint scatters and match lines (data and colours), GPU inputs included, and the same
refusals."""
import numpy as np
import pytest
import skimage.feature as sf

import ndimg.feature as nf
from helpers import to_engine

plt = pytest.importorskip("matplotlib.pyplot")


def _drawn(fn, *args, **kw):
    fig, ax = plt.subplots()
    try:
        fn(*args, ax=ax, **kw)
        return dict(image=ax.images[0].get_array().data.copy(), limits=ax.axis(),
                    scatter=[c.get_offsets().data.copy() for c in ax.collections],
                    lines=[(ln.get_xydata().copy(), ln.get_color()) for ln in ax.lines])
    finally:
        plt.close(fig)


@pytest.mark.parametrize("shapes", [((20, 30), (25, 18)), ((20, 30, 3), (20, 30, 3)), ((15, 15), (15, 15))])
@pytest.mark.parametrize("kw", [dict(), dict(alignment="vertical", only_matches=True), dict(matches_color="r"),
                                dict(keypoints_color="b", matches_color=["g", "y", "c", "m"])], ids=repr)
def test_like_skimage(engine, rng, shapes, kw):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    image0, image1 = (rng.random(s) for s in shapes)
    k0, k1 = rng.integers(0, 15, (6, 2)), rng.integers(0, 15, (5, 2))
    matches = np.array([[0, 1], [2, 0], [5, 4], [3, 3]])
    args = dict(keypoints0=k0, keypoints1=k1, matches=matches, **kw)
    expected = _drawn(sf.plot_matched_features, image0, image1, **args)
    got = _drawn(nf.plot_matched_features, to_engine(image0, engine), to_engine(image1, engine),
                 **{**args, "keypoints0": to_engine(k0, engine), "keypoints1": to_engine(k1, engine),
                    "matches": to_engine(matches, engine)})
    np.testing.assert_array_equal(got["image"], expected["image"])
    assert got["limits"] == expected["limits"]
    assert len(got["scatter"]) == len(expected["scatter"])
    for g, x in zip(got["scatter"], expected["scatter"]):
        np.testing.assert_array_equal(g, x)
    assert len(got["lines"]) == len(expected["lines"])
    for (g, gc), (x, xc) in zip(got["lines"], expected["lines"]):
        np.testing.assert_array_equal(g, x)
        assert np.array_equal(np.asarray(gc), np.asarray(xc))


@pytest.mark.parametrize("kw", [dict(alignment="diagonal"), dict(matches_color=["r"])], ids=repr)
def test_refusals(kw):
    fig, ax = plt.subplots()
    args = dict(keypoints0=np.zeros((2, 2)), keypoints1=np.zeros((2, 2)), matches=np.array([[0, 1], [1, 0]]), ax=ax)
    try:
        with pytest.raises(ValueError) as ref:
            sf.plot_matched_features(np.zeros((4, 4)), np.zeros((4, 4)), **args, **kw)
        with pytest.raises(ValueError) as ours:
            nf.plot_matched_features(np.zeros((4, 4)), np.zeros((4, 4)), **args, **kw)
        assert str(ours.value) == str(ref.value)
    finally:
        plt.close(fig)

"""examples/coins_segmentation.py (issue 30): the coins demo at scale 0.2 against scikit-learn's spectral
clustering of the same pixel graph, its GPU run against its NumPy run, and the script end to end."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest
from helpers import cupy_or_skip

pytest.importorskip("sklearn")
import skimage.data  # noqa: E402
from sklearn.cluster import spectral_clustering  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "coins_segmentation", Path(__file__).resolve().parents[1] / "examples" / "coins_segmentation.py")
demo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(demo)

SCALE, CLUSTERS = 0.2, 25


@pytest.fixture(scope="module")
def numpy_run():
    return demo.segment(skimage.data.coins(), SCALE, "cpu", CLUSTERS)


def test_numpy_run_matches_scikit_learn(numpy_run):
    import scipy.sparse

    labels, small = numpy_run
    assert labels.shape == small.shape == (61, 77)
    graph = demo.pixel_graph(small, np, scipy.sparse)
    ref = spectral_clustering(graph, n_clusters=CLUSTERS, eigen_tol=1e-7, assign_labels="kmeans", random_state=0)
    assert len(np.unique(labels)) == len(np.unique(ref)) == CLUSTERS
    assert adjusted_rand_score(ref, labels.ravel()) >= 0.9


def test_gpu_run_matches_numpy_run(numpy_run):
    cupy_or_skip()
    labels, small = demo.segment(skimage.data.coins(), SCALE, "gpu", CLUSTERS)
    np.testing.assert_allclose(small, numpy_run[1], rtol=1e-5, atol=1e-6)
    assert len(np.unique(labels)) == len(np.unique(numpy_run[0]))
    assert adjusted_rand_score(numpy_run[0].ravel(), labels.ravel()) >= 0.9


def test_script_writes_figures_and_table(tmp_path, capsys):
    demo.main(["--device", "cpu", "--scales", "0.1,0.2", "--out", str(tmp_path)])
    for name in ("coins_segmentation.png", "coins_timing.png", "coins_timing.md"):
        assert (tmp_path / name).stat().st_size > 0
    table = (tmp_path / "coins_timing.md").read_text().splitlines()
    assert [row.split("|")[1].strip() for row in table[2:]] == ["0.10", "0.20"]
    assert "coins_segmentation.png" in capsys.readouterr().out

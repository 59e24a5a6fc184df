"""skimage.future's manual segmentations against scikit-image's, both driven by the same synthetic mouse
events (matplotlib's Agg canvas; plt.show replaced by the event script)."""
from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backend_bases import MouseEvent  # noqa: E402
from skimage import future as sf  # noqa: E402

import ndimg.future as nf  # noqa: E402

CLICKS = [((2.3, 3.1), 1), ((15.2, 4.0), 1), ((12.7, 14.9), 1), ((0, 0), 3),     # a triangle
          ((5.0, 5.0), 1), ((9.0, 5.5), 1), ((9.5, 11.0), 1), ((4.0, 10.0), 1), ((0, 0), 3),
          ((1.0, 1.0), 1), ((3.0, 1.0), 1), ((2.0, 2.0), 1), ((0, 0), 3)]
LASSOS = [[(2.0, 2.0), (14.0, 3.0), (13.0, 12.0), (3.0, 13.0)], [(6.0, 6.0), (8.0, 6.5)],   # 2 points: ignored
          [(5.0, 5.0), (9.0, 5.0), (9.0, 9.0), (6.0, 10.0), (4.5, 7.0)]]


def _event(fig, name, xy, button):
    ax = fig.axes[0]
    x, y = ax.transData.transform(xy)
    fig.canvas.callbacks.process(name, MouseEvent(name, fig.canvas, x, y, button))


def _script(kind, undo_after=None):
    def show(block=True):
        fig = plt.gcf()
        if kind == "polygon":
            for i, (xy, button) in enumerate(CLICKS):
                _event(fig, "button_press_event", xy, button)
                if undo_after == i:   # the undo button: a press and release inside its axes
                    bx = fig.axes[1]
                    x, y = bx.transAxes.transform((0.5, 0.5))
                    for name in ("button_press_event", "button_release_event"):
                        fig.canvas.callbacks.process(name, MouseEvent(name, fig.canvas, x, y, 1))
        else:
            for path in LASSOS:
                _event(fig, "button_press_event", path[0], 1)
                for xy in path[1:]:
                    _event(fig, "motion_notify_event", xy, 1)
                _event(fig, "button_release_event", path[-1], 1)
        plt.close(fig)
    return show


@pytest.mark.parametrize("kind", ["polygon", "lasso"])
@pytest.mark.parametrize("undo_after", [None, 8])
@pytest.mark.parametrize("shape", [(18, 20), (18, 20, 3)])
def test_manual_segmentation(monkeypatch, kind, undo_after, shape):
    image = np.random.default_rng(0).random(shape)
    if kind == "lasso":
        # scikit-image drops its LassoSelector at once, and matplotlib holds a widget's callbacks weakly: kept
        # alive here, so that both sessions see the strokes (ndimg keeps its selector while the window lives)
        alive = []

        class KeptLasso(matplotlib.widgets.LassoSelector):
            def __init__(self, *args, **kw):
                super().__init__(*args, **kw)
                alive.append(self)

        monkeypatch.setattr(matplotlib.widgets, "LassoSelector", KeptLasso)
    results = []
    for mod in (sf, nf):
        monkeypatch.setattr(plt, "show", _script(kind, undo_after))
        results.append(getattr(mod, f"manual_{kind}_segmentation")(image, alpha=0.3))
    np.testing.assert_array_equal(results[1], results[0])
    assert results[1].dtype == results[0].dtype
    assert results[0].max() > 1   # the script drew something


@pytest.mark.parametrize("kind", ["polygon", "lasso"])
def test_manual_segmentation_errors(monkeypatch, kind):
    monkeypatch.setattr(plt, "show", _script(kind))
    for image in (np.zeros(5), np.zeros((2, 3, 4, 5))):
        with pytest.raises(ValueError):
            getattr(nf, f"manual_{kind}_segmentation")(image)
    # scikit-image hands np.stack a generator with return_all=True, which NumPy 2 refuses
    for mod in (sf, nf):
        monkeypatch.setattr(plt, "show", _script(kind))
        with pytest.raises(TypeError):
            getattr(mod, f"manual_{kind}_segmentation")(np.zeros((18, 20)), return_all=True)

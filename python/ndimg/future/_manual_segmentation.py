"""skimage.future's interactive segmentation (skimage/future/manual_segmentation.py): polygons drawn with
matplotlib's mouse events or lasso become labels (ndimg.draw.polygon fills them). The drawing is
matplotlib's, on the host; a GPU image is shown from a host copy."""
from __future__ import annotations

from functools import reduce

import numpy as np

from ..draw import polygon
from ..ndimage._footprint import to_host

LEFT_CLICK = 1
RIGHT_CLICK = 3


def _mask_from_vertices(vertices, shape, label):
    mask = np.zeros(shape, dtype=int)
    rr, cc = polygon([y for x, y in vertices], [x for x, y in vertices], shape)
    mask[rr, cc] = label
    return mask


def _draw_polygon(ax, vertices, alpha=0.4):
    import matplotlib.pyplot as plt
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Polygon

    drawn = ax.add_collection(PatchCollection([Polygon(vertices, closed=True)], match_original=True, alpha=alpha))
    plt.draw()
    return drawn


def _session(image, draw_tools, return_all):
    """Show `image` with an undo button, let draw_tools(fig, ax, undo_axes, vertex_lists, drawn) connect its
    mouse handling, block until the window closes, and return the labels of the polygons kept."""
    import matplotlib
    import matplotlib.pyplot as plt

    if image.ndim not in (2, 3):
        raise ValueError("Only 2D grayscale or RGB images are supported.")
    image = to_host(image)
    vertex_lists, drawn = [], []
    fig, ax = plt.subplots()
    fig.subplots_adjust(bottom=0.2)
    ax.imshow(image, cmap="gray")
    ax.set_axis_off()

    def undo(*args, **kwargs):
        if vertex_lists:
            vertex_lists.pop()
            drawn.pop().remove()
            fig.canvas.draw_idle()

    undo_axes = fig.add_axes([0.85, 0.05, 0.075, 0.075])
    undo_button = matplotlib.widgets.Button(undo_axes, "\u27f2")
    undo_button.on_clicked(undo)
    keep = draw_tools(fig, ax, undo_axes, vertex_lists, drawn)   # widgets live while the window does
    plt.show(block=True)
    del keep, undo_button
    labels = (_mask_from_vertices(v, image.shape[:2], i) for i, v in enumerate(vertex_lists, start=1))
    if return_all:
        return np.stack(labels)   # a generator, as scikit-image passes: NumPy 2 refuses it (TypeError) as there
    return reduce(np.maximum, labels, np.broadcast_to(0, image.shape[:2]))


def manual_polygon_segmentation(image, alpha=0.4, return_all=False):
    """Label polygons clicked on the image (see skimage.future.manual_polygon_segmentation): left clicks add
    vertices, a right click closes the polygon, the button undoes the last one."""
    def tools(fig, ax, undo_axes, vertex_lists, drawn):
        import matplotlib.pyplot as plt

        current, preview = [], []

        def on_click(event):
            if event.inaxes is None or event.inaxes is undo_axes or ax.get_navigate_mode():
                return
            if event.button == LEFT_CLICK:
                current.append([event.xdata, event.ydata])
                if preview:
                    preview.pop().remove()
                preview.append(_draw_polygon(ax, current, alpha=alpha / 1.4))
            elif event.button == RIGHT_CLICK and current:
                vertex_lists.append(current[:])
                drawn.append(_draw_polygon(ax, current, alpha=alpha))
                preview.pop().remove()
                del current[:]
                plt.draw()

        return fig.canvas.mpl_connect("button_press_event", on_click)

    return _session(image, tools, return_all)


def manual_lasso_segmentation(image, alpha=0.4, return_all=False):
    """Label regions drawn with a lasso on the image (see skimage.future.manual_lasso_segmentation); the
    button undoes the last one."""
    def tools(fig, ax, undo_axes, vertex_lists, drawn):
        import matplotlib
        import matplotlib.pyplot as plt

        def on_select(vertices):
            if len(vertices) < 3:
                return
            vertex_lists.append(vertices)
            drawn.append(_draw_polygon(ax, vertices, alpha=alpha))
            plt.draw()

        return matplotlib.widgets.LassoSelector(ax, on_select)

    return _session(image, tools, return_all)

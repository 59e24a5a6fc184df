import numpy as np
import pytest
import skimage.filters as sf

from ndimg import filters as nf
from helpers import assert_close, assert_raises_like

TYPES = ["hann", "boxcar", "triang", "flattop", "blackmanharris", 8.5, ("tukey", 0.8), ("gaussian", 2.5),
         ("general_gaussian", 1.5, 3), ("kaiser", 4)]


@pytest.mark.parametrize("window_type", TYPES)
@pytest.mark.parametrize("shape", [7, 6.0, (1,), (10,), (1, 1), (5, 8), [9, 4], (4, 1, 6), (3, 5, 2, 4)])
def test_types_shapes(window_type, shape):
    assert_close(nf.window(window_type, shape), sf.window(window_type, shape), "filters.window")


@pytest.mark.filterwarnings("ignore:divide by zero")
@pytest.mark.parametrize("shape", [(0, 4), (3, 0, 2)])
def test_empty_axis(shape):  # an empty window (a window with no zero in it fails, tested below)
    assert_close(nf.window("hann", shape), sf.window("hann", shape), "filters.window")


@pytest.mark.parametrize("warp_kwargs", [
    dict(order=0), dict(order=1), dict(order=0, clip=False), dict(clip=False), dict(preserve_range=True),
    dict(output_shape=(3, 3)), dict(map_args={"a": 1}),
])
@pytest.mark.parametrize("shape", [(6, 9), (5, 4, 3)])
@pytest.mark.parametrize("window_type", ["hann", "boxcar", ("tukey", 0.3)])
def test_warp_kwargs(warp_kwargs, shape, window_type):
    expected = sf.window(window_type, shape, warp_kwargs=warp_kwargs)
    assert_close(nf.window(window_type, shape, warp_kwargs=warp_kwargs), expected, "filters.window")


@pytest.mark.filterwarnings("ignore:Bi-quadratic")
@pytest.mark.parametrize("order", [2, 3, 4, 5])
@pytest.mark.parametrize("shape", [(6, 9), (5, 4, 3)])
def test_spline_orders(order, shape):
    """Orders 2-5 resample with ndimg's B-spline map_coordinates; the scikit-image backend takes them."""
    from ndimg.backends.skimage import placement, spec_for

    kw = dict(warp_kwargs=dict(order=order))
    assert_close(nf.window("hann", shape, **kw), sf.window("hann", shape, **kw), "filters.window")
    assert placement(spec_for("skimage.filters:window"), ("hann", shape), kw)[0]


@pytest.mark.filterwarnings("ignore:divide by zero")
@pytest.mark.parametrize("args", [
    ("hann", (3, -1)), ("hann", ()), ("hann", 5.5), ("hann", (4, 2.5)), ("hann", 0), ("hann", "abc"),
    ("bogus", (4, 4)), (("gaussian",), (4, 4)), ("boxcar", (0, 4)), ("triang", (0, 4), dict(order=0)),
    ("hann", (4, 4), dict(order=6)), ("hann", (4, 4), dict(order=-1)), ("hann", (4, 4), dict(mode="edge")),
    ("hann", (4, 4), dict(cval=1.0)), ("hann", (4, 4), dict(bogus=1)), ("hann", (4, 4), dict(output_shape=2.5)),
])
def test_bad_input_raises_like_skimage(args):
    assert_raises_like(lambda: sf.window(*args), lambda: nf.window(*args))

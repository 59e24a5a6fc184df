"""euler_number and perimeter_crofton from one pass of the window configuration histogram
(_core.measure_window_codes), perimeter from one pass of its codes (_core.measure_perimeter_codes), on shapes the generated registry cases do not reach: one-wide axes, views with
negative and non-unit strides, non-bool input."""
from __future__ import annotations

import numpy as np
import pytest
from skimage import measure as sk_measure

import ndimg.measure as nme
from helpers import to_engine, to_host


@pytest.mark.parametrize("shape", [(1, 1), (1, 9), (7, 1), (33, 70), (1, 1, 1), (5, 1, 8), (9, 12, 1), (20, 17, 23)])
def test_euler_and_crofton_odd_shapes(engine, rng, shape):
    for density in (0.2, 0.6):
        a = rng.random(shape) < density
        for view in (a, a[::-1], a[..., ::2]):
            for c in ((1, 2) if a.ndim == 2 else (1, 3)):
                assert int(to_host(nme.euler_number(to_engine(view, engine), c))) == sk_measure.euler_number(view, c)
            if a.ndim == 2:
                for d in (2, 4):
                    np.testing.assert_allclose(to_host(nme.perimeter_crofton(to_engine(view, engine), d)),
                                               sk_measure.perimeter_crofton(view, d), rtol=1e-12)


def test_window_codes_brute_force(engine, rng):
    """Each window of the zero-padded image counted under scikit-image's code (its convolution weights 1..128
    on the corners, see _regionprops_utils._corner_bits), for non-bool input read as nonzero."""
    from ndimg import _core
    from ndimg._engine import stream_ptr, xp_of

    a = (rng.random((4, 5, 6)) * 3).astype(np.int16) - 1
    weights = {(1, 1, 1): 1, (1, 0, 1): 2, (1, 1, 0): 4, (1, 0, 0): 8,
               (0, 1, 1): 16, (0, 0, 1): 32, (0, 1, 0): 64, (0, 0, 0): 128}
    p = np.pad(a != 0, 1)
    exp = np.zeros(256, np.int64)
    for q in np.ndindex(5, 6, 7):
        exp[sum(w for o, w in weights.items() if p[q[0] + o[0], q[1] + o[1], q[2] + o[2]])] += 1
    x = to_engine(a, engine)
    hist = xp_of(x).zeros(256, np.int64)
    _core.measure_window_codes(x, hist, stream=stream_ptr(hist))
    np.testing.assert_array_equal(to_host(hist), exp)


@pytest.mark.parametrize("shape", [(1, 1), (1, 9), (7, 1), (2, 3), (33, 70), (300, 41)])
def test_perimeter_odd_shapes_and_values(engine, rng, shape):
    """uint8 values other than 1 (scikit-image's border is the image minus its erosion, wrapped in uint8, and
    its weighted sums wrap too), views, both neighbourhoods; sums past 49 are scikit-image's ValueError."""
    for a in (rng.random(shape) < 0.6, (rng.random(shape) < 0.6) * rng.integers(1, 4, shape).astype(np.uint8)):
        for view in (a, a[::-1], a[:, ::2]):
            for nb in (4, 8):
                try:
                    exp = sk_measure.perimeter(view, nb)
                except ValueError:
                    with pytest.raises(ValueError):
                        nme.perimeter(to_engine(view, engine), nb)
                    continue
                np.testing.assert_allclose(to_host(nme.perimeter(to_engine(view, engine), nb)), exp, rtol=1e-12)

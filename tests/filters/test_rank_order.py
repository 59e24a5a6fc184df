import numpy as np
import pytest

from ndimg._registry import NUMERIC
from helpers import check_against_reference, random_image


def check(engine, x):
    check_against_reference(engine, "filters.rank_order", x, _tol="exact")


@pytest.mark.parametrize("dtype", NUMERIC + ("bool",))
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
@pytest.mark.parametrize("shape", [(1, 1), (7, 9), (4, 5, 6), (300,)])
def test_rank_order(engine, rng, dtype, layout, shape):
    x = random_image(rng, shape, dtype, layout)
    if dtype not in ("bool",):
        x = (x // 7 if x.dtype.kind in "iu" else np.round(x, 1)).astype(dtype)  # plenty of ties
    check(engine, x)


def test_rank_order_nan(engine):
    check(engine, np.array([[np.nan, 1.0, -2.0], [1.0, np.nan, 3.0]]))

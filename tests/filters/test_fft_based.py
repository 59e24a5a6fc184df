import numpy as np
import pytest
import skimage.filters as sf

from ndimg import filters as nf
from ndimg._registry import ALL
from helpers import assert_close, assert_raises_like, random_image, to_engine, to_host


@pytest.mark.parametrize("dtype", ALL + ("float16",))
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
@pytest.mark.parametrize("shape", [(9, 6), (5, 4, 7)])
def test_dtypes_layouts(engine, rng, dtype, layout, shape):
    x = random_image(rng, shape, dtype, layout)
    got = nf.butterworth(to_engine(x, engine), 0.1)
    assert_close(got, sf.butterworth(x, 0.1), "filters.butterworth")


@pytest.mark.parametrize("shape", [(1,), (7,), (1, 1), (2, 1), (11, 8), (3, 5, 4), (2, 3, 2, 3)])
@pytest.mark.parametrize("kw", [
    dict(),
    dict(cutoff_frequency_ratio=0.3, high_pass=False, order=3.5),
    dict(cutoff_frequency_ratio=0.5, order=1, squared_butterworth=False),
    dict(cutoff_frequency_ratio=0.2, high_pass=False, npad=3),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_parameters_shapes(engine, rng, shape, kw, dtype):
    x = random_image(rng, shape, dtype)
    assert_close(nf.butterworth(to_engine(x, engine), **kw), sf.butterworth(x, **kw), "filters.butterworth")


@pytest.mark.parametrize("shape,channel_axis", [((6, 7, 3), -1), ((6, 7, 3), 2), ((2, 9, 8), 0),
                                                ((5, 2, 7), 1), ((4, 5, 6, 2), -1)])
@pytest.mark.parametrize("npad", [0, 2])
def test_channel_axis(engine, rng, shape, channel_axis, npad):
    x = random_image(rng, shape, "uint8")
    kw = dict(cutoff_frequency_ratio=0.15, high_pass=False, channel_axis=channel_axis, npad=npad)
    got = to_host(nf.butterworth(to_engine(x, engine), **kw))
    assert_close(got, sf.butterworth(x, **kw), "filters.butterworth")
    # each channel is filtered on its own
    assert_close(np.take(got, 1, axis=channel_axis),
                 sf.butterworth(np.take(x, 1, axis=channel_axis), 0.15, False, npad=npad), "filters.butterworth")


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex(engine, rng, dtype):
    x = (rng.standard_normal((7, 6)) + 1j * rng.standard_normal((7, 6))).astype(dtype)
    got = nf.butterworth(to_engine(x, engine), 0.2, order=2.5)
    expected = sf.butterworth(x, 0.2, order=2.5)
    assert str(got.dtype) == str(expected.dtype)
    np.testing.assert_allclose(to_host(got), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("bad", [
    dict(cutoff_frequency_ratio=0.51), dict(cutoff_frequency_ratio=-0.1), dict(npad=-1),
    dict(channel_axis=2), dict(channel_axis=-3),
])
def test_bad_input_raises_like_skimage(engine, bad):
    x = np.ones((4, 5))
    assert_raises_like(lambda: sf.butterworth(x, **bad), lambda: nf.butterworth(to_engine(x, engine), **bad))


def test_empty_raises_like_skimage(engine):
    x = np.ones((0, 5))
    assert_raises_like(lambda: sf.butterworth(x), lambda: nf.butterworth(to_engine(x, engine)))


@pytest.mark.parametrize("dtype", ["uint8", "float32"])
@pytest.mark.parametrize("channel_axis", [-1, 0, 1])
def test_channel_axis_layout(engine, rng, dtype, channel_axis):
    """Channels anywhere (the CUDA engine transforms them channel-first): scikit-image's values, dtype and
    C-contiguous layout."""
    x = random_image(rng, (10, 12, 3), dtype)
    ref = sf.butterworth(x, 0.1, channel_axis=channel_axis, order=3.0)
    got = nf.butterworth(to_engine(x, engine), 0.1, channel_axis=channel_axis, order=3.0)
    assert got.flags.c_contiguous == ref.flags.c_contiguous
    assert_close(got, ref, "filters.butterworth")

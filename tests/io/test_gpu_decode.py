"""CuImage.read_region(..., device="cuda"): the GPU regions equal the CPU regions (JPEG within 2 levels per
channel, other codecs exactly) for every compression and vendor layout of the reader's test slides; bad
tile data raises SlideError and the slide stays usable; memory stays flat over many batches. Without a GPU
these skip, except the check that device="cuda" then says what is missing."""
import numpy as np
import pytest
import tifffile

import ndimg.io
from ndimg.io import CuImage, SlideError
from helpers import CUDA_READY

gpu = pytest.mark.skipif(not CUDA_READY, reason="no CUDA device")

PATCH = (200, 150)
LOSSLESS = ("none", "deflate", "lzw", "zstd")


def tolerance(name):
    """0 for slides of lossless codecs only; 2 where any level is JPEG (Aperio and Philips are)."""
    return 0 if any(k in name for k in LOSSLESS) and "philips" not in name else 2


def host(x):
    if type(x).__module__.startswith("torch"):
        return x.cpu().numpy()
    import cupy

    return cupy.asnumpy(x)


def assert_same(got, expected, tol):
    got = host(got)
    assert got.shape == expected.shape and got.dtype == np.uint8
    diff = np.abs(got.astype(np.int16) - expected.astype(np.int16)).max() if got.size else 0
    assert diff <= tol, f"max difference {diff} > {tol}"


@pytest.fixture(scope="module")
def vendor_slides(tmp_path_factory, slide_image):
    """Philips (RGB JPEG levels; sparse deflate tiles) and OME-TIFF (SubIFD deflate) slides, written by the
    vendor tests' writers where they can be imported."""
    try:
        from test_vendors import write_ome, write_philips
    except BaseException:  # openslide missing: test_vendors skips itself at import
        return {}
    d = tmp_path_factory.mktemp("vendors")
    img = slide_image[:1000, :1300].copy()
    return {"philips_jpeg_rgb": write_philips(str(d / "philips.tiff"), img),
            "philips_sparse": write_philips(str(d / "sparse.tiff"), img, sparse={(1, 1), (0, 3)}),
            "ome_deflate": write_ome(str(d / "ome.tif"), img)}


@pytest.fixture(scope="module")
def gray_jpeg(tmp_path_factory, slide_image):
    from helpers_io import write_pyramid
    return write_pyramid(str(tmp_path_factory.mktemp("gray") / "gray_jpeg.tif"), slide_image[..., 0].copy(),
                         compression="jpeg")


@pytest.fixture(scope="module")
def jpeg_variants(tmp_path_factory, slide_image):
    """YCbCr JPEG tiles without chroma subsampling, and RGB-component JPEG tiles with an Adobe marker
    (Photometric RGB, no colour transform), which nvJPEG must not convert."""
    from helpers_io import write_pyramid
    d = tmp_path_factory.mktemp("jpegs")
    return {"jpeg444": write_pyramid(str(d / "jpeg444.tif"), slide_image, compression="jpeg",
                                     compressionargs={"level": 90}, subsampling=(1, 1)),
            "jpeg_rgb_adobe": write_pyramid(str(d / "rgb.tif"), slide_image, compression="jpeg", photometric="rgb",
                                            compressionargs={"outcolorspace": "RGB"})}


@pytest.fixture(scope="module")
def all_slides(tifffile_slides, aperio_slide, vendor_slides, gray_jpeg, jpeg_variants, request):
    out = dict(tifffile_slides)
    out.update(vendor_slides)
    out["aperio"] = aperio_slide
    out["gray_jpeg"] = gray_jpeg
    out.update(jpeg_variants)
    try:
        vips = request.getfixturevalue("vips_slides")
        out.update({f"vips_{k}": v for k, v in vips.items()})
    except pytest.skip.Exception:
        pass
    return out


def locations(rng, img, level, n):
    """Level-0 locations of patches spread over the level, some hanging over its edges."""
    w, h = img.resolutions["level_dimensions"][level]
    ds = img.resolutions["level_downsamples"][level]
    xs = rng.integers(-PATCH[0] // 2, w - PATCH[0] // 2, n)
    ys = rng.integers(-PATCH[1] // 2, h - PATCH[1] // 2, n)
    return np.stack([xs, ys], 1) * int(round(ds))


# ------------------------------------------------------------------------------------------- no GPU

@pytest.mark.skipif(CUDA_READY, reason="a CUDA device is present")
def test_without_gpu_says_what_is_missing(tifffile_slides):
    with CuImage(tifffile_slides["jpeg"]) as img:
        with pytest.raises(RuntimeError, match="CUDA|CuPy|GPU"):
            img.read_region((0, 0), (8, 8), device="cuda")
        with pytest.raises(RuntimeError, match="CUDA|CuPy|GPU"):
            img.read_region([(0, 0), (8, 8)], (8, 8), device="cuda:0", batch_size=2)
        assert img.read_region((0, 0), (8, 8)).shape == (8, 8, 3)  # the CPU path is unaffected


def test_bad_device_arguments(tifffile_slides):
    with CuImage(tifffile_slides["jpeg"]) as img:
        with pytest.raises(ValueError):
            img.read_region((0, 0), (8, 8), device="cuda:x")
        with pytest.raises(ValueError):
            img.read_region((0, 0), (8, 8), device="tpu")
        with pytest.raises(ValueError):
            img.read_region((0, 0), (8, 8), array_type="torch")  # array_type is for device="cuda"
        if CUDA_READY:
            with pytest.raises(ValueError):
                img.read_region((0, 0), (8, 8), device="cuda", array_type="jax")


# --------------------------------------------------------------------------------------------- GPU

@gpu
def test_every_slide_single_regions(all_slides, rng):
    for name, path in all_slides.items():
        with CuImage(path) as img:
            for level in range(img.resolutions["level_count"]):
                w, h = img.resolutions["level_dimensions"][level]
                for x, y, size in [(0, 0, PATCH), (-7, -5, PATCH), (w // 3, h // 3, (w, h)), (0, 0, None)]:
                    ds = int(round(img.resolutions["level_downsamples"][level]))
                    kw = dict(location=(x * ds, y * ds), size=size, level=level)
                    assert_same(img.read_region(**kw, device="cuda"), img.read_region(**kw), tolerance(name)), \
                        (name, level, x, y, size)


@gpu
@pytest.mark.parametrize("num_workers", [0, 2])
def test_every_slide_batches(all_slides, rng, num_workers):
    for name, path in all_slides.items():
        with CuImage(path) as img:
            for level in range(img.resolutions["level_count"]):
                xy = locations(rng, img, level, 23)
                for kw in (dict(batch_size=8), dict(batch_size=8, shuffle=True, seed=5),
                           dict(batch_size=8, drop_last=True), dict(batch_size=1)):
                    common = dict(size=PATCH, level=level, num_workers=num_workers, **kw)
                    cpu = list(img.read_region(xy, **common))
                    it = img.read_region(xy, **common, device="cuda")
                    np.testing.assert_array_equal(it.locations, img.read_region(xy, **common).locations)
                    got = list(it)
                    assert len(got) == len(cpu), (name, kw)
                    for g, c in zip(got, cpu):
                        assert_same(g, c, tolerance(name)), (name, level, kw)


@gpu
@pytest.mark.parametrize("share", ["auto", "0.5", "1"])
def test_cpu_share_of_nvjpeg_tiles(tifffile_slides, rng, monkeypatch, share):
    # NDIMG_NVJPEG_CPU_SHARE: CPU threads decode part of each batch beside nvJPEG; the pixels stay the CPU's
    monkeypatch.setenv("NDIMG_NVJPEG_CPU_SHARE", share)
    with CuImage(tifffile_slides["jpeg"]) as img:
        xy = locations(rng, img, 0, 60)
        common = dict(size=PATCH, batch_size=12, num_workers=2)
        for g, c in zip(img.read_region(xy, **common, device="cuda"), img.read_region(xy, **common)):
            assert_same(g, c, 2)


@gpu
def test_cpu_share_must_be_auto_or_a_fraction(tifffile_slides, monkeypatch):
    monkeypatch.setenv("NDIMG_NVJPEG_CPU_SHARE", "lots")
    with CuImage(tifffile_slides["jpeg"]) as img:
        with pytest.raises(ValueError, match="NDIMG_NVJPEG_CPU_SHARE"):
            img.read_region((0, 0), (64, 64), device="cuda")


@gpu
def test_torch_output(tifffile_slides, rng):
    torch = pytest.importorskip("torch")
    with CuImage(tifffile_slides["jpeg"]) as img:
        xy = locations(rng, img, 0, 10)
        region = img.read_region((5, 5), (300, 200), device="cuda", array_type="torch")
        assert isinstance(region, torch.Tensor) and region.is_cuda and region.dtype == torch.uint8
        assert_same(region, img.read_region((5, 5), (300, 200)), 2)
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):  # queued on the caller's current stream
            batches = list(img.read_region(xy, PATCH, batch_size=4, num_workers=2, device="cuda",
                                           array_type="torch"))
            stream.synchronize()
        for g, c in zip(batches, img.read_region(xy, PATCH, batch_size=4)):
            assert isinstance(g, torch.Tensor)
            assert_same(g, c, 2)


@gpu
def test_cupy_current_stream(jpeg_variants, rng):
    import cupy
    with CuImage(jpeg_variants["jpeg_rgb_adobe"]) as img:
        xy = locations(rng, img, 0, 12)
        with cupy.cuda.Stream(non_blocking=True) as s:
            got = [b.copy() for b in img.read_region(xy, PATCH, batch_size=5, num_workers=1, device="cuda")]
            s.synchronize()
        for g, c in zip(got, img.read_region(xy, PATCH, batch_size=5)):
            assert isinstance(g, cupy.ndarray)
            assert_same(g, c, 2)


def corrupt_tile(path, page, index):
    with tifffile.TiffFile(path) as t:
        p = t.pages[page]
        off, count = p.dataoffsets[index], p.databytecounts[index]
    with open(path, "r+b") as f:
        f.seek(off + 2)
        f.write(b"\x00" * (count - 2))


@gpu
@pytest.mark.parametrize("num_workers", [0, 2])
def test_corrupt_tile_then_usable(tmp_path, slide_image, num_workers):
    from helpers_io import write_pyramid
    path = write_pyramid(str(tmp_path / "bad.tif"), slide_image[:600, :800].copy(), tile=(128, 128),
                         compression="jpeg")
    corrupt_tile(path, 0, 1)  # tile (0, 1) of level 0
    with CuImage(path) as img:
        for _ in range(2):
            with pytest.raises(SlideError, match="JPEG"):
                img.read_region((130, 0), (20, 20), device="cuda")
        good = [(300, 200), (0, 300)]
        xy = good * 3 + [(140, 10)] + good  # the bad tile in the second batch
        it = img.read_region(xy, (64, 64), batch_size=4, num_workers=num_workers, device="cuda")
        first = next(it)
        assert_same(first, next(img.read_region(xy, (64, 64), batch_size=4)), 2)
        with pytest.raises(SlideError, match="JPEG"):
            next(it)
        with pytest.raises(StopIteration):  # the iterator stops after its error
            next(it)
        # the slide stays usable, on both paths
        assert_same(img.read_region((0, 128), (400, 200), device="cuda"), img.read_region((0, 128), (400, 200)), 2)
        for g, c in zip(img.read_region(good * 4, (64, 64), batch_size=4, device="cuda"),
                        img.read_region(good * 4, (64, 64), batch_size=4)):
            assert_same(g, c, 2)


@gpu
def test_dropped_iterator_frees(tifffile_slides, rng):
    import cupy
    with CuImage(tifffile_slides["jpeg"]) as img:
        xy = locations(rng, img, 0, 64)
        for _ in range(3):
            it = img.read_region(xy, PATCH, batch_size=8, num_workers=2, device="cuda")
            next(it)
            del it  # stops its thread, frees its buffers
        cupy.cuda.Device().synchronize()


def device_memory_used():
    import cupy
    cupy.cuda.Device().synchronize()
    free, total = cupy.cuda.runtime.memGetInfo()
    return total - free


@gpu
@pytest.mark.parametrize("name", ["jpeg", "deflate"])
def test_no_leak_over_many_batches(tifffile_slides, rng, name):
    import cupy
    pool = cupy.get_default_memory_pool()
    with CuImage(tifffile_slides[name]) as img:
        xy = locations(rng, img, 0, 64)

        def run(rounds):
            for _ in range(rounds):
                for b in img.read_region(xy, (64, 64), batch_size=16, num_workers=2, device="cuda"):
                    del b
                img.read_region((100, 100), (300, 300), device="cuda")

        run(3)  # warm up: nvJPEG handles, states and pools
        pool.free_all_blocks()
        pool_before = pool.used_bytes()
        # The device's used memory counts other processes too (pytest-xdist workers): a leak grows it in each
        # of three chunks of 20 rounds (80 batches, 20 regions), another process's allocations hardly in all.
        growth = []
        for _ in range(3):
            before = device_memory_used()
            run(20)
            pool.free_all_blocks()
            growth.append(device_memory_used() - before)
        assert pool.used_bytes() == pool_before
        assert min(growth) < 21 << 20, f"device memory grew by {[g >> 20 for g in growth]} MiB per 20 rounds"

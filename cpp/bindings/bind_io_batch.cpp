// ndimg._core: batched region reading (ndimg/io/batch.hpp) and the tile cache (ndimg/io/tile_cache.hpp);
// ndimg.io.CuImage wraps them in cuCIM's API.
#ifdef NDIMG_WITH_IO
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include "binders.hpp"
#include "convert.hpp"
#include "ndimg/io/batch.hpp"
#include "ndimg/io/tile_cache.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::py {

namespace nb = nanobind;
using Rgb = nb::ndarray<uint8_t, nb::shape<-1, -1, 3>, nb::c_contig, nb::device::cpu>;
using Locations = nb::ndarray<const int64_t, nb::shape<-1, 2>, nb::c_contig, nb::device::cpu>;

NDIMG_BINDINGS(io_batch) {
  using io::TileCache;
  nb::class_<TileCache>(m, "TileCache")
      .def(
          "__init__",
          [](TileCache* self, int type, uint64_t memory_capacity, uint64_t capacity, bool record_stat) {
            if (type < 0 || type > 2) throw ValueError("unknown cache type " + std::to_string(type));
            nb::gil_scoped_release nogil;
            new (self) TileCache(io::CacheType(type), memory_capacity, capacity, record_stat);
          },
          nb::arg("type"), nb::arg("memory_capacity"), nb::arg("capacity"), nb::arg("record_stat"))
      .def_static("attach", &TileCache::attach, nb::arg("shm_name"))
      .def_prop_ro("type", [](const TileCache& c) { return int(c.type()); })
      .def_prop_ro("shm_name", &TileCache::shm_name)
      .def_prop_ro("memory_capacity", &TileCache::memory_capacity)
      .def_prop_ro("capacity", &TileCache::capacity)
      .def_prop_ro("size", &TileCache::size)
      .def_prop_ro("memory_size", &TileCache::memory_size)
      .def_prop_ro("hit_count", &TileCache::hit_count)
      .def_prop_ro("miss_count", &TileCache::miss_count)
      .def("get_record", nb::overload_cast<>(&TileCache::record, nb::const_))
      .def("set_record", nb::overload_cast<bool>(&TileCache::record), nb::arg("on"))
      .def("clear", &TileCache::clear);
  m.def("set_tile_cache", &io::set_tile_cache, nb::arg("cache").none());
  m.def("get_tile_cache", &io::tile_cache);

  m.def(
      "read_region_rgb",
      [](const io::Slide& s, int64_t x, int64_t y, int level, Rgb out, unsigned num_workers, nb::object progress) {
        const int64_t h = int64_t(out.shape(0)), w = int64_t(out.shape(1));
        uint8_t* p = out.data();
        nb::handle cb = progress;  // borrowed: the caller holds it for the whole call
        std::function<void(int64_t, int64_t)> report;
        if (!progress.is_none())
          report = [cb](int64_t done, int64_t total) {
            nb::gil_scoped_acquire gil;
            cb(done, total);
          };
        nb::gil_scoped_release nogil;
        io::read_region_rgb(s, x, y, level, w, h, num_workers, p, report);
      },
      nb::arg("slide"), nb::arg("x"), nb::arg("y"), nb::arg("level"), nb::arg("out"), nb::arg("num_workers"),
      nb::arg("progress").none());

  // The stored pixels of `level` at its own coordinates (lx, ly), as a TIFF reader gives them (no OpenSlide
  // resampling, no drawing of missing tiles): 8-bit RGB or RGBA (out of 3 or 4 uint8 channels) or, with `raw`,
  // the level's own samples. Read on the calling thread alone: the Dask and zarr views read chunks on
  // threads of their own, which would otherwise queue on the shared pool one job at a time.
  m.def(
      "read_level",
      [](const io::Slide& s, int level, int64_t lx, int64_t ly, bool raw,
         nb::ndarray<nb::c_contig, nb::device::cpu> out) {
        const io::Level& l = io::checked_level(s, level);
        const auto& d = s.level_ifd(level);
        if (out.ndim() != 3) throw ValueError("output must be (height, width, channels)");
        const int64_t h = int64_t(out.shape(0)), w = int64_t(out.shape(1)), c = int64_t(out.shape(2));
        if (raw ? c != d.samples || out.itemsize() != d.bytes_per_sample() : (c != 3 && c != 4) || out.itemsize() != 1)
          throw ValueError("output does not match the level's samples");
        io::check_size(w, h);
        io::check_location(lx), io::check_location(ly);
        void* p = out.data();
        nb::gil_scoped_release nogil;
        SerialScope serial;
        if (raw)
          s.tiff().read_region_raw(l.ifd, lx, ly, w, h, p);
        else
          s.tiff().read_region_8bit(l.ifd, lx, ly, w, h, static_cast<uint8_t*>(p), int(c), size_t(w) * size_t(c));
      },
      nb::arg("slide"), nb::arg("level"), nb::arg("x"), nb::arg("y"), nb::arg("raw"), nb::arg("out"));

  using io::PatchLoader;
  nb::class_<PatchLoader>(m, "PatchLoader")
      .def(
          "__init__",
          [](PatchLoader* self, const io::Slide& s, Locations xy, int level, int64_t w, int64_t h, uint32_t batch_size,
             uint32_t prefetch_factor, uint32_t num_workers, bool shuffle, uint64_t seed, bool drop_last) {
            std::vector<int64_t> v(xy.data(), xy.data() + 2 * xy.shape(0));
            nb::gil_scoped_release nogil;
            new (self) PatchLoader(s, std::move(v), level, w, h, batch_size, prefetch_factor, num_workers, shuffle,
                                   seed, drop_last);
          },
          nb::keep_alive<1, 2>(),  // the loader reads the slide until it is gone
          nb::arg("slide"), nb::arg("locations"), nb::arg("level"), nb::arg("w"), nb::arg("h"), nb::arg("batch_size"),
          nb::arg("prefetch_factor"), nb::arg("num_workers"), nb::arg("shuffle"), nb::arg("seed"), nb::arg("drop_last"))
      .def_prop_ro("size", &PatchLoader::size)
      .def_prop_ro("batch_count", &PatchLoader::batch_count)
      .def_prop_ro("locations", [](const PatchLoader& l) { return py::xy_array(l.locations()); }, nb::rv_policy::move)
      // (count, h, w, 3) uint8, or None after the last batch
      .def("next",
           [](PatchLoader& l) -> nb::object {
             uint32_t count = 0;
             auto batch = std::make_unique<io::Batch>();
             {
               nb::gil_scoped_release nogil;
               *batch = l.next(count);
             }
             if (!batch->data) return nb::none();
             uint8_t* p = batch->data.get();
             // the array owns the batch: when it goes, its buffer goes back to the loader's pool
             nb::capsule owner(batch.get(), [](void* q) noexcept { delete static_cast<io::Batch*>(q); });
             batch.release();
             size_t shape[4] = {count, size_t(l.height()), size_t(l.width()), 3};
             return nb::cast(nb::ndarray<nb::numpy, uint8_t>(p, 4, shape, owner));
           })
      .def("close", [](PatchLoader& l) {
        nb::gil_scoped_release nogil;
        l.close();
      });
}

}  // namespace ndimg::py
#endif  // NDIMG_WITH_IO

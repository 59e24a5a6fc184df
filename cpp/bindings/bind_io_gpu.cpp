// ndimg._core: slide regions decoded into GPU memory (ndimg/io/gpu_decode.hpp). Outputs are allocated in
// Python by the caller's array library and passed here as device pointers with the stream to queue on.
#if defined(NDIMG_WITH_IO) && defined(NDIMG_WITH_CUDA)
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "binders.hpp"
#include "convert.hpp"
#include "ndimg/io/gpu_decode.hpp"

namespace ndimg::py {

namespace nb = nanobind;
using Locations = nb::ndarray<const int64_t, nb::shape<-1, 2>, nb::c_contig, nb::device::cpu>;

NDIMG_BINDINGS(io_gpu) {
  namespace gpu = io::gpu;
  m.def("gpu_set_nvjpeg_candidates", &gpu::set_nvjpeg_candidates, nb::arg("paths"));
  m.def("gpu_nvjpeg_library", [] {
    nb::gil_scoped_release nogil;
    return gpu::nvjpeg_library();
  });
  m.def("gpu_nvjpeg_backend", [](int device) {
    nb::gil_scoped_release nogil;
    return gpu::nvjpeg_backend(device);
  }, nb::arg("device"));
  m.def(
      "gpu_read_region",
      [](const io::Slide& s, int64_t x, int64_t y, int level, int64_t w, int64_t h, int device, uintptr_t out,
         uintptr_t stream) {
        nb::gil_scoped_release nogil;
        gpu::read_region(s, x, y, level, w, h, device, reinterpret_cast<void*>(out), stream);
      },
      nb::arg("slide"), nb::arg("x"), nb::arg("y"), nb::arg("level"), nb::arg("w"), nb::arg("h"), nb::arg("device"),
      nb::arg("out"), nb::arg("stream"));

  using gpu::GpuPatchLoader;
  nb::class_<GpuPatchLoader>(m, "GpuPatchLoader")
      .def(
          "__init__",
          [](GpuPatchLoader* self, const io::Slide& s, Locations xy, int level, int64_t w, int64_t h,
             uint32_t batch_size, uint32_t prefetch_factor, uint32_t num_workers, bool shuffle, uint64_t seed,
             bool drop_last, int device) {
            std::vector<int64_t> v(xy.data(), xy.data() + 2 * xy.shape(0));
            nb::gil_scoped_release nogil;
            new (self) GpuPatchLoader(s, std::move(v), level, w, h, batch_size, prefetch_factor, num_workers, shuffle,
                                      seed, drop_last, device);
          },
          nb::keep_alive<1, 2>(),  // the loader reads the slide until it is gone
          nb::arg("slide"), nb::arg("locations"), nb::arg("level"), nb::arg("w"), nb::arg("h"), nb::arg("batch_size"),
          nb::arg("prefetch_factor"), nb::arg("num_workers"), nb::arg("shuffle"), nb::arg("seed"), nb::arg("drop_last"),
          nb::arg("device"))
      .def_prop_ro("size", &GpuPatchLoader::size)
      .def_prop_ro("batch_count", &GpuPatchLoader::batch_count)
      .def_prop_ro("locations", [](const GpuPatchLoader& l) { return py::xy_array(l.locations()); }, nb::rv_policy::move)
      .def("next_count", &GpuPatchLoader::next_count)
      .def(
          "next",
          [](GpuPatchLoader& l, uintptr_t out, uintptr_t stream) {
            nb::gil_scoped_release nogil;
            return l.next(reinterpret_cast<void*>(out), stream);
          },
          nb::arg("out"), nb::arg("stream"))
      .def("close", [](GpuPatchLoader& l) {
        nb::gil_scoped_release nogil;
        l.close();
      });
}

}  // namespace ndimg::py
#endif

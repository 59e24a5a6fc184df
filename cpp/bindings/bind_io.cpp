// ndimg._core.Slide: the C++ slide reader (ndimg/io/slide.hpp); ndimg.io wraps it in the OpenSlide API.
#ifdef NDIMG_WITH_IO
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "binders.hpp"
#include "ndimg/io/slide.hpp"

namespace ndimg::py {

namespace nb = nanobind;
using Rgba = nb::ndarray<uint8_t, nb::shape<-1, -1, 4>, nb::c_contig, nb::device::cpu>;

namespace {

// Text from a slide (TIFF ASCII tags, XML) as openslide-python decodes OpenSlide's: UTF-8, each invalid byte
// replaced by U+FFFD (a Latin-1 "µ" in a description is not an error)
nb::str text(const std::string& s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), Py_ssize_t(s.size()), "replace");
  if (!o) throw nb::python_error();
  return nb::steal<nb::str>(o);
}

}  // namespace

NDIMG_BINDINGS(io) {
  nb::exception<io::SlideError>(m, "SlideError", PyExc_Exception);  // no static Python handles (see module.cpp)
  using io::Slide;
  nb::class_<Slide>(m, "Slide")
      .def(
          "__init__",
          [](Slide* self, const std::string& path) {
            nb::gil_scoped_release nogil;
            new (self) Slide(path);
          },
          nb::arg("path"))
      .def_prop_ro("vendor", &Slide::vendor)
      .def_prop_ro("properties",
                   [](const Slide& s) {
                     nb::dict out;
                     for (auto& [k, v] : s.properties()) out[text(k)] = text(v);
                     return out;
                   })
      // (width, height, tile_width, tile_height, downsample) per level
      .def_prop_ro("levels",
                   [](const Slide& s) {
                     std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, double>> out;
                     for (auto& l : s.levels()) out.emplace_back(l.width, l.height, l.tile_width, l.tile_height, l.downsample);
                     return out;
                   })
      // name -> (width, height)
      .def_prop_ro("associated",
                   [](const Slide& s) {
                     nb::dict out;
                     for (auto& name : s.associated_names()) {
                       auto [w, h] = s.associated_size(name);
                       out[text(name)] = nb::make_tuple(w, h);
                     }
                     return out;
                   })
      // (samples per pixel, bits per sample) of a level, for read_region_raw
      .def("level_format",
           [](const Slide& s, int level) {
             const auto& d = s.level_ifd(level);
             return std::make_tuple(d.samples, d.bits);
           },
           nb::arg("level"))
      .def(
          "read_region_raw",
          [](const Slide& s, int64_t x, int64_t y, int level, nb::ndarray<nb::c_contig, nb::device::cpu> out) {
            const auto& d = s.level_ifd(level);
            if (out.ndim() != 3 || out.shape(2) != d.samples || out.itemsize() != d.bytes_per_sample())
              throw ValueError("output does not match the level's samples");
            int64_t h = int64_t(out.shape(0)), w = int64_t(out.shape(1));
            void* p = out.data();
            nb::gil_scoped_release nogil;
            s.read_region_raw(x, y, level, w, h, p);
          },
          nb::arg("x"), nb::arg("y"), nb::arg("level"), nb::arg("out"))
      .def("best_level_for_downsample", &Slide::best_level_for_downsample, nb::arg("downsample"))
      .def(
          "read_region",
          [](const Slide& s, int64_t x, int64_t y, int level, Rgba out) {
            int64_t h = int64_t(out.shape(0)), w = int64_t(out.shape(1));
            uint8_t* p = out.data();
            nb::gil_scoped_release nogil;
            s.read_region(x, y, level, w, h, p);
          },
          nb::arg("x"), nb::arg("y"), nb::arg("level"), nb::arg("out"))
      .def(
          "read_associated",
          [](const Slide& s, const std::string& name, Rgba out) {
            auto [w, h] = s.associated_size(name);
            if (out.shape(0) != h || out.shape(1) != w)
              throw ValueError("output does not have the associated image's shape");
            uint8_t* p = out.data();
            nb::gil_scoped_release nogil;
            s.read_associated(name, p);
          },
          nb::arg("name"), nb::arg("out"));
}

}  // namespace ndimg::py
#endif  // NDIMG_WITH_IO

// skimage.draw's rasterisers: the fills (either engine), the mask -> coordinates pass and the host
// coordinate generators, whose results come back as NumPy arrays (int64 rows and columns, float64 values).
#include <nanobind/ndarray.h>
#include <sys/mman.h>

#include <utility>
#include <vector>

#include "binders.hpp"
#include "draw/draw.hpp"

namespace ndimg::py {

namespace {

using Mask = nb::ndarray<const uint8_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Ints = nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

template <class T>
nb::object owned(std::vector<T>&& v) {
  auto* held = new std::vector<T>(std::move(v));
  nb::capsule owner(held, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  const size_t n = held->size();
  return nb::cast(nb::ndarray<nb::numpy, T>(held->data(), 1, &n, owner));
}

// A NumPy array of n elements left unwritten (its writer fills every one). Large ones are mapped with
// transparent huge pages: the coordinates of a big fill are tens of MB, and faulting them in 4 KiB pages
// costs more than computing them.
nb::object uninitialized(size_t n, int64_t*& data) {
  const size_t bytes = n * sizeof(int64_t);
  if (bytes >= (size_t(8) << 20)) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
      ::madvise(p, bytes, MADV_HUGEPAGE);
      data = static_cast<int64_t*>(p);
      auto* mapping = new std::pair<void*, size_t>(p, bytes);
      nb::capsule owner(mapping, [](void* m) noexcept {
        auto* pm = static_cast<std::pair<void*, size_t>*>(m);
        ::munmap(pm->first, pm->second);
        delete pm;
      });
      return nb::cast(nb::ndarray<nb::numpy, int64_t>(data, 1, &n, owner));
    }
  }
  data = new int64_t[n];
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<int64_t*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, int64_t>(data, 1, &n, owner));
}

void ellipse_mask(double r_org, double c_org, double r_rad, double c_rad, double sin_a, double cos_a, const View& out) {
  draw::ellipse_mask({r_org, c_org, r_rad, c_rad, sin_a, cos_a}, out);
}

// A generator run without the GIL.
template <class F>
draw::Coords generate(F&& f) {
  draw::Coords c;
  nb::gil_scoped_release nogil;
  f(c);
  return c;
}

nb::object pair(draw::Coords&& c) { return nb::make_tuple(owned(std::move(c.r)), owned(std::move(c.c))); }
nb::object triple(draw::Coords&& c) {
  return nb::make_tuple(owned(std::move(c.r)), owned(std::move(c.c)), owned(std::move(c.val)));
}

}  // namespace

NDIMG_BINDINGS(draw) {
  bind<&draw::polygon_mask>(m, "draw_polygon_mask", "vr", "vc", "r0", "c0", Out{"out"}, nb::arg("stream") = 0);
  bind<&ellipse_mask>(m, "draw_ellipse_mask", "r_org", "c_org", "r_rad", "c_rad", "sin_a", "cos_a", Out{"out"});
  m.def(
      "draw_mask_coords",
      [](Mask mask, int64_t r0, int64_t c0) {
        const int64_t rows = int64_t(mask.shape(0)), cols = int64_t(mask.shape(1));
        std::vector<int64_t> offsets;
        {
          nb::gil_scoped_release nogil;
          offsets = draw::nonzero_offsets(mask.data(), rows, cols);
        }
        int64_t *rr, *cc;
        nb::object r = uninitialized(size_t(offsets.back()), rr), c = uninitialized(size_t(offsets.back()), cc);
        {
          // written by the pool's threads: the pages are first touched there, not zeroed here first
          nb::gil_scoped_release nogil;
          draw::mask_coords(mask.data(), rows, cols, r0, c0, offsets, rr, cc);
        }
        return nb::make_tuple(r, c);
      },
      nb::arg("mask"), nb::arg("r0"), nb::arg("c0"));
  m.def("draw_line", [](int64_t r0, int64_t c0, int64_t r1, int64_t c1) {
    return pair(generate([&](draw::Coords& c) { draw::line(r0, c0, r1, c1, c); }));
  });
  m.def("draw_polyline", [](Ints r, Ints c) {
    if (r.shape(0) != c.shape(0)) throw nb::value_error("draw_polyline: as many rows as columns expected");
    const std::span<const int64_t> rs(r.data(), r.shape(0)), cs(c.data(), c.shape(0));
    return pair(generate([&](draw::Coords& out) { draw::polyline(rs, cs, out); }));
  });
  m.def("draw_line_aa", [](int64_t r0, int64_t c0, int64_t r1, int64_t c1) {
    return triple(generate([&](draw::Coords& c) { draw::line_aa(r0, c0, r1, c1, c); }));
  });
  m.def("draw_circle_perimeter", [](int64_t radius, bool andres) {
    return pair(generate([&](draw::Coords& c) { draw::circle_perimeter(radius, andres, c); }));
  });
  m.def("draw_circle_perimeter_aa", [](int64_t radius) {
    return triple(generate([&](draw::Coords& c) { draw::circle_perimeter_aa(radius, c); }));
  });
  m.def("draw_ellipse_perimeter", [](int64_t r_o, int64_t c_o, int64_t r_radius, int64_t c_radius, double orientation) {
    return pair(generate([&](draw::Coords& c) { draw::ellipse_perimeter(r_o, c_o, r_radius, c_radius, orientation, c); }));
  });
  m.def("draw_bezier_curve",
        [](int64_t r0, int64_t c0, int64_t r1, int64_t c1, int64_t r2, int64_t c2, double weight) {
          return pair(generate([&](draw::Coords& c) { draw::bezier_curve(r0, c0, r1, c1, r2, c2, weight, c); }));
        });
}

}  // namespace ndimg::py

// find_contours: the marching-squares engine (NumPy or CuPy image); the points come back to the host as one
// (N, 2) float64 NumPy array and the contours' offsets into it. points_in_poly / grid_points_in_poly: pnpoly's codes (0..3) as uint8.
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>

#include <optional>
#include <utility>

#include "binders.hpp"
#include "measure/contours.hpp"
#include "measure/contours_polygon.hpp"

namespace ndimg::py {

namespace {

using Vec = nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Codes = nb::ndarray<uint8_t, nb::c_contig, nb::device::cpu>;

template <class T>
nb::object owned(std::vector<T>&& v, std::initializer_list<size_t> shape) {
  auto* held = new std::vector<T>(std::move(v));
  nb::capsule owner(held, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, T>(held->data(), shape.size(), shape.begin(), owner));
}

}  // namespace

NDIMG_BINDINGS(contours) {
  m.def(
      "find_contours",
      [](nb::handle image, nb::handle mask, double level, bool vertex_connect_high, uintptr_t stream) {
        using ArrayConv = Conv<const View&, const char*>;
        const View img = ArrayConv::core(image, "image");
        std::optional<View> m;
        if (!mask.is_none()) m = ArrayConv::core(mask, "mask");
        measure::Contours c;
        {
          nb::gil_scoped_release nogil;
          c = measure::find_contours(img, m ? &*m : nullptr, level, vertex_connect_high, to_stream(stream));
        }
        const size_t n = c.points.size() / 2, k = c.offsets.size();
        return nb::make_tuple(owned(std::move(c.points), {n, 2}), owned(std::move(c.offsets), {k}));
      },
      nb::arg("image"), nb::arg("mask").none(), nb::arg("level"), nb::arg("vertex_connect_high"),
      nb::arg("stream") = 0);
  m.def(
      "points_in_polygon",
      [](Vec xp, Vec yp, Vec x, Vec y, Codes out) {
        if (yp.shape(0) != xp.shape(0) || y.shape(0) != x.shape(0) || out.size() != x.shape(0))
          throw nb::value_error("points_in_polygon: mismatched lengths");
        nb::gil_scoped_release nogil;
        measure::points_in_polygon(xp.data(), yp.data(), int64_t(xp.shape(0)), x.data(), y.data(),
                                   int64_t(x.shape(0)), out.data());
      },
      nb::arg("xp"), nb::arg("yp"), nb::arg("x"), nb::arg("y"), nb::arg("out"));
  bind<&measure::grid_points_in_polygon>(m, "grid_points_in_polygon", "xp", "yp", Out{"out"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py

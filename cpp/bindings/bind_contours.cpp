// find_contours: the marching-squares engine; the points come back as one (N, 2) float64 array and the
// contours' offsets into it.
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>

#include <optional>
#include <utility>

#include "binders.hpp"
#include "measure/contours.hpp"

namespace ndimg::py {

namespace {

using Image = nb::ndarray<const double, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Mask = nb::ndarray<const uint8_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

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
      [](Image image, std::optional<Mask> mask, double level, bool vertex_connect_high) {
        if (mask && (mask->shape(0) != image.shape(0) || mask->shape(1) != image.shape(1)))
          throw nb::value_error("find_contours: the mask's shape differs from the image's");
        measure::Contours c;
        {
          nb::gil_scoped_release nogil;
          c = measure::find_contours(image.data(), int64_t(image.shape(0)), int64_t(image.shape(1)),
                                     mask ? mask->data() : nullptr, level, vertex_connect_high);
        }
        const size_t n = c.points.size() / 2, k = c.offsets.size();
        return nb::make_tuple(owned(std::move(c.points), {n, 2}), owned(std::move(c.offsets), {k}));
      },
      nb::arg("image"), nb::arg("mask").none(), nb::arg("level"), nb::arg("vertex_connect_high"));
}

}  // namespace ndimg::py

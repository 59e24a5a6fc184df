// marching_cubes: the mesh's vertices (V, 3), faces (F, 3), normals (V, 3) and values (V,) as NumPy arrays.
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>

#include <optional>
#include <utility>

#include "binders.hpp"
#include "measure/marching_cubes.hpp"

namespace ndimg::py {

namespace {

using Volume = nb::ndarray<const float, nb::ndim<3>, nb::c_contig, nb::device::cpu>;
using Mask3 = nb::ndarray<const uint8_t, nb::ndim<3>, nb::c_contig, nb::device::cpu>;

template <class T>
nb::object numpy_of(std::vector<T>&& v, std::initializer_list<size_t> shape) {
  auto* held = new std::vector<T>(std::move(v));
  nb::capsule owner(held, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, T>(held->data(), shape.size(), shape.begin(), owner));
}

}  // namespace

NDIMG_BINDINGS(marching_cubes) {
  m.def(
      "marching_cubes",
      [](Volume vol, std::optional<Mask3> mask, double level, int step, bool lewiner) {
        if (step < 1) throw nb::value_error("marching_cubes: step must be at least 1");
        for (int a = 0; a < 3; ++a)
          if (mask && mask->shape(a) != vol.shape(a))
            throw nb::value_error("marching_cubes: the mask's shape differs from the volume's");
        measure::Mesh mesh;
        {
          nb::gil_scoped_release nogil;
          mesh = measure::marching_cubes(vol.data(), int64_t(vol.shape(0)), int64_t(vol.shape(1)),
                                         int64_t(vol.shape(2)), mask ? mask->data() : nullptr, level, step, lewiner);
        }
        const size_t nv = mesh.values.size(), nf = mesh.faces.size() / 3;
        return nb::make_tuple(numpy_of(std::move(mesh.vertices), {nv, 3}), numpy_of(std::move(mesh.faces), {nf, 3}),
                              numpy_of(std::move(mesh.normals), {nv, 3}), numpy_of(std::move(mesh.values), {nv}));
      },
      nb::arg("volume"), nb::arg("mask").none(), nb::arg("level"), nb::arg("step"), nb::arg("lewiner"));
}

}  // namespace ndimg::py

// marching_cubes (NumPy or CuPy volume): the mesh's vertices (V, 3), faces (F, 3), normals (V, 3) and values (V,)
// as NumPy arrays.
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>

#include <optional>
#include <utility>

#include "binders.hpp"
#include "measure/marching_cubes.hpp"

namespace ndimg::py {

namespace {

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
      [](nb::handle vol, nb::handle mask, double level, int step, bool lewiner, uintptr_t stream) {
        using ArrayConv = Conv<const View&, const char*>;
        const View v = ArrayConv::core(vol, "volume");
        std::optional<View> mk;
        if (!mask.is_none()) mk = ArrayConv::core(mask, "mask");
        measure::Mesh mesh;
        {
          nb::gil_scoped_release nogil;
          mesh = measure::marching_cubes(v, mk ? &*mk : nullptr, level, step, lewiner, to_stream(stream));
        }
        const size_t nv = mesh.values.size(), nf = mesh.faces.size() / 3;
        return nb::make_tuple(numpy_of(std::move(mesh.vertices), {nv, 3}), numpy_of(std::move(mesh.faces), {nf, 3}),
                              numpy_of(std::move(mesh.normals), {nv, 3}), numpy_of(std::move(mesh.values), {nv}));
      },
      nb::arg("volume"), nb::arg("mask").none(), nb::arg("level"), nb::arg("step"), nb::arg("lewiner"),
      nb::arg("stream") = 0);
}

}  // namespace ndimg::py

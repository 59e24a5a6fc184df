// Each bind_<area>.cpp registers its bindings with NDIMG_BINDINGS(area) { ... } and module.cpp runs them
// all, so adding an area never edits a shared file. A primitive is bound in one line with bind<&fn>(...).
#pragma once
#include <nanobind/nanobind.h>

#include <span>
#include <tuple>
#include <type_traits>
#include <vector>

#include "convert.hpp"

namespace ndimg::py {

using Binder = void (*)(nanobind::module_&);
inline std::vector<Binder>& binders() {
  static std::vector<Binder> list;
  return list;
}
struct AddBinder {
  explicit AddBinder(Binder b) { binders().push_back(b); }
};

// Names an array parameter that the primitive writes: a read-only array is refused for it.
struct Out {
  const char* name;
};

inline const char* name_of(const char* name) { return name; }
inline const char* name_of(Out o) { return o.name; }
inline const char* name_of(const nb::arg_v&) { return "argument"; }

// How one parameter of a core function crosses from Python: the Python-side type (Py) and its core value,
// built with the GIL held from the value and the parameter's name. Numbers, bools, enums (nb::enum_) and
// bound structs pass through.
template <class A, class N>
struct Conv {
  using Py = std::remove_cvref_t<A>;
  static const Py& core(const Py& v, const N&) { return v; }
};
// Arrays arrive as any object, so that a wrong one (other byte order, unsupported dtype, read-only output)
// raises a TypeError naming the parameter instead of nanobind's "incompatible function arguments".
template <class N>
struct Conv<const View&, N> {
  using Py = nb::handle;
  static View core(nb::handle h, const N& name) {
    using A = std::conditional_t<std::is_same_v<N, Out>, OutArray, InArray>;
    return to_view(array_arg<A>(h, name_of(name)));
  }
};
template <class N>
struct Conv<StreamHandle, N> {
  using Py = uintptr_t;
  static StreamHandle core(uintptr_t s, const N&) { return to_stream(s); }
};
template <class T, class N>
struct Conv<std::span<const T>, N> {
  using Py = std::vector<T>;
  static std::span<const T> core(const Py& v, const N&) { return v; }
};
template <class N>
struct Conv<std::span<const View>, N> {
  using Py = std::vector<nb::handle>;
  static std::vector<View> core(const Py& arrays, const N& name) {
    std::vector<View> v;
    v.reserve(arrays.size());
    for (nb::handle a : arrays) v.push_back(to_view(array_arg<InArray>(a, name_of(name))));
    return v;
  }
};

inline nb::arg arg_of(const char* name) { return nb::arg(name); }
inline nb::arg arg_of(Out o) { return nb::arg(o.name); }
inline nb::arg_v arg_of(nb::arg_v a) { return a; }

template <auto Fn, class R, class... A, class... N>
void bind_impl(nb::module_& m, const char* name, R (*)(A...), N... names) {
  static_assert(sizeof...(A) == sizeof...(N), "name every parameter of the core function");
  m.def(
      name,
      [names...](typename Conv<A, N>::Py... args) -> R {
        std::tuple<decltype(Conv<A, N>::core(args, names))...> core{Conv<A, N>::core(args, names)...};
        nb::gil_scoped_release nogil;
        return std::apply(Fn, core);
      },
      arg_of(names)...);
}

// Binds the core function Fn as `name`, one name per parameter ("input", Out{"output"},
// nb::arg("stream") = 0, ...): arrays arrive as views (zero-copy), spans as sequences, a stream as an
// integer handle; the GIL is released during the call.
template <auto Fn, class... N>
void bind(nb::module_& m, const char* name, N... names) {
  bind_impl<Fn>(m, name, Fn, names...);
}

}  // namespace ndimg::py

#define NDIMG_BINDINGS(area)                                              \
  static void ndimg_bind_##area(nanobind::module_& m);                    \
  static ::ndimg::py::AddBinder ndimg_binder_##area(&ndimg_bind_##area);  \
  static void ndimg_bind_##area(nanobind::module_& m)

// generic_filter / generic_filter1d with a Python function or a scipy LowLevelCallable's C function, and
// geometric_transform's C mapping. The GIL stays held: a Python function needs it, and a C function may set
// Python's error state (scipy's contract).
#include <cstring>
#include <vector>

#include "binders.hpp"
#include "ndimage/generic.hpp"

namespace ndimg::py {

namespace {

// A Python function called with reusable float64 arrays (filled in place by the filter, so that a call costs
// only the call) followed by the extra positional and keyword arguments.
struct PyCall {
  PyObject* fn;
  std::vector<nb::object> refs;  // owned: the function may change the caller's keyword dict
  std::vector<PyObject*> argv;   // the buffers, the extra arguments, then the keyword values
  nb::object kwnames;            // a tuple of the keyword names, or None
  size_t nargs;

  PyCall(nb::handle f, std::vector<nb::object>& buffers, nb::tuple args, nb::dict kwargs) : fn(f.ptr()) {
    for (auto& b : buffers) refs.push_back(b);
    for (nb::handle a : args) refs.push_back(nb::borrow(a));
    nargs = refs.size();
    if (kwargs.size()) {
      nb::list names;
      for (auto [k, v] : kwargs) {
        names.append(k);
        refs.push_back(nb::borrow(v));
      }
      kwnames = nb::tuple(names);
    }
    for (auto& r : refs) argv.push_back(r.ptr());
  }
  PyObject* call() {
    return PyObject_Vectorcall(fn, argv.data(), nargs, kwnames.is_valid() ? kwnames.ptr() : nullptr);
  }
};

int py_window(double*, intptr_t, double* result, void* data) {
  PyObject* rv = static_cast<PyCall*>(data)->call();
  if (rv == nullptr) return 0;
  const double v = PyFloat_AsDouble(rv);  // scipy's conversion of the result
  Py_DECREF(rv);
  if (v == -1.0 && PyErr_Occurred()) return 0;
  *result = v;
  return 1;
}

int py_line(double*, intptr_t, double*, intptr_t, void* data) {
  PyObject* rv = static_cast<PyCall*>(data)->call();  // the result is the output buffer's contents
  if (rv == nullptr) return 0;
  Py_DECREF(rv);
  return 1;
}

// A float64 NumPy array of n elements and its data.
nb::object float_buffer(size_t n, double*& data) {
  data = new double[n ? n : 1];  // filled by the filter before each call
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<double*>(p); });
  size_t shape[1] = {n};
  return nb::cast(nb::ndarray<nb::numpy, double, nb::ndim<1>>(data, 1, shape, owner));
}

// A LowLevelCallable's capsule (its signature already checked by the caller): the function and its user data.
template <class Fn>
bool c_function(nb::handle capsule, Fn& fn, void*& data) {
  if (!PyCapsule_CheckExact(capsule.ptr())) return false;
  const char* name = PyCapsule_GetName(capsule.ptr());
  fn = reinterpret_cast<Fn>(PyCapsule_GetPointer(capsule.ptr(), name));
  if (fn == nullptr) throw nb::python_error();
  data = PyCapsule_GetContext(capsule.ptr());
  if (data == nullptr && PyErr_Occurred()) throw nb::python_error();
  return true;
}

void failed(const char* what) {
  if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, what);
  throw nb::python_error();
}

}  // namespace

NDIMG_BINDINGS(generic) {
  m.def(
      "generic_filter",
      [](nb::handle input, nb::handle output, std::vector<int64_t> offsets, Mode mode, double cval,
         nb::handle function, nb::tuple args, nb::dict kwargs) {
        const View in = to_view(array_arg<InArray>(input, "input"));
        const View out = to_view(array_arg<OutArray>(output, "output"));
        ndimage::WindowFn fn;
        void* data;
        bool ok;
        if (c_function(function, fn, data)) {
          ok = ndimage::generic_filter(in, out, offsets, mode, cval, fn, data);
        } else {
          double* window;
          std::vector<nb::object> buffers{float_buffer(offsets.size() / size_t(std::max(in.ndim, 1)), window)};
          PyCall call(function, buffers, args, kwargs);
          ok = ndimage::generic_filter(in, out, offsets, mode, cval, py_window, &call, window);
        }
        if (!ok) failed("unknown error in filter function");
      },
      nb::arg("input"), nb::arg("output"), nb::arg("offsets"), nb::arg("mode"), nb::arg("cval"),
      nb::arg("function"), nb::arg("args"), nb::arg("kwargs"));
  m.def(
      "generic_filter1d",
      [](nb::handle input, nb::handle output, int64_t size, int axis, Mode mode, double cval, int origin,
         nb::handle function, nb::tuple args, nb::dict kwargs) {
        const View in = to_view(array_arg<InArray>(input, "input"));
        const View out = to_view(array_arg<OutArray>(output, "output"));
        ndimage::LineFn fn;
        void* data;
        bool ok;
        if (c_function(function, fn, data)) {
          ok = ndimage::generic_filter1d(in, out, size, axis, mode, cval, origin, fn, data);
        } else {
          if (in.ndim < 1 || axis < 0 || axis >= in.ndim || size < 1)
            throw ValueError("generic_filter1d: bad axis or filter size");
          const size_t n = size_t(in.shape[axis]);
          double *in_line, *out_line;
          std::vector<nb::object> buffers{float_buffer(n + size_t(size) - 1, in_line), float_buffer(n, out_line)};
          PyCall call(function, buffers, args, kwargs);
          ok = ndimage::generic_filter1d(in, out, size, axis, mode, cval, origin, py_line, &call, in_line, out_line);
        }
        if (!ok) failed("unknown error in line processing function");
      },
      nb::arg("input"), nb::arg("output"), nb::arg("size"), nb::arg("axis"), nb::arg("mode"), nb::arg("cval"),
      nb::arg("origin"), nb::arg("function"), nb::arg("args"), nb::arg("kwargs"));
  // geometric_transform with a C mapping: coords[h, o...] = the mapping's input coordinate h of output point o
  m.def(
      "mapped_coordinates",
      [](nb::handle function, nb::ndarray<double, nb::c_contig, nb::device::cpu> coords) {
        using MapFn = int (*)(intptr_t*, double*, int, int, void*);
        MapFn fn;
        void* data;
        if (coords.ndim() < 2 || !c_function(function, fn, data)) throw ValueError("mapped_coordinates: bad arguments");
        const int irank = int(coords.shape(0)), orank = int(coords.ndim()) - 1;
        int64_t total = 1;
        for (int d = 0; d < orank; ++d) total *= int64_t(coords.shape(size_t(d) + 1));
        std::vector<intptr_t> o(static_cast<size_t>(orank), 0);
        std::vector<double> c(static_cast<size_t>(irank));
        double* out = coords.data();
        for (int64_t i = 0; i < total; ++i) {
          if (!fn(o.data(), c.data(), orank, irank, data)) failed("unknown error in mapping function");
          for (int h = 0; h < irank; ++h) out[h * total + i] = c[size_t(h)];
          for (int d = orank - 1; d >= 0 && ++o[size_t(d)] == intptr_t(coords.shape(size_t(d) + 1)); --d) o[size_t(d)] = 0;
        }
      },
      nb::arg("function"), nb::arg("coords"));
}

}  // namespace ndimg::py

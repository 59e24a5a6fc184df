#include <nanobind/ndarray.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "binders.hpp"
#include "ndimg/feature_desc.hpp"

namespace ndimg::py {

namespace {

using Rects = nb::ndarray<const int64_t, nb::ndim<3>, nb::shape<-1, -1, 4>, nb::c_contig, nb::device::cpu>;

// scikit-image's Haar feature coordinates (haar_like_feature_coord) of `rects`, into `out`, a 1-D object array
// of one slot per feature: a list per feature of [(r0, c0), (r1, c1)] per rectangle. Equal points share one
// (r, c) tuple (immutable, as Python shares its small ints); every list is new. Built here rather than in
// Python: the interpreter's per-object work was most of the call (scikit-image's Cython builds the same).
void haar_coord_objects(Rects rects, nb::handle out) {
  const int64_t n = int64_t(rects.shape(0)), k = int64_t(rects.shape(1));
  const int64_t* q = rects.data();
  Py_buffer buf;
  if (PyObject_GetBuffer(out.ptr(), &buf, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) != 0)
    throw nb::python_error();
  struct Release {
    Py_buffer* b;
    ~Release() { PyBuffer_Release(b); }
  } release{&buf};
  if (buf.ndim != 1 || std::string_view(buf.format ? buf.format : "") != "O" || buf.len != n * Py_ssize_t(sizeof(PyObject*)))
    throw nb::value_error("haar_coord_objects: out must be a contiguous object array of one slot per feature");
  int64_t rows = 0, cols = 0;
  for (int64_t i = 0; i < n * k * 4; i += 2) {
    if (q[i] < 0 || q[i + 1] < 0) throw nb::value_error("haar_coord_objects: negative coordinates");
    rows = std::max(rows, q[i] + 1), cols = std::max(cols, q[i + 1] + 1);
  }
  std::vector<nb::object> points(size_t(rows * cols));  // the shared (r, c) tuples, made on first use
  auto point = [&](int64_t r, int64_t c) -> PyObject* {
    nb::object& p = points[size_t(r * cols + c)];
    if (!p.is_valid()) p = nb::make_tuple(r, c);
    return Py_NewRef(p.ptr());
  };
  // Millions of new containers, none in a cycle: the collector's passes would cost more than the building.
  const int gc_was_enabled = PyGC_Disable();
  struct Restore {
    int on;
    ~Restore() {
      if (on) PyGC_Enable();
    }
  } restore{gc_was_enabled};
  auto** slots = static_cast<PyObject**>(buf.buf);
  for (int64_t f = 0; f < n; ++f) {
    PyObject* feature = PyList_New(Py_ssize_t(k));
    if (!feature) throw nb::python_error();
    for (int64_t j = 0; j < k; ++j, q += 4) {
      PyObject* rect = PyList_New(2);
      if (!rect) {
        Py_DECREF(feature);
        throw nb::python_error();
      }
      PyList_SET_ITEM(rect, 0, point(q[0], q[1]));
      PyList_SET_ITEM(rect, 1, point(q[2], q[3]));
      PyList_SET_ITEM(feature, j, rect);
    }
    PyObject* old = slots[f];
    slots[f] = feature;
    Py_XDECREF(old);
  }
}

}  // namespace

NDIMG_BINDINGS(feature_desc) {
  nb::enum_<feature::HogNorm>(m, "HogNorm")
      .value("L1", feature::HogNorm::L1)
      .value("L1_sqrt", feature::HogNorm::L1Sqrt)
      .value("L2", feature::HogNorm::L2)
      .value("L2_Hys", feature::HogNorm::L2Hys);
  bind<&feature::hog_histograms>(m, "hog_histograms", "image", "cell_rows", "cell_cols", Out{"hist"},
                                 nb::arg("stream") = 0);
  bind<&feature::hog_normalize>(m, "hog_normalize", "hist", "norm", Out{"blocks"}, nb::arg("stream") = 0);
  bind<&feature::haar_features>(m, "haar_features", "ii", "rects", Out{"out"}, nb::arg("stream") = 0);
  bind<&feature::haar_feature_count>(m, "haar_feature_count", "type", "height", "width");
  bind<&feature::haar_rects>(m, "haar_rects", "type", "height", "width", Out{"out"});
  bind<&feature::haar_window_features>(m, "haar_window_features", "window", "type", Out{"out"},
                                       nb::arg("stream") = 0);
  m.def("haar_coord_objects", &haar_coord_objects, nb::arg("rects"), nb::arg("out"));
  bind<&feature::hamming_distances>(m, "hamming_distances", "a", "b", "nbits", Out{"out"}, nb::arg("stream") = 0);
  bind<&feature::cascade_windows>(m, "cascade_windows", "ii", "stumps", "leaves", "luts", "stages", "limits", "step",
                                  Out{"out"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py

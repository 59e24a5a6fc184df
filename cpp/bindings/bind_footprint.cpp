#include <vector>

#include "binders.hpp"
#include "convert.hpp"
#include "ndimg/ndimage_footprint.hpp"

namespace ndimg::py {
namespace {

// Runs the core filter `op(input view, output view)` with the GIL released.
template <class Op>
void run_on_views(nb::handle in, nb::handle out, Op&& op) {
  View vi = to_view(array_arg<InArray>(in, "input")), vo = to_view(array_arg<OutArray>(out, "output"));
  nb::gil_scoped_release nogil;
  op(vi, vo);
}

}  // namespace

NDIMG_BINDINGS(footprint) {
  m.def("correlate",
        [](nb::handle in, nb::handle out, std::vector<int64_t> offsets, std::vector<double> w, int mode, double cval,
           uintptr_t stream) {
          run_on_views(in, out, [&](const View& vi, const View& vo) {
            ndimage::correlate(vi, vo, offsets, w, to_mode(mode), cval, to_stream(stream));
          });
        },
        nb::arg("input"), nb::arg("output"), nb::arg("offsets"), nb::arg("weights"), nb::arg("mode"),
        nb::arg("cval"), nb::arg("stream") = 0);
  m.def("rank_filter",
        [](nb::handle in, nb::handle out, std::vector<int64_t> offsets, int64_t rank, int mode, double cval,
           uintptr_t stream) {
          run_on_views(in, out, [&](const View& vi, const View& vo) {
            ndimage::rank_filter(vi, vo, offsets, rank, to_mode(mode), cval, to_stream(stream));
          });
        },
        nb::arg("input"), nb::arg("output"), nb::arg("offsets"), nb::arg("rank"), nb::arg("mode"),
        nb::arg("cval"), nb::arg("stream") = 0);
  m.def("min_max_filter1d",
        [](nb::handle in, nb::handle out, int64_t size, int axis, int mode, double cval, int origin, bool minimum,
           uintptr_t stream) {
          run_on_views(in, out, [&](const View& vi, const View& vo) {
            ndimage::min_max_filter1d(vi, vo, size, axis, to_mode(mode), cval, origin, minimum, to_stream(stream));
          });
        },
        nb::arg("input"), nb::arg("output"), nb::arg("size"), nb::arg("axis"), nb::arg("mode"), nb::arg("cval"),
        nb::arg("origin"), nb::arg("minimum"), nb::arg("stream") = 0);
}

}  // namespace ndimg::py

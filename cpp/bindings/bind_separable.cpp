#include <vector>

#include "binders.hpp"
#include "convert.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(separable) {
  // passes are given as parallel lists: axis, weights, mode code, cval, origin and mean of each pass (0: a
  // correlation with its weights; n > 0: the mean of n values, its weights unused and best left empty)
  m.def("separable",
        [](nb::handle in, nb::handle out, std::vector<int> axes, std::vector<std::vector<double>> weights,
           std::vector<int> modes, std::vector<double> cvals, std::vector<int> origins, std::vector<int64_t> means,
           uintptr_t stream) {
          const size_t n = axes.size();
          if (weights.size() != n || modes.size() != n || cvals.size() != n || origins.size() != n || means.size() != n)
            throw ValueError("separable: pass lists differ in length");
          std::vector<ndimage::Pass1d> passes(n);
          for (size_t i = 0; i < n; ++i)
            passes[i] = {axes[i], std::move(weights[i]), to_mode(modes[i]), cvals[i], origins[i], means[i] > 0, means[i]};
          View vi = to_view(array_arg<InArray>(in, "input")), vo = to_view(array_arg<OutArray>(out, "output"));
          nb::gil_scoped_release nogil;
          ndimage::separable(vi, vo, passes, to_stream(stream));
        },
        nb::arg("input"), nb::arg("output"), nb::arg("axes"), nb::arg("weights"), nb::arg("modes"),
        nb::arg("cvals"), nb::arg("origins"), nb::arg("means"), nb::arg("stream") = 0);
}

}  // namespace ndimg::py

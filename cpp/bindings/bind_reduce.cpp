#include "binders.hpp"
#include "ndimg/reduce.hpp"

namespace ndimg::py {

NDIMG_BINDINGS(reduce) {
  using reduce::Stats, reduce::SplitSums, reduce::DiffSums;
  nb::class_<Stats>(m, "Stats")
      .def_ro("min", &Stats::min).def_ro("max", &Stats::max).def_ro("sum", &Stats::sum)
      .def_ro("imin", &Stats::imin).def_ro("imax", &Stats::imax)
      .def_ro("n_nan", &Stats::n_nan).def_ro("n_posinf", &Stats::n_posinf).def_ro("n_neginf", &Stats::n_neginf)
      .def_ro("n_finite", &Stats::n_finite);
  nb::class_<SplitSums>(m, "SplitSums")
      .def_ro("sum_above", &SplitSums::sum_above).def_ro("n_above", &SplitSums::n_above)
      .def_ro("sum_below", &SplitSums::sum_below).def_ro("n_below", &SplitSums::n_below);
  nb::class_<DiffSums>(m, "DiffSums")
      .def_ro("sum_sq_diff", &DiffSums::sum_sq_diff).def_ro("sum_sq_a", &DiffSums::sum_sq_a);
  bind<&reduce::stats>(m, "image_stats", "input", nb::arg("stream") = 0);
  bind<&reduce::mean>(m, "image_mean", "input", Out{"out"}, nb::arg("stream") = 0);
  bind<&reduce::split_sums>(m, "split_sums", "input", "shift", "t", nb::arg("stream") = 0);
  bind<&reduce::min_gap>(m, "min_gap", "input", "shift", nb::arg("stream") = 0);
  bind<&reduce::diff_sums>(m, "diff_sums", "a", "b", nb::arg("stream") = 0);
  bind<&reduce::numpy_sum>(m, "numpy_sum", "input", Out{"out"}, nb::arg("stream") = 0);
}

}  // namespace ndimg::py

// The cascade classifier's CPU schedule: the windows split over the pool (their costs differ with how far
// each gets through the stages, so the chunks are small).
#include "feature/cascade.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::feature {

void cascade_windows_cpu(const View& ii, const CascadeTables& t, int64_t step, const View& out) {
  const int64_t rows = ii.shape[0], cols = ii.shape[1], nc = out.shape[1];
  const float* src = ii.ptr<float>();
  uint8_t* o = out.ptr<uint8_t>();
  parallel_for(out.size(), 256, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) o[i] = cascade_window(src, rows, cols, (i / nc) * step, (i % nc) * step, t);
  });
}

}  // namespace ndimg::feature

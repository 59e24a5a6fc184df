// CPU schedules of Canny: the magnitude and the suppression in bands of rows on the pool; the hysteresis a
// flood from each strong pixel over the 8-connected candidates (serial: every candidate is visited once).
#include <algorithm>
#include <vector>

#include "feature/canny.hpp"
#include "feature/each_pixel.hpp"

namespace ndimg::feature {
namespace {

template <class F>
void on_float(const View& v, F&& f) {
  if (v.dtype == DType::F32) f.template operator()<float>();
  else f.template operator()<double>();
}

}  // namespace

void gradient_magnitude_cpu(const View& gi, const View& gj, const View& out) {
  on_float(gi, [&]<class T>() {
    each_pixel_cpu(gi.shape[0], gi.shape[1], 1, CannyMagnitude<T>{gi.ptr<T>(), gj.ptr<T>(), out.ptr<T>(), gi.shape[1]});
  });
}

void canny_suppress_cpu(const View& gi, const View& gj, const View& mag, const View& mask, double low, double high,
                        const View& out) {
  on_float(gi, [&]<class T>() {
    const CannySuppress<T> f{gi.ptr<T>(), gj.ptr<T>(), mag.ptr<T>(), mask.ptr<uint8_t>(), out.ptr<uint8_t>(),
                             gi.shape[0], gi.shape[1], low, high};
    each_pixel_cpu(gi.shape[0], gi.shape[1], 2, f);
  });
}

void canny_hysteresis_cpu(const View& classes, const View& out) {
  const int64_t rows = classes.shape[0], cols = classes.shape[1], n = rows * cols;
  const uint8_t* cls = classes.ptr<uint8_t>();
  bool* edge = out.ptr<bool>();
  std::fill(edge, edge + n, false);
  const int64_t steps[8] = {-cols - 1, -cols, -cols + 1, -1, 1, cols - 1, cols, cols + 1};
  std::vector<int64_t> stack;
  auto visit = [&](int64_t q) {
    if (cls[q] && !edge[q]) {
      edge[q] = true;
      stack.push_back(q);
    }
  };
  for (int64_t seed = 0; seed < n; ++seed) {
    if (cls[seed] != 2 || edge[seed]) continue;
    edge[seed] = true;
    stack.push_back(seed);
    while (!stack.empty()) {
      const int64_t p = stack.back();
      stack.pop_back();
      const int64_t r = p / cols, c = p - r * cols;
      if (r > 0 && c > 0 && r < rows - 1 && c < cols - 1) {
        for (int64_t s : steps) visit(p + s);
        continue;
      }
      for (int64_t y = r > 0 ? r - 1 : r; y <= r + 1 && y < rows; ++y)
        for (int64_t x = c > 0 ? c - 1 : c; x <= c + 1 && x < cols; ++x) visit(y * cols + x);
    }
  }
}

}  // namespace ndimg::feature

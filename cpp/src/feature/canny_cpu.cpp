// CPU schedules of Canny: the magnitude and the suppression in runs of pixels on the pool; the hysteresis a
// flood from the strong pixels over the 8-connected candidates, in bands of rows joined at their borders.
#include <algorithm>
#include <atomic>
#include <utility>
#include <vector>

#include "feature/canny.hpp"
#include "core/parts.hpp"
#include "feature/each_pixel.hpp"

namespace ndimg::feature {
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

namespace {

// Floods the candidates 8-connected to the pixels on `stack` (already marked), within rows [r0, r1).
void flood_band(const uint8_t* cls, bool* edge, int64_t cols, int64_t r0, int64_t r1, std::vector<int64_t>& stack) {
  const int64_t steps[8] = {-cols - 1, -cols, -cols + 1, -1, 1, cols - 1, cols, cols + 1};
  auto visit = [&](int64_t q) {
    if (cls[q] && !edge[q]) {
      edge[q] = true;
      stack.push_back(q);
    }
  };
  while (!stack.empty()) {
    const int64_t p = stack.back();
    stack.pop_back();
    const int64_t r = p / cols, c = p - r * cols;
    if (r > r0 && c > 0 && r < r1 - 1 && c < cols - 1) {
      for (int64_t s : steps) visit(p + s);
      continue;
    }
    for (int64_t y = std::max(r - 1, r0); y <= r + 1 && y < r1; ++y)
      for (int64_t x = c > 0 ? c - 1 : c; x <= c + 1 && x < cols; ++x) visit(y * cols + x);
  }
}

// Whether candidate pixel (r, c) touches an edge pixel of row `other`.
bool touches(const bool* edge, int64_t cols, int64_t other, int64_t c) {
  for (int64_t x = c > 0 ? c - 1 : c; x <= c + 1 && x < cols; ++x)
    if (edge[other * cols + x]) return true;
  return false;
}

}  // namespace

// The hysteresis in bands of rows on the pool: each band floods from its strong pixels within itself; then,
// until nothing changes, each band floods from its border rows' candidates that touch an edge pixel of the
// next band's border row (even bands, then odd ones: a band writes only its own rows while it reads its
// neighbours'). Every candidate joined to a strong pixel is reached, as by one flood over the image.
void canny_hysteresis_cpu(const View& classes, const View& out) {
  const int64_t rows = classes.shape[0], cols = classes.shape[1], n = rows * cols;
  const uint8_t* cls = classes.ptr<uint8_t>();
  bool* edge = out.ptr<bool>();
  std::fill(edge, edge + n, false);
  const int64_t bands = std::max<int64_t>(1, std::min<int64_t>(rows / 8, 4 * int64_t(parts_for(n, 1 << 16))));
  auto band_rows = [&](int64_t b) { return std::pair{rows * b / bands, rows * (b + 1) / bands}; };
  parallel_for(bands, 1, [&](int64_t b0, int64_t b1) {
    std::vector<int64_t> stack;
    for (int64_t b = b0; b < b1; ++b) {
      const auto [r0, r1] = band_rows(b);
      for (int64_t p = r0 * cols; p < r1 * cols; ++p) {
        if (cls[p] != 2 || edge[p]) continue;
        edge[p] = true;
        stack.push_back(p);
        flood_band(cls, edge, cols, r0, r1, stack);
      }
    }
  });
  for (bool changed = bands > 1; changed;) {
    std::atomic<bool> any{false};
    for (int64_t parity = 0; parity < 2; ++parity) {
      parallel_for((bands - parity + 1) / 2, 1, [&](int64_t i0, int64_t i1) {
        std::vector<int64_t> stack;
        for (int64_t i = i0; i < i1; ++i) {
          const int64_t b = 2 * i + parity;
          const auto [r0, r1] = band_rows(b);
          for (auto [row, other] : {std::pair{r0, r0 - 1}, std::pair{r1 - 1, r1}}) {
            if (other < 0 || other >= rows) continue;
            for (int64_t c = 0; c < cols; ++c) {
              const int64_t p = row * cols + c;
              if (!cls[p] || edge[p] || !touches(edge, cols, other, c)) continue;
              edge[p] = true;
              stack.push_back(p);
              flood_band(cls, edge, cols, r0, r1, stack);
              any = true;
            }
          }
        }
      });
    }
    changed = any;
  }
}

}  // namespace ndimg::feature

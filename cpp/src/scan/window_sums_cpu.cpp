// window_sums: np.cumsum along the middle axis, then the differences of sums w apart, in one sweep: the
// running sums of the last w positions are held in a ring (per line, or per row segment of `inner`), so
// neither the cumulative sums nor a difference pass go through memory.
#include <algorithm>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "ndimg/parallel.hpp"
#include "ndimg/scan.hpp"

namespace ndimg::scan {
namespace {

constexpr int64_t kSegment = 256;   // elements of `inner` one task runs down the axis

template <class T>
void run(const View& in, const View& out, int64_t w) {
  const int64_t outer = in.shape[0], n = in.shape[1], inner = in.shape[2], m_out = n - w - 1;
  const T* x = in.ptr<T>();
  T* o = out.ptr<T>();
  const int64_t ring = w;   // slot i % w holds the sum at i - w until the one at i replaces it
  if (inner == 1) {
    parallel_for(outer, 16, [&](int64_t l0, int64_t l1) {
      std::vector<T> cs(ring);
      for (int64_t l = l0; l < l1; ++l) {
        const T* xl = x + l * n;
        T* ol = o + l * m_out;
        T acc = xl[0];   // the first sum is the element itself, as np.cumsum's (-0.0 stays)
        cs[0] = acc;
        for (int64_t i = 1; i < n - 1; ++i) {
          acc = acc + xl[i];
          const int64_t slot = i % ring;
          if (i >= w) ol[i - w] = acc - cs[slot];
          cs[slot] = acc;
        }
      }
    });
    return;
  }
  const int64_t segs = (inner + kSegment - 1) / kSegment;
  parallel_for(outer * segs, 1, [&](int64_t t0, int64_t t1) {
    std::vector<T> cs(ring * kSegment);
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t l = t / segs, j0 = (t % segs) * kSegment, m = std::min(kSegment, inner - j0);
      const T* xl = x + l * n * inner + j0;
      T* ol = o + l * m_out * inner + j0;
      std::copy(xl, xl + m, cs.data());
      for (int64_t i = 1; i < n - 1; ++i) {
        const T* prev = cs.data() + ((i - 1) % ring) * kSegment;
        T* cur = cs.data() + (i % ring) * kSegment;
        const T* xi = xl + i * inner;
        if (i >= w) {
          T* oi = ol + (i - w) * inner;
          for (int64_t j = 0; j < m; ++j) {
            const T s = prev[j] + xi[j];
            oi[j] = s - cur[j];
            cur[j] = s;
          }
        } else {
          for (int64_t j = 0; j < m; ++j) cur[j] = prev[j] + xi[j];
        }
      }
    }
  });
}

}  // namespace

void window_sums(const View& in, const View& out, int64_t w) {
  const char* op = "window_sums";
  auto fail = [&](const std::string& what) { throw ValueError(std::string(op) + ": " + what); };
  if (in.ndim != 3 || out.ndim != 3) fail("(outer, n, inner) views expected");
  if (w < 1 || in.shape[1] < w + 2) fail("each line must be longer than the window plus one");
  if (out.shape[0] != in.shape[0] || out.shape[1] != in.shape[1] - w - 1 || out.shape[2] != in.shape[2])
    fail("the output must have shape (outer, n - w - 1, inner)");
  if (!is_float(in.dtype) || out.dtype != in.dtype || !in.c_contiguous() || !out.c_contiguous() ||
      in.device != Device::CPU || out.device != Device::CPU)
    fail("C-contiguous host float32 or float64 arrays of one dtype expected");
  if (out.size() == 0) return;
  if (in.dtype == DType::F64) run<double>(in, out, w); else run<float>(in, out, w);
}

}  // namespace ndimg::scan

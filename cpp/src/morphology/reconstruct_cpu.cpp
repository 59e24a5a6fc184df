// Host schedules of reconstruct.hpp. Reconstruction is Vincent's hybrid: a raster and an anti-raster scan
// take each element's earlier (later) sources, then a FIFO carries what the scans could not reach; each
// element is touched a few times, whatever the geodesic path lengths (iterating dilations until stable
// costs one pass per step of the longest path). The plateau and flood fills visit each element once.
#include <algorithm>
#include <atomic>
#include <climits>
#include <deque>
#include <iterator>
#include <type_traits>
#include <vector>

#include "core/parts.hpp"
#include "ndimg/dispatch.hpp"
#include "morphology/reconstruct.hpp"

namespace ndimg::morphology {
namespace {

// C-order starts of the interior's lines along the last axis (axes 0..ndim-2 inside lo/hi).
std::vector<int64_t> interior_lines(const View& v, std::span<const int64_t> lo, std::span<const int64_t> hi) {
  const int last = v.ndim - 1;
  int64_t count = 1;
  for (int d = 0; d < last; ++d) count *= v.shape[d] - lo[d] - hi[d];
  std::vector<int64_t> starts;
  if (count <= 0 || v.shape[last] - lo[last] - hi[last] <= 0) return starts;
  starts.reserve(size_t(count));
  int64_t c[kMaxDim] = {};
  for (int64_t k = 0; k < count; ++k) {
    int64_t s = lo[last];
    for (int d = 0; d < last; ++d) s += (lo[d] + c[d]) * v.strides[d];
    starts.push_back(s);
    for (int d = last - 1; d >= 0; --d) {  // next interior line, C order
      if (++c[d] < v.shape[d] - lo[d] - hi[d]) break;
      c[d] = 0;
    }
  }
  return starts;
}

template <class T>
void reconstruct(T* J, const T* I, std::span<const int64_t> offsets, const std::vector<int64_t>& lines,
                 int64_t width) {
  std::vector<int64_t> before, after;  // sources earlier (later) in C order: p - o with o > 0 (o < 0)
  for (int64_t o : offsets) (o > 0 ? before : after).push_back(o);
  for (int64_t s : lines)
    for (int64_t p = s; p < s + width; ++p) {
      T v = J[p];
      for (int64_t o : before) v = std::max(v, J[p - o]);
      J[p] = std::min(v, I[p]);
    }
  std::deque<int64_t> fifo;
  for (auto l = lines.rbegin(); l != lines.rend(); ++l)
    for (int64_t p = *l + width - 1; p >= *l; --p) {
      T v = J[p];
      for (int64_t o : after) v = std::max(v, J[p - o]);
      v = std::min(v, I[p]);
      J[p] = v;
      // a receiver already scanned that p could still raise: p goes on the queue
      for (int64_t o : before) {
        const int64_t q = p + o;
        if (J[q] < v && J[q] < I[q]) {
          fifo.push_back(p);
          break;
        }
      }
    }
  while (!fifo.empty()) {
    const int64_t p = fifo.front();
    fifo.pop_front();
    const T v = J[p];
    for (int64_t o : offsets) {
      const int64_t q = p + o;
      if (J[q] < v && J[q] < I[q]) {
        J[q] = std::min(v, I[q]);
        fifo.push_back(q);
      }
    }
  }
}

template <class T>
void maxima(const T* img, uint8_t* flags, int64_t n, int64_t width, std::span<const int64_t> offsets,
            bool line_candidates) {
  bool symmetric = true;
  for (int64_t o : offsets) symmetric = symmetric && std::find(offsets.begin(), offsets.end(), -o) != offsets.end();
  // NaN compares false both ways: scikit-image's line candidates then decide which elements near it count
  std::atomic<bool> nan{false};
  if constexpr (std::is_floating_point_v<T>) {
    if (symmetric && line_candidates)
      parallel_for(n, 1 << 16, [&](int64_t a, int64_t b) {
        bool any = false;
        for (int64_t i = a; i < b; ++i) any |= img[i] != img[i];
        if (any) nan = true;
      });
  }
  if (symmetric && !nan) {
    // Every element off the border, on the threads (it reads values, writes its own flag): a higher
    // neighbour rules its plateau out (0); without one, no equal neighbour makes it a maximal plateau of its
    // own (1); else its plateau is filled below (2). Every maximal plateau holds an element that scikit-image's
    // line candidates would have started from, so the maxima are the same.
    // Few neighbours (2-D): blocks of elements, one neighbour offset at a time, contiguous compares the
    // compiler vectorises. Many (3-D and up): each element stops at its first higher neighbour.
    // Border elements (whose neighbours may lie outside) are skipped by the first and last block bounds.
    const int64_t first = std::find_if(flags, flags + n, [](uint8_t f) { return f != 3; }) - flags;
    const int64_t end = n - (std::find_if(std::make_reverse_iterator(flags + n), std::make_reverse_iterator(flags),
                                          [](uint8_t f) { return f != 3; }) - std::make_reverse_iterator(flags + n));
    constexpr int64_t kBlock = 4096;
    parallel_for((std::max<int64_t>(end - first, 0) + kBlock - 1) / kBlock, 16, [&](int64_t b0, int64_t b1) {
      uint8_t higher[kBlock], equal[kBlock];
      for (int64_t blk = b0; blk < b1; ++blk) {
        const int64_t a = first + blk * kBlock, len = std::min(kBlock, end - a);
        std::fill(higher, higher + len, uint8_t(0));
        std::fill(equal, equal + len, uint8_t(0));
        const T* h = img + a;
        if (offsets.size() <= 8) {
          for (int64_t o : offsets) {
            const T* q = h + o;
            for (int64_t k = 0; k < len; ++k) {
              higher[k] |= uint8_t(q[k] > h[k]);
              equal[k] |= uint8_t(q[k] == h[k]);
            }
          }
        } else {
          for (int64_t k = 0; k < len; ++k)
            for (int64_t o : offsets) {
              if (h[k + o] > h[k]) {
                higher[k] = 1;
                break;
              }
              equal[k] |= uint8_t(h[k + o] == h[k]);
            }
        }
        uint8_t* f = flags + a;
        for (int64_t k = 0; k < len; ++k)
          if (f[k] != 3) f[k] = higher[k] ? 0 : equal[k] ? 2 : 1;
      }
    });
  } else if (line_candidates) {
    // candidates: plateaus of a line strictly above their neighbours along it (flag 2). Every line starts
    // and ends on the border (flag 3), which no plateau crosses: whole lines go to the threads.
    const int64_t lines = n / width;
    parallel_for(lines, std::max<int64_t>(1, 4096 / width), [&](int64_t l0, int64_t l1) {
      for (int64_t i = std::max<int64_t>(1, l0 * width); i < l1 * width;) {
        if (img[i - 1] < img[i] && flags[i] != 3) {
          int64_t j = i + 1;
          while (j < n - 1 && img[j] == img[i] && flags[j] != 3) ++j;
          if (img[i] > img[j]) std::fill(flags + i, flags + j, uint8_t(2));
          i = j;
        } else {
          ++i;
        }
      }
    });
  }
  // the remaining candidates' whole plateaus, serially: maximal unless one meets a larger neighbour or the
  // border
  std::vector<int64_t> queue;
  for (int64_t s = 0; s < n; ++s) {
    if (flags[s] != 2) continue;
    const T h = img[s];
    bool top = true;
    queue.assign(1, s);
    flags[s] = 1;
    for (size_t k = 0; k < queue.size(); ++k) {
      const int64_t p = queue[k];
      for (int64_t o : offsets) {
        const int64_t q = p + o;
        if (img[q] == h) {
          if (flags[q] == 3) top = false;
          else if (flags[q] != 1) {
            flags[q] = 1;
            queue.push_back(q);
          }
        } else if (img[q] > h) {
          top = false;
        }
      }
    }
    if (!top)
      for (int64_t p : queue) flags[p] = 0;
  }
}

}  // namespace

void reconstruct_dilation_cpu(const View& marker, const View& mask, std::span<const int64_t> offsets,
                              std::span<const int64_t> lo, std::span<const int64_t> hi) {
  const auto lines = interior_lines(marker, lo, hi);
  const int last = marker.ndim - 1;
  const int64_t width = marker.shape[last] - lo[last] - hi[last];
  if (marker.dtype == DType::F32) reconstruct(marker.ptr<float>(), mask.ptr<float>(), offsets, lines, width);
  else reconstruct(marker.ptr<double>(), mask.ptr<double>(), offsets, lines, width);
}

void plateau_maxima_cpu(const View& image, const View& flags, std::span<const int64_t> offsets, bool line_candidates) {
  dispatch_dtype(image.dtype, [&]<class T>() {
    maxima(image.ptr<T>(), flags.ptr<uint8_t>(), image.size(), image.shape[image.ndim - 1], offsets, line_candidates);
  });
}

void flood_flags_cpu(const View& flags, std::span<const int64_t> offsets, int64_t seed) {
  uint8_t* f = flags.ptr<uint8_t>();
  std::vector<int64_t> queue{seed};
  f[seed] = 3;
  for (size_t k = 0; k < queue.size(); ++k)
    for (int64_t o : offsets) {
      const int64_t q = queue[k] + o;
      if (f[q] == 1) {
        f[q] = 3;
        queue.push_back(q);
      }
    }
}

}  // namespace ndimg::morphology

// Host schedules of reconstruct.hpp. Reconstruction is Vincent's hybrid: a raster and an anti-raster scan
// take each element's earlier (later) sources, then a FIFO carries what the scans could not reach; each
// element is touched a few times, whatever the geodesic path lengths (iterating dilations until stable
// costs one pass per step of the longest path). The plateau and flood fills visit each element once.
#include <algorithm>
#include <deque>
#include <vector>

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
void maxima(const T* img, uint8_t* flags, int64_t n, std::span<const int64_t> offsets, bool line_candidates) {
  // 1. candidates: plateaus of a line strictly above their neighbours along it (flag 2)
  for (int64_t i = 1; line_candidates && i < n;) {
    if (img[i - 1] < img[i] && flags[i] != 3) {
      int64_t j = i + 1;
      while (j < n - 1 && img[j] == img[i] && flags[j] != 3) ++j;
      if (img[i] > img[j]) std::fill(flags + i, flags + j, uint8_t(2));
      i = j;
    } else {
      ++i;
    }
  }
  // 2. each candidate's whole plateau: maximal unless it meets a larger neighbour or the border
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

int64_t root_of(std::vector<int64_t>& par, int64_t i) {
  while (par[i] != i) {
    par[i] = par[par[i]];
    i = par[i];
  }
  return i;
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
    maxima(image.ptr<T>(), flags.ptr<uint8_t>(), image.size(), offsets, line_candidates);
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

int64_t value_components_cpu(const View& image, const View& fg, std::span<const uint8_t> structure, const View& out) {
  const int nd = image.ndim, last = nd - 1;
  const int64_t n = image.size(), width = image.shape[last];
  // the structure's taps before its centre: joining each element to those joins the symmetric structure's
  // components (as scipy and scikit-image read a connectivity)
  struct Tap {
    int64_t delta[kMaxDim];
    int64_t linear;
  };
  std::vector<Tap> taps;
  for (int64_t k = 0; k < int64_t(structure.size()) / 2; ++k) {
    if (!structure[k]) continue;
    Tap t{};
    int64_t rem = k;
    for (int d = last; d >= 0; --d, rem /= 3) {
      t.delta[d] = rem % 3 - 1;
      t.linear += t.delta[d] * image.strides[d];
    }
    taps.push_back(t);
  }
  const uint8_t* m = fg.ptr<uint8_t>();
  std::vector<int64_t> par(static_cast<size_t>(n));
  dispatch_dtype(image.dtype, [&]<class T>() {
    const T* v = image.ptr<T>();
    int64_t c[kMaxDim] = {};
    std::vector<const Tap*> valid;
    for (int64_t s = 0; s < n; s += width) {
      valid.clear();  // the taps whose line exists for this line
      for (const Tap& t : taps) {
        bool inside = true;
        for (int d = 0; d < last && inside; ++d) inside = c[d] + t.delta[d] >= 0 && c[d] + t.delta[d] < image.shape[d];
        if (inside) valid.push_back(&t);
      }
      for (int64_t x = 0; x < width; ++x) {
        const int64_t i = s + x;
        par[i] = i;
        if (!m[i]) continue;
        for (const Tap* t : valid) {
          const int64_t xx = x + t->delta[last], j = i + t->linear;
          if (xx < 0 || xx >= width || !m[j] || !(v[j] == v[i])) continue;
          int64_t a = root_of(par, i), b = root_of(par, j);
          if (a != b) par[std::max(a, b)] = std::min(a, b);  // roots stay first in C order
        }
      }
      for (int d = last - 1; d >= 0; --d) {
        if (++c[d] < image.shape[d]) break;
        c[d] = 0;
      }
    }
  });
  int64_t* o = out.ptr<int64_t>();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) {  // a root precedes its members: its number is known when they come
    if (!m[i]) {
      o[i] = 0;
      continue;
    }
    const int64_t r = root_of(par, i);
    o[i] = r == i ? ++count : o[r];
  }
  return count;
}

}  // namespace ndimg::morphology

// Host schedules of reconstruct.hpp. Reconstruction is Vincent's hybrid: a raster and an anti-raster scan
// take each element's earlier (later) sources, then a FIFO carries what the scans could not reach; each
// element is touched a few times, whatever the geodesic path lengths (iterating dilations until stable
// costs one pass per step of the longest path). The plateau and flood fills visit each element once.
#include <algorithm>
#include <atomic>
#include <climits>
#include <deque>
#include <iterator>
#include <memory>
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

int64_t value_components_cpu(const View& image, const View& fg, std::span<const uint8_t> structure, const View& out) {
  const int nd = image.ndim, last = nd - 1;
  const int64_t n = image.size(), width = image.shape[last], rows = image.shape[0], row = n / rows;
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
  int64_t* o = out.ptr<int64_t>();
  // slabs of whole hyperplanes along axis 0, joined on the threads; then their seams, serially. A root is
  // its set's first element in C order (the larger root goes under the smaller). Parents are 32-bit where
  // the indices fit (half the memory traffic).
  const int64_t slabs =
      nd == 1 ? 1 : parts_for(rows, std::max<int64_t>(1, (int64_t(1) << 15) / std::max<int64_t>(row, 1)));
  auto run = [&]<class I>() -> int64_t {
    std::unique_ptr<I[]> parents(new I[n]);  // every entry written by the slabs
    I* par = parents.get();
    dispatch_dtype(image.dtype, [&]<class T>() {
      const T* v = image.ptr<T>();
      auto root = [&](I i) {
        while (par[i] != i) {
          par[i] = par[par[i]];
          i = par[i];
        }
        return i;
      };
      // the taps that exist from the line starting at `start`: within the slab starting at hyperplane `from`,
      // or (seam) only those stepping back across it
      bool has_left = false;  // the tap (0, ..., 0, -1)
      for (const Tap& t : taps) has_left = has_left || t.linear == -1;
      auto line_taps = [&](int64_t start, int64_t from, bool seam, std::vector<const Tap*>& valid,
                           std::vector<int>& partner) {
        int64_t c[kMaxDim];
        int64_t rem = start;
        for (int d = last; d >= 0; --d) {
          c[d] = rem % image.shape[d];
          rem /= image.shape[d];
        }
        valid.clear();
        for (int pass = 0; pass < 2; ++pass)  // the taps straight across a line before their diagonal ones
          for (const Tap& t : taps) {
            if ((t.delta[last] == 0) != (pass == 0)) continue;
            if (seam != (nd > 1 && t.delta[0] == -1 && c[0] == from)) continue;
            bool inside = true;
            for (int d = 0; d < last && inside; ++d)
              inside = c[d] + t.delta[d] >= 0 && c[d] + t.delta[d] < image.shape[d];
            if (inside) valid.push_back(&t);
          }
        // a diagonal tap's partner: the straight one into the same line. Where that one joined i, the diagonal
        // neighbour (next to it on its line, of the same value) was joined to it already by the left tap
        partner.assign(valid.size(), -1);
        for (size_t k = 0; has_left && k < valid.size() && valid.size() <= 64; ++k)
          for (size_t q = 0; q < k; ++q)
            if (valid[k]->delta[last] != 0 && valid[q]->delta[last] == 0 &&
                valid[q]->linear == valid[k]->linear - valid[k]->delta[last])
              partner[k] = int(q);
      };
      // i's root is kept at hand while its taps join it (one find per matching neighbour) and i points
      // straight at it afterwards, so that chains stay short
      auto join_line = [&](int64_t s0, const std::vector<const Tap*>& valid, const std::vector<int>& partner,
                           bool init) {
        for (int64_t x = 0; x < width; ++x) {
          const int64_t i = s0 + x;
          if (init) par[i] = I(i);
          if (!m[i]) continue;
          I ri = root(I(i));
          uint64_t joined = 0;
          for (size_t k = 0; k < valid.size(); ++k) {
            const Tap* t = valid[k];
            if (partner[k] >= 0 && (joined >> partner[k] & 1)) continue;
            const int64_t xx = x + t->delta[last], j = i + t->linear;
            if (xx < 0 || xx >= width || !m[j] || !(v[j] == v[i])) continue;
            joined |= uint64_t(1) << (k & 63);
            const I rj = root(I(j));
            if (rj < ri) {
              par[ri] = rj;
              ri = rj;
            } else if (rj > ri) {
              par[rj] = ri;
            }
          }
          par[i] = ri;
        }
      };
      parallel_for(slabs, 1, [&](int64_t s0, int64_t s1) {
        std::vector<const Tap*> valid;
        std::vector<int> partner;
        for (int64_t s = s0; s < s1; ++s) {
          const int64_t r0 = rows * s / slabs, r1 = rows * (s + 1) / slabs;
          for (int64_t start = r0 * row; start < r1 * row; start += width) {
            line_taps(start, r0, false, valid, partner);
            join_line(start, valid, partner, true);
          }
        }
      });
      std::vector<const Tap*> valid;
      std::vector<int> partner;
      for (int64_t s = 1; s < slabs; ++s) {
        const int64_t r0 = rows * s / slabs;
        for (int64_t start = r0 * row; start < (r0 + 1) * row; start += width) {
          line_taps(start, r0, true, valid, partner);
          join_line(start, valid, partner, false);
        }
      }
    });
    // each member's root into the output (read-only walks: the parts run at once), the roots numbered in C
    // order (into their parent slot), then each member its root's number
    constexpr int64_t kPart = int64_t(1) << 16;
    const int64_t parts = (n + kPart - 1) / kPart;
    std::vector<int64_t> base(static_cast<size_t>(parts + 1), 0);
    parallel_for(parts, 1, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        int64_t roots = 0;
        for (int64_t i = p * kPart; i < std::min(n, (p + 1) * kPart); ++i) {
          I r = I(i);
          while (par[r] != r) r = par[r];
          o[i] = m[i] ? int64_t(r) : -1;
          roots += o[i] == i;
        }
        base[p + 1] = roots;
      }
    });
    for (int64_t p = 0; p < parts; ++p) base[p + 1] += base[p];
    parallel_for(parts, 1, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        int64_t k = base[p];
        for (int64_t i = p * kPart; i < std::min(n, (p + 1) * kPart); ++i)
          if (o[i] == i) par[i] = I(++k);
      }
    });
    parallel_for(parts, 1, [&](int64_t p0, int64_t p1) {
      for (int64_t i = p0 * kPart; i < std::min(n, p1 * kPart); ++i) o[i] = o[i] < 0 ? 0 : int64_t(par[o[i]]);
    });
    return base[parts];
  };
  return n < INT32_MAX ? run.template operator()<int32_t>() : run.template operator()<int64_t>();
}

}  // namespace ndimg::morphology

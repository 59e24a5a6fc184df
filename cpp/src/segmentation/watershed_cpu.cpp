// CPU schedule of the watershed: scikit-image's priority flooding, step for step. Its queue is a binary heap
// ordered by (value, age); the markers all enter with age 0, so among markers of one value the heap's own
// arrangement decides who floods first. The heap below is that heap (same pushes, same sift order), with the
// items held in place rather than behind pointers, so the labels agree exactly, ties included.
#include <cmath>
#include <vector>

#include "segmentation/watershed.hpp"

namespace ndimg::segmentation {
namespace {

template <class I>
struct Item {
  double value;
  int32_t age;  // scikit-image keeps the age in 32 bits (it wraps past 2**31 entries)
  I index, source;
};

template <class I>
inline bool smaller(const Item<I>& a, const Item<I>& b) {
  if (a.value != b.value) return a.value < b.value;
  return a.age < b.age;
}

template <class I>
class Heap {
 public:
  bool empty() const { return a_.empty(); }
  void push(const Item<I>& x) {
    size_t child = a_.size();
    a_.push_back(x);
    while (child > 0) {
      const size_t parent = (child + 1) / 2 - 1;
      if (!smaller(x, a_[parent])) break;
      a_[child] = a_[parent];
      child = parent;
    }
    a_[child] = x;
  }
  Item<I> pop() {
    const Item<I> top = a_[0];
    const Item<I> x = a_.back();
    a_.pop_back();
    const size_t n = a_.size();
    if (n == 0) return top;
    // the last item sifts down from the root: the smaller child moves up while it is smaller than the item
    // (the left child first, the right one only if smaller than the winner so far)
    size_t i = 0;
    for (;;) {
      const size_t l = 2 * i + 1, r = l + 1;
      if (l >= n) break;
      size_t best = i;
      const Item<I>* cand = &x;
      if (smaller(a_[l], x)) {
        best = l;
        cand = &a_[l];
      }
      if (r < n && smaller(a_[r], *cand)) best = r;
      if (best == i) break;
      a_[i] = a_[best];
      i = best;
    }
    a_[i] = x;
    return top;
  }

 private:
  std::vector<Item<I>> a_;
};

// scikit-image's distance between two linear indices: coordinate by coordinate from the C strides
double euclid(int64_t p, int64_t q, const std::vector<int64_t>& strides) {
  double r = 0;
  for (int64_t s : strides) {
    const double c = double(p / s - q / s);
    r += c * c;
    p %= s;
    q %= s;
  }
  return std::sqrt(r);
}

template <class I>
void flood(const double* img, uint8_t* mask, int64_t* out, int64_t n, std::span<const int64_t> offsets,
           const std::vector<int64_t>& strides, double compactness, bool wsl) {
  const bool compact = compactness > 0;
  Heap<I> heap;
  for (int64_t i = 0; i < n; ++i)
    if (out[i]) heap.push({img[i], 0, I(i), I(i)});
  int64_t age = 1;
  while (!heap.empty()) {
    const Item<I> e = heap.pop();
    const int64_t idx = e.index;
    if (compact || wsl) {
      // the same element can enter more than once: the first to leave labels it
      if (out[idx] && e.index != e.source) continue;
      const int64_t lab = out[e.source];
      bool touches = false;  // (a line element is cleared in the mask, its neighbours still flooded)
      if (!compact) {
        if (!mask[idx]) {
          touches = true;
        } else {
          for (int64_t o : offsets) {
            const int64_t nb = idx + o;
            if (mask[nb] && out[nb] && out[nb] != lab) {
              mask[idx] = 0;
              touches = true;
              break;
            }
          }
        }
      }
      if (!touches) out[idx] = lab;
    }
    for (int64_t o : offsets) {
      const int64_t nb = idx + o;
      if (!mask[nb] || out[nb]) continue;
      ++age;
      double v = img[nb];
      if (compact) {
        v += compactness * euclid(nb, e.source, strides);
      } else if (!wsl) {
        out[nb] = out[idx];  // no cheaper path can reach it later: labelled on entry
      }
      if (v < e.value) v = e.value;
      heap.push({v, int32_t(uint32_t(age)), I(nb), e.source});
    }
  }
}

}  // namespace

void watershed_cpu(const View& image, const View& mask, const View& labels, std::span<const int64_t> offsets,
                   double compactness, bool watershed_line) {
  const int64_t n = image.size();
  std::vector<int64_t> strides(size_t(image.ndim));
  int64_t s = 1;
  for (int d = image.ndim - 1; d >= 0; --d) {
    strides[size_t(d)] = s;
    s *= image.shape[d];
  }
  const double* img = image.ptr<double>();
  uint8_t* m = mask.ptr<uint8_t>();
  int64_t* out = labels.ptr<int64_t>();
  if (n < INT32_MAX) flood<int32_t>(img, m, out, n, offsets, strides, compactness, watershed_line);
  else flood<int64_t>(img, m, out, n, offsets, strides, compactness, watershed_line);
}

}  // namespace ndimg::segmentation

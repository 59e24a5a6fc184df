// CPU schedule of the watershed: scikit-image's priority flooding, step for step. Its queue is a binary heap
// ordered by (value, age), and an entry never goes below the one just taken out (its value is raised to it, its
// age is larger), so the elements leave in increasing order of that key. The key is unique but for the markers,
// which all enter with age 0: among markers of one value the heap's own arrangement decides who floods first.
// So the flooding starts on a replay of that heap (same pushes, same sift order; items held in place, not
// behind pointers) and, once no two markers left share a value, hands the queue over to a bucket queue over
// value ranges (a small heap per range): the same order, far fewer cache misses on the large queues of real
// images.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/parts.hpp"
#include "segmentation/watershed.hpp"

namespace ndimg::segmentation {
namespace {

// The queue's entries: the source marker rides along only where it is read (compactness, watershed lines), so
// that the plain flooding's entries take 16 bytes.
template <class I, bool kSource>
struct Item {
  double value;
  int32_t age;  // scikit-image keeps the age in 32 bits (it wraps past 2**31 entries)
  I index, source;
  I from() const { return source; }
};
template <class I>
struct Item<I, false> {
  double value;
  int32_t age;
  I index;
  I from() const { return index; }
};
template <class It, class I>
It item(double value, int32_t age, I index, I source) {
  if constexpr (requires(It x) { x.source; }) return {value, age, index, source};
  else return {value, age, index};
}

template <class It>
inline bool smaller(const It& a, const It& b) {
  if (a.value != b.value) return a.value < b.value;
  return a.age < b.age;
}

template <class It>
class Heap {
 public:
  bool empty() const { return a_.empty(); }
  void push(const It& x) {
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
  It pop() {
    const It top = a_[0];
    const It x = a_.back();
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
      const It* cand = &x;
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
  std::vector<It> a_;
};

// A monotone priority queue (nothing pushed below the last key popped) for unique (value, age) keys: the
// values cut into `count` equal ranges over [lo, hi] (below lo: the first, above hi: the last), each range a
// linked list of chunks of entries until the flooding reaches it, then a small binary heap. Exact for any
// spread of values; fast where the ranges are small.
template <class It>
class BucketQueue {
 public:
  BucketQueue(double lo, double hi, int64_t count)
      : lo_(lo), hi_(hi), scale_(hi > lo ? double(count) / (hi - lo) : 0), head_(size_t(count), int32_t(-1)) {}
  bool empty() const { return size_ == 0; }
  void start_at(double v) { cur_ = range(v); }
  void push(const It& x) {
    ++size_;
    const int64_t b = range(x.value);
    if (b == cur_) {
      near_.push_back(x);
      std::push_heap(near_.begin(), near_.end(), later);
      return;
    }
    int32_t c = head_[size_t(b)];
    if (c < 0 || pool_[size_t(c)].count == kChunk) {
      int32_t fresh;
      if (free_ >= 0) {
        fresh = free_;
        free_ = pool_[size_t(fresh)].next;
      } else {
        fresh = int32_t(pool_.size());
        pool_.emplace_back();
      }
      pool_[size_t(fresh)].next = c;
      pool_[size_t(fresh)].count = 0;
      head_[size_t(b)] = c = fresh;
    }
    Chunk& ch = pool_[size_t(c)];
    ch.items[ch.count++] = x;
  }
  It pop() {
    while (near_.empty()) {  // the next range with entries becomes the heap
      ++cur_;
      for (int32_t c = head_[size_t(cur_)]; c >= 0;) {
        Chunk& ch = pool_[size_t(c)];
        const int32_t next = ch.next;
        near_.insert(near_.end(), ch.items, ch.items + ch.count);
        ch.next = free_;
        free_ = c;
        c = next;
      }
      head_[size_t(cur_)] = int32_t(-1);
      std::make_heap(near_.begin(), near_.end(), later);
    }
    std::pop_heap(near_.begin(), near_.end(), later);
    const It x = near_.back();
    near_.pop_back();
    --size_;
    return x;
  }

 private:
  static constexpr int kChunk = 8;
  struct Chunk {
    It items[kChunk];
    int32_t next;
    int32_t count;
  };
  static bool later(const It& a, const It& b) { return smaller(b, a); }
  // monotone in v: equal values share a range, a larger value never gets a lower one
  int64_t range(double v) const {
    if (!(v > lo_)) return 0;
    const int64_t last = int64_t(head_.size()) - 1;
    if (v >= hi_) return last;
    return std::min(last, int64_t((v - lo_) * scale_));
  }
  double lo_, hi_, scale_;
  std::vector<int32_t> head_;
  std::vector<Chunk> pool_;
  std::vector<It> near_;
  int32_t free_ = int32_t(-1);
  int64_t cur_ = 0, size_ = 0;
};

// scikit-image's queue: its heap replayed while markers of one value remain (after the last value `ties`
// shared by two markers has been passed), the bucket queue after. `exact_only`: the heap throughout (NaN
// values, which order nothing, or more entries than the 32-bit age counts).
template <class It>
class Queue {
 public:
  Queue(bool exact_only, bool any_ties, double ties, double lo, double hi, int64_t ranges)
      : queue_(lo, hi, ranges), replay_(exact_only || any_ties), fixed_(exact_only), ties_(ties) {}
  bool empty() const { return replay_ ? heap_.empty() : queue_.empty(); }
  void push(const It& x) {
    if (replay_) heap_.push(x);
    else queue_.push(x);
  }
  It pop() {
    if (!replay_) return queue_.pop();
    const It e = heap_.pop();
    if (!fixed_ && e.value > ties_) {  // no two markers left share a value: every key left is unique
      queue_.start_at(e.value);
      while (!heap_.empty()) queue_.push(heap_.pop());
      replay_ = false;
    }
    return e;
  }

 private:
  Heap<It> heap_;
  BucketQueue<It> queue_;
  bool replay_, fixed_;
  double ties_;
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

// One element's value, label and mask together (a neighbour's test reads one cache line). The label is 0
// while unlabelled, else the marker's value (or its rank among the markers' values where some value does not
// fit in 32 bits); `in` is the mask, cleared on watershed lines (a marker keeps its label there).
struct Px {
  double v;
  int32_t lab;
  uint8_t in;
};

template <class I, bool kSource>
void flood(std::vector<Px>& px, std::span<const int64_t> offsets, const std::vector<int64_t>& strides,
           double compactness, bool wsl) {
  const int64_t n = int64_t(px.size());
  const bool compact = compactness > 0;
  // the values of the markers whose turn can change anything: the last one two of them share ends the
  // replay of scikit-image's heap. A marker with only markers (or no mask) around floods nothing and, unless
  // watershed lines are drawn and one neighbour has another label, changes nothing either.
  std::vector<double> marks;
  bool nan = false;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (int64_t i = 0; i < n; ++i) {
    const Px& p = px[size_t(i)];
    nan = nan || std::isnan(p.v);
    if (std::isfinite(p.v)) {
      lo = std::min(lo, p.v);
      hi = std::max(hi, p.v);
    }
    if (!p.lab) continue;
    bool active = false;
    for (int64_t o : offsets) {
      const Px& q = px[size_t(i + o)];
      active = active || (q.in && (!q.lab || (wsl && q.lab != p.lab)));
    }
    if (active) marks.push_back(p.v);
  }
  std::sort(marks.begin(), marks.end());
  bool any_ties = false;
  double ties = -std::numeric_limits<double>::infinity();
  for (size_t k = 1; k < marks.size(); ++k)
    if (marks[k] == marks[k - 1]) {
      any_ties = true;
      ties = marks[k];
    }
  // entries: one per element labelled on entry, else one per (element, neighbour) at most
  const int64_t k = int64_t(offsets.size());
  const bool many = compact || wsl ? n > (INT32_MAX - 1) / std::max<int64_t>(k, 1) : n >= INT32_MAX - 1;
  // about 64 elements a range where the values spread evenly (a few chunks each, a heap of a few levels)
  using It = Item<I, kSource>;
  Queue<It> heap(nan || many, any_ties, ties, lo, hi, std::clamp<int64_t>(n / 64, 1, int64_t(1) << 20));
  for (int64_t i = 0; i < n; ++i)
    if (px[i].lab) heap.push(item<It>(px[i].v, 0, I(i), I(i)));
  int64_t age = 1;
  while (!heap.empty()) {
    const It e = heap.pop();
    const int64_t idx = e.index;
    if (compact || wsl) {
      // the same element can enter more than once: the first to leave labels it
      if (px[idx].lab && e.index != e.from()) continue;
      const int32_t lab = px[e.from()].lab;
      bool touches = false;  // (a line element leaves the mask, its neighbours are still flooded)
      if (!compact) {
        if (!px[idx].in) {
          touches = true;
        } else {
          for (int64_t o : offsets) {
            const Px& q = px[idx + o];
            if (q.in && q.lab && q.lab != lab) {
              px[idx].in = 0;
              touches = true;
              break;
            }
          }
        }
      }
      if (!touches) px[idx].lab = lab;
    }
    for (int64_t o : offsets) {
      const int64_t nb = idx + o;
      Px& q = px[nb];
      if (!q.in || q.lab) continue;  // outside the mask (or on a line), or labelled
      ++age;
      double v = q.v;
      if (compact) {
        v += compactness * euclid(nb, e.from(), strides);
      } else if (!wsl) {
        q.lab = px[idx].lab;  // no cheaper path can reach it later: labelled on entry
      }
      if (v < e.value) v = e.value;
      heap.push(item<It>(v, int32_t(uint32_t(age)), I(nb), e.from()));
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
  // the labels as they are where they all fit in 32 bits, else their ranks
  bool fit = true;
  for (int64_t i = 0; i < n && fit; ++i) fit = out[i] >= INT32_MIN && out[i] <= INT32_MAX;
  std::vector<int64_t> values;
  if (!fit) {
    for (int64_t i = 0; i < n; ++i)
      if (out[i]) values.push_back(out[i]);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    if (int64_t(values.size()) >= INT32_MAX) throw ValueError("watershed: too many distinct markers");
  }
  std::vector<Px> px(static_cast<size_t>(n));
  parallel_for(n, 1 << 16, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) {
      const int32_t lab = !out[i] ? 0
                          : fit   ? int32_t(out[i])
                                  : int32_t(std::lower_bound(values.begin(), values.end(), out[i]) - values.begin() + 1);
      px[size_t(i)] = {img[i], lab, uint8_t(m[i] != 0)};
    }
  });
  const bool source = compactness > 0 || watershed_line;
  if (n < INT32_MAX) {
    if (source) flood<int32_t, true>(px, offsets, strides, compactness, watershed_line);
    else flood<int32_t, false>(px, offsets, strides, compactness, watershed_line);
  } else {
    if (source) flood<int64_t, true>(px, offsets, strides, compactness, watershed_line);
    else flood<int64_t, false>(px, offsets, strides, compactness, watershed_line);
  }
  parallel_for(n, 1 << 16, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) {
      const Px& p = px[size_t(i)];
      out[i] = fit || !p.lab ? p.lab : values[size_t(p.lab - 1)];
      m[i] = p.in;
    }
  });
}

}  // namespace ndimg::segmentation

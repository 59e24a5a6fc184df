// CPU schedule of the watershed: scikit-image's priority flooding, label for label. Its queue is a binary heap
// ordered by (value, age), and an entry never goes below the one just taken out (its value is raised to it, its
// age is larger), so the elements leave in increasing order of that key. The key is unique but for the markers,
// which all enter with age 0: among markers of one value the heap's own arrangement decides who floods first.
// So the flooding starts on a replay of that heap (same pushes, same sift order; items held in place, not
// behind pointers) and, once no two markers left share a value, hands the queue over to a bucket queue over
// value ranges: the same order, far fewer cache misses on the large queues of real images.
//
// The plain flooding (no compactness, no watershed lines) then runs level by level: at one value L the
// entries of value L leave by age, then every element they label below or at L, in the order it was labelled
// (its entry gets value L and a larger age than any before it): a breadth-first search whose wide fronts are
// taken in parallel, each element going to the first (front position, neighbour) that reaches it, as one
// after the other would. Its heap replay also ends sooner: markers of one value and one label flood the same
// elements in any order (the labels they give and the order of the labels' runs do not change), so only a
// value shared by markers of different labels holds it.
//
// Even those need the heap only where their floods meet. An element is labelled by its first neighbour to
// leave, and two entries leave in an order that the order of two tied markers decides only when their chains
// of pushers back to those markers match step for step (values, neighbour offsets); so the order decides an
// element's pusher only between neighbours flooded from the two markers. Where nothing flooded from one tied
// marker touches anything flooded from another of its value and another label, every order gives the same
// labels. A few such markers among many (a float image's chance pairs) are therefore flooded without the heap,
// each element carrying its marker's tie, and the result kept if that holds, else flooded again with the heap.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>
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
  const It& top() const { return a_[0]; }
  const std::vector<It>& items() const { return a_; }
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

// A monotone priority queue (nothing pushed below the last key popped) for (value, age) keys: the values cut
// into `count` equal ranges over [lo, hi] (below lo: the first, above hi: the last), each range a linked list
// of chunks of entries until the flooding reaches it, then a sorted run (entries arrive by age, so a range of
// one value is sorted already) beside a small heap of the entries pushed into it since. Exact for any spread
// of values; fast where the ranges are small or hold one value.
template <class It>
class BucketQueue {
 public:
  BucketQueue(double lo, double hi, int64_t count)
      : lo_(lo), hi_(hi), scale_(hi > lo ? double(count) / (hi - lo) : 0), head_(size_t(count), int32_t(-1)) {}
  bool empty() const { return size_ == 0; }
  void push(const It& x) {
    ++size_;
    const int64_t b = range(x.value);
    if (b == cur_) {
      late_.push_back(x);
      std::push_heap(late_.begin(), late_.end(), later);
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
  // whether an entry of value v (the smallest value left) is still in the range taken out last: the range is
  // not left, so that entries pushed on the level of v still find it
  bool holds(double v) const {
    return (pos_ < run_.size() && run_[pos_].value == v) || (!late_.empty() && late_.front().value == v);
  }
  // the smallest entry where it is in the range taken out last, else null
  const It* peek() const {
    if (pos_ == run_.size() && late_.empty()) return nullptr;
    return from_run() ? &run_[pos_] : &late_.front();
  }
  // the smallest entry (the queue not empty)
  const It& top() {
    while (pos_ == run_.size() && late_.empty()) load(++cur_);
    return from_run() ? run_[pos_] : late_.front();
  }
  It pop() {
    const It x = top();
    if (from_run()) {
      ++pos_;
    } else {
      std::pop_heap(late_.begin(), late_.end(), later);
      late_.pop_back();
    }
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
  bool from_run() const { return pos_ < run_.size() && (late_.empty() || !smaller(late_.front(), run_[pos_])); }
  // range b's entries in push order (its chunks are listed newest first), then sorted by key
  void load(int64_t b) {
    run_.clear();
    pos_ = 0;
    chain_.clear();
    for (int32_t c = head_[size_t(b)]; c >= 0; c = pool_[size_t(c)].next) chain_.push_back(c);
    for (auto c = chain_.rbegin(); c != chain_.rend(); ++c) {
      Chunk& ch = pool_[size_t(*c)];
      run_.insert(run_.end(), ch.items, ch.items + ch.count);
      ch.next = free_;
      free_ = *c;
    }
    head_[size_t(b)] = int32_t(-1);
    if (!std::is_sorted(run_.begin(), run_.end(), smaller<It>)) std::sort(run_.begin(), run_.end(), smaller<It>);
  }
  // monotone in v: equal values share a range, a larger value never gets a lower one
  int64_t range(double v) const {
    if (!(v > lo_)) return 0;
    const int64_t last = int64_t(head_.size()) - 1;
    if (v >= hi_) return last;
    return std::min(last, int64_t((v - lo_) * scale_));
  }
  double lo_, hi_, scale_;
  std::vector<int32_t> head_, chain_;
  std::vector<Chunk> pool_;
  std::vector<It> run_, late_;
  size_t pos_ = 0;
  int32_t free_ = int32_t(-1);
  int64_t cur_ = -1, size_ = 0;
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
      for (const It& x : heap_.items()) queue_.push(x);
      heap_ = {};
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
// fit in 32 bits); `in` is the mask (0 outside it, cleared on watershed lines, where a marker keeps its
// label), inside it kFree or, while a parallel front runs, the first position to reach the element.
constexpr uint32_t kFree = ~uint32_t(0);
struct Px {
  double v;
  int32_t lab;
  uint32_t in;
};

// What the flooding needs to know first: the span of the finite values, whether any is NaN, and the last value
// (`ties`) two markers whose turn can change anything share, which ends the replay of scikit-image's heap. A
// marker with only markers (or no mask) around floods nothing and, unless watershed lines are drawn and one
// neighbour has another label, changes nothing either. `across`: only markers of different labels tie (the
// plain flooding, where markers of one value and label may leave in any order).
struct Survey {
  bool nan = false, any_ties = false, f32 = true;  // f32: every value a float32's
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, ties = -lo;
  std::vector<double> tied;  // the values shared by markers that tie (increasing)
  int64_t tied_markers = 0, active = 0;
};
Survey survey(const std::vector<Px>& px, std::span<const int64_t> offsets, bool wsl, bool across) {
  Survey s;
  std::vector<std::pair<double, int32_t>> marks;
  for (size_t i = 0; i < px.size(); ++i) {
    const Px& p = px[i];
    s.nan = s.nan || std::isnan(p.v);
    s.f32 = s.f32 && (std::abs(p.v) <= std::numeric_limits<float>::max() ? double(float(p.v)) == p.v : std::isinf(p.v));
    if (std::isfinite(p.v)) {
      s.lo = std::min(s.lo, p.v);
      s.hi = std::max(s.hi, p.v);
    }
    if (!p.lab) continue;
    bool active = false;
    for (int64_t o : offsets) {
      const Px& q = px[size_t(int64_t(i) + o)];
      active = active || (q.in && (!q.lab || (wsl && q.lab != p.lab)));
    }
    if (active && !std::isnan(p.v)) marks.emplace_back(p.v, p.lab);  // (NaN: the heap throughout)
  }
  std::sort(marks.begin(), marks.end());
  s.active = int64_t(marks.size());
  for (size_t a = 0, b; a < marks.size(); a = b) {
    bool mixed = false;
    for (b = a + 1; b < marks.size() && marks[b].first == marks[a].first; ++b)
      mixed = mixed || marks[b].second != marks[a].second;
    if (b - a < 2 || (across && !mixed)) continue;
    s.any_ties = true;
    s.ties = marks[a].first;
    s.tied.push_back(s.ties);
    s.tied_markers += int64_t(b - a);
  }
  return s;
}

// about 64 elements a range where the values spread evenly (a few chunks each, a short sort or heap)
int64_t ranges_for(int64_t n) { return std::clamp<int64_t>(n / 64, 1, int64_t(1) << 20); }

// The flooding one entry at a time: with compactness or watershed lines (an element may enter more than once
// and is labelled when it leaves), and the plain one where the keys need the heap throughout (`exact_only`).
template <class I, bool kSource>
void flood(std::vector<Px>& px, std::span<const int64_t> offsets, const std::vector<int64_t>& strides,
           double compactness, bool wsl, const Survey& sv, bool exact_only) {
  const int64_t n = int64_t(px.size());
  const bool compact = compactness > 0;
  using It = Item<I, kSource>;
  Queue<It> heap(exact_only, sv.any_ties, sv.ties, sv.lo, sv.hi, ranges_for(n));
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

// One front of the plain flooding at `level` (its entries fifo[head, end), labelled, in the order they leave)
// taken in parallel, as they would leave one after the other: each unlabelled neighbour goes to the first
// (position, neighbour offset) that reaches it, takes its label and the next age in that order; those at or
// below the level join the fifo in that order, the others the queue. The first reacher is claimed in the
// element's `in` (key + 1 < kFree: the caller keeps fronts that small), so a front reads the lines the
// serial flooding reads. `parts`: per part of the front, what it labelled, in order.
struct FrontPart {
  std::vector<int32_t> stay;
  std::vector<int64_t> rise;  // (index << 32 | winner's place in the part)
  int64_t won = 0;
};
template <class It>
void flood_front(std::vector<Px>& px, std::span<const int64_t> offsets, std::vector<int32_t>& fifo, size_t head,
                 double level, int64_t& age, BucketQueue<It>& queue, std::vector<FrontPart>& parts, int32_t* tie) {
  constexpr int64_t kGrain = 1 << 10;
  const size_t end = fifo.size();
  const int64_t m = int64_t(end - head), k = int64_t(offsets.size());
  parallel_for(m, kGrain, [&](int64_t a, int64_t b) {
    for (int64_t r = a; r < b; ++r) {
      const int64_t idx = fifo[head + size_t(r)];
      for (int64_t j = 0; j < k; ++j) {
        Px& q = px[size_t(idx + offsets[size_t(j)])];
        if (q.lab) continue;
        const uint32_t key = uint32_t(r * k + j + 1);
        std::atomic_ref<uint32_t> c(q.in);
        uint32_t seen = c.load(std::memory_order_relaxed);  // 0 outside the mask: never claimed
        while (key < seen && !c.compare_exchange_weak(seen, key, std::memory_order_relaxed)) {
        }
      }
    }
  });
  // the winners label their elements and note them, part by part in order (a loser reads its own key or
  // kFree, never a winner's)
  const int64_t np = parts_for(m, kGrain);
  if (int64_t(parts.size()) < np) parts.resize(size_t(np));
  for_parts(m, np, [&](int64_t p, int64_t a, int64_t b) {
    FrontPart& part = parts[size_t(p)];
    part.stay.clear();
    part.rise.clear();
    int64_t won = 0;
    for (int64_t r = a; r < b; ++r) {
      const int64_t idx = fifo[head + size_t(r)];
      const int32_t lab = px[size_t(idx)].lab;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t nb = idx + offsets[size_t(j)];
        Px& q = px[size_t(nb)];
        std::atomic_ref<uint32_t> c(q.in);
        if (c.load(std::memory_order_relaxed) != uint32_t(r * k + j + 1)) continue;
        c.store(kFree, std::memory_order_relaxed);
        q.lab = lab;
        if (tie) tie[nb] = tie[idx];
        if (q.v <= level) part.stay.push_back(int32_t(nb));
        else part.rise.push_back(nb << 32 | won);
        ++won;
      }
    }
    part.won = won;
  });
  // in order: the fifo grows by the parts' stays, the queue gets the rest with their ages
  int64_t won = 0;
  for (int64_t p = 0; p < np; ++p) {
    const FrontPart& part = parts[size_t(p)];
    fifo.insert(fifo.end(), part.stay.begin(), part.stay.end());
    for (const int64_t x : part.rise) {
      const int32_t nb = int32_t(x >> 32);
      queue.push(item<It>(px[size_t(nb)].v, int32_t(age + 1 + won + (x & 0xffffffff)), nb, nb));
    }
    won += part.won;
  }
  age += won;
}

// The replay's entry where every value is a float32's (float32, 16- and 8-bit images): the value's order and
// the age in one 64-bit key, 12 bytes an entry, one comparison.
#pragma pack(push, 4)
struct Packed {
  uint64_t key;
  int32_t index;
};
#pragma pack(pop)
inline uint32_t f32_order(double v) {  // (+0.0: -0.0 and 0.0 are one value)
  const uint32_t b = std::bit_cast<uint32_t>(float(v + 0.0));
  return b >> 31 ? ~b : b | 0x80000000u;
}
inline bool smaller(const Packed& a, const Packed& b) { return a.key < b.key; }
inline double value_of(const Packed& x) {
  const uint32_t c = uint32_t(x.key >> 32);
  return double(std::bit_cast<float>(c >> 31 ? c & 0x7fffffffu : ~c));
}
inline double value_of(const Item<int32_t, false>& x) { return x.value; }
template <class E>
E entry(double v, int64_t age, int32_t i) {
  if constexpr (std::is_same_v<E, Packed>) return {uint64_t(f32_order(v)) << 32 | uint64_t(age), i};
  else return item<E>(v, int32_t(age), i, i);
}

// scikit-image's heap, replayed while markers of different labels share a value still to come (entries E);
// what is left joins `queue` (anything with push(Item)). Returns the age reached.
template <class E, class Sink>
int64_t replay(std::vector<Px>& px, std::span<const int64_t> offsets, const Survey& sv, Sink& queue) {
  using It = Item<int32_t, false>;
  Heap<E> heap;
  for (size_t i = 0; i < px.size(); ++i)
    if (px[i].lab) {
      if (sv.any_ties) heap.push(entry<E>(px[i].v, 0, int32_t(i)));
      else queue.push(entry<It>(px[i].v, 0, int32_t(i)));
    }
  int64_t age = 1;
  while (!heap.empty() && value_of(heap.top()) <= sv.ties) {
    const E e = heap.pop();
    const double v = value_of(e);
    const int32_t lab = px[size_t(e.index)].lab;
    for (int64_t o : offsets) {
      const int64_t nb = e.index + o;
      Px& q = px[size_t(nb)];
      if (!q.in || q.lab) continue;
      q.lab = lab;  // no cheaper path can reach it later: labelled on entry
      ++age;
      heap.push(entry<E>(std::max(q.v, v), age, int32_t(nb)));
    }
  }
  for (const E& x : heap.items()) {
    if constexpr (std::is_same_v<E, It>) queue.push(x);
    else queue.push(entry<It>(value_of(x), int64_t(x.key & 0xffffffffu), x.index));
  }
  return age;
}

// The plain flooding (no compactness, no watershed lines, no NaN, ages within 32 bits): scikit-image's heap
// while markers of different labels share a value still to come, then level by level (see the top). With
// `tie`, no heap: tied markers leave in the bucket queue's order, and every element flooded takes its
// marker's tie[] (the tied value's number, 0: none) for `apart` to check.
void flood_levels(std::vector<Px>& px, std::span<const int64_t> offsets, const Survey& sv, int32_t* tie) {
  using It = Item<int32_t, false>;
  const int64_t n = int64_t(px.size());
  // Fronts this wide are taken in parallel, from 4 threads on: a front reads each neighbour twice (claim, then
  // winner), the serial flooding once, and both are bound by those scattered reads, so 2 threads only break
  // even (measured: a 4K uint8 image of 16 levels, 4.5M elements in fronts, 0.58 s through fronts on one
  // thread against 0.22-0.35 s one by one).
  constexpr size_t kFront = 1 << 12;
  const bool parallel = num_threads() >= 4;
  BucketQueue<It> queue(sv.lo, sv.hi, ranges_for(n));
  int64_t age = sv.f32 ? replay<Packed>(px, offsets, sv, queue) : replay<It>(px, offsets, sv, queue);
  std::vector<int32_t> fifo;
  std::vector<FrontPart> parts;
  while (!queue.empty()) {
    const double level = queue.top().value;
    fifo.clear();
    do fifo.push_back(queue.pop().index);
    while (queue.holds(level));
    if (const It* next = queue.peek())  // the next level's first neighbours on their way while this one floods
      for (int64_t o : offsets) __builtin_prefetch(&px[size_t(next->index + o)], 1);
    for (size_t head = 0; head < fifo.size();) {
      const uint64_t wide = fifo.size() - head;
      if (parallel && wide >= kFront && wide * offsets.size() < kFree - 1) {
        const size_t end = fifo.size();
        flood_front(px, offsets, fifo, head, level, age, queue, parts, tie);
        head = end;
        continue;
      }
      const int64_t idx = fifo[head++];
      const int32_t lab = px[size_t(idx)].lab;
      for (int64_t o : offsets) {
        const int64_t nb = idx + o;
        Px& q = px[size_t(nb)];
        if (!q.in || q.lab) continue;
        q.lab = lab;
        if (tie) tie[nb] = tie[idx];
        ++age;
        if (q.v <= level) fifo.push_back(int32_t(nb));
        else queue.push(item<It>(q.v, int32_t(age), int32_t(nb), int32_t(nb)));
      }
    }
  }
}

// Whether the flooding in which tied markers left in any order gave scikit-image's labels: where no element
// flooded from a marker of a tied value touches one flooded from a marker of that value and another label,
// the order among them decided nothing (see the top).
bool apart(const std::vector<Px>& px, const std::vector<int32_t>& tie, std::span<const int64_t> offsets) {
  std::atomic<bool> ok{true};
  parallel_for(int64_t(px.size()), 1 << 16, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b && ok.load(std::memory_order_relaxed); ++i) {
      const int32_t t = tie[size_t(i)];
      if (!t) continue;
      for (int64_t o : offsets)
        if (tie[size_t(i + o)] == t && px[size_t(i + o)].lab != px[size_t(i)].lab) ok.store(false);
    }
  });
  return ok.load();
}

// The plain flooding with tied markers in any order (flood_levels with tie numbers), and whether that gave
// scikit-image's labels.
bool flood_untied(std::vector<Px>& px, std::span<const int64_t> offsets, const Survey& sv) {
  std::vector<int32_t> tie(px.size(), 0);
  parallel_for(int64_t(px.size()), 1 << 16, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) {
      if (!px[size_t(i)].lab) continue;
      const auto t = std::lower_bound(sv.tied.begin(), sv.tied.end(), px[size_t(i)].v);
      if (t != sv.tied.end() && *t == px[size_t(i)].v) tie[size_t(i)] = int32_t(t - sv.tied.begin() + 1);
    }
  });
  Survey any_order = sv;
  any_order.any_ties = false;
  flood_levels(px, offsets, any_order, tie.data());
  return apart(px, tie, offsets);
}

// ---- images of many levels on several threads: by flood levels, in parts ----
// An element's flood level (the value of its entry in scikit-image's queue) is a marker's value, else the
// larger of its value and its lowest pusher's level (x - offset pushes x): a fixed point that does not depend
// on the order it is found in. scikit-image labels an element from the first of its pushers to leave, which
// is one of those of the lowest level (the queue orders by level first): so where those all have one label
// (each theirs by the same argument, earlier in scikit-image's order), the element has it, whatever the order
// among them. The threads flood a slab of the buffer each, with its own queue and in any order, each element
// taking the label of the first lowest pusher found so far (and that pusher's later labels); what crosses
// into another slab is handed over between rounds, until nothing changes. The labels stand where every
// element's lowest pushers share its label.

// Whether the values look like many levels (a sample of the flooded elements mostly distinct): the level by
// level flooding is the better choice otherwise, where lowest pushers of different labels tie often.
bool many_levels(const std::vector<Px>& px) {
  std::vector<double> sample;
  const size_t step = std::max<size_t>(1, px.size() / 4096);
  for (size_t i = 0; i < px.size(); i += step)
    if (px[i].in || px[i].lab) sample.push_back(px[i].v + 0.0);
  if (sample.size() < 64) return false;
  std::sort(sample.begin(), sample.end());
  const size_t distinct = size_t(std::unique(sample.begin(), sample.end()) - sample.begin());
  return distinct * 10 >= sample.size() * 9;
}

// The plain flooding by flood levels on the threads; returns whether its labels are scikit-image's (px is
// changed either way: the caller loads it again if not).
bool flood_parts(std::vector<Px>& px, std::span<const int64_t> offsets, const Survey& sv) {
  using It = Item<int32_t, false>;
  const int64_t n = int64_t(px.size());
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr uint32_t kMarker = kFree - 1;  // (in the mask: a marker)
  // each element's lowest pusher's level so far: NaN while none, -inf where never pushed (markers, outside the
  // mask); its level is the larger of its value and that. by: the pusher it took its label from.
  std::vector<double> low(static_cast<size_t>(n));
  std::vector<int32_t> by(static_cast<size_t>(n));
  parallel_for(n, 1 << 15, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) {
      Px& p = px[size_t(i)];
      low[size_t(i)] = p.in && !p.lab ? std::numeric_limits<double>::quiet_NaN() : -kInf;
      by[size_t(i)] = -1;
      if (p.in && p.lab) p.in = kMarker;
    }
  });
  auto level = [&](int64_t i) { return std::max(px[size_t(i)].v, low[size_t(i)]); };
  const int64_t parts = parts_for(n, 1 << 14);
  std::vector<int64_t> bound(static_cast<size_t>(parts + 1));
  for (int64_t p = 0; p <= parts; ++p) bound[size_t(p)] = n * p / parts;
  // handed[r % 2][from * parts + to]: the pushes part `from` made into part `to`'s elements in round r
  struct Hand {
    int32_t index, label, pusher;
    double from;  // the pusher's level
  };
  std::vector<std::vector<Hand>> handed[2];
  handed[0].resize(size_t(parts * parts));
  handed[1].resize(size_t(parts * parts));
  // (where the labels are scikit-image's a few rounds settle them; many: lowest pushers disagree, likely)
  constexpr int kRounds = 64;
  std::atomic<bool> more{true};
  for (int round = 0; more.load(); ++round) {
    if (round == kRounds) return false;
    more = false;
    auto& out = handed[round % 2];
    const auto& in = handed[(round + 1) % 2];
    for_parts(n, parts, [&](int64_t p, int64_t a, int64_t b) {
      for (int64_t q = 0; q < parts; ++q) out[size_t(p * parts + q)].clear();
      BucketQueue<It> queue(sv.lo, sv.hi, ranges_for(b - a));
      // an element takes a lower pusher, or a new label from the pusher it has (its own pushes follow); not
      // one as low, so that the pushers kept form a forest, whose labels settle
      auto push = [&](int64_t i, double from, int32_t label, int32_t pusher) {
        double& l = low[size_t(i)];
        if (l < from || (l == from && (by[size_t(i)] != pusher || px[size_t(i)].lab == label))) return;  // (NaN: on)
        l = from;
        by[size_t(i)] = pusher;
        px[size_t(i)].lab = label;
        queue.push(item<It>(level(i), 0, int32_t(i), int32_t(i)));
      };
      if (round == 0) {
        for (int64_t i = a; i < b; ++i)
          if (px[size_t(i)].lab) queue.push(item<It>(px[size_t(i)].v, 0, int32_t(i), int32_t(i)));
      } else {
        for (int64_t q = 0; q < parts; ++q)
          for (const Hand& h : in[size_t(q * parts + p)]) push(h.index, h.from, h.label, h.pusher);
      }
      bool handing = false;
      while (!queue.empty()) {
        const It e = queue.pop();
        if (e.value != level(e.index)) continue;  // lowered since
        const int32_t label = px[size_t(e.index)].lab;
        for (int64_t o : offsets) {
          const int64_t nb = e.index + o;
          if (nb >= a && nb < b) {
            push(nb, e.value, label, e.index);  // (reads the pushed element's lowest pusher first)
          } else if (px[size_t(nb)].in == kFree) {  // another part's element: it decides
            const int64_t q = std::upper_bound(bound.begin(), bound.end(), nb) - bound.begin() - 1;
            out[size_t(p * parts + q)].push_back({int32_t(nb), label, e.index, e.value});
            handing = true;
          }
        }
      }
      if (handing) more = true;
    });
  }
  // every element reached shares its lowest pushers' label (those reached or markers: labelled)
  std::atomic<bool> ok{true};
  parallel_for(n, 1 << 15, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b && ok.load(std::memory_order_relaxed); ++i) {
      if (px[size_t(i)].in != kFree || !px[size_t(i)].lab) continue;
      double lowest = kInf;
      for (int64_t o : offsets)
        if (px[size_t(i - o)].lab) lowest = std::min(lowest, level(i - o));
      for (int64_t o : offsets)
        if (px[size_t(i - o)].lab && level(i - o) == lowest && px[size_t(i - o)].lab != px[size_t(i)].lab) ok = false;
    }
  });
  return ok.load();
}

// The arrays as the flooding's elements: the labels as they are where they all fit in 32 bits, else their
// ranks (`values`: the distinct labels then, for store()).
struct Elements {
  std::vector<Px> px;
  std::vector<int64_t> values;
  bool fit = true;
  const double* img;
  uint8_t* m;
  int64_t* out;
  int64_t n;
  Elements(const View& image, const View& mask, const View& labels)
      : img(image.ptr<double>()), m(mask.ptr<uint8_t>()), out(labels.ptr<int64_t>()), n(image.size()) {
    for (int64_t i = 0; i < n && fit; ++i) fit = out[i] >= INT32_MIN && out[i] <= INT32_MAX;
    if (!fit) {
      for (int64_t i = 0; i < n; ++i)
        if (out[i]) values.push_back(out[i]);
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      if (int64_t(values.size()) >= INT32_MAX) throw ValueError("watershed: too many distinct markers");
    }
    px.resize(size_t(n));
    load();
  }
  void load() {
    parallel_for(n, 1 << 16, [&](int64_t a, int64_t b) {
      for (int64_t i = a; i < b; ++i) {
        const int32_t lab =
            !out[i] ? 0
            : fit   ? int32_t(out[i])
                    : int32_t(std::lower_bound(values.begin(), values.end(), out[i]) - values.begin() + 1);
        px[size_t(i)] = {img[i], lab, m[i] ? kFree : 0};
      }
    });
  }
  void store() {
    parallel_for(n, 1 << 16, [&](int64_t a, int64_t b) {
      for (int64_t i = a; i < b; ++i) {
        const Px& p = px[size_t(i)];
        out[i] = fit || !p.lab ? p.lab : values[size_t(p.lab - 1)];
        m[i] = p.in != 0;
      }
    });
  }
};

}  // namespace

int64_t watershed_replay_cpu(const View& image, const View& mask, const View& labels,
                             std::span<const int64_t> offsets, std::vector<std::pair<int32_t, uint32_t>>& left) {
  Elements el(image, mask, labels);
  const Survey sv = survey(el.px, offsets, false, true);
  struct Collect {
    std::vector<std::pair<int32_t, uint32_t>>& out;
    void push(const Item<int32_t, false>& x) { out.emplace_back(x.index, uint32_t(x.age)); }
  } sink{left};
  const int64_t age = sv.f32 ? replay<Packed>(el.px, offsets, sv, sink) : replay<Item<int32_t, false>>(el.px, offsets, sv, sink);
  el.store();
  return age;
}

void watershed_cpu(const View& image, const View& mask, const View& labels, std::span<const int64_t> offsets,
                   double compactness, bool watershed_line) {
  const int64_t n = image.size();
  std::vector<int64_t> strides(size_t(image.ndim));
  int64_t s = 1;
  for (int d = image.ndim - 1; d >= 0; --d) {
    strides[size_t(d)] = s;
    s *= image.shape[d];
  }
  Elements el(image, mask, labels);
  std::vector<Px>& px = el.px;
  const bool source = compactness > 0 || watershed_line;
  const Survey sv = survey(px, offsets, watershed_line, !source);
  // entries: one per element labelled on entry, else one per (element, neighbour) at most
  const int64_t k = std::max<int64_t>(int64_t(offsets.size()), 1);
  const bool many = source ? n > (INT32_MAX - 1) / k : n >= INT32_MAX - 1;
  const bool exact_only = sv.nan || many;
  if (!source && !exact_only) {
    // many levels on several threads: by flood levels in parts, kept where they give scikit-image's labels.
    // From 4 threads: a part's flooding reads each neighbour's lowest pusher besides the element (about 1.9
    // times the serial flooding's time on one part, measured: a 3840x2160 float32 noise image, 0.1% markers)
    if (num_threads() >= 4 && many_levels(px)) {
      if (flood_parts(px, offsets, sv)) {
        el.store();
        return;
      }
      el.load();
    }
    // few markers of different labels tied among many (a float image's chance pairs): flooded without the
    // heap, kept if their floods lie apart, else flooded again with it; many: with it at once
    const bool untied = sv.any_ties && sv.tied_markers <= std::max<int64_t>(16, sv.active / 64);
    if (!untied || !flood_untied(px, offsets, sv)) {
      if (untied) el.load();
      flood_levels(px, offsets, sv, nullptr);
    }
  } else if (n < INT32_MAX) {
    if (source) flood<int32_t, true>(px, offsets, strides, compactness, watershed_line, sv, exact_only);
    else flood<int32_t, false>(px, offsets, strides, compactness, watershed_line, sv, exact_only);
  } else {
    if (source) flood<int64_t, true>(px, offsets, strides, compactness, watershed_line, sv, exact_only);
    else flood<int64_t, false>(px, offsets, strides, compactness, watershed_line, sv, exact_only);
  }
  el.store();
}

}  // namespace ndimg::segmentation

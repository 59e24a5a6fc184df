// find_contours: cells classified in row blocks on the thread pool (or on the GPU, contours_cuda.cu), then the
// segments joined on one thread in C order of the cells, exactly as scikit-image joins them (ends matched by
// their coordinates, so that points equal by rounding or at a corner exactly at the level join as there).
#include "measure/contours.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "ndimg/parallel.hpp"

namespace ndimg::measure {

namespace {

// Open contour ends by their point: linear probing, deletion by backward shift (no tombstones). Points with a
// NaN coordinate equal nothing (as in scikit-image's dicts) and are never stored.
class EndMap {
 public:
  EndMap() { grow(1 << 10); }

  // The contour at `p`, removed (-1 if none).
  int64_t pop(Point p) {
    if (std::isnan(p.r) || std::isnan(p.c)) return -1;
    size_t i = slot_of(p);
    for (; slots_[i].id >= 0; i = (i + 1) & mask_) {
      if (same(slots_[i].p, p)) {
        const int64_t id = slots_[i].id;
        erase(i);
        return id;
      }
    }
    return -1;
  }

  void set(Point p, int64_t id) {
    if (std::isnan(p.r) || std::isnan(p.c)) return;
    if (2 * (size_ + 1) > slots_.size()) grow(2 * slots_.size());
    size_t i = slot_of(p);
    for (; slots_[i].id >= 0; i = (i + 1) & mask_) {
      if (same(slots_[i].p, p)) {
        slots_[i].id = id;
        return;
      }
    }
    slots_[i] = {p, id};
    ++size_;
  }

 private:
  struct Slot {
    Point p;
    int64_t id = -1;
  };
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;

  static bool same(Point a, Point b) { return a.r == b.r && a.c == b.c; }
  static uint64_t bits(double v) { return std::bit_cast<uint64_t>(v + 0.0); }  // -0.0 as 0.0
  size_t slot_of(Point p) const {
    uint64_t h = bits(p.r) * 0x9E3779B97F4A7C15ull ^ bits(p.c);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return size_t(h) & mask_;
  }
  void erase(size_t i) {
    size_t j = i;
    while (true) {
      j = (j + 1) & mask_;
      if (slots_[j].id < 0) break;
      const size_t home = slot_of(slots_[j].p);
      // move j back into the hole at i unless its home lies cyclically in (i, j]
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i].id = -1;
    --size_;
  }
  void grow(size_t n) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(n, Slot{});
    mask_ = n - 1;
    size_ = 0;
    for (const Slot& s : old)
      if (s.id >= 0) set(s.p, s.id);
  }
};

// Contours as singly linked lists of points in one pool: appending, prepending and joining are O(1).
struct Chains {
  struct Node {
    Point p;
    int64_t next;
  };
  struct Chain {
    int64_t head, tail, count;
    bool alive;
  };
  std::vector<Node> nodes;
  std::vector<Chain> chains;

  int64_t node(Point p) {
    nodes.push_back({p, -1});
    return int64_t(nodes.size()) - 1;
  }
  Point first(int64_t k) const { return nodes[chains[k].head].p; }
  Point last(int64_t k) const { return nodes[chains[k].tail].p; }
  void append(int64_t k, Point p) {
    const int64_t n = node(p);
    nodes[chains[k].tail].next = n;
    chains[k].tail = n;
    ++chains[k].count;
  }
  void prepend(int64_t k, Point p) {
    const int64_t n = node(p);
    nodes[n].next = chains[k].head;
    chains[k].head = n;
    ++chains[k].count;
  }
  // chain b after chain a, kept as `keep` (a or b); the other one dies
  void join(int64_t a, int64_t b, int64_t keep) {
    nodes[chains[a].tail].next = chains[b].head;
    const Chain joined{chains[a].head, chains[b].tail, chains[a].count + chains[b].count, true};
    chains[a].alive = chains[b].alive = false;
    chains[keep] = joined;
  }
};

void row_segments(const double* image, int64_t cols, const uint8_t* mask, double level, bool high, int64_t r0,
                  std::vector<Segment>& out) {
  const double* top = image + r0 * cols;
  const double* bottom = top + cols;
  const uint8_t* mtop = mask ? mask + r0 * cols : nullptr;
  Segment seg[2];
  for (int64_t c0 = 0; c0 + 1 < cols; ++c0) {
    if (mtop && !(mtop[c0] && mtop[c0 + 1] && mtop[c0 + cols] && mtop[c0 + cols + 1])) continue;
    const int n = cell_segments(top[c0], top[c0 + 1], bottom[c0], bottom[c0 + 1], r0, c0, level, high, seg);
    out.insert(out.end(), seg, seg + n);
  }
}

}  // namespace

Contours find_contours(const double* image, int64_t rows, int64_t cols, const uint8_t* mask, double level,
                       bool vertex_connect_high) {
  // the cells' segments, one list per block of rows
  const int64_t cell_rows = std::max<int64_t>(rows - 1, 0);
  const int64_t block = std::max<int64_t>(1, std::min<int64_t>(64, cell_rows / (8 * num_threads()) + 1));
  const int64_t nblocks = (cell_rows + block - 1) / block;
  std::vector<std::vector<Segment>> segments(nblocks);
  parallel_for(nblocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      for (int64_t r0 = b * block; r0 < std::min(cell_rows, (b + 1) * block); ++r0)
        row_segments(image, cols, mask, level, vertex_connect_high, r0, segments[b]);
  });
  return join_segments(segments);
}

Contours find_contours(const View& image, const View* mask, double level, bool vertex_connect_high,
                       StreamHandle stream) {
  const char* op = "find_contours";
  if (image.ndim != 2 || image.dtype != DType::F64 || !image.c_contiguous())
    throw ValueError("find_contours: the image must be a C-contiguous 2-D float64 array");
  if (mask) {
    require_same_shape(image, *mask, op);
    require_same_device(image, *mask, op);
    if (mask->dtype != DType::U8 || !mask->c_contiguous())
      throw ValueError("find_contours: the mask must be a C-contiguous uint8 array");
  }
  const int64_t rows = image.shape[0], cols = image.shape[1];
  const uint8_t* m = mask ? mask->ptr<uint8_t>() : nullptr;
  if (image.device == Device::CPU) return find_contours(image.ptr<double>(), rows, cols, m, level, vertex_connect_high);
  NDIMG_ON_CUDA(op, {
    std::vector<std::vector<Segment>> segments(1);
    segments[0] = contour_segments_cuda(image.ptr<double>(), rows, cols, m, level, vertex_connect_high,
                                        image.device_id, stream);
    return join_segments(segments);
  });
}

Contours join_segments(std::vector<std::vector<Segment>>& segments) {

  // scikit-image's assembly: a segment extends the contour ending at its start and/or starting at its end,
  // joins two contours (the younger into the older, which keeps its number), closes one, or starts one
  Chains ch;
  size_t total = 0;
  for (const auto& list : segments) total += list.size();
  ch.nodes.reserve(2 * total);
  EndMap starts, ends;
  for (auto& list : segments) {
    for (const Segment& s : list) {
      if (s.from.r == s.to.r && s.from.c == s.to.c) continue;  // a corner exactly at the level
      const int64_t tail = starts.pop(s.to);
      const int64_t head = ends.pop(s.from);
      if (tail >= 0 && head >= 0) {
        if (tail == head) {
          ch.append(head, s.to);
        } else if (tail > head) {
          ch.join(head, tail, head);
          starts.set(ch.first(head), head);
          ends.set(ch.last(head), head);
        } else {
          const Point head_first = ch.first(head);
          ch.join(head, tail, tail);
          starts.pop(head_first);
          starts.set(ch.first(tail), tail);
          ends.set(ch.last(tail), tail);
        }
      } else if (tail < 0 && head < 0) {
        const int64_t k = int64_t(ch.chains.size());
        const int64_t a = ch.node(s.from), b = ch.node(s.to);
        ch.nodes[a].next = b;
        ch.chains.push_back({a, b, 2, true});
        starts.set(s.from, k);
        ends.set(s.to, k);
      } else if (head < 0) {
        ch.prepend(tail, s.from);
        starts.set(s.from, tail);
      } else {
        ch.append(head, s.to);
        ends.set(s.to, head);
      }
    }
    std::vector<Segment>().swap(list);
  }

  // the surviving contours in order of their numbers, each walked into its place by the pool's threads
  Contours out;
  std::vector<int64_t> alive;
  out.offsets.push_back(0);
  for (size_t k = 0; k < ch.chains.size(); ++k) {
    if (!ch.chains[k].alive) continue;
    alive.push_back(int64_t(k));
    out.offsets.push_back(out.offsets.back() + ch.chains[k].count);
  }
  out.points.resize(2 * size_t(out.offsets.back()));
  parallel_for(int64_t(alive.size()), 64, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      const auto& c = ch.chains[alive[k]];
      double* dst = out.points.data() + 2 * out.offsets[k];
      for (int64_t n = c.head, i = 0; i < c.count; n = ch.nodes[n].next, ++i) {
        dst[2 * i] = ch.nodes[n].p.r;
        dst[2 * i + 1] = ch.nodes[n].p.c;
      }
    }
  });
  return out;
}

}  // namespace ndimg::measure

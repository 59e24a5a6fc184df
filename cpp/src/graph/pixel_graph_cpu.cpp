#include "graph/pixel_graph.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ndimg/parallel.hpp"

namespace ndimg::graph {

namespace {

// Calls fn(p, u) for the pixels of image rows [r0, r1) (rows: all axes but the last), p the padded index, u
// the image's, in C order.
template <class Fn>
void for_pixels(const PixelGraph& g, int64_t r0, int64_t r1, Fn&& fn) {
  const int last = g.ndim - 1;
  std::vector<int64_t> pstride(size_t(g.ndim), 1);
  for (int d = last - 1; d >= 0; --d) pstride[size_t(d)] = pstride[size_t(d + 1)] * (g.shape[d + 1] + 2);
  const int64_t width = g.shape[last];
  for (int64_t r = r0; r < r1; ++r) {
    int64_t rest = r, p = 1;
    for (int d = last - 1; d >= 0; --d) {
      p += (rest % g.shape[d] + 1) * pstride[size_t(d)];
      rest /= g.shape[d];
    }
    for (int64_t j = 0; j < width; ++j) fn(p + j, r * width + j);
  }
}

int64_t rows_of(const PixelGraph& g) {
  int64_t rows = 1;
  for (int d = 0; d + 1 < g.ndim; ++d) rows *= g.shape[d];
  return rows;
}

template <class T>
double weight_of(T a, T b, double distance) {
  if constexpr (std::is_floating_point_v<T>)
    return double(std::fabs(T(a - b))) * distance;
  else
    return double(T(a - b)) * distance;   // unsigned: wraps, and is its own magnitude, as in NumPy
}

template <class T>
void edges(const PixelGraph& g, const T* image, const int64_t* seq, const int64_t* indptr, int64_t* indices,
           double* data) {
  parallel_for(rows_of(g), 16, [&](int64_t r0, int64_t r1) {
    for_pixels(g, r0, r1, [&](int64_t p, int64_t u) {
      if (!g.padded[p]) return;
      int64_t at = indptr[seq[p]];
      for (int i = 0; i < g.n_offsets; ++i) {
        const int64_t q = p + g.padded_offsets[i];
        if (!g.padded[q]) continue;
        indices[at] = seq[q];
        if constexpr (std::is_same_v<T, void>)
          data[at] = g.distances[i];
        else
          data[at] = weight_of(image[u], image[u + g.offsets[i]], g.distances[i]);
        ++at;
      }
    });
  });
}

}  // namespace

int64_t pixel_graph_rows(const PixelGraph& g, int64_t* seq, int64_t* indptr) {
  // chunks of rows counted apart, then numbered from their running totals
  const int64_t rows = rows_of(g), chunks = std::min<int64_t>(rows, 1024);
  std::vector<int64_t> nodes(size_t(chunks) + 1, 0), edges(size_t(chunks) + 1, 0);
  auto count = [&](int64_t p) {
    int64_t n = 0;
    for (int i = 0; i < g.n_offsets; ++i) n += g.padded[p + g.padded_offsets[i]];
    return n;
  };
  parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c)
      for_pixels(g, c * rows / chunks, (c + 1) * rows / chunks, [&](int64_t p, int64_t) {
        if (!g.padded[p]) return;
        ++nodes[size_t(c) + 1];
        edges[size_t(c) + 1] += count(p);
      });
  });
  for (int64_t c = 0; c < chunks; ++c) {
    nodes[size_t(c) + 1] += nodes[size_t(c)];
    edges[size_t(c) + 1] += edges[size_t(c)];
  }
  indptr[0] = 0;
  parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      int64_t k = nodes[size_t(c)], e = edges[size_t(c)];
      for_pixels(g, c * rows / chunks, (c + 1) * rows / chunks, [&](int64_t p, int64_t) {
        if (!g.padded[p]) return;
        seq[p] = k;
        e += count(p);
        indptr[++k] = e;
      });
    }
  });
  return edges[size_t(chunks)];
}

void pixel_graph_edges(const PixelGraph& g, EdgeWeight weight, const void* image, const int64_t* seq,
                       const int64_t* indptr, int64_t* indices, double* data) {
  switch (weight) {
    case EdgeWeight::Distance: return edges<void>(g, nullptr, seq, indptr, indices, data);
    case EdgeWeight::Float32: return edges(g, static_cast<const float*>(image), seq, indptr, indices, data);
    case EdgeWeight::Float64: return edges(g, static_cast<const double*>(image), seq, indptr, indices, data);
    case EdgeWeight::UInt8: return edges(g, static_cast<const uint8_t*>(image), seq, indptr, indices, data);
    case EdgeWeight::UInt16: return edges(g, static_cast<const uint16_t*>(image), seq, indptr, indices, data);
  }
}

}  // namespace ndimg::graph

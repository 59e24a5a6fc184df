// skimage.graph.pixel_graph's CSR table on the host, for the default edge weights: the masked pixels numbered
// in C order, each one's row its masked neighbours in increasing column order (the neighbour offsets come
// sorted), as scipy's COO conversion orders scikit-image's edges. Two calls: the rows (numbers and row
// starts), then, once the caller has made arrays of the edge count, the columns and weights.
#pragma once
#include <cstdint>

namespace ndimg::graph {

struct PixelGraph {
  const uint8_t* padded;            // the mask with a border of one false pixel on every side, C order
  int ndim;
  const int64_t* shape;             // the image's (each >= 1)
  int n_offsets;
  const int64_t* padded_offsets;    // the neighbour offsets in the padded array, increasing
  const int64_t* offsets;           // the same steps in the image
  const double* distances;          // their lengths
};

// The image's value types with default weights: |a - b| * distance in the image's arithmetic (integers wrap
// as NumPy's), or the distance alone (a bool image).
enum class EdgeWeight : int { Distance = 0, Float32 = 1, Float64 = 2, UInt8 = 3, UInt16 = 4 };

// Writes seq (at masked pixels of the padded array: their numbers) and indptr (the node count + 1 row
// starts); returns the edge count.
int64_t pixel_graph_rows(const PixelGraph& g, int64_t* seq, int64_t* indptr);

// Writes each edge's column and weight; `image` is the C-contiguous image.
void pixel_graph_edges(const PixelGraph& g, EdgeWeight weight, const void* image, const int64_t* seq,
                       const int64_t* indptr, int64_t* indices, double* data);

}  // namespace ndimg::graph

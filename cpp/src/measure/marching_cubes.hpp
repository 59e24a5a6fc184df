// Marching cubes (scikit-image's marching_cubes, both methods): the cell's surface is traced from its faces at
// run time, no case table copied. On each face the level crosses 0, 2 or 4 edges; the crossings are joined
// with the side above the level on their left (seen from outside), so that the pieces of the six faces close
// into loops, each fanned into triangles. A face with 4 crossings is ambiguous: 'lorensen' always keeps its
// corners above the level apart, 'lewiner' joins them where the bilinear saddle of the face is above the
// level (the asymptotic decider), which makes neighbouring cells agree. Vertices are placed, and their
// normals and values accumulated, with scikit-image's formulas.
#pragma once
#include <cstdint>
#include <vector>

namespace ndimg::measure {

struct Mesh {
  std::vector<float> vertices;  // (V, 3): (axis 0, axis 1, axis 2)
  std::vector<int32_t> faces;   // (F, 3): vertex numbers, the 'ascent' winding
  std::vector<float> normals;   // (V, 3), unit length (zero where no gradient)
  std::vector<float> values;    // (V,): the largest value range of the cells using the vertex
};

// volume: nz x ny x nx float32, C order; mask: the same shape as bytes (nullptr: none), a cell (z, y, x) taken
// where mask[z + step, y + step, x + step] is set (scikit-image's rule); cells at multiples of `step`.
Mesh marching_cubes(const float* volume, int64_t nz, int64_t ny, int64_t nx, const uint8_t* mask, double level,
                    int step, bool lewiner);

}  // namespace ndimg::measure

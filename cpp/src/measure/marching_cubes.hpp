// Marching cubes (scikit-image's marching_cubes, both methods): the cell's surface is traced from its faces at
// run time, no case table copied. On each face the level crosses 0, 2 or 4 edges; the crossings are joined
// with the side above the level on their left (seen from outside), so that the pieces of the six faces close
// into loops, each fanned into triangles. A face with 4 crossings is ambiguous: 'lorensen' always keeps its
// corners above the level apart, 'lewiner' joins them where the bilinear saddle of the face is above the
// level (the asymptotic decider), which makes neighbouring cells agree. Vertices are placed, and their
// normals and values accumulated, with scikit-image's formulas. The per-cell and per-vertex math is here,
// once, for the thread pool's schedule (marching_cubes.cpp) and the GPU's (marching_cubes_cuda.cu).
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/engine.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ndimage.hpp"

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
// The same on the volume's device (float32, 3-D, C-contiguous; mask uint8 of its shape or nullptr). A CUDA
// volume's mesh is built on the GPU, on `stream`, and comes back to the host.
Mesh marching_cubes(const View& volume, const View* mask, double level, int step, bool lewiner, StreamHandle stream);
Mesh marching_cubes_cuda(const float* volume, int64_t nz, int64_t ny, int64_t nx, const uint8_t* mask, double level,
                         int step, bool lewiner, int device, StreamHandle stream);

// Corners are numbered dx + 2 dy + 4 dz. Edge e joins corners mc_edge(e, 0) and mc_edge(e, 1), as scikit-image
// numbers its edges (its corner order along each edge sets the order in which the normal contributions are
// summed).
NDIMG_HD int mc_edge(int e, int end) {
  static constexpr int8_t t[12][2] = {{0, 1}, {1, 3}, {3, 2}, {2, 0}, {4, 5}, {5, 7},
                                      {7, 6}, {6, 4}, {0, 4}, {1, 5}, {3, 7}, {2, 6}};
  return t[e][end];
}
// The cube's faces, corners counter-clockwise seen from outside: z = 0, z = 1, y = 0, y = 1, x = 0, x = 1.
NDIMG_HD int mc_face(int f, int k) {
  static constexpr int8_t t[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  return t[f][k];
}
constexpr double kMcEps = 2.220446049250313e-16;  // np.spacing(1.0): scikit-image's interpolation guard
constexpr int64_t kMcSlab = 4;  // z-layers of cells per slab of the CPU schedule (its normal sums' order)

// A case's triangles (as edges) for each set of ambiguous faces joined; built on the host (mc_tilings()).
struct Tiling {
  int8_t n;          // triangles
  int8_t e[10 * 3];  // their corners, as edges
};
const Tiling* mc_tilings();     // [case * 64 + faces joined]
const uint8_t* mc_ambiguous();  // [case]: its faces with 4 crossings

NDIMG_HD bool mc_crossed(int index, int e) { return ((index >> mc_edge(e, 0)) & 1) != ((index >> mc_edge(e, 1)) & 1); }

// An edge of cell (z, y, x) on the grid: its lower corner (the corners' common bits) in C order, then its
// axis (0 x, 1 y, 2 z).
NDIMG_HD int64_t mc_key(int64_t z, int64_t y, int64_t x, int e, int st, int64_t ny, int64_t nx) {
  const int a = mc_edge(e, 0), b = mc_edge(e, 1), lo = a & b, axis = (a ^ b) == 1 ? 0 : (a ^ b) == 2 ? 1 : 2;
  return (((z + (lo >> 2) * st) * ny + y + ((lo >> 1) & 1) * st) * nx + x + (lo & 1) * st) * 3 + axis;
}

// v: the cell's corner values less the level. lewiner's ambiguous faces (bits of `amb`) joining their corners
// above the level: where the bilinear saddle (ac - bd) / (a + c - b - d) is above it (the denominator's sign
// is known).
NDIMG_HD int mc_join(const double* v, int amb) {
  int join = 0;
  for (int f = 0; f < 6; ++f) {
    if (!((amb >> f) & 1)) continue;
    const double a = v[mc_face(f, 0)], b = v[mc_face(f, 1)], c = v[mc_face(f, 2)], d = v[mc_face(f, 3)];
    if (a > 0.0 ? a * c > b * d : a * c < b * d) join |= 1 << f;
  }
  return join;
}

// The cell's value range (its vertices' values are the largest over their cells), with 0 in it.
NDIMG_HD float mc_range(const double* v) {
  double vmin = 0.0, vmax = 0.0;
  for (int i = 0; i < 8; ++i) {
    vmax = vmax < v[i] ? v[i] : vmax;
    vmin = v[i] < vmin ? v[i] : vmin;
  }
  return float(vmax - vmin);
}

// scikit-image's corner gradients (its corners 2/3 and 6/7 are ours 3/2 and 7/6), taken by its edge table's
// corner numbers as it takes them, weighted by 1 / (eps + |corner|), rounded to float as its sums are; stored
// (z, y, x).
NDIMG_HD void mc_gradients(const double* v, float gw[8][3]) {
  const double s0 = v[0], s1 = v[1], s2 = v[3], s3 = v[2], s4 = v[4], s5 = v[5], s6 = v[7], s7 = v[6];
  const double g[8][3] = {{s0 - s1, s0 - s3, s0 - s4}, {s0 - s1, s1 - s2, s1 - s5}, {s3 - s2, s1 - s2, s2 - s6},
                          {s3 - s2, s0 - s3, s3 - s7}, {s4 - s5, s4 - s7, s0 - s4}, {s4 - s5, s5 - s6, s1 - s5},
                          {s7 - s6, s5 - s6, s2 - s6}, {s7 - s6, s4 - s7, s3 - s7}};
  for (int c = 0; c < 8; ++c) {
    const double wgt = 1.0 / (kMcEps + fabs(v[c]));
    for (int j = 0; j < 3; ++j) gw[c][2 - j] = float(mul_rn(g[c][j], wgt));
  }
}

// One occurrence of edge e in a cell's triangles adds its two ends' gradients to the vertex's normal (x, y, z
// added in that order, as there).
NDIMG_HD void mc_add_normal(float* nrm, const float gw[8][3], int e) {
  for (int end = 0; end < 2; ++end) {
    const float* c = gw[mc_edge(e, end)];
    for (int j = 2; j >= 0; --j) nrm[j] = add_rn(nrm[j], c[j]);
  }
}

// The vertex on the edge from value `lo` to `hi` (the level subtracted in double) starting at (z, y, x) along
// `axis` over `st` voxels: scikit-image's weights 1 / (eps + |value - level|) of the two ends; out (z, y, x).
NDIMG_HD void mc_vertex(float lo, float hi, double level, int st, int axis, int64_t z, int64_t y, int64_t x,
                        float* out) {
  const double w_lo = 1.0 / (kMcEps + fabs(double(lo) - level));
  const double w_hi = 1.0 / (kMcEps + fabs(double(hi) - level));
  const double t = mul_rn(double(st), w_hi) / (w_lo + w_hi);
  out[0] = float(double(z) + (axis == 2 ? t : 0.0));
  out[1] = float(double(y) + (axis == 1 ? t : 0.0));
  out[2] = float(double(x) + (axis == 0 ? t : 0.0));
}

// A normal's float sums to unit length: the length in double, as scikit-image.
NDIMG_HD void mc_unit(float* nrm) {
  double len = 0.0;
  for (int j = 2; j >= 0; --j) len = add_rn(len, square_rn(double(nrm[j])));  // x, y, z as there
  if (len > 0.0) len = 1.0 / sqrt(len);
  for (int j = 0; j < 3; ++j) nrm[j] = float(mul_rn(double(nrm[j]), len));
}

}  // namespace ndimg::measure

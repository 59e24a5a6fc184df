// marching_cubes' CUDA schedule, the same mesh as the thread pool's: (1) a thread per cell marks its crossed
// edges in a bitmap of the grid's edges and counts its triangles; (2) scans give each edge its vertex number
// (its rank in the bitmap) and each cell its faces' place in C order; (3) a thread per bitmap word places its
// vertices; (4) a thread per cell writes its faces; (5) a thread per vertex sums its normal over the cells
// around it in the CPU schedule's order (slabs of kMcSlab z-layers, even slabs first, C order within one), so
// the float sums round alike, and takes the largest value range. Only the mesh crosses to the host.
#include <cub/device/device_scan.cuh>

#include <stdexcept>

#include "core/cuda.cuh"
#include "measure/marching_cubes.hpp"

namespace ndimg::measure {
namespace {

constexpr unsigned kThreads = 256;

struct Grid {
  const float* vol;
  const uint8_t* mask;
  const Tiling* tiling;
  const uint8_t* ambiguous;
  int64_t nz, ny, nx;  // voxels
  int64_t cz, cy, cx;  // cells
  double level;
  int st;
  bool lewiner;
};

// The cell at origin (z, y, x): its corner values less the level, case and joined faces; false where the
// mask leaves it out or the level does not cross it.
__device__ bool load_cell(const Grid& g, int64_t z, int64_t y, int64_t x, double* v, int& index, int& join) {
  const int64_t sy = g.nx, sz = g.nx * g.ny, st = g.st;
  if (g.mask && !g.mask[(z + st) * sz + (y + st) * sy + x + st]) return false;
  const int64_t base = z * sz + y * sy + x;
  index = 0;
  for (int i = 0; i < 8; ++i) {
    v[i] = double(g.vol[base + ((i & 1) + ((i >> 1) & 1) * sy + (i >> 2) * sz) * st]) - g.level;
    index |= int(v[i] > 0.0) << i;
  }
  if (index == 0 || index == 255) return false;
  join = g.lewiner ? mc_join(v, g.ambiguous[index]) : 0;
  return true;
}

__device__ __forceinline__ void cell_origin(const Grid& g, int64_t c, int64_t& z, int64_t& y, int64_t& x) {
  x = c % g.cx * g.st;
  y = c / g.cx % g.cy * g.st;
  z = c / g.cx / g.cy * g.st;
}

__device__ __forceinline__ int64_t vertex_of(const unsigned long long* used, const int64_t* rank, int64_t k) {
  return rank[k >> 6] + __popcll(used[k >> 6] & ((1ull << (k & 63)) - 1));
}

// (1) end[c + 1] = the cell's triangles; its crossed edges' bits set
__global__ void __launch_bounds__(kThreads) mark_kernel(Grid g, int64_t cells, unsigned long long* used, int64_t* end) {
  NDIMG_GRID_STRIDE(c, cells) {
    int64_t z, y, x;
    cell_origin(g, c, z, y, x);
    double v[8];
    int index, join;
    int n = 0;
    if (load_cell(g, z, y, x, v, index, join)) {
      n = g.tiling[index * 64 + join].n;
      for (int e = 0; e < 12; ++e) {
        if (!mc_crossed(index, e)) continue;
        const int64_t k = mc_key(z, y, x, e, g.st, g.ny, g.nx);
        atomicOr(used + (k >> 6), 1ull << (k & 63));
      }
    }
    end[c + 1] = n;
  }
}

__global__ void __launch_bounds__(kThreads) popcount_kernel(const unsigned long long* used, int64_t words, int64_t* rank) {
  NDIMG_GRID_STRIDE(w, words) rank[w + 1] = __popcll(used[w]);
}

// (3) the vertices of word w (rank: exclusive prefix counts), and each vertex's edge key
__global__ void __launch_bounds__(kThreads) vertex_kernel(Grid g, const unsigned long long* used, int64_t words,
                                                          const int64_t* rank, float* verts, int64_t* keys) {
  NDIMG_GRID_STRIDE(w, words) {
    int64_t vid = rank[w];
    for (unsigned long long bits = used[w]; bits; bits &= bits - 1, ++vid) {
      const int64_t k = w * 64 + __ffsll(static_cast<long long>(bits)) - 1, axis = k % 3, p = k / 3;
      const int64_t x = p % g.nx, y = p / g.nx % g.ny, z = p / g.nx / g.ny;
      const int64_t step = (axis == 0 ? 1 : axis == 1 ? g.nx : g.nx * g.ny) * g.st;
      mc_vertex(g.vol[p], g.vol[p + step], g.level, g.st, int(axis), z, y, x, verts + 3 * vid);
      keys[vid] = k;
    }
  }
}

// (4) the faces of cell c at faces[3 * end[c] ...)
__global__ void __launch_bounds__(kThreads) face_kernel(Grid g, int64_t cells, const unsigned long long* used,
                                                        const int64_t* rank, const int64_t* end, int32_t* faces) {
  NDIMG_GRID_STRIDE(c, cells) {
    if (end[c + 1] == end[c]) continue;
    int64_t z, y, x;
    cell_origin(g, c, z, y, x);
    double v[8];
    int index, join;
    load_cell(g, z, y, x, v, index, join);
    const Tiling& t = g.tiling[index * 64 + join];
    int32_t* out = faces + 3 * end[c];
    for (int j = 0; j < 3 * t.n; ++j)
      out[j] = int32_t(vertex_of(used, rank, mc_key(z, y, x, t.e[j], g.st, g.ny, g.nx)));
  }
}

// (5) vertex vid's normal and value from the (up to 4) cells sharing its edge
__global__ void __launch_bounds__(kThreads) normal_kernel(Grid g, int64_t nverts, const int64_t* keys, float* normals,
                                                          float* values) {
  NDIMG_GRID_STRIDE(vid, nverts) {
    const int64_t k = keys[vid], axis = k % 3, p = k / 3;
    const int64_t pos[3] = {p / g.nx / g.ny, p / g.nx % g.ny, p % g.nx};  // z, y, x
    const int along = 2 - int(axis);  // the edge's axis in (z, y, x)
    // the cells holding the edge: the origin less a step on either or both of the other axes
    int64_t cell[4][3], order[4];
    int n = 0;
    for (int d = 0; d < 4; ++d) {
      int64_t o[3];
      bool inside = true;
      for (int a = 0, bit = 0; a < 3; ++a) {
        o[a] = pos[a];
        if (a == along) continue;
        if ((d >> bit++) & 1) o[a] -= g.st;
        inside = inside && o[a] >= 0 && o[a] + g.st < (a == 0 ? g.nz : a == 1 ? g.ny : g.nx);
      }
      if (!inside) continue;
      // the CPU's order: round (slab parity), then C order
      const int64_t zi = o[0] / g.st;
      order[n] = ((((zi / kMcSlab) & 1) * g.cz + zi) * g.cy + o[1] / g.st) * g.cx + o[2] / g.st;
      for (int a = 0; a < 3; ++a) cell[n][a] = o[a];
      for (int i = n++; i > 0 && order[i] < order[i - 1]; --i) {
        const int64_t t = order[i];
        order[i] = order[i - 1];
        order[i - 1] = t;
        for (int a = 0; a < 3; ++a) {
          const int64_t u = cell[i][a];
          cell[i][a] = cell[i - 1][a];
          cell[i - 1][a] = u;
        }
      }
    }
    float nrm[3] = {0.0f, 0.0f, 0.0f}, value = 0.0f;
    for (int i = 0; i < n; ++i) {
      double v[8];
      int index, join;
      const int64_t z = cell[i][0], y = cell[i][1], x = cell[i][2];
      if (!load_cell(g, z, y, x, v, index, join)) continue;
      int e = 0;
      while (e < 12 && !(mc_crossed(index, e) && mc_key(z, y, x, e, g.st, g.ny, g.nx) == k)) ++e;
      if (e == 12) continue;
      const Tiling& t = g.tiling[index * 64 + join];
      const float range = mc_range(v);
      float gw[8][3];
      mc_gradients(v, gw);
      for (int j = 0; j < 3 * t.n; ++j) {
        if (t.e[j] != e) continue;
        value = value < range ? range : value;
        mc_add_normal(nrm, gw, e);
      }
    }
    mc_unit(nrm);
    for (int j = 0; j < 3; ++j) normals[3 * vid + j] = nrm[j];
    values[vid] = value;
  }
}

// In-place inclusive scan of a[0 .. n).
void scan(int64_t* a, int64_t n, cudaStream_t s, const char* op) {
  if (n == 0) return;
  size_t temp_bytes = 0;
  cuda::check(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, a, a, n, s), op);
  cuda::Scratch temp(temp_bytes, s, op);
  cuda::check(cub::DeviceScan::InclusiveSum(temp.get<void>(), temp_bytes, a, a, n, s), op);
}

template <class T>
void to_host(std::vector<T>& dst, const T* src, int64_t n, cudaStream_t s, const char* op) {
  dst.resize(n);
  if (n) cuda::check(cudaMemcpyAsync(dst.data(), src, n * sizeof(T), cudaMemcpyDeviceToHost, s), op);
}

}  // namespace

Mesh marching_cubes_cuda(const float* vol, int64_t nz, int64_t ny, int64_t nx, const uint8_t* mask, double level,
                         int st, bool lewiner, int device, StreamHandle stream) {
  const char* op = "marching_cubes";
  Mesh mesh;
  auto cells_along = [&](int64_t n) { return n > st ? (n - st - 1) / st + 1 : int64_t(0); };
  const int64_t cz = cells_along(nz), cy = cells_along(ny), cx = cells_along(nx), cells = cz * cy * cx;
  if (cells == 0) return mesh;
  cuda::DeviceGuard guard(device, op);
  auto s = static_cast<cudaStream_t>(stream);

  cuda::Scratch tiling(256 * 64 * sizeof(Tiling), s, op), ambiguous(256, s, op);
  cuda::check(cudaMemcpyAsync(tiling.get<Tiling>(), mc_tilings(), 256 * 64 * sizeof(Tiling), cudaMemcpyHostToDevice, s), op);
  cuda::check(cudaMemcpyAsync(ambiguous.get<uint8_t>(), mc_ambiguous(), 256, cudaMemcpyHostToDevice, s), op);
  const Grid g{vol, mask, tiling.get<Tiling>(), ambiguous.get<uint8_t>(), nz, ny, nx, cz, cy, cx, level, st, lewiner};

  // (1) crossed edges and triangles per cell
  const int64_t words = (3 * nz * ny * nx + 63) / 64;
  cuda::Scratch used(words * sizeof(unsigned long long), s, op), end((cells + 1) * sizeof(int64_t), s, op),
      rank((words + 1) * sizeof(int64_t), s, op);
  auto* used_p = used.get<unsigned long long>();
  auto* end_p = end.get<int64_t>();
  auto* rank_p = rank.get<int64_t>();
  cuda::check(cudaMemsetAsync(used_p, 0, words * sizeof(unsigned long long), s), op);
  cuda::check(cudaMemsetAsync(end_p, 0, sizeof(int64_t), s), op);
  cuda::check(cudaMemsetAsync(rank_p, 0, sizeof(int64_t), s), op);
  mark_kernel<<<cuda::blocks_for(cells, kThreads), kThreads, 0, s>>>(g, cells, used_p, end_p);
  cuda::check_launch(op);
  // (2) vertex numbers and the faces' places
  popcount_kernel<<<cuda::blocks_for(words, kThreads), kThreads, 0, s>>>(used_p, words, rank_p);
  cuda::check_launch(op);
  scan(rank_p + 1, words, s, op);
  scan(end_p + 1, cells, s, op);
  int64_t nverts = 0, ntri = 0;
  cuda::check(cudaMemcpyAsync(&nverts, rank_p + words, sizeof(int64_t), cudaMemcpyDeviceToHost, s), op);
  cuda::check(cudaMemcpyAsync(&ntri, end_p + cells, sizeof(int64_t), cudaMemcpyDeviceToHost, s), op);
  cuda::check(cudaStreamSynchronize(s), op);
  if (nverts > INT32_MAX) throw std::length_error("marching_cubes: more than 2**31 - 1 vertices (int32 faces)");
  if (nverts == 0) return mesh;

  // (3)-(5) vertices, faces, normals and values
  cuda::Scratch verts(3 * nverts * sizeof(float), s, op), keys(nverts * sizeof(int64_t), s, op),
      faces(3 * ntri * sizeof(int32_t), s, op), normals(3 * nverts * sizeof(float), s, op),
      values(nverts * sizeof(float), s, op);
  vertex_kernel<<<cuda::blocks_for(words, kThreads), kThreads, 0, s>>>(g, used_p, words, rank_p, verts.get<float>(),
                                                                      keys.get<int64_t>());
  cuda::check_launch(op);
  face_kernel<<<cuda::blocks_for(cells, kThreads), kThreads, 0, s>>>(g, cells, used_p, rank_p, end_p,
                                                                    faces.get<int32_t>());
  cuda::check_launch(op);
  normal_kernel<<<cuda::blocks_for(nverts, kThreads), kThreads, 0, s>>>(g, nverts, keys.get<int64_t>(),
                                                                       normals.get<float>(), values.get<float>());
  cuda::check_launch(op);
  to_host(mesh.vertices, verts.get<float>(), 3 * nverts, s, op);
  to_host(mesh.faces, faces.get<int32_t>(), 3 * ntri, s, op);
  to_host(mesh.normals, normals.get<float>(), 3 * nverts, s, op);
  to_host(mesh.values, values.get<float>(), nverts, s, op);
  cuda::check(cudaStreamSynchronize(s), op);
  return mesh;
}

}  // namespace ndimg::measure

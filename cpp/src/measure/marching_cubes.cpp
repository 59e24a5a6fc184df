// marching_cubes on the thread pool (the GPU's schedule, marching_cubes_cuda.cu, gives the same mesh): (1) the crossed edges of the cells taken are marked in a bitmap of the grid's edges, (2) each
// marked edge becomes a vertex numbered by its rank in the bitmap (C order of its lower corner, then its axis),
// (3) the cells are triangulated again and their faces, normal and value contributions written, slabs of
// z-layers in two alternating rounds so that no vertex is written by two threads at once (and the sums are
// made in the same order whatever the number of threads).
#include "measure/marching_cubes.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "ndimg/parallel.hpp"

namespace ndimg::measure {

namespace {

// Set bits of a word, inline (std::popcount is a library call where the build does not target POPCNT).
inline int bits_set(uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ull;
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return int((x * 0x0101010101010101ull) >> 56);
}

class Tables {
 public:
  std::vector<Tiling> tiling;  // [case * 64 + faces joined]
  uint8_t ambiguous[256];      // faces with 4 crossings, per case
  int8_t edge_of[8][8];

  Tables() : tiling(256 * 64) {
    for (auto& row : edge_of) std::fill(row, row + 8, int8_t(-1));
    for (int e = 0; e < 12; ++e) edge_of[mc_edge(e, 0)][mc_edge(e, 1)] = edge_of[mc_edge(e, 1)][mc_edge(e, 0)] = int8_t(e);
    for (int c = 0; c < 256; ++c) {
      ambiguous[c] = 0;
      for (int f = 0; f < 6; ++f) {
        int crossings = 0;
        for (int k = 0; k < 4; ++k) crossings += bit(c, mc_face(f, k)) != bit(c, mc_face(f, (k + 1) % 4));
        if (crossings == 4) ambiguous[c] |= uint8_t(1 << f);
      }
      for (int join = 0; join < 64; ++join) tiling[c * 64 + join] = trace(c, join);
    }
  }

 private:
  static int bit(int c, int corner) { return (c >> corner) & 1; }

  // Each crossing where the face goes from above to below the level (counter-clockwise) is joined to the next
  // crossing (faces in `join`: the corners above connected across the face) or the previous one (kept apart):
  // the segment has the side above the level on its left. Every crossed edge starts one segment and ends one,
  // so the segments form loops; each loop is fanned from its first edge.
  Tiling trace(int c, int join) const {
    int next[12];
    std::fill(next, next + 12, -1);
    for (int f = 0; f < 6; ++f) {
      int q[4];
      for (int k = 0; k < 4; ++k) q[k] = mc_face(f, k);
      int at[4], n = 0;
      for (int k = 0; k < 4; ++k)
        if (bit(c, q[k]) != bit(c, q[(k + 1) % 4])) at[n++] = k;
      for (int j = 0; j < n; ++j) {
        const int k = at[j];
        if (!bit(c, q[k])) continue;
        const int p = (join >> f) & 1 ? at[(j + 1) % n] : at[(j + n - 1) % n];
        next[edge_of[q[k]][q[(k + 1) % 4]]] = edge_of[q[p]][q[(p + 1) % 4]];
      }
    }
    Tiling t{};
    bool seen[12] = {};
    for (int e0 = 0; e0 < 12; ++e0) {
      if (next[e0] < 0 || seen[e0]) continue;
      int loop[12], n = 0;
      for (int e = e0; !seen[e]; e = next[e]) {
        seen[e] = true;
        loop[n++] = e;
      }
      for (int i = 1; i + 1 < n; ++i) {
        t.e[3 * t.n] = int8_t(loop[0]);
        t.e[3 * t.n + 1] = int8_t(loop[i]);
        t.e[3 * t.n + 2] = int8_t(loop[i + 1]);
        ++t.n;
      }
    }
    return t;
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

// One cell: its corner values less the level, its case, and which ambiguous faces join their corners above.
struct Cell {
  double v[8];
  int index;
  int join;

  void load(const float* vol, const int64_t* offset, int64_t base, double level, bool lewiner, const Tables& tab) {
    for (int i = 0; i < 8; ++i) v[i] = double(vol[base + offset[i]]) - level;
    join = lewiner ? mc_join(v, tab.ambiguous[index]) : 0;
  }
};

}  // namespace

Mesh marching_cubes(const float* vol, int64_t nz, int64_t ny, int64_t nx, const uint8_t* mask, double level,
                    int st, bool lewiner) {
  const Tables& tab = tables();
  const int64_t sy = nx, sz = nx * ny, n = nz * ny * nx;
  const int64_t cz = nz > st ? (nz - st - 1) / st + 1 : 0;  // cells along z: z = 0, st, ... with z + st < nz
  auto taken = [&](int64_t z, int64_t y, int64_t x) {
    return !mask || mask[(z + st) * sz + (y + st) * sy + x + st];
  };
  // a cell's edge on the grid: its lower corner (the corners' common bits) and axis (0 x, 1 y, 2 z)
  auto key = [&](int64_t z, int64_t y, int64_t x, int e) { return mc_key(z, y, x, e, st, ny, nx); };

  // the corners above the level, one byte per voxel, and a cell's case from them
  std::vector<uint8_t> above(n);
  parallel_for(n, 1 << 16, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) above[p] = double(vol[p]) - level > 0.0;
  });
  int64_t offset[8];
  for (int i = 0; i < 8; ++i) offset[i] = ((i & 1) + ((i >> 1) & 1) * sy + (i >> 2) * sz) * st;
  // A cell's case from the codes of its two corner columns (x and x + step): column code bit j is corner
  // 2 j of the cell (dy + 2 dz), spread to the even case bits for the column at x, the odd ones at x + step.
  static constexpr uint8_t kSpread[16] = {0, 1, 4, 5, 16, 17, 20, 21, 64, 65, 68, 69, 80, 81, 84, 85};
  auto column = [&](int64_t base) {
    const uint8_t* a = above.data() + base;
    return a[0] | a[offset[2]] << 1 | a[offset[4]] << 2 | a[offset[6]] << 3;
  };
  // calls fn(x, case) for the cells of row (z, y) taken, case 0 and 255 left out
  auto for_row = [&](int64_t z, int64_t y, auto&& fn) {
    const int64_t row = z * sz + y * sy;
    int left = column(row);
    for (int64_t x = 0; x + st < nx; x += st) {
      const int right = column(row + x + st);
      const int index = kSpread[left] | kSpread[right] << 1;
      left = right;
      if (index == 0 || index == 255 || !taken(z, y, x)) continue;
      fn(x, index);
    }
  };

  // (1) crossed edges of the cells taken
  std::vector<uint64_t> used((3 * n + 63) / 64, 0);
  if (!mask && st == 1) {
    // every grid edge belongs to a cell: an edge is used where its ends differ. Blocks of 64 voxels fill 3
    // whole words (keys 3 p + axis), each by one thread.
    const int64_t blocks = (n + 63) / 64;
    parallel_for(blocks, 16, [&](int64_t b0, int64_t b1) {
      for (int64_t blk = b0; blk < b1; ++blk) {
        uint64_t word[3] = {0, 0, 0};
        const int64_t p0 = blk * 64, p1 = std::min(n, p0 + 64);
        int64_t x = p0 % nx, y = (p0 / nx) % ny, z = p0 / sz;
        for (int64_t p = p0; p < p1; ++p) {
          const uint8_t a = above[p];
          const int64_t k = 3 * (p - p0);
          word[k >> 6] |= uint64_t(x + 1 < nx && a != above[p + 1]) << (k & 63);
          word[(k + 1) >> 6] |= uint64_t(y + 1 < ny && a != above[p + sy]) << ((k + 1) & 63);
          word[(k + 2) >> 6] |= uint64_t(z + 1 < nz && a != above[p + sz]) << ((k + 2) & 63);
          if (++x == nx) {
            x = 0;
            if (++y == ny) {
              y = 0;
              ++z;
            }
          }
        }
        for (int j = 0; j < 3 && 3 * blk + j < int64_t(used.size()); ++j) used[3 * blk + j] = word[j];
      }
    });
  } else {
    parallel_for(cz, 1, [&](int64_t z0, int64_t z1) {
      for (int64_t zi = z0; zi < z1; ++zi) {
        const int64_t z = zi * st;
        for (int64_t y = 0; y + st < ny; y += st)
          for_row(z, y, [&](int64_t x, int index) {
            for (int e = 0; e < 12; ++e) {
              if (!mc_crossed(index, e)) continue;
              const int64_t k = key(z, y, x, e);
              std::atomic_ref<uint64_t>(used[k >> 6]).fetch_or(uint64_t(1) << (k & 63), std::memory_order_relaxed);
            }
          });
      }
    });
  }

  // (2) vertex numbers: ranks in the bitmap
  const int64_t words = int64_t(used.size());
  std::vector<int64_t> rank(words + 1, 0);
  {
    const int64_t chunk = 1 << 14, nchunks = (words + chunk - 1) / chunk;
    std::vector<int64_t> sums(nchunks + 1, 0);
    parallel_for(nchunks, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        int64_t s = 0;
        for (int64_t w = c * chunk; w < std::min(words, (c + 1) * chunk); ++w) s += bits_set(used[w]);
        sums[c + 1] = s;
      }
    });
    for (int64_t c = 0; c < nchunks; ++c) sums[c + 1] += sums[c];
    parallel_for(nchunks, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        int64_t s = sums[c];
        for (int64_t w = c * chunk; w < std::min(words, (c + 1) * chunk); ++w) {
          rank[w] = s;
          s += bits_set(used[w]);
        }
      }
    });
    rank[words] = sums[nchunks];
  }
  const int64_t nverts = rank[words];
  if (nverts > INT32_MAX) throw std::length_error("marching_cubes: more than 2**31 - 1 vertices (int32 faces)");
  auto vertex_of = [&](int64_t k) {
    return rank[k >> 6] + bits_set(used[k >> 6] & ((uint64_t(1) << (k & 63)) - 1));
  };

  Mesh mesh;
  mesh.vertices.resize(3 * nverts);
  mesh.normals.assign(3 * nverts, 0.0f);
  mesh.values.assign(nverts, 0.0f);
  // vertex positions: scikit-image's weights 1 / (eps + |value - level|) of the two ends, output (z, y, x)
  parallel_for(words, 256, [&](int64_t w0, int64_t w1) {
    for (int64_t w = w0; w < w1; ++w) {
      for (uint64_t bits = used[w]; bits; bits &= bits - 1) {
        const int64_t k = w * 64 + std::countr_zero(bits), axis = k % 3, p = k / 3;
        const int64_t x = p % nx, y = (p / nx) % ny, z = p / sz;
        const int64_t step = axis == 0 ? st : axis == 1 ? st * sy : st * sz;
        mc_vertex(vol[p], vol[p + step], level, st, int(axis), z, y, x, &mesh.vertices[3 * vertex_of(k)]);
      }
    }
  });

  // (3) faces, normals and values, slab by slab
  // (kMcSlab z-layers of cells per slab, fixed: sums in the same order on any machine, and on the GPU)
  const int64_t nslabs = (cz + kMcSlab - 1) / kMcSlab;
  std::vector<std::vector<int32_t>> slab_faces(nslabs);
  for (int round = 0; round < 2; ++round) {
    const int64_t mine = (nslabs - round + 1) / 2;
    parallel_for(mine, 1, [&](int64_t s0, int64_t s1) {
      for (int64_t si = s0; si < s1; ++si) {
        const int64_t s = 2 * si + round;
        std::vector<int32_t>& faces = slab_faces[s];
        Cell cell;
        for (int64_t zi = s * kMcSlab; zi < std::min(cz, (s + 1) * kMcSlab); ++zi) {
          const int64_t z = zi * st;
          for (int64_t y = 0; y + st < ny; y += st)
            for_row(z, y, [&](int64_t x, int index) {
              const int64_t base = z * sz + y * sy + x;
              cell.index = index;
              cell.load(vol, offset, base, level, lewiner, tab);
              const Tiling& t = tab.tiling[cell.index * 64 + cell.join];
              int64_t vid_of[12];
              for (int e = 0; e < 12; ++e)
                if (mc_crossed(cell.index, e)) vid_of[e] = vertex_of(key(z, y, x, e));
              const float range = mc_range(cell.v);
              float gw[8][3];
              mc_gradients(cell.v, gw);
              for (int j = 0; j < 3 * t.n; ++j) {
                const int e = t.e[j];
                const int64_t vid = vid_of[e];
                faces.push_back(int32_t(vid));
                float& value = mesh.values[vid];
                value = std::max(value, range);
                mc_add_normal(&mesh.normals[3 * vid], gw, e);
              }
            });
        }
      }
    });
  }
  size_t nfaces = 0;
  for (const auto& f : slab_faces) nfaces += f.size();
  mesh.faces.reserve(nfaces);
  for (auto& f : slab_faces) {
    mesh.faces.insert(mesh.faces.end(), f.begin(), f.end());
    std::vector<int32_t>().swap(f);
  }
  parallel_for(nverts, 4096, [&](int64_t v0, int64_t v1) {
    for (int64_t v = v0; v < v1; ++v) mc_unit(&mesh.normals[3 * v]);
  });
  return mesh;
}

const Tiling* mc_tilings() { return tables().tiling.data(); }
const uint8_t* mc_ambiguous() { return tables().ambiguous; }

Mesh marching_cubes(const View& vol, const View* mask, double level, int step, bool lewiner, StreamHandle stream) {
  const char* op = "marching_cubes";
  if (vol.ndim != 3 || vol.dtype != DType::F32 || !vol.c_contiguous())
    throw ValueError("marching_cubes: the volume must be a C-contiguous 3-D float32 array");
  if (step < 1) throw ValueError("marching_cubes: step must be at least 1");
  if (mask) {
    require_same_shape(vol, *mask, op);
    require_same_device(vol, *mask, op);
    if (mask->dtype != DType::U8 || !mask->c_contiguous())
      throw ValueError("marching_cubes: the mask must be a C-contiguous uint8 array");
  }
  const uint8_t* m = mask ? mask->ptr<uint8_t>() : nullptr;
  NDIMG_ROUTE(vol, op, marching_cubes(vol.ptr<float>(), vol.shape[0], vol.shape[1], vol.shape[2], m, level, step, lewiner),
              marching_cubes_cuda(vol.ptr<float>(), vol.shape[0], vol.shape[1], vol.shape[2], m, level, step, lewiner,
                                  vol.device_id, stream));
}

}  // namespace ndimg::measure

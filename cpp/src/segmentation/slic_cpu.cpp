// SLIC on the CPU: the assignment step in bands of (z, y) rows over the thread pool, each band taking the
// centres in skimage's order (so every voxel meets them in the same order and keeps the same winner); the
// centre update by ranges of centres, each centre's sums in raster order as skimage's (float sums depend on
// the order); the connectivity pass is skimage's sequential breadth-first search.
#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "ndimg/parallel.hpp"
#include "segmentation/slic.hpp"

namespace ndimg::segmentation {
namespace {

void require(bool ok, const char* op, const char* what) {
  if (!ok) throw ValueError(std::string(op) + ": " + what);
}

using slic_math::Win;

// One assignment pass over the (z, y) rows [r0, r1): the image as C planes so that every window row is
// contiguous loops (vectorized; each lane's arithmetic is the scalar's, in skimage's order).
template <class T>
struct Band {
  const T* planes;
  int64_t C, D, H, W, F, n_seg;
  const uint8_t* mask;
  const T* seg;
  const Win* wins;
  const T* max_dist_color;
  T sz, sy, sx, sw;
  bool slic_zero, ignore_color;
  int64_t start_label;
  T* distance;
  int64_t* labels;
  const T* xs;   // T(x) for every column
};

// One centre over columns [x0, x1) of one row; the flags fixed at compile time so the loop vectorizes.
template <class T, int NC, bool COLOR, bool MASK, bool ZERO>
[[gnu::always_inline]] inline int row_pass(const T* __restrict p, int64_t N, int64_t C_, const T* __restrict xs,
                                           const uint8_t* __restrict m, T* __restrict dist, int64_t* __restrict lab,
                                           int64_t x0, int64_t x1, const T* s, T base, T sx, T sw, T mdc, int64_t lk) {
  const int64_t C = NC > 0 ? NC : C_;
  const T cx = s[2];
  int any = 0;
  for (int64_t x = x0; x < x1; ++x) {
    T d = slic_math::spatial_distance(base, slic_math::axis_term(sx, cx, xs[x]), sw);
    if constexpr (COLOR) {
      T dc = slic_math::colour_distance(p + x, N, s + 3, C);
      if constexpr (ZERO) dc /= mdc;
      d += dc;
    }
    bool better = dist[x] > d;
    if constexpr (MASK) better = better & (m[x] != 0);
    dist[x] = better ? d : dist[x];
    lab[x] = better ? lk : lab[x];
    any |= better;
  }
  return any;
}

// Row by row (a row's planes, distances and labels stay in cache while every centre whose window holds it
// passes over it, in centre order: each voxel still meets the centres in skimage's order).
template <class T, int NC, bool COLOR, bool MASK, bool ZERO>
[[gnu::always_inline]] inline bool assign_rows(const Band<T>& b, int64_t r0, int64_t r1) {
  const int64_t H = b.H, W = b.W, N = b.D * H * W;
  int any = 0;
  for (int64_t row = r0; row < r1; ++row) {
    const int64_t z = row / H, y = row % H;
    T* dist = b.distance + row * W;
    int64_t* lab = b.labels + row * W;
    const uint8_t* m = MASK ? b.mask + row * W : nullptr;
    const T* p = b.planes + row * W;
    for (int64_t k = 0; k < b.n_seg; ++k) {
      const Win w = b.wins[k];
      if (!w.ok || z < w.z0 || z >= w.z1 || y < w.y0 || y >= w.y1) continue;
      const T* s = b.seg + k * b.F;
      const T zy = slic_math::axis_term(b.sz, s[0], T(z)) + slic_math::axis_term(b.sy, s[1], T(y));
      any |= row_pass<T, NC, COLOR, MASK, ZERO>(p, N, b.C, b.xs, m, dist, lab, w.x0, w.x1, s, zy, b.sx, b.sw,
                                                b.max_dist_color[k], k + b.start_label);
    }
  }
  return any != 0;
}

template <class T, int NC>
[[gnu::always_inline]] inline bool assign_band(const Band<T>& b, int64_t r0, int64_t r1) {
  std::fill(b.distance + r0 * b.W, b.distance + r1 * b.W, T(DBL_MAX));
  const bool mask = b.mask != nullptr;
  if (b.ignore_color)
    return mask ? assign_rows<T, NC, false, true, false>(b, r0, r1) : assign_rows<T, NC, false, false, false>(b, r0, r1);
  if (b.slic_zero)
    return mask ? assign_rows<T, NC, true, true, true>(b, r0, r1) : assign_rows<T, NC, true, false, true>(b, r0, r1);
  return mask ? assign_rows<T, NC, true, true, false>(b, r0, r1) : assign_rows<T, NC, true, false, false>(b, r0, r1);
}

template <class T, int NC>
__attribute__((target("avx2"))) bool assign_band_avx2(const Band<T>& b, int64_t r0, int64_t r1) {
  return assign_band<T, NC>(b, r0, r1);
}
template <class T, int NC>
bool assign_band_base(const Band<T>& b, int64_t r0, int64_t r1) {
  return assign_band<T, NC>(b, r0, r1);
}

// NC: the number of colour channels when known at compile time (0: C at run time).
template <class T, int NC>
void iterate(const T* img, int64_t D, int64_t H, int64_t W, int64_t C_, const uint8_t* mask, T* seg, int64_t n_seg,
             double step, std::span<const int64_t> gs, int64_t max_iter, std::span<const double> spacing, bool slic_zero,
             int64_t start_label, bool ignore_color, int64_t* labels) {
  const int64_t C = NC > 0 ? NC : C_;
  const int64_t F = 3 + C;
  const float stepf = float(step);
  const int64_t N = D * H * W;
  std::vector<T> max_dist_color(static_cast<size_t>(n_seg), T(1));
  std::vector<T> distance(static_cast<size_t>(N));
  std::vector<int64_t> count(static_cast<size_t>(n_seg));
  std::vector<Win> wins(static_cast<size_t>(n_seg));
  const int64_t rows = D * H;
  const int64_t grain = std::max<int64_t>(1, rows / (8 * std::max(1, num_threads())));
  std::vector<T> planes(ignore_color ? 0 : size_t(N * C)), xs(static_cast<size_t>(W));
  for (int64_t x = 0; x < W; ++x) xs[size_t(x)] = T(x);
  parallel_for(planes.empty() ? 0 : N, 1 << 16, [&](int64_t i0, int64_t i1) {
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = i0; i < i1; ++i) planes[size_t(c * N + i)] = img[i * C + c];
  });
  const Band<T> band{planes.data(), C, D, H, W, F, n_seg, mask, seg, wins.data(), max_dist_color.data(),
                     T(spacing[0]), T(spacing[1]), T(spacing[2]), T(1.0 / double(stepf * stepf)), slic_zero,
                     ignore_color, start_label, distance.data(), labels, xs.data()};
  static const bool avx2 = __builtin_cpu_supports("avx2");
  const auto assign = avx2 ? &assign_band_avx2<T, NC> : &assign_band_base<T, NC>;
  for (int64_t it = 0; it < max_iter; ++it) {
    for (int64_t k = 0; k < n_seg; ++k) {
      const T* s = seg + k * F;
      wins[size_t(k)] = slic_math::centre_window(s, gs.data(), D, H, W);
    }
    std::atomic<bool> change{false};
    parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
      if (assign(band, r0, r1)) change.store(true, std::memory_order_relaxed);
    });
    if (!change.load()) break;
    // the centres, each summed in raster order as skimage's loop sums it (float sums are order-sensitive):
    // a task owns a range of centres and scans every voxel for them
    parallel_for(n_seg, std::max<int64_t>(1, n_seg / (4 * std::max(1, num_threads()))), [&](int64_t k0, int64_t k1) {
      std::fill(count.begin() + k0, count.begin() + k1, 0);
      std::fill(seg + k0 * F, seg + k1 * F, T(0));
      for (int64_t z = 0, i = 0; z < D; ++z)
        for (int64_t y = 0; y < H; ++y)
          for (int64_t x = 0; x < W; ++x, ++i) {
            const int64_t k = labels[i] - start_label;
            // a voxel never labelled (k < 0, where skimage would write before its array) is left out
            if (k < k0 || k >= k1 || (mask && !mask[i])) continue;
            T* s = seg + k * F;
            ++count[size_t(k)];
            s[0] += T(z);
            s[1] += T(y);
            s[2] += T(x);
            for (int64_t c = 0; c < C; ++c) s[3 + c] += img[i * C + c];
          }
      for (int64_t k = k0; k < k1; ++k)
        for (int64_t f = 0; f < F; ++f) seg[k * F + f] /= T(count[size_t(k)]);
      if (!slic_zero) return;
      for (int64_t i = 0; i < N; ++i) {
        const int64_t k = labels[i] - start_label;
        if (k < k0 || k >= k1 || (mask && !mask[i])) continue;
        const T dc = slic_math::colour_distance(img + i * C, 1, seg + k * F + 3, C);
        if (max_dist_color[size_t(k)] < dc) max_dist_color[size_t(k)] = dc;
      }
    });
  }
}

}  // namespace

void slic_iterate_cpu(const View& image, const View& mask, bool use_mask, const View& segments, double step,
                      std::span<const int64_t> grid_steps, int64_t max_num_iter, std::span<const double> spacing,
                      bool slic_zero, int64_t start_label, bool ignore_color, const View& labels) {
  const int64_t D = image.shape[0], H = image.shape[1], W = image.shape[2], C = image.shape[3];
  const uint8_t* m = use_mask ? mask.ptr<uint8_t>() : nullptr;
  const int64_t n = segments.shape[0];
  auto run = [&]<class T>() {
    auto go = [&]<int NC>() {
      iterate<T, NC>(image.ptr<T>(), D, H, W, C, m, segments.ptr<T>(), n, step, grid_steps, max_num_iter, spacing,
                     slic_zero, start_label, ignore_color, labels.ptr<int64_t>());
    };
    if (C == 1) go.template operator()<1>();
    else if (C == 3) go.template operator()<3>();
    else go.template operator()<0>();
  };
  if (image.dtype == DType::F32) run.template operator()<float>();
  else run.template operator()<double>();
}

void slic_enforce_connectivity(const View& labels, int64_t min_size, int64_t max_size, int64_t start_label,
                               const View& out) {
  const char* op = "slic";
  require(labels.dtype == DType::I64 && labels.ndim == 3 && labels.c_contiguous() && labels.device == Device::CPU &&
              out.dtype == DType::I64 && out.ndim == 3 && out.c_contiguous() && out.device == Device::CPU,
          op, "labels and out must be C-contiguous 3-D int64 host arrays");
  require_same_shape(labels, out, op);
  const int64_t D = labels.shape[0], H = labels.shape[1], W = labels.shape[2];
  const int64_t* seg = labels.ptr<int64_t>();
  int64_t* con = out.ptr<int64_t>();
  const int64_t mask_label = start_label - 1;
  std::fill(con, con + D * H * W, mask_label);
  static constexpr int64_t dz[6] = {0, 0, 0, 0, 1, -1}, dy[6] = {0, 0, 1, -1, 0, 0}, dx[6] = {1, -1, 0, 0, 0, 0};
  // skimage's list holds max_size voxels; its first entry is written even when max_size is 0
  std::vector<int64_t> list(size_t(std::max<int64_t>(max_size, 1)));
  int64_t next = start_label;
  for (int64_t z = 0, i = 0; z < D; ++z)
    for (int64_t y = 0; y < H; ++y)
      for (int64_t x = 0; x < W; ++x, ++i) {
        if (seg[i] == mask_label || con[i] > mask_label) continue;
        int64_t adjacent = next;
        const int64_t label = seg[i];
        con[i] = next;
        int64_t size = 1, visited = 0;
        list[0] = i;
        while (visited < size && size < max_size) {
          const int64_t j = list[size_t(visited)];
          const int64_t jz = j / (H * W), jy = j / W % H, jx = j % W;
          for (int d = 0; d < 6; ++d) {
            const int64_t zz = jz + dz[d], yy = jy + dy[d], xx = jx + dx[d];
            if (xx < 0 || xx >= W || yy < 0 || yy >= H || zz < 0 || zz >= D) continue;
            const int64_t q = (zz * H + yy) * W + xx;
            if (seg[q] == label && con[q] == mask_label) {
              con[q] = next;
              list[size_t(size++)] = q;
              if (size >= max_size) break;
            } else if (con[q] > mask_label && con[q] != next) {
              adjacent = con[q];
            }
          }
          ++visited;
        }
        if (size < min_size) {
          for (int64_t s = 0; s < size; ++s) con[list[size_t(s)]] = adjacent;
        } else {
          ++next;
        }
      }
}

}  // namespace ndimg::segmentation

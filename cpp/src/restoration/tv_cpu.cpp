// The total-variation denoisers on the CPU: Chambolle's iterations as two sweeps over chunks of the flat image
// on the thread pool (the estimate from the dual field, then the dual field from the estimate's gradient), the
// energy's pairwise sums taken as each chunk is done; split Bregman's Gauss-Seidel sweep as a wavefront of tiles
// over their anti-diagonals (as tv_cuda.cu's).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <type_traits>
#include <vector>

#include "ndimg/dispatch.hpp"
#include "ndimg/error.hpp"
#include "ndimg/parallel.hpp"
#include "ndimg/restoration.hpp"
#include "core/engine.hpp"
#include "reduce/stats.hpp"
#include "tv.hpp"

namespace ndimg::restoration {

namespace {

using reduce::pairwise_block;
using reduce::pairwise_tree;

void require_float_pair(const View& image, const View& out, const char* op, bool cpu_only = true) {
  if (cpu_only && (image.device != Device::CPU || out.device != Device::CPU))
    throw ValueError(std::string(op) + ": CPU arrays only");
  require_same_device(image, out, op);
  if (!is_float(image.dtype) || image.dtype != out.dtype)
    throw TypeError(std::string(op) + ": image and output must be of one floating-point dtype");
  if (!image.c_contiguous() || !out.c_contiguous())
    throw ValueError(std::string(op) + ": C-contiguous arrays only");
}

// NumPy's sum (np.sum, its pairwise order to the bit) of values produced in chunks on the pool: the split
// rule's blocks (at most 128 values each) grouped into chunks of whole blocks, each block summed as its chunk
// is produced, the sums folded in the rule's tree order, so neither the sum nor its rounding depends on threads.
template <class T>
class PairwiseChunks {
 public:
  PairwiseChunks(int64_t size, int64_t chunk_values) : size_(size) {
    auto record = [this](int64_t off, int64_t) {
      off_.push_back(off);
      return T(0);
    };
    pairwise_tree<T>(0, size, record);
    const int64_t blocks = int64_t(off_.size());
    off_.push_back(size);
    for (int64_t b = 0; b < blocks;) {
      first_.push_back(b);
      const int64_t start = off_[size_t(b)];
      do ++b;
      while (b < blocks && off_[size_t(b)] - start < chunk_values);
    }
    first_.push_back(blocks);
  }
  int64_t chunks() const { return int64_t(first_.size()) - 1; }
  int64_t blocks() const { return first_.back(); }
  int64_t begin(int64_t c) const { return off_[size_t(first_[size_t(c)])]; }
  int64_t end(int64_t c) const { return off_[size_t(first_[size_t(c + 1)])]; }
  // the sums of chunk c's blocks into sums (indexed by block), from its values (values[0] is value begin(c))
  void sum_blocks(int64_t c, const T* values, T* sums) const {
    const int64_t at = begin(c);
    for (int64_t b = first_[size_t(c)]; b < first_[size_t(c + 1)]; ++b)
      sums[b] = pairwise_block(values + (off_[size_t(b)] - at), off_[size_t(b + 1)] - off_[size_t(b)]);
  }
  T fold(const T* sums) const {
    int64_t next = 0;
    auto leaf = [&](int64_t, int64_t) { return sums[next++]; };
    return T(0) + pairwise_tree<T>(0, size_, leaf);
  }

 private:
  int64_t size_;
  std::vector<int64_t> off_, first_;   // block b: values [off_[b], off_[b + 1]); chunk c: blocks from first_[c]
};

// One iteration's two sweeps of Chambolle's method over chunks of the flat image (line segments of the last
// axis), each summing the blocks of its squared d or |g| as a chunk is done: the estimate u = f + d from the
// dual field, d = -sum_ax p_ax + p_ax shifted forward along ax; then the gradient g of u (0 on each axis's last
// slice) and the dual step p = (p - tau g) / (1 + tau/weight |g|). Each element's operations in NumPy's order.
template <class T>
struct ChambolleSweeps {
  const View& image;
  const PairwiseChunks<T>& chunks;
  const T* f;
  T *u, *p;
  T tt, tw;   // tau, tau / weight
  int nd;
  int64_t size, n;

  // for each axis but the last, whether line l has a neighbour before / after along it
  void neighbours(int64_t l, bool* before, bool* after) const {
    for (int ax = nd - 2; ax >= 0; --ax) {
      const int64_t c = l % image.shape[ax];
      l /= image.shape[ax];
      before[ax] = c >= 1;
      after[ax] = c + 1 < image.shape[ax];
    }
  }
  // line l's values k0 <= k < k1 of u, and d ** 2 into d2[k - k0] (d: scratch of one line)
  [[gnu::always_inline]] inline void estimate(int64_t l, int64_t k0, int64_t k1, T* d2, T* d) const {
    bool before[kMaxDim], after[kMaxDim];
    neighbours(l, before, after);
    const int64_t base = l * n;
    // axis by axis, each loop a vector one
    for (int64_t k = k0; k < k1; ++k) d[k] = p[base + k];
    for (int ax = 1; ax < nd; ++ax)
      for (int64_t k = k0; k < k1; ++k) d[k] += p[ax * size + base + k];
    for (int64_t k = k0; k < k1; ++k) d[k] = -d[k];
    for (int ax = 0; ax < nd - 1; ++ax) {
      if (!before[ax]) continue;
      const T* q = p + ax * size + base - image.strides[ax];
      for (int64_t k = k0; k < k1; ++k) d[k] += q[k];
    }
    const T* q = p + (nd - 1) * size + base;
    for (int64_t k = std::max<int64_t>(k0, 1); k < k1; ++k) d[k] += q[k - 1];
    for (int64_t k = k0; k < k1; ++k) {
      u[base + k] = f[base + k] + d[k];
      d2[k - k0] = d[k] * d[k];
    }
  }
  // line l's values k0 <= k < k1 of p, and |g| into norms[k - k0] (g: scratch of nd + 1 lines)
  [[gnu::always_inline]] inline void dual(int64_t l, int64_t k0, int64_t k1, T* norms, T* g) const {
    T* scale = g + nd * n;
    bool before[kMaxDim], after[kMaxDim];
    neighbours(l, before, after);
    const int64_t base = l * n;
    const T* ul = u + base;
    for (int ax = 0; ax < nd - 1; ++ax) {
      T* ga = g + ax * n;
      if (after[ax])
        for (int64_t k = k0; k < k1; ++k) ga[k] = ul[k + image.strides[ax]] - ul[k];
      else
        std::fill(ga + k0, ga + k1, T(0));
    }
    T* gl = g + (nd - 1) * n;
    for (int64_t k = k0; k < std::min(k1, n - 1); ++k) gl[k] = ul[k + 1] - ul[k];
    if (k1 == n) gl[n - 1] = T(0);
    for (int64_t k = k0; k < k1; ++k) scale[k] = g[k] * g[k];
    for (int ax = 1; ax < nd; ++ax)
      for (int64_t k = k0; k < k1; ++k) scale[k] += g[ax * n + k] * g[ax * n + k];
    for (int64_t k = k0; k < k1; ++k) {
      const T r = std::sqrt(scale[k]);
      norms[k - k0] = r;
      scale[k] = chambolle_scale(r, tw);
    }
    for (int ax = 0; ax < nd; ++ax) {
      T* pa = p + ax * size + base;
      const T* ga = g + ax * n;
      for (int64_t k = k0; k < k1; ++k) pa[k] = (pa[k] - tt * ga[k]) / scale[k];
    }
  }
  // chunks c0 <= c < c1 of the estimate's sweep (Dual: the dual step's), their block sums into sums
  template <bool Dual>
  [[gnu::always_inline]] inline void run(int64_t c0, int64_t c1, T* sums) const {
    std::vector<T> values, line(size_t(n * (nd + 1)));
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t a = chunks.begin(c), e = chunks.end(c);
      values.resize(size_t(e - a));
      for (int64_t k = a; k < e;) {
        const int64_t l = k / n, k0 = k - l * n, k1 = std::min(n, e - l * n);
        if constexpr (Dual)
          dual(l, k0, k1, values.data() + (k - a), line.data());
        else
          estimate(l, k0, k1, values.data() + (k - a), line.data());
        k = l * n + k1;
      }
      chunks.sum_blocks(c, values.data(), sums);
    }
  }
};
// the sweeps compiled for AVX2 too (IEEE operations lane by lane: the same bits, twice the lanes of SSE)
template <class T, bool Dual>
__attribute__((target("avx2"))) void chambolle_sweep_avx2(const ChambolleSweeps<T>& s, int64_t c0, int64_t c1, T* sums) {
  s.template run<Dual>(c0, c1, sums);
}
template <class T, bool Dual>
void chambolle_sweep_base(const ChambolleSweeps<T>& s, int64_t c0, int64_t c1, T* sums) {
  s.template run<Dual>(c0, c1, sums);
}

// scikit-image's _denoise_tv_chambolle_nd step for step in T (the file is built without contractions): the
// sweeps above, the energy's two sums in NumPy's pairwise order and its scalar arithmetic in T as NumPy's
// (Python's weight and eps cast to T), so the stopping test stops at scikit-image's iteration.
template <class T>
int64_t chambolle(const View& image, const View& out, double weight, double eps, int64_t max_num_iter) {
  const int nd = image.ndim;
  const int64_t size = image.size();
  std::vector<T> p(size_t(size) * size_t(nd), T(0));
  const PairwiseChunks<T> chunks(size, 16384);
  std::vector<T> d2_sums(size_t(chunks.blocks())), norm_sums(size_t(chunks.blocks()));
  const double tau = 1.0 / (2.0 * nd);
  const ChambolleSweeps<T> sweeps{image, chunks, image.ptr<T>(), out.ptr<T>(), p.data(), T(tau), T(tau / weight),
                                  nd, size, image.shape[nd - 1]};
  static const bool avx2 = __builtin_cpu_supports("avx2");
  auto sweep = [&](auto dual, T* sums) {
    constexpr bool Dual = decltype(dual)::value;
    parallel_for(chunks.chunks(), 1, [&](int64_t c0, int64_t c1) {
      (avx2 ? chambolle_sweep_avx2<T, Dual> : chambolle_sweep_base<T, Dual>)(sweeps, c0, c1, sums);
    });
  };
  const T tweight = T(weight), teps = T(eps), tsize = T(double(size));
  T e_init = 0, e_prev = 0;
  int64_t i = 0;
  for (; i < max_num_iter; ++i) {
    sweep(std::false_type{}, d2_sums.data());
    sweep(std::true_type{}, norm_sums.data());
    T e = chunks.fold(d2_sums.data());
    e += tweight * chunks.fold(norm_sums.data());
    e /= tsize;
    if (i == 0) {
      e_init = e_prev = e;
    } else if (std::abs(e_prev - e) < teps * e_init) {
      return i + 1;
    } else {
      e_prev = e;
    }
  }
  return i;
}

// Bregman's tiles: rows long enough for the prefetchers (a 4K frame's sweep on one thread: 64 columns 0.127 s,
// 128 0.106 s, 256 0.097 s, whole rows 0.089 s), yet 30 tiles across it for 16 threads (8 across 1K)
constexpr int64_t kBregmanRows = 64, kBregmanCols = 128;

template <class T>
int64_t bregman(const View& image, const View& out, T weight, int64_t max_num_iter, double eps, bool isotropic) {
  const int64_t rows = image.shape[0], cols = image.shape[1], dims = image.shape[2];
  const int64_t total = rows * cols * dims, orow = (cols + 2) * dims;
  const T* f = image.ptr<T>();
  T* u = out.ptr<T>();
  const size_t ext = size_t((rows + 2) * orow);
  // the split variables start as copies of `out` as given (scikit-image reuses one output across channels,
  // so a channel's sweep starts from the previous channel's result)
  std::vector<T> dx(u, u + ext), dy(dx), bx(dx), by(dx);
  const T lam = 2 * weight;
  const BregmanParams<T> p{weight, lam, weight + 4 * lam, isotropic};
  auto at = [&](int64_t r, int64_t c) { return r * orow + c * dims; };
  for (int64_t r = 0; r < rows; ++r)
    std::copy(f + r * cols * dims, f + (r + 1) * cols * dims, u + at(r + 1, 1));
  // the border: reflected rows / columns as scikit-image sets them once (corners stay 0)
  std::copy(f + 1 * cols * dims, f + 2 * cols * dims, u + at(0, 1));
  std::copy(f + (rows - 1) * cols * dims, f + rows * cols * dims, u + at(rows + 1, 1));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < dims; ++k) {
      u[at(r + 1, 0) + k] = f[(r * cols + 1) * dims + k];
      u[at(r + 1, cols + 1) + k] = f[(r * cols + cols - 1) * dims + k];
    }
  // tiles swept in tile anti-diagonals on the pool (the CUDA schedule's wavefront), each in raster order:
  // a pixel still reads the new values above and to the left and the old ones below and to the right
  const int64_t trows = (rows + kBregmanRows - 1) / kBregmanRows, tcols = (cols + kBregmanCols - 1) / kBregmanCols;
  const std::unique_ptr<T[]> squares(new T[size_t(total)]);   // every one written by each sweep
  std::vector<double> tile_sums(static_cast<size_t>(trows * tcols));
  auto sweep_tile = [&](int64_t ti, int64_t tj) {
    double sum = 0;
    const int64_t r1 = std::min(rows, (ti + 1) * kBregmanRows), c1 = std::min(cols, (tj + 1) * kBregmanCols);
    for (int64_t r = 1 + ti * kBregmanRows; r <= r1; ++r)
      for (int64_t c = 1 + tj * kBregmanCols; c <= c1; ++c)
        for (int64_t k = 0; k < dims; ++k) {
          const int64_t x = at(r, c) + k, up = x - orow, lf = x - dims, px = ((r - 1) * cols + (c - 1)) * dims + k;
          const T uprev = u[x];
          const T unew = bregman_pixel(p, uprev, u[up], u[x + orow], u[lf], u[x + dims], dx[size_t(lf)],
                                       dy[size_t(up)], bx[size_t(lf)], by[size_t(up)], f[px], dx[size_t(x)],
                                       dy[size_t(x)], bx[size_t(x)], by[size_t(x)]);
          u[x] = unew;
          const T t = unew - uprev;
          squares[size_t(px)] = t * t;
          sum += double(t * t);
        }
    tile_sums[size_t(ti * tcols + tj)] = sum;
  };
  auto in_order = [&] {   // scikit-image's sum: in double, in raster order
    double sum = 0;
    for (int64_t j = 0; j < total; ++j) sum += double(squares[size_t(j)]);
    return sum;
  };
  bool more = std::numeric_limits<double>::max() > eps;   // scikit-image's rmse before the first sweep
  int64_t i = 0;
  for (; i < max_num_iter && more; ++i) {
    for (int64_t diag = 0; diag < trows + tcols - 1; ++diag) {
      const int64_t first = std::max<int64_t>(0, diag - trows + 1), last = std::min(diag, tcols - 1);
      parallel_for(last - first + 1, 1, [&](int64_t j0, int64_t j1) {
        for (int64_t tj = first + j0; tj < first + j1; ++tj) sweep_tile(diag - tj, tj);
      });
    }
    more = bregman_rmse_above(std::accumulate(tile_sums.begin(), tile_sums.end(), 0.0), total, eps, in_order);
  }
  return i;
}

}  // namespace

int64_t tv_chambolle(const View& image, const View& out, double weight, double eps, int64_t max_num_iter) {
  const char* op = "tv_chambolle";
  require_float_pair(image, out, op);
  require_same_shape(image, out, op);
  if (image.ndim == 0 || image.size() == 0) throw ValueError("tv_chambolle: an empty or 0-d image");
  int64_t iters = 0;
  dispatch_dtype(image.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) iters = chambolle<T>(image, out, weight, eps, max_num_iter);
  });
  return iters;
}

int64_t tv_bregman(const View& image, const View& out, double weight, int64_t max_num_iter, double eps,
                   bool isotropic, StreamHandle stream) {
  const char* op = "tv_bregman";
  require_float_pair(image, out, op, /*cpu_only=*/false);
  if (image.ndim != 3 || out.ndim != 3 || out.shape[0] != image.shape[0] + 2 || out.shape[1] != image.shape[1] + 2 ||
      out.shape[2] != image.shape[2])
    throw ValueError("tv_bregman: image (rows, cols, channels) and output (rows + 2, cols + 2, channels) expected");
  if (image.size() == 0) return 0;
  // scikit-image reflects the second row and column into the border
  if (image.shape[0] < 2 || image.shape[1] < 2) throw ValueError("tv_bregman: fewer than 2 rows or columns");
  if (image.device == Device::CUDA)
    NDIMG_ON_CUDA(op, return tv_bregman_cuda(image, out, weight, max_num_iter, eps, isotropic, stream));
  int64_t iters = 0;
  dispatch_dtype(image.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) iters = bregman<T>(image, out, T(weight), max_num_iter, eps, isotropic);
  });
  return iters;
}

}  // namespace ndimg::restoration

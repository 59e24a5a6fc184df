// multiscale_basic_features' per-pixel features of 2-D smoothed images, all of them in one sweep that writes
// each pixel's features side by side (separate feature images stacked afterwards cost more than the math).
#include <algorithm>
#include <cmath>
#include <string>

#include "core/engine.hpp"
#include "feature/deriv.hpp"
#include "ndimg/feature_deriv.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::feature {
namespace {

constexpr int64_t kTile = 256;   // pixels of a row whose features (kTile * F values) stay in cache

// Sobel's gradient magnitude at column c of row `row` (scikit-image's: each stencil summed in double in
// scipy's tap order and rounded, the magnitude in T); cl, cr: the neighbour columns, reflected at the edges.
template <class T>
inline T sobel_magnitude(const T* up, const T* row, const T* down, int64_t cl, int64_t c, int64_t cr, T sqrt2) {
  double a = 0;
  a += -0.25 * double(up[cl]);
  a += -0.5 * double(up[c]);
  a += -0.25 * double(up[cr]);
  a += 0.25 * double(down[cl]);
  a += 0.5 * double(down[c]);
  a += 0.25 * double(down[cr]);
  double b = 0;
  b += -0.25 * double(up[cl]);
  b += 0.25 * double(up[cr]);
  b += -0.5 * double(row[cl]);
  b += 0.5 * double(row[cr]);
  b += -0.25 * double(down[cl]);
  b += 0.25 * double(down[cr]);
  return std::sqrt(add_rn(square_rn(T(a)), square_rn(T(b)))) / sqrt2;
}

// Pixel c of row r, anywhere: its value, Sobel magnitude and the eigenvalues of the Hessian of twice
// np.gradient (NumPy's float operations, one-sided differences at the edges) into o, as the flags select.
template <class T>
void pixel_features(const T* s, int64_t h, int64_t w, int64_t r, int64_t c, bool intensity, bool edges,
                    bool texture, T sqrt2, T* o) {
  const T* row = s + r * w;
  const T* up = s + (r > 0 ? r - 1 : 0) * w;          // reflect: row -1 is row 0
  const T* down = s + (r < h - 1 ? r + 1 : h - 1) * w;
  // np.gradient along rows at row j, column x
  auto gr = [&](int64_t j, int64_t x) -> T {
    if (j == 0) return sub_rn(s[w + x], s[x]);
    if (j == h - 1) return sub_rn(s[j * w + x], s[(j - 1) * w + x]);
    return sub_rn(s[(j + 1) * w + x], s[(j - 1) * w + x]) / T(2);
  };
  auto gc = [&](int64_t x) -> T {   // along columns, this row
    if (x == 0) return sub_rn(row[1], row[0]);
    if (x == w - 1) return sub_rn(row[x], row[x - 1]);
    return sub_rn(row[x + 1], row[x - 1]) / T(2);
  };
  int k = 0;
  if (intensity) o[k++] = row[c];
  if (edges) {
    const int64_t cl = c > 0 ? c - 1 : 0, cr = c < w - 1 ? c + 1 : w - 1;
    o[k++] = sobel_magnitude(up, row, down, cl, c, cr, sqrt2);
  }
  if (texture) {
    T h00, h01, h11;
    if (r == 0) h00 = sub_rn(gr(1, c), gr(0, c));
    else if (r == h - 1) h00 = sub_rn(gr(r, c), gr(r - 1, c));
    else h00 = sub_rn(gr(r + 1, c), gr(r - 1, c)) / T(2);
    if (c == 0) h01 = sub_rn(gr(r, 1), gr(r, 0)), h11 = sub_rn(gc(1), gc(0));
    else if (c == w - 1) h01 = sub_rn(gr(r, c), gr(r, c - 1)), h11 = sub_rn(gc(c), gc(c - 1));
    else h01 = sub_rn(gr(r, c + 1), gr(r, c - 1)) / T(2), h11 = sub_rn(gc(c + 1), gc(c - 1)) / T(2);
    deriv_math::sym2_eigvals(h00, h01, h11, o + k);
  }
}

// The features of one smoothed image s (h x w, each at least 2) over columns [c0, c1) of row r, pixel c's
// written from o + (c - c0) * F. Pixels two or more from every edge take branch-free loops over the tile
// (the same operations), vectorized, into `buf`.
template <class T>
void row_features(const T* s, int64_t h, int64_t w, int64_t r, int64_t c0, int64_t c1, bool intensity,
                  bool edges, bool texture, T sqrt2, T* o, int64_t F, T (*buf)[kTile]) {
  const bool inner_row = r >= 2 && r <= h - 3;
  const int64_t a = inner_row ? std::max<int64_t>(c0, 2) : c1, b = inner_row ? std::min<int64_t>(c1, w - 2) : c1;
  auto edge_pixel = [&](int64_t c) {
    pixel_features(s, h, w, r, c, intensity, edges, texture, sqrt2, o + (c - c0) * F);
  };
  for (int64_t c = c0; c < std::min(a, c1); ++c) edge_pixel(c);
  for (int64_t c = std::max(a, b); c < c1; ++c) edge_pixel(c);
  if (a >= b) return;
  const T *m2 = s + (r - 2) * w, *m1 = m2 + w, *p0 = m1 + w, *p1 = p0 + w, *p2 = p1 + w;
  const int64_t n = b - a;
  if (edges)
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = a + i;
      buf[0][i] = sobel_magnitude(m1, p0, p1, c - 1, c, c + 1, sqrt2);
    }
  if (texture)
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = a + i;
      const T h00 = sub_rn(sub_rn(p2[c], p0[c]) / T(2), sub_rn(p0[c], m2[c]) / T(2)) / T(2);
      const T h01 = sub_rn(sub_rn(p1[c + 1], m1[c + 1]) / T(2), sub_rn(p1[c - 1], m1[c - 1]) / T(2)) / T(2);
      const T h11 = sub_rn(sub_rn(p0[c + 2], p0[c]) / T(2), sub_rn(p0[c], p0[c - 2]) / T(2)) / T(2);
      T e[2];
      deriv_math::sym2_eigvals(h00, h01, h11, e);
      buf[1][i] = e[0];
      buf[2][i] = e[1];
    }
  T* q = o + (a - c0) * F;
  for (int64_t i = 0; i < n; ++i, q += F) {
    int k = 0;
    if (intensity) q[k++] = p0[a + i];
    if (edges) q[k++] = buf[0][i];
    if (texture) q[k++] = buf[1][i], q[k++] = buf[2][i];
  }
}

}  // namespace

void basic_features_2d(std::span<const View> smooth, const View& out, int64_t first, bool intensity, bool edges,
                       bool texture) {
  const char* op = "basic_features_2d";
  auto fail = [&](const std::string& what) { throw ValueError(std::string(op) + ": " + what); };
  if (smooth.empty()) fail("no smoothed images given");
  const View& s0 = smooth[0];
  if (s0.ndim != 2 || s0.shape[0] < 2 || s0.shape[1] < 2) fail("2-D images of at least 2 x 2 pixels expected");
  if (!is_float(s0.dtype)) throw TypeError(std::string(op) + ": images must be float32 or float64");
  for (const View& v : smooth) {
    require_same_shape(s0, v, op);
    if (v.dtype != s0.dtype || !v.c_contiguous() || v.device != Device::CPU)
      fail("images must be C-contiguous host arrays of one dtype");
  }
  const int64_t nf = int64_t(intensity) + int64_t(edges) + 2 * int64_t(texture);
  if (out.ndim != 3 || out.shape[0] != s0.shape[0] || out.shape[1] != s0.shape[1] || first < 0 ||
      out.shape[2] < first + nf * int64_t(smooth.size()) || out.dtype != s0.dtype || !out.c_contiguous() ||
      out.device != Device::CPU)
    fail("the output must be a C-contiguous host array (h, w, features) of the images' dtype, with room for "
         "the features from `first` on");
  const int64_t F = out.shape[2];
  const int64_t h = s0.shape[0], w = s0.shape[1], tiles = (w + kTile - 1) / kTile;
  auto run = [&]<class T>() {
    const T sqrt2 = T(std::sqrt(T(2)));   // np.sqrt(2, dtype=T)
    T* o = out.ptr<T>();
    parallel_for(h * tiles, 1, [&](int64_t t0, int64_t t1) {
      T buf[3][kTile];
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t r = t / tiles, c0 = (t % tiles) * kTile, c1 = std::min(w, c0 + kTile);
        for (size_t k = 0; k < smooth.size(); ++k)
          row_features<T>(smooth[k].ptr<T>(), h, w, r, c0, c1, intensity, edges, texture, sqrt2,
                          o + (r * w + c0) * F + first + int64_t(k) * nf, F, buf);
      }
    });
  };
  if (s0.dtype == DType::F64) run.template operator()<double>(); else run.template operator()<float>();
}

}  // namespace ndimg::feature

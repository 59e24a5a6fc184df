// The patch primitives' CPU schedules (non-local means': nl_means_cpu.cpp): bilateral in parallel over
// output rows (every output element's sums in scikit-image's order, so results match it bit for bit);
// rolling_ball's min-plus filter over output rows, one kernel element at a time along a contiguous row
// (vectorizable).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ndimg/parallel.hpp"
#include "restoration/patch.hpp"

namespace ndimg::restoration {
namespace {

using patch_math::color_bin;
using patch_math::coord_map;

// One output row at a time, the window's offsets outermost: every pixel of the row takes its neighbour at
// that offset in turn, so each pixel's sums run in scikit-image's order (bit for bit) while the work along
// the row vectorizes. The source rows are copied with their out-of-image neighbours as the mode maps them.
template <class T>
void bilateral_t(const View& image, int64_t win, char mode, double cval_d, double dist_scale_d, const View& clut,
                 const View& rlut, const View& outv) {
  const int64_t rows = image.shape[0], cols = image.shape[1], dims = image.shape[2];
  const T* img = image.ptr<const T>();
  const T* color_lut = clut.ptr<const T>();
  const T* range_lut = rlut.ptr<const T>();
  T* out = outv.ptr<T>();
  const int64_t ext = (win - 1) / 2, max_bin = clut.shape[0] - 1, wide = std::max<int64_t>(cols + 2 * ext, 0);
  const T cval = T(cval_d), dist_scale = T(dist_scale_d);
  parallel_for(rows, 1, [&](int64_t r0, int64_t r1) {
    std::vector<T> src(static_cast<size_t>(wide * dims)), totals(static_cast<size_t>(cols * dims)),
        weights(static_cast<size_t>(cols));
    for (int64_t r = r0; r < r1; ++r) {
      std::fill(totals.begin(), totals.end(), T(0));
      std::fill(weights.begin(), weights.end(), T(0));
      const T* centre = img + r * cols * dims;
      for (int64_t wr = -ext; wr <= ext; ++wr) {
        const int64_t rr = wr + r, kr = wr + ext;
        // the source row, ext neighbours either side
        for (int64_t i = 0; i < wide; ++i) {
          const int64_t cc = i - ext;
          const bool outside = mode == 'C' && (rr < 0 || rr >= rows || cc < 0 || cc >= cols);
          const T* px = outside ? nullptr : img + (coord_map(rows, rr, mode) * cols + coord_map(cols, cc, mode)) * dims;
          for (int64_t d = 0; d < dims; ++d) src[size_t(i * dims + d)] = outside ? cval : px[d];
        }
        for (int64_t kc = 0; kc <= 2 * ext; ++kc) {
          const T range_weight = range_lut[kr * win + kc];
          const T* v = src.data() + kc * dims;
          T* tot = totals.data();
          T* tw = weights.data();
          if (dims == 1) {
            for (int64_t c = 0; c < cols; ++c) {
              const T t = centre[c] - v[c];
              const T dist = std::sqrt(t * t);   // correctly rounded, as scikit-image's double sqrt rounded back
              const T weight = range_weight * color_lut[color_bin(dist * dist_scale, max_bin)];
              tot[c] += v[c] * weight;
              tw[c] += weight;
            }
            continue;
          }
          for (int64_t c = 0; c < cols; ++c) {
            T dist = 0;
            for (int64_t d = 0; d < dims; ++d) {
              const T t = centre[c * dims + d] - v[c * dims + d];
              dist += t * t;
            }
            dist = std::sqrt(dist);
            const T weight = range_weight * color_lut[color_bin(dist * dist_scale, max_bin)];
            for (int64_t d = 0; d < dims; ++d) tot[c * dims + d] += v[c * dims + d] * weight;
            tw[c] += weight;
          }
        }
      }
      for (int64_t c = 0; c < cols; ++c)
        for (int64_t d = 0; d < dims; ++d) out[(r * cols + c) * dims + d] = totals[size_t(c * dims + d)] / weights[size_t(c)];
    }
  });
}

template <class T>
void rolling_ball_t(const View& padded, const View& diff, const View& outv, bool nansafe) {
  const int nd = outv.ndim;
  const int64_t width = outv.shape[nd - 1], lines = outv.size() / width;
  int64_t pstride[kMaxDim];
  for (int64_t d = nd - 1, s = 1; d >= 0; s *= padded.shape[d], --d) pstride[d] = s;
  // the kernel's terms: their offset in the padded image and value (+inf ones can never be the minimum,
  // but a NaN they make counts in the NaN-safe filter)
  struct Term {
    int64_t off;
    T v;
  };
  std::vector<Term> terms;
  const T* dv = diff.ptr<const T>();
  for (int64_t k = 0; k < diff.size(); ++k) {
    if (!nansafe && dv[k] == std::numeric_limits<T>::infinity()) continue;
    int64_t off = 0, r = k;
    for (int d = nd - 1; d >= 0; r /= diff.shape[d], --d) off += (r % diff.shape[d]) * pstride[d];
    terms.push_back({off, dv[k]});
  }
  const T* src = padded.ptr<const T>();
  T* out = outv.ptr<T>();
  parallel_for(lines, 1, [&](int64_t l0, int64_t l1) {
    std::vector<unsigned char> nan(nansafe ? width : 0);
    for (int64_t line = l0; line < l1; ++line) {
      int64_t base = 0;
      for (int64_t d = nd - 2, r = line; d >= 0; r /= outv.shape[d], --d) base += (r % outv.shape[d]) * pstride[d];
      T* o = out + line * width;
      std::fill(o, o + width, std::numeric_limits<T>::infinity());
      if (nansafe) std::fill(nan.begin(), nan.end(), 0);
      for (const Term& term : terms) {
        const T* p = src + base + term.off;
        const T v = term.v;
        for (int64_t x = 0; x < width; ++x) {
          const T t = p[x] + v;
          o[x] = t < o[x] ? t : o[x];
        }
        if (nansafe)
          for (int64_t x = 0; x < width; ++x) nan[x] |= std::isnan(p[x] + v);
      }
      if (nansafe)
        for (int64_t x = 0; x < width; ++x)
          if (nan[x]) o[x] = std::numeric_limits<T>::quiet_NaN();
    }
  });
}

}  // namespace

void bilateral_cpu(const View& image, int64_t win_size, char mode, double cval, double dist_scale,
                   const View& color_lut, const View& range_lut, const View& out) {
  if (image.dtype == DType::F32)
    bilateral_t<float>(image, win_size, mode, cval, dist_scale, color_lut, range_lut, out);
  else
    bilateral_t<double>(image, win_size, mode, cval, dist_scale, color_lut, range_lut, out);
}

void rolling_ball_cpu(const View& padded, const View& diff, const View& out, bool nansafe) {
  if (padded.dtype == DType::F32)
    rolling_ball_t<float>(padded, diff, out, nansafe);
  else
    rolling_ball_t<double>(padded, diff, out, nansafe);
}

}  // namespace ndimg::restoration

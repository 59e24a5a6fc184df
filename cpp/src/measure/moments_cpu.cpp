// CPU schedule of the moments per label: the elements split into parts in C order, each part adding into its
// own tables (the first part into out), merged part after part. A stretch of elements in one slot adds into a
// local accumulator first (labels come in regions).
#include <algorithm>
#include <vector>

#include "core/index.hpp"
#include "core/parts.hpp"
#include "measure/moments.hpp"
#include "ndimg/dispatch.hpp"

namespace ndimg::measure {

void label_moments_cpu(const View& in, const View& slots, const View& origin, const View& center,
                       const View& spacing, int order, const View& out) {
  const int nd = slots.ndim;
  const int64_t n = slots.size(), ns = out.shape[0], terms = out.shape[1], width = out.size();
  // a fixed number of parts (by n), so that sums are the same bits at every thread count; fewer where the
  // tables would cost more to zero and merge than the pass
  const int64_t parts =
      std::max<int64_t>(1, std::min<int64_t>(fixed_parts(n), std::max<int64_t>(1, n / (4 * width))));
  std::vector<double> extra((parts - 1) * width, 0.0);
  double* o = out.ptr<double>();
  const auto table = [&](int64_t p) { return p == 0 ? o : extra.data() + (p - 1) * width; };
  const int64_t* org = origin.ptr<int64_t>();
  const double* ctr = center.ptr<double>();
  const double* sp = spacing.ptr<double>();
  const int32_t* sl = slots.ptr<int32_t>();

  const auto run = [&]<class T>(const T* src) {
    for_parts(n, parts, [&](int64_t p, int64_t a, int64_t b) {
      double* t = table(p);
      int64_t idx[kMaxMomentDim];
      for (int64_t d = nd - 1, rem = a; d >= 0; --d) {
        idx[d] = rem % slots.shape[d];
        rem /= slots.shape[d];
      }
      double acc[kMaxMomentTerms] = {}, c[kMaxMomentDim];
      int32_t cur = -1;
      const auto flush = [&]() {
        double* dst = t + int64_t(cur) * terms;
        for (int64_t k = 0; k < terms; ++k) dst[k] += acc[k], acc[k] = 0;
      };
      const auto visit = [&](int64_t i, double w) {
        const int32_t s = sl[i];
        if (s >= 0 && s < ns) {
          if (s != cur) {
            if (cur >= 0) flush();
            cur = s;
          }
          moment_coords(idx, nd, s, org, ctr, sp, c);
          add_moment_terms(c, nd, order, w, acc);
        }
        for (int d = nd - 1; d >= 0 && ++idx[d] == slots.shape[d]; --d) idx[d] = 0;
      };
      if (src == nullptr) {
        for (int64_t i = a; i < b; ++i) visit(i, 1.0);
      } else {
        int64_t i = a;
        for_range2(in, slots, a, b, [&](int64_t oi, int64_t) { visit(i++, double(src[oi])); });
      }
      if (cur >= 0) flush();
    });
  };
  if (in.size() == 0)
    run(static_cast<const double*>(nullptr));
  else
    dispatch_dtype(in.dtype, [&]<class T>() { run(in.ptr<T>()); });
  if (parts > 1)
    parallel_for(width, 4096, [&](int64_t k0, int64_t k1) {
      for (int64_t p = 1; p < parts; ++p) {
        const double* src = table(p);
        for (int64_t k = k0; k < k1; ++k) o[k] += src[k];
      }
    });
}

// One image's moments: the lines split into a fixed number of parts (by their count: the same sums at every
// thread count), each part's terms added in order at the end. A line's sums are dot products of its values
// (as doubles) with the powers of the last axis' coordinates (a table), four independent sums each (vectors).
void image_moments_cpu(const View& in, const double* center, const double* spacing, int order, double* out) {
  const int nd = in.ndim, last = nd - 1, K = order + 1;
  int terms = 1;
  for (int d = 0; d < nd; ++d) terms *= K;
  const int64_t width = in.shape[last], lines = width ? in.size() / width : 0;
  std::vector<double> pw(size_t(width * K));  // [k][x]
  for (int64_t x = 0; x < width; ++x) {
    const double c = moment_coord(x, spacing[last], center[last]);
    double p = 1.0;
    for (int k = 0; k < K; ++k, p *= c) pw[k * width + x] = p;
  }
  const int64_t parts = std::max<int64_t>(1, std::min(lines, fixed_parts(in.size())));
  std::vector<double> acc(size_t(parts * terms), 0.0);
  dispatch_dtype(in.dtype, [&]<class T>() {
    const T* src = in.ptr<T>();
    const int64_t xs = in.strides[last];
    for_parts(lines, parts, [&](int64_t part, int64_t l0, int64_t l1) {
      double* a = acc.data() + part * terms;
      std::vector<double> w(static_cast<size_t>(width));
      for (int64_t l = l0; l < l1; ++l) {
        double outer[kMaxMomentDim];
        const int64_t base = line_origin(l, last, in.shape.data(), in.strides.data(), spacing, center, outer);
        const T* line = src + base;
        if (xs == 1)
          for (int64_t x = 0; x < width; ++x) w[x] = double(line[x]);
        else
          for (int64_t x = 0; x < width; ++x) w[x] = double(line[x * xs]);
        double s[kMaxMomentOrder + 1];
        for (int k = 0; k < K; ++k) {
          const double* p = pw.data() + k * width;
          double q[4] = {};
          int64_t x = 0;
          for (; x + 4 <= width; x += 4)
            for (int j = 0; j < 4; ++j) q[j] += w[x + j] * p[x + j];
          for (; x < width; ++x) q[0] += w[x] * p[x];
          s[k] = (q[0] + q[1]) + (q[2] + q[3]);
        }
        for (int t = 0; t < terms; ++t) a[t] += line_term(s[t % K], outer, nd, order, t);
      }
    });
  });
  for (int t = 0; t < terms; ++t) {
    double v = 0.0;
    for (int64_t p = 0; p < parts; ++p) v += acc[p * terms + t];
    out[t] = v;
  }
}

}  // namespace ndimg::measure

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

}  // namespace ndimg::measure

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/output.hpp"
#include "ndimage/correlate1d.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::ndimage {
int weight_symmetry(std::span<const double> w) {
  const size_t n = w.size(), c = n / 2;
  if (!(n & 1)) return 0;
  auto all = [&](auto pred) {
    for (size_t i = 1; i <= c; ++i)
      if (!pred(w[c + i], w[c - i])) return false;
    return true;
  };
  constexpr double eps = 2.220446049250313e-16;  // scipy's DBL_EPSILON test
  if (all([](double a, double b) { return std::abs(a - b) <= eps; })) return 1;
  if (all([](double a, double b) { return std::abs(a + b) <= eps; })) return -1;
  return 0;
}

namespace {

// Byte range [lo, hi) a view touches.
std::pair<const char*, const char*> extent(const View& v) {
  int64_t lo = 0, hi = 0;
  for (int d = 0; d < v.ndim; ++d) {
    int64_t span = (v.shape[d] - 1) * v.strides[d];
    (span < 0 ? lo : hi) += span;
  }
  auto base = static_cast<const char*>(v.data);
  auto sz = int64_t(dtype_size(v.dtype));
  return {base + lo * sz, base + (hi + 1) * sz};
}

bool overlaps(const View& a, const View& b) {
  auto [alo, ahi] = extent(a);
  auto [blo, bhi] = extent(b);
  return alo < bhi && blo < ahi;
}

}  // namespace

void separable(const View& in, const View& out, std::span<const Pass1d> passes, StreamHandle stream) {
  const char* op = "separable";
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  if (passes.empty()) throw ValueError("separable: no passes given");
  std::vector<Pass1d> ps(passes.begin(), passes.end());
  for (auto& p : ps) {
    p.axis = normalize_axis(p.axis, in.ndim, op);
    if (p.mean) {
      // a mean's weights are its count of ones, made only for windows the bit-identical schedules take
      p.size = p.size > 0 ? p.size : int64_t(p.weights.size());
      if (p.size < 1) throw ValueError("separable: incorrect filter size");
      check_origin(p.size, p.origin, op);
      if (long_mean(p.size, in.shape[p.axis])) p.weights.clear();
      else p.weights.assign(size_t(p.size), 1.0);
      continue;
    }
    if (p.weights.empty()) throw ValueError("separable: no filter weights given");
    check_origin(int64_t(p.weights.size()), p.origin, op);
  }
  if (in.size() == 0) return;
  if (in.device == Device::CUDA) {
    if (overlaps(in, out)) throw ValueError("separable: on CUDA, input and output must not overlap");
    NDIMG_ON_CUDA(op, separable_cuda(in, out, ps, stream));
    return;
  }
  const View mid = between_passes(out);
  for (size_t i = 0; i < ps.size(); ++i) pass1d_cpu(i == 0 ? in : mid, i + 1 == ps.size() ? out : mid, ps[i]);
}

void correlate1d(const View& in, const View& out, std::span<const double> w, int axis, Mode mode, double cval,
                 int origin, StreamHandle stream) {
  Pass1d p{axis, std::vector<double>(w.begin(), w.end()), mode, cval, origin, false};
  separable(in, out, std::span<const Pass1d>(&p, 1), stream);
}

void uniform_filter1d(const View& in, const View& out, int64_t size, int axis, Mode mode, double cval, int origin,
                      StreamHandle stream) {
  if (size < 1) throw ValueError("uniform_filter1d: incorrect filter size");
  Pass1d p{axis, {}, mode, cval, origin, true, size};
  separable(in, out, std::span<const Pass1d>(&p, 1), stream);
}

namespace {

// A mean over a long window (long_mean), line by line over the pool; each line is read whole before it
// is written, so in may be out.
template <class TI>
void long_mean_cpu(const View& in, const View& out, const Pass1d& p) {
  const int axis = p.axis;
  const int64_t n = in.shape[axis], left = filter_reach(p.size, p.origin).left, si = in.strides[axis];
  with_kernel_output_cpu<TI>(out, [&]<class TO>(const View& o) {
    const int64_t so = o.strides[axis];
    parallel_for(in.size() / n, std::max<int64_t>(1, 16384 / n), [&](int64_t l0, int64_t l1) {
      std::vector<double> x(static_cast<size_t>(n)), res(static_cast<size_t>(n));
      for (int64_t l = l0; l < l1; ++l) {
        const TI* a = in.ptr<TI>() + line_offset(in, axis, l);
        for (int64_t k = 0; k < n; ++k) x[size_t(k)] = double(a[k * si]);
        long_mean_line([&](int64_t k) { return x[size_t(k)]; }, n, p.mode, p.cval, left, p.size,
                       [&](int64_t i, double v) { res[size_t(i)] = v; });
        TO* b = o.ptr<TO>() + line_offset(o, axis, l);
        for (int64_t i = 0; i < n; ++i) b[i * so] = cast_to<TO>(res[size_t(i)]);
      }
    });
  });
}

}  // namespace

void pass1d_cpu(const View& in, const View& out, const Pass1d& p) {
  dispatch_dtype(in.dtype, [&]<class TI>() {
    if (p.mean && p.weights.empty()) long_mean_cpu<TI>(in, out, p);
    else pass1d_cpu_typed<TI>(in, out, p);
  });
}

}  // namespace ndimg::ndimage

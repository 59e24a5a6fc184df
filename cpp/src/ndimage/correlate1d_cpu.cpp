#include <cmath>
#include <string>
#include <vector>

#include "ndimage/correlate1d.hpp"

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
    if (p.weights.empty()) throw ValueError("separable: no filter weights given");
    p.axis = normalize_axis(p.axis, in.ndim, op);
    check_origin(int64_t(p.weights.size()), p.origin, op);
  }
  if (in.size() == 0) return;
  if (in.device == Device::CUDA) {
    if (overlaps(in, out)) throw ValueError("separable: on CUDA, input and output must not overlap");
    NDIMG_ON_CUDA(op, separable_cuda(in, out, ps, stream));
    return;
  }
  for (size_t i = 0; i < ps.size(); ++i) pass1d_cpu(i == 0 ? in : out, out, ps[i]);
}

void correlate1d(const View& in, const View& out, std::span<const double> w, int axis, Mode mode, double cval,
                 int origin, StreamHandle stream) {
  Pass1d p{axis, std::vector<double>(w.begin(), w.end()), mode, cval, origin, false};
  separable(in, out, std::span<const Pass1d>(&p, 1), stream);
}

void uniform_filter1d(const View& in, const View& out, int64_t size, int axis, Mode mode, double cval, int origin,
                      StreamHandle stream) {
  if (size < 1) throw ValueError("uniform_filter1d: incorrect filter size");
  Pass1d p{axis, std::vector<double>(size_t(size), 1.0), mode, cval, origin, true};
  separable(in, out, std::span<const Pass1d>(&p, 1), stream);
}

void pass1d_cpu(const View& in, const View& out, const Pass1d& p) {
  dispatch_dtype(in.dtype, [&]<class TI>() { pass1d_cpu_typed<TI>(in, out, p); });
}

}  // namespace ndimg::ndimage

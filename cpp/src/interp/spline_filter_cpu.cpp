// (the ABI note is moot: every function taking or returning a vector of doubles is inlined)
#pragma GCC diagnostic ignored "-Wpsabi"
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "interp/spline_filter.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::interp {

void spline_filter(const View& in, const View& out, int order, std::span<const int> axes, SplineBoundary b,
                   StreamHandle stream) {
  const char* op = "spline_filter";
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  const SplinePoles p = spline_poles(order);
  if (p.count == 0) throw ValueError("spline_filter: spline order not supported");
  std::vector<int> ax(axes.begin(), axes.end());
  for (int& a : ax) a = normalize_axis(a, in.ndim, op);
  if (in.size() == 0 || ax.empty()) return;
  if (in.device == Device::CUDA) {
    NDIMG_ON_CUDA(op, spline_filter_cuda(in, out, p, ax, b, stream));
    return;
  }
  for (size_t k = 0; k < ax.size(); ++k) spline_pass_cpu(k == 0 ? in : out, out, p, ax[k], b);
}

namespace {

// Lines are filtered kLanes at a time, side by side ([position][line] in a buffer of doubles), each lane
// of a GCC vector the same operations in the same order as scipy's scalar loop (no FMA: the build has
// -ffp-contract=off and the x86 clone enables AVX2 only).
// The lanes are two AVX vectors: two independent recursions in flight hide the latency of each step.
using V4 = double __attribute__((vector_size(32)));
struct V {
  V4 lo, hi;
};
#define NDIMG_V_OP(op)                                                                                    \
  inline __attribute__((always_inline)) V operator op(V a, V b) { return {a.lo op b.lo, a.hi op b.hi}; } \
  inline __attribute__((always_inline)) V operator op(V a, double b) { return {a.lo op b, a.hi op b}; }
NDIMG_V_OP(+)
NDIMG_V_OP(-)
NDIMG_V_OP(*)
NDIMG_V_OP(/)
#undef NDIMG_V_OP
constexpr int kLanes = int(sizeof(V) / sizeof(double));

// Reading `count` elements at src[k * stride] into dst[k * step] as doubles, and writing back with
// scipy's C casts: chosen once per pass by dtype, so the filter itself is compiled once.
using LoadFn = void (*)(const void* src, int64_t stride, int64_t count, double* dst, int64_t step);
using StoreFn = void (*)(const double* src, int64_t step, int64_t count, void* dst, int64_t stride);
template <class T>
void load(const void* src, int64_t stride, int64_t count, double* dst, int64_t step) {
  const T* a = static_cast<const T*>(src);
  for (int64_t k = 0; k < count; ++k) dst[k * step] = double(a[k * stride]);
}
template <class T>
void store(const double* src, int64_t step, int64_t count, void* dst, int64_t stride) {
  T* o = static_cast<T*>(dst);
  for (int64_t k = 0; k < count; ++k) o[k * stride] = cast_to<T>(src[k * step]);
}

struct Pass {
  const View &in, &out;
  SplinePoles p;
  LinePowers pw;
  int axis;
  SplineBoundary b;
  int64_t n, nlines;
  LoadFn ld;
  StoreFn st;

  char* at(const View& v, int64_t line, int64_t pos) const {
    return static_cast<char*>(v.data) +
           (line_offset(v, axis, line) + pos * v.strides[axis]) * int64_t(dtype_size(v.dtype));
  }

  // Lines [l0, l0 + count) (count <= kLanes) through buf (n rows of kLanes doubles).
  __attribute__((always_inline)) void bundle(int64_t l0, int64_t count, double* buf) const {
    const int64_t is = in.strides[axis], os = out.strides[axis];
    const int64_t ies = int64_t(dtype_size(in.dtype)), oes = int64_t(dtype_size(out.dtype));
    // neighbouring lines one element apart (a pass along a non-last axis): read and write by position
    bool side_by_side = count > 1;
    const int64_t ib = line_offset(in, axis, l0), ob = line_offset(out, axis, l0);
    for (int64_t k = 1; side_by_side && k < count; ++k)
      side_by_side = line_offset(in, axis, l0 + k) == ib + k && line_offset(out, axis, l0 + k) == ob + k;
    const char* a = at(in, l0, 0);
    if (side_by_side)
      for (int64_t i = 0; i < n; ++i) ld(a + i * is * ies, 1, count, buf + i * kLanes, 1);
    else
      for (int64_t k = 0; k < count; ++k) ld(at(in, l0 + k, 0), is, n, buf + k, kLanes);
    for (int64_t k = count; k < kLanes; ++k)  // lanes past the last line: zeros
      for (int64_t i = 0; i < n; ++i) buf[i * kLanes + k] = 0;
    V* c = reinterpret_cast<V*>(buf);
    spline_filter_line<V>([c](int64_t i) -> V& { return c[i]; }, n, p, pw, b);
    char* o = at(out, l0, 0);
    if (side_by_side)
      for (int64_t i = 0; i < n; ++i) st(buf + i * kLanes, 1, count, o + i * os * oes, 1);
    else
      for (int64_t k = 0; k < count; ++k) st(buf + k, kLanes, n, at(out, l0 + k, 0), os);
  }

  __attribute__((always_inline)) void run(int64_t g0, int64_t g1) const {
    // n rows of kLanes doubles at the first address aligned for V
    std::vector<double> lines(static_cast<size_t>(n * kLanes + kLanes));
    const auto a = reinterpret_cast<uintptr_t>(lines.data());
    double* buf = reinterpret_cast<double*>(a + (-a & (sizeof(V) - 1)));
    for (int64_t g = g0; g < g1; ++g) bundle(g * kLanes, std::min<int64_t>(kLanes, nlines - g * kLanes), buf);
  }
};

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) void run_avx2(const Pass& job, int64_t a, int64_t b) { job.run(a, b); }
bool have_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#endif

}  // namespace

void spline_pass_cpu(const View& in, const View& out, const SplinePoles& p, int axis, SplineBoundary b) {
  const int64_t n = in.shape[axis], nlines = in.size() / n;
  const LoadFn ld = dispatch_dtype(in.dtype, []<class T>() { return LoadFn(&load<T>); });
  const StoreFn st = dispatch_dtype(out.dtype, []<class T>() { return StoreFn(&store<T>); });
  if (n == 1) {  // scipy copies lines of one value (through its double buffer)
    const Pass job{in, out, p, line_powers(p, n), axis, b, n, nlines, ld, st};
    parallel_for(nlines, 4096, [&](int64_t l0, int64_t l1) {
      for (int64_t l = l0; l < l1; ++l) {
        double v;
        ld(job.at(in, l, 0), 1, 1, &v, 1);
        st(&v, 1, 1, job.at(out, l, 0), 1);
      }
    });
    return;
  }
  const Pass job{in, out, p, line_powers(p, n), axis, b, n, nlines, ld, st};
  void (*fn)(const Pass&, int64_t, int64_t) = [](const Pass& j, int64_t a, int64_t e) { j.run(a, e); };
#if defined(__x86_64__) && defined(__GNUC__)
  if (have_avx2()) fn = &run_avx2;
#endif
  const int64_t bundles = (nlines + kLanes - 1) / kLanes;
  parallel_for(bundles, std::max<int64_t>(1, 8192 / (n * kLanes)), [&](int64_t a, int64_t e) { fn(job, a, e); });
}

}  // namespace ndimg::interp

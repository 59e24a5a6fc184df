// CPU schedules of the derivative features: one pass over the pixels on the pool.
#include "feature/deriv.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::feature {
namespace {
using namespace deriv_math;
constexpr int64_t kGrain = 4096;
}  // namespace

void sym_eigvals_cpu(int n, std::span<const View> elems, const View& out) {
  const int64_t plane = elems[0].size();
  dispatch_sym(n, [&]<int N>() {
    auto run = [&]<class T>() {
      const HessianPtrs<T> p = hessian_ptrs<T>(elems);
      T* o = out.ptr<T>();
      parallel_for(plane, kGrain, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) pixel_eigvals<N, T>(p, i, plane, o);
      });
    };
    if (out.dtype == DType::F64) run.template operator()<double>(); else run.template operator()<float>();
  });
}

void hessian_det_box_cpu(const View& integral, const View& out, double sigma) {
  const int64_t h = integral.shape[0], w = integral.shape[1];
  const BoxSizes b = box_sizes(sigma);
  const double* ii = integral.ptr<double>();
  auto run = [&]<class O>() {
    O* o = out.ptr<O>();
    parallel_for(h, std::max<int64_t>(1, kGrain / std::max<int64_t>(w, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = 0; c < w; ++c) o[r * w + c] = O(hessian_det_at(ii, h, w, r, c, b));
    });
  };
  if (out.dtype == DType::F64) run.template operator()<double>(); else run.template operator()<float>();
}

}  // namespace ndimg::feature

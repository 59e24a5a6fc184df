// CPU schedules of the ridge filters: one pass over the pixels on the pool.
#include <limits>
#include <mutex>

#include "filters/ridges.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::filters {
namespace {

using namespace ridge_math;

constexpr int64_t kGrain = 4096;

}  // namespace

double ridge_max_cpu(Ridge kind, std::span<const View> hessian, const RidgeParams& p) {
  double result = -std::numeric_limits<double>::infinity();
  dispatch_ridge<Ridge::Meijering, Ridge::Norm>(kind, hessian[0].ndim, [&]<Ridge K, int N>() {
    dispatch_ridge_types(hessian[0].dtype, hessian[0].dtype, [&]<class T, class>() {
      const HessianPtrs<T> hp = hessian_ptrs<T>(hessian);
      const Consts<T> k(p);
      std::mutex m;
      T best = -std::numeric_limits<T>::infinity();
      parallel_for(hessian[0].size(), kGrain, [&](int64_t i0, int64_t i1) {
        T local = -std::numeric_limits<T>::infinity();
        T h[n_elems(N)];
        for (int64_t i = i0; i < i1; ++i) {
          gather<N>(hp, i, h);
          local = nan_max(local, measure<K, N>(h, k));
        }
        std::lock_guard<std::mutex> lk(m);
        best = nan_max(best, local);
      });
      result = double(best);
    });
  });
  return result;
}

void ridge_accumulate_cpu(Ridge kind, std::span<const View> hessian, const View& acc, const RidgeParams& p) {
  dispatch_ridge<Ridge::Frangi, Ridge::Sato, Ridge::Meijering>(kind, acc.ndim, [&]<Ridge K, int N>() {
    dispatch_ridge_types(hessian[0].dtype, acc.dtype, [&]<class T, class A>() {
      const HessianPtrs<T> hp = hessian_ptrs<T>(hessian);
      const Consts<T> k(p);
      A* out = acc.ptr<A>();
      const A scale = A(p.scale);
      parallel_for(acc.size(), kGrain, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) {
          T h[n_elems(N)];
          gather<N>(hp, i, h);
          out[i] = fold<K, N>(out[i], h, k, scale, p.fill);
        }
      });
    });
  });
}

}  // namespace ndimg::filters

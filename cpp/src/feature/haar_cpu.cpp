// Haar-like features' CPU schedule: the features split over the pool.
#include "feature/haar.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::feature {

void haar_features_cpu(const View& ii, const View& rects, const View& out) {
  const int64_t n = rects.shape[0], nr = rects.shape[1];
  const int64_t* q = rects.ptr<int64_t>();
  dispatch_dtype(ii.dtype, [&]<class T>() {
    const T* src = ii.ptr<T>();
    auto* o = out.ptr<haar_out_t<T>>();
    parallel_for(n, 4096, [&](int64_t a, int64_t b) {
      for (int64_t f = a; f < b; ++f) o[f] = haar_feature(src, ii.strides[0], ii.strides[1], q + f * nr * 4, nr);
    });
  });
}

}  // namespace ndimg::feature

// Haar-like features' CPU schedule: the features split over the pool.
#include <algorithm>

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

void haar_rects_cpu(const HaarWindow& w, const View& out) {
  int64_t* o = out.ptr<int64_t>();
  const int64_t nq = 4 * w.k;
  parallel_for(w.triples(), 64, [&](int64_t a, int64_t b) {
    for (int64_t t = a; t < b; ++t)
      w.visit(t, [&](int64_t f, const int64_t* q) { std::copy(q, q + nq, o + f * nq); });
  });
}

void haar_window_features_cpu(const View& ii, const HaarWindow& w, const View& out) {
  dispatch_dtype(ii.dtype, [&]<class T>() {
    const T* src = ii.ptr<T>();
    auto* o = out.ptr<haar_out_t<T>>();
    parallel_for(w.triples(), 64, [&](int64_t a, int64_t b) {
      for (int64_t t = a; t < b; ++t)
        w.visit(t, [&](int64_t f, const int64_t* q) { o[f] = haar_feature(src, ii.strides[0], ii.strides[1], q, w.k); });
    });
  });
}

}  // namespace ndimg::feature

// CPU schedule of Canny's non-maximum suppression: bands of rows on the pool.
#include "feature/canny.hpp"
#include "feature/each_pixel.hpp"

namespace ndimg::feature {

void canny_suppress_cpu(const View& gi, const View& gj, const View& mask, double low, double high, const View& out) {
  auto run = [&]<class T>() {
    const CannySuppress<T> f{gi.ptr<T>(), gj.ptr<T>(), mask.ptr<uint8_t>(), out.ptr<uint8_t>(), gi.shape[0],
                             gi.shape[1], low, high};
    each_pixel_cpu(gi.shape[0], gi.shape[1], 4, f);
  };
  if (gi.dtype == DType::F32) run.template operator()<float>();
  else run.template operator()<double>();
}

}  // namespace ndimg::feature

// CUDA schedule of the moments per label: each thread takes a short run of consecutive elements, adds the
// terms of a stretch in one slot in registers and flushes them with global atomics when the slot changes.
#include <algorithm>

#include "core/cuda.cuh"
#include "core/index.hpp"
#include "measure/moments.hpp"
#include "ndimg/dispatch.hpp"

namespace ndimg::measure {
namespace {

constexpr unsigned kThreads = 128;
constexpr unsigned kMaxBlocks = 8192;
constexpr int kRun = 16;

struct MomentArgs {
  const int32_t* slots;
  const int64_t* origin;
  const double* center;
  const double* spacing;
  int64_t shape[kMaxMomentDim];
  int64_t n, ns;
  int nd, order, terms;
  double* out;
};

template <class T>
__global__ void label_moments_kernel(MomentArgs a, const T* in, Layout l) {
  const int64_t runs = (a.n + kRun - 1) / kRun;
  NDIMG_GRID_STRIDE(r, runs) {
    const int64_t b0 = r * kRun, b1 = min(b0 + kRun, a.n);
    int64_t idx[kMaxMomentDim];
    int64_t rem = b0;
    for (int d = a.nd - 1; d >= 0; --d) {
      idx[d] = rem % a.shape[d];
      rem /= a.shape[d];
    }
    double acc[kMaxMomentTerms], c[kMaxMomentDim];
    for (int k = 0; k < a.terms; ++k) acc[k] = 0;
    int32_t cur = -1;
    for (int64_t i = b0; i < b1; ++i) {
      const int32_t s = a.slots[i];
      if (s >= 0 && s < a.ns) {
        if (s != cur) {
          if (cur >= 0)
            for (int k = 0; k < a.terms; ++k) atomicAdd(a.out + int64_t(cur) * a.terms + k, acc[k]), acc[k] = 0;
          cur = s;
        }
        moment_coords(idx, a.nd, s, a.origin, a.center, a.spacing, c);
        add_moment_terms(c, a.nd, a.order, in ? double(in[in_offset(l, i)]) : 1.0, acc);
      }
      for (int d = a.nd - 1; d >= 0 && ++idx[d] == a.shape[d]; --d) idx[d] = 0;
    }
    if (cur >= 0)
      for (int k = 0; k < a.terms; ++k) atomicAdd(a.out + int64_t(cur) * a.terms + k, acc[k]);
  }
}

}  // namespace

void label_moments_cuda(const View& in, const View& slots, const View& origin, const View& center,
                        const View& spacing, int order, const View& out, StreamHandle stream) {
  const char* op = "measure_label_moments";
  cuda::DeviceGuard guard(slots.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  MomentArgs a{slots.ptr<int32_t>(), origin.ptr<int64_t>(), center.ptr<double>(), spacing.ptr<double>(), {},
               slots.size(), out.shape[0], slots.ndim, order, int(out.shape[1]), out.ptr<double>()};
  for (int d = 0; d < slots.ndim; ++d) a.shape[d] = slots.shape[d];
  const int64_t runs = (a.n + kRun - 1) / kRun;
  const unsigned g = std::min<unsigned>(cuda::blocks_for(runs, kThreads), kMaxBlocks);
  if (in.size() == 0) {
    label_moments_kernel<double><<<g, kThreads, 0, s>>>(a, nullptr, flat_layout(slots, slots));
  } else {
    dispatch_dtype(in.dtype, [&]<class T>() {
      label_moments_kernel<T><<<g, kThreads, 0, s>>>(a, in.ptr<T>(), flat_layout(in, slots));
    });
  }
  cuda::check_launch(op);
}

}  // namespace ndimg::measure

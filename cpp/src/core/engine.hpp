// Routing an operation to its engine. CUDA schedules exist only in builds with nvcc; elsewhere a CUDA
// view gets a clear error instead of a link failure.
#pragma once
#include <string>

#include "ndimg/array.hpp"

#define NDIMG_NO_CUDA(op) throw ::ndimg::Error(std::string(op) + ": this ndimg was built without the CUDA engine")
// NDIMG_ON_CUDA(op, statements): the statements in CUDA builds. NDIMG_CUDA_CALL(op, call): the call, an
// expression, in CUDA builds.
#ifdef NDIMG_WITH_CUDA
#define NDIMG_ON_CUDA(op, ...) __VA_ARGS__
#define NDIMG_CUDA_CALL(op, call) (call)
#else
#define NDIMG_ON_CUDA(op, ...) NDIMG_NO_CUDA(op)
#define NDIMG_CUDA_CALL(op, call) NDIMG_NO_CUDA(op)
#endif

// The last statement of a primitive's entry, once its arguments are validated: returns the result of the
// schedule for the engine the view lives on.
#define NDIMG_ROUTE(view, op, cpu_call, cuda_call) \
  return (view).device == ::ndimg::Device::CUDA ? NDIMG_CUDA_CALL(op, cuda_call) : (cpu_call)

namespace ndimg {

inline int normalize_axis(int axis, int ndim, const char* op) {
  if (axis < -ndim || axis >= ndim)
    throw ValueError(std::string(op) + ": axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                     std::to_string(ndim));
  return axis < 0 ? axis + ndim : axis;
}

// Shape and strides of a C-order traversal, passed by value to CUDA kernels and used by CPU loops.
struct Layout {
  int ndim = 0;
  int64_t shape[kMaxDim];
  int64_t in_strides[kMaxDim];
  int64_t out_strides[kMaxDim];
};

inline Layout make_layout(const View& in, const View& out) {
  Layout l;
  l.ndim = in.ndim;
  for (int d = 0; d < in.ndim; ++d) {
    l.shape[d] = in.shape[d];
    l.in_strides[d] = in.strides[d];
    l.out_strides[d] = out.strides[d];
  }
  return l;
}

// The same traversal for an elementwise operation or a reduction (the axes themselves do not matter): axes
// of length 1 dropped, and an axis merged into the one before it where both views step over it contiguously,
// so that contiguous views are one axis and a flat index costs no divisions (flat_offset).
inline Layout flat_layout(const View& in, const View& out) {
  Layout l;
  for (int d = 0; d < in.ndim; ++d) {
    const int64_t n = in.shape[d];
    if (n == 1) continue;
    const int p = l.ndim - 1;
    if (p >= 0 && l.in_strides[p] == in.strides[d] * n && l.out_strides[p] == out.strides[d] * n) {
      l.shape[p] *= n;
      l.in_strides[p] = in.strides[d];
      l.out_strides[p] = out.strides[d];
      continue;
    }
    l.shape[l.ndim] = n;
    l.in_strides[l.ndim] = in.strides[d];
    l.out_strides[l.ndim] = out.strides[d];
    ++l.ndim;
  }
  return l;
}

}  // namespace ndimg

// stack_channels: planes interleaved into a channels-last array in one sweep on the pool (NumPy's per-plane
// assignments each write every channel-th element, one pass per plane).
#include <cstring>
#include <string>

#include "core/engine.hpp"
#include "ndimg/color.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::color {
namespace {

template <class U>   // an unsigned integer of the element's size: the bits are copied
void interleave(std::span<const View> planes, const View& out, int64_t n) {
  const int64_t k = int64_t(planes.size());
  const U* src[kMaxStackPlanes];
  for (int64_t j = 0; j < k; ++j) src[j] = static_cast<const U*>(planes[j].data);
  U* o = static_cast<U*>(out.data);
  parallel_for(n, 1 << 14, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t j = 0; j < k; ++j) o[i * k + j] = src[j][i];
  });
}

}  // namespace

void stack_channels(std::span<const View> planes, const View& out) {
  const char* op = "stack_channels";
  auto fail = [&](const std::string& what) { throw ValueError(std::string(op) + ": " + what); };
  if (planes.empty() || planes.size() > size_t(kMaxStackPlanes))
    fail("1 to " + std::to_string(kMaxStackPlanes) + " planes expected");
  const View& p0 = planes[0];
  for (const View& p : planes) {
    require_same_shape(p0, p, op);
    if (p.dtype != p0.dtype || !p.c_contiguous() || p.device != Device::CPU)
      fail("planes must be C-contiguous host arrays of one dtype");
  }
  bool shape_ok = out.ndim == p0.ndim + 1 && out.shape[p0.ndim] == int64_t(planes.size());
  for (int a = 0; shape_ok && a < p0.ndim; ++a) shape_ok = out.shape[a] == p0.shape[a];
  if (!shape_ok || out.dtype != p0.dtype || !out.c_contiguous() || out.device != Device::CPU)
    fail("the output must be a C-contiguous host array (*planes' shape, planes) of their dtype");
  const int64_t n = p0.size();
  if (n == 0) return;
  switch (dtype_size(p0.dtype)) {
    case 1: interleave<uint8_t>(planes, out, n); break;
    case 2: interleave<uint16_t>(planes, out, n); break;
    case 4: interleave<uint32_t>(planes, out, n); break;
    case 8: interleave<uint64_t>(planes, out, n); break;
    default: fail("unsupported element size");
  }
}

}  // namespace ndimg::color

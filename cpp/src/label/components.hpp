// Connected components by union-find: the per-element classification, written once for both engines, and
// the engine schedules' declarations. The entry is in components.cpp. The union-find itself differs per
// engine (serial slabs joined at their seams on the CPU, atomicMin on roots on CUDA), as graph algorithms do.
#pragma once
#include <cstdint>

#include "core/engine.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/label.hpp"

namespace ndimg::label {

// An element's class for seeded_components: 0 background, 1 member (> low), 2 seed (> high).
template <class T>
NDIMG_HD uint8_t seed_class(T v, double low, double high) {
  const double d = static_cast<double>(v);
  return d > high ? 2 : d > low ? 1 : 0;
}

// ---- engine schedules (arguments validated by the entry) ----
// roots: nullptr, or the C-contiguous int64 roots of seeded_roots
void seeded_components_cpu(const View& in, double low, double high, const View& out, int64_t* roots = nullptr);
#ifdef NDIMG_WITH_CUDA
void seeded_components_cuda(const View& in, double low, double high, const View& out, StreamHandle s,
                            int64_t* roots = nullptr);
#endif

}  // namespace ndimg::label

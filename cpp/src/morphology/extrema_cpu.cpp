// Plateau extrema on the thread pool: elements in blocks; a flag is one byte set by whichever element
// reaches it (relaxed atomic stores of the same value).
#include <atomic>

#include "morphology/extrema.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::morphology {
namespace {

template <class L>
void flags_of(const View& image, const L* labels, std::span<const int64_t> offsets, uint8_t* flags, int64_t count) {
  dispatch_dtype(image.dtype, [&]<class T>() {
    const T* img = image.ptr<T>();
    parallel_for(image.size(), 1 << 14, [&](int64_t a, int64_t b) {
      for (int64_t i = a; i < b; ++i) {
        const int64_t l = labels[i];
        if (l < 0 || l >= count || std::atomic_ref<uint8_t>(flags[l]).load(std::memory_order_relaxed)) continue;
        if (rules_out(img, i, image.ndim, image.shape.data(), offsets.data(), int64_t(offsets.size())))
          std::atomic_ref<uint8_t>(flags[l]).store(1, std::memory_order_relaxed);
      }
    });
  });
}

template <class L>
void top_of(const L* labels, const uint8_t* flags, int64_t count, const View& out) {
  bool* o = out.ptr<bool>();
  parallel_for(out.size(), 1 << 14, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) {
      const int64_t l = labels[i];
      o[i] = !on_border(i, out.ndim, out.shape.data()) && l >= 0 && l < count && !flags[l];
    }
  });
}

}  // namespace

void plateau_flags_cpu(const View& image, const View& labels, std::span<const int64_t> offsets, const View& flags) {
  uint8_t* f = flags.ptr<uint8_t>();
  if (labels.dtype == DType::I32) flags_of(image, labels.ptr<int32_t>(), offsets, f, flags.size());
  else flags_of(image, labels.ptr<int64_t>(), offsets, f, flags.size());
}

void plateau_top_cpu(const View& labels, const View& flags, const View& out) {
  const uint8_t* f = flags.ptr<uint8_t>();
  if (labels.dtype == DType::I32) top_of(labels.ptr<int32_t>(), f, flags.size(), out);
  else top_of(labels.ptr<int64_t>(), f, flags.size(), out);
}

}  // namespace ndimg::morphology

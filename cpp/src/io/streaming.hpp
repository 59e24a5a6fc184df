// Copies into memory that is not read again soon (a tile cache's blocks, a batch buffer): its whole 64-byte
// lines are written by non-temporal stores, which neither read each cold line first (as an ordinary store
// does) nor evict what the thread is working on. Such stores are weakly ordered: the writer calls
// store_fence() before anything tells another thread the data is there.
#pragma once
#include <cstdint>
#include <cstring>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace ndimg::io {

inline void stream_copy(uint8_t* dst, const uint8_t* src, size_t n) {
#ifdef __SSE2__
  uint8_t* const end = dst + n;
  uint8_t* line = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(dst) + 63) & ~uintptr_t(63));
  if (line + 64 <= end) {
    std::memcpy(dst, src, size_t(line - dst));
    src += line - dst;
    for (; line + 64 <= end; line += 64, src += 64)
      for (int k = 0; k < 64; k += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(line + k),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + k)));
    dst = line, n = size_t(end - line);
  }
#endif
  std::memcpy(dst, src, n);
}

inline void store_fence() {
#ifdef __SSE2__
  _mm_sfence();
#endif
}

}  // namespace ndimg::io

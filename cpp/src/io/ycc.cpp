#include "io/ycc.hpp"

#include <algorithm>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define NDIMG_YCC_X86 1
#endif

namespace ndimg::io {

namespace {

// The chroma rows that pixel row r is made from: its own (r / 2) and the nearer neighbour (above for even r,
// below for odd r; the image's edge row repeated).
uint32_t chroma_far_row(uint32_t r, uint32_t height) {
  const uint32_t n = r / 2, last = height / 2 - 1;
  return r & 1 ? (n < last ? n + 1 : last) : (n > 0 ? n - 1 : 0);
}

// libjpeg's conversion (its jdcolor.c tables, 16-bit fixed point, arithmetic shifts), clamped to [0, 255]:
//   R = Y + ((91881 Cr' + 32768) >> 16), G = Y + ((-22554 Cb' - 46802 Cr' + 32768) >> 16),
//   B = Y + ((116130 Cb' + 32768) >> 16), where Cb' = Cb - 128 and Cr' = Cr - 128.
inline uint8_t clamp255(int v) { return uint8_t(v < 0 ? 0 : v > 255 ? 255 : v); }

void pixels_portable(const uint8_t* y, const int16_t* cb, const int16_t* cr, uint8_t* o, uint32_t n, int channels) {
  for (uint32_t i = 0; i < n; ++i, o += channels) {
    const int b = cb[i] - 128, r = cr[i] - 128;
    o[0] = clamp255(y[i] + ((91881 * r + 32768) >> 16));
    o[1] = clamp255(y[i] + ((-22554 * b - 46802 * r + 32768) >> 16));
    o[2] = clamp255(y[i] + ((116130 * b + 32768) >> 16));
    if (channels == 4) o[3] = 255;
  }
}

// The chroma sums of libjpeg's fancy upsampling for samples [i0 - 1, i1 + 1) of a row (the image's edge samples
// repeated): s[k] = 3 near[i] + far[i] for i = i0 - 1 + k.
void sums_portable(const uint8_t* near, const uint8_t* far, uint32_t cw, uint32_t i0, uint32_t i1, int16_t* s) {
  for (int64_t i = int64_t(i0) - 1; i <= int64_t(i1); ++i) {
    const int64_t j = std::clamp<int64_t>(i, 0, int64_t(cw) - 1);
    s[i - i0 + 1] = int16_t(3 * near[j] + far[j]);
  }
}

// Upsampled chroma of pixels [2 i0, 2 i1) from the sums: pixel 2i is (3 s(i) + s(i - 1) + 8) >> 4, pixel 2i + 1
// (3 s(i) + s(i + 1) + 7) >> 4.
void upsample_portable(const int16_t* s, uint32_t count, int16_t* u) {
  for (uint32_t k = 1; k <= count; ++k) {
    u[2 * k - 2] = int16_t((3 * s[k] + s[k - 1] + 8) >> 4);
    u[2 * k - 1] = int16_t((3 * s[k] + s[k + 1] + 7) >> 4);
  }
}

#ifdef NDIMG_YCC_X86
__attribute__((target("avx2"))) inline void sums16_avx2(const uint8_t* near, const uint8_t* far, int16_t* s) {
  const __m256i n = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(near)));
  const __m256i f = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(far)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(s), _mm256_add_epi16(_mm256_add_epi16(n, n), _mm256_add_epi16(n, f)));
}

__attribute__((target("avx2"))) inline void sums_avx2(const uint8_t* near, const uint8_t* far, uint32_t cw,
                                                      uint32_t i0, uint32_t i1, int16_t* s) {
  // the inner samples 16 at a time; the edges (and a short tail) as the portable code does them
  const uint32_t a = i0 > 0 ? i0 - 1 : 0, b = std::min(i1 + 1, cw);
  if (b - a >= 16) {
    for (uint32_t i = a; i + 16 <= b; i += 16) sums16_avx2(near + i, far + i, s + (i - i0 + 1));
    sums16_avx2(near + b - 16, far + b - 16, s + (b - 16 - i0 + 1));  // the 16 ending the row, some done twice
  } else {
    for (uint32_t i = a; i < b; ++i) s[i - i0 + 1] = int16_t(3 * near[i] + far[i]);
  }
  if (i0 == 0) s[0] = s[1];
  if (i1 >= cw) s[i1 - i0 + 1] = s[i1 - i0];
}

// Reads up to 16 sums past count + 1 and writes up to 31 values past 2 * count (the caller's buffers have room).
__attribute__((target("avx2"))) inline void upsample_avx2(const int16_t* s, uint32_t count, int16_t* u) {
  const __m256i c8 = _mm256_set1_epi16(8), c7 = _mm256_set1_epi16(7);
  for (uint32_t k = 1; k <= count; k += 16) {
    const __m256i prev = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + k - 1));
    const __m256i here = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + k));
    const __m256i next = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + k + 1));
    const __m256i t = _mm256_add_epi16(_mm256_add_epi16(here, here), here);
    const __m256i even = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(t, prev), c8), 4);
    const __m256i odd = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(t, next), c7), 4);
    // the interleaving works within 128-bit lanes: lo holds pixels 0-7 and 16-23, hi 8-15 and 24-31
    const __m256i lo = _mm256_unpacklo_epi16(even, odd), hi = _mm256_unpackhi_epi16(even, odd);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(u + 2 * k - 2), _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(u + 2 * k + 14), _mm256_permute2x128_si256(lo, hi, 0x31));
  }
}

// The conversion above in 16-bit lanes, exactly: 91881 = 65536 + 26345 and 116130 = 131072 - 14942, and with
// u = c x / 65536, floor(u + 1/2) = (floor(2u) + 1) >> 1, where floor(2u) is mulhi(2x, c); green's two products
// are summed in 32 bits (madd), with -46802 = 18734 - 65536.
__attribute__((target("avx2"))) inline void pixels_avx2(const uint8_t* y, const int16_t* cb, const int16_t* cr,
                                                        uint8_t* o, uint32_t n, int channels) {
  if (n < 16) return pixels_portable(y, cb, cr, o, n, channels);
  const __m256i c128 = _mm256_set1_epi16(128), one = _mm256_set1_epi16(1);
  const __m256i kr = _mm256_set1_epi16(26345), kb = _mm256_set1_epi16(-14942);
  const __m256i kg = _mm256_set1_epi32(int32_t(uint32_t(18734) << 16 | uint16_t(-22554)));  // (Cb', Cr') pairs
  const __m256i half = _mm256_set1_epi32(32768), opaque = _mm256_set1_epi8(-1);
  const __m128i rgb_of_rgba = _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
  for (uint32_t i = 0;; i += 16) {
    if (i + 16 > n) {
      if (i == n) break;
      i = n - 16;  // the last pixels as the 16 ending the row, some done twice
    }
    const __m256i yy = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(y + i)));
    const __m256i b = _mm256_sub_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(cb + i)), c128);
    const __m256i r = _mm256_sub_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(cr + i)), c128);
    const __m256i b2 = _mm256_add_epi16(b, b), r2 = _mm256_add_epi16(r, r);
    const __m256i red = _mm256_add_epi16(
        _mm256_add_epi16(yy, r), _mm256_srai_epi16(_mm256_add_epi16(_mm256_mulhi_epi16(r2, kr), one), 1));
    const __m256i blue = _mm256_add_epi16(
        _mm256_add_epi16(yy, b2), _mm256_srai_epi16(_mm256_add_epi16(_mm256_mulhi_epi16(b2, kb), one), 1));
    const __m256i glo =
        _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(b, r), kg), half), 16);
    const __m256i ghi =
        _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(b, r), kg), half), 16);
    const __m256i green = _mm256_sub_epi16(_mm256_add_epi16(yy, _mm256_packs_epi32(glo, ghi)), r);
    // per 128-bit lane (pixels 0-7, then 8-15): p0 holds RGBA pixels 0-3 and 8-11, p1 4-7 and 12-15
    const __m256i rg = _mm256_unpacklo_epi8(_mm256_packus_epi16(red, red), _mm256_packus_epi16(green, green));
    const __m256i ba = _mm256_unpacklo_epi8(_mm256_packus_epi16(blue, blue), opaque);
    const __m256i p0 = _mm256_unpacklo_epi16(rg, ba), p1 = _mm256_unpackhi_epi16(rg, ba);
    if (channels == 4) {
      // 16-byte stores: NumPy's rows are 16-byte aligned, so half of 32-byte ones would split a cache line (4% of
      // a cached unaligned patch at 16 threads on the H100 host)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 4 * i), _mm256_castsi256_si128(p0));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 4 * i + 16), _mm256_castsi256_si128(p1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 4 * i + 32), _mm256_extracti128_si256(p0, 1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 4 * i + 48), _mm256_extracti128_si256(p1, 1));
    } else {
      // RGB: each 4 pixels' 12 bytes, 24 bytes per 8 pixels, no byte past the 16 pixels written
      for (int h = 0; h < 2; ++h) {
        const __m128i q0 =
            _mm_shuffle_epi8(h ? _mm256_extracti128_si256(p0, 1) : _mm256_castsi256_si128(p0), rgb_of_rgba);
        const __m128i q1 =
            _mm_shuffle_epi8(h ? _mm256_extracti128_si256(p1, 1) : _mm256_castsi256_si128(p1), rgb_of_rgba);
        uint8_t* const d = o + 3 * i + 24 * h;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm_or_si128(q0, _mm_slli_si128(q1, 12)));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(d + 16), _mm_srli_si128(q1, 4));
      }
    }
    if (i + 16 == n) break;
  }
}
#endif

// The rows of ycc420_to_rgb with the given steps (AVX2 or portable). Row r + 1's chroma sums are made before
// row r's pixels and upsampled after them (two sets of upsampled rows), so that no load waits on a store just
// made: the chroma steps were half of a tile's time, and this takes a tenth off the whole.
template <auto sums_step, auto upsample_step, auto pixels_step>
void convert_rows(const Ycc420& src, uint32_t row0, uint32_t row1, uint32_t col0, uint32_t col1, uint8_t* out,
                  size_t stride, int channels, int16_t* const* s, int16_t* const* u) {
  const uint32_t cw = src.width / 2, i0 = col0 / 2, i1 = (col1 - 1) / 2 + 1;
  auto sums = [&](uint32_t r) {
    const uint32_t near = r / 2, far = chroma_far_row(r, src.height);
    sums_step(src.cb[near], src.cb[far], cw, i0, i1, s[0]);
    sums_step(src.cr[near], src.cr[far], cw, i0, i1, s[1]);
  };
  auto upsample = [&](uint32_t r) {
    for (int p = 0; p < 2; ++p) upsample_step(s[p], i1 - i0, u[2 * ((r - row0) & 1) + p]);
  };
  sums(row0);
  upsample(row0);
  for (uint32_t r = row0; r < row1; ++r) {
    if (r + 1 < row1) sums(r + 1);
    int16_t* const* here = u + 2 * ((r - row0) & 1);
    pixels_step(src.y[r] + col0, here[0] + (col0 & 1), here[1] + (col0 & 1), out + size_t(r - row0) * stride,
                col1 - col0, channels);
    if (r + 1 < row1) upsample(r + 1);
  }
}

}  // namespace

void ycc420_to_rgb(const Ycc420& src, uint32_t row0, uint32_t row1, uint32_t col0, uint32_t col1, uint8_t* out,
                   size_t stride, int channels) {
  if (row0 >= row1 || col0 >= col1) return;
  const uint32_t count = (col1 - 1) / 2 + 1 - col0 / 2;  // chroma samples
  // per plane: sums (count + 2, and 16 read past them), and two rows of upsampled values (2 count, and 31
  // written past them)
  thread_local std::vector<int16_t> buf;
  const size_t sums = count + 2 + 16, ups = 2 * size_t(count) + 32;
  buf.resize(2 * sums + 4 * ups);
  int16_t* const s[2] = {buf.data(), buf.data() + sums};
  int16_t* const u[4] = {s[1] + sums, s[1] + sums + ups, s[1] + sums + 2 * ups, s[1] + sums + 3 * ups};
#ifdef NDIMG_YCC_X86
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2)
    return convert_rows<sums_avx2, upsample_avx2, pixels_avx2>(src, row0, row1, col0, col1, out, stride, channels, s,
                                                               u);
#endif
  convert_rows<sums_portable, upsample_portable, pixels_portable>(src, row0, row1, col0, col1, out, stride, channels,
                                                                 s, u);
}

}  // namespace ndimg::io

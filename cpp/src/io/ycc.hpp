#pragma once
// YCbCr 4:2:0 planes to RGB(A), as libjpeg-turbo outputs a JPEG image by default, bit for bit. The tile cache keeps
// JPEG tiles of this kind as their planes (half the bytes of RGB) and converts the pixels a reader wants while
// copying them out.

#include <cstddef>
#include <cstdint>

namespace ndimg::io {

// An image's planes as libjpeg decodes them in raw mode: Y row r at y[r], chroma row i at cb[i] and cr[i] (half as
// many rows, half as wide). width and height are the image's, both even; only the rows a conversion reads need
// exist.
struct Ycc420 {
  const uint8_t* const* y;
  const uint8_t* const* cb;
  const uint8_t* const* cr;
  uint32_t width, height;
};

// Pixels [row0, row1) x [col0, col1) with libjpeg's "fancy" (triangle-filter) chroma upsampling and its JFIF
// YCbCr-to-RGB conversion. Row row0 + i goes to out + i * stride, as RGB (channels 3) or opaque RGBA (4).
void ycc420_to_rgb(const Ycc420& src, uint32_t row0, uint32_t row1, uint32_t col0, uint32_t col1, uint8_t* out,
                   size_t stride, int channels);

}  // namespace ndimg::io

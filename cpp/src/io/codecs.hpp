// Tile codecs. Each decoder writes at most `cap` bytes to dst and returns how many it produced; corrupt
// input throws SlideError. All are safe to call from many threads at once (per-thread codec state).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ndimg/io/tile_cache.hpp"

namespace ndimg::io::codec {

size_t inflate(const uint8_t* src, size_t n, uint8_t* dst, size_t cap);  // zlib (Deflate, AdobeDeflate)
size_t zstd(const uint8_t* src, size_t n, uint8_t* dst, size_t cap);
size_t lzw(const uint8_t* src, size_t n, uint8_t* dst, size_t cap);     // TIFF (MSB-first) LZW

// Decodes a JPEG tile (abbreviated streams are completed with the directory's JPEGTables) to 8-bit
// interleaved RGB (samples == 3) or gray (samples == 1) rows of `pitch` bytes; returns the rows decoded.
// `force_rgb` (Photometric RGB) treats 3-component data as RGB whatever its markers say, as libtiff does.
// `rgba` (samples == 3): 4-byte RGBA pixels, alpha 255, straight into a region's RGBA rows.
uint32_t jpeg(const uint8_t* src, size_t n, const std::string& tables, bool force_rgb, uint32_t samples,
              uint32_t width, uint32_t max_rows, uint8_t* dst, size_t pitch, bool rgba = false);

// Rows [row0, row1) of a JPEG tile as jpeg() decodes them, each handed to sink(row, its bytes from column
// col0) while valid: rows above are skipped without their colour work, rows below are never decoded and
// columns outside [col0, col1) mostly not (a part of a tile costs about its part of the work). False when
// the build has no libjpeg API or the stream is not a tile-wide image holding those rows (the caller then
// decodes the whole tile, with its checks).
bool jpeg_rows(const uint8_t* src, size_t n, const std::string& tables, bool force_rgb, uint32_t samples,
               uint32_t width, uint32_t row0, uint32_t row1, uint32_t col0, uint32_t col1, RowSink sink);
// The first `height` rows of a tile as jpeg() decodes them, row r written straight to rows[r] (rows of
// width * samples bytes, wherever they lie: a cache's blocks); the rows below are never decoded. False as
// jpeg_rows.
bool jpeg_into(const uint8_t* src, size_t n, const std::string& tables, bool force_rgb, uint32_t samples,
               uint32_t width, uint32_t height, uint8_t* const* rows);

// Whether a JPEG tile (its own bytes, without JPEGTables) is 8-bit YCbCr with 4:2:0 chroma (Cb and Cr halved
// both ways) at width x height, both multiples of 16: what jpeg_planes decodes.
bool jpeg_ycc420(const uint8_t* src, size_t n, uint32_t width, uint32_t height);
// The first `rows` rows (a multiple of 16) of such a tile as libjpeg decodes them in raw mode,
// before chroma upsampling and colour conversion (ycc.hpp does those as jpeg() would): Y row r to y[r], chroma
// row i to cb[i] and cr[i] (rows of width and width / 2 bytes). False when the build has no libjpeg API or
// libjpeg reads the stream as anything else (the caller then decodes it to RGB).
bool jpeg_planes(const uint8_t* src, size_t n, const std::string& tables, uint32_t width, uint32_t height,
                 uint32_t rows, uint8_t* const* y, uint8_t* const* cb, uint8_t* const* cr);

// The complete stream of a JPEG tile, as jpeg() decodes it: an abbreviated stream joined with the
// directory's JPEGTables and, with force_rgb and 3 samples, marked so that decoders take it as RGB. Either
// (src, n) itself or the contents of `merged`.
std::pair<const uint8_t*, size_t> jpeg_stream(const uint8_t* src, size_t n, const std::string& tables, bool force_rgb,
                                              uint32_t samples, std::vector<uint8_t>& merged);

// What a complete JPEG stream's headers say (for decoders other than libjpeg's: the GPU's).
struct JpegInfo {
  uint32_t width = 0, height = 0;
  int sof = 0;              // the frame marker: 0xC0 baseline, 0xC1 extended, 0xC2 progressive, ...
  int precision = 0;        // bits per sample
  int components = 0;
  uint8_t sampling[4] = {};  // per component: horizontal factor << 4 | vertical factor
  bool rgb = false;         // 3 components that libjpeg takes as RGB (no colour transform)
};
// False when the headers cannot be read (no frame header before the first scan).
bool jpeg_info(const uint8_t* src, size_t n, JpegInfo& info);

// Width and height of a complete JPEG stream (SlideError when its header cannot be read).
void jpeg_dimensions(const uint8_t* src, size_t n, uint32_t& width, uint32_t& height);

// Decodes a JPEG 2000 tile (a J2K codestream or a JP2 file) of exactly `samples` components, `width`
// columns and at most `max_rows` rows to interleaved samples of `bytes` (1 or 2) bytes in host order, rows
// of `pitch` bytes; returns the rows decoded. `ycbcr` (Aperio 33003) converts 3 YCbCr components, the
// chroma possibly subsampled, to RGB as OpenSlide does. Throws SlideError when built without OpenJPEG.
uint32_t jpeg2000(const uint8_t* src, size_t n, bool ycbcr, uint32_t samples, uint32_t bytes, uint32_t width,
                  uint32_t max_rows, uint8_t* dst, size_t pitch);

// Decodes a WebP tile to 8-bit RGB (samples == 3) or RGBA (samples == 4) rows of `pitch` bytes; returns
// the rows decoded. Throws SlideError when built without libwebp.
uint32_t webp(const uint8_t* src, size_t n, uint32_t samples, uint32_t width, uint32_t max_rows, uint8_t* dst,
              size_t pitch);

}  // namespace ndimg::io::codec

#include "io/codecs.hpp"

#include <libdeflate.h>
#include <turbojpeg.h>
#include <zstd.h>
#ifdef NDIMG_WITH_OPENJPEG
#include <openjpeg.h>
#endif
#ifdef NDIMG_WITH_LIBJPEG
#include <csetjmp>
#include <cstdio>  // jpeglib.h needs FILE
#include <jpeglib.h>

#include "io/jpeg_huffman.hpp"
#endif
#ifdef NDIMG_WITH_WEBP
#include <webp/decode.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "ndimg/io/tiff.hpp"

namespace ndimg::io::codec {

namespace {

// One codec context per thread, created on first use and freed when the thread ends.
template <class T, T* (*Make)(), void (*Free)(T*)>
T* per_thread(const char* what) {
  struct Holder {
    T* p = Make();
    ~Holder() {
      if (p) Free(p);
    }
  };
  thread_local Holder h;
  if (!h.p) throw SlideError(std::string("cannot create a ") + what + " decoder");
  return h.p;
}
libdeflate_decompressor* make_inflater() { return libdeflate_alloc_decompressor(); }
ZSTD_DCtx* make_zstd() { return ZSTD_createDCtx(); }
void free_zstd(ZSTD_DCtx* c) { ZSTD_freeDCtx(c); }
void* make_tj() { return tjInitDecompress(); }
void free_tj(void* h) { tjDestroy(h); }

// A decoded tile whose size differs from the directory's: corrupt (or not what the directory describes).
void check_tile_size(const char* codec, uint64_t w, uint64_t h, uint32_t width, uint32_t max_rows) {
  if (w != width || h == 0 || h > max_rows)
    throw SlideError(std::string(codec) + " tile size " + std::to_string(w) + "x" + std::to_string(h) +
                     " does not match the directory's tile size");
}

}  // namespace

size_t inflate(const uint8_t* src, size_t n, uint8_t* dst, size_t cap) {
  auto* d = per_thread<libdeflate_decompressor, make_inflater, libdeflate_free_decompressor>("deflate");
  size_t got = 0;
  auto r = libdeflate_zlib_decompress(d, src, n, dst, cap, &got);
  // INSUFFICIENT_SPACE: the stream holds more than a tile (some writers pad the last strip); keep what fits.
  if (r == LIBDEFLATE_INSUFFICIENT_SPACE) return cap;
  if (r != LIBDEFLATE_SUCCESS) throw SlideError("corrupt deflate data in tile");
  return got;
}

size_t zstd(const uint8_t* src, size_t n, uint8_t* dst, size_t cap) {
  auto* c = per_thread<ZSTD_DCtx, make_zstd, free_zstd>("zstd");
  size_t r = ZSTD_decompressDCtx(c, dst, cap, src, n);
  if (ZSTD_isError(r)) throw SlideError(std::string("corrupt zstd data in tile: ") + ZSTD_getErrorName(r));
  return r;
}

// TIFF LZW (TIFF 6.0 section 13): MSB-first codes of 9..12 bits, 256 = clear, 257 = end, and the code
// width grows one code early. No kept library exposes this codec on its own (libtiff's is internal to a
// TIFF* handle), so it is written here. Strings are emitted back to front through the prefix chain, straight
// into dst.
size_t lzw(const uint8_t* src, size_t n, uint8_t* dst, size_t cap) {
  if (n >= 2 && src[0] == 0 && (src[1] & 1)) throw SlideError("old-style (LSB-first) LZW is not supported");
  constexpr int kClear = 256, kEnd = 257, kMax = 4096;
  uint16_t prefix[kMax];
  uint8_t suffix[kMax], first[kMax];
  uint16_t length[kMax];
  for (int i = 0; i < 256; ++i) prefix[i] = 0, suffix[i] = first[i] = uint8_t(i), length[i] = 1;
  int nbits = 9, next = 258, prev = -1;
  uint64_t bitbuf = 0;
  int bitcount = 0;
  size_t pos = 0, in = 0;
  auto emit = [&](int code) {  // writes the string of `code`, truncated to the space left
    size_t len = length[code];
    for (size_t i = len; i-- > 0;) {
      if (pos + i < cap) dst[pos + i] = suffix[code];
      code = prefix[code];
    }
    pos += len;
  };
  while (pos < cap) {
    while (bitcount < nbits) {
      if (in >= n) return pos < cap ? pos : cap;  // stream ended without an end code: keep what we have
      bitbuf = (bitbuf << 8) | src[in++];
      bitcount += 8;
    }
    int code = int((bitbuf >> (bitcount - nbits)) & ((1u << nbits) - 1));
    bitcount -= nbits;
    if (code == kEnd) break;
    if (code == kClear) {
      nbits = 9, next = 258, prev = -1;
      continue;
    }
    if (prev < 0) {
      if (code > 255) throw SlideError("corrupt LZW data in tile");
      emit(code);
      prev = code;
      continue;
    }
    if (code > next || (code == next && next >= kMax)) throw SlideError("corrupt LZW data in tile");
    if (next < kMax) {  // new entry: string(prev) + first byte of string(code), where code may be this entry
      prefix[next] = uint16_t(prev);
      suffix[next] = code == next ? first[prev] : first[code];
      first[next] = first[prev];
      length[next] = uint16_t(length[prev] + 1);
      ++next;
    }
    emit(code);
    prev = code;
    if (next >= (1 << nbits) - 1 && nbits < 12) ++nbits;
  }
  return pos < cap ? pos : cap;
}

namespace {

// Calls fn(marker, payload, length) for each marker segment of the stream's headers (up to the first scan),
// payload pointing at the segment's bytes after its length field; stops early when fn returns false.
template <class Fn>
void for_each_header_segment(uint8_t* b, size_t n, Fn&& fn) {
  size_t i = 2;
  while (i + 4 <= n) {
    if (b[i] != 0xFF) return;
    uint8_t m = b[i + 1];
    if (m == 0xFF) { ++i; continue; }
    if (m == 0xD8 || (m >= 0xD0 && m <= 0xD7) || m == 0x01) { i += 2; continue; }
    if (m == 0xDA || m == 0xD9) return;  // start of scan / end: headers are over
    size_t len = size_t(b[i + 2]) << 8 | b[i + 3];
    if (len < 2 || i + 2 + len > n) return;
    if (!fn(m, b + i + 4, len - 2)) return;
    i += 2 + len;
  }
}

bool is_sof(uint8_t m) { return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC; }

// Makes libjpeg see 3-component data as RGB: hide JFIF markers, zero Adobe transforms and name the
// components 'R','G','B' (libjpeg's colour-space guess, jdapimin.c).
void mark_rgb(std::vector<uint8_t>& b) {
  for_each_header_segment(b.data(), b.size(), [](uint8_t m, uint8_t* p, size_t len) {
    if (m == 0xE0 && len >= 5 && std::memcmp(p, "JFIF", 4) == 0) p[3] = 'X';
    if (m == 0xEE && len >= 12 && std::memcmp(p, "Adobe", 5) == 0) p[11] = 0;
    if (is_sof(m) && len >= 6 + 3 * 3 && p[5] == 3) p[6] = 'R', p[9] = 'G', p[12] = 'B';
    return true;
  });
}

}  // namespace

std::pair<const uint8_t*, size_t> jpeg_stream(const uint8_t* src, size_t n, const std::string& tables, bool force_rgb,
                                              uint32_t samples, std::vector<uint8_t>& merged) {
  bool abbreviated = tables.size() >= 4 && n >= 2 && src[0] == 0xFF && src[1] == 0xD8;
  if (!abbreviated && !(force_rgb && samples == 3)) return {src, n};
  merged.clear();
  if (abbreviated) {  // tables without their EOI, then the tile without its SOI
    merged.insert(merged.end(), tables.begin(), tables.end() - 2);
    merged.insert(merged.end(), src + 2, src + n);
  } else {
    merged.assign(src, src + n);
  }
  if (force_rgb && samples == 3) mark_rgb(merged);
  return {merged.data(), merged.size()};
}

bool jpeg_info(const uint8_t* src, size_t n, JpegInfo& info) {
  info = JpegInfo{};
  if (n < 4 || src[0] != 0xFF || src[1] != 0xD8) return false;
  bool jfif = false, adobe = false, sof = false;
  int transform = -1;
  uint8_t ids[4] = {};
  // (the walker takes mutable bytes for mark_rgb; nothing is written here)
  for_each_header_segment(const_cast<uint8_t*>(src), n, [&](uint8_t m, uint8_t* p, size_t len) {
    if (m == 0xE0 && len >= 5 && std::memcmp(p, "JFIF", 5) == 0) jfif = true;
    if (m == 0xEE && len >= 12 && std::memcmp(p, "Adobe", 5) == 0) adobe = true, transform = p[11];
    if (is_sof(m) && !sof) {
      if (len < 6) return false;
      sof = true;
      info.sof = m;
      info.precision = p[0];
      info.height = uint32_t(p[1]) << 8 | p[2];
      info.width = uint32_t(p[3]) << 8 | p[4];
      info.components = p[5];
      if (info.components < 1 || info.components > 4 || len < 6 + 3 * size_t(info.components)) return sof = false;
      for (int c = 0; c < info.components; ++c) {
        ids[c] = p[6 + 3 * c];
        info.sampling[c] = p[7 + 3 * c];
      }
    }
    return true;
  });
  if (!sof || info.width == 0 || info.height == 0) return false;
  // libjpeg's colour-space guess for 3 components (jdapimin.c): JFIF means YCbCr, else an Adobe marker's
  // transform decides, else component ids 'R','G','B' mean RGB
  if (info.components == 3)
    info.rgb = !jfif && (adobe ? transform == 0 : (ids[0] == 'R' && ids[1] == 'G' && ids[2] == 'B'));
  return true;
}

bool jpeg_ycc420(const uint8_t* src, size_t n, uint32_t width, uint32_t height) {
  JpegInfo info;
  return width % 16 == 0 && height % 16 == 0 && jpeg_info(src, n, info) && info.sof >= 0xC0 && info.sof <= 0xC2 &&
         info.precision == 8 && info.components == 3 && !info.rgb && info.width == width && info.height == height &&
         info.sampling[0] == 0x22 && info.sampling[1] == 0x11 && info.sampling[2] == 0x11;
}

#ifdef NDIMG_WITH_LIBJPEG
namespace {

// A libjpeg decompressor per thread, with our Huffman decoder. Errors longjmp back to decode (only
// libjpeg's C frames lie between), warnings (data the decoder got past) are counted silently, as
// TurboJPEG treats them.
struct Decoder {
  jpeg_decompress_struct info{};
  struct Errors {
    jpeg_error_mgr mgr;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
  } errors{};
  JpegHuffman huffman;
  std::vector<uint8_t> row, merged;
  Decoder() {
    info.err = jpeg_std_error(&errors.mgr);
    errors.mgr.error_exit = [](j_common_ptr c) {
      auto* e = reinterpret_cast<Errors*>(c->err);
      (*c->err->format_message)(c, e->message);
      std::longjmp(e->jump, 1);
    };
    errors.mgr.emit_message = [](j_common_ptr c, int level) {
      if (level < 0) ++c->err->num_warnings;
    };
    jpeg_create_decompress(&info);
  }
  ~Decoder() { jpeg_destroy_decompress(&info); }
};

// What to decode of a tile and where it goes.
struct Request {
  uint32_t row0 = 0, row1 = 0;      // rows [row0, row1)
  uint32_t col0 = 0, col1 = 0;      // with a sink: the columns wanted
  const RowSink* sink = nullptr;    // each row handed to it from one row buffer, or
  uint8_t* const* rows = nullptr;   // row r written straight to rows[r], or
  uint8_t* const* planes[3] = {};   // raw YCbCr 4:2:0 (jpeg_planes): Y row r to planes[0][r], chroma row i to
                                    // planes[1][i] and planes[2][i]
  bool whole = false;               // the whole image, of at most row1 rows, sized as check_tile_size wants
  bool rgba = false;
};

// Decodes a JPEG tile as the request says; returns the rows decoded, or 0 when a partial request does not
// fit the stream (not a tile-wide image holding the rows: the caller then decodes the whole tile).
uint32_t decode(const uint8_t* src, size_t n, const std::string& tables, bool force_rgb, uint32_t samples,
                uint32_t width, const Request& q) {
  thread_local Decoder dec;
  auto [data, size] = jpeg_stream(src, n, tables, force_rgb, samples, dec.merged);
  jpeg_decompress_struct& info = dec.info;
  if (setjmp(dec.errors.jump)) {
    jpeg_abort_decompress(&info);
    throw SlideError(std::string("corrupt JPEG tile: ") + dec.errors.message);
  }
  jpeg_mem_src(&info, data, (unsigned long)size);
  jpeg_read_header(&info, TRUE);
  uint32_t row1 = q.row1;
  if (q.whole) {
    try {
      check_tile_size("JPEG", info.image_width, info.image_height, width, q.row1);
    } catch (...) {
      jpeg_abort_decompress(&info);
      throw;
    }
    row1 = info.image_height;
  } else if (info.image_width != width || info.image_height < q.row1 || int(samples) != info.num_components) {
    jpeg_abort_decompress(&info);
    return 0;
  }
  if (q.planes[0]) {  // libjpeg must see what jpeg_ycc420 saw: else 0, and the caller decodes to RGB
    const jpeg_component_info* c = info.comp_info;
    if (info.jpeg_color_space != JCS_YCbCr || c[0].h_samp_factor != 2 || c[0].v_samp_factor != 2 ||
        c[1].h_samp_factor != 1 || c[1].v_samp_factor != 1 || c[2].h_samp_factor != 1 || c[2].v_samp_factor != 1) {
      jpeg_abort_decompress(&info);
      return 0;
    }
    info.raw_data_out = TRUE;
  }
  info.out_color_space = samples == 1 ? JCS_GRAYSCALE : q.rgba ? JCS_EXT_RGBA : JCS_RGB;
  info.dct_method = JDCT_ISLOW;
  jpeg_start_decompress(&info);
  dec.huffman.take_over(&info);
  JDIMENSION x = 0, w = width;
  if (q.sink) {
    // crop with an iMCU of margin each side: the wanted columns then get the whole decode's values (at a
    // crop edge inside the image, fancy upsampling would treat the edge as the image's)
    const uint32_t margin = uint32_t(info.max_h_samp_factor) * DCTSIZE;
    x = q.col0 > margin ? q.col0 - margin : 0, w = std::min(q.col1 + margin, width) - x;
    if (x > 0 || w < width) jpeg_crop_scanline(&info, &x, &w);
    dec.row.resize(size_t(info.output_width) * samples);
  }
  if (q.row0) jpeg_skip_scanlines(&info, q.row0);  // (planes are decoded from row 0)
  for (uint32_t r = q.row0; r < row1;) {
    JDIMENSION got;
    if (q.planes[0]) {  // an iMCU row (16 rows) at a time
      JSAMPROW y[16], cb[8], cr[8];
      for (int k = 0; k < 16; ++k) y[k] = q.planes[0][r + k];
      for (int k = 0; k < 8; ++k) cb[k] = q.planes[1][r / 2 + k], cr[k] = q.planes[2][r / 2 + k];
      JSAMPARRAY planes[3] = {y, cb, cr};
      got = jpeg_read_raw_data(&info, planes, 16) == 16 ? 16 : 0;
    } else {
      JSAMPROW one = dec.row.data();
      got = q.sink ? jpeg_read_scanlines(&info, &one, 1)
                   : jpeg_read_scanlines(&info, const_cast<JSAMPARRAY>(q.rows + r), row1 - r);
    }
    if (got == 0) {
      jpeg_abort_decompress(&info);
      throw SlideError("corrupt JPEG tile: " + std::to_string(r) + " rows decoded");
    }
    if (q.sink) (*q.sink)(r, dec.row.data() + size_t(q.col0 - x) * samples, 1, dec.row.size());
    r += got;
  }
  jpeg_abort_decompress(&info);  // the rows below are never decoded
  return row1 - q.row0;
}

}  // namespace

uint32_t jpeg(const uint8_t* src, size_t n, const std::string& tables, bool force_rgb, uint32_t samples,
              uint32_t width, uint32_t max_rows, uint8_t* dst, size_t pitch, bool rgba) {
  thread_local std::vector<uint8_t*> rows;
  rows.resize(max_rows);
  for (uint32_t r = 0; r < max_rows; ++r) rows[r] = dst + r * pitch;
  Request q;
  q.row1 = max_rows, q.rows = rows.data(), q.whole = true, q.rgba = rgba && samples == 3;
  return decode(src, n, tables, force_rgb, samples, width, q);
}

bool jpeg_rows(const uint8_t* src, size_t n, const std::string& tables, bool force_rgb, uint32_t samples,
               uint32_t width, uint32_t row0, uint32_t row1, uint32_t col0, uint32_t col1, RowSink sink) {
  Request q;
  q.row0 = row0, q.row1 = row1, q.col0 = col0, q.col1 = col1, q.sink = &sink;
  return decode(src, n, tables, force_rgb, samples, width, q) != 0;
}

bool jpeg_into(const uint8_t* src, size_t n, const std::string& tables, bool force_rgb, uint32_t samples,
               uint32_t width, uint32_t height, uint8_t* const* rows) {
  Request q;
  q.row1 = height, q.col1 = width, q.rows = rows;
  return decode(src, n, tables, force_rgb, samples, width, q) != 0;
}

bool jpeg_planes(const uint8_t* src, size_t n, const std::string& tables, uint32_t width, uint32_t height,
                 uint32_t rows, uint8_t* const* y, uint8_t* const* cb, uint8_t* const* cr) {
  if (width % 16 || height % 16 || rows == 0 || rows % 16 || rows > height) return false;
  Request q;
  q.row1 = rows, q.col1 = width, q.planes[0] = y, q.planes[1] = cb, q.planes[2] = cr;
  return decode(src, n, tables, false, 3, width, q) != 0;
}
#else
// TurboJPEG alone: whole tiles only
uint32_t jpeg(const uint8_t* src, size_t n, const std::string& tables, bool force_rgb, uint32_t samples,
              uint32_t width, uint32_t max_rows, uint8_t* dst, size_t pitch, bool rgba) {
  tjhandle tj = per_thread<void, make_tj, free_tj>("JPEG");
  thread_local std::vector<uint8_t> merged;
  auto [data, size] = jpeg_stream(src, n, tables, force_rgb, samples, merged);
  int w = 0, h = 0, sub = 0, cs = 0;
  if (tjDecompressHeader3(tj, data, (unsigned long)size, &w, &h, &sub, &cs) != 0)
    throw SlideError(std::string("corrupt JPEG tile: ") + tjGetErrorStr2(tj));
  check_tile_size("JPEG", uint64_t(w), uint64_t(h < 0 ? 0 : h), width, max_rows);
  int fmt = samples == 1 ? TJPF_GRAY : rgba ? TJPF_RGBA : TJPF_RGB;
  if (tjDecompress2(tj, data, (unsigned long)size, dst, w, int(pitch), h, fmt, TJFLAG_ACCURATEDCT) != 0 &&
      tjGetErrorCode(tj) == TJERR_FATAL)
    throw SlideError(std::string("corrupt JPEG tile: ") + tjGetErrorStr2(tj));
  return uint32_t(h);
}

bool jpeg_rows(const uint8_t*, size_t, const std::string&, bool, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
               uint32_t, RowSink) {
  return false;
}
bool jpeg_into(const uint8_t*, size_t, const std::string&, bool, uint32_t, uint32_t, uint32_t, uint8_t* const*) {
  return false;
}
bool jpeg_planes(const uint8_t*, size_t, const std::string&, uint32_t, uint32_t, uint32_t, uint8_t* const*,
                 uint8_t* const*, uint8_t* const*) {
  return false;
}
#endif

void jpeg_dimensions(const uint8_t* src, size_t n, uint32_t& width, uint32_t& height) {
  tjhandle tj = per_thread<void, make_tj, free_tj>("JPEG");
  int w = 0, h = 0, sub = 0, cs = 0;
  if (tjDecompressHeader3(tj, src, (unsigned long)n, &w, &h, &sub, &cs) != 0 || w <= 0 || h <= 0)
    throw SlideError(std::string("corrupt JPEG image: ") + tjGetErrorStr2(tj));
  width = uint32_t(w), height = uint32_t(h);
}

// ------------------------------------------------------------------------------------------ JPEG 2000

#ifdef NDIMG_WITH_OPENJPEG
namespace {

// OpenJPEG reads the tile bytes through these callbacks (its memory stream API).
struct MemoryStream {
  const uint8_t* data;
  size_t size, pos;
};
OPJ_SIZE_T stream_read(void* buf, OPJ_SIZE_T count, void* user) {
  auto* m = static_cast<MemoryStream*>(user);
  size_t k = std::min<size_t>(count, m->size - m->pos);
  if (k == 0) return OPJ_SIZE_T(-1);
  std::memcpy(buf, m->data + m->pos, k);
  m->pos += k;
  return k;
}
OPJ_OFF_T stream_skip(OPJ_OFF_T count, void* user) {
  auto* m = static_cast<MemoryStream*>(user);
  if (count < 0) {
    size_t back = std::min<size_t>(size_t(-count), m->pos);
    m->pos -= back;
    return -OPJ_OFF_T(back);
  }
  size_t k = std::min<size_t>(size_t(count), m->size - m->pos);
  m->pos += k;
  return k == 0 && count > 0 ? -1 : OPJ_OFF_T(k);
}
OPJ_BOOL stream_seek(OPJ_OFF_T offset, void* user) {
  auto* m = static_cast<MemoryStream*>(user);
  if (offset < 0 || uint64_t(offset) > m->size) return OPJ_FALSE;
  m->pos = size_t(offset);
  return OPJ_TRUE;
}
void keep_first_error(const char* msg, void* user) {
  auto* s = static_cast<std::string*>(user);
  if (s->empty()) {
    *s = msg;
    while (!s->empty() && (s->back() == '\n' || s->back() == ' ')) s->pop_back();
  }
}
void ignore_message(const char*, void*) {}

// (opj_codec_t and opj_stream_t are both void, hence one deleter type each)
struct CodecDeleter {
  void operator()(opj_codec_t* c) const { opj_destroy_codec(c); }
};
struct StreamDeleter {
  void operator()(opj_stream_t* s) const { opj_stream_destroy(s); }
};
struct ImageDeleter {
  void operator()(opj_image_t* i) const { opj_image_destroy(i); }
};

// YCbCr (full range, as in JFIF) to RGB with OpenSlide's rounding, so Aperio 33003 tiles match it exactly:
// chroma terms rounded half away from zero, green's two terms in 16-bit fixed point.
struct YCbCrTables {
  int r_cr[256], g_cb[256], g_cr[256], b_cb[256];
  YCbCrTables() {
    for (int i = 0; i < 256; ++i) {
      r_cr[i] = int(std::lround(1.402 * (i - 128)));
      g_cb[i] = int(std::lround(65536 * (0.5 - 0.34414 * (i - 128))));
      g_cr[i] = int(std::lround(65536 * -0.71414 * (i - 128)));
      b_cb[i] = int(std::lround(1.772 * (i - 128)));
    }
  }
};
inline void ycbcr_to_rgb(uint32_t y, uint32_t cb, uint32_t cr, uint8_t* o) {
  static const YCbCrTables t;
  const int Y = int(y);
  o[0] = uint8_t(std::clamp(Y + t.r_cr[cr], 0, 255));
  o[1] = uint8_t(std::clamp(Y + ((t.g_cb[cb] + t.g_cr[cr]) >> 16), 0, 255));
  o[2] = uint8_t(std::clamp(Y + t.b_cb[cb], 0, 255));
}

}  // namespace
#endif

uint32_t jpeg2000(const uint8_t* src, size_t n, bool ycbcr, uint32_t samples, uint32_t bytes, uint32_t width,
                  uint32_t max_rows, uint8_t* dst, size_t pitch) {
#ifdef NDIMG_WITH_OPENJPEG
  static const uint8_t jp2_magic[] = {0, 0, 0, 12, 'j', 'P', ' ', ' '};
  bool jp2 = n >= 8 && std::memcmp(src, jp2_magic, 8) == 0;
  std::unique_ptr<opj_codec_t, CodecDeleter> codec(opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K));
  std::unique_ptr<opj_stream_t, StreamDeleter> stream(opj_stream_create(1 << 16, OPJ_TRUE));
  if (!codec || !stream) throw SlideError("cannot create a JPEG 2000 decoder");
  MemoryStream m{src, n, 0};
  opj_stream_set_user_data(stream.get(), &m, nullptr);
  opj_stream_set_user_data_length(stream.get(), n);
  opj_stream_set_read_function(stream.get(), stream_read);
  opj_stream_set_skip_function(stream.get(), stream_skip);
  opj_stream_set_seek_function(stream.get(), stream_seek);
  std::string error;
  opj_set_error_handler(codec.get(), keep_first_error, &error);
  opj_set_warning_handler(codec.get(), ignore_message, nullptr);
  opj_set_info_handler(codec.get(), ignore_message, nullptr);
  opj_dparameters_t params;
  opj_set_default_decoder_parameters(&params);
  auto fail = [&](const char* what) {
    return SlideError(std::string("corrupt JPEG 2000 tile: ") + (error.empty() ? what : error));
  };
  if (!opj_setup_decoder(codec.get(), &params)) throw fail("decoder setup failed");
  opj_image_t* raw = nullptr;
  if (!opj_read_header(stream.get(), codec.get(), &raw)) {
    if (raw) opj_image_destroy(raw);
    throw fail("cannot read the header");
  }
  std::unique_ptr<opj_image_t, ImageDeleter> image(raw);
  // check the header against the directory before OpenJPEG allocates anything for the pixels
  if (image->x1 < image->x0 || image->y1 < image->y0) throw fail("invalid image area");
  const uint32_t w = image->x1 - image->x0, rows = image->y1 - image->y0;
  check_tile_size("JPEG 2000", w, rows, width, max_rows);
  if (image->numcomps != samples || (ycbcr && samples != 3))
    throw SlideError("JPEG 2000 tile has " + std::to_string(image->numcomps) + " components, expected " +
                     std::to_string(samples));
  if (!opj_decode(codec.get(), stream.get(), image.get()) || !opj_end_decompress(codec.get(), stream.get()))
    throw fail("decoding failed");
  const uint32_t maxval = bytes == 1 ? 0xFFu : 0xFFFFu;
  for (uint32_t c = 0; c < samples; ++c) {
    const opj_image_comp_t& k = image->comps[c];
    if (!k.data || k.dx == 0 || k.dy == 0 || (w - 1) / k.dx >= k.w || (rows - 1) / k.dy >= k.h ||
        k.prec == 0 || k.prec > (ycbcr ? 8u : 8 * bytes))
      throw fail("component layout does not match the tile");
  }
  auto sample = [&](uint32_t c, uint32_t x, uint32_t y) -> uint32_t {
    const opj_image_comp_t& k = image->comps[c];
    int64_t v = k.data[size_t(y / k.dy) * k.w + x / k.dx];
    if (k.sgnd) v += int64_t(1) << (k.prec - 1);
    return uint32_t(std::clamp<int64_t>(v, 0, maxval));
  };
  for (uint32_t y = 0; y < rows; ++y) {
    uint8_t* o = dst + size_t(y) * pitch;
    if (ycbcr) {
      for (uint32_t x = 0; x < w; ++x, o += 3) ycbcr_to_rgb(sample(0, x, y), sample(1, x, y), sample(2, x, y), o);
    } else if (bytes == 1) {
      for (uint32_t x = 0; x < w; ++x)
        for (uint32_t c = 0; c < samples; ++c) *o++ = uint8_t(sample(c, x, y));
    } else {
      auto* o16 = reinterpret_cast<uint16_t*>(o);
      for (uint32_t x = 0; x < w; ++x)
        for (uint32_t c = 0; c < samples; ++c) *o16++ = uint16_t(sample(c, x, y));
    }
  }
  return rows;
#else
  throw SlideError("JPEG 2000 support not built (ndimg was compiled without OpenJPEG: libopenjp2-7-dev)");
#endif
}

// ----------------------------------------------------------------------------------------------- WebP

uint32_t webp(const uint8_t* src, size_t n, uint32_t samples, uint32_t width, uint32_t max_rows, uint8_t* dst,
              size_t pitch) {
#ifdef NDIMG_WITH_WEBP
  if (samples != 3 && samples != 4) throw SlideError("WebP tiles must have 3 or 4 samples per pixel");
  WebPBitstreamFeatures f;
  if (WebPGetFeatures(src, n, &f) != VP8_STATUS_OK) throw SlideError("corrupt WebP tile: cannot read the header");
  check_tile_size("WebP", uint64_t(std::max(f.width, 0)), uint64_t(std::max(f.height, 0)), width, max_rows);
  size_t cap = size_t(f.height) * pitch;
  uint8_t* r = samples == 4 ? WebPDecodeRGBAInto(src, n, dst, cap, int(pitch))
                            : WebPDecodeRGBInto(src, n, dst, cap, int(pitch));
  if (!r) throw SlideError("corrupt WebP tile");
  return uint32_t(f.height);
#else
  throw SlideError("WebP support not built (ndimg was compiled without libwebp: libwebp-dev)");
#endif
}

}  // namespace ndimg::io::codec

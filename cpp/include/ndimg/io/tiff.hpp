// TIFF / BigTIFF container: directory parsing and multithreaded region decoding.
//
// We parse directories ourselves instead of through libtiff because libtiff keeps one current directory
// and one file position per TIFF* handle, so concurrent readers need a handle (and a re-parse) per thread
// or a global lock. Here the parsed directories are immutable after open() and every tile is read with a
// positional read (pread), so any number of threads decode tiles of one file at once.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ndimg/error.hpp"
#include "ndimg/io/tile_cache.hpp"

namespace ndimg::io {

// Any problem with a slide file's contents (truncated, corrupt, unsupported layout or codec).
struct SlideError : Error { using Error::Error; };

// A read-only file read with positional reads; safe to share between threads.
class File {
 public:
  explicit File(const std::string& path);
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  uint64_t size() const { return size_; }
  // What identifies the file's contents (tile cache keys): device, inode, modification time, size.
  struct Id { uint64_t dev = 0, ino = 0, mtime_ns = 0, size = 0; };
  const Id& id() const { return id_; }
  // Reads exactly n bytes at offset, or throws SlideError (past the end, I/O error).
  void read(uint64_t offset, void* dst, uint64_t n) const;

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
  Id id_;
};

// TIFF tag numbers and codes we interpret.
namespace tag {
enum : uint16_t {
  NewSubfileType = 254, ImageWidth = 256, ImageLength = 257, BitsPerSample = 258, Compression = 259,
  Photometric = 262, DocumentName = 269, ImageDescription = 270, Make = 271, Model = 272,
  StripOffsets = 273, SamplesPerPixel = 277, RowsPerStrip = 278, StripByteCounts = 279,
  XResolution = 282, YResolution = 283, PlanarConfig = 284, XPosition = 286, YPosition = 287,
  ResolutionUnit = 296, Software = 305,
  DateTime = 306, Artist = 315, HostComputer = 316, Predictor = 317, TileWidth = 322, TileLength = 323,
  TileOffsets = 324, TileByteCounts = 325, SubIFDs = 330, ExtraSamples = 338, SampleFormat = 339,
  JPEGTables = 347, YCbCrSubsampling = 530, Copyright = 33432,
};
}
namespace compression {
enum : uint32_t {
  None = 1, LZW = 5, JPEG = 7, AdobeDeflate = 8, Deflate = 32946, Zstd = 50000, WebP = 50001,
  JPEG2000 = 34712, AperioJ2kYCbCr = 33003, J2kLossy = 33004, AperioJ2kRGB = 33005,  // JPEG 2000
};
}
namespace photometric {
enum : uint32_t { MinIsWhite = 0, MinIsBlack = 1, RGB = 2, YCbCr = 6 };
}

// One image file directory, validated: a readable image of 8- or 16-bit unsigned samples made of tiles
// (strips are tiles as wide as the image).
struct Ifd {
  uint64_t offset = 0;          // where the directory sits in the file
  int parent = -1;              // index of the directory whose SubIFDs tag holds this one, else -1
  uint32_t subfile_type = 0;
  uint32_t width = 0, height = 0;
  bool tiled = false;
  uint32_t tile_width = 0, tile_height = 0;  // for strips: image width x rows per strip
  uint32_t samples = 1, bits = 8, compression = compression::None, photometric = photometric::RGB;
  uint32_t planar = 1, predictor = 1, sample_format = 1;
  std::vector<uint64_t> offsets, byte_counts;  // one per tile/strip, row-major
  std::string jpeg_tables;
  // ASCII tags (ImageDescription, Software, ...); of a tag repeated in the directory, `ascii` holds the first
  // (as libtiff reads it) and `ascii_last` the last (as OpenSlide's own TIFF reader, hence its vendor
  // detection and tiff.* properties, reads it). The rational tags and ResolutionUnit below are the last.
  std::map<uint16_t, std::string> ascii, ascii_last;
  // rational or floating-point tags (NaN when absent or unreadable)
  double x_resolution = NAN, y_resolution = NAN, x_position = NAN, y_position = NAN;
  uint32_t resolution_unit = 2;
  std::string unsupported;  // why pixels cannot be decoded ("" when they can)

  uint32_t bytes_per_sample() const { return (bits + 7) / 8; }
  uint32_t tiles_across() const { return uint32_t((uint64_t(width) + tile_width - 1) / tile_width); }
  uint32_t tiles_down() const { return uint32_t((uint64_t(height) + tile_height - 1) / tile_height); }
  std::string text(uint16_t t) const { return find_text(ascii, t); }
  std::string text_last(uint16_t t) const { return find_text(ascii_last, t); }
  static std::string find_text(const std::map<uint16_t, std::string>& m, uint16_t t) {
    auto it = m.find(t);
    return it == m.end() ? std::string() : it->second;
  }
};

class TiffFile {
 public:
  // Parses every directory of the main chain and their SubIFDs; throws SlideError on malformed input.
  explicit TiffFile(const std::string& path);
  bool bigtiff() const { return bigtiff_; }
  const std::vector<Ifd>& ifds() const { return ifds_; }

  // Decodes pixels [x, x+w) x [y, y+h) of directory `index` into `rgba` (h*w*4 bytes, row-major RGBA,
  // opaque inside the image; outside it every byte is 0, as in OpenSlide). Sparse tiles (offset or byte
  // count 0) stay transparent. Tiles are decoded in
  // parallel on the thread pool. Coordinates may lie partly or wholly outside the image.
  // 16-bit samples become 8-bit as libtiff's RGBA interface (hence OpenSlide) makes them: color
  // (v + 128) / 257, gray v >> 8.
  void read_region_rgba(int index, int64_t x, int64_t y, int64_t w, int64_t h, uint8_t* rgba) const {
    read_region_8bit(index, x, y, w, h, rgba, 4, size_t(w) * 4);
  }
  // The same pixels as RGBA (channels 4) or RGB (channels 3), rows `stride` bytes apart.
  void read_region_8bit(int index, int64_t x, int64_t y, int64_t w, int64_t h, uint8_t* out, int channels,
                        size_t stride) const;

  // Like read_region_rgba, but the directory's own samples: h*w*samples values of bytes_per_sample() bytes
  // each, in host byte order, interleaved; zero outside the image and in sparse tiles.
  void read_region_raw(int index, int64_t x, int64_t y, int64_t w, int64_t h, void* out) const;

  // Decodes one tile (or strip) to interleaved samples in host byte order, tile_height x tile_width x
  // samples x bytes_per_sample() bytes (strips at the bottom edge are shorter: only their rows are filled).
  void decode_tile(const Ifd& ifd, uint64_t tile, std::vector<uint8_t>& compressed,
                   std::vector<uint8_t>& out) const;
  // The stored (compressed) bytes of one chunk: a tile or strip, or with separate planes one plane of one.
  void read_chunk(const Ifd& ifd, uint64_t chunk, std::vector<uint8_t>& compressed) const;
  // `rect` of decoded tile `tile` of directory `index`, handed to `sink` row by row: through `cache` when
  // one is given (ndimg/io/tile_cache.hpp), else decoded into `pixels`. False (nothing done) when another
  // thread is decoding the tile into the cache and `wait` is false.
  bool tile_rows(int index, uint64_t tile, TileCache* cache, const TileRect& rect, RowSink sink,
                 std::vector<uint8_t>& compressed, std::vector<uint8_t>& pixels, bool wait = true) const;

 private:
  // Decodes the tiles of directory `index` that meet the region [x, x+w) x [y, y+h) in parallel and hands the
  // rows of a tile inside both the image and the region to put(src, src_stride, region_x, region_y, pixels,
  // rows) in runs: `rows` rows of `pixels` pixels from (region_x, region_y) on, row i at src + i * src_stride.
  // A whole tile inside the region may instead go to direct(tile, rx, ry, compressed), which decodes it
  // straight into the destination and returns true (or false to take the row path). `to`, for 8-bit RGB
  // pixels, is where put() writes them (a tile cache converting its YCbCr tiles writes there itself).
  using PutRow = std::function<void(const uint8_t* src, size_t src_stride, int64_t rx, int64_t ry, int64_t n,
                                    int64_t rows)>;
  using DirectTile = std::function<bool(uint64_t tile, int64_t rx, int64_t ry, std::vector<uint8_t>& compressed)>;
  // Tiles go through `cache` when one is given.
  void for_each_row(int index, int64_t x, int64_t y, int64_t w, int64_t h, TileCache* cache, const PutRow& put,
                    const DirectTile& direct = nullptr, const PixelsTo* to = nullptr) const;
  // Decodes one chunk (a tile or strip; for separate planes one plane of it) of `spp` samples per pixel.
  void decode_chunk(const Ifd& d, uint64_t chunk, uint32_t spp, std::vector<uint8_t>& compressed,
                    std::vector<uint8_t>& out) const;
  std::unique_ptr<File> file_;
  bool bigtiff_ = false;
  bool little_ = true;
  std::vector<Ifd> ifds_;
  friend struct IfdParser;
};

}  // namespace ndimg::io

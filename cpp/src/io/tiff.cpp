#include "ndimg/io/tiff.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <set>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "io/codecs.hpp"
#include "ndimg/io/tile_cache.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::io {

// ---------------------------------------------------------------------------------------------- File

File::File(const std::string& path) {
  // O_NONBLOCK: opening a FIFO (or a device) for reading would otherwise wait for a writer, forever; reads
  // of a regular file ignore it
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) throw SlideError("cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw SlideError("unsupported format: " + path + " is not a regular file");
  }
  size_ = uint64_t(st.st_size);
  id_ = {uint64_t(st.st_dev), uint64_t(st.st_ino), uint64_t(st.st_mtim.tv_sec) * 1000000000ull + uint64_t(st.st_mtim.tv_nsec),
         size_};
}

File::~File() {
  if (fd_ >= 0) ::close(fd_);
}

void File::read(uint64_t offset, void* dst, uint64_t n) const {
  if (offset > size_ || n > size_ - offset)
    throw SlideError("file is truncated: " + std::to_string(n) + " bytes at offset " + std::to_string(offset) +
                     " lie past its end (" + std::to_string(size_) + " bytes)");
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    ssize_t r = ::pread(fd_, p, n, off_t(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) throw SlideError(std::string("read error: ") + (r < 0 ? std::strerror(errno) : "unexpected end"));
    p += r, offset += uint64_t(r), n -= uint64_t(r);
  }
}

// ------------------------------------------------------------------------------------------ parsing

namespace {

constexpr uint32_t kMaxIfds = 1u << 16;        // directories per file (chain + SubIFDs)
constexpr uint64_t kMaxEntries = 1u << 12;     // tags per directory
constexpr uint64_t kMaxTileBytes = 1ull << 28; // decoded tile or strip
constexpr uint64_t kMaxTagBytes = 1ull << 30;  // one tag's data

uint32_t type_size(uint16_t type) {
  switch (type) {
    case 1: case 2: case 6: case 7: return 1;
    case 3: case 8: return 2;
    case 4: case 9: case 11: case 13: return 4;
    case 5: case 10: case 12: case 16: case 17: case 18: return 8;
    default: return 0;
  }
}

}  // namespace

struct IfdParser {
  TiffFile& t;
  const File& f;
  // Bytes of directories and out-of-line tag data read so far may not exceed twice the file's size: a valid
  // file stores each once, while directories that overlap or share data could make a small file demand
  // memory and time quadratic in its size.
  uint64_t budget = 2 * f.size() + (1u << 16);

  void charge(uint64_t n) {
    if (n > budget) throw SlideError("corrupt TIFF: its directories read more data than the file holds");
    budget -= n;
  }

  uint64_t get(const uint8_t* p, int n) const {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(p[t.little_ ? i : n - 1 - i]) << (8 * i);
    return v;
  }

  struct Entry {
    uint16_t tag, type;
    uint64_t count;
    std::vector<uint8_t> data;  // count * type size bytes, in file byte order
  };

  std::vector<uint64_t> ints(const Entry& e) const {
    uint32_t s = type_size(e.type);
    if (e.type != 1 && e.type != 3 && e.type != 4 && e.type != 13 && e.type != 16 && e.type != 18)
      throw SlideError("TIFF tag " + std::to_string(e.tag) + " has non-integer type " + std::to_string(e.type));
    std::vector<uint64_t> v(e.count);
    for (uint64_t i = 0; i < e.count; ++i) v[i] = get(e.data.data() + i * s, int(s));
    return v;
  }
  uint64_t one(const Entry& e) const {
    auto v = ints(e);
    if (v.empty()) throw SlideError("TIFF tag " + std::to_string(e.tag) + " is empty");
    return v[0];
  }
  // A rational or floating-point tag's first value as OpenSlide reads it (NaN: none, or a zero denominator).
  double real(const Entry& e) const {
    const uint8_t* p = e.data.data();
    if (e.count < 1) return NAN;
    switch (e.type) {
      case 5: case 10: {  // (signed) rational
        const uint64_t num = get(p, 4), den = get(p + 4, 4);
        if (den == 0) return NAN;
        return e.type == 5 ? double(num) / double(den) : double(int32_t(uint32_t(num))) / double(int32_t(uint32_t(den)));
      }
      case 11: return double(std::bit_cast<float>(uint32_t(get(p, 4))));
      case 12: return std::bit_cast<double>(get(p, 8));
      default: return NAN;
    }
  }

  // Reads the directory at `off`; returns the offset of the next one (0 at the end of the chain).
  uint64_t parse(uint64_t off, int parent, std::vector<uint64_t>& sub_offsets) {
    const int cw = t.bigtiff_ ? 8 : 2, ew = t.bigtiff_ ? 20 : 12, vw = t.bigtiff_ ? 8 : 4;
    uint8_t buf[8];
    f.read(off, buf, uint64_t(cw));
    uint64_t n = get(buf, cw);
    if (n == 0 || n > kMaxEntries) throw SlideError("corrupt TIFF directory at " + std::to_string(off));
    charge(n * ew + vw);
    std::vector<uint8_t> raw(n * ew + vw);
    f.read(off + cw, raw.data(), raw.size());
    // A tag repeated in one directory: libtiff, which decodes OpenSlide's pixels, keeps the first (`tags`);
    // OpenSlide's own TIFF reader, from which it detects the vendor and takes tiff.* properties, the last
    // (`repeated`)
    std::map<uint16_t, Entry> tags, repeated;
    for (uint64_t i = 0; i < n; ++i) {
      const uint8_t* p = raw.data() + i * ew;
      Entry e{uint16_t(get(p, 2)), uint16_t(get(p + 2, 2)), get(p + 4, t.bigtiff_ ? 8 : 4), {}};
      uint32_t s = type_size(e.type);
      if (s == 0) continue;  // unknown types are skipped, as the TIFF spec asks
      if (e.count > kMaxTagBytes / s || e.count * s > f.size())
        throw SlideError("TIFF tag " + std::to_string(e.tag) + " claims more data than the file holds");
      const uint64_t bytes = e.count * s;
      const uint8_t* v = p + 4 + (t.bigtiff_ ? 8 : 4);
      if (bytes > uint64_t(vw)) charge(bytes);
      e.data.resize(bytes);
      if (bytes > uint64_t(vw))
        f.read(get(v, vw), e.data.data(), bytes);
      else if (bytes > 0)  // a tag of no values has no data (and data() may be null)
        std::memcpy(e.data.data(), v, bytes);
      if (auto [it, fresh] = tags.try_emplace(e.tag); fresh) it->second = std::move(e);
      else repeated[e.tag] = std::move(e);
    }
    auto last = [&](uint16_t k) -> const Entry* {
      if (auto it = repeated.find(k); it != repeated.end()) return &it->second;
      auto it = tags.find(k);
      return it == tags.end() ? nullptr : &it->second;
    };
    uint64_t next = get(raw.data() + n * ew, vw);

    Ifd d;
    d.offset = off;
    d.parent = parent;
    auto has = [&](uint16_t k) { return tags.count(k) != 0; };
    auto val = [&](uint16_t k, uint64_t def) { return has(k) ? one(tags[k]) : def; };
    auto text = [](const Entry& e) {
      std::string s(e.data.begin(), e.data.end());
      s.resize(std::strlen(s.c_str()));  // ASCII values end at the first NUL
      return s;
    };
    for (auto& [k, e] : tags) {
      if (e.type == 2) d.ascii[k] = text(e);
      if (const Entry* l = last(k); l->type == 2) d.ascii_last[k] = text(*l);
    }
    d.subfile_type = uint32_t(val(tag::NewSubfileType, 0));
    uint64_t width = val(tag::ImageWidth, 0), height = val(tag::ImageLength, 0);
    if (width == 0 || height == 0 || width > 0xFFFFFFFFu || height > 0xFFFFFFFFu)
      throw SlideError("TIFF directory at " + std::to_string(off) + " has an invalid image size");
    d.width = uint32_t(width), d.height = uint32_t(height);
    d.samples = uint32_t(val(tag::SamplesPerPixel, 1));
    if (has(tag::BitsPerSample)) {
      auto b = ints(tags[tag::BitsPerSample]);
      d.bits = b.empty() ? 1 : uint32_t(b[0]);
      for (auto x : b)
        if (x != b[0]) d.unsupported = "mixed bits per sample";
    } else {
      d.bits = 1;
    }
    d.compression = uint32_t(val(tag::Compression, 1));
    d.photometric = uint32_t(val(tag::Photometric, d.samples >= 3 ? photometric::RGB : photometric::MinIsBlack));
    d.planar = uint32_t(val(tag::PlanarConfig, 1));
    d.predictor = uint32_t(val(tag::Predictor, 1));
    d.sample_format = uint32_t(val(tag::SampleFormat, 1));
    d.resolution_unit = uint32_t(last(tag::ResolutionUnit) ? one(*last(tag::ResolutionUnit)) : 2);
    for (auto [t, v] : {std::pair{tag::XResolution, &d.x_resolution}, {tag::YResolution, &d.y_resolution},
                        {tag::XPosition, &d.x_position}, {tag::YPosition, &d.y_position}})
      if (const Entry* e = last(t)) *v = real(*e);
    if (has(tag::JPEGTables)) {
      auto& e = tags[tag::JPEGTables];
      d.jpeg_tables.assign(e.data.begin(), e.data.end());
    }
    d.tiled = has(tag::TileWidth) || has(tag::TileOffsets);
    uint64_t tw, th;
    if (d.tiled) {
      tw = val(tag::TileWidth, 0), th = val(tag::TileLength, 0);
      if (!has(tag::TileOffsets) || !has(tag::TileByteCounts))
        throw SlideError("tiled TIFF directory without tile offsets or byte counts");
      d.offsets = ints(tags[tag::TileOffsets]);
      d.byte_counts = ints(tags[tag::TileByteCounts]);
    } else {
      tw = width, th = std::min<uint64_t>(val(tag::RowsPerStrip, height), height);
      if (!has(tag::StripOffsets) || !has(tag::StripByteCounts))
        throw SlideError("TIFF directory without strip offsets or byte counts");
      d.offsets = ints(tags[tag::StripOffsets]);
      d.byte_counts = ints(tags[tag::StripByteCounts]);
    }
    if (tw == 0 || th == 0 || tw > 0xFFFFFFFFu || th > 0xFFFFFFFFu)
      throw SlideError("TIFF directory at " + std::to_string(off) + " has an invalid tile size");
    d.tile_width = uint32_t(tw), d.tile_height = uint32_t(th);
    // tiles per plane < 2^64 (both factors < 2^32); times the planes it may wrap, so compare by division
    const uint64_t per_plane = uint64_t(d.tiles_across()) * d.tiles_down();
    const uint64_t planes = d.planar == 2 ? std::max<uint64_t>(d.samples, 1) : 1;
    if (d.offsets.size() % planes != 0 || d.offsets.size() / planes != per_plane ||
        d.byte_counts.size() != d.offsets.size())
      throw SlideError("TIFF directory at " + std::to_string(off) + " lists " + std::to_string(d.offsets.size()) +
                       " tiles where its size implies " + std::to_string(per_plane) + " per plane");
    if (d.unsupported.empty()) d.unsupported = check_decodable(d);
    if (has(tag::SubIFDs)) {
      auto& e = tags[tag::SubIFDs];
      if (e.type == 4 || e.type == 13 || e.type == 16 || e.type == 18)
        for (auto s : ints(e)) sub_offsets.push_back(s);
    }
    t.ifds_.push_back(std::move(d));
    return next;
  }

  static std::string check_decodable(const Ifd& d) {
    if (d.bits != 8 && d.bits != 16) return std::to_string(d.bits) + "-bit samples are not supported";
    if (d.sample_format != 1) return "sample format " + std::to_string(d.sample_format) + " is not supported";
    if (d.samples != 1 && d.samples != 3 && d.samples != 4)
      return std::to_string(d.samples) + " samples per pixel are not supported";
    if (d.planar != 1 && d.planar != 2) return "planar configuration " + std::to_string(d.planar) + " is invalid";
    const bool planes = d.planar == 2 && d.samples > 1;
    if (d.predictor != 1 && d.predictor != 2) return "predictor " + std::to_string(d.predictor) + " is not supported";
    bool codec_color = false;  // the codec itself turns YCbCr into RGB
    switch (d.compression) {
      case compression::None: case compression::LZW: case compression::Deflate:
      case compression::AdobeDeflate: case compression::Zstd:
        break;
      case compression::JPEG:
        if (d.bits != 8) return "JPEG with " + std::to_string(d.bits) + "-bit samples is not supported";
        if (d.samples == 4) return "4-sample JPEG is not supported";
        codec_color = !planes;
        break;
      case compression::WebP:
        if (d.bits != 8 || d.samples < 3 || planes) return "WebP tiles must hold 8-bit RGB or RGBA pixels";
        break;
      case compression::AperioJ2kYCbCr: case compression::AperioJ2kRGB:
        if (d.bits != 8 || d.samples != 3 || planes) return "Aperio JPEG 2000 tiles must hold 8-bit RGB pixels";
        codec_color = true;
        break;
      case compression::JPEG2000: case compression::J2kLossy:
        codec_color = !planes;
        break;
      default:
        return "compression " + std::to_string(d.compression) + " is not supported";
    }
    if (d.predictor == 2 && d.compression != compression::None && d.compression != compression::LZW &&
        d.compression != compression::Deflate && d.compression != compression::AdobeDeflate &&
        d.compression != compression::Zstd)
      return "a predictor with compression " + std::to_string(d.compression) + " is not supported";
    bool gray = d.photometric == photometric::MinIsBlack || d.photometric == photometric::MinIsWhite;
    bool color = d.photometric == photometric::RGB || (d.photometric == photometric::YCbCr && codec_color);
    if (!(gray && d.samples == 1) && !(color && d.samples >= 3))
      return "photometric interpretation " + std::to_string(d.photometric) + " with " +
             std::to_string(d.samples) + " samples is not supported";
    if (uint64_t(d.tile_width) * d.tile_height * d.samples * d.bytes_per_sample() > kMaxTileBytes)
      return "tiles of " + std::to_string(d.tile_width) + "x" + std::to_string(d.tile_height) + " are too large";
    return {};
  }
};

TiffFile::TiffFile(const std::string& path) : file_(std::make_unique<File>(path)) {
  uint8_t h[16];
  if (file_->size() < 8) throw SlideError("unsupported format: not a TIFF file (too short)");
  file_->read(0, h, 8);
  if (h[0] == 'I' && h[1] == 'I') little_ = true;
  else if (h[0] == 'M' && h[1] == 'M') little_ = false;
  else throw SlideError("unsupported format: not a TIFF file");
  IfdParser p{*this, *file_};
  uint64_t version = p.get(h + 2, 2), first;
  if (version == 42) {
    first = p.get(h + 4, 4);
  } else if (version == 43) {
    bigtiff_ = true;
    file_->read(8, h + 8, 8);
    if (p.get(h + 4, 2) != 8 || p.get(h + 6, 2) != 0) throw SlideError("corrupt BigTIFF header");
    first = p.get(h + 8, 8);
  } else {
    throw SlideError("unsupported format: not a TIFF file");
  }
  std::set<uint64_t> seen;
  auto visit = [&](uint64_t off) {
    if (!seen.insert(off).second) throw SlideError("corrupt TIFF: directory loop at offset " + std::to_string(off));
    if (seen.size() > kMaxIfds) throw SlideError("corrupt TIFF: too many directories");
  };
  // the main chain, then the SubIFDs of each directory (breadth first), recording each one's parent
  std::vector<std::pair<uint64_t, int>> pending;
  for (uint64_t off = first; off != 0;) {
    visit(off);
    std::vector<uint64_t> subs;
    off = p.parse(off, -1, subs);
    for (auto s : subs) pending.emplace_back(s, int(ifds_.size()) - 1);
  }
  for (size_t i = 0; i < pending.size(); ++i) {
    auto [off, parent] = pending[i];
    visit(off);
    std::vector<uint64_t> subs;
    p.parse(off, parent, subs);
    for (auto s : subs) pending.emplace_back(s, int(ifds_.size()) - 1);
  }
  if (ifds_.empty()) throw SlideError("TIFF file has no directories");
}

// ------------------------------------------------------------------------------------------ decoding

namespace {

// Undoes horizontal differencing (predictor 2) on rows of `spp` interleaved samples of type T.
template <class T>
void undo_differencing(uint8_t* data, size_t rows, size_t row_bytes, uint32_t spp) {
  const size_t n = row_bytes / sizeof(T);
  for (size_t r = 0; r < rows; ++r) {
    T* p = reinterpret_cast<T*>(data + r * row_bytes);
    for (size_t i = spp; i < n; ++i) p[i] = T(p[i] + p[i - spp]);
  }
}

bool host_is_little() {
  const uint16_t one = 1;
  uint8_t b;
  std::memcpy(&b, &one, 1);
  return b == 1;
}

}  // namespace

void TiffFile::read_chunk(const Ifd& d, uint64_t chunk, std::vector<uint8_t>& compressed) const {
  if (chunk >= d.offsets.size()) throw ValueError("no chunk " + std::to_string(chunk) + " in this directory");
  const uint64_t off = d.offsets[chunk], n = d.byte_counts[chunk];
  if (n > file_->size()) throw SlideError("tile byte count past the end of the file");
  compressed.resize(n);
  file_->read(off, compressed.data(), n);
}

void TiffFile::decode_chunk(const Ifd& d, uint64_t chunk, uint32_t spp, std::vector<uint8_t>& compressed,
                            std::vector<uint8_t>& out) const {
  const uint32_t bps = d.bytes_per_sample();
  const size_t row = size_t(d.tile_width) * spp * bps;
  // rows that must be decoded: strips at the bottom edge hold only the image's remaining rows
  const uint64_t tile = chunk % (uint64_t(d.tiles_across()) * d.tiles_down());
  const uint64_t y0 = (tile / d.tiles_across()) * d.tile_height;
  const size_t rows = d.tiled ? d.tile_height : size_t(std::min<uint64_t>(d.tile_height, d.height - y0));
  const size_t need = rows * row, cap = size_t(d.tile_height) * row;
  out.resize(cap);
  read_chunk(d, chunk, compressed);
  const uint64_t n = compressed.size();
  const uint8_t* src = compressed.data();
  size_t got = 0;
  bool file_order = true;  // samples still in the file's byte order
  switch (d.compression) {
    case compression::None:
      got = std::min<size_t>(n, cap);
      std::memcpy(out.data(), src, got);
      break;
    case compression::LZW: got = codec::lzw(src, n, out.data(), cap); break;
    case compression::Deflate:
    case compression::AdobeDeflate: got = codec::inflate(src, n, out.data(), cap); break;
    case compression::Zstd: got = codec::zstd(src, n, out.data(), cap); break;
    case compression::JPEG:
      got = codec::jpeg(src, n, d.jpeg_tables, d.photometric == photometric::RGB, spp, d.tile_width,
                        d.tile_height, out.data(), row) * row;
      break;
    case compression::WebP:
      got = codec::webp(src, n, spp, d.tile_width, d.tile_height, out.data(), row) * row;
      break;
    case compression::JPEG2000:
    case compression::J2kLossy:
    case compression::AperioJ2kYCbCr:
    case compression::AperioJ2kRGB:
      got = codec::jpeg2000(src, n, d.compression == compression::AperioJ2kYCbCr, spp, bps, d.tile_width,
                            d.tile_height, out.data(), row) * row;
      file_order = false;
      break;
    default:
      throw SlideError("compression " + std::to_string(d.compression) + " is not supported");
  }
  if (got < need)
    throw SlideError("tile " + std::to_string(chunk) + " decodes to " + std::to_string(got) + " bytes, expected " +
                     std::to_string(need));
  if (bps == 2 && file_order && little_ != host_is_little())
    for (size_t i = 0; i + 1 < need; i += 2) std::swap(out[i], out[i + 1]);
  if (d.predictor == 2) {
    if (bps == 1) undo_differencing<uint8_t>(out.data(), rows, row, spp);
    else undo_differencing<uint16_t>(out.data(), rows, row, spp);
  }
}

void TiffFile::decode_tile(const Ifd& d, uint64_t tile, std::vector<uint8_t>& compressed,
                           std::vector<uint8_t>& out) const {
  if (!d.unsupported.empty()) throw SlideError("cannot decode this image: " + d.unsupported);
  if (d.planar != 2 || d.samples == 1) return decode_chunk(d, tile, d.samples, compressed, out);
  // separate planes: chunk s * (tiles per plane) + tile holds sample s; interleave them
  const uint64_t per_plane = uint64_t(d.tiles_across()) * d.tiles_down();
  const size_t bps = d.bytes_per_sample(), pixels = size_t(d.tile_width) * d.tile_height;
  out.assign(pixels * d.samples * bps, 0);
  std::vector<uint8_t> plane;
  for (uint32_t s = 0; s < d.samples; ++s) {
    const uint64_t chunk = s * per_plane + tile;
    if (d.offsets[chunk] == 0 || d.byte_counts[chunk] == 0) continue;  // a sparse plane stays 0
    decode_chunk(d, chunk, 1, compressed, plane);
    const size_t valid = std::min(plane.size() / bps, pixels);
    for (size_t i = 0; i < valid; ++i) std::memcpy(&out[(i * d.samples + s) * bps], &plane[i * bps], bps);
  }
}

void TiffFile::for_each_row(int index, int64_t x, int64_t y, int64_t w, int64_t h, TileCache* cache,
                            const PutRow& put, const DirectTile& direct, const PixelsTo* to) const {
  const Ifd& d = ifds_[size_t(index)];
  const int64_t x0 = std::max<int64_t>(x, 0), y0 = std::max<int64_t>(y, 0);
  const int64_t x1 = std::min<int64_t>(x + w, d.width), y1 = std::min<int64_t>(y + h, d.height);
  if (x0 >= x1 || y0 >= y1) return;
  if (!d.unsupported.empty()) throw SlideError("cannot decode this image: " + d.unsupported);
  const int64_t tw = d.tile_width, th = d.tile_height;
  const int64_t tx0 = x0 / tw, tx1 = (x1 - 1) / tw, ty0 = y0 / th, ty1 = (y1 - 1) / th;
  const int64_t across = tx1 - tx0 + 1, count = across * (ty1 - ty0 + 1);
  const size_t pixel = size_t(d.samples) * d.bytes_per_sample();
  parallel_for(count, 1, [&](int64_t begin, int64_t end) {
    // per-thread buffers kept across calls: allocating (and page-faulting) a tile's worth per call cost
    // more than a third of a patch read
    thread_local std::vector<uint8_t> compressed, pixels;
    // false: tile k is being decoded into the cache by another thread, and `wait` is false
    auto one = [&](int64_t k, bool wait) {
      const int64_t tx = tx0 + k % across, ty = ty0 + k / across;
      const uint64_t tile = uint64_t(ty) * d.tiles_across() + uint64_t(tx);
      if (d.offsets[tile] == 0 || d.byte_counts[tile] == 0) return true;  // sparse tile: transparent
      // the part of this tile inside the region, in image coordinates
      const int64_t ax = std::max(x0, tx * tw), bx = std::min(x1, (tx + 1) * tw);
      const int64_t ay = std::max(y0, ty * th), by = std::min(y1, (ty + 1) * th);
      const bool whole = d.tiled && ax == tx * tw && bx == (tx + 1) * tw && ay == ty * th && by == (ty + 1) * th;
      if (whole && direct && direct(tile, ax - x, ay - y, compressed)) return true;
      // the part of the tile the region needs, straight from the cache on a hit
      const TileRect rect{
          uint64_t(tw) * pixel, uint64_t(ay - ty * th), uint64_t(by - ty * th), uint64_t(ax - tx * tw) * pixel,
          uint64_t(bx - tx * tw) * pixel,
          to ? PixelsTo{to->out + size_t(ay - y) * to->stride + size_t(ax - x) * size_t(to->channels), to->stride,
                        to->channels}
             : PixelsTo{}};
      return tile_rows(
          index, tile, cache, rect,
          [&](uint64_t row, const uint8_t* src, uint64_t rows, uint64_t stride) {
            put(src, stride, ax - x, ty * th + int64_t(row) - y, bx - ax, int64_t(rows));
          },
          compressed, pixels, wait);
    };
    // Tiles another thread is decoding come last: readers of neighbouring patches (a batch's workers) share
    // tiles, and waiting for one before decoding one's own chained each patch's decode to the previous one's.
    std::vector<int64_t> later;
    for (int64_t k = begin; k < end; ++k)
      if (!one(k, false)) later.push_back(k);
    for (int64_t k : later) one(k, true);
  });
}

// RGB to opaque RGBA, n pixels. Every pixel of a Slide patch taken from cached or partly decoded tiles comes
// out this way: the byte shuffle does 16 pixels in 12 operations, and with the 32-bit loop below alone,
// unaligned cached patches ran 6% slower (2-core machine).
static void rgb_to_rgba_portable(const uint8_t* s, uint8_t* o, int64_t n) {
  int64_t i = 0;
  if constexpr (std::endian::native == std::endian::little) {
    // four pixels from three 32-bit loads (r0g0b0r1 g1b1r2g2 b2r3g3b3) into four 32-bit stores
    constexpr uint32_t kAlpha = 0xff000000u;
    for (; i + 4 <= n; i += 4) {
      uint32_t a, b, c;
      std::memcpy(&a, s + 3 * i, 4), std::memcpy(&b, s + 3 * i + 4, 4), std::memcpy(&c, s + 3 * i + 8, 4);
      const uint32_t v[4] = {a | kAlpha, a >> 24 | b << 8 | kAlpha, b >> 16 | c << 16 | kAlpha, c >> 8 | kAlpha};
      std::memcpy(o + 4 * i, v, 16);
    }
  }
  for (; i < n; ++i) o[4 * i] = s[3 * i], o[4 * i + 1] = s[3 * i + 1], o[4 * i + 2] = s[3 * i + 2], o[4 * i + 3] = 255;
}

#if defined(__x86_64__) || defined(__i386__)
// 16 pixels are 48 bytes: loads at 0, 12 and 24 hold pixels 0-3, 4-7 and 8-11 in their first 12 bytes, the
// load at 32 pixels 12-15 in its last 12 (no byte past the 48 is read)
__attribute__((target("ssse3"))) static inline void rgb_to_rgba_16(const uint8_t* p, uint8_t* out) {
  const __m128i lo = _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
  const __m128i hi = _mm_setr_epi8(4, 5, 6, -1, 7, 8, 9, -1, 10, 11, 12, -1, 13, 14, 15, -1);
  const __m128i alpha = _mm_set1_epi32(int32_t(0xff000000u));
  __m128i* q = reinterpret_cast<__m128i*>(out);
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 12));
  const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 24));
  const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 32));
  _mm_storeu_si128(q, _mm_or_si128(_mm_shuffle_epi8(a, lo), alpha));
  _mm_storeu_si128(q + 1, _mm_or_si128(_mm_shuffle_epi8(b, lo), alpha));
  _mm_storeu_si128(q + 2, _mm_or_si128(_mm_shuffle_epi8(c, lo), alpha));
  _mm_storeu_si128(q + 3, _mm_or_si128(_mm_shuffle_epi8(d, hi), alpha));
}

__attribute__((target("ssse3"))) static void rgb_to_rgba_ssse3(const uint8_t* s, uint8_t* o, int64_t n) {
  if (n < 16) return rgb_to_rgba_portable(s, o, n);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) rgb_to_rgba_16(s + 3 * i, o + 4 * i);
  // the last pixels as the 16 ending the row, some done twice: a patch row's 255 pixels left 15 to the
  // scalar loop, which took 30% of the expansion's time
  if (i < n) rgb_to_rgba_16(s + 3 * (n - 16), o + 4 * (n - 16));
}
#endif

static void rgb_to_rgba(const uint8_t* s, uint8_t* o, int64_t n) {
#if defined(__x86_64__) || defined(__i386__)
  static const bool ssse3 = __builtin_cpu_supports("ssse3");
  if (ssse3) return rgb_to_rgba_ssse3(s, o, n);
#endif
  rgb_to_rgba_portable(s, o, n);
}

// Whether decoding writes every pixel of the region: it lies inside the image and meets no sparse tile
// (otherwise the caller clears the region first, and what is not written stays transparent).
static bool writes_whole_region(const Ifd& d, int64_t x, int64_t y, int64_t w, int64_t h) {
  if (x < 0 || y < 0 || x + w > int64_t(d.width) || y + h > int64_t(d.height)) return false;
  const int64_t tw = d.tile_width, th = d.tile_height;
  for (int64_t ty = y / th; ty <= (y + h - 1) / th; ++ty)
    for (int64_t tx = x / tw; tx <= (x + w - 1) / tw; ++tx) {
      const uint64_t tile = uint64_t(ty) * d.tiles_across() + uint64_t(tx);
      if (tile >= d.offsets.size() || d.offsets[tile] == 0 || d.byte_counts[tile] == 0) return false;
    }
  return true;
}

void TiffFile::read_region_8bit(int index, int64_t x, int64_t y, int64_t w, int64_t h, uint8_t* out, int channels,
                                size_t stride) const {
  if (index < 0 || size_t(index) >= ifds_.size()) throw ValueError("no TIFF directory " + std::to_string(index));
  if (w <= 0 || h <= 0) throw ValueError("region size must be positive");
  if (channels != 3 && channels != 4) throw ValueError("channels must be 3 (RGB) or 4 (RGBA)");
  const Ifd& d = ifds_[size_t(index)];
  const size_t row_bytes = size_t(w) * size_t(channels);
  if (!writes_whole_region(d, x, y, w, h))
    for (int64_t r = 0; r < h; ++r) std::memset(out + size_t(r) * stride, 0, row_bytes);
  const uint32_t spp = d.samples;
  const bool gray = spp == 1, white = d.photometric == photometric::MinIsWhite, rgba = channels == 4;
  // 8-bit colour JPEG tiles wholly inside the region decode straight into it (no intermediate tile, no
  // expansion pass), unless a tile cache wants the decoded tile
  const std::shared_ptr<TileCache> cache = tile_cache();
  DirectTile direct;
  if (d.compression == compression::JPEG && spp == 3 && d.bits == 8 && d.planar == 1 && !cache)
    direct = [&](uint64_t tile, int64_t rx, int64_t ry, std::vector<uint8_t>& compressed) {
      read_chunk(d, tile, compressed);
      const uint32_t rows = codec::jpeg(compressed.data(), compressed.size(), d.jpeg_tables,
                                        d.photometric == photometric::RGB, 3, d.tile_width, d.tile_height,
                                        out + size_t(ry) * stride + size_t(rx) * size_t(channels), stride, rgba);
      if (rows < d.tile_height)
        throw SlideError("tile " + std::to_string(tile) + " decodes to " + std::to_string(rows) + " rows, expected " +
                         std::to_string(d.tile_height));
      return true;
    };
  const PixelsTo to{out, stride, channels};
  for_each_row(index, x, y, w, h, cache.get(), [&](const uint8_t* src, size_t src_stride, int64_t rx, int64_t ry,
                                                   int64_t n, int64_t rows) {
    uint8_t* const dst = out + size_t(ry) * stride + size_t(rx) * size_t(channels);
    if (d.bits == 8 && spp == 3 && !rgba) return copy_rows(dst, stride, src, src_stride, size_t(n) * 3, uint64_t(rows));
    // one loop per layout, without per-pixel branches (RGB expansion was a fifth of a patch read)
    for (int64_t r = 0; r < rows; ++r) {
      const uint8_t* s = src + size_t(r) * src_stride;
      uint8_t* o = dst + size_t(r) * stride;
      if (d.bits == 8) {
        if (gray) {
          for (int64_t i = 0; i < n; ++i, o += channels) {
            const uint8_t g = white ? uint8_t(255 - s[i]) : s[i];
            o[0] = o[1] = o[2] = g;
            if (rgba) o[3] = 255;
          }
        } else if (spp == 3) {  // to RGBA (to RGB went out above)
          rgb_to_rgba(s, o, n);
        } else {
          for (int64_t i = 0; i < n; ++i, s += spp, o += channels) {
            o[0] = s[0], o[1] = s[1], o[2] = s[2];
            if (rgba) o[3] = 255;
          }
        }
      } else {  // 16-bit, host order
        const auto* p = reinterpret_cast<const uint16_t*>(s);
        for (int64_t i = 0; i < n; ++i, p += spp, o += channels) {
          if (gray) {
            uint8_t g = uint8_t(p[0] >> 8);
            o[0] = o[1] = o[2] = white ? uint8_t(255 - g) : g;
          } else {
            for (int c = 0; c < 3; ++c) o[c] = uint8_t((uint32_t(p[c]) + 128) / 257);
          }
          if (rgba) o[3] = 255;
        }
      }
    }
  }, direct, d.bits == 8 && spp == 3 ? &to : nullptr);
}

void TiffFile::read_region_raw(int index, int64_t x, int64_t y, int64_t w, int64_t h, void* out) const {
  if (index < 0 || size_t(index) >= ifds_.size()) throw ValueError("no TIFF directory " + std::to_string(index));
  if (w <= 0 || h <= 0) throw ValueError("region size must be positive");
  const Ifd& d = ifds_[size_t(index)];
  const size_t pixel = size_t(d.samples) * d.bytes_per_sample();
  auto* o = static_cast<uint8_t*>(out);
  std::memset(o, 0, size_t(w) * size_t(h) * pixel);
  for_each_row(index, x, y, w, h, tile_cache().get(),
               [&](const uint8_t* s, size_t s_stride, int64_t rx, int64_t ry, int64_t n, int64_t rows) {
                 copy_rows(o + (size_t(ry) * size_t(w) + size_t(rx)) * pixel, size_t(w) * pixel, s, s_stride,
                           size_t(n) * pixel, uint64_t(rows));
               });
}

}  // namespace ndimg::io

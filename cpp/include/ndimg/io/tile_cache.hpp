// A cache of decoded tiles, consulted by TiffFile before decoding a tile (off unless one is installed with
// set_tile_cache). Two kinds, chosen like cuCIM's CuImage.cache():
//   PerProcess    an LRU in this process's memory;
//   SharedMemory  the same LRU in a POSIX shared-memory segment (shm_open + mmap) that forked children
//                 share, and that other processes (multiprocessing "spawn", PyTorch DataLoader workers)
//                 attach to by name. Its index is guarded by robust process-shared mutexes, so a process
//                 that dies holding one leaves a usable cache (the interrupted shard is emptied). One
//                 that dies while copying a tile in or out (outside the lock) leaves that tile's memory
//                 held until its shard is next emptied so.
// Both are bounded by memory_capacity (bytes of decoded tiles: rows of pixels, or for JPEG tiles of YCbCr with
// 4:2:0 chroma their planes, half the bytes of RGB) and capacity (number of tiles), are safe
// to use from any number of threads, and are split into shards (one mutex each) by key hash. A tile that
// several threads of one process miss at once is decoded by one of them while the others wait for it.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ndimg::io {

// A non-owning reference to a callable (no allocation, one indirect call); valid while the callable lives.
template <class Signature>
class FunctionRef;
template <class R, class... A>
class FunctionRef<R(A...)> {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
  FunctionRef(F&& f)  // NOLINT(google-explicit-constructor): passed like a lambda
      : obj_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, A... a) -> R { return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<A>(a)...); }) {}
  R operator()(A... a) const { return call_(obj_, std::forward<A>(a)...); }

 private:
  void* obj_;
  R (*call_)(void*, A...);
};

// Where a reader of 8-bit RGB pixels puts them: as RGB (channels 3) or opaque RGBA (4), the first at `out`, rows
// `stride` bytes apart.
struct PixelsTo {
  uint8_t* out = nullptr;
  size_t stride = 0;
  int channels = 0;
};
// The part of a decoded tile a reader wants: rows [row0, row1) of row_bytes bytes each, and of each of those
// rows its bytes [col0, col1). `to`, when its reader gives one, is where row row0's first wanted pixel goes:
// tiles the cache keeps as YCbCr planes are then converted straight into place, not through the reader's sink.
struct TileRect {
  uint64_t row_bytes = 0, row0 = 0, row1 = 0, col0 = 0, col1 = 0;
  PixelsTo to;
};
// Receives wanted rows, a run at a time: `count` rows from tile row `row` on, the wanted bytes of row row + i at
// bytes + i * stride (valid during the call only). Runs, not single rows: a patch's piece of a cached tile is
// 255 rows, and a call per row cost more than copying it.
using RowSink = FunctionRef<void(uint64_t row, const uint8_t* bytes, uint64_t count, uint64_t stride)>;
// Copies a run of `count` rows of `bytes` bytes: row i from src + i * src_stride to dst + i * dst_stride (what
// most sinks do with a run).
inline void copy_rows(uint8_t* dst, size_t dst_stride, const uint8_t* src, size_t src_stride, size_t bytes,
                      uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) std::memcpy(dst + i * dst_stride, src + i * src_stride, bytes);
}
// Hands `rect` of a whole decoded tile to `sink`.
inline void each_row(const TileRect& rect, const uint8_t* tile, RowSink sink) {
  if (rect.row1 > rect.row0)
    sink(rect.row0, tile + rect.row0 * rect.row_bytes + rect.col0, rect.row1 - rect.row0, rect.row_bytes);
}
// Decodes a tile into the vector (resized to the whole tile's bytes).
using TileDecoder = FunctionRef<void(std::vector<uint8_t>& pixels)>;
// Decodes the first `count` rows of a tile of `rows` rows straight into the cache's memory, row r to rows[r];
// false when it cannot (the tile then goes through a TileDecoder). Saves a copy of every tile stored. `top`,
// when not 0, is how many of the first rows the reader wants at most: the cache then decodes (and keeps) only
// those of a tile it held whole before and has let go of.
// A JPEG tile of 8-bit YCbCr with 4:2:0 chroma can instead be kept as its planes (half the bytes of RGB;
// io/ycc.hpp converts them): `planar` (on a miss, before the cache takes memory) reads the tile and says whether
// it is one, and decode_planes decodes its first `count` rows' planes (Y row r to y[r], chroma row i to cb[i]
// and cr[i]); false when it cannot (the tile then goes through `decode`).
struct TileRowDecoder {
  uint64_t rows, top;
  FunctionRef<bool(uint8_t* const* rows, uint64_t count)> decode;
  FunctionRef<bool()> planar;
  FunctionRef<bool(uint8_t* const* y, uint8_t* const* cb, uint8_t* const* cr, uint64_t count)> decode_planes;
};

// Identity of a tile: the file (device, inode, modification time, size: a rewritten file gets new keys),
// its directory and its tile index.
struct TileKey {
  uint64_t dev = 0, ino = 0, mtime_ns = 0, size = 0;
  uint64_t ifd = 0, tile = 0;
  bool operator==(const TileKey&) const = default;
};

enum class CacheType : int { None = 0, PerProcess = 1, SharedMemory = 2 };

class TileCache {
 public:
  // memory_capacity: bytes of tile pixels; capacity: tiles (0: one per 256x256 RGB tile that fits).
  TileCache(CacheType type, uint64_t memory_capacity, uint64_t capacity, bool record_stat);
  // Attaches to the shared-memory cache another process created (SharedMemory only).
  static std::shared_ptr<TileCache> attach(const std::string& shm_name);
  ~TileCache();
  TileCache(const TileCache&) = delete;
  TileCache& operator=(const TileCache&) = delete;

  CacheType type() const { return type_; }
  const std::string& shm_name() const { return shm_name_; }  // "" unless SharedMemory
  uint64_t memory_capacity() const;
  uint64_t capacity() const;
  uint64_t size() const;         // tiles held
  uint64_t memory_size() const;  // bytes of pixels held
  uint64_t hit_count() const;
  uint64_t miss_count() const;
  bool record() const;
  // Turns hit/miss counting on or off; both counts restart from 0.
  void record(bool on);
  // Drops every tile (but those being copied in or out at that moment, which go later like any other).
  void clear();

  // Hands `rect` of tile `key` to `sink`, row by row: straight from the cache on a hit (a hit), else from
  // decode(pixels), whose tile it then stores, evicting the least recently used ones as needed (a miss;
  // a tile larger than a shard is not stored). When other threads of this process are decoding the
  // same tile, this one waits for theirs instead of decoding it again (or, `wait` false, returns false
  // at once, having done nothing). `into`, when given, is tried first on a miss.
  bool read(const TileKey& key, const TileRect& rect, RowSink sink, TileDecoder decode,
            std::vector<uint8_t>& pixels, const TileRowDecoder* into = nullptr, bool wait = true);

  struct Header;
  struct Shard;
  struct InFlight;

 private:
  TileCache();
  void map_segment(void* base, uint64_t bytes);
  Shard& shard_for(uint64_t hash) const;
  uint64_t total(uint64_t Shard::*field) const;  // the field summed over the shards, each under its lock
  bool lookup(Shard& s, const TileKey& key, uint64_t hash, const TileRect& rect, RowSink sink);
  void put(Shard& s, const TileKey& key, uint64_t hash, const uint8_t* data, uint64_t n, uint64_t rows);
  // False when the tile is still to be decoded; `store` false then when it is not to be stored either.
  bool decode_into(Shard& s, const TileKey& key, uint64_t hash, const TileRect& rect, RowSink sink,
                   const TileRowDecoder& into, bool& store);
  friend void tile_cache_atfork_prepare();
  friend void tile_cache_atfork_parent();
  friend void tile_cache_atfork_child();

  CacheType type_ = CacheType::None;
  std::string shm_name_;
  bool owner_ = false;  // created the shared segment (unlinks it when destroyed, in the creating process)
  int owner_pid_ = 0;
  void* base_ = nullptr;
  uint64_t bytes_ = 0;
  Header* header_ = nullptr;
  std::vector<Shard*> shards_;
  std::unique_ptr<InFlight> in_flight_;  // this process's decodes under way (not in the shared segment)
};

// The process's current cache (nullptr: none). Installing one replaces (and releases) the previous one.
void set_tile_cache(std::shared_ptr<TileCache> cache);
std::shared_ptr<TileCache> tile_cache();

}  // namespace ndimg::io

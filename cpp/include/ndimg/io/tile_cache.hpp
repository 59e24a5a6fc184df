// A cache of decoded tiles, consulted by TiffFile before decoding a tile (off unless one is installed with
// set_tile_cache). Two kinds, chosen like cuCIM's CuImage.cache():
//   PerProcess    an LRU in this process's memory;
//   SharedMemory  the same LRU in a POSIX shared-memory segment (shm_open + mmap) that forked children
//                 share, and that other processes (multiprocessing "spawn", PyTorch DataLoader workers)
//                 attach to by name. Its index is guarded by robust process-shared mutexes, so a process
//                 that dies holding one leaves a usable cache (the interrupted shard is emptied).
// Both are bounded by memory_capacity (bytes of decoded pixels) and capacity (number of tiles), are safe
// to use from any number of threads, and are split into shards (one mutex each) by key hash.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ndimg::io {

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
  void clear();

  // Copies bytes [begin, end) of a cached tile into `out` at their offsets (out is resized to the tile's
  // length; the rest is left as it was) and returns true, else returns false.
  bool get(const TileKey& key, std::vector<uint8_t>& out, uint64_t begin = 0, uint64_t end = UINT64_MAX);
  // Stores a tile, evicting the least recently used ones as needed (a tile larger than a shard is not
  // stored).
  void put(const TileKey& key, const uint8_t* data, uint64_t n);

  struct Header;
  struct Shard;

 private:
  TileCache() = default;
  void map_segment(void* base, uint64_t bytes);
  Shard& shard_for(uint64_t hash) const;
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
};

// The process's current cache (nullptr: none). Installing one replaces (and releases) the previous one.
void set_tile_cache(std::shared_ptr<TileCache> cache);
std::shared_ptr<TileCache> tile_cache();

}  // namespace ndimg::io

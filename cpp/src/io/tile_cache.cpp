#include "ndimg/io/tile_cache.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "io/codecs.hpp"
#include "io/ycc.hpp"
#include "ndimg/error.hpp"
#include "ndimg/io/tiff.hpp"

namespace ndimg::io {

// The cache lives in one mapping (anonymous private memory, or a shared-memory segment) laid out as a
// header followed by shards. Everything inside is addressed by offsets and indices, never pointers, so
// processes that map the segment at different addresses share it. Each shard is an LRU list and a hash
// table of entries whose pixels are kept in chains of fixed-size blocks: no contiguous allocation, hence
// no fragmentation, and the bound is exact. Pixels are copied in and out outside the shard's lock: an
// entry being read is pinned (not evicted meanwhile), and one being stored is reserved (its blocks are
// taken, but it is found only once filled). The lock covers just the index, for ~100 ns a lookup.

namespace {

constexpr uint64_t kMagic = 0x4e44494d47544331ull;  // "NDIMGTC1"
constexpr uint64_t kVersion = 4;
constexpr uint64_t kBlock = 16 << 10;                  // bytes of pixels per block
constexpr uint64_t kShardMemory = 64ull << 20;         // one shard per this much capacity (at most 16)
constexpr uint64_t kDefaultTileBytes = 256 * 256 * 3;  // capacity in tiles by default (as cuCIM)
constexpr uint32_t kNil = UINT32_MAX;

uint64_t align(uint64_t v, uint64_t a = 64) { return (v + a - 1) / a * a; }

// Copies into a block with stores that bypass the CPU caches: a stored tile is read again only much later
// (the next row of patches), so it would only evict what the reader is working on. `dst` is 16-byte
// aligned. Callers end with store_fence() before others may read.
void stream_copy(uint8_t* dst, const uint8_t* src, uint64_t n) {
#ifdef __SSE2__
  uint64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
  }
  std::memcpy(dst + i, src + i, n - i);
#else
  std::memcpy(dst, src, n);
#endif
}

void store_fence() {
#ifdef __SSE2__
  _mm_sfence();
#endif
}

uint64_t mix(uint64_t h, uint64_t v) {  // splitmix64 finalizer over a running combination
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

uint64_t hash_of(const TileKey& k) {
  uint64_t h = 0;
  for (uint64_t v : {k.dev, k.ino, k.mtime_ns, k.size, k.ifd, k.tile}) h = mix(h, v);
  return h;
}

}  // namespace

struct TileCache::Header {
  uint64_t magic, version, total_bytes, memory_capacity, capacity;
  uint64_t nshards, shard_stride, shared;
  std::atomic<uint64_t> hits, misses;
  std::atomic<uint32_t> record;
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared-memory statistics need lock-free atomics");

struct Entry {
  TileKey key;
  uint64_t hash, bytes;                         // bytes: of memory held
  uint32_t first_block, hash_next, prev, next;  // prev/next: LRU neighbours (prev is more recent)
  uint32_t pins;                                // readers copying its pixels out
  uint32_t rows;                                // the tile's first rows that can be read from it
  uint32_t planes;                              // YCbCr planes (Planar) of this many rows, or 0: rows of pixels
  uint32_t pad;
};

// How a tile kept as YCbCr 4:2:0 planes lies in an entry's blocks: Y, Cb, then Cr, each from a block of its own
// on, whole rows to a block. `decoded` rows (whole iMCU rows of 16, or all) serve one row fewer than that
// unless they are all: the last needs the chroma row below (fancy upsampling).
struct Planar {
  struct Plane {
    uint64_t rows, row_bytes;
  };
  uint64_t width;
  static uint64_t decoded(uint64_t rows, uint64_t height) { return std::min(height, (rows + 16) / 16 * 16); }
  static uint64_t readable(uint64_t decoded, uint64_t height) { return decoded >= height ? height : decoded - 1; }
  std::array<Plane, 3> planes(uint64_t decoded) const {
    return {{{decoded, width}, {decoded / 2, width / 2}, {decoded / 2, width / 2}}};
  }
  uint64_t bytes(uint64_t decoded) const {
    uint64_t blocks = 0;
    for (const Plane& p : planes(decoded)) blocks += (p.rows + kBlock / p.row_bytes - 1) / (kBlock / p.row_bytes);
    return blocks * kBlock;
  }
};

struct TileCache::Shard {
  pthread_mutex_t mutex;
  uint64_t memory_capacity;  // bytes of pixels this shard may hold
  uint32_t nbuckets, nentries, nblocks, nlet_go;
  uint32_t free_entry, free_block, free_blocks;
  uint32_t lru_head, lru_tail;  // most and least recently used
  uint64_t items, bytes;
  uint64_t generation;  // counts resets (a reader's pin taken before one is void)
  uint64_t buckets_off, entries_off, next_off, let_go_off, data_off;  // from this shard's address

  char* self() { return reinterpret_cast<char*>(this); }
  uint32_t* buckets() { return reinterpret_cast<uint32_t*>(self() + buckets_off); }
  Entry* entries() { return reinterpret_cast<Entry*>(self() + entries_off); }
  uint32_t* block_next() { return reinterpret_cast<uint32_t*>(self() + next_off); }
  uint8_t* block(uint32_t b) { return reinterpret_cast<uint8_t*>(self() + data_off + uint64_t(b) * kBlock); }
  // Hashes of the tiles evicted lately, one slot per hash bit pattern (the latest wins): whether a tile was here
  // and has been let go of, at the price of forgetting one now and then.
  uint64_t& let_go_slot(uint64_t h) {
    return reinterpret_cast<uint64_t*>(self() + let_go_off)[(h >> 20) & (nlet_go - 1)];
  }
  bool let_go(uint64_t h) { return let_go_slot(h) == h; }
  void forget_let_go() { std::fill_n(reinterpret_cast<uint64_t*>(self() + let_go_off), nlet_go, uint64_t(0)); }

  // Empty state; also how a shard whose lock holder died is recovered.
  void reset() {
    std::fill(buckets(), buckets() + nbuckets, kNil);
    for (uint32_t i = 0; i < nentries; ++i) entries()[i].hash_next = i + 1 < nentries ? i + 1 : kNil;
    for (uint32_t i = 0; i < nblocks; ++i) block_next()[i] = i + 1 < nblocks ? i + 1 : kNil;
    free_entry = 0, free_block = 0, free_blocks = nblocks;
    lru_head = lru_tail = kNil;
    items = bytes = 0;
    forget_let_go();
    ++generation;
  }

  uint32_t find(const TileKey& k, uint64_t h) {
    for (uint32_t e = buckets()[h & (nbuckets - 1)]; e != kNil; e = entries()[e].hash_next)
      if (entries()[e].hash == h && entries()[e].key == k) return e;
    return kNil;
  }
  void unlink_lru(uint32_t e) {
    Entry& x = entries()[e];
    (x.prev == kNil ? lru_head : entries()[x.prev].next) = x.next;
    (x.next == kNil ? lru_tail : entries()[x.next].prev) = x.prev;
  }
  void push_front(uint32_t e) {
    Entry& x = entries()[e];
    x.prev = kNil, x.next = lru_head;
    (lru_head == kNil ? lru_tail : entries()[lru_head].prev) = e;
    lru_head = e;
  }
  // Returns an entry (not in the index) and its blocks to the free lists.
  void release(uint32_t e) {
    Entry& x = entries()[e];
    uint32_t b = x.first_block, n = 0, last = kNil;
    for (; b != kNil; last = b, b = block_next()[b]) ++n;
    if (last != kNil) block_next()[last] = free_block, free_block = x.first_block;
    free_blocks += n;
    items -= 1, bytes -= x.bytes;
    x.hash_next = free_entry, free_entry = e;
  }
  void evict(uint32_t e) {
    Entry& x = entries()[e];
    unlink_lru(e);
    for (uint32_t* p = &buckets()[x.hash & (nbuckets - 1)]; *p != kNil; p = &entries()[*p].hash_next)
      if (*p == e) {
        *p = x.hash_next;
        break;
      }
    let_go_slot(x.hash) = x.hash;
    release(e);
  }
  // Whether the copy in entry e gives way to one of `rows` rows: it holds fewer of the tile's rows and nobody is
  // reading it (then it is evicted here). A copy that stays is the one readers find.
  bool gives_way(uint32_t e, uint64_t rows) {
    if (entries()[e].rows >= rows || entries()[e].pins) return false;
    evict(e);
    return true;
  }
  // Evicts the least recently used entry that nobody is reading; false when there is none.
  bool evict_one() {
    for (uint32_t e = lru_tail; e != kNil; e = entries()[e].prev)
      if (entries()[e].pins == 0) {
        evict(e);
        return true;
      }
    return false;
  }
  // Takes an entry of n bytes (evicting as needed) for `key`, pinned and outside the index until
  // publish(); kNil when readers pin everything evictable. The caller says what it will hold.
  uint32_t reserve(const TileKey& key, uint64_t h, uint64_t n, uint64_t need) {
    while (free_entry == kNil || free_blocks < need || bytes + n > memory_capacity)
      if (!evict_one()) return kNil;
    const uint32_t e = free_entry;
    Entry& x = entries()[e];
    free_entry = x.hash_next;
    x.key = key, x.hash = h, x.bytes = n, x.pins = 1;
    x.first_block = free_block;
    uint32_t b = free_block;
    for (uint64_t i = 1; i < need; ++i) b = block_next()[b];
    free_block = block_next()[b];
    block_next()[b] = kNil;
    free_blocks -= uint32_t(need);
    items += 1, bytes += n;
    return e;
  }
  // Bytes [lo, hi) of an entry, from its block b (at offset `at`) on: f(address, offset from lo, length) for
  // each block's piece.
  template <class F>
  void pieces(uint32_t b, uint64_t at, uint64_t lo, uint64_t hi, F f) {
    for (uint64_t p = lo; p < hi; b = block_next()[b], at += kBlock) {
      const uint64_t q = std::min(hi, at + kBlock);
      f(block(b) + (p - at), p - lo, q - p);
      p = q;
    }
  }
  void publish(uint32_t e) {
    Entry& x = entries()[e];
    uint32_t& bucket = buckets()[x.hash & (nbuckets - 1)];
    x.hash_next = bucket, bucket = e;
    x.pins = 0;
    push_front(e);
  }
};

namespace {

class ShardLock {
 public:
  explicit ShardLock(TileCache::Shard& s) : s_(s) {
    int rc = pthread_mutex_lock(&s_.mutex);
    if (rc == EOWNERDEAD) {  // a process died inside: its update may be half done, so start over
      s_.reset();
      pthread_mutex_consistent(&s_.mutex);
    } else if (rc != 0) {
      throw Error(std::string("tile cache lock failed: ") + std::strerror(rc));
    }
  }
  ~ShardLock() { pthread_mutex_unlock(&s_.mutex); }

 private:
  TileCache::Shard& s_;
};

// What a copy of a tile holds: its first `rows` rows (readable), in `bytes` of memory, as `planes` rows of YCbCr
// planes (or 0: rows of pixels).
struct Extent {
  uint64_t rows = 0, bytes = 0, planes = 0;
};

// An entry taken for a tile being stored: filled outside the lock, then published (or given back).
struct Reservation {
  uint32_t entry = kNil, block = kNil;  // block: its first
  Extent extent;
  uint64_t generation = 0;
};

// Takes an entry for `key` holding `whole` (the whole tile), or `top` (its first rows, when top.rows is not 0)
// for a tile that was here and has been let go of; none (entry kNil) when the shard cannot hold it, readers pin
// everything evictable, or the tile is there already (stored by another process meanwhile). A copy of fewer
// of the tile's rows is replaced.
Reservation reserve_for(TileCache::Shard& s, const TileKey& key, uint64_t h, const Extent& whole,
                        const Extent& top = {}) {
  ShardLock lk(s);
  const Extent& x = top.rows && s.let_go(h) ? top : whole;
  const uint64_t need = std::max<uint64_t>(1, (x.bytes + kBlock - 1) / kBlock);
  if (x.bytes > s.memory_capacity || need > s.nblocks) return {};
  if (const uint32_t e = s.find(key, h); e != kNil && !s.gives_way(e, x.rows)) {
    if (s.entries()[e].rows >= x.rows) s.unlink_lru(e), s.push_front(e);  // as a use of the copy there
    return {};
  }
  const uint32_t e = s.reserve(key, h, x.bytes, need);
  if (e == kNil) return {};
  s.entries()[e].rows = uint32_t(x.rows), s.entries()[e].planes = uint32_t(x.planes);
  return {e, s.entries()[e].first_block, x, s.generation};
}

// Makes a filled reservation findable, or gives it back when another process stored as much of the tile
// meanwhile.
void publish_reserved(TileCache::Shard& s, const TileKey& key, uint64_t h, const Reservation& r) {
  ShardLock lk(s);
  if (s.generation != r.generation) return;  // reset meanwhile: the reservation is gone
  if (const uint32_t e = s.find(key, h); e != kNil && !s.gives_way(e, r.extent.rows)) return s.release(r.entry);
  s.publish(r.entry);
}

void give_back(TileCache::Shard& s, const Reservation& r) {
  ShardLock lk(s);
  if (s.generation == r.generation) s.release(r.entry);
}

// Fills reservation r by decode(): false when it could not (r given back, as when it throws).
template <class F>
bool fill(TileCache::Shard& s, const Reservation& r, F decode) {
  bool done;
  try {
    done = decode();
  } catch (...) {
    give_back(s, r);
    throw;
  }
  if (!done) give_back(s, r);
  return done;
}

// Row pointers of the planes in an entry from its first block b on: Y rows [0, decoded), then Cb's and Cr's
// rows [0, decoded / 2). Valid until this thread's next call.
uint8_t* const* plane_rows(TileCache::Shard& s, uint32_t b, const Planar& g, uint64_t decoded) {
  thread_local std::vector<uint8_t*> rows;
  rows.resize(2 * decoded);
  uint8_t** at = rows.data();
  for (const Planar::Plane& p : g.planes(decoded))
    for (uint64_t r = 0; r < p.rows; b = s.block_next()[b])  // each plane from a block of its own on
      for (uint64_t k = 0; k < kBlock / p.row_bytes && r < p.rows; ++k, ++r) *at++ = s.block(b) + k * p.row_bytes;
  return rows.data();
}

// Hands rect of a tile kept as planes (`decoded` rows of them) to its reader: converted straight into rect.to
// when it gives one, else a few rows at a time to the sink as RGB. (Partial planes pass as an image of their
// rows: no row read then reaches the last, whose neighbour below would be repeated.)
void planes_out(uint8_t* const* rows, uint64_t width, uint64_t decoded, const TileRect& rect, RowSink sink) {
  const Ycc420 src{rows, rows + decoded, rows + decoded + decoded / 2, uint32_t(width), uint32_t(decoded)};
  const auto c0 = uint32_t(rect.col0 / 3), c1 = uint32_t(rect.col1 / 3);
  if (rect.to.out)
    return ycc420_to_rgb(src, uint32_t(rect.row0), uint32_t(rect.row1), c0, c1, rect.to.out, rect.to.stride,
                         rect.to.channels);
  constexpr uint64_t kRows = 16;
  const uint64_t n = rect.col1 - rect.col0;
  thread_local std::vector<uint8_t> rgb;
  rgb.resize(kRows * n);
  for (uint64_t r = rect.row0; r < rect.row1; r += kRows) {
    const uint64_t count = std::min(kRows, rect.row1 - r);
    ycc420_to_rgb(src, uint32_t(r), uint32_t(r + count), c0, c1, rgb.data(), n, 3);
    sink(r, rgb.data(), count, n);
  }
}

}  // namespace

// The tiles this process's threads are decoding, in stripes by key hash (a stripe's waiters wake when one
// of its decodes ends).
struct TileCache::InFlight {
  struct Stripe {
    std::mutex m;
    std::condition_variable done;
    std::vector<TileKey> keys;
  };
  static constexpr uint64_t kStripes = 64;
  Stripe stripes[kStripes];

  Stripe& stripe(uint64_t hash) { return stripes[hash % kStripes]; }
  enum Claim { Mine, Done, Busy };
  // Mine: this thread now decodes `key`. Done: another one was, and has finished. Busy: another one is
  // (only without `wait`).
  Claim claim(const TileKey& key, uint64_t hash, bool wait) {
    Stripe& s = stripe(hash);
    std::unique_lock<std::mutex> lk(s.m);
    auto busy = [&] { return std::find(s.keys.begin(), s.keys.end(), key) != s.keys.end(); };
    if (!busy()) {
      s.keys.push_back(key);
      return Mine;
    }
    if (!wait) return Busy;
    s.done.wait(lk, [&] { return !busy(); });
    return Done;
  }
  void release(const TileKey& key, uint64_t hash) {
    Stripe& s = stripe(hash);
    {
      std::lock_guard<std::mutex> lk(s.m);
      s.keys.erase(std::find(s.keys.begin(), s.keys.end(), key));
    }
    s.done.notify_all();
  }
  // fork: the child has none of the parent's decoding threads (prepare locked every stripe)
  void lock_all() {
    for (Stripe& s : stripes) s.m.lock();
  }
  void unlock_all() {
    for (Stripe& s : stripes) s.m.unlock();
  }
  void reset_in_child() {
    for (Stripe& s : stripes) {
      s.keys.clear();
      new (&s.m) std::mutex();  // the locked copy, and a condition variable whose waiters stayed in the parent
      new (&s.done) std::condition_variable();
    }
  }
};

namespace {

std::mutex g_cache_m;
std::shared_ptr<TileCache>* g_cache = nullptr;  // leaked: never destroyed at exit while threads may read
std::atomic<bool> g_cache_on{false};
std::atomic<uint64_t> g_shm_counter{0};

}  // namespace

TileCache::TileCache() : in_flight_(std::make_unique<InFlight>()) {}

TileCache::TileCache(CacheType type, uint64_t memory_capacity, uint64_t capacity, bool record_stat) : TileCache() {
  type_ = type;
  if (type == CacheType::None) {
    record(record_stat);
    return;
  }
  if (memory_capacity == 0) throw ValueError("memory_capacity must be positive");
  if (capacity == 0) capacity = std::max<uint64_t>(1, memory_capacity / kDefaultTileBytes);
  const uint64_t nshards = std::clamp<uint64_t>(memory_capacity / kShardMemory, 1, 16);
  const uint64_t shard_memory = (memory_capacity + nshards - 1) / nshards;
  const uint64_t nentries = (capacity + nshards - 1) / nshards, nblocks = (shard_memory + kBlock - 1) / kBlock;
  if (nentries >= kNil / 8 || nblocks >= kNil) throw ValueError("tile cache capacity is too large");
  uint64_t nbuckets = 1, nlet_go = 1;
  while (nbuckets < 2 * nentries) nbuckets *= 2;
  // remembers the last evictions of several times its capacity (a band of patch rows that one of many
  // threads reads evicts about the whole slide's tiles before it reaches the next band's first row)
  while (nlet_go < 8 * nentries) nlet_go *= 2;
  const uint64_t buckets_off = align(sizeof(Shard)), entries_off = align(buckets_off + 4 * nbuckets),
                 next_off = align(entries_off + sizeof(Entry) * nentries), let_go_off = align(next_off + 4 * nblocks),
                 data_off = align(let_go_off + 8 * nlet_go, 4096), stride = align(data_off + nblocks * kBlock, 4096);
  const uint64_t header = align(sizeof(Header), 4096), total = header + nshards * stride;

  void* base;
  if (type == CacheType::PerProcess) {
    base = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    // huge pages where the system lends them on request: a fresh cache fills with one page fault per 2 MiB
    // instead of one per 4 KiB (faulting a new tile's 48 pages cost a quarter of its decode, and page
    // faults of one process's threads contend with each other)
    if (base != MAP_FAILED) ::madvise(base, total, MADV_HUGEPAGE);
  } else {
    shm_name_ = "/ndimg-tiles-" + std::to_string(::getpid()) + "-" + std::to_string(g_shm_counter++);
    int fd = ::shm_open(shm_name_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) throw Error("cannot create shared memory " + shm_name_ + ": " + std::strerror(errno));
    if (::ftruncate(fd, off_t(total)) != 0) {
      int err = errno;
      ::close(fd), ::shm_unlink(shm_name_.c_str());
      throw MemoryError("cannot size shared memory " + shm_name_ + ": " + std::strerror(err));
    }
    base = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (base == MAP_FAILED) ::shm_unlink(shm_name_.c_str());
    owner_ = true, owner_pid_ = ::getpid();
  }
  if (base == MAP_FAILED) throw MemoryError(std::string("cannot map the tile cache: ") + std::strerror(errno));

  auto* h = new (base) Header{};
  h->magic = kMagic, h->version = kVersion, h->total_bytes = total;
  h->memory_capacity = memory_capacity, h->capacity = capacity;
  h->nshards = nshards, h->shard_stride = stride, h->shared = type == CacheType::SharedMemory;
  h->record.store(record_stat);
  for (uint64_t i = 0; i < nshards; ++i) {
    auto* s = new (static_cast<char*>(base) + header + i * stride) Shard{};
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    if (h->shared) {
      pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
      pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    }
    pthread_mutex_init(&s->mutex, &a);
    pthread_mutexattr_destroy(&a);
    s->memory_capacity = shard_memory;
    s->nbuckets = uint32_t(nbuckets), s->nentries = uint32_t(nentries), s->nblocks = uint32_t(nblocks);
    s->nlet_go = uint32_t(nlet_go);
    s->buckets_off = buckets_off, s->entries_off = entries_off, s->next_off = next_off, s->let_go_off = let_go_off;
    s->data_off = data_off;
    s->reset();
  }
  map_segment(base, total);
}

std::shared_ptr<TileCache> TileCache::attach(const std::string& shm_name) {
  int fd = ::shm_open(shm_name.c_str(), O_RDWR, 0);
  if (fd < 0) throw Error("cannot open the shared tile cache " + shm_name + ": " + std::strerror(errno));
  struct stat st {};
  Header probe{};
  if (::fstat(fd, &st) != 0 || uint64_t(st.st_size) < sizeof(Header) ||
      ::pread(fd, &probe, sizeof(Header), 0) != ssize_t(sizeof(Header)) || probe.magic != kMagic ||
      probe.version != kVersion || probe.total_bytes != uint64_t(st.st_size)) {
    ::close(fd);
    throw Error(shm_name + " is not an ndimg tile cache of this version");
  }
  void* base = ::mmap(nullptr, probe.total_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (base == MAP_FAILED) throw MemoryError(std::string("cannot map the tile cache: ") + std::strerror(errno));
  std::shared_ptr<TileCache> c(new TileCache());
  c->type_ = CacheType::SharedMemory;
  c->shm_name_ = shm_name;
  c->map_segment(base, probe.total_bytes);
  return c;
}

void TileCache::map_segment(void* base, uint64_t bytes) {
  base_ = base, bytes_ = bytes;
  header_ = static_cast<Header*>(base);
  const uint64_t header = align(sizeof(Header), 4096);
  for (uint64_t i = 0; i < header_->nshards; ++i)
    shards_.push_back(reinterpret_cast<Shard*>(static_cast<char*>(base) + header + i * header_->shard_stride));
}

TileCache::~TileCache() {
  if (base_) ::munmap(base_, bytes_);
  if (owner_ && owner_pid_ == ::getpid()) ::shm_unlink(shm_name_.c_str());
}

TileCache::Shard& TileCache::shard_for(uint64_t hash) const { return *shards_[(hash >> 48) % shards_.size()]; }

uint64_t TileCache::memory_capacity() const { return header_ ? header_->memory_capacity : 0; }
uint64_t TileCache::capacity() const { return header_ ? header_->capacity : 0; }

uint64_t TileCache::total(uint64_t Shard::*field) const {
  uint64_t n = 0;
  for (Shard* s : shards_) {
    ShardLock lk(*s);
    n += s->*field;
  }
  return n;
}

uint64_t TileCache::size() const { return total(&Shard::items); }
uint64_t TileCache::memory_size() const { return total(&Shard::bytes); }

uint64_t TileCache::hit_count() const { return header_ ? header_->hits.load() : 0; }
uint64_t TileCache::miss_count() const { return header_ ? header_->misses.load() : 0; }
bool TileCache::record() const { return header_ && header_->record.load(); }

void TileCache::record(bool on) {
  if (!header_) return;
  header_->record.store(on);
  header_->hits.store(0), header_->misses.store(0);
}

void TileCache::clear() {
  for (Shard* s : shards_) {
    ShardLock lk(*s);
    while (s->evict_one()) {
    }
    s->forget_let_go();  // emptied, not done with
  }
}

bool TileCache::lookup(Shard& s, const TileKey& key, uint64_t hash, const TileRect& rect, RowSink sink) {
  thread_local std::vector<uint8_t> joined;  // a row's bytes that straddle blocks
  uint32_t e, b, planes;
  uint64_t generation;
  {
    ShardLock lk(s);
    e = s.find(key, hash);
    if (e == kNil) return false;
    Entry& x = s.entries()[e];
    if (rect.row1 > rect.row0 && rect.row1 > x.rows) return false;  // a copy of fewer of the tile's rows
    s.unlink_lru(e);
    s.push_front(e);
    ++x.pins;
    b = x.first_block, generation = s.generation, planes = x.planes;
  }
  struct Unpin {
    Shard& s;
    uint32_t e;
    uint64_t generation;
    ~Unpin() {
      ShardLock lk(s);
      if (s.generation == generation) --s.entries()[e].pins;
    }
  } unpin{s, e, generation};
  if (planes) {
    const Planar g{rect.row_bytes / 3};
    planes_out(plane_rows(s, b, g, planes), g.width, planes, rect, sink);
    return true;
  }
  const uint64_t n = rect.col1 - rect.col0;
  uint64_t at = 0;  // offset of block b in the tile
  for (uint64_t r = rect.row0; r < rect.row1;) {
    const uint64_t lo = r * rect.row_bytes + rect.col0, hi = lo + n;
    for (; lo >= at + kBlock; at += kBlock) b = s.block_next()[b];
    if (hi <= at + kBlock) {  // this row and the next ones whose wanted bytes end in this block, in one run
      const uint64_t count = std::min(rect.row1 - r, (at + kBlock - hi) / rect.row_bytes + 1);
      sink(r, s.block(b) + (lo - at), count, rect.row_bytes);
      r += count;
      continue;
    }
    joined.resize(n);
    s.pieces(b, at, lo, hi, [&](uint8_t* p, uint64_t k, uint64_t len) { std::memcpy(joined.data() + k, p, len); });
    sink(r, joined.data(), 1, n);
    ++r;
  }
  return true;
}

void TileCache::put(Shard& s, const TileKey& key, uint64_t h, const uint8_t* data, uint64_t n, uint64_t rows) {
  const Reservation r = reserve_for(s, key, h, {rows, n, 0});
  if (r.entry == kNil) return;
  uint32_t b = r.block;
  for (uint64_t done = 0; done < n; done += kBlock, b = s.block_next()[b])
    stream_copy(s.block(b), data + done, std::min(kBlock, n - done));
  store_fence();  // the pixels are in place before the entry can be found
  publish_reserved(s, key, h, r);
}

bool TileCache::decode_into(Shard& s, const TileKey& key, uint64_t h, const TileRect& rect, RowSink sink,
                            const TileRowDecoder& into, bool& store) {
  const uint64_t width = rect.row_bytes / 3;
  if (rect.row_bytes == 3 * width && width <= kBlock && into.planar()) {
    const Planar g{width};
    auto extent = [&](uint64_t rows) {
      const uint64_t d = Planar::decoded(rows, into.rows);
      return Extent{Planar::readable(d, into.rows), g.bytes(d), d};
    };
    const Reservation r = reserve_for(s, key, h, extent(into.rows), into.top ? extent(into.top) : Extent{});
    if (r.entry == kNil) return store = false;  // (kept as RGB, it would not fit either)
    const uint64_t d = r.extent.planes;
    uint8_t* const* rows = plane_rows(s, r.block, g, d);
    if (!fill(s, r, [&] { return into.decode_planes(rows, rows + d, rows + d + d / 2, d); })) return false;
    planes_out(rows, width, d, rect, sink);
    publish_reserved(s, key, h, r);
    return true;
  }
  const Reservation r =
      reserve_for(s, key, h, {into.rows, into.rows * rect.row_bytes, 0},
                  into.top ? Extent{into.top, into.top * rect.row_bytes, 0} : Extent{});
  if (r.entry == kNil) return false;
  const uint64_t count = r.extent.rows;  // rows decoded
  // row pointers into the entry's blocks; a row that straddles blocks is decoded into `spill`, then split
  thread_local std::vector<uint8_t*> rows;
  thread_local std::vector<uint8_t> spill;
  rows.resize(count);
  spill.resize(count * rect.row_bytes / kBlock * rect.row_bytes);  // a row for each block boundary
  auto each_row_block = [&](auto f) {  // f(row, its offset in the tile, its first block, that block's offset)
    uint32_t b = r.block;
    for (uint64_t row = 0, at = 0; row < count; ++row) {
      const uint64_t lo = row * rect.row_bytes;
      for (; lo >= at + kBlock; at += kBlock) b = s.block_next()[b];
      f(row, lo, b, at);
    }
  };
  uint64_t spilled = 0;
  each_row_block([&](uint64_t row, uint64_t lo, uint32_t b, uint64_t at) {
    rows[row] = lo + rect.row_bytes <= at + kBlock ? s.block(b) + (lo - at) : &spill[rect.row_bytes * spilled++];
  });
  if (!fill(s, r, [&] { return into.decode(rows.data(), count); })) return false;
  each_row_block([&](uint64_t row, uint64_t lo, uint32_t b, uint64_t at) {
    if (lo + rect.row_bytes > at + kBlock)
      s.pieces(b, at, lo, lo + rect.row_bytes,
               [&](uint8_t* p, uint64_t k, uint64_t len) { std::memcpy(p, rows[row] + k, len); });
  });
  for (uint64_t row = rect.row0, k; row < rect.row1; row += k) {  // runs of rows that lie one after another
    for (k = 1; row + k < rect.row1 && rows[row + k] == rows[row] + k * rect.row_bytes;) ++k;
    sink(row, rows[row] + rect.col0, k, rect.row_bytes);
  }
  publish_reserved(s, key, h, r);
  return true;
}

bool TileCache::read(const TileKey& key, const TileRect& rect, RowSink sink, TileDecoder decode,
                     std::vector<uint8_t>& pixels, const TileRowDecoder* into, bool wait) {
  if (!header_) throw Error("the tile cache is not mapped");
  const uint64_t h = hash_of(key);
  Shard& s = shard_for(h);
  const bool record = header_->record.load(std::memory_order_relaxed);
  auto hit = [&] {
    if (record) header_->hits.fetch_add(1, std::memory_order_relaxed);
    return true;
  };
  if (lookup(s, key, h, rect, sink)) return hit();
  // Done: another thread was decoding it, and has finished (a tile it could not store, too large for the
  // cache, is then decoded here at once, not after another wait)
  const InFlight::Claim claim = in_flight_->claim(key, h, wait);
  if (claim == InFlight::Busy) return false;
  const bool mine = claim == InFlight::Mine;
  struct Release {
    InFlight* f;
    const TileKey& key;
    uint64_t h;
    ~Release() {
      if (f) f->release(key, h);
    }
  } release{mine ? in_flight_.get() : nullptr, key, h};
  if (lookup(s, key, h, rect, sink)) return hit();  // that decode's, or one stored just before the claim
  if (record) header_->misses.fetch_add(1, std::memory_order_relaxed);
  bool store = true;
  if (into && decode_into(s, key, h, rect, sink, *into, store)) return true;
  decode(pixels);
  if (store) put(s, key, h, pixels.data(), pixels.size(), pixels.size() / rect.row_bytes);
  each_row(rect, pixels.data(), sink);
  return true;
}

// -------------------------------------------------------------------------------- the process's cache

// A private cache's mutexes are ordinary ones: a fork while another thread holds one would leave it locked
// forever in the child, so fork waits for them (prepare) and both sides release them. Shared caches need
// nothing: their lock holders live on in the parent.
// Likewise for the table of tiles being decoded, which the child empties: their decoders stay in the parent.
void tile_cache_atfork_prepare() {
  g_cache_m.lock();
  if (!g_cache || !*g_cache) return;
  (*g_cache)->in_flight_->lock_all();
  if ((*g_cache)->type_ == CacheType::PerProcess)
    for (auto* s : (*g_cache)->shards_) pthread_mutex_lock(&s->mutex);
}
void tile_cache_atfork_parent() {
  if (g_cache && *g_cache) {
    if ((*g_cache)->type_ == CacheType::PerProcess)
      for (auto* s : (*g_cache)->shards_) pthread_mutex_unlock(&s->mutex);
    (*g_cache)->in_flight_->unlock_all();
  }
  g_cache_m.unlock();
}
void tile_cache_atfork_child() {
  if (g_cache && *g_cache) {
    if ((*g_cache)->type_ == CacheType::PerProcess)
      for (auto* s : (*g_cache)->shards_) pthread_mutex_unlock(&s->mutex);
    (*g_cache)->in_flight_->reset_in_child();
  }
  g_cache_m.unlock();
}

void set_tile_cache(std::shared_ptr<TileCache> cache) {
  static bool registered =
      (pthread_atfork(tile_cache_atfork_prepare, tile_cache_atfork_parent, tile_cache_atfork_child), true);
  (void)registered;
  std::shared_ptr<TileCache> old;
  {
    std::lock_guard<std::mutex> lk(g_cache_m);
    if (!g_cache) g_cache = new std::shared_ptr<TileCache>();
    old = std::move(*g_cache);
    *g_cache = cache && cache->type() != CacheType::None ? cache : nullptr;
    g_cache_on.store(*g_cache != nullptr);
  }
  // `old` is released here, outside the lock (readers that still hold it finish first)
}

std::shared_ptr<TileCache> tile_cache() {
  if (!g_cache_on.load(std::memory_order_acquire)) return nullptr;
  std::lock_guard<std::mutex> lk(g_cache_m);
  return g_cache ? *g_cache : nullptr;
}

// ------------------------------------------------------------------------------- the hook in TiffFile

bool TiffFile::tile_rows(int index, uint64_t tile, TileCache* cache, const TileRect& rect, RowSink sink,
                         std::vector<uint8_t>& compressed, std::vector<uint8_t>& pixels, bool wait) const {
  const Ifd& d = ifds_[size_t(index)];
  const uint32_t spp = d.samples;
  const bool rgb = d.photometric == photometric::RGB;
  // 8-bit JPEG tiles go through libjpeg's row API (when built with it): decoded in part, or into the cache
  const bool rows_api = d.compression == compression::JPEG && d.bits == 8 && d.planar == 1 && d.predictor != 2 &&
                        (spp == 1 || spp == 3);
  auto decode = [&](std::vector<uint8_t>& out) { decode_tile(d, tile, compressed, out); };
  if (cache) {
    const File::Id& id = file_->id();
    const TileKey key{id.dev, id.ino, id.mtime_ns, id.size, uint64_t(index), tile};
    if (!rows_api || !d.tiled) return cache->read(key, rect, sink, decode, pixels, nullptr, wait);
    bool fetched = false;
    auto fetch = [&] {
      if (!fetched) read_chunk(d, tile, compressed), fetched = true;
    };
    auto jpeg_into = [&](uint8_t* const* rows, uint64_t count) {
      fetch();
      return codec::jpeg_into(compressed.data(), compressed.size(), d.jpeg_tables, rgb, spp, d.tile_width,
                              uint32_t(count), rows);
    };
    // YCbCr tiles with 4:2:0 chroma are kept as their planes (Photometric RGB: libtiff's reading, never YCbCr)
    auto planar = [&] {
      if (rgb || spp != 3) return false;
      fetch();
      return codec::jpeg_ycc420(compressed.data(), compressed.size(), d.tile_width, d.tile_height);
    };
    auto planes = [&](uint8_t* const* y, uint8_t* const* cb, uint8_t* const* cr, uint64_t count) {
      fetch();
      return codec::jpeg_planes(compressed.data(), compressed.size(), d.jpeg_tables, d.tile_width, d.tile_height,
                                uint32_t(count), y, cb, cr);
    };
    // A reader wanting only a tile's first rows (a patch reaching a row or so into the tile row below) of a
    // tile the cache held whole and has let go of decodes those alone: it is likely the last reader of the tile
    // (per-thread bands of a (1, 1) patch grid: where two bands meet, the lower band's first patch row read the
    // tile long before the upper band's last one wants its first row), and JPEG decodes its first rows at a
    // fraction of the whole tile's cost (libjpeg stops after the first iMCU row holding them).
    const uint64_t top = rect.row1 * 8 <= d.tile_height ? rect.row1 : 0;
    const TileRowDecoder into{d.tile_height, top, jpeg_into, planar, planes};
    return cache->read(key, rect, sink, decode, pixels, &into, wait);
  }
  // uncached: only the wanted part of the tile is decoded (a patch of 256 on 240-pixel tiles wants about a
  // quarter of each of the four tiles it meets)
  const bool part = rect.row0 > 0 || rect.row1 < d.tile_height || rect.col0 > 0 || rect.col1 < rect.row_bytes;
  if (part && rows_api) {
    read_chunk(d, tile, compressed);
    if (codec::jpeg_rows(compressed.data(), compressed.size(), d.jpeg_tables, rgb, spp, d.tile_width,
                         uint32_t(rect.row0), uint32_t(rect.row1), uint32_t(rect.col0 / spp), uint32_t(rect.col1 / spp),
                         sink))
      return true;
  }
  decode(pixels);
  each_row(rect, pixels.data(), sink);
  return true;
}

}  // namespace ndimg::io

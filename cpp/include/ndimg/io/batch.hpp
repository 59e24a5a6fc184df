// Multithreaded and batched region reading with cuCIM's semantics (CuImage.read_region): RGB output,
// worker threads of the reader's own, batches decoded ahead of the consumer.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "ndimg/io/slide.hpp"

namespace ndimg::io {

// The checks every region request passes (ValueError otherwise): the level exists (it is returned), the
// size is positive, and sizes and locations stay within the range the readers' arithmetic allows.
const Level& checked_level(const Slide& slide, int level);
void check_size(int64_t w, int64_t h);
void check_location(int64_t v);

// RGB pixels (h*w*3 bytes) of `level` whose top-left corner is (x, y) in level-0 coordinates; outside the
// level every byte is 0 (Slide::read_region's RGB part). The region is cut into tile-aligned pieces read by
// `num_workers` threads of its own (0: the calling thread with ndimg's thread pool). `progress(done,
// total)`, when given, is called on the calling thread as pieces complete, and may throw to cancel.
void read_region_rgb(const Slide& slide, int64_t x, int64_t y, int level, int64_t w, int64_t h,
                     unsigned num_workers, uint8_t* rgb,
                     const std::function<void(int64_t, int64_t)>& progress = {});


// Equal buffers for batches: handed out by take() and, when the consumer is done with one, given back to
// be handed out again, so a steady stream of batches reuses memory already mapped (a fresh buffer costs a
// page fault per 4 KiB, and page faults of one process's threads contend). Shared by the loader and the
// batches it handed out, whichever ends last.
class BufferPool {
 public:
  BufferPool(size_t bytes, size_t keep);
  std::unique_ptr<uint8_t[]> take();
  // Keeps up to `keep` buffers for later; frees the others, and every one given back in a forked child
  // (where the lock may have been held by a thread that exists only in the parent).
  void give(std::unique_ptr<uint8_t[]> buffer);

 private:
  std::mutex m_;
  const size_t bytes_, keep_;
  const int pid_;
  std::vector<std::unique_ptr<uint8_t[]>> free_;
};

// A batch handed to the consumer: its pixels and where to give them back.
struct Batch {
  std::unique_ptr<uint8_t[]> data;
  std::shared_ptr<BufferPool> pool;
  Batch() = default;
  Batch(std::unique_ptr<uint8_t[]> d, std::shared_ptr<BufferPool> p) : data(std::move(d)), pool(std::move(p)) {}
  Batch(Batch&&) = default;
  Batch& operator=(Batch&&) = default;
  ~Batch() {
    if (data && pool) pool->give(std::move(data));
  }
};

// Patches of one size at many locations, delivered in batches of `batch_size` (the last one shorter unless
// drop_last), read by `num_workers` background threads up to `prefetch_factor` batches ahead of the
// consumer. shuffle permutes the locations as cuCIM does (std::shuffle with std::default_random_engine
// seeded by `seed`, so the order is cuCIM's on the same C++ library). With num_workers == 0 nothing runs
// in the background: next() reads its batch on the calling thread with ndimg's thread pool.
// Destroying the loader (or close()) stops the workers after their current patch and frees every buffer.
class PatchLoader {
 public:
  // locations: x0, y0, x1, y1, ... in level-0 coordinates.
  PatchLoader(const Slide& slide, std::vector<int64_t> locations, int level, int64_t w, int64_t h,
              uint32_t batch_size, uint32_t prefetch_factor, uint32_t num_workers, bool shuffle, uint64_t seed,
              bool drop_last);
  ~PatchLoader();
  PatchLoader(const PatchLoader&) = delete;
  PatchLoader& operator=(const PatchLoader&) = delete;

  uint64_t size() const { return n_; }  // patches that will be delivered
  uint64_t batch_count() const { return (n_ + batch_size_ - 1) / batch_size_; }
  // Level-0 locations in delivery order (after shuffle and drop_last), x0, y0, x1, y1, ...
  const std::vector<int64_t>& locations() const { return xy0_; }
  int64_t width() const { return w_; }
  int64_t height() const { return h_; }

  // The next batch (`count` patches of h*w*3 bytes each, at the start of the batch's buffer), or a batch
  // without data after the last one. A patch that failed to read rethrows its error here, and the loader
  // stops. In a forked child (where the workers do not exist) it throws Error.
  Batch next(uint32_t& count);
  // Stops the workers and waits for them (also done by the destructor).
  void close();

 private:
  struct Slot {
    uint64_t batch = UINT64_MAX;
    std::unique_ptr<uint8_t[]> data;
    uint32_t remaining = 0;
    std::exception_ptr error;
  };
  uint32_t count_of(uint64_t batch) const;
  void read_patch(uint64_t i, uint8_t* dst) const;
  void work();

  const Slide& slide_;
  int ifd_;
  int64_t w_, h_, patch_bytes_;
  std::vector<int64_t> xy0_, xy_;  // level-0 and level coordinates
  uint64_t n_;
  uint32_t batch_size_;
  // Patches a worker takes at once: its share of a batch. Neighbouring patches share tiles (one straddling
  // tile boundaries meets four), which one worker then decodes once and finds again in its own CPU cache;
  // 16 workers taking one patch each waited on the tiles their neighbours were decoding (a (1, 1) patch
  // grid with the tile cache: 0.75 of the aligned rate, 0.85 in runs of 4).
  uint32_t run_ = 1;
  bool background_ = false;  // workers of its own (num_workers > 0)
  struct Sync {
    std::mutex m;
    std::condition_variable work, ready;
  };
  std::unique_ptr<Sync> sync_ = std::make_unique<Sync>();  // a forked copy leaks it (see close())
  std::vector<Slot> slots_;  // batch b lives in slots_[b % slots_.size()]
  std::shared_ptr<BufferPool> pool_;
  uint64_t next_patch_ = 0, consumed_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
  int pid_;  // the process whose threads these are (a forked copy of the loader has none)
};

}  // namespace ndimg::io

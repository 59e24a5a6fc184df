#include "ndimg/io/batch.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <new>
#include <random>
#include <string>

#include <unistd.h>

#include "ndimg/parallel.hpp"

namespace ndimg::io {

namespace {

constexpr int64_t kPieceTiles = 16;  // tiles across one piece of a region read (one tile row high)

// Joins the threads it holds when it goes out of scope, after `stop` has been called.
struct Joiner {
  std::vector<std::thread>& threads;
  std::function<void()> stop;
  ~Joiner() {
    stop();
    for (auto& t : threads)
      if (t.joinable()) t.join();
    threads.clear();
  }
};

}  // namespace

// ------------------------------------------------------------------------------------ region checks

const Level& checked_level(const Slide& slide, int level) {
  if (level < 0 || size_t(level) >= slide.levels().size())
    throw ValueError("level " + std::to_string(level) + " is out of range (the slide has " +
                     std::to_string(slide.levels().size()) + " levels)");
  return slide.levels()[size_t(level)];
}

constexpr int64_t kMaxCoordinate = int64_t(1) << 48;  // far beyond any slide; keeps x + w from overflowing

void check_size(int64_t w, int64_t h) {
  if (w <= 0 || h <= 0)
    throw ValueError("region size must be positive, got (" + std::to_string(w) + ", " + std::to_string(h) + ")");
  if (w > kMaxCoordinate || h > kMaxCoordinate) throw ValueError("region size is too large");
}

void check_location(int64_t v) {
  if (v < -kMaxCoordinate || v > kMaxCoordinate)
    throw ValueError("location " + std::to_string(v) + " is out of range");
}

// ------------------------------------------------------------------------------------- one region

void read_region_rgb(const Slide& slide, int64_t x, int64_t y, int level, int64_t w, int64_t h,
                     unsigned num_workers, uint8_t* rgb, const std::function<void(int64_t, int64_t)>& progress) {
  const Level& l = checked_level(slide, level);
  check_size(w, h);
  check_location(x), check_location(y);
  const int64_t lx = slide.cucim_level(level, x), ly = slide.cucim_level(level, y);
  const size_t stride = size_t(w) * 3;
  if (num_workers == 0 && !progress) {
    // one call, whose tiles are spread over ndimg's pool: cutting it into pieces (two for a patch straddling a
    // tile row) would only repeat the per-call work (tile cache lookup, region checks) for nothing
    slide.tiff().read_region_8bit(l.ifd, lx, ly, w, h, rgb, 3, stride);
    return;
  }
  // pieces: tile-aligned in the level's tile grid (every tile is decoded by exactly one piece)
  const int64_t pw = int64_t(l.tile_width) * kPieceTiles, ph = l.tile_height;
  auto first = [](int64_t v, int64_t step) { return v >= 0 ? v / step : -((-v + step - 1) / step); };
  const int64_t cx0 = first(lx, pw), cx1 = first(lx + w - 1, pw), cy0 = first(ly, ph), cy1 = first(ly + h - 1, ph);
  const int64_t across = cx1 - cx0 + 1, total = across * (cy1 - cy0 + 1);
  auto piece = [&](int64_t k) {
    const int64_t cx = cx0 + k % across, cy = cy0 + k / across;
    const int64_t ax = std::max(lx, cx * pw), bx = std::min(lx + w, (cx + 1) * pw);
    const int64_t ay = std::max(ly, cy * ph), by = std::min(ly + h, (cy + 1) * ph);
    slide.tiff().read_region_8bit(l.ifd, ax, ay, bx - ax, by - ay,
                                  rgb + size_t(ay - ly) * stride + size_t(ax - lx) * 3, 3, stride);
  };

  if (num_workers == 0) {  // the calling thread, pieces spread over ndimg's pool in waves between reports
    const int64_t wave = std::max(1, num_threads()) * 4;
    for (int64_t begin = 0; begin < total; begin += wave) {
      parallel_for(std::min(wave, total - begin), 1, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) piece(begin + k);
      });
      progress(std::min(total, begin + wave), total);
    }
    return;
  }

  std::mutex m;
  std::condition_variable cv;
  std::atomic<int64_t> next{0};
  int64_t done = 0;
  std::exception_ptr error;
  std::vector<std::thread> threads;
  Joiner joiner{threads, [&] { next.store(total); }};
  for (unsigned t = 0; t < std::min<int64_t>(num_workers, total); ++t)
    threads.emplace_back([&] {
      SerialScope serial;  // each piece is read on this thread alone
      for (int64_t k; (k = next.fetch_add(1)) < total;) {
        std::exception_ptr err;
        try {
          piece(k);
        } catch (...) {
          err = std::current_exception();
          next.store(total);
        }
        std::lock_guard<std::mutex> lk(m);
        if (err && !error) error = err;
        ++done;
        cv.notify_all();
      }
    });
  std::unique_lock<std::mutex> lk(m);
  for (;;) {
    cv.wait_for(lk, std::chrono::milliseconds(100), [&] { return done == total || error; });
    if (error) break;
    if (progress) {
      const int64_t now = done;
      lk.unlock();
      progress(now, total);  // may throw: the joiner stops the workers
      lk.lock();
    }
    if (done == total) break;
  }
  lk.unlock();
  joiner.stop();
  for (auto& t : threads) t.join();
  threads.clear();
  if (error) std::rethrow_exception(error);
}

// ------------------------------------------------------------------------------------ many patches

BufferPool::BufferPool(size_t bytes, size_t keep) : bytes_(bytes), keep_(keep), pid_(::getpid()) {}

std::unique_ptr<uint8_t[]> BufferPool::take() {
  {
    std::lock_guard<std::mutex> lk(m_);
    if (!free_.empty()) {
      std::unique_ptr<uint8_t[]> b = std::move(free_.back());
      free_.pop_back();
      return b;
    }
  }
  // More than the machine's memory would only be granted (overcommitted) to be killed when written
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  const bool too_big = pages > 0 && page > 0 && bytes_ / size_t(page) >= size_t(pages);
  std::unique_ptr<uint8_t[]> b(too_big ? nullptr : new (std::nothrow) uint8_t[bytes_]);
  if (!b)
    throw MemoryError("cannot allocate a batch of " + std::to_string(bytes_) +
                      " bytes (batch_size x patch height x width x 3): use a smaller batch_size or size");
  return b;
}

void BufferPool::give(std::unique_ptr<uint8_t[]> buffer) {
  if (::getpid() != pid_) return;
  std::lock_guard<std::mutex> lk(m_);
  if (free_.size() < keep_) free_.push_back(std::move(buffer));
}  // else freed here

PatchLoader::PatchLoader(const Slide& slide, std::vector<int64_t> locations, int level, int64_t w, int64_t h,
                         uint32_t batch_size, uint32_t prefetch_factor, uint32_t num_workers, bool shuffle,
                         uint64_t seed, bool drop_last)
    : slide_(slide), ifd_(checked_level(slide, level).ifd), w_(w), h_(h), xy0_(std::move(locations)),
      batch_size_(batch_size), pid_(::getpid()) {
  check_size(w, h);
  if (batch_size == 0) throw ValueError("batch_size must be at least 1");
  if (xy0_.size() % 2) throw ValueError("locations must be (x, y) pairs");
  if (h > (int64_t(1) << 40) / w) throw ValueError("patch size is too large");
  patch_bytes_ = w * h * 3;
  if (uint64_t(patch_bytes_) > (uint64_t(1) << 62) / batch_size)
    throw MemoryError("a batch of " + std::to_string(batch_size) + " patches of " + std::to_string(patch_bytes_) +
                      " bytes is too large: use a smaller batch_size or size");
  for (int64_t v : xy0_) check_location(v);
  n_ = xy0_.size() / 2;
  if (shuffle) {  // cuCIM's permutation: the same engine, seed and algorithm over (x, y) pairs
    struct Pair { int64_t x, y; };
    auto* p = reinterpret_cast<Pair*>(xy0_.data());
    std::shuffle(p, p + n_, std::default_random_engine{seed});
  }
  if (drop_last) n_ -= n_ % batch_size;
  xy0_.resize(2 * n_);
  xy_.resize(2 * n_);
  for (size_t i = 0; i < xy_.size(); ++i) xy_[i] = slide.cucim_level(level, xy0_[i]);
  background_ = num_workers > 0 && n_ > 0;
  const size_t slots = background_ ? std::min<uint64_t>(batch_count(), uint64_t(prefetch_factor) + 1) : 0;
  // the batches being filled, the one being consumed and the one before it (freed as the next arrives)
  pool_ = std::make_shared<BufferPool>(size_t(std::min<uint64_t>(batch_size_, std::max<uint64_t>(n_, 1))) *
                                           size_t(patch_bytes_), slots + 2);
  if (!background_) return;
  run_ = uint32_t((uint64_t(batch_size_) + num_workers - 1) / num_workers);
  slots_.resize(slots);
  try {
    for (uint32_t t = 0; t < std::min<uint64_t>(num_workers, n_); ++t) threads_.emplace_back([this] { work(); });
  } catch (...) {  // could not start a thread: stop those that started
    close();
    throw;
  }
}

PatchLoader::~PatchLoader() { close(); }

void PatchLoader::close() {
  if (!sync_) return;  // a forked copy, closed already
  if (::getpid() != pid_) {  // a forked copy: its workers (and whoever held the lock) exist only in the parent
    // they can be neither joined nor detached here, destroying a joinable std::thread aborts, and
    // destroying a condition variable they waited on blocks: all are parked in memory never freed
    new std::vector<std::thread>(std::move(threads_));
    threads_.clear();
    sync_.release();
    stop_ = true;
    return;
  }
  {
    std::lock_guard<std::mutex> lk(sync_->m);
    stop_ = true;
  }
  sync_->work.notify_all();
  sync_->ready.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
  std::lock_guard<std::mutex> lk(sync_->m);
  slots_.clear();
}

uint32_t PatchLoader::count_of(uint64_t batch) const {
  return uint32_t(std::min<uint64_t>(batch_size_, n_ - batch * batch_size_));
}

void PatchLoader::read_patch(uint64_t i, uint8_t* dst) const {
  slide_.tiff().read_region_8bit(ifd_, xy_[2 * i], xy_[2 * i + 1], w_, h_, dst, 3, size_t(w_) * 3);
}

void PatchLoader::work() {
  SerialScope serial;  // patches are this thread's own work: no queueing on the shared pool
  std::unique_lock<std::mutex> lk(sync_->m);
  for (;;) {
    sync_->work.wait(lk, [&] { return stop_ || next_patch_ >= n_ || next_patch_ / batch_size_ < consumed_ + slots_.size(); });
    if (stop_ || next_patch_ >= n_) return;
    // a run of neighbouring patches of one batch
    const uint64_t i = next_patch_, b = i / batch_size_, end = std::min({i + run_, (b + 1) * batch_size_, n_});
    next_patch_ = end;
    Slot& s = slots_[b % slots_.size()];
    if (s.batch != b) {  // the first patch of its batch: the slot's previous batch was taken already
      s.batch = b;
      s.remaining = count_of(b);
      s.error = nullptr;
      try {
        s.data = pool_->take();
      } catch (...) {  // no buffer (MemoryError): the batch holds the error, and its patches are not read
        s.error = std::current_exception();
      }
    }
    std::exception_ptr err;
    if (s.data) {
      uint8_t* dst = s.data.get() + size_t(i - b * batch_size_) * size_t(patch_bytes_);
      lk.unlock();
      for (uint64_t k = i; k < end; ++k, dst += patch_bytes_) {
        try {
          read_patch(k, dst);
        } catch (...) {
          if (!err) err = std::current_exception();
        }
      }
      lk.lock();
    }
    if (err && !s.error) s.error = err;
    s.remaining -= uint32_t(end - i);
    if (s.remaining == 0) sync_->ready.notify_all();
  }
}

Batch PatchLoader::next(uint32_t& count) {
  if (::getpid() != pid_) throw Error("a batch iterator cannot be used in a process forked after its creation");
  std::unique_lock<std::mutex> lk(sync_->m);
  if (!background_) {  // no workers: read the batch here, with ndimg's pool
    if (stop_ || consumed_ >= batch_count()) return {};
    const uint64_t b = consumed_++;
    lk.unlock();
    count = count_of(b);
    Batch out;
    try {
      out = Batch{pool_->take(), pool_};
      parallel_for(count, 1, [&](int64_t begin, int64_t end) {
        for (int64_t k = begin; k < end; ++k)
          read_patch(b * batch_size_ + uint64_t(k), out.data.get() + size_t(k) * size_t(patch_bytes_));
      });
    } catch (...) {
      close();
      throw;
    }
    return out;
  }
  for (;;) {  // (a loop for callers on several threads: another may take batch b first)
    if (stop_ || consumed_ >= batch_count()) return {};
    const uint64_t b = consumed_;
    Slot& s = slots_[b % slots_.size()];
    sync_->ready.wait(lk, [&] { return stop_ || consumed_ != b || (s.batch == b && s.remaining == 0); });
    if (stop_) return {};
    if (consumed_ != b) continue;
    count = count_of(b);
    Batch out{std::move(s.data), pool_};
    std::exception_ptr error = s.error;
    ++consumed_;
    lk.unlock();
    sync_->work.notify_all();
    sync_->ready.notify_all();
    if (error) {
      close();
      std::rethrow_exception(error);
    }
    return out;
  }
}

}  // namespace ndimg::io

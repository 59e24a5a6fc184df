#include "ndimg/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#include <pthread.h>

namespace ndimg {
namespace {

// read once: hardware_concurrency() reads /sys on every call, a few microseconds per parallel_for
int default_threads() {
  static const int n = [] {
    if (const char* env = std::getenv("NDIMG_NUM_THREADS")) {
      int v = std::atoi(env);
      if (v > 0) return v;
    }
    return int(std::max(1u, std::thread::hardware_concurrency()));
  }();
  return n;
}

std::atomic<int> g_threads{0};
thread_local bool t_inside = false;

// One job at a time; the workers pull chunk indices from an atomic counter.
class Pool {
 public:
  explicit Pool(int workers) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { loop(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  int workers() const { return static_cast<int>(threads_.size()); }

  void run(int64_t nchunks, const std::function<void(int64_t)>& chunk) {
    std::lock_guard<std::mutex> job_lock(job_m_);
    {
      std::lock_guard<std::mutex> lk(m_);
      job_ = &chunk;
      nchunks_ = nchunks;
      next_.store(0);
      pending_ = workers();
      error_ = nullptr;
      ++generation_;
    }
    cv_.notify_all();
    work();
    std::unique_lock<std::mutex> lk(m_);
    done_cv_.wait(lk, [&] { return pending_ == 0; });
    job_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void work() {
    t_inside = true;
    for (int64_t i; (i = next_.fetch_add(1)) < nchunks_;) {
      try {
        (*job_)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lk(m_);
        if (!error_) error_ = std::current_exception();
        next_.store(nchunks_);
      }
    }
    t_inside = false;
  }
  void loop() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      work();
      std::lock_guard<std::mutex> lk(m_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex m_, job_m_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int64_t)>* job_ = nullptr;
  int64_t nchunks_ = 0;
  std::atomic<int64_t> next_{0};
  int pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

std::mutex g_pool_m;
// Held through a leaked pointer: never destroyed at exit (joining threads there can hang), and dropped
// without destruction in a forked child, where its threads do not exist.
std::shared_ptr<Pool>* g_pool = nullptr;

void forget_pool_in_child() { g_pool = nullptr; }

std::shared_ptr<Pool> pool_for(int threads) {
  static bool registered = (pthread_atfork(nullptr, nullptr, forget_pool_in_child), true);
  (void)registered;
  std::lock_guard<std::mutex> lk(g_pool_m);
  if (!g_pool) g_pool = new std::shared_ptr<Pool>();
  if (!*g_pool || (*g_pool)->workers() != threads - 1) *g_pool = std::make_shared<Pool>(threads - 1);
  return *g_pool;
}

}  // namespace

int num_threads() {
  int n = g_threads.load();
  return n > 0 ? n : default_threads();
}

void set_num_threads(int n) { g_threads.store(n > 0 ? n : 0); }

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  int64_t max_chunks = (n + grain - 1) / grain;
  int threads = max_chunks <= 1 || t_inside ? 1 : num_threads();
  if (threads <= 1) {
    fn(0, n);
    return;
  }
  int64_t nchunks = std::min<int64_t>(max_chunks, int64_t(threads) * 4);
  int64_t step = (n + nchunks - 1) / nchunks;
  nchunks = (n + step - 1) / step;
  std::function<void(int64_t)> chunk = [&](int64_t i) { fn(i * step, std::min(n, (i + 1) * step)); };
  pool_for(threads)->run(nchunks, chunk);
}

SerialScope::SerialScope() : previous_(t_inside) { t_inside = true; }
SerialScope::~SerialScope() { t_inside = previous_; }

}  // namespace ndimg

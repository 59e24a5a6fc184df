// The CPU engine's thread pool: all cores by default, NDIMG_NUM_THREADS or set_num_threads(n) to change.
#pragma once
#include <cstdint>
#include <functional>

namespace ndimg {

int num_threads();
// n <= 0 restores the default (NDIMG_NUM_THREADS, else the number of hardware threads).
void set_num_threads(int n);

// Calls fn(begin, end) over chunks covering [0, n), each at least `grain` long, on the pool and the
// calling thread; returns when all are done and rethrows the first exception. Calls made from inside a
// chunk run serially on that thread.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

// While one is alive, parallel_for calls made on this thread run serially on it (for threads of one's own,
// such as the slide reader's batch workers, that must not queue on the shared pool).
class SerialScope {
 public:
  SerialScope();
  ~SerialScope();
  SerialScope(const SerialScope&) = delete;
  SerialScope& operator=(const SerialScope&) = delete;

 private:
  bool previous_;
};

}  // namespace ndimg

// unique_inverse on the CPU engine: the morphology module's stable radix argsort of NumPy-ordered keys, groups
// where consecutive sorted keys differ, and the group numbers scattered back to the elements.
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "morphology/maxtree_sort.hpp"
#include "ndimg/dispatch.hpp"
#include "ndimg/parallel.hpp"
#include "ndimg/unique.hpp"

namespace ndimg::histogram {
namespace {

template <class T>
int64_t run(const T* v, int64_t n, int64_t* inverse, int64_t* counts) {
  using K = decltype(morphology::sort_key(T()));
  std::vector<K> keys(n);
  parallel_for(n, 1 << 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) keys[i] = morphology::sort_key(v[i]);
  });
  std::vector<int64_t> order(n);
  morphology::radix_argsort(keys, order.data());   // the keys end sorted: groups are runs of equal keys
  std::vector<int64_t> group(n);
  int64_t g = -1, last = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (i == 0 || keys[i] != keys[i - 1]) {
      if (g >= 0) counts[g] = i - last;
      ++g;
      last = i;
    }
    group[i] = g;
  }
  counts[g] = n - last;
  parallel_for(n, 1 << 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) inverse[order[i]] = group[i];
  });
  return g + 1;
}

}  // namespace

int64_t unique_inverse(const View& in, const View& inverse, const View& counts) {
  const char* op = "unique_inverse";
  if (in.device != Device::CPU) throw TypeError(std::string(op) + ": the CPU engine's arrays only");
  const int64_t n = in.size();
  if (n == 0) return 0;
  if (!in.c_contiguous()) throw ValueError(std::string(op) + ": a C-contiguous array expected");
  for (const View* a : {&inverse, &counts})
    if (a->dtype != DType::I64 || a->device != Device::CPU || !a->c_contiguous())
      throw ValueError(std::string(op) + ": inverse and counts must be contiguous int64 host arrays");
  if (inverse.size() != n || counts.size() < n)
    throw ValueError(std::string(op) + ": inverse needs one element per input element, counts at least as many");
  return dispatch_dtype(in.dtype, [&]<class T>() {
    return run<T>(in.ptr<T>(), n, inverse.ptr<int64_t>(), counts.ptr<int64_t>());
  });
}

}  // namespace ndimg::histogram

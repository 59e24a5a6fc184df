// Host schedules of bottleneck.hpp: the cores of bottleneck_impl.hpp over the entries' buffers.
#include "morphology/bottleneck.hpp"
#include "morphology/bottleneck_impl.hpp"

namespace ndimg::morphology {

int64_t bottleneck_forest_cpu(const View& mask, const View& ids, std::span<const int64_t> offsets, const View& edges,
                              const View& weights) {
  const int32_t* id = ids.ptr<int32_t>();
  int64_t* e = edges.ptr<int64_t>();
  double* w = weights.ptr<double>();
  const int64_t capacity = edges.shape[0];
  int64_t count = 0;
  const auto emit = [&](int64_t a, int64_t b, double weight) {
    if (count == capacity) throw ValueError("bottleneck: more edges than border elements");
    e[2 * count] = a;
    e[2 * count + 1] = b;
    w[count++] = weight;
  };
  const auto ids_of = [id](int64_t i) { return id[i]; };
  if (mask.dtype == DType::F32) bottleneck_forest_walk(mask.ptr<float>(), mask.size(), offsets, ids_of, emit);
  else bottleneck_forest_walk(mask.ptr<double>(), mask.size(), offsets, ids_of, emit);
  return count;
}

void widest_paths_cpu(const View& values, const View& edges, const View& weights) {
  widest_paths_walk(values.ptr<double>(), values.shape[0], edges.ptr<int64_t>(), weights.ptr<double>(),
                    edges.shape[0]);
}

}  // namespace ndimg::morphology

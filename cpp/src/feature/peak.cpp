// peak_local_max's and corner_peaks' minimum-distance selection: sequential by nature (each point's fate
// depends on the points kept before it), so it runs on the host over a grid of cells one `spacing` wide,
// where a point's rivals lie in the 3^d cells around its own.
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "ndimg/feature_deriv.hpp"

namespace ndimg::feature {

int64_t ensure_spacing(const View& coords, const View& keep, double spacing, double p_norm, bool inclusive,
                       int64_t max_out) {
  const char* op = "ensure_spacing";
  if (coords.device != Device::CPU || keep.device != Device::CPU)
    throw ValueError(std::string(op) + ": host arrays are expected");
  if (coords.ndim != 2 || coords.dtype != DType::I64 || !coords.c_contiguous())
    throw TypeError(std::string(op) + ": coords must be a C-contiguous (k, d) int64 array");
  if (keep.ndim != 1 || keep.shape[0] != coords.shape[0] || keep.dtype != DType::Bool)
    throw TypeError(std::string(op) + ": keep must be a (k,) bool array");
  if (!(p_norm >= 1)) throw ValueError(std::string(op) + ": Only p-norms with 1<=p<=infinity permitted");
  const int64_t k = coords.shape[0], d = coords.shape[1];
  const int64_t* x = coords.ptr<int64_t>();
  bool* kept = keep.ptr<bool>();
  const int64_t kstride = keep.strides[0] / int64_t(sizeof(bool));
  const int64_t limit = max_out < 0 ? std::numeric_limits<int64_t>::max() : max_out;
  if (!(spacing > 0) || d == 0) {   // no point has a rival (distinct points are at least 1 apart)
    for (int64_t i = 0; i < k; ++i) kept[i * kstride] = i < limit;
    return std::min(k, limit);
  }
  // cells: index = floor(x / spacing) per axis, offset to start at 0, linearised in C order
  std::vector<int64_t> lo(d, std::numeric_limits<int64_t>::max()), dims(d, 1);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t a = 0; a < d; ++a) lo[a] = std::min(lo[a], int64_t(std::floor(double(x[i * d + a]) / spacing)));
  auto cell_of = [&](int64_t i, int64_t a) { return int64_t(std::floor(double(x[i * d + a]) / spacing)) - lo[a]; };
  for (int64_t i = 0; i < k; ++i)
    for (int64_t a = 0; a < d; ++a) dims[a] = std::max(dims[a], cell_of(i, a) + 1);
  const bool inf = std::isinf(p_norm);
  const double bound = inclusive ? (inf ? spacing : std::pow(spacing, p_norm)) : spacing;
  auto close = [&](int64_t i, int64_t j) {
    double acc = 0;
    for (int64_t a = 0; a < d; ++a) {
      const double diff = std::fabs(double(x[i * d + a] - x[j * d + a]));
      if (inf) acc = std::max(acc, diff);
      else acc += p_norm == 1 ? diff : (p_norm == 2 ? diff * diff : std::pow(diff, p_norm));
    }
    if (inclusive) return acc <= bound;   // scipy's KD-tree: the p-th power of the distance against r**p
    // scipy's cdist: the distance itself against the spacing
    const double dist = inf || p_norm == 1 ? acc : (p_norm == 2 ? std::sqrt(acc) : std::pow(acc, 1.0 / p_norm));
    return dist < bound;
  };
  std::unordered_map<int64_t, std::vector<int64_t>> grid;
  std::vector<int64_t> cell(d), step(d);
  int64_t n_kept = 0;
  for (int64_t i = 0; i < k; ++i) {
    kept[i * kstride] = false;
    if (n_kept >= limit) continue;
    for (int64_t a = 0; a < d; ++a) cell[a] = cell_of(i, a);
    bool rival = false;
    // the neighbouring cells: every step in {-1, 0, 1}^d
    std::fill(step.begin(), step.end(), -1);
    for (bool more = true; more && !rival;) {
      int64_t lin = 0;
      bool inside = true;
      for (int64_t a = 0; a < d && inside; ++a) {
        const int64_t c = cell[a] + step[a];
        inside = c >= 0 && c < dims[a];
        lin = lin * dims[a] + c;
      }
      if (inside) {
        auto it = grid.find(lin);
        if (it != grid.end())
          for (int64_t j : it->second)
            if (close(i, j)) { rival = true; break; }
      }
      more = false;
      for (int64_t a = d - 1; a >= 0; --a) {
        if (++step[a] <= 1) { more = true; break; }
        step[a] = -1;
      }
    }
    if (rival) continue;
    kept[i * kstride] = true;
    ++n_kept;
    int64_t lin = 0;
    for (int64_t a = 0; a < d; ++a) lin = lin * dims[a] + cell[a];
    grid[lin].push_back(i);
  }
  return n_kept;
}

}  // namespace ndimg::feature

// The statistics per label's entries: validate once, route to the engine.
#include <string>
#include <vector>
#include <utility>

#include "measure/measure.hpp"

namespace ndimg::measure {
namespace {

// Empty arrays count as contiguous whatever strides they come with.
bool contiguous(const View& v) { return v.size() == 0 || v.c_contiguous(); }

bool same_shape(const View& a, const View& b) {
  if (a.ndim != b.ndim) return false;
  for (int d = 0; d < a.ndim; ++d)
    if (a.shape[d] != b.shape[d]) return false;
  return true;
}

// A contiguous table of n entries (n = -1: any length) of dtype t, on in's device.
void require_table(const View& in, const View& t, DType dtype, int64_t n, const char* op, const char* name) {
  if (t.dtype != dtype || !contiguous(t) || (n >= 0 && t.size() != n))
    throw ValueError(std::string(op) + ": " + name + " must be a contiguous " + dtype_name(dtype) + " array of " +
                     (n >= 0 ? std::to_string(n) : std::string("the slots'")) + " elements");
  require_same_device(in, t, op);
}

// The slots of `in`: int32, C-contiguous, of its shape (or empty: every element in slot 0), on its device.
void require_slots(const View& in, const View& slots, const char* op) {
  if (slots.dtype != DType::I32 || !contiguous(slots) || (slots.size() != 0 && !same_shape(in, slots)))
    throw ValueError(std::string(op) + ": slots must be a C-contiguous int32 array of the input's shape");
  require_same_device(in, slots, op);
}

}  // namespace

void slots(const View& labels, Map map, int64_t lo, const View& table, const View& out, StreamHandle stream) {
  const char* op = "measure_slots";
  if (out.dtype != DType::I32 || !contiguous(out) || !same_shape(labels, out))
    throw ValueError(std::string(op) + ": out must be a C-contiguous int32 array of the labels' shape");
  require_same_device(labels, out, op);
  if (map == Map::dense) require_table(labels, table, DType::I32, -1, op, "a dense table");
  if (map == Map::sorted)
    require_table(labels, table, is_float(labels.dtype) ? DType::F64 : DType::I64, -1, op, "the keys");
  if (table.size() >= (int64_t(1) << 31)) throw ValueError(std::string(op) + ": more than 2^31 - 1 slots");
  if (labels.size() == 0) return;
  NDIMG_ROUTE(labels, op, slots_cpu(labels, map, lo, table, out), slots_cuda(labels, map, lo, table, out, stream));
}

void moments(const View& in, const View& slots, const View& counts, const View& sums, const View& isums,
             StreamHandle stream) {
  const char* op = "measure_moments";
  require_slots(in, slots, op);
  const int64_t n = counts.size();
  require_table(in, counts, DType::I64, n, op, "counts");
  require_table(in, sums, DType::F64, n, op, "sums");
  require_table(in, isums, DType::I64, n, op, "isums");
  if (in.size() == 0 || n == 0) return;
  NDIMG_ROUTE(in, op, moments_cpu(in, slots, counts, sums, isums), moments_cuda(in, slots, counts, sums, isums, stream));
}

void centered(const View& in, const View& slots, const View& means, const View& sq, StreamHandle stream) {
  const char* op = "measure_centered";
  require_slots(in, slots, op);
  require_table(in, means, DType::F64, sq.size(), op, "means");
  require_table(in, sq, DType::F64, means.size(), op, "sq");
  if (in.size() == 0 || sq.size() == 0) return;
  NDIMG_ROUTE(in, op, centered_cpu(in, slots, means, sq), centered_cuda(in, slots, means, sq, stream));
}

void weighted_coords(const View& in, const View& slots, const View& coords, StreamHandle stream) {
  const char* op = "measure_weighted_coords";
  require_slots(in, slots, op);
  if (coords.dtype != DType::F64 || coords.ndim != 2 || !contiguous(coords) || coords.shape[1] != in.ndim)
    throw ValueError(std::string(op) + ": coords must be a C-contiguous float64 array (nslots, ndim)");
  require_same_device(in, coords, op);
  if (in.size() == 0 || coords.size() == 0) return;
  NDIMG_ROUTE(in, op, weighted_coords_cpu(in, slots, coords), weighted_coords_cuda(in, slots, coords, stream));
}

void extrema(const View& in, const View& slots, const View& mins, const View& maxs, const View& minpos,
             const View& maxpos, const View& nans, const View& nanpos, StreamHandle stream) {
  const char* op = "measure_extrema";
  require_slots(in, slots, op);
  const int64_t n = mins.size();
  require_table(in, mins, in.dtype, n, op, "mins");
  require_table(in, maxs, in.dtype, n, op, "maxs");
  using Named = std::pair<const View*, const char*>;
  for (auto [t, name] : {Named{&minpos, "minpos"}, Named{&maxpos, "maxpos"}, Named{&nans, "nans"}, Named{&nanpos, "nanpos"}})
    require_table(in, *t, DType::I64, n, op, name);
  if (n == 0) return;
  NDIMG_ROUTE(in, op, extrema_cpu(in, slots, mins, maxs, minpos, maxpos, nans, nanpos),
              extrema_cuda(in, slots, mins, maxs, minpos, maxpos, nans, nanpos, stream));
}

void histogram(const View& in, const View& slots, std::span<const double> edges, const View& hist,
               StreamHandle stream) {
  const char* op = "measure_histogram";
  require_slots(in, slots, op);
  if (hist.dtype != DType::I64 || hist.ndim != 2 || !contiguous(hist) || edges.size() < 2 ||
      int64_t(edges.size()) != hist.shape[1] + 1)
    throw ValueError(std::string(op) + ": hist must be a C-contiguous int64 array (nslots, len(edges) - 1)");
  require_same_device(in, hist, op);
  if (in.size() == 0 || hist.size() == 0) return;
  NDIMG_ROUTE(in, op, histogram_cpu(in, slots, edges, hist), histogram_cuda(in, slots, edges, hist, stream));
}

void order(const View& slots, const View& counts, const View& out, StreamHandle) {
  const char* op = "measure_order";
  if (slots.dtype != DType::I32 || !contiguous(slots))
    throw ValueError(std::string(op) + ": slots must be a C-contiguous int32 array");
  require_table(slots, counts, DType::I64, -1, op, "counts");
  require_table(slots, out, DType::I64, -1, op, "out");
  if (slots.device == Device::CUDA) throw ValueError(std::string(op) + ": CPU engine only");
  // the counts must be those of these slots: a bad one would write out of bounds
  std::vector<int64_t> check(counts.size(), 0);
  const int32_t* sl = slots.ptr<int32_t>();
  for (int64_t i = 0, n = slots.size(); i < n; ++i) {
    if (sl[i] >= counts.size()) throw ValueError(std::string(op) + ": a slot beyond the counts");
    if (sl[i] >= 0) ++check[sl[i]];
  }
  int64_t total = 0;
  for (int64_t s = 0; s < counts.size(); ++s) {
    if (check[s] != counts.ptr<int64_t>()[s]) throw ValueError(std::string(op) + ": counts do not match the slots");
    total += check[s];
  }
  if (out.size() != total) throw ValueError(std::string(op) + ": out must hold sum(counts) elements");
  order_cpu(slots, counts, out);
}

void median(const View& in, const View& slots, const View& out, bool propagate_nan, StreamHandle) {
  const char* op = "measure_median";
  require_slots(in, slots, op);
  require_table(in, out, in.dtype == DType::F32 ? DType::F32 : DType::F64, -1, op, "out");
  if (in.device == Device::CUDA) throw ValueError(std::string(op) + ": CPU engine only");
  if (out.size() == 0) return;
  median_cpu(in, slots, out, propagate_nan);
}

}  // namespace ndimg::measure

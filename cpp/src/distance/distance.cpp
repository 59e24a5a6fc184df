// The distance transforms' entries: validate once, route to the engine.
#include <string>
#include <vector>

#include "distance/distance.hpp"

namespace ndimg::distance {
namespace {

void require_c_output(const View& in, const View& out, DType dtype, const char* op, const char* what) {
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  if (out.dtype != dtype || !out.c_contiguous())
    throw TypeError(std::string(op) + ": " + what + " must be a C-contiguous " + dtype_name(dtype) + " array");
}
void require_features(const View& in, const View& feat, const char* op) {
  require_same_shape(in, feat, op);
  require_same_device(in, feat, op);
  if (!((feat.dtype == DType::I32 && in.size() <= INT32_MAX) || feat.dtype == DType::I64) || !feat.c_contiguous())
    throw TypeError(std::string(op) + ": features must be a C-contiguous int32 (or int64) array");
}
const double* check_sampling(const View& in, std::span<const double> sampling, const char* op) {
  if (sampling.empty()) return nullptr;
  if (int(sampling.size()) != in.ndim)
    throw ValueError(std::string(op) + ": sampling needs one value per axis");
  return sampling.data();
}
void require_nd(const View& in, const char* op) {
  if (in.ndim == 0) throw ValueError(std::string(op) + ": 0-d input");
}

// f.template operator()<F>(F* feat): F the features' type, feat nullptr without features.
template <class Fn>
void with_features(const View* feat, Fn&& fn) {
  if (!feat) fn(static_cast<int32_t*>(nullptr));
  else if (feat->dtype == DType::I32) fn(feat->ptr<int32_t>());
  else fn(feat->ptr<int64_t>());
}

void run_edt(const View& in, std::span<const double> sampling, const View& dist, const View* feat, StreamHandle s) {
  const char* op = "distance_transform_edt";
  require_nd(in, op);
  if (in.size() == 0) return;  // (an empty array's strides are arbitrary)
  require_c_output(in, dist, DType::F64, op, "distances");
  if (feat) require_features(in, *feat, op);
  const double* sp = check_sampling(in, sampling, op);
  with_features(feat, [&]<class F>(F* f) {
    NDIMG_ROUTE(in, op, edt_cpu<F>(in, sp, dist.ptr<double>(), f), edt_cuda<F>(in, sp, dist.ptr<double>(), f, s));
  });
}

void run_chamfer(const View& in, const View& structure, const View& dist, const View* feat, StreamHandle s) {
  const char* op = "distance_transform_cdt";
  require_nd(in, op);
  if (in.size() == 0) return;  // (an empty array's strides are arbitrary)
  require_c_output(in, dist, DType::I32, op, "distances");
  if (feat) require_features(in, *feat, op);
  if (structure.device != Device::CPU) throw ValueError(std::string(op) + ": the structure lives on the host");
  if (structure.ndim != in.ndim) throw Error(std::string(op) + ": structure and input must have equal rank");
  for (int d = 0; d < structure.ndim; ++d)
    if (structure.shape[d] != 3) throw ValueError(std::string(op) + ": metric sizes must be equal to 3");
  if (!structure.c_contiguous() || dtype_size(structure.dtype) != 1)
    throw TypeError(std::string(op) + ": the structure must be C-contiguous bytes");
  // the structure's first half (before its centre in C order) as offsets, in that order
  Chamfer g;
  g.ndim = in.ndim;
  int64_t cstride[kMaxDim];
  cstride[in.ndim - 1] = 1;
  for (int d = in.ndim - 1; d >= 0; --d) {
    g.shape[d] = in.shape[d];
    if (d > 0) cstride[d - 1] = cstride[d] * in.shape[d];
  }
  const uint8_t* bytes = structure.ptr<uint8_t>();
  std::vector<int8_t> rel;
  std::vector<int64_t> delta;
  const int64_t half = structure.size() / 2;
  g.chain = half > 0 && bytes[half - 1];  // the step back along the last axis: the half's last offset
  for (int64_t k = 0; k < half - (g.chain ? 1 : 0); ++k) {
    if (!bytes[k]) continue;
    int64_t rem = k, off = 0;
    std::vector<int8_t> r(in.ndim);
    for (int d = in.ndim - 1; d >= 0; --d) {
      r[d] = int8_t(rem % 3 - 1);
      rem /= 3;
      off += r[d] * cstride[d];
    }
    rel.insert(rel.end(), r.begin(), r.end());
    delta.push_back(off);
  }
  g.noff = int(delta.size());
  // the cross or the whole cube: its first half is the axes' steps back alone, or everything
  int64_t set = 0, axis_steps = 0;
  for (int64_t k = 0; k < half; ++k) {
    if (!bytes[k]) continue;
    ++set;
    int64_t rem = k, nonzero = 0;
    for (int d = 0; d < in.ndim; ++d, rem /= 3) nonzero += rem % 3 != 1;
    axis_steps += nonzero == 1;
  }
  if (set == in.ndim && axis_steps == in.ndim) g.separable = 1;  // (in 1-D the cube is the cross)
  else if (set == half && half > 0) g.separable = 2;
  g.rel = rel.data();
  g.delta = delta.data();
  with_features(feat, [&]<class F>(F* f) {
    NDIMG_ROUTE(in, op, chamfer_cpu<F>(in, g, dist.ptr<int32_t>(), f), chamfer_cuda<F>(in, g, dist.ptr<int32_t>(), f, s));
  });
}

void run_brute_force(const View& in, const View& border, Metric metric, std::span<const double> sampling,
                     const View& dist, const View* feat, StreamHandle s) {
  const char* op = "distance_transform_bf";
  require_nd(in, op);
  if (in.size() == 0) return;  // (an empty array's strides are arbitrary)
  if (metric != Metric::euclidean && metric != Metric::taxicab && metric != Metric::chessboard)
    throw Error("distance metric not supported");
  require_c_output(in, dist, metric == Metric::euclidean ? DType::F64 : DType::U32, op, "distances");
  if (feat) require_features(in, *feat, op);
  require_same_device(in, border, op);
  // an empty border's strides are arbitrary (CuPy gives zero-size arrays zero strides)
  if (border.dtype != DType::I64 || border.ndim != 2 || border.shape[1] != in.ndim ||
      (border.shape[0] > 0 && !border.c_contiguous()))
    throw TypeError(std::string(op) + ": border must be C-contiguous int64 coordinates (count, ndim)");
  const double* sp = check_sampling(in, sampling, op);
  const int64_t* b = border.ptr<int64_t>();
  const int64_t nb = border.shape[0];
  with_features(feat, [&]<class F>(F* f) {
    NDIMG_ROUTE(in, op, brute_force_cpu<F>(in, b, nb, metric, sp, dist, f),
                brute_force_cuda<F>(in, b, nb, metric, sp, dist, f, s));
  });
}

}  // namespace

void edt(const View& in, std::span<const double> sampling, const View& dist, StreamHandle s) {
  run_edt(in, sampling, dist, nullptr, s);
}
void edt_features(const View& in, std::span<const double> sampling, const View& dist, const View& feat,
                  StreamHandle s) {
  run_edt(in, sampling, dist, &feat, s);
}

void unravel(const View& feat, const View& indices, StreamHandle s) {
  const char* op = "unravel";
  if (feat.size() == 0) return;
  require_same_device(feat, indices, op);
  bool ok = indices.ndim == feat.ndim + 1 && indices.shape[0] == feat.ndim && indices.dtype == DType::I32 &&
            indices.c_contiguous() && feat.c_contiguous() && (feat.dtype == DType::I32 || feat.dtype == DType::I64);
  for (int d = 0; ok && d < feat.ndim; ++d) ok = indices.shape[d + 1] == feat.shape[d];
  if (!ok) throw TypeError("unravel: indices must be C-contiguous int32 of shape (ndim,) + the features' shape");
  NDIMG_ROUTE(feat, op, unravel_cpu(feat, indices), unravel_cuda(feat, indices, s));
}

void chamfer(const View& in, const View& structure, const View& dist, StreamHandle s) {
  run_chamfer(in, structure, dist, nullptr, s);
}
void chamfer_features(const View& in, const View& structure, const View& dist, const View& feat, StreamHandle s) {
  run_chamfer(in, structure, dist, &feat, s);
}

void brute_force(const View& in, const View& border, Metric metric, std::span<const double> sampling,
                 const View& dist, StreamHandle s) {
  run_brute_force(in, border, metric, sampling, dist, nullptr, s);
}
void brute_force_features(const View& in, const View& border, Metric metric, std::span<const double> sampling,
                          const View& dist, const View& feat, StreamHandle s) {
  run_brute_force(in, border, metric, sampling, dist, &feat, s);
}

}  // namespace ndimg::distance

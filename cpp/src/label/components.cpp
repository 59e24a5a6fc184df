// The connected-components entries: validate once, route to the engine.
#include "label/components.hpp"

#include <string>

namespace ndimg::label {

void require_structure(int ndim, std::span<const uint8_t> structure, const char* op) {
  int64_t size = 1;
  for (int d = 0; d < ndim; ++d) size *= 3;
  if (ndim > 20 || int64_t(structure.size()) != size)
    throw ValueError(std::string(op) + ": structure must have 3**ndim elements");
}

void seeded_components(const View& in, double low, double high, const View& out, StreamHandle stream) {
  const char* op = "seeded_components";
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  if (out.dtype != DType::Bool) throw TypeError("seeded_components: output must be bool");
  if (in.size() == 0) return;
  if (in.ndim == 0) throw ValueError("seeded_components: 0-d input");
  NDIMG_ROUTE(in, op, seeded_components_cpu(in, low, high, out), seeded_components_cuda(in, low, high, out, stream));
}

void seeded_roots(const View& in, double low, double high, const View& out, const View& roots, StreamHandle stream) {
  const char* op = "seeded_roots";
  require_same_shape(in, roots, op);
  require_same_device(in, roots, op);
  if (roots.dtype != DType::I64 || !roots.c_contiguous())
    throw TypeError("seeded_roots: roots must be a C-contiguous int64 array");
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  if (out.dtype != DType::Bool) throw TypeError("seeded_roots: output must be bool");
  if (in.size() == 0) return;
  if (in.ndim == 0) throw ValueError("seeded_roots: 0-d input");
  int64_t* r = roots.ptr<int64_t>();
  NDIMG_ROUTE(in, op, seeded_components_cpu(in, low, high, out, r),
              seeded_components_cuda(in, low, high, out, stream, r));
}

namespace {
void require_label(const View& in, std::span<const uint8_t> structure, const View& out, const char* op) {
  require_same_shape(in, out, op);
  require_same_device(in, out, op);
  if (!((out.dtype == DType::I32 && in.size() < INT32_MAX) || out.dtype == DType::I64) || !out.c_contiguous())
    throw TypeError("label: output must be a C-contiguous int64 array (or int32 below 2**31 elements)");
  if (in.ndim == 0) throw ValueError("label: 0-d input");
  require_structure(in.ndim, structure, op);
}
}  // namespace

int64_t label(const View& in, std::span<const uint8_t> structure, const View& out, StreamHandle stream) {
  const char* op = "label";
  require_label(in, structure, out, op);
  if (in.size() == 0) return 0;
  const auto taps = earlier_taps(in.ndim, structure);
  NDIMG_ROUTE(in, op, label_cpu(in, taps, out), label_cuda(in, taps, out, stream));
}

int64_t label_values(const View& in, int64_t background, std::span<const uint8_t> structure, const View& out,
                     StreamHandle stream) {
  const char* op = "label";
  require_label(in, structure, out, op);
  if (in.size() == 0) return 0;
  const auto taps = earlier_taps(in.ndim, structure);
  NDIMG_ROUTE(in, op, label_values_cpu(in, background, taps, out),
              label_values_cuda(in, background, taps, out, stream));
}

void find_objects(const View& labels, int64_t max_label, const View& boxes, StreamHandle stream) {
  const char* op = "find_objects";
  require_same_device(labels, boxes, op);
  if (boxes.dtype != DType::I64 || !boxes.c_contiguous() || boxes.ndim != 3 || boxes.shape[0] != max_label ||
      boxes.shape[1] != 2 || boxes.shape[2] != labels.ndim)
    throw ValueError("find_objects: boxes must be C-contiguous int64 of shape (max_label, 2, ndim)");
  if (labels.ndim == 0) throw ValueError("find_objects: 0-d labels");
  if (max_label == 0) return;
  NDIMG_ROUTE(labels, op, find_objects_cpu(labels, max_label, boxes), find_objects_cuda(labels, max_label, boxes, stream));
}

void value_groups(const View& in, int64_t lo, const View& counts, const View& coords) {
  if (in.device != Device::CPU || counts.device != Device::CPU || coords.device != Device::CPU)
    throw ValueError("value_groups: host arrays only");
  if (in.dtype == DType::Bool || in.dtype == DType::F32 || in.dtype == DType::F64)
    throw TypeError("value_groups: integer input only");
  if (counts.dtype != DType::I64 || !counts.c_contiguous() || counts.ndim != 1 || counts.size() < 1 ||
      coords.dtype != DType::I64 || !coords.c_contiguous() || coords.ndim != 2 || coords.shape[0] != in.ndim ||
      coords.shape[1] != in.size())
    throw ValueError("value_groups: counts and coords ((ndim, size)) must be C-contiguous int64");
  if (in.size() == 0 || in.ndim == 0) return;
  value_groups_cpu(in, lo, counts, coords);
}

void watershed_ift(const View& in, const View& markers, std::span<const uint8_t> structure, const View& out) {
  const char* op = "watershed_ift";
  require_same_shape(in, markers, op);
  require_same_shape(in, out, op);
  if (in.device != Device::CPU || markers.device != Device::CPU || out.device != Device::CPU)
    throw ValueError("watershed_ift: host arrays only");
  if (in.dtype != DType::U8 && in.dtype != DType::U16) throw TypeError("watershed_ift: input must be uint8 or uint16");
  auto integer = [](DType t) { return t != DType::Bool && t != DType::F32 && t != DType::F64; };
  if (!integer(markers.dtype) || !integer(out.dtype)) throw TypeError("watershed_ift: markers and output must be integers");
  if (in.ndim == 0) throw ValueError("watershed_ift: 0-d input");
  require_structure(in.ndim, structure, op);
  if (in.size() == 0) return;
  watershed_ift_cpu(in, markers, structure, out);
}

}  // namespace ndimg::label

// The colour conversions' entry: validate once, route to the engine.
#include <algorithm>
#include <string>

#include "color/color.hpp"

namespace ndimg::color {

int64_t convert(const View& in, const View& out, Conversion conversion, std::span<const double> matrix,
                std::span<const double> vec, StreamHandle stream) {
  const char* op = "color_convert";
  require_same_device(in, out, op);
  if (in.ndim < 1 || out.ndim != in.ndim) throw ValueError(std::string(op) + ": arrays of pixels by channels expected");
  for (int d = 0; d + 1 < in.ndim; ++d)
    if (in.shape[d] != out.shape[d]) throw ValueError(std::string(op) + ": input and output pixel shapes differ");
  Params p{};
  p.k = int(out.shape[out.ndim - 1]);
  const bool stains = conversion == Conversion::SeparateStains || conversion == Conversion::CombineStains;
  const bool any_k = stains || conversion == Conversion::Matrix;
  if (p.k < 1 || p.k > (any_k ? kMaxOut : 3) || (!any_k && p.k != 3))
    throw ValueError(std::string(op) + ": wrong number of output channels");
  const int nin = conversion == Conversion::RgbaToRgb ? 4 : 3;
  if (in.shape[in.ndim - 1] < nin) throw ValueError(std::string(op) + ": too few input channels");
  const DType want = stains || in.dtype != DType::F32 ? DType::F64 : DType::F32;
  if (out.dtype != want) throw TypeError(std::string(op) + ": the output must be " + dtype_name(want));
  if (!matrix.empty()) {
    if (int64_t(matrix.size()) != 3 * int64_t(p.k)) throw ValueError(std::string(op) + ": the matrix must be k x 3");
    std::copy(matrix.begin(), matrix.end(), p.m);
  }
  if (!vec.empty()) {
    if (vec.size() != 3 || p.k > 3) throw ValueError(std::string(op) + ": 3 values expected for vec");
    std::copy(vec.begin(), vec.end(), p.v);
    p.has_v = true;
  }
  if (in.size() == 0 || out.size() == 0) return 0;
  NDIMG_ROUTE(in, op, convert_cpu(in, out, conversion, p), convert_cuda(in, out, conversion, p, stream));
}

void difference(const View& lab1, const View& lab2, const View& out, Difference kind, std::span<const double> k,
                StreamHandle stream) {
  const char* op = "color_difference";
  require_same_device(lab1, lab2, op);
  require_same_device(lab1, out, op);
  bool same = lab1.ndim >= 1 && lab2.ndim == lab1.ndim && out.ndim == lab1.ndim - 1;
  for (int d = 0; same && d + 1 < lab1.ndim; ++d) same = lab1.shape[d] == lab2.shape[d] && out.shape[d] == lab1.shape[d];
  if (!same) throw ValueError(std::string(op) + ": two arrays of pixels by channels and an output of their pixels expected");
  if (lab1.shape[lab1.ndim - 1] < 3 || lab2.shape[lab2.ndim - 1] < 3)
    throw ValueError(std::string(op) + ": at least 3 channels expected");
  if (!is_float(out.dtype) || !out.c_contiguous())
    throw TypeError(std::string(op) + ": the output must be a C-contiguous float32 or float64 array");
  if (k.size() > 5) throw ValueError(std::string(op) + ": at most 5 parameters");
  DiffParams p{};
  std::copy(k.begin(), k.end(), p.k);
  if (out.size() == 0) return;
  NDIMG_ROUTE(lab1, op, difference_cpu(lab1, lab2, out, kind, p), difference_cuda(lab1, lab2, out, kind, p, stream));
}

}  // namespace ndimg::color

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

}  // namespace ndimg::color

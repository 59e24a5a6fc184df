// The cascade classifier's entry: validate once, route to the engine.
#include <string>

#include "feature/cascade.hpp"

namespace ndimg::feature {
namespace {

void require_table(const View& v, DType dtype, int64_t rows, int64_t cols, const View& ii, const char* what) {
  const bool shape_ok = cols == 0 ? v.ndim == 1 && v.shape[0] == rows : v.ndim == 2 && v.shape[0] == rows && v.shape[1] == cols;
  if (v.dtype != dtype || !shape_ok || !v.c_contiguous())
    throw ValueError(std::string("cascade_windows: ") + what + " must be a C-contiguous " + dtype_name(dtype) +
                     " table of the classifier's size");
  require_same_device(ii, v, "cascade_windows");
}

}  // namespace

void cascade_windows(const View& ii, const View& stumps, const View& leaves, const View& luts, const View& stages,
                     const View& limits, int64_t step, const View& out, StreamHandle stream) {
  const char* op = "cascade_windows";
  if (ii.dtype != DType::F32 || ii.ndim != 2 || !ii.c_contiguous())
    throw ValueError("cascade_windows: the integral image must be a C-contiguous 2-D float32 array");
  if (out.dtype != DType::U8 || out.ndim != 2 || !out.c_contiguous())
    throw ValueError("cascade_windows: out must be a C-contiguous 2-D uint8 array");
  require_same_device(ii, out, op);
  if (step < 1) throw ValueError("cascade_windows: the step must be at least 1");
  if (stumps.ndim != 2) throw ValueError("cascade_windows: stumps must be a (n_stumps, 5) table");
  const int64_t ns = stumps.shape[0], nst = stages.ndim == 2 ? stages.shape[0] : -1;
  require_table(stumps, DType::I64, ns, 5, ii, "stumps");
  require_table(leaves, DType::F32, ns, 2, ii, "leaves");
  require_table(luts, DType::U32, ns, 8, ii, "luts");
  require_table(stages, DType::I64, nst, 2, ii, "stages");
  require_table(limits, DType::F32, nst, 0, ii, "limits");
  if (stumps.device == Device::CPU) {  // device tables were checked by the caller, which built them on the host
    const int64_t* s = stages.ptr<int64_t>();
    for (int64_t k = 0; k < nst; ++k)
      if (s[2 * k] < 0 || s[2 * k + 1] < 0 || s[2 * k] + s[2 * k + 1] > ns)
        throw ValueError("cascade_windows: a stage refers to stumps the table does not hold");
    const int64_t* f = stumps.ptr<int64_t>();
    for (int64_t k = 0; k < ns; ++k)
      if (f[5 * k + 4] != 8 * k) throw ValueError("cascade_windows: stump k's LUT must start at word 8 * k");
  }
  if (out.size() == 0) return;
  const CascadeTables t{stumps.ptr<int64_t>(), leaves.ptr<float>(), luts.ptr<uint32_t>(), stages.ptr<int64_t>(),
                        limits.ptr<float>(), nst};
  NDIMG_ROUTE(ii, op, cascade_windows_cpu(ii, t, step, out), cascade_windows_cuda(ii, t, step, out, stream));
}

}  // namespace ndimg::feature

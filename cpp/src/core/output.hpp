// The output-dtype funnel shared by the engines: a compute kernel is instantiated for its input dtype and
// only three output types, {input's, float32, float64}; any other requested output is written through a
// C-contiguous float64 scratch and one generic cast pass. The cast of a result already rounded to float64
// (or, for float32 data, computed in float) gives what a direct cast would, so results do not change,
// while the instantiations drop from inputs x outputs (121) to about inputs x 3.
#pragma once
#include <cstdint>
#include <memory>
#include <type_traits>

#include "ndimg/dispatch.hpp"

namespace ndimg {

template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return DType::Bool;
  else if constexpr (std::is_same_v<T, uint8_t>) return DType::U8;
  else if constexpr (std::is_same_v<T, uint16_t>) return DType::U16;
  else if constexpr (std::is_same_v<T, uint32_t>) return DType::U32;
  else if constexpr (std::is_same_v<T, uint64_t>) return DType::U64;
  else if constexpr (std::is_same_v<T, int8_t>) return DType::I8;
  else if constexpr (std::is_same_v<T, int16_t>) return DType::I16;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::I32;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::I64;
  else if constexpr (std::is_same_v<T, float>) return DType::F32;
  else return DType::F64;
}

// Whether kernels for input type TI write an output of dtype `out` directly.
template <class TI>
bool is_kernel_output(DType out) {
  return out == dtype_of<TI>() || out == DType::F32 || out == DType::F64;
}

// A C-contiguous float64 view of out's shape at `data`.
inline View f64_like(const View& out, void* data) {
  View v = out;
  v.data = data;
  v.dtype = DType::F64;
  int64_t stride = 1;
  for (int d = v.ndim - 1; d >= 0; --d) {
    v.strides[d] = stride;
    stride *= v.shape[d];
  }
  return v;
}

// Engine-neutral funnel: f.template operator()<TO>(view) runs with TO in {TI, float, double}; for any
// other dtype of `out`, via_scratch(out, run) hands run a float64 view to write and then casts it into
// out (each engine allocates and casts its own way).
template <class TI, class F, class ViaScratch>
void with_kernel_output(const View& out, F&& f, ViaScratch&& via_scratch) {
  auto run = [&](const View& v) {
    if (v.dtype == dtype_of<TI>()) f.template operator()<TI>(v);
    else if (v.dtype == DType::F32) f.template operator()<float>(v);
    else f.template operator()<double>(v);
  };
  if (is_kernel_output<TI>(out.dtype)) run(out);
  else via_scratch(out, run);
}

// The CPU engine's cast pass: out = cast_to<out's type>(src), src C-contiguous in out's shape.
void cast_from_f64_cpu(const double* src, const View& out);

// The funnel on the CPU engine (scratch on the heap, cast on the thread pool).
template <class TI, class F>
void with_kernel_output_cpu(const View& out, F&& f) {
  with_kernel_output<TI>(out, f, [](const View& o, auto&& run) {
    std::unique_ptr<double[]> tmp(new double[size_t(o.size())]);
    run(f64_like(o, tmp.get()));
    cast_from_f64_cpu(tmp.get(), o);
  });
}

}  // namespace ndimg

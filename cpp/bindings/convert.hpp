// From nanobind ndarrays (NumPy, or any DLPack/CUDA-array-interface array) to core views, zero-copy.
#pragma once
#include <algorithm>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/vector.h>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::py {

namespace nb = nanobind;
using InArray = nb::ndarray<nb::ro>;
using OutArray = nb::ndarray<>;

template <class A>
View to_view(const A& a) {
  View v;
  v.data = const_cast<void*>(static_cast<const void*>(a.data()));
  if (a.ndim() > size_t(kMaxDim)) throw ValueError("arrays of more than 32 dimensions are not supported");
  v.ndim = int(a.ndim());
  for (int i = 0; i < v.ndim; ++i) {
    v.shape[i] = int64_t(a.shape(i));
    v.strides[i] = int64_t(a.stride(i));
  }
  auto dt = a.dtype();
  using code = nb::dlpack::dtype_code;
  auto is = [&](code c, int bits) { return dt.code == uint8_t(c) && dt.bits == bits && dt.lanes == 1; };
  if (is(code::Bool, 8)) v.dtype = DType::Bool;
  else if (is(code::UInt, 8)) v.dtype = DType::U8;
  else if (is(code::UInt, 16)) v.dtype = DType::U16;
  else if (is(code::UInt, 32)) v.dtype = DType::U32;
  else if (is(code::UInt, 64)) v.dtype = DType::U64;
  else if (is(code::Int, 8)) v.dtype = DType::I8;
  else if (is(code::Int, 16)) v.dtype = DType::I16;
  else if (is(code::Int, 32)) v.dtype = DType::I32;
  else if (is(code::Int, 64)) v.dtype = DType::I64;
  else if (is(code::Float, 32)) v.dtype = DType::F32;
  else if (is(code::Float, 64)) v.dtype = DType::F64;
  else throw TypeError("unsupported array dtype (code " + std::to_string(dt.code) + ", " + std::to_string(dt.bits) + " bits)");
  if (a.device_type() == nb::device::cpu::value) v.device = Device::CPU;
  else if (a.device_type() == nb::device::cuda::value) v.device = Device::CUDA;
  else throw TypeError("arrays must live in host memory or on a CUDA device");
  v.device_id = int(a.device_id());
  return v;
}

// An array argument taken as a Python object: an array nanobind cannot view (non-native byte order, an
// unsupported dtype, not an array at all) raises a TypeError naming the argument instead of nanobind's
// "incompatible function arguments".
template <class A>
A array_arg(nb::handle h, const char* name) {
  A a;
  // as nanobind's own overload resolution: first without implicit conversions, then with them
  if (nb::try_cast(h, a, false) || nb::try_cast(h, a, true)) return a;
  std::string got = nb::type_name(h.type()).c_str();
  if (nb::hasattr(h, "dtype")) got += " of dtype " + std::string(nb::str(nb::repr(h.attr("dtype"))).c_str());
  const char* what = A::ReadOnly ? "an array" : "a writable array";
  throw TypeError(std::string(name) + ": expected " + what + " of a supported dtype in native byte order, got " + got);
}

inline StreamHandle to_stream(uintptr_t s) { return reinterpret_cast<StreamHandle>(s); }

// Flat (x, y) pairs as a NumPy (n, 2) int64 array owning a copy.
inline nanobind::ndarray<nanobind::numpy, int64_t> xy_array(const std::vector<int64_t>& v) {
  auto* p = new int64_t[v.size()];
  std::copy(v.begin(), v.end(), p);
  nanobind::capsule owner(p, [](void* q) noexcept { delete[] static_cast<int64_t*>(q); });
  size_t shape[2] = {v.size() / 2, 2};
  return nanobind::ndarray<nanobind::numpy, int64_t>(p, 2, shape, owner);
}

}  // namespace ndimg::py

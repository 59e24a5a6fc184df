// dtype dispatch and the element conversions every operation shares. Conversions follow scipy.ndimage's
// C casts: float to integer truncates toward zero and wraps modulo 2^bits (through int64); bool is the
// truncated byte's truth.
#pragma once
#include <cstdint>
#include <type_traits>

#include "ndimg/array.hpp"
#include "ndimg/hd.hpp"

namespace ndimg {

// f.template operator()<T>() with T the C++ type of `t`.
template <class F>
decltype(auto) dispatch_dtype(DType t, F&& f) {
  switch (t) {
    case DType::Bool: return f.template operator()<bool>();
    case DType::U8: return f.template operator()<uint8_t>();
    case DType::U16: return f.template operator()<uint16_t>();
    case DType::U32: return f.template operator()<uint32_t>();
    case DType::U64: return f.template operator()<uint64_t>();
    case DType::I8: return f.template operator()<int8_t>();
    case DType::I16: return f.template operator()<int16_t>();
    case DType::I32: return f.template operator()<int32_t>();
    case DType::I64: return f.template operator()<int64_t>();
    case DType::F32: return f.template operator()<float>();
    case DType::F64: return f.template operator()<double>();
  }
  throw TypeError("unsupported dtype");
}

// Arithmetic of an operation runs in float for float32 data and in double otherwise (as scipy does).
template <class T>
using compute_t = std::conditional_t<std::is_same_v<T, float>, float, double>;

template <class T, class S>
NDIMG_HD T cast_to(S v) {
  if constexpr (std::is_same_v<T, S>) {
    return v;
  } else if constexpr (std::is_same_v<T, bool>) {
    // scipy.ndimage stores a bool output as a C cast to unsigned char: 0.5 and 256 are false
    return cast_to<uint8_t>(v) != 0;
  } else if constexpr (std::is_floating_point_v<T> || !std::is_floating_point_v<S>) {
    return static_cast<T>(v);
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    // x86's conversion (scipy's) spelled out, since CUDA's saturates: 2^64 and above become 0, NaN and
    // values below int64 2^63, [2^63, 2^64) converts directly, the rest wraps through int64
    if (v >= S(18446744073709551616.0)) return 0;
    if (v >= S(9223372036854775808.0)) return static_cast<uint64_t>(v);
    if (!(v > S(-9223372036854775808.0))) return uint64_t(1) << 63;
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  } else {
    // float -> integer: truncate, then wrap like a C cast through int64 (scipy.ndimage's behaviour);
    // NaN and values beyond int64 become INT64_MIN first, as on x86.
    if (!(v > S(-9223372036854775808.0) && v < S(9223372036854775808.0)))
      return static_cast<T>(INT64_MIN);
    return static_cast<T>(static_cast<int64_t>(v));
  }
}

}  // namespace ndimg

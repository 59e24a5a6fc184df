#include "ndimage/generic.hpp"

#include <algorithm>
#include <vector>

#include "core/output.hpp"
#include "ndimage/correlate1d.hpp"
#include "ndimage/footprint.hpp"

namespace ndimg::ndimage {

namespace {

// out[o + i * stride] = cast_to<TO>(v[i]) for i < n (element offsets): one indirect call per result of the
// function instead of an instantiation per input x output dtype pair.
using Store = void (*)(void* base, int64_t o, int64_t stride, const double* v, int64_t n);

Store store_for(DType t) {
  return dispatch_dtype(t, []<class TO>() -> Store {
    return [](void* base, int64_t o, int64_t stride, const double* v, int64_t n) {
      for (int64_t i = 0; i < n; ++i) static_cast<TO*>(base)[o + i * stride] = cast_to<TO>(v[i]);
    };
  });
}

void require_host(const View& in, const View& out, const char* op) {
  require_same_shape(in, out, op);
  if (in.device != Device::CPU || out.device != Device::CPU)
    throw TypeError(std::string(op) + ": runs a host function on host arrays only");
}

}  // namespace

bool generic_filter(const View& in, const View& out, std::span<const int64_t> offsets, Mode mode, double cval,
                    WindowFn fn, void* data, double* window) {
  const char* op = "generic_filter";
  require_host(in, out, op);
  const Taps t = make_taps(in, out, offsets, op);
  if (out.size() == 0) return true;
  std::vector<double> own;
  if (window == nullptr) {
    own.resize(size_t(std::max<int64_t>(t.count, 1)));
    window = own.data();
  }
  const Store store = store_for(out.dtype);
  const Geometry& g = t.geom;
  return dispatch_dtype(in.dtype, [&]<class TI>() {
    const TI* src = in.ptr<TI>();
    int64_t c[kMaxDim] = {};
    const int last = g.ndim - 1;
    const int64_t* linear = t.linear.data();
    // C order over the output, on this thread: the function may need the caller's thread (Python's GIL)
    for (int64_t line = 0, lines = out.size() / g.shape[last]; line < lines; ++line) {
      const int64_t o = unravel(g, line * g.shape[last], c);
      // where the line's windows lie inside the input: [lo, hi) along the last axis, read without the mode
      bool inside = true;
      int64_t base = 0;
      for (int d = 0; d < last; ++d) {
        inside = inside && c[d] >= g.lo[d] && c[d] < g.hi[d];
        base += c[d] * g.in_strides[d];
      }
      const int64_t lo = inside ? g.lo[last] : 0, hi = inside ? std::max(g.hi[last], lo) : 0;
      for (int64_t i = 0; i < g.shape[last]; ++i) {
        if (i >= lo && i < hi) {
          const TI* p = src + base + i * g.in_strides[last];
          for (int64_t k = 0; k < t.count; ++k) window[k] = double(p[linear[k]]);
        } else {
          c[last] = i;
          for_each_tap<double>(g, c, src, t.offsets.data(), linear, t.count, mode, cval,
                               [&](int64_t k, double v) { window[k] = v; });
        }
        double r = 0;
        if (!fn(window, intptr_t(t.count), &r, data)) return false;
        store(out.data, o + i * g.out_strides[last], 0, &r, 1);
      }
    }
    return true;
  });
}

bool generic_filter1d(const View& in, const View& out, int64_t size, int axis, Mode mode, double cval, int origin,
                      LineFn fn, void* data, double* in_line, double* out_line) {
  const char* op = "generic_filter1d";
  require_host(in, out, op);
  if (in.ndim < 1) throw ValueError(std::string(op) + ": 0-d arrays are not supported");
  if (axis < 0 || axis >= in.ndim) throw ValueError(std::string(op) + ": axis out of range");
  if (size < 1) throw ValueError(std::string(op) + ": invalid filter size");
  check_origin(size, origin, op);
  if (out.size() == 0) return true;
  const int64_t n = in.shape[axis], len = n + size - 1;
  const Reach r = filter_reach(size, origin);
  std::vector<double> own_in, own_out;
  if (in_line == nullptr) {
    own_in.resize(size_t(len));
    in_line = own_in.data();
  }
  if (out_line == nullptr) {
    own_out.resize(size_t(n));
    out_line = own_out.data();
  }
  std::vector<int64_t> src(static_cast<size_t>(len));  // extended position j reads line index src[j] (-1: cval)
  for (int64_t j = 0; j < len; ++j) src[size_t(j)] = extend_index(j - r.left, n, mode);
  const Store store = store_for(out.dtype);
  // the lines in C order of the other axes
  int outer[kMaxDim], m = 0;
  for (int d = 0; d < in.ndim; ++d)
    if (d != axis) outer[m++] = d;
  const int64_t lines = out.size() / n, is = in.strides[axis], os = out.strides[axis];
  return dispatch_dtype(in.dtype, [&]<class TI>() {
    const TI* base = in.ptr<TI>();
    for (int64_t l = 0; l < lines; ++l) {
      int64_t io = 0, oo = 0, rem = l;
      for (int q = m - 1; q >= 0; --q) {
        const int d = outer[q];
        const int64_t k = rem % in.shape[d];
        rem /= in.shape[d];
        io += k * in.strides[d];
        oo += k * out.strides[d];
      }
      for (int64_t j = 0; j < len; ++j) {
        const int64_t s = src[size_t(j)];
        in_line[j] = s < 0 ? cval : double(base[io + s * is]);
      }
      std::fill(out_line, out_line + n, 0.0);
      if (!fn(in_line, intptr_t(len), out_line, intptr_t(n), data)) return false;
      store(out.data, oo, os, out_line, n);
    }
    return true;
  });
}

}  // namespace ndimg::ndimage

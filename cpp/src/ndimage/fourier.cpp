// fourier_filter's entry: validate once, build the per-axis tables, route to an engine.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>

#include "ndimage/fourier.hpp"

namespace ndimg::ndimage {

void fourier_filter(std::span<const View> in, std::span<const View> out, FourierKind kind,
                    std::span<const double> params, int64_t n, int axis, std::span<const int64_t> full_shape,
                    std::span<const int64_t> offset, StreamHandle stream) {
  const char* op = "fourier_filter";
  if (in.empty() || in.size() > 2 || out.empty() || out.size() > 2)
    throw ValueError("fourier_filter: one or two parts (real, imaginary) of input and output are required");
  const View& v = in[0];
  const int ndim = v.ndim;
  for (const View& p : in) {
    if (!is_float(p.dtype) || p.dtype != v.dtype) throw TypeError("fourier_filter: input parts must be float32 or float64 of one dtype");
    require_same_shape(p, v, op);
    require_same_device(p, v, op);
    if (!std::equal(p.strides.begin(), p.strides.begin() + ndim, v.strides.begin()))
      throw ValueError("fourier_filter: the input parts must have one layout");
  }
  for (const View& p : out) {
    if (!is_float(p.dtype) || p.dtype != out[0].dtype) throw TypeError("fourier_filter: output parts must be float32 or float64 of one dtype");
    require_same_shape(p, v, op);
    require_same_device(p, v, op);
    if (!std::equal(p.strides.begin(), p.strides.begin() + ndim, out[0].strides.begin()))
      throw ValueError("fourier_filter: the output parts must have one layout");
  }
  if (out.size() < in.size() || (kind == FourierKind::Shift && out.size() != 2))
    throw TypeError("fourier_filter: the output must be complex");
  if (ndim < 1) throw ValueError("fourier_filter: the input must have at least one dimension");
  if (int64_t(params.size()) != ndim) throw ValueError("fourier_filter: one parameter per axis is required");
  if (kind == FourierKind::Ellipsoid && ndim > 3) throw ValueError("fourier_filter: the ellipsoid takes 1 to 3 dimensions");
  axis = normalize_axis(axis, ndim, op);
  if (!full_shape.empty() && int64_t(full_shape.size()) != ndim) throw ValueError("fourier_filter: full_shape needs one length per axis");
  if (!offset.empty() && int64_t(offset.size()) != ndim) throw ValueError("fourier_filter: offset needs one value per axis");
  int64_t dims[kMaxDim], first[kMaxDim];
  for (int d = 0; d < ndim; ++d) {
    dims[d] = full_shape.empty() ? v.shape[d] : full_shape[d];
    first[d] = offset.empty() ? 0 : offset[d];
    if (first[d] < 0 || v.shape[d] > dims[d] - first[d])
      throw ValueError("fourier_filter: the block lies outside the transform's shape");
  }
  if (v.size() == 0) return;

  // the tables of the block's elements, axis by axis
  const int w = fourier_width(kind);
  FourierArgs a;
  a.ndim = ndim;
  int64_t start[kMaxDim], total = 0;
  for (int d = 0; d < ndim; ++d) {
    start[d] = total;
    total += v.shape[d] * w;
  }
  std::vector<double> tables(static_cast<size_t>(total));
  for (int d = 0; d < ndim; ++d) {
    const bool real_axis = d == axis && n >= 0;
    fourier_axis_table(kind, params[d], dims[d], real_axis ? n : dims[d], real_axis, ndim, first[d], v.shape[d],
                       tables.data() + start[d]);
  }
  // the traversal: axes by decreasing output stride, so that the last one is the innermost in memory
  // (C order keeps its order; Fortran-ordered data runs along its first axis); axes of length 1 outermost
  int perm[kMaxDim];
  std::iota(perm, perm + ndim, 0);
  auto key = [&](int d) { return v.shape[d] > 1 ? std::abs(out[0].strides[d]) : INT64_MAX; };
  std::stable_sort(perm, perm + ndim, [&](int x, int y) { return key(x) > key(y); });
  a.l.ndim = ndim;
  for (int i = 0; i < ndim; ++i) {
    a.l.shape[i] = v.shape[perm[i]];
    a.l.in_strides[i] = v.strides[perm[i]];
    a.l.out_strides[i] = out[0].strides[perm[i]];
    a.start[i] = start[perm[i]];
  }
  int64_t lines = 1;
  for (int i = ndim - 2; i >= 0; --i) {
    a.line_stride[i] = lines;
    lines *= a.l.shape[i];
  }
  NDIMG_ROUTE(v, op, fourier_cpu(in, out, kind, a, tables), fourier_cuda(in, out, kind, a, tables, stream));
}

}  // namespace ndimg::ndimage

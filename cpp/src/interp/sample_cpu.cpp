// CPU schedules of B-spline sampling: output rows (lines along the last axis) in parallel on the pool,
// arithmetic in double as scipy's. zoom/shift are separable: each axis's taps and weights are computed once
// per output index and shared by every point that uses them.
#include <algorithm>
#include <vector>

#include "interp/sample.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::interp {
namespace {

using W = double;

// Calls row(idx, out_offset) for every output row on the pool: idx is the row's multi-index (its last
// entry free for the caller), out_offset the element offset of the row's start.
template <class F>
void for_rows(const Geometry& g, F&& row) {
  const int last = g.out_nd - 1;
  const int64_t n = g.out_shape[last];
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= g.out_shape[d];
  if (n == 0 || rows == 0) return;
  parallel_for(rows, std::max<int64_t>(1, 4096 / n), [&](int64_t r0, int64_t r1) {
    int64_t idx[kMaxDim];
    for (int64_t r = r0; r < r1; ++r) {
      int64_t rem = r, off = 0;
      for (int d = last - 1; d >= 0; --d) {
        idx[d] = rem % g.out_shape[d];
        rem /= g.out_shape[d];
        off += idx[d] * g.out_strides[d];
      }
      idx[last] = 0;
      row(idx, off);
    }
  });
}

}  // namespace

void map_coordinates_cpu(const View& in, const View& coords, const View& out, const Geometry& g) {
  dispatch_dtype(in.dtype, [&]<class TI>() {
    dispatch_compiled<TI>(g, [&]<int O, int ND>() {
      const Reader<TI, W> read{in.ptr<TI>()};
      auto run = [&]<class TC>(const TC* cp) {
        const int last = g.out_nd - 1;
        for_rows(g, [&](int64_t* idx, int64_t off) {
          int64_t coff = 0;
          for (int d = 0; d < last; ++d) coff += idx[d] * coords.strides[d + 1];
          const int64_t cstep = coords.strides[last + 1], astep = coords.strides[0];
          double c[kMaxDim];
          for (int64_t j = 0; j < g.out_shape[last]; ++j) {
            const TC* p = cp + coff + j * cstep;
            for (int h = 0; h < g.in_nd; ++h) c[h] = double(p[h * astep]);
            store(out.data, off + j * g.out_strides[last], out.dtype, sample_point<O, ND, W>(g, c, read));
          }
        });
      };
      if (coords.dtype == DType::F32) run(coords.ptr<float>());
      else run(coords.ptr<double>());
    });
  });
}

void affine_cpu(const View& in, const double* matrix, const double* offset, const View& out, const Geometry& g) {
  dispatch_dtype(in.dtype, [&]<class TI>() {
    dispatch_compiled<TI>(g, [&]<int O, int ND>() {
      const Reader<TI, W> read{in.ptr<TI>()};
      const int last = g.out_nd - 1;
      for_rows(g, [&](int64_t* idx, int64_t off) {
        double c[kMaxDim];
        for (int64_t j = 0; j < g.out_shape[last]; ++j) {
          idx[last] = j;
          affine_coordinates<ND>(matrix, offset, idx, g.in_nd, g.out_nd, c);
          store(out.data, off + j * g.out_strides[last], out.dtype, sample_point<O, ND, W>(g, c, read));
        }
      });
    });
  });
}

void zoom_shift_cpu(const View& in, const double* zoom, const double* shift, bool grid_mode, const View& out,
                    const Geometry& g) {
  // per axis and output index: its taps, or none where the point takes cval
  const int nd = g.in_nd;
  std::vector<std::vector<AxisTaps<W>>> taps(nd);
  std::vector<std::vector<char>> inside(nd);
  for (int d = 0; d < nd; ++d) {
    const int64_t n = g.out_shape[d];
    taps[d].resize(size_t(n));
    inside[d].resize(size_t(n));
    for (int64_t k = 0; k < n; ++k) {
      const double cc = zoom_shift_coordinate(k, zoom, zoom ? zoom[d] : 0.0, shift, shift ? shift[d] : 0.0, grid_mode);
      inside[d][k] = axis_taps(cc + g.npad[d], g.in_shape[d], g.in_strides[d], g.mode, g.order[d], taps[d][k]);
    }
  }
  dispatch_dtype(in.dtype, [&]<class TI>() {
    dispatch_compiled<TI>(g, [&]<int O, int ND>() {
      const Reader<TI, W> read{in.ptr<TI>()};
      const int last = nd - 1;
      const W cval = W(g.cval);
      for_rows(g, [&](int64_t* idx, int64_t off) {
        const AxisTaps<W>* ax[kMaxDim];
        bool row_inside = true;
        for (int d = 0; d < last; ++d) {
          row_inside = row_inside && inside[d][idx[d]];
          ax[d] = &taps[d][idx[d]];
        }
        const int64_t step = g.out_strides[last];
        const auto axis = [&](int d) -> const AxisTaps<W>& { return *ax[d]; };
        for (int64_t j = 0; j < g.out_shape[last]; ++j) {
          W v = cval;
          if (row_inside && inside[last][j]) {
            ax[last] = &taps[last][j];
            v = sample<O, ND>(axis, nd, cval, read);
          }
          store(out.data, off + j * step, out.dtype, v);
        }
      });
    });
  });
}

}  // namespace ndimg::interp

// ndimg::interp — B-spline sampling of n-D arrays at mapped coordinates (scipy.ndimage's map_coordinates,
// affine_transform, zoom and shift), orders 0-5, every boundary mode, on either engine.
//
// `in` is sampled as scipy's NI_GeometricTransform / NI_ZoomShift sample it: `in` holds the values (order
// <= 1 or no prefilter) or the spline coefficients (the caller runs the prefilter), padded by npad[d]
// elements along axis d (coordinates shift by npad[d]; empty = no padding). Results are computed in double
// (in float on CUDA for float32 input) and written to `out` (any real dtype, any strides) as scipy writes
// them: integers rounded half away from zero and clipped to the dtype's range.
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::interp {

// scipy's NI_ExtendMode codes, as scipy.ndimage._ni_support._extend_mode_to_code gives them
// ('grid-mirror' is reflect).
enum class Mode : int { nearest = 0, wrap = 1, reflect = 2, mirror = 3, constant = 4, grid_wrap = 5, grid_constant = 6 };

// out[i...] = in sampled at coords[:, i...]: coords has shape (in.ndim,) + out.shape, float32 or float64.
void map_coordinates(const View& in, const View& coords, const View& out, int order, Mode mode, double cval,
                     std::span<const int64_t> npad, StreamHandle stream = nullptr);

// out[o] = in sampled at matrix @ o + offset: matrix row-major (in.ndim, out.ndim), offset (in.ndim,),
// each input coordinate summed in scipy's order (offset first, then the output axes in turn). Along the
// input axes in exact_axes the taps are of order 0 (axes whose coordinates are integers and whose values
// are not spline coefficients: rotate's axes outside the plane of rotation).
void affine(const View& in, std::span<const double> matrix, std::span<const double> offset, const View& out,
            int order, Mode mode, double cval, std::span<const int64_t> npad, std::span<const int64_t> exact_axes,
            StreamHandle stream = nullptr);

// The separable case (scipy's NI_ZoomShift): along axis d, output index k samples input coordinate
// c = k (+ shift[d]) then (* zoom[d], or (c + 0.5) * zoom[d] - 0.5 with grid_mode). zoom and shift may be
// empty (not applied). The per-axis taps and weights are computed once per output index.
void zoom_shift(const View& in, std::span<const double> zoom, std::span<const double> shift, bool grid_mode,
                const View& out, int order, Mode mode, double cval, std::span<const int64_t> npad,
                StreamHandle stream = nullptr);

}  // namespace ndimg::interp

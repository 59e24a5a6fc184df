// ndimg::distance — distance transforms of n-D arrays (scipy.ndimage's semantics), on either engine. The
// foreground is the nonzero elements of `in` (any dtype, any strides); the features are C-order flat indices.
#pragma once
#include <span>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::distance {

// Exact Euclidean distance of each element to the nearest zero element: a separable lower-envelope pass per
// axis, axis 0 first, over squared distances in double. dist: C-contiguous float64 of in's shape, the
// distances on return (+inf everywhere when `in` has no zero element). sampling: empty, or one spacing per
// axis. Where several zero elements are nearest, each pass keeps the smaller coordinate along its axis, as
// scipy's Maurer transform does, and the arithmetic rounds as scipy's: the same features and distances.
void edt(const View& in, std::span<const double> sampling, const View& dist, StreamHandle stream = nullptr);
// edt and each element's feature (its nearest zero element): feat C-contiguous int32 (in.size() < 2^31) or
// int64 of in's shape; undefined where `in` has no zero element.
void edt_features(const View& in, std::span<const double> sampling, const View& dist, const View& feat,
                  StreamHandle stream = nullptr);

// indices (C-contiguous int32 of shape (ndim,) + shape) = the coordinates of the flat indices `feat`
// (C-contiguous int32/int64 of that shape), which may be the first plane of indices itself.
void unravel(const View& feat, const View& indices, StreamHandle stream = nullptr);

// scipy's chamfer transform (distance_transform_cdt): dist (C-contiguous int32 of in's shape) = -1 for
// the foreground, 0 elsewhere, then a forward raster sweep and a backward one with the first half of
// `structure` (3 along each of in's axes, C-contiguous; an element is set where its byte is nonzero, as
// scipy reads it) mirrored for the backward sweep. The lines (of the last axis) at one level of a wavefront
// over the outer axes run in parallel, each as scipy's raster order would: the results, ties included, are
// scipy's. Where no features are asked, the cross and the cube (scipy's taxicab and chessboard), whose sweeps
// give exact taxicab and chessboard distances, run as passes along each axis.
void chamfer(const View& in, const View& structure, const View& dist, StreamHandle stream = nullptr);
// chamfer and each element's feature: feat C-contiguous int32/int64 of in's shape.
void chamfer_features(const View& in, const View& structure, const View& dist, const View& feat,
                      StreamHandle stream = nullptr);

enum class Metric : int { euclidean = 1, taxicab = 2, chessboard = 3 };
// scipy's distance_transform_bf: each foreground element's distance to the nearest of `border` (int64
// coordinates, C-contiguous (count, ndim), in C order; ties go to the last), 0 elsewhere. dist:
// C-contiguous float64 (euclidean) or uint32 of in's shape. With no border element, sqrt(DBL_MAX) or
// UINT_MAX as scipy.
void brute_force(const View& in, const View& border, Metric metric, std::span<const double> sampling,
                 const View& dist, StreamHandle stream = nullptr);
// brute_force and each element's feature (the flat index of its nearest border element, its own index off
// the foreground, 0 with no border element): feat C-contiguous int32/int64 of in's shape.
void brute_force_features(const View& in, const View& border, Metric metric, std::span<const double> sampling,
                          const View& dist, const View& feat, StreamHandle stream = nullptr);

}  // namespace ndimg::distance

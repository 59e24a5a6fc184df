// ndimg::color — scikit-image's colour space conversions, one pass per image on either engine.
#pragma once
#include <cstdint>
#include <span>

#include "ndimg/array.hpp"
#include "ndimg/ndimage.hpp"

namespace ndimg::color {

// What `convert` computes per pixel. `matrix` is k x 3, row-major (output channel j = sum_i matrix[j][i] x_i,
// summed in i's order); `vec` is 3 values whose meaning the conversion names:
//   Matrix          k (1..8) outputs: matrix times the pixel, plus vec (offsets) when given
//   OffsetMatrix    vec subtracted from the pixel in the input's own dtype (integers wrap), then scaled, then matrix
//   RgbToXyz        sRGB gamma undone, then matrix              XyzToRgb   matrix, then sRGB gamma, clipped to [0, 1]
//   XyzToLab        vec: the white point                        LabToXyz   vec: the white point; negative Z clipped
//   RgbToLab        RgbToXyz then XyzToLab                      LabToRgb   LabToXyz then XyzToRgb
//   XyzToLuv        vec: the white point                        LuvToXyz   vec: the white point
//   RgbToLuv        RgbToXyz then XyzToLuv                      LuvToRgb   LuvToXyz then XyzToRgb
//   RgbToHsv, HsvToRgb, LabToLch, LchToLab (the first 3 channels; others are not read)
//   RgbaToRgb       4 channels in; vec: the background
//   SeparateStains  log optical densities times matrix (k outputs), negatives clipped to 0; float64 output
//   CombineStains   exp of the stains times -matrix (k outputs), clipped to [0, 1]; float64 output
enum class Conversion : uint8_t {
  Matrix, OffsetMatrix, RgbToXyz, XyzToRgb, XyzToLab, LabToXyz, RgbToLab, LabToRgb, XyzToLuv, LuvToXyz,
  RgbToLuv, LuvToRgb, RgbToHsv, HsvToRgb, LabToLch, LchToLab, RgbaToRgb, SeparateStains, CombineStains
};

// Converts every pixel of `in` (its last axis: the channels; any strides, any dtype; integers and bool scaled as
// skimage's img_as_float) into `out` (its last axis: the conversion's channels; the pixel shape of `in`; float32
// for float32 input, else float64; float64 for the stain conversions). Arithmetic runs in the input's float type
// (float32 or float64), in scikit-image's order of operations. Returns how many pixels had their Z clipped
// (LabToXyz, LabToRgb; 0 otherwise).
int64_t convert(const View& in, const View& out, Conversion conversion, std::span<const double> matrix,
                std::span<const double> vec, StreamHandle stream = nullptr);

// The colour differences of skimage.color.delta_e, each with its parameters in `k`:
//   Cie76 (none), Ciede94 (kH, kC, kL, k1, k2), Ciede2000 (kL, kC, kH), Cmc (kL, kC).
enum class Difference : uint8_t { Cie76, Ciede94, Ciede2000, Cmc };

// The difference between the pixels of lab1 and lab2 (their last axes: at least 3 channels, the first 3 read,
// cast to double without scaling; one pixel shape, any strides, 0 included for a colour broadcast over an image)
// into the C-contiguous `out` of that pixel shape (float32 or float64), computed in double.
void difference(const View& lab1, const View& lab2, const View& out, Difference kind, std::span<const double> k,
                StreamHandle stream = nullptr);

// Host planes (C-contiguous, one shape and dtype; 1 to kMaxStackPlanes of them) interleaved into `out`
// (C-contiguous, their shape plus a last axis of one element per plane, their dtype): np.stack(planes, -1).
constexpr int kMaxStackPlanes = 64;
void stack_channels(std::span<const View> planes, const View& out);

}  // namespace ndimg::color

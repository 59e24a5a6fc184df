// A whole-slide image: a pyramid of levels plus named associated images, with OpenSlide's level model
// and property names. Formats: Aperio SVS and generic tiled (pyramidal) TIFF.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ndimg/io/tiff.hpp"

namespace ndimg::io {

struct Level {
  int ifd = -1;  // index into TiffFile::ifds()
  uint32_t width = 0, height = 0, tile_width = 0, tile_height = 0;
  double downsample = 1;  // OpenSlide's: mean of the width and height ratios to level 0
};

class Slide {
 public:
  // Throws SlideError ("unsupported format: ...") for files of no supported vendor.
  explicit Slide(const std::string& path);

  const std::string& vendor() const { return vendor_; }
  const std::vector<Level>& levels() const { return levels_; }
  const std::map<std::string, std::string>& properties() const { return properties_; }
  // associated image name ("thumbnail", "label", "macro") -> directory index
  const std::map<std::string, int>& associated() const { return associated_; }
  const TiffFile& tiff() const { return tiff_; }

  // OpenSlide's choice: the largest level whose downsample is at most `downsample`.
  int best_level_for_downsample(double downsample) const;

  // RGBA pixels (h*w*4 bytes) of `level` whose top-left corner is (x, y) in level-0 coordinates; pixels
  // outside the level are transparent (all zero).
  void read_region(int64_t x, int64_t y, int level, int64_t w, int64_t h, uint8_t* rgba) const;
  // A level-0 coordinate in pixels of `level` (as read_region maps the region's corner).
  int64_t to_level(int level, int64_t v) const;
  // The whole associated image as RGBA (width*height*4 bytes).
  void read_associated(const std::string& name, uint8_t* rgba) const;

  // Numeric property text as OpenSlide writes it ("4", "0.499", "8.0106951871657763").
  static std::string format_double(double v);

 private:
  void add_level_properties();
  TiffFile tiff_;
  std::string vendor_;
  std::vector<Level> levels_;
  std::map<std::string, std::string> properties_;
  std::map<std::string, int> associated_;
};

}  // namespace ndimg::io

// A whole-slide image: a pyramid of levels plus named associated images, with OpenSlide's level model
// and property names. Formats: Aperio SVS, Philips TIFF, OME-TIFF and generic tiled (pyramidal) TIFF.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
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
  // associated image name ("thumbnail", "label", "macro") -> directory index, for those stored as TIFF
  // directories; associated_names() also lists those embedded in the metadata (Philips' XML)
  const std::map<std::string, int>& associated() const { return associated_; }
  std::vector<std::string> associated_names() const;
  // (width, height) of an associated image; ValueError when there is none of that name
  std::pair<uint32_t, uint32_t> associated_size(const std::string& name) const;
  const TiffFile& tiff() const { return tiff_; }

  // OpenSlide's choice: the largest level whose downsample is at most `downsample`.
  int best_level_for_downsample(double downsample) const;

  // RGBA pixels (h*w*4 bytes) of `level` whose top-left corner is (x, y) in level-0 coordinates, as
  // OpenSlide (with openslide-python's RGBA) gives them: where (x, y) falls between pixels of the level,
  // OpenSlide's sub-pixel painting (paint_level). Pixels outside the level are transparent (all zero), as are
  // sparse tiles (offset or byte count 0), except on Aperio levels after the first, where OpenSlide draws a
  // missing tile from the level above (see missing_).
  void read_region(int64_t x, int64_t y, int level, int64_t w, int64_t h, uint8_t* rgba) const;
  // The level's own samples instead of RGBA (TiffFile::read_region_raw): h*w*samples values of
  // bytes_per_sample() bytes, e.g. 16-bit data unreduced; from the level pixel that weighs most in
  // read_region's (nearest_level).
  void read_region_raw(int64_t x, int64_t y, int level, int64_t w, int64_t h, void* out) const;
  // the directory of a level (samples per pixel, bits, ...)
  const Ifd& level_ifd(int level) const;
  // A level-0 coordinate in pixels of `level` as cuCIM maps a region's corner (CuImage's reads): divided by
  // the level's downsample in single precision (cuCIM's float), truncated toward zero.
  int64_t cucim_level(int level, int64_t v) const;
  // The whole associated image as RGBA (width*height*4 bytes).
  void read_associated(const std::string& name, uint8_t* rgba) const;

  // Numeric property text as OpenSlide writes it ("4", "0.499", "8.0106951871657763").
  static std::string format_double(double v);

 private:
  void add_level_properties();
  // Vendor readers (slide_<vendor>.cpp): fill level_ifds, properties_ and associated images.
  void open_philips(std::vector<int>& level_ifds, std::vector<std::pair<double, double>>& spacings);
  void fix_philips_levels(const std::vector<std::pair<double, double>>& spacings);
  void open_ome(std::vector<int>& level_ifds);
  void clip_to_level(const Level& l, int64_t lx, int64_t ly, int64_t w, int64_t h, uint8_t* out,
                     size_t pixel) const;
  // read_region in the level's own pixel coordinates; `premultiplied`: colour times alpha, as OpenSlide's
  // tiles hold it (it differs only in the partly transparent pixels of drawn missing tiles)
  void read_level(int level, int64_t lx, int64_t ly, int64_t w, int64_t h, uint8_t* rgba,
                  bool premultiplied = false) const;
  // One of openslide_read_region's pieces (at most 4096 pixels a side), rows `stride` bytes apart.
  void paint_level(int level, int64_t x, int64_t y, int64_t w, int64_t h, uint8_t* rgba, size_t stride) const;
  // The level pixel under a region's corner at level-0 coordinate v: where OpenSlide puts level pixel 0 for
  // a negative v, else the nearer of the two pixels it blends (ties to the right, as pixman weighs them).
  int64_t nearest_level(int level, int64_t v) const;
  // Aperio: OpenSlide's missing tiles (sparse ones, and those of a level whose tiles were made from a
  // missing tile of the level above, which may be corrupt) drawn from the level above, reduced.
  void find_aperio_missing_tiles();
  void draw_missing_tiles(int level, int64_t lx, int64_t ly, int64_t w, int64_t h, uint8_t* rgba,
                          bool premultiplied) const;
  std::vector<std::vector<bool>> missing_;  // per level, by tile index; empty where none
  struct Embedded {  // an associated image kept as JPEG bytes in the metadata
    uint32_t width = 0, height = 0;
    std::string jpeg;
  };
  std::map<std::string, Embedded> embedded_;
  TiffFile tiff_;
  std::string vendor_;
  std::vector<Level> levels_;
  std::map<std::string, std::string> properties_;
  std::map<std::string, int> associated_;
};

}  // namespace ndimg::io

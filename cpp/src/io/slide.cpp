#include "ndimg/io/slide.hpp"

#include <locale.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "io/codecs.hpp"

namespace ndimg::io {

namespace {

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// tiff.* properties of a directory, named as OpenSlide names them
void add_tiff_properties(const Ifd& d, std::map<std::string, std::string>& props) {
  static const std::pair<uint16_t, const char*> names[] = {
      {tag::ImageDescription, "ImageDescription"}, {tag::Make, "Make"}, {tag::Model, "Model"},
      {tag::Software, "Software"}, {tag::DateTime, "DateTime"}, {tag::Artist, "Artist"},
      {tag::HostComputer, "HostComputer"}, {tag::Copyright, "Copyright"}, {tag::DocumentName, "DocumentName"}};
  for (auto [t, name] : names)
    if (d.ascii_last.count(t)) props[std::string("tiff.") + name] = d.ascii_last.at(t);
  for (auto [name, v] : {std::pair{"tiff.XResolution", d.x_resolution}, {"tiff.YResolution", d.y_resolution},
                         {"tiff.XPosition", d.x_position}, {"tiff.YPosition", d.y_position}})
    if (!std::isnan(v)) props[name] = Slide::format_double(v);
  static const char* units[] = {"unknown", "none", "inch", "centimeter"};
  props["tiff.ResolutionUnit"] = units[d.resolution_unit <= 3 ? d.resolution_unit : 0];
}

// OpenSlide's _openslide_parse_double: a comma taken for the decimal point, the whole text a number in the C
// locale (as g_ascii_strtod reads it), else NaN
double parse_double(std::string text) {
  std::replace(text.begin(), text.end(), ',', '.');
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t(0));
  char* end = nullptr;
  errno = 0;
  const double v = strtod_l(text.c_str(), &end, c_locale);
  return text.empty() || *end != 0 || errno == ERANGE ? NAN : v;
}

}  // namespace

std::string Slide::format_double(double v) {
  // OpenSlide's _openslide_format_double: g_ascii_dtostr, which is printf's "%.17g" in the C locale
  char buf[64];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 17).ptr);
}

Slide::Slide(const std::string& path) : tiff_(path) {
  const auto& ifds = tiff_.ifds();
  const Ifd& first = ifds[0];
  // OpenSlide detects the vendor from the last of repeated tags, then parses what libtiff gives, the first
  const std::string desc = first.text(tag::ImageDescription), seen = first.text_last(tag::ImageDescription);
  std::vector<int> level_ifds;
  std::vector<std::pair<double, double>> philips_spacings;
  if (starts_with(seen, "Aperio")) {
    vendor_ = "aperio";
    // tiled directories of the main chain are levels; directory 1, when stripped, is the thumbnail and
    // other stripped ones name themselves on the second line of their description ("label 415x422")
    for (size_t i = 0; i < ifds.size(); ++i) {
      const Ifd& d = ifds[i];
      if (d.parent >= 0) continue;
      if (d.tiled) {
        level_ifds.push_back(int(i));
        continue;
      }
      std::string name;
      if (i == 1) {
        name = "thumbnail";
      } else {
        std::string text = d.text(tag::ImageDescription);
        size_t nl = text.find_first_of("\r\n");
        if (nl != std::string::npos) {
          std::string line = trim(text.substr(nl));
          name = line.substr(0, line.find(' '));
        }
      }
      if (!name.empty() && d.unsupported.empty()) associated_[name] = int(i);
    }
    // "Aperio Image Library ...|AppMag = 20|MPP = 0.499": the fields after the first are key = value
    size_t pos = desc.find('|');
    while (pos != std::string::npos) {
      size_t next = desc.find('|', pos + 1);
      std::string field = desc.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1);
      size_t eq = field.find(" = ");
      if (eq != std::string::npos) properties_["aperio." + trim(field.substr(0, eq))] = trim(field.substr(eq + 3));
      pos = next;
    }
    // numbers (OpenSlide's _openslide_duplicate_double_prop) copied in OpenSlide's own formatting
    for (auto [from, to] : {std::pair{"aperio.MPP", "openslide.mpp-x"}, {"aperio.MPP", "openslide.mpp-y"},
                            {"aperio.AppMag", "openslide.objective-power"}})
      if (auto it = properties_.find(from); it != properties_.end())
        if (const double v = parse_double(it->second); !std::isnan(v)) properties_[to] = format_double(v);
  } else if (starts_with(first.text_last(tag::Software), "Philips") && seen.find("DPUfsImport") != std::string::npos) {
    vendor_ = "philips";
    open_philips(level_ifds, philips_spacings);
  } else if (first.tiled && desc.find("<OME") != std::string::npos) {
    vendor_ = "ome-tiff";
    open_ome(level_ifds);
  } else if (first.tiled) {
    vendor_ = "generic-tiff";
    for (size_t i = 0; i < ifds.size(); ++i)
      if (ifds[i].parent < 0 && ifds[i].tiled) level_ifds.push_back(int(i));
    // a single main image with a tiled SubIFD pyramid (OME-TIFF style, tifffile's subifds=)
    if (level_ifds.size() == 1)
      for (size_t i = 0; i < ifds.size(); ++i)
        if (ifds[i].parent == level_ifds[0] && ifds[i].tiled) level_ifds.push_back(int(i));
    // OpenSlide's _openslide_tifflike_set_resolution_props: micrometres per inch (the default unit) or
    // centimetre over the resolution
    const double per_unit = first.resolution_unit == 2 ? 25400 : first.resolution_unit == 3 ? 10000 : 0;
    const bool resolved = !std::isnan(first.x_resolution) && !std::isnan(first.y_resolution) &&
                          first.x_resolution != 0 && first.y_resolution != 0;
    if (per_unit > 0 && resolved) {
      properties_["openslide.mpp-x"] = format_double(per_unit / first.x_resolution);
      properties_["openslide.mpp-y"] = format_double(per_unit / first.y_resolution);
    }
  } else {
    throw SlideError("unsupported format: " + path + " is a TIFF file of no supported slide vendor (its first "
                     "image is not tiled)");
  }
  if (level_ifds.empty()) throw SlideError("slide has no tiled levels");
  std::stable_sort(level_ifds.begin(), level_ifds.end(),
                   [&](int a, int b) { return ifds[size_t(a)].width > ifds[size_t(b)].width; });
  for (int i : level_ifds) {
    const Ifd& d = ifds[size_t(i)];
    Level l{i, d.width, d.height, d.tile_width, d.tile_height, 1.0};
    if (!levels_.empty())
      l.downsample = (double(levels_[0].width) / d.width + double(levels_[0].height) / d.height) / 2;
    levels_.push_back(l);
  }
  add_tiff_properties(first, properties_);
  properties_["openslide.vendor"] = vendor_;
  if (vendor_ == "philips") {  // the XML is in philips.* properties, not here
    properties_.erase("tiff.ImageDescription");
    fix_philips_levels(philips_spacings);
  } else if (first.ascii_last.count(tag::ImageDescription)) {
    properties_["openslide.comment"] = seen;
  }
  add_level_properties();
  if (vendor_ == "aperio") find_aperio_missing_tiles();
}

void Slide::find_aperio_missing_tiles() {
  missing_.assign(levels_.size(), {});
  for (size_t i = 0; i < levels_.size(); ++i) {
    const Ifd& d = tiff_.ifds()[size_t(levels_[i].ifd)];
    const uint64_t across = d.tiles_across(), tiles = across * d.tiles_down();
    std::vector<bool> m(tiles);
    bool any = false;
    for (uint64_t t = 0; t < tiles; ++t)
      if (d.offsets[t] == 0 || d.byte_counts[t] == 0) m[t] = any = true;
    if (i > 0 && !missing_[i - 1].empty()) {  // a tile made from a missing one of the level above
      const Ifd& u = tiff_.ifds()[size_t(levels_[i - 1].ifd)];
      const uint64_t cx = std::max<int64_t>(1, std::llround(double(u.tiles_across()) / across));
      const uint64_t cy = std::max<int64_t>(1, std::llround(double(u.tiles_down()) / d.tiles_down()));
      for (uint64_t t = 0; t < missing_[i - 1].size(); ++t) {
        if (!missing_[i - 1][t]) continue;
        const uint64_t col = t % u.tiles_across() / cx, row = t / u.tiles_across() / cy;
        if (col < across && row < d.tiles_down()) m[row * across + col] = any = true;
      }
    }
    if (any) missing_[i] = std::move(m);
  }
}

void Slide::add_level_properties() {
  properties_["openslide.level-count"] = std::to_string(levels_.size());
  for (size_t i = 0; i < levels_.size(); ++i) {
    const Level& l = levels_[i];
    std::string k = "openslide.level[" + std::to_string(i) + "].";
    properties_[k + "width"] = std::to_string(l.width);
    properties_[k + "height"] = std::to_string(l.height);
    properties_[k + "tile-width"] = std::to_string(l.tile_width);
    properties_[k + "tile-height"] = std::to_string(l.tile_height);
    properties_[k + "downsample"] = format_double(l.downsample);
  }
  for (auto& name : associated_names()) {
    auto [w, h] = associated_size(name);
    properties_["openslide.associated." + name + ".width"] = std::to_string(w);
    properties_["openslide.associated." + name + ".height"] = std::to_string(h);
  }
}

std::vector<std::string> Slide::associated_names() const {
  std::vector<std::string> out;
  for (auto& [name, i] : associated_) out.push_back(name);
  for (auto& [name, e] : embedded_)
    if (!associated_.count(name)) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

std::pair<uint32_t, uint32_t> Slide::associated_size(const std::string& name) const {
  if (auto it = associated_.find(name); it != associated_.end()) {
    const Ifd& d = tiff_.ifds()[size_t(it->second)];
    return {d.width, d.height};
  }
  if (auto it = embedded_.find(name); it != embedded_.end()) return {it->second.width, it->second.height};
  throw ValueError("no associated image named '" + name + "'");
}

int Slide::best_level_for_downsample(double downsample) const {
  for (size_t i = 1; i < levels_.size(); ++i)
    if (downsample < levels_[i].downsample) return int(i) - 1;
  return int(levels_.size()) - 1;
}

namespace {

// cairo's conversion of a coordinate to pixman's 16.16 fixed point (to nearest, ties to even)
int64_t to_fixed(double v) { return int64_t(std::nearbyint(v * 65536.0)); }

// Level-0 coordinates beyond this lie outside every slide (and keep the arithmetic below exact and defined).
constexpr int64_t kFarAway = int64_t(1) << 52;

}  // namespace

void Slide::read_region(int64_t x, int64_t y, int level, int64_t w, int64_t h, uint8_t* rgba) const {
  if (level < 0 || size_t(level) >= levels_.size())
    throw ValueError("level " + std::to_string(level) + " is out of range");
  if (std::abs(x) > kFarAway || std::abs(y) > kFarAway) {
    std::memset(rgba, 0, size_t(w) * size_t(h) * 4);
    return;
  }
  // As openslide_read_region: pieces of at most 4096 pixels a side, each from its own level-0 corner, which
  // C's conversion truncates to a whole pixel
  constexpr int64_t kPiece = 4096;
  const double ds = levels_[size_t(level)].downsample;
  for (int64_t r = 0; r * kPiece < h; ++r)
    for (int64_t c = 0; c * kPiece < w; ++c)
      paint_level(level, int64_t(double(x) + double(c * kPiece) * ds), int64_t(double(y) + double(r * kPiece) * ds),
                  std::min(w - c * kPiece, kPiece), std::min(h - r * kPiece, kPiece),
                  rgba + (size_t(r * kPiece) * size_t(w) + size_t(c * kPiece)) * 4, size_t(w) * 4);
}

// OpenSlide draws each tile of the grid through cairo at its place in the piece, which falls between pixels
// where (x, y) / downsample is not whole: cairo then samples the tile with pixman's bilinear filter, in
// single-precision floats (pixman's wide path, which the SATURATE operator takes), and composites it with
// SATURATE (which joins the tiles' partial edges), storing 8 bits after each tile; tiles go bottom-right
// first. This repeats that arithmetic, then un-premultiplies as openslide-python does.
void Slide::paint_level(int level, int64_t x, int64_t y, int64_t w, int64_t h, uint8_t* out, size_t stride) const {
  const Level& l = levels_[size_t(level)];
  const double ds = l.downsample;
  // read_region_area: a negative corner moves the painting right / down by the whole level pixels (truncated)
  // it lies before the level
  int64_t tx = 0, ty = 0;
  if (x < 0) tx = int64_t(double(-x) / ds), x = 0;
  if (y < 0) ty = int64_t(double(-y) / ds), y = 0;
  // the grid (compute_region): from the tile holding (x, y) / ds on, each drawn `offset` pixels left / up of
  // the piece's corner plus its place in the grid
  const Ifd& d = tiff_.ifds()[size_t(l.ifd)];
  const double tw = d.tile_width, th = d.tile_height;
  const double lx = double(x) / ds, ly = double(y) / ds;
  const int64_t sx = int64_t(lx / tw), sy = int64_t(ly / th);
  const double ox = lx - double(sx) * tw, oy = ly - double(sy) * th;
  // the sample position of the piece's pixel 0 in a tile k tiles right / down of the first, in 16.16 fixed
  // point relative to that tile: the pattern's translation, the inverse of the tile's on the piece
  auto at_x = [&](int64_t k) { return to_fixed(-(double(tx) + (double(k) * tw - ox))); };
  auto at_y = [&](int64_t k) { return to_fixed(-(double(ty) + (double(k) * th - oy))); };
  const int64_t px = at_x(0), py = at_y(0);
  // level pixel under the piece's pixel 0 (the left / upper of the two the filter weighs)
  const int64_t lx0 = sx * int64_t(tw) + (px >> 16), ly0 = sy * int64_t(th) + (py >> 16);
  auto copy_out = [&](const uint8_t* src) {
    for (int64_t r = 0; r < h; ++r) std::memcpy(out + size_t(r) * stride, src + size_t(r * w) * 4, size_t(w) * 4);
  };
  if ((px & 0xffff) == 0 && (py & 0xffff) == 0) {  // whole pixels: the level's pixels, copied
    if (stride == size_t(w) * 4) return read_level(level, lx0, ly0, w, h, out);
    std::vector<uint8_t> piece(size_t(w) * size_t(h) * 4);
    read_level(level, lx0, ly0, w, h, piece.data());
    return copy_out(piece.data());
  }
  for (int64_t r = 0; r < h; ++r) std::memset(out + size_t(r) * stride, 0, size_t(w) * 4);
  const int64_t pw = w - tx, ph = h - ty;  // what read_region_area paints
  const int64_t across = d.tiles_across(), down = d.tiles_down();
  const int64_t ex = std::min<int64_t>(int64_t(std::ceil((lx + double(pw)) / tw)), across);
  const int64_t ey = std::min<int64_t>(int64_t(std::ceil((ly + double(ph)) / th)), down);
  if (pw <= 0 || ph <= 0 || sx > across - 1 || sy > down - 1) return;
  // the level's pixels the filter reads (premultiplied, as in OpenSlide's tiles), a pixel of margin around
  const int64_t c0 = lx0 - 1, r0 = ly0 - 1, sw = w + 3, sh = h + 3;
  std::vector<uint8_t> src(size_t(sw) * size_t(sh) * 4);
  read_level(level, c0, r0, sw, sh, src.data(), /*premultiplied=*/true);
  float unit[256];  // pixman's 8 bits to float
  for (int i = 0; i < 256; ++i) unit[i] = float(i) * (1.f / 255.f);
  // per column (row) of the piece, for one column (row) of tiles: where in `src` the filter's two taps lie
  // (-1: outside the tile, so transparent to it) and the second tap's weight; [lo, hi) holds those with a tap
  struct Taps {
    int64_t lo, hi;
    std::vector<int64_t> first, second;
    std::vector<float> frac;
  };
  auto taps = [](int64_t n, int64_t at, int64_t tile, int64_t size, int64_t origin, int64_t extent) {
    Taps t{n, 0, std::vector<int64_t>(size_t(n), -1), std::vector<int64_t>(size_t(n), -1), std::vector<float>(size_t(n))};
    auto place = [&](int64_t p) {
      const int64_t at_src = tile * size + p - origin;
      return p >= 0 && p < size && at_src >= 0 && at_src < extent ? at_src : -1;
    };
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = i * 65536 + at, p = v >> 16;
      t.frac[size_t(i)] = float(v & 0xffff) / 65536.f;
      t.first[size_t(i)] = place(p), t.second[size_t(i)] = place(p + 1);
      if (t.first[size_t(i)] >= 0 || t.second[size_t(i)] >= 0) t.lo = std::min(t.lo, i), t.hi = i + 1;
    }
    return t;
  };
  std::vector<Taps> columns;
  for (int64_t kx = sx; kx < ex; ++kx) columns.push_back(taps(w, at_x(kx - sx), kx, int64_t(tw), c0, sw));
  for (int64_t ky = ey - 1; ky >= sy; --ky) {
    const Taps rows = taps(h, at_y(ky - sy), ky, int64_t(th), r0, sh);
    for (int64_t kx = ex - 1; kx >= sx; --kx) {
      const Taps& cols = columns[size_t(kx - sx)];
      for (int64_t i = rows.lo; i < rows.hi; ++i) {
        const int64_t a = rows.first[size_t(i)], b = rows.second[size_t(i)];
        const float fy = rows.frac[size_t(i)];
        for (int64_t j = cols.lo; j < cols.hi; ++j) {
          const int64_t c = cols.first[size_t(j)], e = cols.second[size_t(j)];
          const float fx = cols.frac[size_t(j)];
          const float wxy = fx * fy, wxiy = fx * (1.f - fy), wixy = (1.f - fx) * fy, wixiy = (1.f - fx) * (1.f - fy);
          auto tap = [&](int64_t row, int64_t col) {
            return row < 0 || col < 0 ? nullptr : &src[(size_t(row) * size_t(sw) + size_t(col)) * 4];
          };
          const uint8_t *tl = tap(a, c), *tr = tap(a, e), *bl = tap(b, c), *br = tap(b, e);
          float sv[4];
          for (int k = 0; k < 4; ++k)
            sv[k] = (tl ? unit[tl[k]] : 0.f) * wixiy + (tr ? unit[tr[k]] : 0.f) * wxiy +
                    (bl ? unit[bl[k]] : 0.f) * wixy + (br ? unit[br[k]] : 0.f) * wxy;
          // SATURATE: the source scaled down to the room the destination's alpha leaves, then added
          uint8_t* q = out + size_t(i) * stride + size_t(j) * 4;
          const float sa = sv[3], da = unit[q[3]];
          const float fa = sa > -FLT_MIN && sa < FLT_MIN ? 1.f : std::clamp((1.f - da) / sa, 0.f, 1.f);
          for (int k = 0; k < 4; ++k) {
            const uint32_t u = uint32_t(std::clamp(std::min(1.f, sv[k] * fa + unit[q[k]]), 0.f, 1.f) * 256.f);
            q[k] = uint8_t(u - (u >> 8));  // pixman's float to 8 bits
          }
        }
      }
    }
  }
  for (int64_t i = 0; i < h; ++i)  // openslide-python's un-premultiplying
    for (uint8_t *q = out + size_t(i) * stride, *end = q + size_t(w) * 4; q < end; q += 4)
      if (q[3] != 0 && q[3] != 255)
        for (int k = 0; k < 3; ++k) q[k] = uint8_t(255 * uint32_t(q[k]) / q[3]);
}

void Slide::read_level(int level, int64_t lx, int64_t ly, int64_t w, int64_t h, uint8_t* rgba,
                       bool premultiplied) const {
  const Level& l = levels_[size_t(level)];
  tiff_.read_region_rgba(l.ifd, lx, ly, w, h, rgba);
  clip_to_level(l, lx, ly, w, h, rgba, 4);
  if (level > 0 && size_t(level) < missing_.size() && !missing_[size_t(level)].empty())
    draw_missing_tiles(level, lx, ly, w, h, rgba, premultiplied);
}

// As OpenSlide draws them: the level above's pixels under the tile, reduced by cairo's filter, which for a
// whole ratio f between the levels is the rounded mean of f x f premultiplied pixels; then un-premultiplied
// as openslide-python does.
void Slide::draw_missing_tiles(int level, int64_t lx, int64_t ly, int64_t w, int64_t h, uint8_t* rgba,
                               bool premultiplied) const {
  const Level& l = levels_[size_t(level)];
  const int64_t f = std::max<int64_t>(1, std::llround(l.downsample / levels_[size_t(level) - 1].downsample));
  const int64_t tw = l.tile_width, th = l.tile_height, across = tiff_.ifds()[size_t(l.ifd)].tiles_across();
  const int64_t x0 = std::max<int64_t>(lx, 0), y0 = std::max<int64_t>(ly, 0);
  const int64_t x1 = std::min<int64_t>(lx + w, l.width), y1 = std::min<int64_t>(ly + h, l.height);
  const uint32_t n = uint32_t(f * f);
  std::vector<uint8_t> above;
  for (int64_t ty = y0 / th; y0 < y1 && ty <= (y1 - 1) / th; ++ty)
    for (int64_t tx = x0 / tw; x0 < x1 && tx <= (x1 - 1) / tw; ++tx) {
      if (!missing_[size_t(level)][size_t(ty * across + tx)]) continue;
      const int64_t ax = std::max(x0, tx * tw), bx = std::min(x1, (tx + 1) * tw);
      const int64_t ay = std::max(y0, ty * th), by = std::min(y1, (ty + 1) * th);
      const int64_t sw = (bx - ax) * f;
      above.resize(size_t(sw) * size_t((by - ay) * f) * 4);
      read_level(level - 1, ax * f, ay * f, sw, (by - ay) * f, above.data());
      for (int64_t y = ay; y < by; ++y)
        for (int64_t x = ax; x < bx; ++x) {
          uint32_t sum[4] = {0, 0, 0, 0};
          for (int64_t j = 0; j < f; ++j) {
            const uint8_t* p = &above[(size_t((y - ay) * f + j) * size_t(sw) + size_t((x - ax) * f)) * 4];
            for (int64_t i = 0; i < f; ++i, p += 4) {
              for (int c = 0; c < 3; ++c) sum[c] += (uint32_t(p[c]) * p[3] + 127) / 255;
              sum[3] += p[3];
            }
          }
          uint8_t* o = rgba + (size_t(y - ly) * size_t(w) + size_t(x - lx)) * 4;
          const uint32_t a = (sum[3] + n / 2) / n;
          for (int c = 0; c < 3; ++c) {
            const uint32_t v = (sum[c] + n / 2) / n;
            o[c] = uint8_t(premultiplied ? v : a == 0 ? 0 : std::min<uint32_t>(255, 255 * v / a));
          }
          o[3] = uint8_t(a);
        }
    }
}

const Ifd& Slide::level_ifd(int level) const {
  if (level < 0 || size_t(level) >= levels_.size())
    throw ValueError("level " + std::to_string(level) + " is out of range");
  return tiff_.ifds()[size_t(levels_[size_t(level)].ifd)];
}

void Slide::read_region_raw(int64_t x, int64_t y, int level, int64_t w, int64_t h, void* out) const {
  const Ifd& d = level_ifd(level);
  const Level& l = levels_[size_t(level)];
  const int64_t lx = nearest_level(level, x), ly = nearest_level(level, y);
  tiff_.read_region_raw(l.ifd, lx, ly, w, h, out);
  clip_to_level(l, lx, ly, w, h, static_cast<uint8_t*>(out), size_t(d.samples) * d.bytes_per_sample());
}

// Levels may be smaller than their directory (Philips pads levels to whole tiles): clear what lies past them.
void Slide::clip_to_level(const Level& l, int64_t lx, int64_t ly, int64_t w, int64_t h, uint8_t* out,
                          size_t pixel) const {
  const Ifd& d = tiff_.ifds()[size_t(l.ifd)];
  if (l.width >= d.width && l.height >= d.height) return;
  for (int64_t r = 0; r < h; ++r) {
    uint8_t* row = out + size_t(r) * size_t(w) * pixel;
    if (ly + r >= int64_t(l.height)) {
      std::memset(row, 0, size_t(w) * pixel);
    } else if (lx + w > int64_t(l.width)) {
      int64_t keep = std::max<int64_t>(0, int64_t(l.width) - lx);
      std::memset(row + size_t(keep) * pixel, 0, size_t(w - keep) * pixel);
    }
  }
}

int64_t Slide::nearest_level(int level, int64_t v) const {
  const double ds = levels_.at(size_t(level)).downsample;
  if (std::abs(v) > kFarAway) return v < 0 ? -kFarAway : kFarAway;
  return v < 0 ? -int64_t(double(-v) / ds) : (to_fixed(double(v) / ds) + 0x8000) >> 16;
}

int64_t Slide::cucim_level(int level, int64_t v) const {
  // cuCIM: the level's downsample as a float from the level sizes, and `location /= downsample` on int64
  const Level &l = levels_.at(size_t(level)), &l0 = levels_[0];
  const float ds = (float(l0.width) / float(l.width) + float(l0.height) / float(l.height)) / 2;
  const float q = float(v) / ds;
  return std::abs(q) < 0x1p62f ? int64_t(q) : q < 0 ? INT64_MIN / 2 : INT64_MAX / 2;
}

void Slide::read_associated(const std::string& name, uint8_t* rgba) const {
  if (auto it = associated_.find(name); it != associated_.end()) {
    const Ifd& d = tiff_.ifds()[size_t(it->second)];
    return tiff_.read_region_rgba(it->second, 0, 0, d.width, d.height, rgba);
  }
  auto it = embedded_.find(name);
  if (it == embedded_.end()) throw ValueError("no associated image named '" + name + "'");
  const Embedded& e = it->second;
  const auto* src = reinterpret_cast<const uint8_t*>(e.jpeg.data());
  uint32_t rows = codec::jpeg(src, e.jpeg.size(), std::string(), false, 3, e.width, e.height, rgba,
                              size_t(e.width) * 4, /*rgba=*/true);
  if (rows != e.height) throw SlideError("associated image '" + name + "' is truncated");
}

}  // namespace ndimg::io

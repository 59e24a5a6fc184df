// Philips TIFF: an XML ImageDescription (<DataObject ObjectType="DPUfsImport">) describes the scan; the
// tiled directories of the main chain are the levels, in order; sparse tiles (byte count 0) are left
// transparent; label and macro are stripped directories described "Label..."/"Macro..." or base64 JPEGs
// in the XML. Level sizes and downsamples come from the pixel spacings in the XML, as in OpenSlide.
#include <cmath>
#include <cstdlib>

#include "io/codecs.hpp"
#include "io/xml.hpp"
#include "ndimg/io/slide.hpp"

namespace ndimg::io {

namespace {

using xml::Node;

const std::string* attribute_text(const Node& object, const char* name) {
  for (const Node* a : object.elements("Attribute")) {
    const std::string* n = a->attribute("Name");
    if (n && *n == name) return &a->text;
  }
  return nullptr;
}

// The DataObjects in the Array of a PIM_DP_SCANNED_IMAGES attribute whose PIM_DP_IMAGE_TYPE is `type`.
std::vector<const Node*> images_of_type(const Node& scanned, const char* type) {
  std::vector<const Node*> out;
  for (const Node* arr : scanned.elements("Array"))
    for (const Node* obj : arr->elements("DataObject")) {
      const std::string* t = attribute_text(*obj, "PIM_DP_IMAGE_TYPE");
      if (t && *t == type) out.push_back(obj);
    }
  return out;
}

std::vector<const Node*> scanned_images(const Node& root, const char* type) {
  std::vector<const Node*> out;
  for (const Node* a : root.elements("Attribute")) {
    const std::string* n = a->attribute("Name");
    if (!n || *n != "PIM_DP_SCANNED_IMAGES") continue;
    auto found = images_of_type(*a, type);
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

// philips.<Name> for every leaf Attribute of `object`, recursing into the first WSI scanned image and
// into each PixelDataRepresentation (prefix.<Name>[i].), as OpenSlide names them.
void add_properties(const Node& object, const std::string& prefix, std::map<std::string, std::string>& props) {
  for (const Node* a : object.elements("Attribute")) {
    const std::string* name = a->attribute("Name");
    if (!name) continue;
    if (*name == "PIM_DP_SCANNED_IMAGES") {
      auto wsi = images_of_type(*a, "WSI");
      if (!wsi.empty()) add_properties(*wsi[0], prefix, props);
    } else if (*name == "PIIM_PIXEL_DATA_REPRESENTATION_SEQUENCE") {
      int i = 0;
      for (const Node* arr : a->elements("Array"))
        for (const Node* obj : arr->elements("DataObject"))
          add_properties(*obj, prefix + "." + *name + "[" + std::to_string(i++) + "]", props);
    } else if (a->children.empty()) {
      props[prefix + "." + *name] = a->text;
    }
  }
}

// `"0.000227" "0.000227"` (row spacing, then column spacing, in mm) -> (x, y); false if malformed
bool parse_spacing(const std::string& text, double& x, double& y) {
  std::vector<double> v;
  std::string t = text;
  for (char& c : t)
    if (c == '"') c = ' ';
  const char* p = t.c_str();
  while (*p) {
    while (*p == ' ') ++p;
    if (!*p) break;
    char* end = nullptr;
    double d = std::strtod(p, &end);
    if (end == p || (*end && *end != ' ')) return false;
    v.push_back(d);
    p = end;
  }
  if (v.size() != 2 || !std::isfinite(v[0]) || !std::isfinite(v[1])) return false;
  y = v[0], x = v[1];
  return true;
}

}  // namespace

void Slide::open_philips(std::vector<int>& level_ifds, std::vector<std::pair<double, double>>& spacings) {
  const auto& ifds = tiff_.ifds();
  auto root = xml::parse(ifds[0].text(tag::ImageDescription));
  const std::string* type = root->attribute("ObjectType");
  if (root->local() != "DataObject" || !type || *type != "DPUfsImport")
    throw SlideError("unsupported format: Philips TIFF without a DPUfsImport description");
  auto wsi = scanned_images(*root, "WSI");
  if (wsi.size() != 1) throw SlideError("Philips TIFF: expected one WSI image, found " + std::to_string(wsi.size()));

  for (size_t i = 0; i < ifds.size(); ++i) {
    const Ifd& d = ifds[i];
    if (d.parent >= 0) continue;
    if (d.tiled) {
      if (!level_ifds.empty()) {
        const Ifd& prev = ifds[size_t(level_ifds.back())];
        if (!(d.subfile_type & 1)) throw SlideError("Philips TIFF: directory " + std::to_string(i) + " is not reduced-resolution");
        if (d.width > prev.width || d.height > prev.height)
          throw SlideError("Philips TIFF: unexpected dimensions for directory " + std::to_string(i));
      }
      level_ifds.push_back(int(i));
    } else {
      const std::string text = d.text(tag::ImageDescription);
      const char* name = text.rfind("Label", 0) == 0 ? "label" : text.rfind("Macro", 0) == 0 ? "macro" : nullptr;
      if (name && d.unsupported.empty()) associated_[name] = int(i);
    }
  }

  // the pixel spacing of each level, from the WSI image's PixelDataRepresentations
  for (const Node* a : wsi[0]->elements("Attribute")) {
    const std::string* n = a->attribute("Name");
    if (!n || *n != "PIIM_PIXEL_DATA_REPRESENTATION_SEQUENCE") continue;
    for (const Node* arr : a->elements("Array"))
      for (const Node* rep : arr->elements("DataObject")) {
        const std::string* t = rep->attribute("ObjectType");
        const std::string* sp = attribute_text(*rep, "DICOM_PIXEL_SPACING");
        if (!t || *t != "PixelDataRepresentation" || !sp) continue;
        double x, y;
        if (!parse_spacing(*sp, x, y)) throw SlideError("Philips TIFF: cannot parse pixel spacing '" + *sp + "'");
        spacings.emplace_back(x, y);
      }
    break;
  }

  add_properties(*root, "philips", properties_);
  double x, y;
  if (properties_.count("philips.DICOM_PIXEL_SPACING") && parse_spacing(properties_["philips.DICOM_PIXEL_SPACING"], x, y)) {
    properties_["openslide.mpp-x"] = format_double(1e3 * x);
    properties_["openslide.mpp-y"] = format_double(1e3 * y);
  }
  // "...-levels=40,...": the first level entry is the objective power when it looks like one
  if (properties_.count("philips.DICOM_DERIVATION_DESCRIPTION")) {
    const std::string& s = properties_["philips.DICOM_DERIVATION_DESCRIPTION"];
    size_t pos = 0;
    for (;;) {
      size_t dash = s.find('-', pos);
      std::string item = s.substr(pos, dash == std::string::npos ? std::string::npos : dash - pos);
      std::string key = item.substr(0, item.find('='));
      if (key == "sourceFilename") break;
      if (key == "levels" && item.size() > 7) {
        std::string first = item.substr(7, item.find(',') == std::string::npos ? std::string::npos : item.find(',') - 7);
        char* end = nullptr;
        unsigned long long v = std::strtoull(first.c_str(), &end, 10);
        if (!first.empty() && *end == '\0' && first[0] != '-' && first[0] != '+' && v > 0 && v <= 200)
          properties_["openslide.objective-power"] = std::to_string(v);
        break;
      }
      if (dash == std::string::npos) break;
      pos = dash + 1;
    }
  }
  if (properties_.count("philips.PIM_DP_UFS_BARCODE")) {
    std::string b = xml::base64_decode(properties_["philips.PIM_DP_UFS_BARCODE"]);
    properties_["openslide.barcode"] = b.substr(0, b.find('\0'));
  }

  // label and macro from base64 JPEGs in the XML, unless a directory holds them; unreadable ones are skipped
  for (auto [name, type] : {std::pair{"label", "LABELIMAGE"}, std::pair{"macro", "MACROIMAGE"}}) {
    if (associated_.count(name)) continue;
    auto images = scanned_images(*root, type);
    if (images.empty()) continue;
    const std::string* data = attribute_text(*images[0], "PIM_DP_IMAGE_DATA");
    if (!data) continue;
    Embedded e;
    e.jpeg = xml::base64_decode(*data);
    try {
      codec::jpeg_dimensions(reinterpret_cast<const uint8_t*>(e.jpeg.data()), e.jpeg.size(), e.width, e.height);
    } catch (const SlideError&) {
      continue;
    }
    if (uint64_t(e.width) * e.height > (uint64_t(1) << 28)) continue;  // a header claiming gigapixels: corrupt
    embedded_[name] = std::move(e);
  }
}

void Slide::fix_philips_levels(const std::vector<std::pair<double, double>>& spacings) {
  if (spacings.size() != levels_.size()) throw SlideError("Philips TIFF: cannot get the level downsamples");
  for (size_t i = 1; i < levels_.size(); ++i) {
    // integer downsamples, as OpenSlide assumes; the level is what the downsample leaves of level 0
    double ds = std::round((spacings[i].first / spacings[0].first + spacings[i].second / spacings[0].second) / 2);
    if (!(ds >= 1) || ds > 1e9) throw SlideError("Philips TIFF: invalid pixel spacing for level " + std::to_string(i));
    levels_[i].downsample = ds;
    levels_[i].width = uint32_t(double(levels_[0].width) / ds);
    levels_[i].height = uint32_t(double(levels_[0].height) / ds);
  }
}

}  // namespace ndimg::io

// OME-TIFF (vendor "ome-tiff"; OpenSlide does not read it): the OME-XML ImageDescription of the first
// directory describes the images. Level 0 is the first directory (the first plane of the first image: for
// multichannel images stored one channel per directory, the first channel) and its tiled SubIFDs are the
// reduced levels. Properties: ome.Image.*, ome.Pixels.* and ome.Channel[i].* from the first Image's
// attributes, openslide.mpp-x/y from PhysicalSizeX/Y (converted to micrometres) and
// openslide.objective-power from the objective the image names.
#include <cstdlib>

#include "io/xml.hpp"
#include "ndimg/io/slide.hpp"

namespace ndimg::io {

namespace {

// micrometres per unit of an OME length unit; 0 for units we do not convert
double micrometres_per(const std::string& unit) {
  if (unit.empty() || unit == "\xC2\xB5m" || unit == "um") return 1;  // OME's default is µm
  if (unit == "nm") return 1e-3;
  if (unit == "mm") return 1e3;
  if (unit == "cm") return 1e4;
  if (unit == "m") return 1e6;
  if (unit == "\xC3\x85") return 1e-4;  // Å
  return 0;
}

double number(const std::string* s) {
  if (!s || s->empty()) return 0;
  char* end = nullptr;
  double v = std::strtod(s->c_str(), &end);
  return *end == '\0' ? v : 0;
}

void add_attributes(const xml::Node& n, const std::string& prefix, std::map<std::string, std::string>& props) {
  for (auto& [k, v] : n.attributes)
    if (k.find(':') == std::string::npos && k != "xmlns") props[prefix + k] = v;
}

}  // namespace

void Slide::open_ome(std::vector<int>& level_ifds) {
  const auto& ifds = tiff_.ifds();
  auto root = xml::parse(ifds[0].text(tag::ImageDescription));
  if (root->local() != "OME") throw SlideError("unsupported format: OME-TIFF description without an OME element");
  level_ifds.push_back(0);
  for (size_t i = 0; i < ifds.size(); ++i)
    if (ifds[i].parent == 0 && ifds[i].tiled) level_ifds.push_back(int(i));

  const xml::Node* image = root->element("Image");
  const xml::Node* pixels = image ? image->element("Pixels") : nullptr;
  if (!pixels) return;
  add_attributes(*image, "ome.Image.", properties_);
  add_attributes(*pixels, "ome.Pixels.", properties_);
  int c = 0;
  for (const xml::Node* ch : pixels->elements("Channel"))
    add_attributes(*ch, "ome.Channel[" + std::to_string(c++) + "].", properties_);

  auto mpp = [&](const char* size, const char* unit) {
    double v = number(pixels->attribute(size));
    const std::string* u = pixels->attribute(unit);
    double scale = micrometres_per(u ? *u : std::string());
    return v > 0 ? v * scale : 0;
  };
  double mx = mpp("PhysicalSizeX", "PhysicalSizeXUnit"), my = mpp("PhysicalSizeY", "PhysicalSizeYUnit");
  if (mx > 0 && my > 0) {
    properties_["openslide.mpp-x"] = format_double(mx);
    properties_["openslide.mpp-y"] = format_double(my);
  }
  // <ObjectiveSettings ID="Objective:0"/> in the Image -> <Instrument><Objective ID=... NominalMagnification=...>
  const xml::Node* settings = image->element("ObjectiveSettings");
  const std::string* id = settings ? settings->attribute("ID") : nullptr;
  if (!id) return;
  for (const xml::Node* inst : root->elements("Instrument"))
    for (const xml::Node* obj : inst->elements("Objective")) {
      const std::string* oid = obj->attribute("ID");
      const std::string* mag = obj->attribute("NominalMagnification");
      if (oid && *oid == *id && mag && number(mag) > 0) properties_["openslide.objective-power"] = format_double(number(mag));
    }
}

}  // namespace ndimg::io

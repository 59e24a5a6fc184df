// libFuzzer target for the slide reader: container parsing (TIFF/BigTIFF directories, vendor detection)
// and tile decoding of every codec. The input bytes become an in-memory file (memfd) opened as a Slide
// through /proc/self/fd, so the reader runs unchanged; then a few regions of every level (without and with
// a tile cache) and every associated image are decoded. SlideError is the expected outcome of bad input;
// any other exception (ValueError included: the arguments are valid), a crash, a leak or a sanitizer
// report is a finding.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "ndimg/io/slide.hpp"
#include "ndimg/io/tile_cache.hpp"
#include "ndimg/parallel.hpp"

namespace {

// The largest region read at once: reads are what a caller asks for, so this bounds the output buffer,
// and every other allocation must stay bounded by the input (checked by -malloc_limit_mb).
constexpr int64_t kRegion = 96;

struct MemFile {
  int fd = -1;
  std::string path;
  MemFile(const uint8_t* data, size_t size) {
    fd = memfd_create("slide_fuzzer", MFD_CLOEXEC);
    if (fd < 0) std::abort();
    for (size_t done = 0; done < size;) {
      ssize_t w = write(fd, data + done, size - done);
      if (w <= 0) std::abort();
      done += size_t(w);
    }
    path = "/proc/self/fd/" + std::to_string(fd);
  }
  ~MemFile() { close(fd); }
};

void read_regions(const ndimg::io::Slide& s) {
  std::vector<uint8_t> rgba(size_t(kRegion) * kRegion * 4);
  for (int level = 0; level < int(s.levels().size()) && level < 8; ++level) {
    const auto& l = s.levels()[size_t(level)];
    const double ds = l.downsample;
    const int64_t w = l.width, h = l.height;
    // corners and the centre of the level, plus one region straddling the edge (level coordinates)
    const int64_t spots[][2] = {{0, 0}, {w / 2, h / 2}, {w - 1, h - 1}, {w - kRegion / 2, 0}, {-7, -7}};
    for (auto [x, y] : spots)
      for (int64_t past : {0, 1}) {  // 1: a corner between level pixels (OpenSlide's sub-pixel painting)
        if (past && x != w / 2) continue;
        try {
          s.read_region(int64_t(double(x) * ds) + past, int64_t(double(y) * ds) + past, level, kRegion, kRegion,
                        rgba.data());
        } catch (const ndimg::io::SlideError&) {
        }
      }
  }
}

void read_some(const ndimg::io::Slide& s) {
  read_regions(s);
  // again through a tile cache of its own (keys are file identities, which a later memfd may repeat):
  // tiles decoded into the cache's blocks, then read from there
  using ndimg::io::TileCache;
  ndimg::io::set_tile_cache(std::make_shared<TileCache>(ndimg::io::CacheType::PerProcess, 8 << 20, 0, false));
  read_regions(s);
  read_regions(s);
  ndimg::io::set_tile_cache(nullptr);
  for (const auto& [name, ifd] : s.associated()) {
    const auto& d = s.tiff().ifds()[size_t(ifd)];
    // whole associated images only when small (the caller asks for width x height x 4 bytes)
    if (uint64_t(d.width) * d.height > 1u << 20) continue;
    std::vector<uint8_t> img(size_t(d.width) * d.height * 4);
    try {
      s.read_associated(name, img.data());
    } catch (const ndimg::io::SlideError&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ndimg::set_num_threads(1);  // deterministic and cheaper; the code paths are the same
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  MemFile f(data, size);
  try {
    ndimg::io::Slide s(f.path);
    read_some(s);
  } catch (const ndimg::io::SlideError&) {
  }
  return 0;
}

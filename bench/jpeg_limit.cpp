// The decoding limit for bench/slides.py: libjpeg-turbo (TurboJPEG) decoding the JPEG tiles of one slide
// level, with nothing else (no file I/O, no table merging, no copies), on 1..N threads.
//
//   jpeg_limit SLIDE INDEX THREADS...
//
// INDEX (written by bench/slides.py) holds little-endian uint64 values: the JPEGTables length, the tables,
// padded to 8 bytes, then the tile count and (offset, byte count) per tile. Tiles are read into memory and
// completed with the tables before timing. Each thread has its own decoder and RGB buffer and takes tiles
// from a shared counter. Prints one line per thread count: "THREADS TILES SECONDS".
#include <turbojpeg.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

std::vector<uint8_t> slurp(const char* path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(std::string("cannot open ") + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

uint64_t u64(const std::vector<uint8_t>& b, size_t& pos) {
  if (pos + 8 > b.size()) throw std::runtime_error("index file is truncated");
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(b[pos + i]) << (8 * i);
  pos += 8;
  return v;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s SLIDE INDEX THREADS...\n", argv[0]);
    return 2;
  }
  const std::vector<uint8_t> index = slurp(argv[2]);
  size_t pos = 0;
  const uint64_t ntables = u64(index, pos);
  const std::vector<uint8_t> tables(index.begin() + long(pos), index.begin() + long(pos + ntables));
  pos += (ntables + 7) / 8 * 8;
  const uint64_t ntiles = u64(index, pos);
  std::ifstream slide(argv[1], std::ios::binary);
  std::vector<std::vector<uint8_t>> tiles(ntiles);
  for (auto& t : tiles) {
    const uint64_t off = u64(index, pos), n = u64(index, pos);
    std::vector<uint8_t> raw(n);
    slide.seekg(std::streamoff(off));
    if (!slide.read(reinterpret_cast<char*>(raw.data()), std::streamsize(n)))
      throw std::runtime_error("cannot read a tile");
    if (tables.size() >= 4 && n >= 2) {  // abbreviated stream: tables without EOI, tile without SOI
      t.assign(tables.begin(), tables.end() - 2);
      t.insert(t.end(), raw.begin() + 2, raw.end());
    } else {
      t = std::move(raw);
    }
  }
  for (int a = 3; a < argc; ++a) {
    const int threads = std::atoi(argv[a]);
    std::atomic<uint64_t> next{0}, failed{0};
    auto work = [&] {
      tjhandle tj = tjInitDecompress();
      std::vector<uint8_t> rgb;
      for (uint64_t i; (i = next.fetch_add(1)) < ntiles;) {
        const auto& t = tiles[i];
        int w = 0, h = 0, sub = 0, cs = 0;
        if (tjDecompressHeader3(tj, t.data(), (unsigned long)t.size(), &w, &h, &sub, &cs) != 0) {
          ++failed;
          continue;
        }
        rgb.resize(size_t(w) * size_t(h) * 3);
        if (tjDecompress2(tj, t.data(), (unsigned long)t.size(), rgb.data(), w, w * 3, h, TJPF_RGB, 0) != 0)
          ++failed;
      }
      tjDestroy(tj);
    };
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int k = 1; k < threads; ++k) pool.emplace_back(work);
    work();
    for (auto& th : pool) th.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (failed) throw std::runtime_error(std::to_string(failed.load()) + " tiles failed to decode");
    std::printf("%d %llu %.6f\n", threads, (unsigned long long)ntiles, s);
    std::fflush(stdout);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "jpeg_limit: %s\n", e.what());
  return 1;
}

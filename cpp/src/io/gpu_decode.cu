// Slide regions decoded into GPU memory: nvJPEG (loaded at run time) for JPEG tiles, CPU threads and pinned
// uploads for the rest, and one CUDA kernel that copies decoded pixels into the requested regions.
// See ndimg/io/gpu_decode.hpp.
#ifdef NDIMG_WITH_IO
#include "ndimg/io/gpu_decode.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "core/cuda.cuh"
#include "io/codecs.hpp"
#include "ndimg/io/batch.hpp"
#include "ndimg/parallel.hpp"

namespace ndimg::io::gpu {

namespace {

// ------------------------------------------------------------------------------------------------ nvJPEG
// The few declarations of nvjpeg.h we use, written from its documented C API (the header is not needed to
// build ndimg). Enumerations are C enums, passed as int.
namespace nvj {
using Status = int;
constexpr Status kSuccess = 0;
const char* status_name(Status s) {
  static const char* names[] = {"SUCCESS", "NOT_INITIALIZED", "INVALID_PARAMETER", "BAD_JPEG",
                                "JPEG_NOT_SUPPORTED", "ALLOCATOR_FAILURE", "EXECUTION_FAILED", "ARCH_MISMATCH",
                                "INTERNAL_ERROR", "IMPLEMENTATION_NOT_SUPPORTED", "INCOMPLETE_BITSTREAM"};
  return s >= 0 && s < int(sizeof(names) / sizeof(names[0])) ? names[s] : "unknown status";
}
enum Backend : int { kBackendDefault = 0, kBackendHardware = 3 };
enum Output : int { kOutputUnchanged = 0, kOutputRGBI = 5 };
constexpr unsigned kFlagUpsamplingWithInterpolation = 32;
constexpr int kMaxComponents = 4;
struct Image {
  unsigned char* channel[kMaxComponents];
  size_t pitch[kMaxComponents];
};
struct HandleOpaque;
struct StateOpaque;
using Handle = HandleOpaque*;
using State = StateOpaque*;

struct Api {
  std::string path;
  Status (*CreateEx)(int backend, void* dev_allocator, void* pinned_allocator, unsigned flags, Handle* handle);
  Status (*JpegStateCreate)(Handle, State*);
  Status (*JpegStateDestroy)(State);
  Status (*DecodeBatchedInitialize)(Handle, State, int batch_size, int max_cpu_threads, int output_format);
  Status (*DecodeBatched)(Handle, State, const unsigned char* const* data, const size_t* lengths, Image* dst,
                          cudaStream_t stream);
};
}  // namespace nvj

std::mutex g_load_mutex;
std::vector<std::string> g_candidates;
const nvj::Api* g_api = nullptr;

template <class F>
void bind_symbol(void* lib, const char* name, F& f, std::string& missing) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) missing += std::string(missing.empty() ? "" : ", ") + name;
}

// The loaded library (once per process; never unloaded: handles may live until exit).
const nvj::Api& api() {
  std::lock_guard<std::mutex> lk(g_load_mutex);
  if (g_api) return *g_api;
  std::vector<std::string> names = g_candidates;
  for (const char* n : {"libnvjpeg.so.13", "libnvjpeg.so.12", "libnvjpeg.so"}) names.emplace_back(n);
  std::string tried;
  for (const auto& n : names) {
    void* lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      tried += "\n  " + n + ": " + (e ? e : "cannot be opened");
      continue;
    }
    auto a = std::make_unique<nvj::Api>();
    std::string missing;
    bind_symbol(lib, "nvjpegCreateEx", a->CreateEx, missing);
    bind_symbol(lib, "nvjpegJpegStateCreate", a->JpegStateCreate, missing);
    bind_symbol(lib, "nvjpegJpegStateDestroy", a->JpegStateDestroy, missing);
    bind_symbol(lib, "nvjpegDecodeBatchedInitialize", a->DecodeBatchedInitialize, missing);
    bind_symbol(lib, "nvjpegDecodeBatched", a->DecodeBatched, missing);
    if (!missing.empty()) {
      tried += "\n  " + n + ": lacks " + missing;
      dlclose(lib);
      continue;
    }
    char where[4096] = {};
    a->path = dlinfo(lib, RTLD_DI_ORIGIN, where) == 0 ? std::string(where) + "/" + n.substr(n.rfind('/') + 1) : n;
    g_api = a.release();
    return *g_api;
  }
  throw Error("device='cuda' needs nvJPEG to decode JPEG tiles and none could be loaded (install the "
              "nvidia-nvjpeg-cu13 wheel, or put the CUDA toolkit's libnvjpeg.so.13 on LD_LIBRARY_PATH); tried:" +
              tried);
}

void check(nvj::Status s, const char* op) {
  if (s != nvj::kSuccess) throw CudaError(std::string(op) + ": nvJPEG error " + nvj::status_name(s));
}

// ------------------------------------------------------------------------------------------ RAII helpers

class Event {
 public:
  explicit Event(bool timing = false) {
    cuda::check(cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming), "cudaEventCreate");
  }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) {
    cuda::check(cudaEventRecord(e_, s), "cudaEventRecord");
    recorded_ = true;
  }
  void wait_host() const {
    if (recorded_) cuda::check(cudaEventSynchronize(e_), "cudaEventSynchronize");
  }

 private:
  cudaEvent_t e_ = nullptr;
  bool recorded_ = false;
};

class Stream {
 public:
  Stream() { cuda::check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() {
    cudaStreamSynchronize(s_);
    cudaStreamDestroy(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// Grow-only buffers of device or pinned host memory; the owner makes sure no queued work uses them when
// they grow or die.
template <class Memory>
struct GrowBuffer {
  uint8_t* p = nullptr;
  size_t n = 0;
  GrowBuffer() = default;
  GrowBuffer(const GrowBuffer&) = delete;
  GrowBuffer& operator=(const GrowBuffer&) = delete;
  ~GrowBuffer() { Memory::release(p); }
  void reserve(size_t bytes) {
    if (bytes <= n) return;
    cuda::check(Memory::release(p), Memory::kRelease);
    p = nullptr, n = 0;
    cuda::check(Memory::allocate(&p, bytes), Memory::kAllocate);
    n = bytes;
  }
};
struct DeviceMemory {
  static constexpr const char* kAllocate = "cudaMalloc (slide tile buffer)";
  static constexpr const char* kRelease = "cudaFree";
  static cudaError_t allocate(uint8_t** p, size_t bytes) { return cudaMalloc(p, bytes); }
  static cudaError_t release(uint8_t* p) { return cudaFree(p); }
};
struct PinnedMemory {
  static constexpr const char* kAllocate = "cudaHostAlloc (slide staging buffer)";
  static constexpr const char* kRelease = "cudaFreeHost";
  static cudaError_t allocate(uint8_t** p, size_t bytes) { return cudaHostAlloc(p, bytes, cudaHostAllocPortable); }
  static cudaError_t release(uint8_t* p) { return cudaFreeHost(p); }
};
using DeviceBuffer = GrowBuffer<DeviceMemory>;
using PinnedBuffer = GrowBuffer<PinnedMemory>;

// ------------------------------------------------------------------------------- nvJPEG handle per device

// A pair of batched-decode states (one per output format); one batch at a time uses it.
struct States {
  nvj::State rgbi = nullptr, unchanged = nullptr;
  Event last_decode;  // the latest decode queued with these states
  ~States() {
    last_decode.wait_host();
    if (rgbi) api().JpegStateDestroy(rgbi);
    if (unchanged) api().JpegStateDestroy(unchanged);
  }
};

struct Engine {
  int device = 0;
  nvj::Handle handle = nullptr;
  bool hardware = false;
  std::mutex m;
  std::vector<std::unique_ptr<States>> idle;

  std::unique_ptr<States> acquire() {
    {
      std::lock_guard<std::mutex> lk(m);
      if (!idle.empty()) {
        auto s = std::move(idle.back());
        idle.pop_back();
        return s;
      }
    }
    auto s = std::make_unique<States>();
    check(api().JpegStateCreate(handle, &s->rgbi), "nvjpegJpegStateCreate");
    check(api().JpegStateCreate(handle, &s->unchanged), "nvjpegJpegStateCreate");
    return s;
  }
  void release(std::unique_ptr<States> s) {
    std::lock_guard<std::mutex> lk(m);
    idle.push_back(std::move(s));
  }
};

// Creates the device's handle: the hardware backend unless NDIMG_NVJPEG_BACKEND=default, else (or where the
// GPU has no JPEG engine) the default backend; chroma upsampled by interpolation where the library offers it
// (closer to libjpeg's "fancy" upsampling than replication). Handles live until the process exits.
Engine& engine(int device) {
  static std::mutex m;
  static std::map<int, Engine*> engines;
  std::lock_guard<std::mutex> lk(m);
  auto it = engines.find(device);
  if (it != engines.end()) return *it->second;
  const nvj::Api& a = api();
  cuda::DeviceGuard guard(device, "nvJPEG handle");
  const char* env = std::getenv("NDIMG_NVJPEG_BACKEND");
  const bool want_hw = !(env && std::string(env) == "default");
  auto e = std::make_unique<Engine>();
  e->device = device;
  nvj::Status s = -1;
  for (int backend : {nvj::kBackendHardware, nvj::kBackendDefault}) {
    if (backend == nvj::kBackendHardware && !want_hw) continue;
    for (unsigned flags : {nvj::kFlagUpsamplingWithInterpolation, 0u}) {
      s = a.CreateEx(backend, nullptr, nullptr, flags, &e->handle);
      if (s == nvj::kSuccess) break;
      e->handle = nullptr;
    }
    if (s == nvj::kSuccess) {
      e->hardware = backend == nvj::kBackendHardware;
      break;
    }
  }
  check(s, "nvjpegCreateEx");
  engines[device] = e.get();
  return *e.release();
}

// --------------------------------------------------------------------------------------- assembly kernel

// One rectangle of decoded pixels copied into the output. Sources are 8-bit samples: interleaved RGB
// (step 3, offsets 1 and 2), planar (step 1, offsets one and two planes) or gray (step 1, offsets 0).
struct Job {
  const uint8_t* src;  // the rectangle's first pixel
  int64_t src_pitch, step, off1, off2;
  int64_t dst, dst_pitch;  // byte offset of its first pixel in the output, row pitch of the output
  int32_t w, h;
};

__global__ void assemble_kernel(const Job* __restrict__ jobs, uint8_t* __restrict__ out) {
  const Job j = jobs[blockIdx.x];
  for (int64_t y = blockIdx.y; y < j.h; y += gridDim.y) {
    const uint8_t* s = j.src + y * j.src_pitch;
    uint8_t* d = out + j.dst + y * j.dst_pitch;
    for (int64_t x = threadIdx.x; x < j.w; x += blockDim.x) {
      const uint8_t* p = s + x * j.step;
      d[3 * x] = p[0];
      d[3 * x + 1] = p[j.off1];
      d[3 * x + 2] = p[j.off2];
    }
  }
}

// ------------------------------------------------------------------------------------ preparing a batch

// A region to fill: level coordinates, and where its pixels go in the output.
struct Piece {
  int64_t x, y, w, h;
  int64_t dst, pitch;
};

// How a tile is decoded.
enum class Kind : uint8_t { Cpu, Rgbi, Planar3, Gray };

// Everything one batch in flight owns. It may be refilled once `done` has passed.
struct Work {
  DeviceBuffer pixels, jobs_dev;
  PinnedBuffer staging, jobs_host;
  Event ready, done;  // decoded and uploaded (decode stream) / assembled (consumer stream)
  std::vector<Job> jobs;
  int64_t zero_begin = 0, zero_bytes = 0;  // output bytes to clear first (pixels outside the level)
  uint32_t count = 0;
  std::exception_ptr error;
  // per tile of the batch
  std::vector<uint64_t> tiles;
  std::vector<std::vector<uint8_t>> raw, merged;
  std::vector<const uint8_t*> data;
  std::vector<size_t> lengths;
  std::vector<Kind> kinds;
};

// Whether the hardware engine takes a baseline stream of these sampling factors (4:4:4, 4:2:2, 4:2:0,
// 4:4:0 and gray; not 4:1:1 or 4:1:0).
bool hardware_takes(const codec::JpegInfo& info) {
  if (info.sof != 0xC0) return false;
  if (info.components == 1) return true;
  for (int c = 1; c < info.components; ++c)
    if (info.sampling[c] != 0x11) return false;
  const uint8_t y = info.sampling[0];
  return y == 0x11 || y == 0x21 || y == 0x22 || y == 0x12;
}

// The reading and decoding side of a slide level on one device.
class Decoder {
 public:
  Decoder(const Slide& slide, int level, int device) : slide_(slide), device_(device) {
    ifd_index_ = checked_level(slide, level).ifd;
    const Ifd& d = ifd();
    // JPEG levels whose tiles nvJPEG can give exactly as the CPU codec does: 8-bit YCbCr or RGB of 3
    // interleaved samples, or gray (MinIsBlack); the rest is read on the CPU
    gpu_tiles_ = d.unsupported.empty() && d.compression == compression::JPEG && d.bits == 8 &&
                 ((d.samples == 3 && d.planar == 1 &&
                   (d.photometric == photometric::YCbCr || d.photometric == photometric::RGB)) ||
                  (d.samples == 1 && d.photometric == photometric::MinIsBlack));
    if (gpu_tiles_) {
      engine_ = &engine(device);
      states_ = engine_->acquire();
    }
    // CPU threads help nvJPEG only on request: a training loop usually needs its cores for other work
    if (const char* env = std::getenv("NDIMG_NVJPEG_CPU_SHARE"); env && *env) {
      if (std::string(env) == "auto") {
        cpu_share_ = 0.3, share_fixed_ = false;
      } else {
        char* end = nullptr;
        const double v = std::strtod(env, &end);
        if (*end || !(v >= 0 && v <= 1))
          throw ValueError("NDIMG_NVJPEG_CPU_SHARE must be 'auto' or a number in [0, 1]");
        cpu_share_ = v;
      }
    }
  }
  ~Decoder() {
    if (states_) engine_->release(std::move(states_));
  }
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  int device() const { return device_; }

  // Reads and decodes what `pieces` need into w (waiting first for w's previous batch to be assembled) and
  // queues the uploads on `s`; w.ready marks the end. Throws for bad data (the batch is lost).
  void prepare(Work& w, const std::vector<Piece>& pieces, cudaStream_t s) {
    w.done.wait_host();
    w.jobs.clear();
    w.zero_begin = w.zero_bytes = 0;
    if (gpu_tiles_) prepare_tiles(w, pieces, s);
    else prepare_regions(w, pieces);
    if (!pieces.empty()) upload(w, pieces, s);
  }

  // Queues the copy of w's pixels into `out` on `s` after w is ready; w.done marks the end.
  static void assemble(Work& w, uint8_t* out, cudaStream_t s) {
    cuda::check(cudaStreamWaitEvent(s, w.ready.get(), 0), "cudaStreamWaitEvent");
    if (w.zero_bytes) cuda::check(cudaMemsetAsync(out + w.zero_begin, 0, size_t(w.zero_bytes), s), "cudaMemsetAsync");
    if (!w.jobs.empty()) {
      int32_t rows = 1;
      for (const Job& j : w.jobs) rows = std::max(rows, j.h);
      const dim3 grid(unsigned(w.jobs.size()), unsigned(std::min<int32_t>(rows, 256)));
      assemble_kernel<<<grid, 128, 0, s>>>(reinterpret_cast<const Job*>(w.jobs_dev.p), out);
      cuda::check_launch("assemble slide tiles");
    }
    w.done.record(s);
  }

 private:
  const Ifd& ifd() const { return slide_.tiff().ifds()[size_t(ifd_index_)]; }

  // Codecs without a GPU decoder: each piece read on CPU threads (the CPU path itself) into pinned memory.
  void prepare_regions(Work& w, const std::vector<Piece>& pieces) {
    std::vector<size_t> offset(pieces.size() + 1, 0);
    for (size_t i = 0; i < pieces.size(); ++i) offset[i + 1] = offset[i] + size_t(pieces[i].w * pieces[i].h * 3);
    w.staging.reserve(offset.back());
    w.pixels.reserve(offset.back());
    parallel_for(int64_t(pieces.size()), 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const Piece& p = pieces[size_t(i)];
        slide_.tiff().read_region_8bit(ifd_index_, p.x, p.y, p.w, p.h, w.staging.p + offset[size_t(i)], 3,
                                       size_t(p.w) * 3);
      }
    });
    w.tiles.clear();
    for (size_t i = 0; i < pieces.size(); ++i) {
      const Piece& p = pieces[i];
      w.jobs.push_back(Job{w.pixels.p + offset[i], p.w * 3, 3, 1, 2, p.dst, p.pitch, int32_t(p.w), int32_t(p.h)});
    }
    pending_upload_ = offset.back();
  }

  void prepare_tiles(Work& w, const std::vector<Piece>& pieces, cudaStream_t s) {
    const Ifd& d = ifd();
    const int64_t tw = d.tile_width, th = d.tile_height, across = d.tiles_across();
    // the tiles the pieces meet, each once, and the rectangles to copy (their source pointers come later)
    std::unordered_map<uint64_t, uint32_t> slot_of;
    w.tiles.clear();
    struct Rect { uint32_t slot; int64_t sx, sy; };
    std::vector<Rect> rects;
    for (const Piece& p : pieces) {
      const int64_t x0 = std::max<int64_t>(p.x, 0), y0 = std::max<int64_t>(p.y, 0);
      const int64_t x1 = std::min<int64_t>(p.x + p.w, d.width), y1 = std::min<int64_t>(p.y + p.h, d.height);
      int64_t covered = 0;
      if (x0 < x1 && y0 < y1) {
        for (int64_t ty = y0 / th; ty <= (y1 - 1) / th; ++ty)
          for (int64_t tx = x0 / tw; tx <= (x1 - 1) / tw; ++tx) {
            const uint64_t tile = uint64_t(ty * across + tx);
            if (d.offsets[tile] == 0 || d.byte_counts[tile] == 0) continue;  // sparse: stays 0
            auto [it, added] = slot_of.emplace(tile, uint32_t(w.tiles.size()));
            if (added) w.tiles.push_back(tile);
            const int64_t ax = std::max(x0, tx * tw), bx = std::min(x1, (tx + 1) * tw);
            const int64_t ay = std::max(y0, ty * th), by = std::min(y1, (ty + 1) * th);
            rects.push_back(Rect{it->second, ax - tx * tw, ay - ty * th});
            w.jobs.push_back(Job{nullptr, 0, 0, 0, 0, p.dst + (ay - p.y) * p.pitch + (ax - p.x) * 3, p.pitch,
                                 int32_t(bx - ax), int32_t(by - ay)});
            covered += (bx - ax) * (by - ay);
          }
      }
      if (covered < p.w * p.h) clear_piece(w, p);
    }
    const size_t n = w.tiles.size();
    const size_t slot_bytes = size_t(tw) * size_t(th) * 3;
    w.pixels.reserve(std::max<size_t>(n, 1) * slot_bytes);
    if (w.raw.size() < n) w.raw.resize(n), w.merged.resize(n);
    w.data.assign(n, nullptr);
    w.lengths.assign(n, 0);
    w.kinds.assign(n, Kind::Cpu);

    // read the tile bytes and sort the tiles by decoder, on CPU threads
    const bool force_rgb = d.photometric == photometric::RGB;
    parallel_for(int64_t(n), 4, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        const uint64_t tile = w.tiles[size_t(k)];
        auto& raw = w.raw[size_t(k)];
        slide_.tiff().read_chunk(d, tile, raw);
        auto [data, len] = codec::jpeg_stream(raw.data(), raw.size(), d.jpeg_tables, force_rgb, d.samples,
                                              w.merged[size_t(k)]);
        w.data[size_t(k)] = data;
        w.lengths[size_t(k)] = len;
        w.kinds[size_t(k)] = classify(d, tile, data, len);
      }
    });

    // nvJPEG's decoder and CPU threads decode at once: a share of the tiles nvJPEG could take goes to the
    // CPU (beside the refused ones), so that both finish together
    std::vector<uint32_t> rgbi, planar, cpu;
    for (uint32_t k = 0; k < n; ++k) {
      Kind kind = w.kinds[k];
      (kind == Kind::Rgbi ? rgbi : kind == Kind::Cpu ? cpu : planar).push_back(k);
    }
    for (size_t give = size_t(cpu_share_ * double(rgbi.size() + planar.size()) + 0.5); give; --give) {
      auto& from = rgbi.empty() ? planar : rgbi;
      w.kinds[from.back()] = Kind::Cpu;
      cpu.push_back(from.back());
      from.pop_back();
    }
    const size_t cpu_bytes = size_t(tw) * size_t(th) * d.samples;
    w.staging.reserve(std::max<size_t>(n, 1) * cpu_bytes);
    const size_t beside = cpu.size();
    double cpu_seconds = 0;
    std::exception_ptr cpu_error;
    std::thread side;
    if (beside) {
      side = std::thread([&] {
        const auto t0 = std::chrono::steady_clock::now();
        try {
          decode_on_cpu(w, cpu, 0, beside, cpu_bytes);
        } catch (...) {
          cpu_error = std::current_exception();
        }
        cpu_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      });
    }
    struct Join {
      std::thread& t;
      ~Join() { if (t.joinable()) t.join(); }
    } join{side};

    // the GPU's batches, one per output format; a batch nvJPEG refuses goes to the CPU
    states_->last_decode.wait_host();  // the states' previous batch is done with them
    read_gpu_rate();
    std::vector<uint32_t> refused;
    if (!share_fixed_) gpu_begin_.record(s);  // timed only while the share is being learned
    bool queued = false;
    if (!decode_batch(w, rgbi, nvj::kOutputRGBI, states_->rgbi, slot_bytes, s)) mark_cpu(w, rgbi, refused);
    else queued |= !rgbi.empty();
    if (!decode_batch(w, planar, nvj::kOutputUnchanged, states_->unchanged, slot_bytes, s)) mark_cpu(w, planar, refused);
    else queued |= !planar.empty();
    if (queued) {
      states_->last_decode.record(s);
      if (!share_fixed_) gpu_end_.record(s), gpu_timed_ = rgbi.size() + planar.size();
    }
    if (side.joinable()) side.join();
    if (cpu_error) std::rethrow_exception(cpu_error);
    update_share(beside, cpu_seconds);
    cpu.insert(cpu.end(), refused.begin(), refused.end());
    decode_on_cpu(w, cpu, beside, cpu.size(), cpu_bytes);
    for (size_t i = 0; i < cpu.size(); ++i)
      cuda::check(cudaMemcpyAsync(w.pixels.p + size_t(cpu[i]) * slot_bytes, w.staging.p + i * cpu_bytes, cpu_bytes,
                                  cudaMemcpyHostToDevice, s),
                  "cudaMemcpyAsync (CPU-decoded tiles)");

    // sources of the rectangles
    for (size_t r = 0; r < rects.size(); ++r) {
      const uint32_t k = rects[r].slot;
      const uint8_t* base = w.pixels.p + size_t(k) * slot_bytes;
      Job& j = w.jobs[r];
      const int64_t plane = tw * th;
      switch (w.kinds[k]) {
        case Kind::Rgbi: j.src_pitch = tw * 3, j.step = 3, j.off1 = 1, j.off2 = 2; break;
        case Kind::Planar3: j.src_pitch = tw, j.step = 1, j.off1 = plane, j.off2 = 2 * plane; break;
        case Kind::Gray: j.src_pitch = tw, j.step = 1, j.off1 = j.off2 = 0; break;
        case Kind::Cpu:
          if (d.samples == 3) j.src_pitch = tw * 3, j.step = 3, j.off1 = 1, j.off2 = 2;
          else j.src_pitch = tw, j.step = 1, j.off1 = j.off2 = 0;
          break;
      }
      j.src = base + rects[r].sy * j.src_pitch + rects[r].sx * j.step;
    }
    pending_upload_ = 0;
  }

  // Tiles list[first, last) decoded on CPU threads (as the CPU path does it, tile cache included) into pinned
  // staging slots first.. of cpu_bytes each.
  void decode_on_cpu(Work& w, const std::vector<uint32_t>& list, size_t first, size_t last, size_t cpu_bytes) {
    const Ifd& d = ifd();
    parallel_for(int64_t(last - first), 1, [&](int64_t b, int64_t e) {
      std::vector<uint8_t> compressed, pixels;
      const std::shared_ptr<TileCache> cache = tile_cache();
      const TileRect whole{size_t(d.tile_width) * d.samples, 0, size_t(d.tile_height), 0,
                           size_t(d.tile_width) * d.samples};
      for (int64_t i = b; i < e; ++i) {
        const size_t k = first + size_t(i);
        uint8_t* dst = w.staging.p + k * cpu_bytes;
        slide_.tiff().tile_rows(ifd_index_, w.tiles[list[k]], cache.get(), whole,
                                [&](uint64_t row, const uint8_t* src, uint64_t rows, uint64_t stride) {
                                  copy_rows(dst + row * whole.row_bytes, whole.row_bytes, src, stride,
                                            whole.row_bytes, rows);
                                },
                                compressed, pixels);
      }
    });
  }

  // The CPU share follows the rates both sides reached: the GPU's over its previous batch (read once that
  // batch is done), the CPU threads' over this one. Each update moves halfway to the share that would have
  // made both finish together.
  void read_gpu_rate() {
    if (!gpu_timed_) return;
    float ms = 0;
    if (cudaEventElapsedTime(&ms, gpu_begin_.get(), gpu_end_.get()) == cudaSuccess && ms > 0)
      gpu_rate_ = double(gpu_timed_) / (ms * 1e-3);
    gpu_timed_ = 0;
  }
  void update_share(size_t cpu_tiles, double cpu_seconds) {
    if (share_fixed_ || cpu_tiles < 4 || cpu_seconds <= 0 || gpu_rate_ <= 0) return;
    const double cpu_rate = double(cpu_tiles) / cpu_seconds;
    cpu_share_ = std::clamp(0.5 * cpu_share_ + 0.5 * cpu_rate / (cpu_rate + gpu_rate_), 0.05, 0.9);
  }

  // How tile `tile` (its complete stream) is decoded: by nvJPEG when its headers promise the CPU codec's
  // result, else on the CPU (which also gives bad data its error).
  Kind classify(const Ifd& d, uint64_t tile, const uint8_t* data, size_t len) const {
    codec::JpegInfo info;
    if (!codec::jpeg_info(data, len, info)) return Kind::Cpu;
    const uint64_t y0 = (tile / d.tiles_across()) * d.tile_height;
    const uint64_t rows = d.tiled ? d.tile_height : std::min<uint64_t>(d.tile_height, d.height - y0);
    if (info.width != d.tile_width || info.height > d.tile_height || info.height < rows) return Kind::Cpu;
    if (info.precision != 8 || info.components != int(d.samples)) return Kind::Cpu;
    if (info.sof != 0xC0 && info.sof != 0xC1 && info.sof != 0xC2) return Kind::Cpu;
    if (engine_->hardware && !hardware_takes(info)) return Kind::Cpu;
    if (d.samples == 1) return Kind::Gray;
    if (d.photometric == photometric::RGB || info.rgb) {
      // RGB data: nvJPEG's planes unchanged, no colour conversion; only when no component is subsampled
      for (int c = 1; c < 3; ++c)
        if (info.sampling[c] != info.sampling[0]) return Kind::Cpu;
      return Kind::Planar3;
    }
    return Kind::Rgbi;
  }

  // Queues one nvJPEG batch; false when nvJPEG refuses it (those tiles then go to the CPU).
  bool decode_batch(Work& w, const std::vector<uint32_t>& ks, int format, nvj::State state, size_t slot_bytes,
                    cudaStream_t s) {
    if (ks.empty()) return true;
    const Ifd& d = ifd();
    const size_t tw = d.tile_width, plane = size_t(d.tile_width) * d.tile_height;
    std::vector<const unsigned char*> data(ks.size());
    std::vector<size_t> lengths(ks.size());
    std::vector<nvj::Image> images(ks.size());
    for (size_t i = 0; i < ks.size(); ++i) {
      data[i] = w.data[ks[i]];
      lengths[i] = w.lengths[ks[i]];
      nvj::Image& im = images[i];
      std::memset(&im, 0, sizeof(im));
      uint8_t* base = w.pixels.p + size_t(ks[i]) * slot_bytes;
      if (format == nvj::kOutputRGBI) {
        im.channel[0] = base, im.pitch[0] = tw * 3;
      } else {
        const int planes = w.kinds[ks[i]] == Kind::Gray ? 1 : 3;
        for (int c = 0; c < planes; ++c) im.channel[c] = base + size_t(c) * plane, im.pitch[c] = tw;
      }
    }
    const nvj::Api& a = api();
    if (a.DecodeBatchedInitialize(engine_->handle, state, int(ks.size()), 1, format) != nvj::kSuccess) return false;
    return a.DecodeBatched(engine_->handle, state, data.data(), lengths.data(), images.data(), s) == nvj::kSuccess;
  }

  static void mark_cpu(Work& w, std::vector<uint32_t>& ks, std::vector<uint32_t>& cpu) {
    for (uint32_t k : ks) w.kinds[k] = Kind::Cpu, cpu.push_back(k);
    ks.clear();
  }

  static void clear_piece(Work& w, const Piece& p) {
    const int64_t begin = p.dst, end = p.dst + (p.h - 1) * p.pitch + p.w * 3;
    if (w.zero_bytes == 0) {
      w.zero_begin = begin, w.zero_bytes = end - begin;
    } else {
      const int64_t b = std::min(w.zero_begin, begin), e = std::max(w.zero_begin + w.zero_bytes, end);
      w.zero_begin = b, w.zero_bytes = e - b;
    }
  }

  // The jobs (and, for regions read on the CPU, their pixels) to the device; then w is ready.
  void upload(Work& w, const std::vector<Piece>& pieces, cudaStream_t s) {
    if (pending_upload_)
      cuda::check(cudaMemcpyAsync(w.pixels.p, w.staging.p, pending_upload_, cudaMemcpyHostToDevice, s),
                  "cudaMemcpyAsync (CPU-decoded regions)");
    const size_t bytes = w.jobs.size() * sizeof(Job);
    if (bytes) {
      w.jobs_host.reserve(bytes);
      w.jobs_dev.reserve(bytes);
      std::memcpy(w.jobs_host.p, w.jobs.data(), bytes);
      cuda::check(cudaMemcpyAsync(w.jobs_dev.p, w.jobs_host.p, bytes, cudaMemcpyHostToDevice, s),
                  "cudaMemcpyAsync (slide jobs)");
    }
    w.ready.record(s);
  }

  const Slide& slide_;
  int device_;
  int ifd_index_ = -1;
  bool gpu_tiles_ = false;
  Engine* engine_ = nullptr;
  std::unique_ptr<States> states_;
  size_t pending_upload_ = 0;
  // share of the nvJPEG-capable tiles of a batch decoded on CPU threads: none unless NDIMG_NVJPEG_CPU_SHARE
  // fixes one, or is "auto" (balanced from the measured rates)
  double cpu_share_ = 0;
  bool share_fixed_ = true;
  Event gpu_begin_{true}, gpu_end_{true};  // around the GPU's decode of gpu_timed_ tiles
  size_t gpu_timed_ = 0;
  double gpu_rate_ = 0;
};

constexpr size_t kBandBytes = size_t(256) << 20;  // tile pixels decoded at once for one region

}  // namespace

// ---------------------------------------------------------------------------------------------- public

void set_nvjpeg_candidates(std::vector<std::string> paths) {
  std::lock_guard<std::mutex> lk(g_load_mutex);
  g_candidates = std::move(paths);
}

std::string nvjpeg_library() { return api().path; }

std::string nvjpeg_backend(int device) { return engine(device).hardware ? "hardware" : "default"; }

void read_region(const Slide& slide, int64_t x, int64_t y, int level, int64_t w, int64_t h, int device, void* out,
                 uintptr_t stream) {
  check_size(w, h);
  check_location(x), check_location(y);
  cuda::DeviceGuard guard(device, "read_region(device='cuda')");
  Decoder dec(slide, level, device);
  const Level& l = slide.levels()[size_t(level)];
  const int64_t lx = slide.cucim_level(level, x), ly = slide.cucim_level(level, y);
  // bands of whole tile rows, each decoded into at most about kBandBytes of tiles
  const int64_t th = l.tile_height, across = (w + l.tile_width - 1) / l.tile_width + 1;
  const int64_t band_tile_rows =
      std::max<int64_t>(1, int64_t(kBandBytes / (size_t(across) * l.tile_width * l.tile_height * 3)));
  auto s = reinterpret_cast<cudaStream_t>(stream);
  auto* o = static_cast<uint8_t*>(out);
  Work work;
  auto first_row = [&](int64_t v) { return v >= 0 ? v / th : -((-v + th - 1) / th); };
  try {
    for (int64_t r0 = ly; r0 < ly + h;) {
      const int64_t r1 = std::min(ly + h, (first_row(r0) + band_tile_rows) * th);
      std::vector<Piece> band{Piece{lx, r0, w, r1 - r0, (r0 - ly) * w * 3, w * 3}};
      dec.prepare(work, band, s);
      Decoder::assemble(work, o, s);
      r0 = r1;
    }
    work.done.wait_host();
  } catch (...) {
    cudaStreamSynchronize(s);  // nothing queued may use `work` once it is freed
    throw;
  }
}

struct GpuPatchLoader::Impl {
  PatchLoader order;  // validation, shuffle and drop_last as on the CPU (it starts no thread of its own)
  std::vector<int64_t> xy;  // level coordinates in delivery order
  int64_t w, h, patch_bytes;
  uint32_t batch_size;
  Decoder dec;
  std::unique_ptr<Stream> side;  // decoding stream of the background thread
  std::vector<std::unique_ptr<Work>> works;  // batch b in works[b % size]
  std::mutex m;
  std::condition_variable cv;
  uint64_t produced = 0, consumed = 0;
  bool stop = false;
  std::thread producer;

  Impl(const Slide& slide, std::vector<int64_t> locations, int level, int64_t w_, int64_t h_, uint32_t bs,
       uint32_t prefetch, uint32_t workers, bool shuffle, uint64_t seed, bool drop_last, int device)
      : order(slide, std::move(locations), level, w_, h_, bs, prefetch, 0, shuffle, seed, drop_last), w(w_), h(h_),
        patch_bytes(w_ * h_ * 3), batch_size(bs), dec(slide, level, device) {
    for (int64_t v : order.locations()) xy.push_back(slide.cucim_level(level, v));
    const bool background = workers > 0 && order.batch_count() > 0;
    works.resize(background && prefetch > 0 && order.batch_count() > 1 ? 2 : 1);
    for (auto& p : works) p = std::make_unique<Work>();
    if (background) {
      side = std::make_unique<Stream>();
      producer = std::thread([this] { produce(); });
    }
  }

  uint32_t count_of(uint64_t b) const {
    return uint32_t(std::min<uint64_t>(batch_size, order.size() - b * batch_size));
  }

  std::vector<Piece> pieces_of(uint64_t b) const {
    std::vector<Piece> p;
    const uint32_t n = count_of(b);
    for (uint32_t i = 0; i < n; ++i) {
      const size_t k = size_t(b * batch_size + i);
      p.push_back(Piece{xy[2 * k], xy[2 * k + 1], w, h, int64_t(i) * patch_bytes, w * 3});
    }
    return p;
  }

  void produce() {
    std::exception_ptr fatal;
    try {
      cuda::check(cudaSetDevice(dec.device()), "cudaSetDevice");
    } catch (...) {
      fatal = std::current_exception();
    }
    std::unique_lock<std::mutex> lk(m);
    for (;;) {
      cv.wait(lk, [&] { return stop || produced >= order.batch_count() || produced < consumed + works.size(); });
      if (stop || produced >= order.batch_count()) return;
      const uint64_t b = produced;
      Work& w = *works[b % works.size()];
      lk.unlock();
      std::exception_ptr err = fatal;
      if (!err) {
        try {
          dec.prepare(w, pieces_of(b), side->get());
        } catch (...) {
          err = std::current_exception();
        }
      }
      lk.lock();
      w.error = err;
      w.count = count_of(b);
      ++produced;
      cv.notify_all();
      if (err) return;  // the consumer rethrows it and stops
    }
  }

  void shutdown() {
    {
      std::lock_guard<std::mutex> lk(m);
      stop = true;
    }
    cv.notify_all();
    if (producer.joinable()) producer.join();
    // nothing queued may still use the buffers when they are freed
    if (side) cudaStreamSynchronize(side->get());
    for (auto& p : works)
      if (p) p->done.wait_host();
  }
};

GpuPatchLoader::GpuPatchLoader(const Slide& slide, std::vector<int64_t> locations, int level, int64_t w, int64_t h,
                               uint32_t batch_size, uint32_t prefetch_factor, uint32_t num_workers, bool shuffle,
                               uint64_t seed, bool drop_last, int device) {
  cuda::DeviceGuard guard(device, "read_region(device='cuda')");
  impl_ = std::make_unique<Impl>(slide, std::move(locations), level, w, h, batch_size, prefetch_factor, num_workers,
                                 shuffle, seed, drop_last, device);
}

GpuPatchLoader::~GpuPatchLoader() {
  try {
    close();
  } catch (...) {
  }
}

uint64_t GpuPatchLoader::size() const { return impl_->order.size(); }
uint64_t GpuPatchLoader::batch_count() const { return impl_->order.batch_count(); }
const std::vector<int64_t>& GpuPatchLoader::locations() const { return impl_->order.locations(); }
int64_t GpuPatchLoader::width() const { return impl_->w; }
int64_t GpuPatchLoader::height() const { return impl_->h; }

uint32_t GpuPatchLoader::next_count() const {
  Impl& d = *impl_;
  std::lock_guard<std::mutex> lk(d.m);
  return d.stop || d.consumed >= d.order.batch_count() ? 0 : d.count_of(d.consumed);
}

uint32_t GpuPatchLoader::next(void* out, uintptr_t stream) {
  Impl& d = *impl_;
  cuda::DeviceGuard guard(d.dec.device(), "read_region(device='cuda')");
  auto s = reinterpret_cast<cudaStream_t>(stream);
  std::unique_lock<std::mutex> lk(d.m);
  if (d.stop || d.consumed >= d.order.batch_count()) return 0;
  const uint64_t b = d.consumed;
  Work& w = *d.works[b % d.works.size()];
  try {
    if (d.producer.joinable()) {
      d.cv.wait(lk, [&] { return d.stop || d.produced > b; });
      if (d.stop) return 0;
      if (w.error) std::rethrow_exception(w.error);
      lk.unlock();
    } else {
      lk.unlock();
      d.dec.prepare(w, d.pieces_of(b), s);
      w.count = d.count_of(b);
    }
    Decoder::assemble(w, static_cast<uint8_t*>(out), s);
  } catch (...) {
    if (lk.owns_lock()) lk.unlock();
    cudaStreamSynchronize(s);  // work queued on it for this batch may still use the loader's buffers
    close();
    throw;
  }
  lk.lock();
  ++d.consumed;
  lk.unlock();
  d.cv.notify_all();
  return w.count;
}

void GpuPatchLoader::close() {
  cuda::DeviceGuard guard(impl_->dec.device(), "close");
  impl_->shutdown();
  impl_->works.clear();
  impl_->side.reset();
}

}  // namespace ndimg::io::gpu
#endif  // NDIMG_WITH_IO

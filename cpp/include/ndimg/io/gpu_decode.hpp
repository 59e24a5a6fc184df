// Slide regions decoded into GPU memory (CuImage.read_region(..., device="cuda")). Built with the CUDA
// engine and the slide reader (NDIMG_WITH_CUDA and NDIMG_WITH_IO).
//
// JPEG tiles are read on CPU threads (positional reads, JPEGTables joined) and decoded in batches by
// nvJPEG -- its hardware engine where the GPU has one (A100, H100, H200, ...), else its default backend --
// into a device tile buffer; a CUDA kernel then copies every tile's part of every requested region into the
// output. Tiles nvJPEG cannot decode exactly as the CPU path does (RGB data with subsampled components,
// 12-bit, 4:1:1 on the hardware engine, a batch nvJPEG refuses) are decoded on CPU threads and uploaded, as
// are whole regions of levels in codecs without a GPU decoder (deflate, LZW, zstd, WebP, JPEG 2000).
// nvJPEG is loaded at run time (dlopen): nothing here needs it to build or to import.
//
// No CUDA types appear here: streams are passed as integers (cudaStream_t values), outputs as device
// pointers to (count, h, w, 3) uint8 C-contiguous arrays allocated by the caller.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ndimg/io/slide.hpp"

namespace ndimg::io::gpu {

// Files to try before the system's libnvjpeg.so.13 / .so.12 / .so (full paths, e.g. from the
// nvidia-nvjpeg wheels); takes effect if nvJPEG has not been loaded yet.
void set_nvjpeg_candidates(std::vector<std::string> paths);
// Loads nvJPEG if needed; returns the file loaded, or throws Error saying what was tried.
std::string nvjpeg_library();
// The nvJPEG backend used on `device` ("hardware" or "default"), creating its handle if needed.
std::string nvjpeg_backend(int device);

// RGB pixels of `level` whose top-left corner is (x, y) in level-0 coordinates into `out` (h*w*3 bytes on
// `device`), 0 outside the level, as read_region_rgb (batch.hpp) gives them. Queued on `stream`; returns
// when the pixels are there.
void read_region(const Slide& slide, int64_t x, int64_t y, int level, int64_t w, int64_t h, int device, void* out,
                 uintptr_t stream);

// PatchLoader (batch.hpp) with batches decoded into device memory. With num_workers > 0, a background thread
// prepares up to two batches ahead (tile bytes read on ndimg's thread pool, decoding queued on a stream of
// its own); next() makes the caller's stream wait for the batch and queues the assembly on it, so the
// output may be used at once in that stream's order. With num_workers == 0 next() does all of it.
class GpuPatchLoader {
 public:
  GpuPatchLoader(const Slide& slide, std::vector<int64_t> locations, int level, int64_t w, int64_t h,
                 uint32_t batch_size, uint32_t prefetch_factor, uint32_t num_workers, bool shuffle, uint64_t seed,
                 bool drop_last, int device);
  ~GpuPatchLoader();
  GpuPatchLoader(const GpuPatchLoader&) = delete;
  GpuPatchLoader& operator=(const GpuPatchLoader&) = delete;

  uint64_t size() const;
  uint64_t batch_count() const;
  const std::vector<int64_t>& locations() const;  // level-0, in delivery order
  int64_t width() const;
  int64_t height() const;
  // Patches in the next batch (0 after the last one or once closed).
  uint32_t next_count() const;
  // Fills `out` (next_count() patches) on `stream`; returns how many, 0 after the last batch. A batch that
  // failed rethrows its error (SlideError for bad tile data) and the loader stops.
  uint32_t next(void* out, uintptr_t stream);
  // Stops the background thread, waits for queued GPU work on the loader's buffers, frees them.
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ndimg::io::gpu

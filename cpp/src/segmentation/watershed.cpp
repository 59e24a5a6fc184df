// Entry of watershed.hpp: validate once, route to the engine of the arrays' device.
#include "segmentation/watershed.hpp"

#include <algorithm>

namespace ndimg::segmentation {

void require_reach(int64_t first, int64_t last, int64_t n, std::span<const int64_t> offsets) {
  // every neighbour of a flooded element (one in the mask, or a marker) must lie inside the buffers: the
  // padding covers the footprint's reach
  int64_t reach = 0;
  for (int64_t o : offsets) reach = std::max(reach, o < 0 ? -o : o);
  if (first <= last && (first - reach < 0 || last + reach >= n))
    throw ValueError("watershed: the footprint's offset leaves neighbours outside the image");
}

void watershed(const View& image, const View& mask, const View& labels, std::span<const int64_t> offsets,
               double compactness, bool watershed_line, StreamHandle stream) {
  const char* op = "watershed";
  for (const View* v : {&image, &mask, &labels})
    if (!v->c_contiguous()) throw ValueError("watershed: buffers must be C-contiguous");
  require_same_shape(image, mask, op);
  require_same_shape(image, labels, op);
  require_same_device(image, mask, op);
  require_same_device(image, labels, op);
  if (image.dtype != DType::F64 || mask.dtype != DType::U8 || labels.dtype != DType::I64)
    throw TypeError("watershed: image float64, mask uint8 and labels int64");
  const int64_t n = image.size();
  if (n == 0) return;
  for (int64_t o : offsets)
    if (o == 0) throw ValueError("watershed: bad neighbour offset");
  if (image.device == Device::CPU) {
    const uint8_t* m = mask.ptr<uint8_t>();
    const int64_t* lab = labels.ptr<int64_t>();
    int64_t first = 0, last = n - 1;
    while (first < n && !m[first] && !lab[first]) ++first;
    while (last >= first && !m[last] && !lab[last]) --last;
    require_reach(first, last, n, offsets);
  }
  // (the CUDA schedule finds the span on the device and checks it before flooding)
  NDIMG_ROUTE(image, op, watershed_cpu(image, mask, labels, offsets, compactness, watershed_line),
              watershed_cuda(image, mask, labels, offsets, compactness, watershed_line, stream));
}

}  // namespace ndimg::segmentation

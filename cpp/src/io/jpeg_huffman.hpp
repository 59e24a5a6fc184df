// Huffman decoding of sequential JPEG scans for libjpeg's decompressor, in place of libjpeg-turbo's own.
// Entropy decoding is about 60% of a slide tile's decode; this one runs it in about 70% of libjpeg-turbo's
// time (an unstuffed copy of the scan read 57 bits at a time without byte checks, and one table lookup
// giving a coefficient's run, length and value together), so a whole tile decodes about 1.2x faster.
// libjpeg-turbo keeps everything else (headers, IDCT, upsampling, colour conversion), and the coefficients
// are the same, so the pixels are too. Damaged data follows libjpeg's rules (zeros past the data, restart
// resynchronisation, 17 bits for a bad code); the one known difference is where libjpeg-turbo's own fast
// path meets a marker inside an MCU and keeps that MCU's first, abandoned decode mixed into its second.
#pragma once
#ifdef NDIMG_WITH_LIBJPEG
#include <memory>

struct jpeg_decompress_struct;

namespace ndimg::io::codec {

class JpegHuffman {
 public:
  JpegHuffman();
  ~JpegHuffman();
  // Call after jpeg_start_decompress on a stream held whole in memory (jpeg_mem_src): takes over the scan's
  // Huffman decoding when it is an 8-bit sequential Huffman scan holding every component (restart markers
  // allowed). False leaves libjpeg's decoder in place (progressive, arithmetic, lossless, 12-bit, ...).
  // The object must outlive the decompression of this image.
  bool take_over(jpeg_decompress_struct* cinfo);

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace ndimg::io::codec
#endif

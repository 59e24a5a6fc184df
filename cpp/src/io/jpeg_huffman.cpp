#ifdef NDIMG_WITH_LIBJPEG
#include "io/jpeg_huffman.hpp"

#include <algorithm>
#include <iterator>
#include <cstdint>
#include <cstdio>  // jpeglib.h needs FILE
#include <cstring>
#include <deque>
#include <vector>

// clang-format off
#include <jpeglib.h>
#include <jpegint.h>  // the entropy decoder's method slot and the input controller (libjpeg's module design)
#include <jerror.h>
// clang-format on

namespace ndimg::io::codec {

namespace {

constexpr int kFastBits = 10;  // measured: 9 and 11 bits were slower (misses longer codes / the L1 cache)

// zigzag index -> natural index; 16 more entries so a corrupt run past 63 lands on 63, as in libjpeg
constexpr int kNatural[64 + 16] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13,
    6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31,
    39, 46, 53, 60, 61, 54, 47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

// F.2.2.1's EXTEND: an s-bit magnitude to its signed value
inline int extend(int v, int s) { return v < (1 << (s - 1)) ? v - (1 << s) + 1 : v; }

// A Huffman table expanded for decoding. fast[] is indexed by the next kFastBits bits of the scan:
//   0: the code is longer (the canonical search below finds it);
//   bit 12 set: the code and its value bits both fit: bits 0-7 = bits taken, 8-11 = zero run, 16-31 = value;
//   else: bits 0-7 = code length, 16-23 = the symbol (its value bits follow in the scan).
struct Table {
  bool ac = false;
  uint8_t bits[17] = {};
  uint8_t vals[256] = {};
  int32_t fast[1 << kFastBits];
  int32_t maxcode[18];    // largest code of each length, -1 when none
  int32_t valoffset[18];  // vals index of a code of that length = code + valoffset

  bool same(const JHUFF_TBL* t, bool a) const {
    return ac == a && std::memcmp(bits, t->bits, sizeof bits) == 0 && std::memcmp(vals, t->huffval, sizeof vals) == 0;
  }
  // libjpeg has validated the table (jpeg_make_d_derived_tbl) before we see it: the codes fit their lengths
  void build(const JHUFF_TBL* t, bool a) {
    ac = a;
    std::memcpy(bits, t->bits, sizeof bits);
    std::memcpy(vals, t->huffval, sizeof vals);
    std::memset(fast, 0, sizeof fast);
    int code = 0, k = 0;
    for (int l = 1; l <= 16; ++l) {
      valoffset[l] = k - code;
      for (int i = 0; i < bits[l]; ++i, ++code, ++k) {
        if (l > kFastBits) continue;
        const int sym = vals[k & 0xff], s = sym & 15, run = ac ? sym >> 4 : 0;
        for (int j = 0; j < 1 << (kFastBits - l); ++j) {
          int32_t e = sym << 16 | l;
          if (s && l + s <= kFastBits) {
            const int v = extend((j >> (kFastBits - l - s)) & ((1 << s) - 1), s);
            e = int32_t(uint32_t(v) << 16) | 1 << 12 | run << 8 | (l + s);
          }
          fast[code << (kFastBits - l) | j] = e;
        }
      }
      maxcode[l] = bits[l] ? code - 1 : -1;
      code <<= 1;
    }
    maxcode[17] = INT32_MAX;
  }
};

// Past the end of the scan's bytes: zeros, as libjpeg feeds; enough for one whole MCU (10 blocks of 64
// codes of at most 16 + 15 bits) and one 8-byte load, since decoding stops after the MCU that ran out.
constexpr size_t kPad = 10 * 64 * 31 / 8 + 16;

inline uint64_t load_be64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}

// MSB-first bit buffer over the unstuffed scan. fill() leaves at least 56 bits, enough for one code and
// its value bits (at most 31), without a branch: it loads 8 bytes and advances by the whole bytes taken.
struct Bits {
  uint64_t buf = 0;
  int count = 0;
  const uint8_t* ptr = nullptr;

  void fill() {
    buf |= load_be64(ptr) >> count;
    ptr += (63 - count) >> 3;
    count |= 56;
  }
  uint32_t peek(int n) const { return uint32_t(buf >> (64 - n)); }
  void skip(int n) {
    buf <<= n;
    count -= n;
  }
  int take(int n) {  // 1 <= n <= 31
    const int v = int(peek(n));
    skip(n);
    return v;
  }
  // a code longer than kFastBits, by the canonical code ranges (libjpeg's jpeg_huff_decode); no code in 16
  // bits is corrupt data: 17 bits and symbol 0, as libjpeg's fast path takes it
  int slow(const Table& t) {
    int l = kFastBits + 1;
    int32_t c = int32_t(peek(l));
    while (l <= 16 && c > t.maxcode[l]) c = int32_t(peek(++l));
    skip(l);
    return l > 16 ? 0 : t.vals[(c + t.valoffset[l]) & 0xff];
  }
  // the symbol of the next code (its value bits not taken)
  int symbol(const Table& t, int32_t e) {
    if (!e) return slow(t);
    skip(e & 0xff);
    return e >> 16 & 0xff;
  }
};

}  // namespace

struct JpegHuffman::State {
  // The scan's entropy-coded bytes, unstuffed, cut at markers into segments, then kPad zeros. Each segment
  // ends at an RSTn, at a marker libjpeg skips while resynchronising (below SOF0), or, the last one, at the
  // marker that ends the scan (EOI when the data just stops: jpeg_mem_src's fake EOI).
  struct Segment {
    size_t begin, end;
    uint8_t marker;
  };
  std::vector<uint8_t> data;
  std::vector<Segment> segments;
  std::vector<uint8_t> tail;      // a segment other than the last, followed by zeros as libjpeg feeds them
  size_t tail_used = 0;
  std::deque<Table> tables;       // kept while the JPEG tables stay the same (a slide's tiles share them)
  static constexpr size_t kKeptTables = 4 * MAX_COMPS_IN_SCAN;  // two images' worth
  const Table* dc[D_MAX_BLOCKS_IN_MCU] = {};
  const Table* ac[D_MAX_BLOCKS_IN_MCU] = {};
  int comp[D_MAX_BLOCKS_IN_MCU] = {};
  int blocks = 0;
  Bits bits;
  const uint8_t* end = nullptr;  // end of the bytes being decoded
  size_t segment = 0;            // the segment whose ending marker comes next
  unsigned restarts_to_go = 0;
  int next_restart = 0;          // n of the RSTn expected next
  int last_dc[MAX_COMPS_IN_SCAN] = {};
  JBLOCK scratch;  // where coefficients go when libjpeg asks to discard them (jpeg_skip_scanlines)

  const Table* find(const JHUFF_TBL* t, bool is_ac) const {
    for (const Table& d : tables)
      if (d.same(t, is_ac)) return &d;
    return nullptr;
  }
  const Table* add(const JHUFF_TBL* t, bool is_ac) {
    tables.emplace_back().build(t, is_ac);
    return &tables.back();
  }

  // decode from segment i's bytes (none: an empty segment, all zeros), with the DC predictions reset
  void enter(size_t i, bool empty = false) {
    segment = i;
    const uint8_t* p = data.data() + data.size() - kPad;
    size_t n = 0;
    if (!empty) {
      const Segment& g = segments[i];
      n = g.end - g.begin;
      p = data.data() + g.begin;
      if (i + 1 < segments.size()) {  // copy it where zeros follow
        std::memset(tail.data(), 0, tail_used);
        std::memcpy(tail.data(), p, n);
        tail_used = n;
        p = tail.data();
      }
    }
    bits = Bits{0, 0, p};
    end = p + n;
    for (int& d : last_dc) d = 0;
  }

  // libjpeg's process_restart with jpeg_resync_to_restart's choices: take the expected RSTn, skip data up to
  // a marker that lies behind, or leave a marker that lies ahead for a later restart (an empty segment)
  void restart(j_decompress_ptr cinfo) {
    const int want = next_restart;
    next_restart = (next_restart + 1) & 7;
    for (size_t i = segment;;) {
      const int m = segments[i].marker, rst = m - 0xd0;
      int action;  // 1: resume after it, 2: skip to the next marker, 3: stop before it
      if (m == 0xd0 + want) action = 1;
      else if (m < 0xc0) action = 2;
      else if (rst < 0 || rst > 7) action = 3;
      else if (rst == ((want + 1) & 7) || rst == ((want + 2) & 7)) action = 3;
      else if (rst == ((want - 1) & 7) || rst == ((want - 2) & 7)) action = 2;
      else action = 1;
      if (action == 2 && i + 1 < segments.size()) {
        ++i;
        continue;
      }
      if (action == 1 && i + 1 < segments.size()) {
        enter(i + 1);
        cinfo->entropy->insufficient_data = FALSE;
      } else {
        enter(i, true);
      }
      return;
    }
  }

  // libjpeg's decode_mcu contract: MCU_data's blocks are zeroed by the caller; only nonzero coefficients
  // are stored, in natural order; MCU_data null means decode and discard
  static boolean decode_mcu(j_decompress_ptr cinfo, JBLOCKROW* MCU_data) {
    State& st = *static_cast<State*>(cinfo->client_data);
    if (cinfo->restart_interval) {
      if (st.restarts_to_go == 0) {
        st.restart(cinfo);
        st.restarts_to_go = cinfo->restart_interval;
      }
      --st.restarts_to_go;
    }
    if (cinfo->entropy->insufficient_data) return TRUE;  // out of data: the rest of the interval stays zero
    Bits b = st.bits;
    for (int n = 0; n < st.blocks; ++n) {
      JCOEF* block = MCU_data ? MCU_data[n][0] : st.scratch;
      const Table& dc = *st.dc[n];
      b.fill();
      int32_t e = dc.fast[b.peek(kFastBits)];
      int diff;
      if (e & 1 << 12) {
        b.skip(e & 0xff);
        diff = e >> 16;
      } else {
        const int s = b.symbol(dc, e) & 15;
        diff = s ? extend(b.take(s), s) : 0;
      }
      int& pred = st.last_dc[st.comp[n]];
      pred = int(unsigned(pred) + unsigned(diff));  // corrupt data may wrap it, as libjpeg's does
      block[0] = JCOEF(pred);
      const Table& ac = *st.ac[n];
      for (int k = 1; k < 64; ++k) {
        b.fill();
        e = ac.fast[b.peek(kFastBits)];
        if (e & 1 << 12) {  // the common case: code and value in one lookup
          k += e >> 8 & 15;
          b.skip(e & 0xff);
          block[kNatural[k]] = JCOEF(e >> 16);
          continue;
        }
        const int rs = b.symbol(ac, e), r = rs >> 4, s = rs & 15;
        if (s) {
          k += r;
          block[kNatural[k]] = JCOEF(extend(b.take(s), s));
        } else if (r == 15) {
          k += 15;  // sixteen zeros
        } else {
          break;  // end of block
        }
      }
    }
    st.bits = b;
    if ((b.ptr - st.end) * 8 - b.count > 0) {  // this MCU used bits past its interval's data: libjpeg's warning
      WARNMS(cinfo, JWRN_HIT_MARKER);
      cinfo->entropy->insufficient_data = TRUE;
    }
    return TRUE;
  }
};

JpegHuffman::JpegHuffman() : state_(std::make_unique<State>()) {}
JpegHuffman::~JpegHuffman() = default;

bool JpegHuffman::take_over(j_decompress_ptr cinfo) {
  // libjpeg-turbo's own decoder stays for progressive, arithmetic, lossless (Se 0), 12-bit and multi-scan
  // images, and for any stream whose data libjpeg has started reading
  if (cinfo->progressive_mode || cinfo->arith_code || cinfo->data_precision != 8 || cinfo->Ss != 0 ||
      cinfo->Se != DCTSIZE2 - 1 || cinfo->Ah != 0 || cinfo->Al != 0 || cinfo->inputctl->has_multiple_scans ||
      cinfo->unread_marker != 0 || cinfo->blocks_in_MCU > D_MAX_BLOCKS_IN_MCU ||
      cinfo->comps_in_scan > MAX_COMPS_IN_SCAN || cinfo->entropy == nullptr || cinfo->src == nullptr)
    return false;
  State& st = *state_;
  const JHUFF_TBL* huff[2][MAX_COMPS_IN_SCAN];  // [0]: DC, [1]: AC
  const Table* kept[2][MAX_COMPS_IN_SCAN];
  size_t missing = 0;
  for (int ci = 0; ci < cinfo->comps_in_scan; ++ci) {
    const jpeg_component_info* c = cinfo->cur_comp_info[ci];
    huff[0][ci] = cinfo->dc_huff_tbl_ptrs[c->dc_tbl_no];
    huff[1][ci] = cinfo->ac_huff_tbl_ptrs[c->ac_tbl_no];
    if (!huff[0][ci] || !huff[1][ci]) return false;
    for (int a = 0; a < 2; ++a) missing += !(kept[a][ci] = st.find(huff[a][ci], a == 1));
  }
  // the kept tables go all at once when this image's would not fit beside them, never one this image uses
  if (st.tables.size() + missing > State::kKeptTables) {
    st.tables.clear();
    for (auto& k : kept) std::fill(std::begin(k), std::end(k), nullptr);
  }
  // a missing table is searched again first: another component of this image may have added it just now
  auto resolve = [&](int a, int ci) {
    if (kept[a][ci]) return kept[a][ci];
    const Table* t = st.find(huff[a][ci], a == 1);
    return t ? t : st.add(huff[a][ci], a == 1);
  };
  const Table* dc[MAX_COMPS_IN_SCAN];
  const Table* ac[MAX_COMPS_IN_SCAN];
  for (int ci = 0; ci < cinfo->comps_in_scan; ++ci) dc[ci] = resolve(0, ci), ac[ci] = resolve(1, ci);
  st.blocks = cinfo->blocks_in_MCU;
  for (int n = 0; n < st.blocks; ++n) {
    const int ci = cinfo->MCU_membership[n];
    if (ci < 0 || ci >= cinfo->comps_in_scan) return false;
    st.comp[n] = ci;
    st.dc[n] = dc[ci];
    st.ac[n] = ac[ci];
  }
  // unstuff the scan: FF 00 is an FF byte, FF fill bytes go, markers end segments (libjpeg's next_marker)
  const uint8_t* p = cinfo->src->next_input_byte;
  const uint8_t* const stop = p + cinfo->src->bytes_in_buffer;
  st.data.resize(size_t(stop - p) + kPad);
  st.segments.clear();
  uint8_t* const out0 = st.data.data();
  uint8_t* out = out0;
  size_t begin = 0;
  uint8_t last = 0xd9;  // the data just stops: jpeg_mem_src's fake EOI
  while (p < stop) {
    const auto* ff = static_cast<const uint8_t*>(std::memchr(p, 0xff, size_t(stop - p)));
    const uint8_t* run_end = ff ? ff : stop;
    std::memcpy(out, p, size_t(run_end - p));
    out += run_end - p;
    p = run_end;
    if (!ff) break;
    const uint8_t* m = ff + 1;
    while (m < stop && *m == 0xff) ++m;
    if (m == stop) {
      p = stop;
      break;
    }
    if (*m == 0) {
      *out++ = 0xff;
    } else if (*m < 0xc0 || (*m >= 0xd0 && *m <= 0xd7)) {
      st.segments.push_back({begin, size_t(out - out0), *m});
      begin = size_t(out - out0);
    } else {
      last = *m;  // the marker after the scan (EOI): libjpeg reads on from there
      break;
    }
    p = m + 1;
  }
  st.segments.push_back({begin, size_t(out - out0), last});
  const size_t n = size_t(out - out0);
  st.data.resize(n + kPad);
  std::memset(st.data.data() + n, 0, kPad);
  size_t longest = 0;
  for (size_t i = 0; i + 1 < st.segments.size(); ++i)
    longest = std::max(longest, st.segments[i].end - st.segments[i].begin);
  st.tail.assign(st.segments.size() > 1 ? longest + kPad : 0, 0);
  st.tail_used = 0;
  cinfo->src->bytes_in_buffer -= size_t(p - cinfo->src->next_input_byte);
  cinfo->src->next_input_byte = p;
  st.restarts_to_go = cinfo->restart_interval;
  st.next_restart = 0;
  st.enter(0);
  cinfo->client_data = &st;
  cinfo->entropy->decode_mcu = State::decode_mcu;
  return true;
}

}  // namespace ndimg::io::codec
#endif

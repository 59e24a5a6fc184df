// Non-local means' per-pixel math, written once for both engines (scikit-image's _nl_means_denoising.pyx):
// the fast form's squared differences of a pixel pair and its weight of a patch distance, and the exact
// form's whole output pixel. Every operation rounds on its own (the _rn helpers), so the engines agree.
#pragma once
#include <cstdint>

#include "restoration/patch.hpp"

namespace ndimg::restoration::nl_math {

using patch_math::fast_exp;
using patch_math::kDistanceCutoff;

// ---- the fast form (float64): boxes of squared differences between the image and its shift ----

// The squared differences of pixels x and y summed over their channels, less the noise's share
// (channels * 2 var): the term the fast form's boxes sum.
NDIMG_HD double pair_term(const double* p, int64_t x, int64_t y, int64_t nch, double nvar2) {
  double dist = 0;
  for (int64_t c = 0; c < nch; ++c) dist = add_rn(dist, square_rn(sub_rn(p[x * nch + c], p[y * nch + c])));
  return sub_rn(dist, nvar2);
}

// A pair's weight of its box sum: false (the pair skipped, not weighted 0: 0 * inf is NaN) past the cut-off.
// A NaN box is not past it and weighs fast_exp(NaN), as in scikit-image.
NDIMG_HD bool pair_weight(double box, double h2s, double alpha, double& w) {
  const double distance = (box < 0.0 ? 0.0 : box) / h2s;
  if (distance > kDistanceCutoff) return false;
  w = mul_rn(alpha, fast_exp(-distance));
  return true;
}

// The shift with index sh of the fast form's (d + 1) * (2d + 1)^(nd - 1) shifts (each pair of pixels once):
// [-d, d] on the leading axes, [0, d] on the last, the last axis fastest. alpha: its pairs' weight share
// (1/2 for shifts along the leading axes only, counted from both of their pixels).
NDIMG_HD double shift_of(int nd, int64_t d, int64_t sh, int64_t* t) {
  t[nd - 1] = sh % (d + 1);
  sh /= d + 1;
  for (int a = nd - 2; a >= 0; --a) {
    t[a] = sh % (2 * d + 1) - d;
    sh /= 2 * d + 1;
  }
  return t[nd - 1] == 0 ? 0.5 : 1.0;
}

// ---- the exact form (the image's float type) ----

struct ExactGeometry {
  int nd = 0;
  int64_t nch = 0, s = 0, dmax = 0;
  int64_t n[3] = {};     // the output's spatial shape
  int64_t ost[3] = {};   // its pixel strides
  int64_t st[3] = {};    // the padded image's pixel strides
  int64_t centre = 0;    // a patch centre's pixel offset from the patch's corner
};

// One output pixel of the exact form: acc[c] (nch values, zeroed by the caller) gets the weighted sum of
// the pixels within dmax of pixel `pix` and the weights' sum is returned. The patch distances run over the
// patch in C order, channels innermost, tested against the cut-off before each index along the first axis;
// the window runs in C order, as in scikit-image.
template <class T>
NDIMG_HD T exact_pixel(const T* p, const T* w, const ExactGeometry& g, T var2, int64_t pix, T* acc) {
  const int nd = g.nd;
  const int64_t nch = g.nch, s = g.s;
  int64_t lo[3], hi[3], y[3], xo = 0;
  for (int a = 0; a < nd; ++a) {
    const int64_t x = (pix / g.ost[a]) % g.n[a];
    lo[a] = x - (g.dmax < x ? g.dmax : x);
    hi[a] = x + (g.dmax + 1 < g.n[a] - x ? g.dmax + 1 : g.n[a] - x);
    if (hi[a] <= lo[a]) return T(0);   // an empty window (a negative distance): 0 / 0 as in scikit-image
    xo += x * g.st[a];
    y[a] = lo[a];
  }
  const int64_t planes = nd == 1 ? 1 : s;         // patch indices along the first axis
  const int64_t plane_rows = nd == 3 ? s : 1;     // rows along the last axis in each
  const T cutoff = T(kDistanceCutoff);
  T wsum = 0;
  while (true) {
    int64_t yo = 0;
    for (int a = 0; a < nd; ++a) yo += y[a] * g.st[a];
    T dist = 0;
    bool cut = false;
    for (int64_t i = 0; i < planes; ++i) {
      if (dist > cutoff) {
        cut = true;
        break;
      }
      for (int64_t r = 0; r < plane_rows; ++r) {
        const int64_t roff = (nd > 1 ? i * g.st[0] : 0) + (nd == 3 ? r * g.st[1] : 0);   // from the corner
        const T* pa = p + (xo + roff) * nch;
        const T* pb = p + (yo + roff) * nch;
        const T* wr = w + (i * plane_rows + r) * s;
        if (nch == 1) {   // the same sums, without the channel loop's overhead
          for (int64_t j = 0; j < s; ++j) dist = add_rn(dist, mul_rn(wr[j], sub_rn(square_rn(sub_rn(pa[j], pb[j])), var2)));
          continue;
        }
        for (int64_t j = 0; j < s; ++j)
          for (int64_t c = 0; c < nch; ++c)
            dist = add_rn(dist, mul_rn(wr[j], sub_rn(square_rn(sub_rn(pa[j * nch + c], pb[j * nch + c])), var2)));
      }
    }
    const double dd = double(dist);
    const T weight = cut ? T(0) : T(fast_exp(-(0.0 < dd ? dd : 0.0)));
    wsum = add_rn(wsum, weight);
    const T* centre = p + (yo + g.centre) * nch;
    for (int64_t c = 0; c < nch; ++c) acc[c] = add_rn(acc[c], mul_rn(weight, centre[c]));
    int a = nd - 1;
    for (; a >= 0; --a) {
      if (++y[a] < hi[a]) break;
      y[a] = lo[a];
    }
    if (a < 0) return wsum;
  }
}

}  // namespace ndimg::restoration::nl_math

namespace ndimg::restoration {
// The exact form's geometry of its padded image (patch_size // 2 either side) and patch weights.
nl_math::ExactGeometry exact_geometry(const View& padded, const View& w, int64_t dmax);

// The engines' schedules (arguments validated by the entries in patch.cpp).
void nl_means_fast_cpu(const View& padded, int64_t patch_size, int64_t distance, double h, double var, const View& out);
void nl_means_cpu(const View& padded, const View& w, int64_t distance, double var, const View& out);
void nl_means_fast_cuda(const View& padded, int64_t patch_size, int64_t distance, double h, double var, const View& out,
                        StreamHandle stream);
void nl_means_cuda(const View& padded, const View& w, int64_t distance, double var, const View& out, StreamHandle stream);
}  // namespace ndimg::restoration

// The per-pixel math of the total-variation denoisers, once for every schedule.
#pragma once
#include <cmath>
#include <cstdint>

#include "ndimg/hd.hpp"
#include "ndimg/restoration.hpp"

namespace ndimg::restoration {

// Chambolle: the dual field p (one component per axis) moves against the gradient g of the current
// estimate and is renormalised: p = (p - tau g) / (1 + tau / weight |g|).
template <class T>
NDIMG_HD T chambolle_scale(T norm, T tau_over_weight) {
  return T(1) + norm * tau_over_weight;
}

// Bregman: the shrinkage of one pixel's (x, y) split variables, isotropic (joint) or per component.
template <class T>
NDIMG_HD void bregman_shrink(T tx, T ty, T lam, bool isotropic, T& dx, T& dy) {
  if (isotropic) {
    const T s = std::sqrt(tx * tx + ty * ty);
    dx = s * lam * tx / (s * lam + 1);
    dy = s * lam * ty / (s * lam + 1);
    return;
  }
  auto soft = [lam](T s) { return s > 1 / lam ? s - 1 / lam : (s < -1 / lam ? s + 1 / lam : T(0)); };
  dx = soft(tx);
  dy = soft(ty);
}

template <class T>
struct BregmanParams {
  T weight, lam, norm;   // lam = 2 weight, norm = weight + 4 lam, in T as scikit-image's
  bool isotropic;
};

// One pixel of scikit-image's Gauss-Seidel sweep: `u` its value before the update, up / lf (and the split
// variables dx_lf, bx_lf, dy_up, by_up) its neighbours above and to the left, already updated this sweep,
// dn / rt the ones below and to the right, not yet. Updates the pixel's dx, dy, bx, by and returns its new
// value, each operation in scikit-image's order.
template <class T>
NDIMG_HD T bregman_pixel(const BregmanParams<T>& p, T u, T up, T dn, T lf, T rt, T dx_lf, T dy_up, T bx_lf, T by_up,
                         T f, T& dx, T& dy, T& bx, T& by) {
  const T ux = rt - u, uy = dn - u;
  const T unew =
      (p.lam * (+dn + up + rt + lf + dx_lf - dx + dy_up - dy - bx_lf + bx - by_up + by) + p.weight * f) / p.norm;
  T dxx, dyy;
  bregman_shrink(ux + bx, uy + by, p.lam, p.isotropic, dxx, dyy);
  dx = dxx;
  dy = dyy;
  bx += ux - dxx;
  by += uy - dyy;
  return unew;
}

// Split Bregman's stopping test: sqrt(S / n) > eps for S the double sum of the n squared updates in raster
// order, scikit-image's. The schedules sum the squares tile by tile, in another order (`any_order`). Both sums
// lie within (n - 1) u S of the exact one (u = 2^-53, the squares nonnegative), so a margin of 8 n u (which
// covers its own roundings) brackets S, and sqrt(x / n) is monotone in x: only where eps falls inside the
// bracket is the raster-order sum, in_order(), needed.
template <class InOrder>
inline bool bregman_rmse_above(double any_order, int64_t n, double eps, const InOrder& in_order) {
  const double dn = double(n);
  auto above = [&](double s) { return std::sqrt(s / dn) > eps; };
  if (any_order == 0) return above(0.0);   // every square is 0, and so is the in-order sum
  const double margin = 8 * dn * 0x1p-53;
  // a product far above the subnormals (rounded relatively), a sum that did not overflow
  if (std::isfinite(any_order) && any_order > 0x1p-900 && margin < 0.5) {
    if (!above(any_order * (1 + margin))) return false;
    if (above(any_order * (1 - margin))) return true;
  }
  return above(in_order());
}

#ifdef NDIMG_WITH_CUDA
// The CUDA schedule of restoration::tv_bregman (arguments validated by the entry); returns the sweeps run.
int64_t tv_bregman_cuda(const View& image, const View& out, double weight, int64_t max_num_iter, double eps,
                        bool isotropic, StreamHandle stream);
#endif

}  // namespace ndimg::restoration

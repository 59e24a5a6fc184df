// The per-pixel math of the total-variation denoisers, once for every schedule.
#pragma once
#include <cmath>

#include "ndimg/hd.hpp"

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

}  // namespace ndimg::restoration

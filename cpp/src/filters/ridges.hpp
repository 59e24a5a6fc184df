// Ridge filters: the math, written once for both engines, the dispatch both schedules share and the
// schedules' declarations. The entries (validation, routing) are in ridges.cpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <span>
#include <type_traits>

#include "core/engine.hpp"
#include "ndimg/hd.hpp"
#include "ndimg/ridges.hpp"

namespace ndimg::filters {

// ---- engine schedules (arguments validated by the entries) ----
double ridge_max_cpu(Ridge kind, std::span<const View> hessian, const RidgeParams& p);
void ridge_accumulate_cpu(Ridge kind, std::span<const View> hessian, const View& acc, const RidgeParams& p);
#ifdef NDIMG_WITH_CUDA
double ridge_max_cuda(Ridge kind, std::span<const View> hessian, const RidgeParams& p, StreamHandle stream);
void ridge_accumulate_cuda(Ridge kind, std::span<const View> hessian, const View& acc, const RidgeParams& p,
                           StreamHandle stream);
#endif

// ---- the math, shared by both engines ----
namespace ridge_math {

template <class C> NDIMG_HD C fabs_(C x) {
  if constexpr (std::is_same_v<C, float>) return ::fabsf(x); else return ::fabs(x);
}
template <class C> NDIMG_HD C sqrt_(C x) {
  if constexpr (std::is_same_v<C, float>) return ::sqrtf(x); else return ::sqrt(x);
}
template <class C> NDIMG_HD C exp_(C x) {
  if constexpr (std::is_same_v<C, float>) return ::expf(x); else return ::exp(x);
}
// numpy.maximum: NaN in either argument gives NaN.
template <class C> NDIMG_HD C nan_max(C a, C b) { return (a >= b || a != a) ? a : b; }

constexpr int n_elems(int n) { return n * (n + 1) / 2; }

// Pointers to the Hessian elements of one call (passed by value to kernels), and one pixel's gather.
template <class T>
struct HessianPtrs {
  const T* h[n_elems(kMaxRidgeDim)];
};
template <class T>
HessianPtrs<T> hessian_ptrs(std::span<const View> h) {
  HessianPtrs<T> hp{};
  for (size_t e = 0; e < h.size(); ++e) hp.h[e] = h[e].ptr<T>();
  return hp;
}
template <int N, class T>
NDIMG_HD void gather(const HessianPtrs<T>& hp, int64_t i, T* h) {
  for (int e = 0; e < n_elems(N); ++e) h[e] = hp.h[e][i];
}

// Eigenvalues of the symmetric N x N matrix whose upper triangle (row-major) is h, in decreasing order.
// N = 2 uses scikit-image's closed form (which its 2-D filters use); larger N use cyclic Jacobi
// rotations, which are backward stable (as LAPACK's eigvalsh that scikit-image calls) also for close or
// repeated eigenvalues, where the closed trigonometric 3x3 formula loses half the digits.
template <int N, class C>
NDIMG_HD void sym_eigvals(const C* h, C* e) {
  if constexpr (N == 1) {
    e[0] = h[0];
  } else if constexpr (N == 2) {
    const C mean = (h[0] + h[2]) / C(2), half = (h[0] - h[2]) / C(2);
    const C r = sqrt_(h[1] * h[1] + half * half);
    e[0] = mean + r;
    e[1] = mean - r;
  } else {
    C a[N][N];
    for (int i = 0, k = 0; i < N; ++i)
      for (int j = i; j < N; ++j, ++k) a[i][j] = a[j][i] = h[k];
    for (int sweep = 0; sweep < 32; ++sweep) {
      bool rotated = false;
      for (int p = 0; p < N - 1; ++p) {
        for (int q = p + 1; q < N; ++q) {
          const C apq = a[p][q];
          // negligible against both diagonal entries: drop it (the classic Jacobi stopping rule)
          const C g = C(100) * fabs_(apq);
          if (fabs_(a[p][p]) + g == fabs_(a[p][p]) && fabs_(a[q][q]) + g == fabs_(a[q][q])) {
            a[p][q] = a[q][p] = C(0);
            continue;
          }
          rotated = true;
          // rotation angle: t = tan(phi) is the smaller root of t^2 + 2 theta t - 1 = 0
          const C theta = (a[q][q] - a[p][p]) / (C(2) * apq);
          const C at = fabs_(theta);
          C t = at > C(1) ? C(1) / (at * (C(1) + sqrt_(C(1) + C(1) / (at * at)))) : C(1) / (at + sqrt_(at * at + C(1)));
          if (theta < C(0)) t = -t;
          const C c = C(1) / sqrt_(t * t + C(1)), s = t * c;
          a[p][p] -= t * apq;
          a[q][q] += t * apq;
          a[p][q] = a[q][p] = C(0);
          for (int r = 0; r < N; ++r) {
            if (r == p || r == q) continue;
            const C arp = a[r][p], arq = a[r][q];
            a[r][p] = a[p][r] = c * arp - s * arq;
            a[r][q] = a[q][r] = s * arp + c * arq;
          }
        }
      }
      if (!rotated) break;
    }
    for (int i = 0; i < N; ++i) e[i] = a[i][i];
    for (int i = 1; i < N; ++i)  // insertion sort, decreasing
      for (int j = i; j > 0 && e[j] > e[j - 1]; --j) {
        const C tmp = e[j];
        e[j] = e[j - 1];
        e[j - 1] = tmp;
      }
  }
}

// Frangi's vesselness (skimage 0.26) from eigenvalues in decreasing order.
template <int N, class C>
NDIMG_HD C frangi(const C* e, C alpha2x2, C beta2x2, C gamma2x2) {
  static_assert(N == 2 || N == 3, "frangi is defined for 2-D and 3-D");
  // by magnitude, ascending; stable, so ties keep the decreasing order (as numpy's argsort of so few)
  C l[N];
  for (int i = 0; i < N; ++i) l[i] = e[i];
  for (int i = 1; i < N; ++i)
    for (int j = i; j > 0 && fabs_(l[j]) < fabs_(l[j - 1]); --j) {
      const C tmp = l[j];
      l[j] = l[j - 1];
      l[j - 1] = tmp;
    }
  C s2 = 0;
  for (int i = 0; i < N; ++i) s2 += l[i] * l[i];
  const C s = sqrt_(s2);
  const C floor = C(1e-10);  // non-ridge polarity: the blobness factor underflows to 0
  C v;
  if constexpr (N == 2) {
    const C l2 = nan_max(l[1], floor);
    const C rb = fabs_(l[0]) / l2;
    v = exp_(-(rb * rb) / beta2x2);
  } else {
    const C l2 = nan_max(l[1], floor), l3 = nan_max(l[2], floor);
    const C ra = l2 / l3, rb = fabs_(l[0]) / sqrt_(l2 * l3);
    v = C(1) - exp_(-(ra * ra) / alpha2x2);
    v *= exp_(-(rb * rb) / beta2x2);
  }
  v *= C(1) - exp_(-(s * s) / gamma2x2);
  return v;
}

// Sato's tubeness without the sigma**2 factor: geometric mean of all but the smallest eigenvalue,
// each clipped at 0.
template <int N, class C>
NDIMG_HD C sato(const C* e) {
  static_assert(N == 2 || N == 3, "sato is defined for 2-D and 3-D");
  if constexpr (N == 2) return nan_max(e[0], C(0));
  else return sqrt_(nan_max(e[0], C(0)) * nan_max(e[1], C(0)));
}

// Meijering's neuriteness before normalisation: l_i = e_i + alpha * sum_{j != i} e_j, the l of largest
// magnitude (the first such), clipped at 0.
template <int N, class C>
NDIMG_HD C meijering(const C* e, C alpha) {
  C best = 0, best_abs = -1;
  for (int i = 0; i < N; ++i) {
    C l = 0;
    for (int j = 0; j < N; ++j) l += (i == j ? C(1) : alpha) * e[j];
    if (fabs_(l) > best_abs || l != l) {
      best = l;
      best_abs = fabs_(l);
      if (l != l) break;  // numpy's argmax stops at the first NaN
    }
  }
  return nan_max(best, C(0));
}

template <int N, class C>
NDIMG_HD C hessian_norm(const C* e) {
  C s2 = 0;
  for (int i = 0; i < N; ++i) s2 += e[i] * e[i];
  return sqrt_(s2);
}

// The constants of one call in the compute type.
template <class C>
struct Consts {
  C alpha2x2, beta2x2, gamma2x2, alpha, norm;
  explicit Consts(const RidgeParams& p)
      : alpha2x2(C(2 * p.alpha * p.alpha)), beta2x2(C(2 * p.beta * p.beta)), gamma2x2(C(2 * p.gamma * p.gamma)),
        alpha(C(p.alpha)), norm(C(p.norm)) {}
};

// The measure of `K` at one pixel, from its Hessian elements (before sato's scale and meijering's norm).
template <Ridge K, int N, class C>
NDIMG_HD C measure(const C* h, const Consts<C>& k) {
  if constexpr (K == Ridge::Frangi && std::is_same_v<C, float>) {
    // float32 Hessians: Frangi's eigenvalues and ratios in double. In float they lost up to ~1e-4 where
    // eigenvalues nearly cancel, 20x scikit-image's float32 error (its LAPACK eigvalsh keeps them)
    double hd[n_elems(N)], e[N];
    for (int i = 0; i < n_elems(N); ++i) hd[i] = h[i];
    sym_eigvals<N>(hd, e);
    return C(frangi<N>(e, double(k.alpha2x2), double(k.beta2x2), double(k.gamma2x2)));
  }
  C e[N];
  sym_eigvals<N>(h, e);
  if constexpr (K == Ridge::Frangi) return frangi<N>(e, k.alpha2x2, k.beta2x2, k.gamma2x2);
  else if constexpr (K == Ridge::Sato) return sato<N>(e);
  else if constexpr (K == Ridge::Meijering) return meijering<N>(e, k.alpha);
  else return hessian_norm<N>(e);
}

// One pixel's fold into the accumulator (type A): the measure with its scale or norm applied.
template <Ridge K, int N, class C, class A>
NDIMG_HD A fold(A acc, const C* h, const Consts<C>& k, A scale, bool fill) {
  const C m = measure<K, N>(h, k);
  A v;
  if constexpr (K == Ridge::Sato) v = scale * A(m);
  else if constexpr (K == Ridge::Meijering) v = A(m / k.norm);
  else v = A(m);
  A r = nan_max(acc, v);
  if (fill && r <= A(0)) r = A(1);
  return r;
}

}  // namespace ridge_math

// ---- validation and dispatch, shared by both schedules ----

// f.template operator()<K, N>() for the kind among Ks and the dimensionality n (already validated).
template <Ridge... Ks, class F>
void dispatch_ridge(Ridge kind, int n, F&& f) {
  bool done = false;
  (
      [&] {
        if (done || kind != Ks) return;
        done = true;
        if (n == 2) f.template operator()<Ks, 2>();
        else if (n == 3) f.template operator()<Ks, 3>();
        else if constexpr (Ks != Ridge::Frangi && Ks != Ridge::Sato) {
          if (n == 1) f.template operator()<Ks, 1>();
          else f.template operator()<Ks, kMaxRidgeDim>();
        }
      }(),
      ...);
}

// f.template operator()<T, A>() for Hessian dtype T and accumulator dtype A (A is T or double).
template <class F>
void dispatch_ridge_types(DType t, DType a, F&& f) {
  if (t == DType::F64) f.template operator()<double, double>();
  else if (a == DType::F32) f.template operator()<float, float>();
  else f.template operator()<float, double>();
}

}  // namespace ndimg::filters

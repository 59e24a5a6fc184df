// The coordinate generators: scikit-image's Cython loops (skimage/draw/_draw.pyx, 0.26) step for step, with
// its C types (int where it declares int, truncating casts where it casts), so the pixels, their order and
// the anti-aliasing values are scikit-image's.
#include <cmath>
#include <cstdlib>
#include <string>

#include "draw/draw.hpp"
#include "ndimg/error.hpp"

namespace ndimg::draw {
namespace {

void push(Coords& out, int64_t r, int64_t c) {
  out.r.push_back(r);
  out.c.push_back(c);
}

void push(Coords& out, int64_t r, int64_t c, double v) {
  push(out, r, c);
  out.val.push_back(v);
}

// A flat rational Bezier segment can step without converging on degenerate input: past this many pixels
// (far beyond any curve within its control points' span) it is refused instead of running on.
void check_steps(const Coords& out, size_t limit) {
  if (out.r.size() > limit) throw ValueError("bezier_curve: the curve does not converge");
}

// skimage's _bezier_segment: a rational quadratic Bezier segment without a gradient sign change.
void bezier_segment(int64_t r0, int64_t c0, int64_t r1, int64_t c1, int64_t r2, int64_t c2, double weight,
                    Coords& out) {
  double sc = double(c2 - c1), sr = double(r2 - r1);
  double d2c = double(c0 - c2), d2r = double(r0 - r2);
  double d1c = double(c0 - c1), d1r = double(r0 - r1);
  double rc = d1c * sr + d1r * sc;
  double cur = d1c * sr - d1r * sc;
  if (cur != 0 && weight > 0) {
    if (sc * sc + sr * sr > d1c * d1c + d1r * d1r) {  // start from the longer part
      c2 = c0;
      c0 -= int64_t(d2c);
      r2 = r0;
      r0 -= int64_t(d2r);
      cur = -cur;
    }
    d1c = 2 * (4 * weight * sc * d1c + d2c * d2c);
    d1r = 2 * (4 * weight * sr * d1r + d2r * d2r);
    sc = c0 < c2 ? 1 : -1;
    sr = r0 < r2 ? 1 : -1;
    rc = -2 * sc * sr * (2 * weight * rc + d2c * d2r);
    if (cur * sc * sr < 0) {
      d1c = -d1c;
      d1r = -d1r;
      rc = -rc;
      cur = -cur;
    }
    d2c = 4 * weight * double(c1 - c0) * sr * cur + d1c / 2 + rc;
    d2r = 4 * weight * double(r0 - r1) * sc * cur + d1r / 2 + rc;
    if (weight < 0.5 && (d2r > rc || d2c < rc)) {  // a flat ellipse: the curve in two halves
      cur = (weight + 1) / 2;
      weight = std::sqrt(weight);
      rc = 1. / (weight + 1);
      sc = std::floor((c0 + 2 * weight * c1 + c2) * rc * 0.5 + 0.5);
      sr = std::floor((r0 + 2 * weight * r1 + r2) * rc * 0.5 + 0.5);
      d2c = std::floor((weight * c1 + c0) * rc + 0.5);
      d2r = std::floor((r1 * weight + r0) * rc + 0.5);
      bezier_segment(r0, c0, int64_t(d2r), int64_t(d2c), int64_t(sr), int64_t(sc), cur, out);
      return;
    }
    const size_t limit = out.r.size() + 64 * size_t(std::abs(r0 - r2) + std::abs(c0 - c2) + std::abs(r1 - r0) +
                                                     std::abs(c1 - c0) + 64);
    double err = d2c + d2r - rc;
    while (d2r <= rc && d2c >= rc) {
      push(out, r0, c0);
      if (c0 == c2 && r0 == r2) return;
      check_steps(out, limit);
      const bool test1 = 2 * err > d2r;
      const bool test2 = 2 * (err + d1r) < -d2r;
      if (2 * err < d2c || test2) {
        r0 += int64_t(sr);
        d2r += rc;
        d2c += d1c;
        err += d2c;
      }
      if (2 * err > d2c || test1) {
        c0 += int64_t(sc);
        d2c += rc;
        d2r += d1r;
        err += d2r;
      }
    }
  }
  // the rest as a straight line, traced with rows and columns swapped as scikit-image does
  Coords rest;
  line(c0, r0, c2, r2, rest);
  out.r.insert(out.r.end(), rest.c.begin(), rest.c.end());
  out.c.insert(out.c.end(), rest.r.begin(), rest.r.end());
}

}  // namespace

void line(int64_t r0, int64_t c0, int64_t r1, int64_t c1, Coords& out) {
  int64_t r = r0, c = c0, dr = std::abs(r1 - r0), dc = std::abs(c1 - c0);
  int64_t sc = (c1 - c) > 0 ? 1 : -1, sr = (r1 - r) > 0 ? 1 : -1;
  const bool steep = dr > dc;
  if (steep) {
    std::swap(c, r);
    std::swap(dc, dr);
    std::swap(sc, sr);
  }
  int64_t d = 2 * dr - dc;
  const size_t base = out.r.size();
  out.r.resize(base + dc + 1);
  out.c.resize(base + dc + 1);
  int64_t* rr = out.r.data() + base;
  int64_t* cc = out.c.data() + base;
  for (int64_t i = 0; i < dc; ++i) {
    rr[i] = steep ? c : r;
    cc[i] = steep ? r : c;
    while (d >= 0) {
      r += sr;
      d -= 2 * dc;
    }
    c += sc;
    d += 2 * dr;
  }
  rr[dc] = r1;
  cc[dc] = c1;
}

void polyline(std::span<const int64_t> r, std::span<const int64_t> c, Coords& out) {
  for (size_t i = 0; i + 1 < r.size(); ++i) line(r[i], c[i], r[i + 1], c[i + 1], out);
}

void line_aa(int64_t r0, int64_t c0, int64_t r1, int64_t c1, Coords& out) {
  // skimage declares the steps and the position C ints (its ends stay Py_ssize_t)
  const int dc = int(std::abs(c0 - c1)), dr = int(std::abs(r0 - r1));
  double err = dc - dr;
  const int sign_c = c0 < c1 ? 1 : -1, sign_r = r0 < r1 ? 1 : -1;
  const double ed = dc + dr == 0 ? 1 : std::sqrt(double(int(uint32_t(dc) * uint32_t(dc) + uint32_t(dr) * uint32_t(dr))));
  int c = int(c0), r = int(r0);
  while (true) {
    push(out, r, c, std::fabs(err - dc + dr) / ed);
    const double err_prime = err;
    const int64_t c_prime = c;
    if (2 * err_prime >= -dc) {
      if (c == c1) break;
      if (err_prime + dr < ed) push(out, int64_t(r) + sign_r, c, std::fabs(err_prime + dr) / ed);
      err -= dr;
      c += sign_c;
    }
    if (2 * err_prime <= dr) {
      if (r == r1) break;
      if (dc - err_prime < ed) push(out, r, c_prime + sign_c, std::fabs(dc - err_prime) / ed);
      err += dc;
      r += sign_r;
    }
  }
  for (double& v : out.val) v = 1. - v;
}

void circle_perimeter(int64_t radius, bool andres, Coords& out) {
  int64_t c = 0, r = radius, d = andres ? radius - 1 : 3 - 2 * radius;
  while (r >= c) {
    for (int64_t v : {r, -r, r, -r, c, -c, c, -c}) out.r.push_back(v);
    for (int64_t v : {c, c, -c, -c, r, r, -r, -r}) out.c.push_back(v);
    if (!andres) {
      if (d < 0) {
        d += 4 * c + 6;
      } else {
        d += 4 * (c - r) + 10;
        r -= 1;
      }
      c += 1;
    } else if (d >= 2 * (c - 1)) {
      d = d - 2 * c;
      c = c + 1;
    } else if (d <= 2 * (radius - r)) {
      d = d + 2 * r - 1;
      r = r - 1;
    } else {
      d = d + 2 * (r - c - 1);
      r = r - 1;
      c = c + 1;
    }
  }
}

void circle_perimeter_aa(int64_t radius, Coords& out) {
  int64_t c = 0, r = radius;
  double dceil = 0, dceil_prev = 0;
  for (int64_t v : {r, c, r, c, -r, -c, -r, -c}) out.r.push_back(v);
  for (int64_t v : {c, r, -c, -r, c, r, -c, -r}) out.c.push_back(v);
  out.val.assign(8, 1.0);
  while (r > c + 1) {
    c += 1;
    dceil = std::sqrt(double(radius * radius - c * c));
    dceil = std::ceil(dceil) - dceil;
    if (dceil < dceil_prev) r -= 1;
    for (int64_t v : {r, r - 1, c, c, r, r - 1, c, c, -r, 1 - r, -c, -c, -r, 1 - r, -c, -c}) out.r.push_back(v);
    for (int64_t v : {c, c, r, r - 1, -c, -c, -r, 1 - r, c, c, r, r - 1, -c, -c, -r, 1 - r}) out.c.push_back(v);
    for (int k = 0; k < 8; ++k) {
      out.val.push_back(1 - dceil);
      out.val.push_back(dceil);
    }
    dceil_prev = dceil;
  }
}

void ellipse_perimeter(int64_t r_o, int64_t c_o, int64_t r_radius, int64_t c_radius, double orientation, Coords& out) {
  const int64_t rd = r_radius * r_radius, cd = c_radius * c_radius;
  if (orientation == 0) {
    int64_t c = -c_radius, r = 0, e2 = rd, err = c * (2 * e2 + c) + e2;
    while (c <= 0) {
      push(out, r_o + r, c_o - c);
      push(out, r_o + r, c_o + c);
      push(out, r_o - r, c_o + c);
      push(out, r_o - r, c_o - c);
      e2 = 2 * err;
      if (e2 >= (2 * c + 1) * rd) {
        c += 1;
        err += (2 * c + 1) * rd;
      }
      if (e2 <= (2 * r + 1) * cd) {
        r += 1;
        err += (2 * r + 1) * cd;
      }
    }
    while (r < r_radius) {
      r += 1;
      push(out, r_o + r, c_o);
      push(out, r_o - r, c_o);
    }
    return;
  }
  const double sin_angle = std::sin(orientation);
  double za = double(cd - rd) * sin_angle;
  double ca = std::sqrt(cd - za * sin_angle);
  double ra = std::sqrt(rd + za * sin_angle);
  const double a = ca + 0.5, b = ra + 0.5;
  za = za * a * b / (ca * ra);
  const int ir0 = int(r_o - b), ic0 = int(c_o - a), ir1 = int(r_o + b), ic1 = int(c_o + a);
  ca = ic1 - ic0;
  ra = ir1 - ir0;
  za = 4 * za * std::cos(orientation);
  double w = ca * ra;
  if (w != 0) w = (w - za) / (w + w);
  const int icd = int(std::floor(ca * w + 0.5)), ird = int(std::floor(ra * w + 0.5));
  bezier_segment(ir0 + ird, ic0, ir0, ic0, ir0, ic0 + icd, 1 - w, out);
  bezier_segment(ir0 + ird, ic0, ir1, ic0, ir1, ic1 - icd, w, out);
  bezier_segment(ir1 - ird, ic1, ir1, ic1, ir1, ic1 - icd, 1 - w, out);
  bezier_segment(ir1 - ird, ic1, ir0, ic1, ir0, ic0 + icd, w, out);
}

void bezier_curve(int64_t r0, int64_t c0, int64_t r1, int64_t c1, int64_t r2, int64_t c2, double weight, Coords& out) {
  int vc = int(c0 - 2 * c1 + c2), vr = int(r0 - 2 * r1 + r2);
  double dc = double(c0 - c1), dr = double(r0 - r1), ww, t, q;
  if (dc * double(c2 - c1) > 0) {
    if (dr * double(r2 - r1) != 0) {
      if (std::fabs(dc * vr) > std::fabs(dr * vc)) {
        c0 = c2;
        c2 = int64_t(dc + c1);
        r0 = r2;
        r2 = int64_t(dr + r1);
      }
    }
    if (c0 == c2 || weight == 1.) {
      t = double(c0 - c1) / vc;
    } else {
      q = std::sqrt(4. * weight * weight * double(c0 - c1) * double(c2 - c1) +
                    double(c2 - c0) * std::floor(double(c2 - c0)));
      if (c1 < c0) q = -q;
      t = (2. * weight * double(c0 - c1) - c0 + c2 + q) / (2. * (1. - weight) * double(c2 - c0));
    }
    q = 1. / (2. * t * (1. - t) * (weight - 1.) + 1.0);
    dc = (t * t * (c0 - 2. * weight * c1 + c2) + 2. * t * (weight * c1 - c0) + c0) * q;
    dr = (t * t * (r0 - 2. * weight * r1 + r2) + 2. * t * (weight * r1 - r0) + r0) * q;
    ww = t * (weight - 1.) + 1.;
    ww *= ww * q;
    weight = ((1. - t) * (weight - 1.) + 1.) * std::sqrt(q);
    vc = int(dc + 0.5);
    vr = int(dr + 0.5);
    dr = (dc - c0) * double(r1 - r0) / double(c1 - c0) + r0;
    bezier_segment(r0, c0, int(dr + 0.5), vc, vr, vc, ww, out);
    dr = (dc - c2) * double(r1 - r2) / double(c1 - c2) + r2;
    r1 = int(dr + 0.5);
    c0 = c1 = vc;
    r0 = vr;
  }
  if (double(r0 - r1) * std::floor(double(r2 - r1)) > 0) {
    if (r0 == r2 || weight == 1) {
      t = double(r0 - r1) / (r0 - 2. * r1 + r2);
    } else {
      q = std::sqrt(4. * weight * weight * double(r0 - r1) * double(r2 - r1) +
                    double(r2 - r0) * std::floor(double(r2 - r0)));
      if (r1 < r0) q = -q;
      t = (2. * weight * double(r0 - r1) - r0 + r2 + q) / (2. * (1. - weight) * double(r2 - r0));
    }
    q = 1. / (2. * t * (1. - t) * (weight - 1.) + 1.);
    dc = (t * t * (c0 - 2. * weight * c1 + c2) + 2. * t * (weight * c1 - c0) + c0) * q;
    dr = (t * t * (r0 - 2. * weight * r1 + r2) + 2. * t * (weight * r1 - r0) + r0) * q;
    ww = t * (weight - 1.) + 1.;
    ww *= ww * q;
    weight = ((1. - t) * (weight - 1.) + 1.) * std::sqrt(q);
    vc = int(dc + 0.5);
    vr = int(dr + 0.5);
    dc = double(c1 - c0) * (dr - r0) / double(r1 - r0) + c0;
    bezier_segment(r0, c0, vr, int(dc + 0.5), vr, vc, ww, out);
    dc = double(c1 - c2) * (dr - r2) / double(r1 - r2) + c2;
    c1 = int(dc + 0.5);
    c0 = vc;
    r0 = r1 = vr;
  }
  bezier_segment(r0, c0, r1, c1, r2, c2, weight * weight, out);
}

}  // namespace ndimg::draw

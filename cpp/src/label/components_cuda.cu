// CUDA schedule of the connected components: union-find with atomicMin on roots (label equivalence); the
// root is the smallest index.
#include "core/cuda.cuh"
#include "core/index.hpp"
#include "label/components.hpp"

namespace ndimg::label {
namespace {

constexpr unsigned kThreads = 256;

template <class I>
__device__ I find_root(const I* par, I i) {
  const volatile I* p = par;
  I r = p[i];
  while (r != i) {
    i = r;
    r = p[i];
  }
  return i;
}
// find_root with path halving: each node on the way is pointed at its grandparent, which keeps the trees
// shallow while the merge runs. Links only ever point to smaller indices and a grandparent stays an ancestor
// whatever concurrent unions do, so the plain store is safe.
template <class I>
__device__ I find_halving(I* par, I i) {
  volatile I* p = par;
  I r = p[i];
  while (r != i) {
    const I g = p[r];
    if (g != r) p[i] = g;
    i = r;
    r = g;
  }
  return i;
}
template <class I>
__device__ void unite(I* par, I a, I b) {
  while (true) {
    a = find_halving(par, a);
    b = find_halving(par, b);
    if (a == b) return;
    if (a > b) { I t = a; a = b; b = t; }
    const I old = atomicMin(&par[b], a);  // hang b's root under a, unless it moved meanwhile
    if (old == b) return;
    b = old;
  }
}

template <class T>
__global__ void classify(const T* in, Layout l, int64_t n, double low, double high, uint8_t* m) {
  NDIMG_GRID_STRIDE(i, n) m[i] = seed_class(in[in_offset(l, i)], low, high);
}
// Each member starts under its face neighbour of smallest index (the one a step back along the outermost
// axis that has one), so most of a component is linked before any union runs (Komura's label equivalence);
// only within tiles of kInitTile along each axis, so no chain is longer than kInitTile per axis and the
// compress pass stays short (long chains made it slower than no init on 4K images).
constexpr int64_t kInitTile = 32;
template <class I>
__global__ void init_parents(const uint8_t* m, Layout l, int64_t n, I* par) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!m[i]) {
      par[i] = I(-1);
      continue;
    }
    int64_t rem = i, step = 1, p = i;
    for (int d = l.ndim - 1; d >= 0; --d) {
      const int64_t c = rem % l.shape[d];
      rem /= l.shape[d];
      if (c % kInitTile && m[i - step]) p = i - step;  // outer axes come later: their neighbour's index is smaller
      step *= l.shape[d];
    }
    par[i] = I(p);
  }
}
template <class I>
__global__ void compress(const uint8_t* m, int64_t n, I* par) {
  NDIMG_GRID_STRIDE(i, n) if (m[i]) find_halving<I>(par, I(i));
}
template <class I>
__global__ void merge_neighbours(const uint8_t* m, Layout l, int64_t n, I* par) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!m[i]) continue;
    int64_t rem = i, step = 1;
    for (int d = l.ndim - 1; d >= 0; --d) {
      const int64_t c = rem % l.shape[d];
      rem /= l.shape[d];
      if (c > 0 && m[i - step]) unite<I>(par, I(i), I(i - step));
      step *= l.shape[d];
    }
  }
}
template <class I>
__global__ void flatten_and_flag(const uint8_t* m, int64_t n, I* par, uint8_t* reach) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!m[i]) continue;
    const I r = find_root<I>(par, I(i));
    par[i] = r;  // concurrent finds read either an older ancestor or the root: both end at the root
    if (m[i] == 2) reach[r] = 1;
  }
}
template <class I>
__global__ void write_kept(const uint8_t* m, const I* par, const uint8_t* reach, Layout l, int64_t n, bool* out) {
  NDIMG_GRID_STRIDE(i, n) out[out_offset(l, i)] = m[i] && reach[find_root<I>(par, I(i))];
}

template <class I>
__global__ void write_roots(const uint8_t* m, const I* par, int64_t n, int64_t* roots) {
  NDIMG_GRID_STRIDE(i, n) roots[i] = m[i] ? int64_t(find_root<I>(par, I(i))) : -1;
}

template <class I>
void seeded(const uint8_t* m, const Layout& l, int64_t n, const View& out, cudaStream_t s, const char* op,
            int64_t* roots) {
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  cuda::Scratch par(n * sizeof(I), s, op), reach(n, s, op);
  cuda::check(cudaMemsetAsync(reach.get<uint8_t>(), 0, n, s), op);
  init_parents<I><<<blocks, kThreads, 0, s>>>(m, l, n, par.get<I>());
  cuda::check_launch(op);
  compress<I><<<blocks, kThreads, 0, s>>>(m, n, par.get<I>());
  cuda::check_launch(op);
  merge_neighbours<I><<<blocks, kThreads, 0, s>>>(m, l, n, par.get<I>());
  cuda::check_launch(op);
  flatten_and_flag<I><<<blocks, kThreads, 0, s>>>(m, n, par.get<I>(), reach.get<uint8_t>());
  cuda::check_launch(op);
  write_kept<I><<<blocks, kThreads, 0, s>>>(m, par.get<I>(), reach.get<uint8_t>(), l, n, out.ptr<bool>());
  cuda::check_launch(op);
  if (roots) {
    write_roots<I><<<blocks, kThreads, 0, s>>>(m, par.get<I>(), n, roots);
    cuda::check_launch(op);
  }
}

}  // namespace

void seeded_components_cuda(const View& in, double low, double high, const View& out, StreamHandle stream,
                            int64_t* roots) {
  const char* op = "seeded_components";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = in.size();
  const Layout l = make_layout(in, out);
  cuda::Scratch m(n, s, op);
  dispatch_dtype(in.dtype, [&]<class T>() {
    classify<T><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(in.ptr<T>(), l, n, low, high, m.get<uint8_t>());
  });
  cuda::check_launch(op);
  if (n < INT32_MAX) seeded<int>(m.get<uint8_t>(), l, n, out, s, op, roots);
  else seeded<long long>(m.get<uint8_t>(), l, n, out, s, op, roots);
}

}  // namespace ndimg::label

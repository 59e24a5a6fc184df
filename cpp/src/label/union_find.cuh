// Union-find on the device, shared by the CUDA schedules (connected components, the watershed's equal-value
// regions): parents in one array, every link to a smaller index, so the root is a set's smallest index.
#pragma once

namespace ndimg::label {

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

}  // namespace ndimg::label

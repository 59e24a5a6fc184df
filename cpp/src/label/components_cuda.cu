// CUDA schedule of the connected components: union-find with atomicMin on roots (label equivalence); the
// root is the smallest index.
#include <climits>
#include <cub/device/device_scan.cuh>
#include <vector>

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
template <class T>
__global__ void classify_nonzero(const T* in, Layout l, int64_t n, uint8_t* m) {
  NDIMG_GRID_STRIDE(i, n) m[i] = nonzero_class(in[in_offset(l, i)]);
}
// The earlier taps of a structure on the device: per tap its offset per axis and its flat step.
struct DeviceTaps {
  const int8_t* offset;  // [tap][axis]
  const int64_t* step;
  int count;
};

// Each member starts under its face neighbour of smallest index (the one a step back along the outermost
// axis that has one), so most of a component is linked before any union runs (Komura's label equivalence);
// only within tiles of kInitTile along each axis, so no chain is longer than kInitTile per axis and the
// compress pass stays short (long chains made it slower than no init on 4K images).
constexpr int64_t kInitTile = 32;
// faces: bit d set where the structure holds the face tap along axis d
template <class I>
__global__ void init_parents(const uint8_t* m, Layout l, int64_t n, uint32_t faces, I* par) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!m[i]) {
      par[i] = I(-1);
      continue;
    }
    int64_t rem = i, step = 1, p = i;
    for (int d = l.ndim - 1; d >= 0; --d) {
      const int64_t c = rem % l.shape[d];
      rem /= l.shape[d];
      if ((faces >> d & 1) && c % kInitTile && m[i - step]) p = i - step;  // outer axes come later: smaller index
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
__global__ void merge_neighbours(const uint8_t* m, Layout l, int64_t n, DeviceTaps taps, I* par) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!m[i]) continue;
    int64_t c[kMaxDim];
    for (int64_t d = l.ndim - 1, rem = i; d >= 0; --d) {
      c[d] = rem % l.shape[d];
      rem /= l.shape[d];
    }
    for (int t = 0; t < taps.count; ++t) {
      const int8_t* o = taps.offset + t * l.ndim;
      bool inside = true;
      for (int d = 0; d < l.ndim; ++d) {
        const int64_t cd = c[d] + o[d];
        inside &= cd >= 0 && cd < l.shape[d];
      }
      const int64_t j = i + taps.step[t];
      if (inside && m[j]) unite<I>(par, I(i), I(j));
    }
  }
}
template <class I>
__global__ void flatten_and_flag(const uint8_t* m, int64_t n, I* par, uint8_t* reach) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!m[i]) continue;
    const I r = find_root<I>(par, I(i));
    par[i] = r;  // concurrent finds read either an older ancestor or the root: both end at the root
    if (reach && m[i] == 2) reach[r] = 1;
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

// The structure's taps on the device (the buffers live as long as the Scratch), and its face-tap bits.
struct TapsOnDevice {
  cuda::Scratch offset, step;
  DeviceTaps taps;
  uint32_t faces = 0;
  TapsOnDevice(const std::vector<Tap>& t, int ndim, const int64_t* shape, cudaStream_t s, const char* op)
      : offset(t.size() * ndim, s, op), step(t.size() * sizeof(int64_t), s, op) {
    std::vector<int8_t> o(t.size() * ndim);
    std::vector<int64_t> st(t.size());
    for (size_t k = 0; k < t.size(); ++k) {
      int64_t stride = 1, nonzero = 0, axis = 0;
      for (int d = ndim - 1; d >= 0; --d) {
        o[k * ndim + d] = t[k][d];
        st[k] += t[k][d] * stride;
        stride *= shape[d];
        if (t[k][d]) ++nonzero, axis = d;
      }
      if (nonzero == 1) faces |= 1u << axis;  // earlier taps: a lone nonzero offset is -1
    }
    if (!t.empty()) {
      cuda::check(cudaMemcpyAsync(offset.get<int8_t>(), o.data(), o.size(), cudaMemcpyHostToDevice, s), op);
      cuda::check(cudaMemcpyAsync(step.get<int64_t>(), st.data(), st.size() * sizeof(int64_t), cudaMemcpyHostToDevice, s), op);
      cuda::check(cudaStreamSynchronize(s), op);  // the host vectors go out of scope
    }
    taps = DeviceTaps{offset.get<int8_t>(), step.get<int64_t>(), int(t.size())};
  }
};

// Union-find over the classes m joined by the taps, flattened: par[i] = the root of i (its smallest index).
template <class I>
void connect(const uint8_t* m, const Layout& l, int64_t n, const TapsOnDevice& t, I* par, uint8_t* reach,
             cudaStream_t s, const char* op) {
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  init_parents<I><<<blocks, kThreads, 0, s>>>(m, l, n, t.faces, par);
  cuda::check_launch(op);
  compress<I><<<blocks, kThreads, 0, s>>>(m, n, par);
  cuda::check_launch(op);
  merge_neighbours<I><<<blocks, kThreads, 0, s>>>(m, l, n, t.taps, par);
  cuda::check_launch(op);
  flatten_and_flag<I><<<blocks, kThreads, 0, s>>>(m, n, par, reach);
  cuda::check_launch(op);
}

template <class I>
void seeded(const uint8_t* m, const Layout& l, int64_t n, const View& out, cudaStream_t s, const char* op,
            int64_t* roots) {
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  cuda::Scratch par(n * sizeof(I), s, op), reach(n, s, op);
  cuda::check(cudaMemsetAsync(reach.get<uint8_t>(), 0, n, s), op);
  TapsOnDevice taps(face_taps(l.ndim), l.ndim, l.shape, s, op);
  connect<I>(m, l, n, taps, par.get<I>(), reach.get<uint8_t>(), s, op);
  write_kept<I><<<blocks, kThreads, 0, s>>>(m, par.get<I>(), reach.get<uint8_t>(), l, n, out.ptr<bool>());
  cuda::check_launch(op);
  if (roots) {
    write_roots<I><<<blocks, kThreads, 0, s>>>(m, par.get<I>(), n, roots);
    cuda::check_launch(op);
  }
}

// label: out = 1 at the roots of members, then its inclusive scan (a root's number), then every member
// takes its root's number. Roots are only read in the last pass, the other elements only written.
template <class O>
__global__ void root_flags(const uint8_t* m, const O* par, int64_t n, O* out) {
  NDIMG_GRID_STRIDE(i, n) out[i] = m[i] && par[i] == O(i);
}
template <class O>
__global__ void take_numbers(const uint8_t* m, const O* par, int64_t n, O* out) {
  NDIMG_GRID_STRIDE(i, n) {
    if (!m[i]) out[i] = 0;
    else if (par[i] != O(i)) out[i] = out[par[i]];
  }
}

template <class O>
int64_t label_into(const uint8_t* m, const Layout& l, int64_t n, const TapsOnDevice& taps, O* out, cudaStream_t s,
                   const char* op) {
  const unsigned blocks = cuda::blocks_for(n, kThreads);
  cuda::Scratch par(n * sizeof(O), s, op);
  connect<O>(m, l, n, taps, par.get<O>(), nullptr, s, op);
  root_flags<O><<<blocks, kThreads, 0, s>>>(m, par.get<O>(), n, out);
  cuda::check_launch(op);
  size_t temp_bytes = 0;
  cuda::check(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, out, out, n, s), op);
  {
    cuda::Scratch temp(temp_bytes, s, op);
    cuda::check(cub::DeviceScan::InclusiveSum(temp.get<void>(), temp_bytes, out, out, n, s), op);
  }
  O count = 0;
  cuda::check(cudaMemcpyAsync(&count, out + n - 1, sizeof(O), cudaMemcpyDeviceToHost, s), op);
  take_numbers<O><<<blocks, kThreads, 0, s>>>(m, par.get<O>(), n, out);
  cuda::check_launch(op);
  cuda::check(cudaStreamSynchronize(s), op);
  return int64_t(count);
}

// find_objects: atomics only at the ends of runs of one label along the last axis
template <class T>
__global__ void boxes_kernel(const T* labels, Layout l, int64_t n, int64_t max_label, long long* box) {
  NDIMG_GRID_STRIDE(i, n) {
    const T v = labels[in_offset(l, i)];
    const int64_t k = box_index(v, max_label);
    if (k < 0) continue;
    const int last = l.ndim - 1;
    const int64_t x = i % l.shape[last];
    const bool starts = x == 0 || labels[in_offset(l, i - 1)] != v;
    const bool ends = x == l.shape[last] - 1 || labels[in_offset(l, i + 1)] != v;
    long long* lo = box + k * 2 * l.ndim;
    long long* hi = lo + l.ndim;
    if (starts) {
      for (int64_t d = last, rem = i; d >= 0; --d) {
        const long long c = rem % l.shape[d];
        rem /= l.shape[d];
        atomicMin(lo + d, c);
        if (d < last) atomicMax(hi + d, c);
      }
    }
    if (ends) atomicMax(hi + last, (long long)x);
  }
}
__global__ void boxes_init(int64_t count, int nd, long long* box) {
  NDIMG_GRID_STRIDE(i, count) box[i] = (i / nd) % 2 == 0 ? LLONG_MAX : -1;
}
__global__ void boxes_absent(int64_t max_label, int nd, long long* box) {
  NDIMG_GRID_STRIDE(k, max_label) {
    if (box[k * 2 * nd] == LLONG_MAX)
      for (int d = 0; d < nd; ++d) box[k * 2 * nd + d] = -1;
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

int64_t label_cuda(const View& in, const std::vector<Tap>& taps, const View& out, StreamHandle stream) {
  const char* op = "label";
  cuda::DeviceGuard guard(in.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = in.size();
  const Layout l = make_layout(in, out);
  cuda::Scratch m(n, s, op);
  dispatch_dtype(in.dtype, [&]<class T>() {
    classify_nonzero<T><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(in.ptr<T>(), l, n, m.get<uint8_t>());
  });
  cuda::check_launch(op);
  TapsOnDevice t(taps, l.ndim, l.shape, s, op);
  if (out.dtype == DType::I32) return label_into<int>(m.get<uint8_t>(), l, n, t, out.ptr<int>(), s, op);
  return label_into<long long>(m.get<uint8_t>(), l, n, t, reinterpret_cast<long long*>(out.ptr<int64_t>()), s, op);
}

void find_objects_cuda(const View& labels, int64_t max_label, const View& boxes, StreamHandle stream) {
  const char* op = "find_objects";
  cuda::DeviceGuard guard(labels.device_id, op);
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t n = labels.size(), nd = labels.ndim;
  auto* box = reinterpret_cast<long long*>(boxes.ptr<int64_t>());
  boxes_init<<<cuda::blocks_for(max_label * 2 * nd, kThreads), kThreads, 0, s>>>(max_label * 2 * nd, int(nd), box);
  cuda::check_launch(op);
  if (n > 0) {
    const Layout l = make_layout(labels, labels);
    dispatch_dtype(labels.dtype, [&]<class T>() {
      boxes_kernel<T><<<cuda::blocks_for(n, kThreads), kThreads, 0, s>>>(labels.ptr<T>(), l, n, max_label, box);
    });
    cuda::check_launch(op);
  }
  boxes_absent<<<cuda::blocks_for(max_label, kThreads), kThreads, 0, s>>>(max_label, int(nd), box);
  cuda::check_launch(op);
}

}  // namespace ndimg::label

"""Spectral clustering of scikit-image's coins, on the CPU (NumPy) or the GPU (CuPy), as one code path.

    python examples/coins_segmentation.py [--device cpu|gpu|both] [--scales 0.1,0.2,...] [--out DIR]
                                          [--figure-scale 0.2] [--clusters 25]

The steps of scikit-learn's "Segmenting the picture of greek coins in regions" example, written over the
array namespace xp (NumPy or CuPy) so that the same code runs on either device:

1. ndimg smooths the picture (filters.gaussian, sigma 2) and shrinks it (transform.rescale): ndimg's CPU
   engine for NumPy arrays, its CUDA engine for CuPy arrays.
2. The 4-neighbour pixel graph as a sparse matrix of the namespace (scipy.sparse or cupyx.scipy.sparse):
   edge weights exp(-beta |gradient| / std) + eps.
3. The spectral embedding: the eigenvectors of the symmetric normalized adjacency M = D^-1/2 A D^-1/2 with the
   largest eigenvalues (the normalized Laplacian's smallest), scaled by D^-1/2 (a diffusion map), by a
   multilevel Chebyshev-filtered subspace iteration: a dense eigh of the coarsest image of a pyramid of
   halved scales, then at each finer scale the coarse vectors interpolated (ndimg's transform.resize) and
   refined by Chebyshev polynomials of M (sparse matrix times block) and Rayleigh-Ritz (QR, small eigh).
   No factorization and no host round trip: with CuPy every step runs on the GPU (cuSPARSE products,
   cuSOLVER's QR and eigh, CuPy kernels); only scalars (residuals, the filter's cut) come back.
4. k-means on the embedding: Lloyd's iterations in xp with k-means++ seeding driven by a seeded NumPy
   Generator, the best of a few starts (the same draws on either device).

scikit-learn's spectral_clustering and KMeans are not used: neither takes CuPy arrays (their Array API
support does not cover them), and a single code path is the point of the demonstration.

Writes OUT/coins_segmentation.png (the segmentation at --figure-scale, per device), OUT/coins_timing.png
(seconds against pixels, per device) and OUT/coins_timing.md, and prints the size from which the GPU is
faster than the CPU at every larger scale.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

import ndimg

BETA, EPS = 10.0, 1e-6     # scikit-learn's example: the graph's weights exp(-BETA grad / std) + EPS
COARSEST = 300             # pixels of the pyramid's top, solved densely
EXTRA = 15                 # block vectors beyond the k wanted: the last Ritz value sets the filter's cut
DEGREE = 40                # the Chebyshev polynomial's degree per subspace iteration
TOL, MAX_ITER = 1e-5, 40   # Ritz residual of the k wanted vectors that ends a level; its iteration cap
STALL = 0.75               # ... as does a residual that fell by less than this (near ties at the k-th vector)


def namespace(device):
    """(xp, sparse) of a device: NumPy and scipy.sparse, or CuPy and cupyx.scipy.sparse."""
    if device == "cpu":
        import scipy.sparse

        return np, scipy.sparse
    import cupy
    import cupyx.scipy.sparse

    return cupy, cupyx.scipy.sparse


def pixel_graph(image, xp, sparse):
    """The symmetric 4-neighbour graph of a 2-D image (CSR), weighted by the absolute intensity step."""
    h, w = image.shape
    idx = xp.arange(h * w).reshape(h, w)
    src = xp.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    dst = xp.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    grad = xp.abs(xp.concatenate([(image[:, 1:] - image[:, :-1]).ravel(), (image[1:, :] - image[:-1, :]).ravel()]))
    weight = xp.exp(-BETA * grad / grad.std()) + EPS
    rows, cols = xp.concatenate([src, dst]), xp.concatenate([dst, src])
    return sparse.coo_matrix((xp.concatenate([weight, weight]), (rows, cols)), shape=(h * w, h * w)).tocsr()


def normalized_adjacency(graph, xp, sparse):
    """(D^-1/2 A D^-1/2, sqrt of the degrees) of a graph."""
    d = xp.sqrt(xp.asarray(graph.sum(axis=1)).ravel())
    scale = sparse.diags([1 / d], [0], format="csr")
    return scale @ graph @ scale, d


def rayleigh_ritz(m, x, xp):
    """(Ritz values descending, Ritz vectors, M times them) of M on the span of the block x."""
    q, _ = xp.linalg.qr(x)
    mq = m @ q
    w, v = xp.linalg.eigh(q.T @ mq)
    return w[::-1], q @ v[:, ::-1], mq @ v[:, ::-1]


def chebyshev(m, x, degree, cut, sparse):
    """T_degree of M applied to x, scaled so that M's eigenvalues in [-1, cut] are damped below those above
    (the three-term recurrence in the form that keeps the block's size near one)."""
    e, c = (cut + 1) / 2, (cut - 1) / 2        # [-1, cut] -> [-1, 1]
    b = (m - c * sparse.identity(m.shape[0], format="csr")) * (1 / e)
    sigma = first = e / (1 - c)
    y = (b @ x) * first
    for _ in range(1, degree):
        nxt = 1 / (2 / first - sigma)
        z = b @ y
        z *= 2 * nxt
        x *= sigma * nxt
        z -= x
        y, x, sigma = z, y, nxt
    return y


def spectral_embedding(levels, k, xp, sparse):
    """k eigenvectors of M = D^-1/2 A D^-1/2 with the largest eigenvalues, as a diffusion map (rows: pixels),
    for the finest of `levels` (images of halving scale, finest first).

    They crowd just below 1 (one per nearly separate region), so Krylov iterations on M alone converge
    slowly. Each level starts from the one above it instead, where the same regions already have their
    vectors: interpolated, they are wrong only near region boundaries, which a few Chebyshev filters of
    M (damping the eigenvalues below the block's last Ritz value) and Rayleigh-Ritz steps correct."""
    b = k + EXTRA
    for level, image in enumerate(reversed(levels)):
        m, d = normalized_adjacency(pixel_graph(image, xp, sparse), xp, sparse)
        if level == 0:
            _, x = xp.linalg.eigh(m.toarray())
            x = x[:, ::-1][:, :b]
        else:
            x = ndimg.transform.resize(diffusion, image.shape + (b,), order=1, mode="edge",
                                       anti_aliasing=False).reshape(-1, b) * d[:, None]
            previous = np.inf
            for _ in range(MAX_ITER):
                w, x, mx = rayleigh_ritz(m, x, xp)
                res = float(xp.linalg.norm(mx[:, :k] - x[:, :k] * w[:k], axis=0).max())
                if res < TOL or res > STALL * previous:
                    break
                previous = res
                x = chebyshev(m, x, DEGREE, float(w[-1]), sparse)
        diffusion = (x / d[:, None]).reshape(image.shape + (b,))
    vecs = diffusion.reshape(-1, b)[:, :k]
    # a sign per vector, so that the two devices' eigen-solvers give the same embedding
    sign = xp.sign(vecs[xp.argmax(xp.abs(vecs), axis=0), xp.arange(k)])
    return vecs * sign


def kmeans(x, k, xp, rng, starts=4, iterations=100, tol=1e-4):
    """Labels of Lloyd's k-means with k-means++ seeding, the lowest inertia of `starts` runs. A run ends when
    the centres move less than tol times the data's variance (scikit-learn's rule)."""
    n = x.shape[0]
    sq = (x * x).sum(axis=1)
    bound = tol * float(x.var(axis=0).mean())
    best, best_inertia = None, np.inf
    for _ in range(starts):
        # k-means++: each next centre drawn with probability d2 by inverting the cumulative sum on the device
        draws = xp.asarray(rng.random(k))
        picks = [xp.asarray([int(rng.integers(n))])]
        d2 = ((x - x[picks[0]]) ** 2).sum(axis=1)
        for j in range(1, k):
            cum = xp.cumsum(d2)
            picks.append(xp.minimum(xp.searchsorted(cum, cum[-1:] * draws[j]), n - 1))
            d2 = xp.minimum(d2, ((x - x[picks[-1]]) ** 2).sum(axis=1))
        centres = x[xp.concatenate(picks)]
        for _ in range(iterations):
            dist = sq[:, None] - 2 * x @ centres.T + (centres * centres).sum(axis=1)[None, :]
            labels = xp.argmin(dist, axis=1)
            onehot = (labels[:, None] == xp.arange(k)[None, :]).astype(x.dtype)
            counts = onehot.sum(axis=0)
            moved = xp.where(counts[:, None] > 0, (onehot.T @ x) / xp.maximum(counts, 1)[:, None], centres)
            shift, centres = float(((moved - centres) ** 2).sum()), moved
            if shift <= bound:
                break
        dist = sq[:, None] - 2 * x @ centres.T + (centres * centres).sum(axis=1)[None, :]
        labels = xp.argmin(dist, axis=1)
        inertia = float(xp.maximum(dist.min(axis=1), 0).sum())
        if inertia < best_inertia:
            best, best_inertia = labels, inertia
    return best


def segment(image, scale, device="cpu", clusters=25, seed=0):
    """(labels, rescaled image) of the coins picture (a NumPy array) at `scale`, computed on `device`;
    both NumPy arrays."""
    xp, sparse = namespace(device)
    smooth = ndimg.filters.gaussian(xp.asarray(image), sigma=2)
    levels = [ndimg.transform.rescale(smooth, scale, mode="reflect", anti_aliasing=False)]
    while levels[-1].size > COARSEST:
        levels.append(ndimg.transform.rescale(smooth, scale / 2 ** len(levels), mode="reflect",
                                              anti_aliasing=False))
    embedding = spectral_embedding(levels, clusters, xp, sparse)
    labels = kmeans(embedding, clusters, xp, np.random.default_rng(seed))
    host = (lambda a: a.get()) if xp is not np else np.asarray
    return host(labels).reshape(levels[0].shape), host(levels[0])


def timed(image, scale, device, clusters):
    t0 = time.perf_counter()
    out = segment(image, scale, device, clusters)  # ends with the copy to the host: the GPU is done
    return time.perf_counter() - t0, out


def crossover(rows):
    """(scale, pixels) from which the GPU beats the CPU at every larger scale; None: it never does."""
    found = None
    for scale, pixels, t in rows:
        found = (found or (scale, pixels)) if t["gpu"] < t["cpu"] else None
    return found


def figures(image, results, rows, devices, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(devices), figsize=(5 * len(devices), 4.4), squeeze=False)
    for ax, dev in zip(axes.flat, devices):
        labels, small = results[dev]
        ax.imshow(small, cmap="gray")
        for lab in range(labels.max() + 1):
            ax.contour(labels == lab, levels=[0.5], colors=[plt.cm.nipy_spectral(lab / (labels.max() + 1))])
        ax.set_title(f"{dev}: {labels.max() + 1} clusters, {small.shape[0]}x{small.shape[1]}")
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "coins_segmentation.png"), dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 4))
    for dev in devices:
        pts = sorted((pixels, t[dev]) for _, pixels, t in rows if dev in t)
        ax.loglog(*zip(*pts), marker="o", label=dev)
    ax.set_xlabel("pixels")
    ax.set_ylabel("seconds")
    ax.set_title("coins spectral clustering: time against size")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "coins_timing.png"), dpi=110)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", choices=("cpu", "gpu", "both"), default="both")
    ap.add_argument("--scales", default="0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0")
    ap.add_argument("--figure-scale", type=float, default=0.2)
    ap.add_argument("--clusters", type=int, default=25)
    ap.add_argument("--out", default="demo-out")
    args = ap.parse_args(argv)

    import skimage.data

    image = skimage.data.coins()
    devices = ["cpu", "gpu"] if args.device == "both" else [args.device]
    os.makedirs(args.out, exist_ok=True)
    for dev in devices:   # warm-up: imports, kernel compilation
        segment(image, 0.1, dev, args.clusters)
    rows = []
    for scale in map(float, args.scales.split(",")):
        t = {}
        for dev in devices:
            t[dev], (labels, small) = timed(image, scale, dev, args.clusters)
        rows.append((scale, small.size, t))
        print(f"scale {scale:.2f} {small.shape[0]:4d}x{small.shape[1]:<4d} "
              + "  ".join(f"{dev} {t[dev]:8.3f} s" for dev in devices), flush=True)
    results = {dev: segment(image, args.figure_scale, dev, args.clusters) for dev in devices}
    figures(image, results, rows, devices, args.out)
    with open(os.path.join(args.out, "coins_timing.md"), "w") as f:
        f.write("| scale | pixels | " + " | ".join(f"{d} (s)" for d in devices) + " |\n"
                + "|---:|---:|" + "---:|" * len(devices) + "\n"
                + "".join(f"| {s:.2f} | {p} | " + " | ".join(f"{t[d]:.3f}" for d in devices) + " |\n"
                          for s, p, t in rows))
    if len(devices) == 2:
        found = crossover(rows)
        print(f"GPU faster than the CPU from scale {found[0]:.2f} ({found[1]} pixels) up" if found
              else "GPU faster than the CPU at no scale measured")
    print(f"wrote {args.out}/coins_segmentation.png, coins_timing.png, coins_timing.md")


if __name__ == "__main__":
    main()

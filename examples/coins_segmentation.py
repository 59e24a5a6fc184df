"""Spectral clustering of scikit-image's coins, on the CPU (NumPy) or the GPU (CuPy), as one code path.

    python examples/coins_segmentation.py [--device cpu|gpu|both] [--scales 0.1,0.2,...] [--out DIR]
                                          [--figure-scale 0.2] [--clusters 25]

The steps of scikit-learn's "Segmenting the picture of greek coins in regions" example, written over the
array namespace xp (NumPy or CuPy) so that the same code runs on either device:

1. ndimg smooths the picture (filters.gaussian, sigma 2) and shrinks it (transform.rescale): ndimg's CPU
   engine for NumPy arrays, its CUDA engine for CuPy arrays.
2. The 4-neighbour pixel graph as a sparse matrix of the namespace (scipy.sparse or cupyx.scipy.sparse):
   edge weights exp(-beta |gradient| / std) + eps.
3. The spectral embedding: the eigenvectors of the symmetric normalized adjacency D^-1/2 A D^-1/2 with the
   largest eigenvalues (the normalized Laplacian's smallest), by the namespace's sparse Lanczos eigen-solver
   (scipy.sparse.linalg.eigsh or cupyx.scipy.sparse.linalg.eigsh) in shift-invert mode through the
   namespace's sparse LU (splu; cupyx factorizes on the host with SciPy and solves on the GPU), scaled by
   D^-1/2 (a diffusion map).
4. k-means on the embedding: Lloyd's iterations in xp with k-means++ seeding from a seeded NumPy Generator,
   the best of a few starts (deterministic on either device).

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
SHIFT = 1 + 1e-5           # the eigen-solver's shift, just above M's largest eigenvalue (1)


def namespace(device):
    """(xp, sparse, sparse.linalg) of a device: NumPy and SciPy's, or CuPy and cupyx's."""
    if device == "cpu":
        import scipy.sparse
        import scipy.sparse.linalg

        return np, scipy.sparse, scipy.sparse.linalg
    import cupy
    import cupyx.scipy.sparse
    import cupyx.scipy.sparse.linalg

    return cupy, cupyx.scipy.sparse, cupyx.scipy.sparse.linalg


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


def spectral_embedding(graph, k, xp, sparse, linalg, rng):
    """k eigenvectors of M = D^-1/2 A D^-1/2 with the largest eigenvalues, as a diffusion map (rows: pixels).

    They crowd just below 1 (one per nearly separate region), where Lanczos on M converges slowly: it runs
    on (SHIFT I - M)^-1 instead, whose eigenvalues 1 / (SHIFT - lambda) spread them apart. The namespace's
    sparse LU (splu: SuperLU, whose triangular solves cupyx runs on the GPU) applies the inverse."""
    n = graph.shape[0]
    d = xp.sqrt(xp.asarray(graph.sum(axis=1)).ravel())
    scale = sparse.diags([1 / d], [0], format="csr")
    m = scale @ graph @ scale
    lu = linalg.splu((SHIFT * sparse.identity(n, format="csr") - m).tocsc())
    op = linalg.LinearOperator((n, n), matvec=lu.solve, dtype=m.dtype)
    _, vecs = linalg.eigsh(op, k=k, which="LA", v0=xp.asarray(rng.uniform(-1, 1, n)), tol=1e-7)
    vecs = vecs / d[:, None]
    # a sign per vector, so that the two devices' eigen-solvers give the same embedding
    sign = xp.sign(vecs[xp.argmax(xp.abs(vecs), axis=0), xp.arange(k)])
    return vecs * sign


def kmeans(x, k, xp, rng, starts=4, iterations=100):
    """Labels of Lloyd's k-means with k-means++ seeding, the lowest inertia of `starts` runs."""
    n = x.shape[0]
    sq = (x * x).sum(axis=1)
    best, best_inertia = None, np.inf
    for _ in range(starts):
        picks = [int(rng.integers(n))]
        d2 = ((x - x[picks[0]]) ** 2).sum(axis=1)
        for _ in range(1, k):
            cum = xp.cumsum(d2)
            at = xp.searchsorted(cum, xp.asarray([float(cum[-1]) * rng.random()]))
            picks.append(min(int(at[0]), n - 1))
            d2 = xp.minimum(d2, ((x - x[picks[-1]]) ** 2).sum(axis=1))
        centres, labels = x[xp.asarray(picks)], None
        for _ in range(iterations):
            dist = sq[:, None] - 2 * x @ centres.T + (centres * centres).sum(axis=1)[None, :]
            previous, labels = labels, xp.argmin(dist, axis=1)
            if previous is not None and bool((labels == previous).all()):
                break
            onehot = (labels[:, None] == xp.arange(k)[None, :]).astype(x.dtype)
            counts = onehot.sum(axis=0)
            centres = xp.where(counts[:, None] > 0, (onehot.T @ x) / xp.maximum(counts, 1)[:, None], centres)
        inertia = float(xp.maximum(dist.min(axis=1), 0).sum())
        if inertia < best_inertia:
            best, best_inertia = labels, inertia
    return best


def segment(image, scale, device="cpu", clusters=25, seed=0):
    """(labels, rescaled image) of the coins picture (a NumPy array) at `scale`, computed on `device`;
    both NumPy arrays."""
    xp, sparse, linalg = namespace(device)
    rng = np.random.default_rng(seed)
    smooth = ndimg.filters.gaussian(xp.asarray(image), sigma=2)
    small = ndimg.transform.rescale(smooth, scale, mode="reflect", anti_aliasing=False)
    graph = pixel_graph(small, xp, sparse)
    labels = kmeans(spectral_embedding(graph, clusters, xp, sparse, linalg, rng), clusters, xp, rng)
    host = (lambda a: a.get()) if xp is not np else np.asarray
    return host(labels).reshape(small.shape), host(small)


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
        pts = [(pixels, t[dev]) for _, pixels, t in rows if dev in t]
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

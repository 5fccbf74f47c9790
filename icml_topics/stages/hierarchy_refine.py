"""k-means refinement of the hierarchy's levels (``HierarchySettings(refine=...)``): a candidate design that
``benchmarks/hierarchy_stability.py`` compares with the default (it lowered the finer levels' stability, so
the default does not refine).

    >>> import numpy as np
    >>> lloyd(np.eye(2)[[0, 0, 1]], np.array([0, 1, 1]), 5).tolist()
    [0, 0, 1]
"""

from __future__ import annotations

import numpy as np

__all__ = ["lloyd", "refine_levels", "split_along"]


def lloyd(x: np.ndarray, labels: np.ndarray, iterations: int) -> np.ndarray:
    """Spherical k-means from ``labels``: each row moves to its closest node centroid (cosine), repeated
    until nothing moves or ``iterations`` (a Voronoi partition: a small shift moves only boundary rows)."""
    labels = np.unique(labels, return_inverse=True)[1].reshape(-1)
    for _ in range(iterations):
        k = labels.max() + 1
        sums = np.zeros((k, x.shape[1]))
        np.add.at(sums, labels, x)
        centroids = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
        new = np.argmax(x @ centroids.T, axis=1)
        new = np.unique(new, return_inverse=True)[1].reshape(-1)
        if np.array_equal(new, labels):
            break
        labels = new
    return labels


def split_along(x: np.ndarray, parent: np.ndarray, lab: np.ndarray) -> np.ndarray:
    """``lab`` made to nest in ``parent``: a node keeps its rows in the parent holding most of them; its
    other rows join the closest (cosine to centroid) such node of their own parent, if it has one."""
    major = {j: np.bincount(parent[lab == j]).argmax() for j in np.unique(lab)}
    is_major = np.array([parent[i] == major[lab[i]] for i in range(len(lab))])
    out = np.unique(np.stack([parent, lab], axis=1), axis=0, return_inverse=True)[1].reshape(-1)
    for p in np.unique(parent[~is_major]):
        home = np.unique(out[(parent == p) & is_major])
        moved = np.flatnonzero((parent == p) & ~is_major)
        if len(home) == 0:
            continue
        centroids = np.stack([x[out == h].mean(axis=0) for h in home])
        out[moved] = home[np.argmax(x[moved] @ centroids.T, axis=1)]
    return np.unique(out, return_inverse=True)[1].reshape(-1)


def refine_levels(x: np.ndarray, labels: list[np.ndarray], iterations: int) -> list[np.ndarray]:
    """The top level refined by ``lloyd``; each finer level is the tree's cut made to nest in the refined
    parents (``split_along``). Refining the finer levels by k-means too was measured and lowered their
    stability (it drifts to other local optima)."""
    out = [lloyd(x, labels[0], iterations)]
    for lab in labels[1:]:
        out.append(split_along(x, out[-1], lab))
    return out

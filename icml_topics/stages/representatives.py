"""The most representative papers of each topic: those nearest its centroid (cosine).

>>> order = representative_order(embeddings, labels)
>>> order[0][:3]                                          # row indices, nearest first
"""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

__all__ = ["label_rows", "representative_order"]


def label_rows(labels: np.ndarray) -> dict[int, np.ndarray]:
    """Each label's row indices, ascending (``np.flatnonzero(labels == label)`` for every label at once: one
    sort of the labels, not one pass over them a label).

    >>> {k: v.tolist() for k, v in label_rows(np.array([2, 0, 2, -1])).items()}
    {-1: [3], 0: [1], 2: [0, 2]}
    """
    labels = np.asarray(labels)
    order = np.argsort(labels, kind="stable")
    values, starts = np.unique(labels[order], return_index=True)
    return {int(v): order[a:b] for v, a, b in zip(values, starts, [*starts[1:], len(order)])}


def representative_order(embeddings: np.ndarray, labels: np.ndarray) -> dict[int, np.ndarray]:
    """For each topic (outliers ``-1`` included), the row indices of its papers, nearest its
    L2-normalised centroid first (ties broken by row order, so the result is deterministic)."""
    labels = np.asarray(labels)
    out: dict[int, np.ndarray] = {}
    with threadpool_limits(limits=1, user_api="blas"):  # one small product a topic: a second thread only spins
        for topic, rows in label_rows(labels).items():
            vectors = np.asarray(embeddings[rows], dtype=np.float32)
            centroid = vectors.mean(axis=0)
            centroid /= np.linalg.norm(centroid) or 1.0
            norms = np.linalg.norm(vectors, axis=1).clip(1e-12)
            sims = (vectors @ centroid) / norms
            out[int(topic)] = rows[np.lexsort((rows, -np.round(sims, 6)))]
    return out

"""Clustering the reduced space into fine topics (HDBSCAN).

>>> labels = HDBSCANClusterer(min_cluster_size=10).fit_predict(reduced)
"""

from __future__ import annotations

import numpy as np

__all__ = ["HDBSCANClusterer"]


class HDBSCANClusterer:
    """HDBSCAN with BERTopic's choices (euclidean on the reduced space, excess-of-mass selection).

    ``fit_predict`` returns one label per row; ``-1`` marks outliers. HDBSCAN is deterministic, so the
    same reduced space gives the same labels. When there are too few points for two clusters, or
    HDBSCAN finds no cluster at all, every point is in one topic (never a map of outliers only).

    Args:
        min_cluster_size: the smallest cluster kept as a topic.
        min_samples: HDBSCAN's density setting (higher: more outliers); ``None``: ``min_cluster_size``.
        selection: HDBSCAN's cluster selection, ``"eom"`` (excess of mass) or ``"leaf"``.

    Examples:
        >>> labels = HDBSCANClusterer(min_cluster_size=15).fit_predict(reduced)
    """

    def __init__(self, min_cluster_size: int = 10, min_samples: int | None = None, selection: str = "eom") -> None:
        self.min_cluster_size = min_cluster_size
        self.min_samples = min_samples
        self.selection = selection

    def fit_predict(self, reduced: np.ndarray) -> np.ndarray:
        """One label per row of ``reduced``; ``-1`` = outlier.

        Args:
            reduced: the documents in the clustering space ``(n, k)``.
        """
        import hdbscan

        n = len(reduced)
        if n < 2 * max(2, self.min_cluster_size):
            # too few points for two clusters: one topic, no outliers (documented fallback)
            return np.zeros(n, dtype=np.int64)
        model = hdbscan.HDBSCAN(
            min_cluster_size=max(2, self.min_cluster_size),
            min_samples=self.min_samples,
            metric="euclidean",
            cluster_selection_method=self.selection,
            core_dist_n_jobs=1,
        )
        labels = model.fit_predict(np.asarray(reduced, dtype=np.float64)).astype(np.int64)
        if (labels == -1).all():  # no dense region at all (tiny or uniform corpus): one topic, as above
            return np.zeros(n, dtype=np.int64)
        return labels

"""Dimensionality reduction: the fit's 2-D map (``MapProjector``) and a k-D ``Reducer`` for users, from one kNN graph.

The kNN graph is computed once (cosine on L2-normalised embeddings, chunked matrix products; NN-descent
on a large corpus) and handed to UMAP, so UMAP's own NN-descent never runs. Small corpora use PCA + t-SNE
instead: no numba JIT, well suited below a few hundred documents. The topics do not come from a reduced
space: they are a hierarchy over the embeddings under the themes (``stages/hierarchy.py``).

    >>> reducer = Reducer(n_components=5, n_neighbors=15, random_state=0)
    >>> reduced = reducer.fit_transform(embeddings)
"""

from __future__ import annotations

import logging
import warnings

import numpy as np

from icml_topics.errors import InvalidValueError
from icml_topics.stages._base import DEFAULT_RANDOM_STATE

__all__ = ["MapProjector", "Reducer", "distinct_rows", "knn_graph"]

logger = logging.getLogger("icml_topics")


def distinct_rows(embeddings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the first copy of each distinct row (in input order) and, per row, its distinct row.

    ``embeddings[keep][inverse]`` equals ``embeddings``. Identical abstracts have identical embeddings;
    mapping them as one point keeps t-SNE and UMAP away from zero-distance (degenerate) input.

        >>> keep, inverse = distinct_rows(np.array([[1.0, 0], [0, 1], [1, 0]]))
        >>> keep.tolist(), inverse.tolist()
        ([0, 1], [0, 1, 0])
    """
    x = np.ascontiguousarray(embeddings)
    first: dict[bytes, int] = {}
    inverse = np.array([first.setdefault(row.tobytes(), len(first)) for row in x], dtype=np.int64)
    keep = np.full(len(first), -1, dtype=np.int64)
    for i, j in enumerate(inverse):
        if keep[j] < 0:
            keep[j] = i
    return keep, inverse


def knn_graph(
    embeddings: np.ndarray, n_neighbors: int, *, chunk: int = 2048, approximate: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Exact k nearest neighbours by cosine distance; each row's first neighbour is itself.

    Returns ``(indices, distances)``, both of shape ``(n, n_neighbors)``, sorted by distance, with
    ties broken by index so that the result is deterministic. ``approximate=True``: NN-descent
    (``stages.large.approximate_knn_graph``, same format); the fit asks for it on a large corpus
    (``FitConfig.is_large``: ``TopicMap(large_corpus_threshold=...)``, ``fitting.neighbour_graph``).

    Args:
        embeddings: the document embeddings ``(n, dim)``.
        n_neighbors: neighbours per row (the row itself included).
        chunk: rows compared at once (memory: ``chunk x n`` similarities).
        approximate: NN-descent instead of the exact search.

    Examples:
        >>> indices, distances = knn_graph(embeddings, n_neighbors=15)
    """
    x = np.ascontiguousarray(embeddings, dtype=np.float32)
    n = len(x)
    if approximate:
        from icml_topics.stages.large import approximate_knn_graph  # late-bound: tests swap it on stages.large

        return approximate_knn_graph(x, n_neighbors)
    k = min(n_neighbors, n)
    indices = np.empty((n, k), dtype=np.int64)
    distances = np.empty((n, k), dtype=np.float32)
    for start in range(0, n, chunk):
        sims = x[start : start + chunk] @ x.T
        rows = np.arange(sims.shape[0])
        sims[rows, start + rows] = np.inf  # self first, whatever rounding does
        part = np.argpartition(-sims, k - 1, axis=1)[:, :k] if k < n else np.tile(np.arange(n), (len(sims), 1))
        part_sims = np.take_along_axis(sims, part, axis=1)
        order = np.lexsort((part, -part_sims), axis=1)
        idx = np.take_along_axis(part, order, axis=1)
        indices[start : start + len(sims)] = idx
        d = 1.0 - np.take_along_axis(sims, idx, axis=1)
        d[:, 0] = 0.0
        distances[start : start + len(sims)] = np.clip(d, 0.0, 2.0)
    return indices, distances


class Reducer:
    """Reduce embeddings to a low-dimensional space for clustering (UMAP, or PCA for small corpora).

    Args:
        n_components: dimensions of the reduced space (5: BERTopic's clustering space).
        n_neighbors: UMAP neighbourhood size.
        min_dist: UMAP ``min_dist``; 0.0 packs clusters tightly, which suits HDBSCAN.
        method: ``"umap"`` or ``"small"`` (PCA; no JIT, for a few hundred documents).
        random_state: seed (default 42); the same seed gives the same coordinates.

    Examples:
        >>> reduced = Reducer(n_components=5, random_state=0).fit_transform(embeddings)
    """

    def __init__(
        self,
        n_components: int = 5,
        n_neighbors: int = 15,
        min_dist: float = 0.0,
        method: str = "umap",
        random_state: int | None = DEFAULT_RANDOM_STATE,
    ) -> None:
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.min_dist = min_dist
        self.method = method
        self.random_state = random_state

    def cache_key(self) -> str:
        return f"{type(self).__name__}:{self.method}:{self.n_components}:{self.n_neighbors}:{self.min_dist}:{self.random_state}"

    def fit_transform(self, embeddings: np.ndarray, knn: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """The documents in the ``n_components``-dimensional reduced space.

        Args:
            embeddings: the document embeddings ``(n, dim)``.
            knn: the exact cosine kNN graph ``(indices, distances)`` icml_topics computed once for both
                projections; ``None``: computed here when needed.
        """
        n = len(embeddings)
        if self.method == "small" or n <= self.n_components + 2:
            return _pca(embeddings, min(self.n_components, max(1, n - 1)), self.random_state)
        if self.method != "umap":
            raise InvalidValueError(f"Unknown reducer method {self.method!r}: use 'umap' or 'small'.")
        return _umap(embeddings, self.n_components, self.n_neighbors, self.min_dist, self.random_state, knn)


class MapProjector(Reducer):
    """The 2-D map shown to users: UMAP (``min_dist=0.1``) or t-SNE for small corpora.

    Args:
        n_neighbors: UMAP neighbourhood size.
        min_dist: UMAP ``min_dist``; 0.1 leaves room between the points of a cluster on the map.
        method: ``"umap"`` or ``"small"`` (t-SNE; no JIT, for small corpora).
        random_state: seed (default 42); the same seed gives the same map.

    Examples:
        >>> xy = MapProjector(n_neighbors=15, random_state=0).fit_transform(embeddings)
    """

    def __init__(
        self,
        n_neighbors: int = 15,
        min_dist: float = 0.1,
        method: str = "umap",
        random_state: int | None = DEFAULT_RANDOM_STATE,
    ):
        super().__init__(
            n_components=2, n_neighbors=n_neighbors, min_dist=min_dist, method=method, random_state=random_state
        )

    def fit_transform(self, embeddings: np.ndarray, knn: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """The 2-D map coordinates, one row per document.

        Args:
            embeddings: the document embeddings ``(n, dim)``.
            knn: the exact cosine kNN graph ``(indices, distances)`` icml_topics computed once for both
                projections; ``None``: computed here when needed.
        """
        n = len(embeddings)
        if n < 4:
            return _pca(embeddings, 2, self.random_state)
        if self.method == "small":
            from sklearn.manifold import TSNE

            if float(np.asarray(embeddings, dtype=np.float64).std(axis=0).max()) < 1e-6:
                return _pca(embeddings, 2, self.random_state)  # (nearly) one point: t-SNE would divide by 0
            tsne = TSNE(
                n_components=2,
                perplexity=float(max(2.0, min(30.0, (n - 1) / 3))),
                init="pca",
                metric="cosine",
                random_state=self.random_state,  # None: fresh randomness (scikit-learn's rule)
            )
            out = tsne.fit_transform(np.asarray(embeddings, dtype=np.float64)).astype(np.float32)
            return out if np.isfinite(out).all() else _pca(embeddings, 2, self.random_state)
        return super().fit_transform(embeddings, knn)


def _pca(embeddings: np.ndarray, n_components: int, random_state: int | None) -> np.ndarray:
    from sklearn.decomposition import PCA

    x = np.asarray(embeddings, dtype=np.float64)
    if len(x) < 2 or float(x.std(axis=0).max()) == 0.0:  # one distinct point: nothing to project
        return np.zeros((len(x), max(2, n_components)), dtype=np.float32)
    n_components = max(1, min(n_components, x.shape[0], x.shape[1]))
    out = PCA(n_components=n_components, svd_solver="full", random_state=random_state).fit_transform(x)
    if out.shape[1] < 2:  # keep 2 columns for the map even for degenerate input
        out = np.hstack([out, np.zeros((len(out), 2 - out.shape[1]))])
    return out.astype(np.float32)


def _umap(embeddings, n_components, n_neighbors, min_dist, random_state, knn) -> np.ndarray:
    from umap import UMAP

    n_neighbors = max(2, min(n_neighbors, len(embeddings) - 1))
    if knn is None or knn[0].shape[1] < n_neighbors:
        knn = knn_graph(embeddings, n_neighbors)
    idx, dist = knn[0][:, :n_neighbors], knn[1][:, :n_neighbors]
    model = UMAP(
        n_components=n_components,
        n_neighbors=n_neighbors,
        min_dist=min_dist,
        metric="cosine",
        random_state=random_state,
        precomputed_knn=(idx, dist, None),
        low_memory=True,
        verbose=False,
    )
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*precomputed_knn.*")
        warnings.filterwarnings("ignore", message=".*n_jobs value.*")
        warnings.filterwarnings("ignore", category=UserWarning, module="umap")
        return model.fit_transform(np.asarray(embeddings, dtype=np.float32)).astype(np.float32)

"""The large-corpus path: sub-quadratic structure for hundreds of thousands to millions of abstracts.

Below ``LARGE_CORPUS`` documents (``TopicMap(large_corpus_threshold=...)``) nothing here runs and
the exact path of ``reduce.py`` is used unchanged. From it up, BERTopic's documented recipe for big
corpora is followed:

* **approximate kNN** (pynndescent's NN-descent, already a UMAP dependency) replaces the exact chunked
  graph, in the very same format (``fitting.neighbour_graph`` asks ``knn_graph`` for it when
  ``FitConfig.is_large``: the threshold is the one rule, no constant elsewhere decides it);
* the **2-D map** (UMAP) is fitted on a **stratified sample** (``sample_size`` documents, proportional
  per venue and year) and every other document is placed with ``UMAP.transform``, in chunks, so memory
  stays bounded;
* the **topic tree** is built inside each theme on at most ``HierarchySettings.max_theme_size`` papers,
  the rest placed at their nearest finest node (``stages/hierarchy.py``);
* **themes**: the theme rule's neighbour vote reads the approximate graph (``theme_neighbours``)
  instead of comparing every paper with every other, and its self-trained classifier learns from a
  sample of at most ``sample_size`` confident papers.

    >>> coords = project_large(embeddings, sample_size=SAMPLE_SIZE, random_state=0)
    >>> coords.shape
    (1000000, 2)
"""

from __future__ import annotations

import logging
import warnings
import weakref
from collections.abc import Sequence

import numpy as np

from icml_topics.parameters import LARGE_CORPUS, SAMPLE_SIZE
from icml_topics.stages._base import DEFAULT_RANDOM_STATE

__all__ = [
    "LARGE_CORPUS",
    "SAMPLE_SIZE",
    "approximate_knn_graph",
    "project_large",
    "strata_of",
    "stratified_sample",
    "theme_neighbours",
]

logger = logging.getLogger("icml_topics")

TRANSFORM_CHUNK = 50_000
"""Documents placed per ``UMAP.transform`` call (bounds the memory)."""


def approximate_knn_graph(
    embeddings: np.ndarray, n_neighbors: int, *, random_state: int | None = DEFAULT_RANDOM_STATE
) -> tuple[np.ndarray, np.ndarray]:
    """Approximate k nearest neighbours by cosine distance (NN-descent), in ``knn_graph``'s format.

    Returns ``(indices, distances)`` of shape ``(n, k)``: int64 / float32, each row's first neighbour
    is the row itself (distance 0), then by distance with ties broken by index. With a seed the graph
    is deterministic (NN-descent then runs on one thread).
    """
    from pynndescent import NNDescent

    x = np.ascontiguousarray(embeddings, dtype=np.float32)
    n = len(x)
    k = min(n_neighbors, n)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        index = NNDescent(
            x,
            n_neighbors=max(k, 2),
            metric="cosine",
            random_state=random_state,
            low_memory=True,
            n_jobs=1 if random_state is not None else -1,
            compressed=True,
            verbose=False,
        )
        idx, dist = index.neighbor_graph
    idx = np.asarray(idx, dtype=np.int64)[:, :k]
    dist = np.clip(np.asarray(dist, dtype=np.float32)[:, :k], 0.0, 2.0)
    rows = np.arange(n)
    # self first: NN-descent may list an exact duplicate (distance 0) before the row itself
    has_self = idx == rows[:, None]
    dist = np.where(has_self, -1.0, dist)
    missing = ~has_self.any(axis=1)
    idx[missing, -1], dist[missing, -1] = rows[missing], -1.0
    order = np.lexsort((idx, dist), axis=1)
    idx, dist = np.take_along_axis(idx, order, axis=1), np.take_along_axis(dist, order, axis=1)
    dist[:, 0] = 0.0
    return idx, dist


_GRAPH_MEMO: dict = {}


def theme_neighbours(embeddings: np.ndarray, k: int, *, random_state: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Each document's ``k`` nearest *other* documents from the approximate graph, as the theme rule's
    neighbour vote reads them: ``(indices (n, k) int64, cosine similarities (n, k) float32)``, the
    format of ``themes.evidence.neighbours_among(..., skip_self=True)``.

    The graph of the last array asked for is remembered while that array lives (same object, shape,
    ``k`` and seed), so the fit and every later ``set_taxonomy`` share one NN-descent run.
    """
    key = (id(embeddings), embeddings.shape, k, random_state)
    held = _GRAPH_MEMO.get("key")
    if held == key and _GRAPH_MEMO["array"]() is embeddings:
        return _GRAPH_MEMO["graph"]
    idx, dist = approximate_knn_graph(embeddings, k + 1, random_state=random_state)
    # drop the document itself: usually the first column, but an exact duplicate may come first (at
    # distance 0 too); a row whose graph missed itself drops its farthest neighbour instead
    own = idx == np.arange(len(idx))[:, None]
    own[~own.any(axis=1), -1] = True
    keep = ~own
    graph = (
        np.ascontiguousarray(idx[keep].reshape(len(idx), k)),
        np.ascontiguousarray((1.0 - dist[keep]).reshape(len(idx), k), dtype=np.float32),
    )
    _GRAPH_MEMO.clear()
    _GRAPH_MEMO.update(key=key, array=weakref.ref(embeddings), graph=graph)
    weakref.finalize(embeddings, _forget, key)
    return graph


def _forget(key: tuple) -> None:
    if _GRAPH_MEMO.get("key") == key:
        _GRAPH_MEMO.clear()


def stratified_sample(
    n: int, size: int, strata: Sequence | np.ndarray | None = None, *, random_state: int | None = DEFAULT_RANDOM_STATE
) -> np.ndarray:
    """Sorted indices of ``size`` of ``n`` documents, drawn proportionally within each stratum.

    Every stratum (e.g. a venue-year) keeps its share (largest-remainder rounding) and at least one
    document, so small years are not lost from the fitted map.

        >>> stratified_sample(10, 4, ["a"] * 8 + ["b"] * 2, random_state=0).tolist()
        [1, 5, 6, 9]
    """
    if size >= n:
        return np.arange(n)
    rng = np.random.default_rng(random_state)
    if strata is None:
        return np.sort(rng.choice(n, size=size, replace=False))
    codes, counts = np.unique(np.asarray(strata, dtype=str), return_inverse=True, return_counts=True)[1:]
    quota = counts * size / n
    take = np.maximum(np.floor(quota).astype(int), 1)
    take = np.minimum(take, counts)
    short = size - take.sum()
    if short > 0:  # largest remainders first, where room is left
        order = np.argsort(-(quota - np.floor(quota)), kind="stable")
        for s in order:
            if short == 0:
                break
            if take[s] < counts[s]:
                take[s] += 1
                short -= 1
    chosen = [rng.choice(np.flatnonzero(codes == s), size=int(t), replace=False) for s, t in enumerate(take) if t]
    return np.sort(np.concatenate(chosen))


def _umap(n_components: int, n_neighbors: int, min_dist: float, random_state: int | None):
    from umap import UMAP

    return UMAP(
        n_components=n_components,
        n_neighbors=n_neighbors,
        min_dist=min_dist,
        metric="cosine",
        random_state=random_state,
        low_memory=True,
        verbose=False,
    )


def _place(model, x: np.ndarray, rest: np.ndarray, out: np.ndarray) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        for start in range(0, len(rest), TRANSFORM_CHUNK):
            part = rest[start : start + TRANSFORM_CHUNK]
            out[part] = model.transform(x[part]).astype(np.float32)


def project_large(
    embeddings: np.ndarray,
    *,
    n_neighbors: int = 15,
    sample_size: int = SAMPLE_SIZE,
    strata: Sequence | np.ndarray | None = None,
    random_state: int | None,
) -> np.ndarray:
    """The 2-D map (float32, one row per document): UMAP fitted on a stratified sample, every other
    document placed with ``UMAP.transform``."""
    x = np.ascontiguousarray(embeddings, dtype=np.float32)
    n = len(x)
    sample = stratified_sample(n, min(sample_size, n), strata, random_state=random_state)
    rest = np.setdiff1d(np.arange(n), sample, assume_unique=True)
    logger.info("large corpus: fitting the map's UMAP on a stratified sample of %d of %d documents", len(sample), n)
    coords = np.empty((n, 2), dtype=np.float32)
    model = _umap(2, n_neighbors, 0.1, random_state)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        coords[sample] = model.fit_transform(x[sample]).astype(np.float32)
    _place(model, x, rest, coords)
    return coords


def strata_of(rows) -> np.ndarray | None:
    """Sampling strata of a corpus table: ``venue|year`` per row (``None`` when neither column is there)."""
    if rows is None:
        return None
    cols = [c for c in ("venue", "year") if c in rows.columns]
    if not cols:
        return None
    return rows[cols].astype(str).agg("|".join, axis=1).to_numpy()

"""The 2-D map of the fit from plain inputs: the embeddings, the corpus' sampling strata and ``MapSettings``
(numbers and strings), so that the one background worker (``_background.py``) can draw it with exactly
the code and inputs this process would use.

    >>> settings = MapSettings(reducer="umap", n_neighbors=None, large_corpus_threshold=20_000,
    ...                        sample_size=5_000, seed=0, reductions_dir=None)
    >>> coords = draw_map(embeddings, settings)  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from icml_topics.stages.defaults import size_aware_defaults
from icml_topics.stages.reduce import MapProjector, distinct_rows, knn_graph
from icml_topics.store.cache import cached_reduction, reduction_path

__all__ = ["MapSettings", "draw_map", "map_is_cached"]


@dataclass(frozen=True)
class MapSettings:
    """What the map of a named ``reducer`` depends on, as plain values (``FitConfig``'s fields)."""

    reducer: str  # "auto", "umap", "tsne", "pca"
    n_neighbors: int | None  # the parameter; None: the size-aware default
    large_corpus_threshold: int
    sample_size: int
    seed: int | None
    reductions_dir: Path | None  # the reductions cache; None: no cache

    def is_large(self, n: int) -> bool:
        """The large-corpus rule (``FitConfig.is_large``)."""
        return n >= self.large_corpus_threshold

    def neighbours(self, n: int) -> int:
        """UMAP's neighbourhood size for ``n`` papers (``FitConfig.neighbours``)."""
        return self.n_neighbors or size_aware_defaults(n).n_neighbors

    def method(self, n: int) -> str:
        """The projection drawn for ``n`` papers: the reducer, or its size-aware default for ``"auto"``."""
        return size_aware_defaults(n).reducer if self.reducer == "auto" else self.reducer

    def projector(self, n: int) -> MapProjector:
        """The projector of ``n`` distinct papers (below the large-corpus path)."""
        return MapProjector(self.neighbours(n), method=self.method(n), random_state=self.seed)


def draw_map(emb: np.ndarray, settings: MapSettings, strata: np.ndarray | None = None) -> np.ndarray:
    """The 2-D map of ``emb``: UMAP, or t-SNE for a small corpus (``size_aware_defaults``), on a stratified
    sample with the rest placed for a large one (``stages.large.project_large``; ``strata``: one sampling
    stratum per row). Identical rows are one point. Cached by content and settings below the large path."""
    keep, inverse = distinct_rows(emb)
    if len(keep) < len(emb):  # identical abstracts are mapped once, as one point
        return draw_map(emb[keep], settings, None if strata is None else strata[keep])[inverse]
    n = len(emb)
    if settings.is_large(n) and settings.reducer in ("auto", "umap"):
        from icml_topics.stages.large import project_large  # late-bound: tests swap it on stages.large

        return project_large(
            emb, n_neighbors=settings.neighbours(n), sample_size=settings.sample_size, strata=strata,
            random_state=settings.seed,
        )  # fmt: skip
    projector = settings.projector(n)

    def project() -> np.ndarray:
        if projector.method != "umap":  # t-SNE (a small corpus) and PCA need no kNN graph and no numba
            return projector.fit_transform(emb, None)
        graph = knn_graph(emb, settings.neighbours(n), approximate=settings.is_large(n))
        return projector.fit_transform(emb, graph)

    return cached_reduction(emb, projector.cache_key(), project, settings.reductions_dir)


def map_is_cached(emb: np.ndarray, settings: MapSettings) -> bool:
    """Whether ``draw_map(emb, settings)`` would read its map from the reductions cache."""
    keep, _ = distinct_rows(emb)
    emb = emb[keep] if len(keep) < len(emb) else emb
    if settings.is_large(len(emb)) and settings.reducer in ("auto", "umap"):
        return False
    path = reduction_path(emb, settings.projector(len(emb)).cache_key(), settings.reductions_dir)
    return path is not None and path.exists()

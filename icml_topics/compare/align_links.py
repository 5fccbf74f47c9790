"""How the topics of two models are linked: their similarity, the links, and what each link and topic is.

The rules are those of [`align_topics`][icml_topics.compare.align_topics] (see ``icml_topics.compare.align``):
combined centroid and keyword similarity, links at or above a threshold (optimal one-to-one assignment, or
every topic's best partner), unstable nodes limited to their best link, and the words of each link and
topic: ``matched``, ``split`` / ``merged`` (``finer`` / ``coarser`` when the difference in resolution
explains them), ``vanished``, ``new``; each link with its ``margin`` and ``confidence``.

Examples:
    >>> import numpy as np
    >>> sim = np.array([[0.9, 0.1], [0.2, 0.8]])
    >>> graph = link_graph(sim, 0.7, "many-to-one", np.zeros(2, bool), np.zeros(2, bool))
    >>> graph.links, graph.relation(0, 0), graph.confidence(0, 0)
    ([(0, 0), (1, 1)], 'matched', 'high')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from icml_topics.errors import InvalidValueError
from icml_topics.schema import split_cell
from icml_topics.stages.hierarchy import MIN_STABILITY
from icml_topics.text import letter_runs

__all__ = ["RESOLUTION_GAP", "LinkGraph", "link_graph", "similarities", "unstable"]

#: node-count ratio from which a split / merge can be a granularity difference
RESOLUTION_GAP = 2.0


def _keywords(value: Any) -> list[str]:
    """Keyword list from a list / array or a ``"; "``-joined string (as in topics.csv)."""
    return split_cell(value)


def _jaccard(words_a: Sequence[set[str]], words_b: Sequence[set[str]]) -> np.ndarray:
    out = np.zeros((len(words_a), len(words_b)))
    for i, wa in enumerate(words_a):
        for j, wb in enumerate(words_b):
            union = len(wa | wb)
            out[i, j] = len(wa & wb) / union if union else 0.0
    return out


def _embedded_keywords(
    kw_a: list[list[str]], kw_b: list[list[str]], embedder: Callable[[list[str]], np.ndarray]
) -> np.ndarray:
    vocab = sorted({k for kws in kw_a + kw_b for k in kws})
    if not vocab:
        return np.zeros((len(kw_a), len(kw_b)))
    vecs = np.asarray(embedder(vocab), dtype=float)
    if vecs.ndim != 2 or vecs.shape[0] != len(vocab):
        raise InvalidValueError(
            f"keyword_embedder must return one row per input string ({len(vocab)} rows), got shape "
            f"{getattr(vecs, 'shape', None)}; e.g. keyword_embedder=lambda texts: embed(texts)."
        )
    index = {k: i for i, k in enumerate(vocab)}

    def means(kws: list[list[str]]) -> np.ndarray:
        m = np.zeros((len(kws), vecs.shape[1]))
        for i, ks in enumerate(kws):
            if ks:
                m[i] = vecs[[index[k] for k in ks]].mean(axis=0)
        n = np.linalg.norm(m, axis=1, keepdims=True)
        return np.divide(m, n, out=np.zeros_like(m), where=n > 0)

    return np.clip(means(kw_a) @ means(kw_b).T, -1.0, 1.0)


def unstable(topics: pd.DataFrame, min_stability: float = MIN_STABILITY) -> np.ndarray:
    """Which topics (or tree nodes) reappear in fewer than ``min_stability`` of the perturbed runs (unknown:
    stable): the one rule behind ``align_topics``' links and ``whats_new``'s headlines."""
    if "stability" not in topics.columns:
        return np.zeros(len(topics), dtype=bool)
    return (pd.to_numeric(topics["stability"], errors="coerce") < min_stability).fillna(False).to_numpy(dtype=bool)


def _stable_links(
    links: list[tuple[int, int]], sim: np.ndarray, unstable_a: np.ndarray, unstable_b: np.ndarray
) -> list[tuple[int, int]]:
    """``links`` where an unstable node keeps only its most similar link (no split or merge of it).

    >>> _stable_links([(0, 0), (0, 1)], np.array([[0.9, 0.8]]), np.array([True]), np.array([False, False]))
    [(0, 0)]
    """
    keep = set(links)
    for side, unstable in ((0, unstable_a), (1, unstable_b)):
        for node in np.flatnonzero(unstable):
            mine = [link for link in keep if link[side] == node]
            if len(mine) > 1:
                best = max(mine, key=lambda link: (sim[link], -link[1 - side]))
                keep -= set(mine) - {best}
    return sorted(keep)


def _links(sim: np.ndarray, threshold: float, mode: str) -> list[tuple[int, int]]:
    n_a, n_b = sim.shape
    if n_a == 0 or n_b == 0:
        return []
    if mode == "one-to-one":
        rows, cols = linear_sum_assignment(sim, maximize=True)
        return sorted((int(i), int(j)) for i, j in zip(rows, cols, strict=True) if sim[i, j] >= threshold)
    edges = {(int(sim[:, j].argmax()), j) for j in range(n_b) if sim[:, j].max() >= threshold}
    edges |= {(i, int(sim[i].argmax())) for i in range(n_a) if sim[i].max() >= threshold}
    return sorted(edges)


def _words(keywords: list[list[str]]) -> list[set[str]]:
    """The words of each topic's keywords (the letter runs of every keyphrase)."""
    return [{w for k in ks for w in letter_runs(k)} for ks in keywords]


def similarities(
    ta: pd.DataFrame,
    ea: np.ndarray,
    tb: pd.DataFrame,
    eb: np.ndarray,
    keyword_weight: float,
    keyword_embedder: Callable[[list[str]], np.ndarray] | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(combined, centroid, keyword)`` similarity matrices, rows = topics of A, columns = topics of B."""
    if ea.shape[1] != eb.shape[1]:
        raise InvalidValueError(
            f"centroids have different dimensions ({ea.shape[1]} vs {eb.shape[1]}): the models used "
            "different embedding models; align models fitted with the same one."
        )
    centroid = np.clip(ea @ eb.T, -1.0, 1.0)
    if keyword_weight > 0:
        kw_a = [_keywords(v) for v in ta["keywords"]]
        kw_b = [_keywords(v) for v in tb["keywords"]]
        if keyword_embedder is None:
            keyword = _jaccard(_words(kw_a), _words(kw_b))
        else:
            keyword = _embedded_keywords(kw_a, kw_b, keyword_embedder)
    else:
        keyword = np.zeros_like(centroid)
    return (1.0 - keyword_weight) * centroid + keyword_weight * keyword, centroid, keyword


@dataclass(frozen=True)
class LinkGraph:
    """The links between the topics of A (rows of ``sim``) and B (columns), and what each link and topic is:
    the partners of every topic, ``resolution_ratio`` (topics of B / topics of A) and the unstable topics."""

    sim: np.ndarray
    links: list[tuple[int, int]]
    partners_a: list[list[int]]
    partners_b: list[list[int]]
    ratio: float
    threshold: float
    unstable_a: np.ndarray
    unstable_b: np.ndarray

    @classmethod
    def build(
        cls,
        sim: np.ndarray,
        links: list[tuple[int, int]],
        threshold: float,
        unstable_a: np.ndarray,
        unstable_b: np.ndarray,
    ) -> LinkGraph:
        n_a, n_b = sim.shape
        partners_a: list[list[int]] = [[] for _ in range(n_a)]
        partners_b: list[list[int]] = [[] for _ in range(n_b)]
        for i, j in links:
            partners_a[i].append(j)
            partners_b[j].append(i)
        ratio = n_b / n_a if n_a else 1.0
        return cls(sim, links, partners_a, partners_b, ratio, threshold, unstable_a, unstable_b)

    def _explained(self, k: int, finer: bool) -> bool:
        """``k`` partners on one side are what the resolution difference alone would give."""
        gap = self.ratio if finer else (1.0 / self.ratio if self.ratio > 0 else np.inf)
        return gap >= RESOLUTION_GAP and k <= int(np.ceil(gap - 1e-9))

    def split_word(self, k: int) -> str:
        return "finer" if self._explained(k, finer=True) else "split"

    def merge_word(self, k: int) -> str:
        return "coarser" if self._explained(k, finer=False) else "merged"

    def relation(self, i: int, j: int) -> str:
        """The link's ``relation``: matched, split, merged (or finer / coarser), or split+merged."""
        k_a, k_b = len(self.partners_a[i]), len(self.partners_b[j])
        if k_a > 1 and k_b > 1:
            return "split+merged"
        return self.split_word(k_a) if k_a > 1 else self.merge_word(k_b) if k_b > 1 else "matched"

    def margin(self, i: int, j: int) -> float:
        """The link's similarity minus the next best on either side (NaN: no other topic)."""
        row = np.delete(self.sim[i], j)
        col = np.delete(self.sim[:, j], i)
        rest = max(row.max() if row.size else -1.0, col.max() if col.size else -1.0)
        return float(self.sim[i, j] - rest) if rest > -1.0 else float("nan")

    def confidence(self, i: int, j: int) -> str:
        """``high`` / ``medium`` / ``low`` from the similarity, the margin and the two topics' stability."""
        m, s_ij = self.margin(i, j), self.sim[i, j]
        if self.unstable_a[i] or self.unstable_b[j]:
            return "low"
        if (np.isnan(m) or m >= 0.05) and s_ij >= self.threshold + 0.05:
            return "high"
        return "low" if (not np.isnan(m) and m < 0.02) or s_ij < self.threshold + 0.02 else "medium"

    def status(self, side: str, i: int) -> str:
        """The ``summary`` status of topic ``i`` of ``side`` (``"a"`` or ``"b"``)."""
        mine = (self.partners_a if side == "a" else self.partners_b)[i]
        if not mine:
            return "vanished" if side == "a" else "new"
        if len(mine) > 1:
            return self.split_word(len(mine)) if side == "a" else self.merge_word(len(mine))
        degree = len((self.partners_b if side == "a" else self.partners_a)[mine[0]])
        if degree <= 1:
            return "matched"
        return self.merge_word(degree) if side == "a" else self.split_word(degree)


def link_graph(
    sim: np.ndarray, threshold: float, mode: str, unstable_a: np.ndarray, unstable_b: np.ndarray
) -> LinkGraph:
    """The links of similarity matrix ``sim`` at ``threshold`` in ``mode``, an unstable node keeping its best only."""
    links = _stable_links(_links(sim, float(threshold), mode), sim, unstable_a, unstable_b)
    return LinkGraph.build(sim, links, threshold, unstable_a, unstable_b)

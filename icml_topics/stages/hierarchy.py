"""One topic hierarchy rooted at the research themes, stable by construction (issue 39).

Below each paper's theme, topics and subtopics come from **one** consensus tree built inside that theme:

1. identical embeddings are one point (identical abstracts share every node);
2. ``runs`` Ward trees are built on copies of the theme's embeddings perturbed by Gaussian noise of a
   fixed size (``noise_cosine``: the mean cosine of a perturbed copy to the original, by default the
   int8-vs-fp32 difference) from a fixed generator, so the output never depends on a seed;
3. each pair of papers gets the mean over runs of the log size of the smallest node holding both
   (a consensus ultrametric), and an average-linkage tree of that matrix is the consensus tree;
4. each level is a cut of the same consensus tree, so levels nest by construction: the finest into
   ``round(theme size / target size)`` nodes (a small theme gets few), each coarser one at the widest gap
   between merge heights among 0.7-1.4 times its target count (a cut that a small shift does not move; at
   least 3 nodes where the target is 3 or more, and a level below it then grows to 3 children a node, down to
   nodes of half its target size);
   nodes under ``min_size`` papers are folded into their closest sibling under the same parent
   (steps 1-4, and the placement of a theme larger than ``max_theme_size``: ``stages/hierarchy_theme.py``).

How many levels and nodes: fixed ``sizes`` (``TopicMap(topic_sizes=...)``), or by default (``branching``) a
depth and sizes that follow the corpus (``stages/hierarchy_shape.py``).

``benchmarks/hierarchy_stability.py`` compares this design with a plain Ward tree, Ward on kNN-smoothed
embeddings, a Ward-linkage consensus and k-means-refined topics (``results/hierarchy_stability.md``).

Every paper with a theme is placed at every level, with its cosine to its node's centroid
(``similarity``) and that cosine relative to the node's spread (``strength``: a z-score, about -2 for a
paper at the node's edge). A node's ``stability`` is the share of the perturbed runs in which a node of
the same level matches it with Jaccard >= 0.5 (bootstrap support; computed from the runs the consensus
already needs; each run is cut to the same node count). ``fit_hierarchy`` accepts ``random_state`` for the
estimator convention and ignores it: the noise comes from a fixed generator, so two seeds give the same
hierarchy by construction (its stability under perturbed input is what the benchmark measures).

    >>> h = fit_hierarchy(embeddings, themes)  # doctest: +SKIP
    >>> h.column("subtopic")[:3], h.parents[1][h.column("subtopic")[0]]  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from icml_topics._progress import step
from icml_topics.errors import InvalidValueError, UnknownNameError
from icml_topics.stages.distributed import map_over
from icml_topics.stages.hierarchy_settings import HierarchySettings
from icml_topics.stages.hierarchy_shape import drop_repeated_levels, level_sizes, tree_depth
from icml_topics.stages.hierarchy_theme import NOISE_SEED, groups, one_theme, perturb, theme_tree

__all__ = [
    "MIN_STABILITY",
    "NOISE_SEED",
    "Hierarchy",
    "HierarchySettings",
    "fit_hierarchy",
    "fit_levels",
    "membership",
    "perturb",
    "theme_tree",
]

#: a node that reappears (Jaccard >= 0.5) in at least this share of the perturbed runs is stable: only such
#: nodes are headlines (``whats_new``) or split / merged (``align_topics``)
MIN_STABILITY = 0.5


@dataclass
class Hierarchy:
    """The hierarchy under the themes: per paper a node id at each level (-1: the paper has no theme).

    Node ids are unique across levels. ``parents[0]`` maps a top-level node to its theme, ``parents[l]``
    a node of level ``l`` to its node at level ``l - 1``.

    Examples:
        >>> h = Hierarchy(("topic",), np.array([[0], [0]]), [{0: "RL"}], [{0: 2}], [{0: 1.0}],
        ...               np.ones((2, 1)), np.zeros((2, 1)))
        >>> h.column("topic").tolist(), h.nodes("topic")
        ([0, 0], [0])
    """

    levels: tuple[str, ...]
    labels: np.ndarray  # (n, levels) int64
    parents: list[dict[int, object]]
    sizes: list[dict[int, int]]
    stability: list[dict[int, float]]
    similarity: np.ndarray  # (n, levels) cosine to the node centroid
    strength: np.ndarray  # (n, levels) similarity as a z-score within the node
    timings: dict[str, float] = field(default_factory=dict)

    def column(self, level: str) -> np.ndarray:
        """Each paper's node at ``level`` (by name)."""
        return self.labels[:, self._index(level)]

    def nodes(self, level: str) -> list[int]:
        """The node ids of ``level``."""
        return sorted(self.sizes[self._index(level)])

    def _index(self, level: str) -> int:
        if level not in self.levels:
            raise UnknownNameError(f"level {level!r} is not one of {self.levels}")
        return self.levels.index(level)


def membership(emb: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's cosine to its node's centroid and that cosine as a z-score within the node (BLAS on one
    thread: one small product a node, as in ``hierarchy_theme.one_theme``)."""
    sim = np.full(len(labels), np.nan)
    strength = np.full(len(labels), np.nan)
    with threadpool_limits(limits=1, user_api="blas"):
        for _, rows in groups(labels):
            c = emb[rows].mean(axis=0)
            s = emb[rows] @ (c / max(np.linalg.norm(c), 1e-12))
            sim[rows] = s
            strength[rows] = (s - s.mean()) / max(float(s.std()), 0.02)
    return sim, strength


def _theme_keys(themes: Sequence[object], n: int) -> np.ndarray:
    """Themes as an object array, missing (None, NaN, "") as None; checks the length."""
    keys = np.array(
        [None if t is None or t == "" or (isinstance(t, float) and np.isnan(t)) else t for t in themes], dtype=object
    )
    if len(keys) != n:
        raise InvalidValueError(f"themes has {len(keys)} entries but embeddings has {n} rows; pass one theme per row")
    return keys


def fit_hierarchy(
    embeddings: np.ndarray,
    themes: Sequence[object],
    settings: HierarchySettings | None = None,
    *,
    random_state: int | None = 0,
) -> Hierarchy:
    """The hierarchy under ``themes`` of L2-normalised ``embeddings``. Deterministic: the consensus noise
    comes from a fixed generator, so ``random_state`` does not change the result.

    Args:
        embeddings: one L2-normalised row per paper (rows of another norm are normalised).
        themes: one theme per row; None or "" = no theme (that row gets no node; ``TopicMap`` passes a group
            name for them, so they get nodes of their own).
        settings: level names, sizes and the consensus; ``None``: ``HierarchySettings()``.
        random_state: accepted for the estimator convention; ignored.

    Examples:
        >>> emb = np.eye(3)[[0, 0, 1, 1, 2, 2]] + 0.05
        >>> h = fit_hierarchy(emb, ["A"] * 4 + ["B"] * 2, HierarchySettings(("topic",), (4,)))
        >>> h.column("topic").tolist(), h.parents[0]
        ([0, 0, 0, 0, 1, 1], {0: 'A', 1: 'B'})
    """
    import time

    del random_state
    settings = settings or HierarchySettings()
    start = time.perf_counter()
    labels, parents, stability = fit_levels(embeddings, themes, settings)
    emb = _unit_rows(embeddings)
    n_levels = labels.shape[1]
    similarity = np.full(labels.shape, np.nan)
    strength = np.full(labels.shape, np.nan)
    for lv in range(n_levels):
        similarity[:, lv], strength[:, lv] = membership(emb, labels[:, lv])
    sizes = [
        {int(k): int(v) for k, v in zip(*np.unique(labels[labels[:, lv] >= 0, lv], return_counts=True), strict=True)}
        for lv in range(n_levels)
    ]
    timings = {"seconds": time.perf_counter() - start}
    return Hierarchy(settings.levels[:n_levels], labels, parents, sizes, stability, similarity, strength, timings)


def _unit_rows(embeddings: np.ndarray) -> np.ndarray:
    """``embeddings`` as float32 unit rows, checked: finite, 2-d, no all-zero row."""
    emb = np.asarray(embeddings, dtype=np.float32)
    if emb.ndim != 2 or not np.isfinite(emb).all():
        raise InvalidValueError(
            f"embeddings must be a finite 2-d array (rows = papers), got shape {emb.shape}; drop rows with NaN/inf"
        )
    norms = np.linalg.norm(emb, axis=1)
    if (norms == 0).any():
        raise InvalidValueError(f"embeddings row {int(np.argmin(norms))} is all zeros; drop it or embed its text again")
    if np.abs(norms - 1).max() > 1e-3:  # the distances assume unit rows
        emb = emb / norms[:, None]
    return emb


def fit_levels(
    embeddings: np.ndarray,
    themes: Sequence[object],
    settings: HierarchySettings | None = None,
    *,
    client: Any = None,
) -> tuple[np.ndarray, list[dict[int, object]], list[dict[int, float]]]:
    """``fit_hierarchy``'s levels without the per-paper membership (what the tree stage caches): labels
    ``(n, levels)`` coarsest first (-1: no node), each node's parent (its theme at the top) and stability.
    With ``settings.branching`` the number of levels follows the corpus (the first ones of ``settings.levels``).
    Given a ``distributed.Client``, each theme's consensus tree is built as one Dask task on its workers
    (the same result: a theme's tree depends only on its papers).

    Examples:
        >>> emb = np.eye(3)[[0, 0, 1, 1, 2, 2]] + 0.05
        >>> fit_levels(emb, ["A"] * 4 + ["B"] * 2, HierarchySettings(("topic",), (4,)))[1]
        [{0: 'A', 1: 'B'}]
    """
    settings = settings or HierarchySettings()
    emb = _unit_rows(embeddings)
    keys = _theme_keys(themes, len(emb))
    named = np.array([k is not None for k in keys], dtype=bool)
    names = sorted({k for k in keys[named]}, key=str)
    code = np.full(len(keys), -1, dtype=np.int64)
    index = {t: i for i, t in enumerate(names)}
    code[named] = [index[k] for k in keys[named]]
    theme_rows = dict(groups(code))
    plan = _level_plan({t: len(theme_rows[i]) for i, t in enumerate(names)}, settings)
    rows_of = [theme_rows[i] for i in range(len(names))]
    per_theme = [
        (t, rows, *levels)
        for t, rows, levels in zip(
            names, rows_of, _theme_levels(emb, names, rows_of, plan, settings, client), strict=True
        )
    ]
    n_levels = len(next(iter(plan.values()), settings.sizes))
    labels = np.full((len(emb), n_levels), -1, dtype=np.int64)
    parents: list[dict[int, object]] = [{} for _ in range(n_levels)]
    stability: list[dict[int, float]] = [{} for _ in range(n_levels)]
    next_id = 0
    for lv in range(n_levels):  # ids level by level, theme by theme, largest node first: unique across levels
        for theme, rows, local, support in per_theme:
            ids, first, counts = np.unique(local[lv], return_index=True, return_counts=True)
            new = np.zeros(int(ids.max()) + 1, dtype=np.int64)
            new[ids[np.argsort(-counts, kind="stable")]] = np.arange(next_id, next_id + len(ids))
            labels[rows, lv] = new[local[lv]]
            for node, row in zip(ids, first, strict=True):
                parents[lv][int(new[node])] = theme if lv == 0 else int(labels[rows[row], lv - 1])
                stability[lv][int(new[node])] = float(support[lv][node])
            next_id += len(ids)
    if settings.branching is not None and n_levels > 1:
        labels, parents, stability = _kept_levels(labels, parents, stability, drop_repeated_levels(labels))
    return labels, parents, stability


def _theme_levels(
    emb: np.ndarray,
    names: list[object],
    rows_of: list[np.ndarray],
    plan: dict[object, list[float]],
    settings: HierarchySettings,
    client: Any,
) -> list[tuple[list[np.ndarray], list[np.ndarray]]]:
    """``one_theme`` of each theme (``names[i]``'s papers: ``rows_of[i]``), here one after another or, given a
    Dask ``client``, as one task a theme on its workers (largest theme first; ``stages/distributed.py``)."""
    if client is not None:
        step("clustering the topics of %d themes on the Dask workers", len(names))
    tasks = ((emb[rows], np.arange(len(rows)), plan[t], settings) for t, rows in zip(names, rows_of, strict=True))

    def each(i: int) -> None:
        step("clustering the topics of theme %d (%s, %d papers)", i + 1, names[i], len(rows_of[i]))

    return map_over(one_theme, tasks, client, priority=[len(rows) for rows in rows_of], each=each)


def _level_plan(theme_sizes: dict[object, int], settings: HierarchySettings) -> dict[object, list[float]]:
    """Each theme's papers a node at each level, coarsest first: ``settings.sizes``, or with
    ``settings.branching`` a depth and sizes that follow the corpus (``hierarchy_shape``)."""
    if settings.branching is None:
        return {t: [float(s) for s in settings.sizes] for t in theme_sizes}
    finest = settings.sizes[0]
    depth = tree_depth(
        list(theme_sizes.values()), finest=finest, branching=settings.branching, max_levels=len(settings.levels)
    )
    return {t: level_sizes(n, finest=finest, depth=depth, smallest=settings.min_size) for t, n in theme_sizes.items()}


def _kept_levels(
    labels: np.ndarray, parents: list[dict[int, object]], stability: list[dict[int, float]], keep: list[int]
) -> tuple[np.ndarray, list[dict[int, object]], list[dict[int, float]]]:
    """Only the levels ``keep`` (coarsest first), each node's parent taken from the kept level above it (its
    papers' theme at the top)."""
    if len(keep) == labels.shape[1]:
        return labels, parents, stability
    kept = labels[:, keep]
    kept_parents: list[dict[int, object]] = []
    for i in range(len(keep)):
        nodes = groups(kept[:, i])
        if i == 0:
            kept_parents.append({node: parents[0][int(labels[rows[0], 0])] for node, rows in nodes})
        else:
            kept_parents.append({node: int(kept[rows[0], i - 1]) for node, rows in nodes})
    return kept, kept_parents, [stability[lv] for lv in keep]

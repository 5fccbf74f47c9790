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
   between merge heights among 0.7-1.4 times its target count (a cut that a small shift does not move);
   nodes under ``min_size`` papers are folded into their closest sibling under the same parent.

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

import numpy as np
from scipy.cluster.hierarchy import cophenet, fcluster, linkage
from scipy.spatial.distance import squareform

from icml_topics._progress import step
from icml_topics.errors import InvalidValueError, UnknownNameError

__all__ = [
    "MIN_STABILITY",
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

#: the noise generator's seed: fixed, so the hierarchy does not depend on ``random_state`` (stable by construction)
NOISE_SEED = 20240139


@dataclass(frozen=True)
class HierarchySettings:
    """How the hierarchy under the themes is built.

    Args:
        levels: level names, coarsest first.
        sizes: target mean papers per node at each level (same order as ``levels``).
        runs: perturbed Ward trees averaged into the consensus (1: a plain Ward tree, no noise).
        noise_cosine: mean cosine of each perturbed copy to the original embeddings.
        smooth: neighbours averaged into each embedding before clustering (0: off).
        min_size: nodes smaller than this are folded into their closest sibling (when they have one).
        final_linkage: linkage of the consensus tree ("average" or "ward").
        refine: k-means (Lloyd) iterations moving the top level's papers to their closest centroid (0: off).
        gap_cut: cut each level but the finest at the widest gap between merge heights among
            0.7-1.4 times its node count (the finest keeps its count, so its median size stays on target).
        max_theme_size: a theme with more distinct papers is clustered on an evenly spaced sample of this
            many (the consensus holds all pairs in memory: ~16 bytes a pair), the others placed at their
            nearest finest node (cosine to its centroid) and its ancestors.

    Examples:
        >>> HierarchySettings(sizes=(100, 25)).sizes
        (100, 25)
    """

    levels: tuple[str, ...] = ("topic", "subtopic")
    sizes: tuple[int, ...] = (90, 24)
    runs: int = 16
    noise_cosine: float = 0.997
    smooth: int = 0
    min_size: int = 3
    final_linkage: str = "average"
    refine: int = 0
    gap_cut: bool = True
    max_theme_size: int = 6000

    def __post_init__(self) -> None:
        if len(self.levels) != len(self.sizes) or not self.levels:
            raise InvalidValueError(
                f"levels {self.levels} and sizes {self.sizes} must be non-empty and of equal length"
            )
        if any(b > a for a, b in zip(self.sizes, self.sizes[1:], strict=False)) or min(self.sizes) < 1:
            raise InvalidValueError(f"sizes {self.sizes} must be >= 1 and shrink from the coarsest level to the finest")
        if self.runs < 1 or not 0.0 < self.noise_cosine <= 1.0:
            raise InvalidValueError(f"runs={self.runs} must be >= 1 and noise_cosine={self.noise_cosine} in (0, 1]")
        if self.final_linkage not in ("average", "ward"):
            raise InvalidValueError(f"final_linkage={self.final_linkage!r} must be 'average' or 'ward'")


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


def perturb(embeddings: np.ndarray, cosine: float, rng: np.random.Generator) -> np.ndarray:
    """``embeddings`` (L2-normalised rows) plus isotropic Gaussian noise sized so that the expected cosine of a
    row to its original is ``cosine``, re-normalised.

        >>> x = np.eye(3, dtype=np.float32)
        >>> float(np.round((perturb(x, 0.999, np.random.default_rng(0)) * x).sum(1).mean(), 2))
        1.0
    """
    x = np.asarray(embeddings, dtype=np.float64)
    if cosine >= 1.0:
        return x.copy()
    sigma = np.sqrt((1.0 / cosine**2 - 1.0) / x.shape[1])  # |noise|^2 = d sigma^2 gives cos = 1/sqrt(1 + d sigma^2)
    y = x + sigma * rng.standard_normal(size=x.shape, dtype=np.float32)
    return y / np.linalg.norm(y, axis=1, keepdims=True)


def _distinct(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First index of each distinct row (input order) and each row's distinct index."""
    _, first, inverse = np.unique(x, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse.ravel()]


def _smooth(x: np.ndarray, k: int) -> np.ndarray:
    """Each row replaced by the normalised mean of itself and its ``k`` nearest rows (cosine)."""
    if k <= 0 or len(x) <= 2:
        return x
    k = min(k, len(x) - 1)
    sim = x @ x.T
    nearest = np.argpartition(-sim, k, axis=1)[:, : k + 1]
    y = x[nearest].mean(axis=1)
    return y / np.linalg.norm(y, axis=1, keepdims=True)


def _distances(x: np.ndarray) -> np.ndarray:
    """Condensed Euclidean distances between the L2-normalised rows of ``x`` (one BLAS product, not pdist)."""
    x32 = np.asarray(x, dtype=np.float32)
    d = np.sqrt(np.clip(2.0 - 2.0 * (x32 @ x32.T), 0.0, None)).astype(np.float64)
    np.fill_diagonal(d, 0.0)
    return squareform(d, checks=False)


def _size_distance(tree: np.ndarray) -> np.ndarray:
    """One run's condensed pair distance: the log size of the smallest node holding both (an ultrametric)."""
    by_size = tree.copy()
    by_size[:, 2] = np.log(tree[:, 3])  # merge height := log size of the merged node (monotone)
    return cophenet(by_size)


def _gap_count(tree: np.ndarray, k: int, low: float = 0.7, high: float = 1.4) -> int:
    """The node count in [low k, high k] whose cut sits in the widest gap between merge heights (a cut
    that a small shift of the heights does not move)."""
    heights = tree[::-1, 2]  # heights[j]: the merge that joins j + 2 clusters into j + 1
    lo, hi = max(2, int(np.floor(low * k))), min(len(heights), int(np.ceil(high * k)))
    if hi <= lo or k <= 1:
        return k
    c = np.arange(lo, hi + 1)
    return int(c[np.argmax(heights[c - 2] - heights[c - 1])])


def _cut(tree: np.ndarray, k: int, n: int) -> np.ndarray:
    """Labels 0.. of the cut of ``tree`` into at most ``k`` clusters."""
    if k <= 1 or n < 2:
        return np.zeros(n, dtype=np.int64)
    return fcluster(tree, k, criterion="maxclust").astype(np.int64) - 1


def _jaccard_support(final: np.ndarray, runs: list[np.ndarray]) -> np.ndarray:
    """Per final cluster, the share of ``runs`` holding a cluster with Jaccard >= 0.5 to it."""
    k = final.max() + 1
    hits = np.zeros(k)
    a = np.bincount(final, minlength=k)
    for labels in runs:
        m = labels.max() + 1
        both = np.zeros((k, m))
        np.add.at(both, (final, labels), 1)
        jac = both / (a[:, None] + np.bincount(labels, minlength=m)[None, :] - both)
        hits += jac.max(axis=1) >= 0.5
    return hits / max(len(runs), 1)


def theme_tree(
    x: np.ndarray, counts: Sequence[int], settings: HierarchySettings
) -> tuple[list[np.ndarray], list[list[np.ndarray]]]:
    """Cluster one theme's distinct, L2-normalised rows ``x`` into ``counts[l]`` nodes per level (nested):
    per level the labels and the perturbed runs' labels (cut to the same count; empty when ``runs`` is 1).

        >>> x = np.eye(4)[[0, 0, 1, 1]] + 0.01 * np.arange(8).reshape(4, 2).repeat(2, 1)
        >>> labels, _ = theme_tree(x / np.linalg.norm(x, axis=1, keepdims=True), [2], HierarchySettings(("topic",), (2,)))
        >>> labels[0].tolist()
        [0, 0, 1, 1]
    """
    n = len(x)
    if n < 3 or max(counts) <= 1:
        return [np.zeros(n, dtype=np.int64) for _ in counts], [[] for _ in counts]
    base = _smooth(np.asarray(x, dtype=np.float64), settings.smooth)
    rng = np.random.default_rng(NOISE_SEED + n)
    runs = settings.runs
    total = np.zeros(n * (n - 1) // 2)
    trees = []
    for _ in range(runs):
        xr = base if runs == 1 else perturb(base, settings.noise_cosine, rng)
        trees.append(linkage(_distances(xr), method="ward"))
        if runs > 1:
            total += _size_distance(trees[-1])
    if runs == 1:
        return [_cut(trees[0], k, n) for k in counts], [[] for _ in counts]
    dist = total / runs
    consensus = linkage(np.sqrt(dist) if settings.final_linkage == "ward" else dist, method=settings.final_linkage)
    if settings.gap_cut:
        counts = [_gap_count(consensus, k) for k in counts[:-1]] + [counts[-1]]
    return [_cut(consensus, k, n) for k in counts], [[_cut(t, k, n) for t in trees] for k in counts]


def _fold_small(x: np.ndarray, labels: np.ndarray, parent: np.ndarray | None, min_size: int) -> np.ndarray:
    """``labels`` with every node under ``min_size`` rows merged into the sibling (same ``parent`` label)
    whose centroid is closest to its own; a node without a sibling stays. Labels come back as 0..k-1."""
    labels = labels.copy()
    parent = np.zeros_like(labels) if parent is None else parent
    while True:
        ids, sizes = np.unique(labels, return_counts=True)
        small = [(s, i) for i, s in zip(ids, sizes, strict=True) if s < min_size]
        moved = False
        for _, node in sorted(small):
            rows = labels == node
            siblings = np.setdiff1d(np.unique(labels[parent == parent[rows][0]]), [node])
            if len(siblings) == 0:
                continue
            centroid = x[rows].mean(axis=0)
            scores = [float(centroid @ x[labels == s].mean(axis=0)) for s in siblings]
            labels[rows] = siblings[int(np.argmax(scores))]
            moved = True
            break
        if not moved:
            return np.unique(labels, return_inverse=True)[1].reshape(-1)


def _node_counts(n: int, distinct: int, sizes: Sequence[int]) -> list[int]:
    """Nodes per level for a theme of ``n`` papers (``distinct`` distinct embeddings)."""
    return [int(min(distinct, max(1, round(n / s)))) for s in sizes]


def membership(emb: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's cosine to its node's centroid and that cosine as a z-score within the node."""
    sim = np.full(len(labels), np.nan)
    strength = np.full(len(labels), np.nan)
    for node in np.unique(labels[labels >= 0]):
        rows = np.flatnonzero(labels == node)
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


def _one_theme(
    emb: np.ndarray, rows: np.ndarray, settings: HierarchySettings
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Local labels per level (nested, 0..k-1) of the theme's ``rows`` and each node's support."""
    keep, inverse = _distinct(emb[rows])
    x = emb[rows][keep].astype(np.float64)
    if len(x) > settings.max_theme_size:
        return _sampled_theme(x, inverse, len(rows), settings)
    labels, runs = theme_tree(x, _node_counts(len(rows), len(keep), settings.sizes), settings)
    if settings.refine:
        from icml_topics.stages.hierarchy_refine import refine_levels  # lazy: keeps TopicMap and the CLI light

        labels = refine_levels(x, labels, settings.refine)
    folded, support = _folded_levels(x, labels, runs, settings.min_size)
    return [lab[inverse] for lab in folded], support


def _folded_levels(
    x: np.ndarray, labels: list[np.ndarray], runs: list[list[np.ndarray]], min_size: int
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each level's labels with nodes under ``min_size`` folded into a sibling (coarsest first, so a level
    nests in the folded level above), and each folded node's support among the perturbed ``runs``."""
    folded, support, parent = [], [], None
    for lab, run in zip(labels, runs, strict=True):
        lab = _fold_small(x, lab, parent, min_size) if min_size > 1 else lab
        support.append(_jaccard_support(lab, run) if run else np.full(lab.max() + 1, np.nan))
        folded.append(lab)
        parent = lab
    return folded, support


def _sampled_theme(
    x: np.ndarray, inverse: np.ndarray, n_rows: int, settings: HierarchySettings
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``_one_theme`` for a theme of more than ``max_theme_size`` distinct rows ``x``: the tree of an evenly
    spaced sample, every other row placed at its nearest finest node, its coarser nodes following."""
    sample = np.linspace(0, len(x) - 1, settings.max_theme_size).round().astype(np.int64)
    counts = [min(len(sample), max(1, round(n_rows / s))) for s in settings.sizes]
    labels, runs = theme_tree(x[sample], counts, settings)
    folded, support = _folded_levels(x[sample], labels, runs, settings.min_size)
    finest = folded[-1]
    k = finest.max() + 1
    sums = np.zeros((k, x.shape[1]))
    np.add.at(sums, finest, x[sample])
    centroids = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
    placed = np.concatenate([np.argmax(x[i : i + 4096] @ centroids.T, axis=1) for i in range(0, len(x), 4096)])
    placed[sample] = finest
    out = []
    for lab in folded:  # a finest node's ancestor at each level, from its sampled papers
        up = np.zeros(k, dtype=np.int64)
        up[finest] = lab
        out.append(up[placed][inverse])
    return out, support


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
    n_levels = len(settings.levels)
    similarity = np.full(labels.shape, np.nan)
    strength = np.full(labels.shape, np.nan)
    for lv in range(n_levels):
        similarity[:, lv], strength[:, lv] = membership(emb, labels[:, lv])
    sizes = [
        {int(k): int(v) for k, v in zip(*np.unique(labels[labels[:, lv] >= 0, lv], return_counts=True), strict=True)}
        for lv in range(n_levels)
    ]
    timings = {"seconds": time.perf_counter() - start}
    return Hierarchy(settings.levels, labels, parents, sizes, stability, similarity, strength, timings)


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
    embeddings: np.ndarray, themes: Sequence[object], settings: HierarchySettings | None = None
) -> tuple[np.ndarray, list[dict[int, object]], list[dict[int, float]]]:
    """``fit_hierarchy``'s levels without the per-paper membership (what the tree stage caches): labels
    ``(n, levels)`` coarsest first (-1: no node), each node's parent (its theme at the top) and stability.

    Examples:
        >>> emb = np.eye(3)[[0, 0, 1, 1, 2, 2]] + 0.05
        >>> fit_levels(emb, ["A"] * 4 + ["B"] * 2, HierarchySettings(("topic",), (4,)))[1]
        [{0: 'A', 1: 'B'}]
    """
    settings = settings or HierarchySettings()
    emb = _unit_rows(embeddings)
    keys = _theme_keys(themes, len(emb))
    n_levels = len(settings.levels)
    labels = np.full((len(emb), n_levels), -1, dtype=np.int64)
    parents: list[dict[int, object]] = [{} for _ in range(n_levels)]
    stability: list[dict[int, float]] = [{} for _ in range(n_levels)]
    per_theme = {}
    for theme in sorted({k for k in keys if k is not None}, key=str):
        rows = np.flatnonzero(keys == theme)
        step("clustering the topics of theme %d (%s, %d papers)", len(per_theme) + 1, theme, len(rows))
        per_theme[theme] = (rows, *_one_theme(emb, rows, settings))
    next_id = 0
    for lv in range(n_levels):  # ids level by level, theme by theme, largest node first: unique across levels
        for theme, (rows, local, support) in per_theme.items():
            ids, counts = np.unique(local[lv], return_counts=True)
            for node in ids[np.argsort(-counts, kind="stable")]:
                members = rows[local[lv] == node]
                labels[members, lv] = next_id
                parents[lv][next_id] = theme if lv == 0 else int(labels[members[0], lv - 1])
                stability[lv][next_id] = float(support[lv][node])
                next_id += 1
    return labels, parents, stability

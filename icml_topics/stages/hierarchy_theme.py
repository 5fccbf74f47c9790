"""Inside one theme: the consensus of perturbed Ward trees and its levels (``stages/hierarchy.py``'s
``fit_hierarchy`` runs it once a theme).

A theme's distinct rows are clustered ``runs`` times on copies perturbed by Gaussian noise from a fixed
generator; the mean log size of the smallest node holding two papers is their consensus distance, and an
average-linkage tree of it is cut once a level (``theme_tree``). Nodes under ``min_size`` papers are folded
into their closest sibling. A theme (or node) of more than ``max_theme_size`` distinct rows is clustered on
an evenly spaced sample into its coarser levels, every row placed at its nearest node, and the finer levels
are built inside each placed node the same way (``one_theme``), so the cost grows linearly with its size.

    >>> import numpy as np
    >>> groups(np.array([1, 0, 1, -1]))
    [(0, array([1])), (1, array([0, 2]))]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.cluster.hierarchy import cophenet, fcluster, linkage
from scipy.spatial.distance import squareform
from threadpoolctl import threadpool_limits

from icml_topics.stages.hierarchy_settings import HierarchySettings
from icml_topics.stages.hierarchy_shape import MIN_BRANCHING

__all__ = ["NOISE_SEED", "SAMPLED_ROWS_A_NODE", "groups", "one_theme", "pair_distances", "perturb", "theme_tree"]

#: the noise generator's seed: fixed, so the hierarchy does not depend on ``random_state`` (stable by construction)
NOISE_SEED = 20240139


#: a level is clustered on the sample while the sample holds at least this many rows a node; finer levels are
#: built inside each placed node
SAMPLED_ROWS_A_NODE = 20


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


def pair_distances(x: np.ndarray) -> np.ndarray:
    """Condensed Euclidean distances between the L2-normalised rows of ``x`` (one BLAS product, not pdist):
    ``sqrt(2 - 2 cos)`` in float32 on the pairs ``i < j`` only (the upper triangle taken first: half the
    element-wise work and no square float64 copy), then float64 for ``linkage``."""
    x32 = np.asarray(x, dtype=np.float32)
    d = squareform(x32 @ x32.T, checks=False)  # the upper triangle, row by row: the condensed order
    d *= -2.0
    d += 2.0
    np.clip(d, 0.0, None, out=d)
    np.sqrt(d, out=d)
    return d.astype(np.float64)


def _size_distance(tree: np.ndarray) -> np.ndarray:
    """One run's condensed pair distance: the log size of the smallest node holding both (an ultrametric)."""
    by_size = tree.copy()
    by_size[:, 2] = np.log(tree[:, 3])  # merge height := log size of the merged node (monotone)
    return cophenet(by_size)


def _gap_count(tree: np.ndarray, k: int, most: int, low: float = 0.7, high: float = 1.4) -> int:
    """The node count in [low k, high k] whose cut sits in the widest gap between merge heights (a cut
    that a small shift of the heights does not move), at least ``min(k, MIN_BRANCHING)`` (a target of 3
    nodes is never cut into 2) and at most ``most`` (yet always two counts to choose from: a cut pinned to one
    count lost stability)."""
    heights = tree[::-1, 2]  # heights[j]: the merge that joins j + 2 clusters into j + 1
    lo = max(2, min(k, MIN_BRANCHING), int(np.floor(low * k)))
    hi = min(len(heights), max(min(int(np.ceil(high * k)), most), lo + 1))
    if hi <= lo or k <= 1:
        return k
    c = np.arange(lo, hi + 1)
    return int(c[np.argmax(heights[c - 2] - heights[c - 1])])


def _gap_counts(tree: np.ndarray, targets: list[int], n: int) -> list[int]:
    """Each level's node count (coarsest first) once every coarser level is cut at a gap (``_gap_count``),
    finest first, never into more nodes than the level below (nested) and, where that target allows, into few
    enough to leave it ``MIN_BRANCHING`` children a node; a level under a coarser one that took more nodes
    than its target then grows to ``MIN_BRANCHING`` children a node, down to nodes of half its target size."""
    counts = list(targets)
    for i in range(len(counts) - 2, -1, -1):
        most = max(counts[i], counts[i + 1] // MIN_BRANCHING)
        counts[i] = min(_gap_count(tree, counts[i], most), counts[i + 1])
    for i in range(1, len(counts)):
        counts[i] = max(counts[i], min(MIN_BRANCHING * counts[i - 1], 2 * targets[i], n))
    return counts


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
        >>> from icml_topics.stages.hierarchy_settings import HierarchySettings
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
        trees.append(linkage(pair_distances(xr), method="ward"))
        if runs > 1:
            total += _size_distance(trees[-1])
    if runs == 1:
        return [_cut(trees[0], k, n) for k in counts], [[] for _ in counts]
    dist = total / runs
    consensus = linkage(np.sqrt(dist) if settings.final_linkage == "ward" else dist, method=settings.final_linkage)
    if settings.gap_cut:
        counts = _gap_counts(consensus, list(counts), n)
    return [_cut(consensus, k, n) for k in counts], [[_cut(t, k, n) for t in trees] for k in counts]


def _fold_small(x: np.ndarray, labels: np.ndarray, parent: np.ndarray | None, min_size: int) -> np.ndarray:
    """``labels`` with every node under ``min_size`` rows merged into the sibling (same ``parent`` label)
    whose centroid is closest to its own, smallest node first (ties: lowest id), each merge updating the
    merged node's size and centroid; a node without a sibling stays. Labels come back as 0..k-1."""
    labels = np.unique(labels, return_inverse=True)[1].reshape(-1)
    k = int(labels.max()) + 1 if len(labels) else 0
    parent = np.zeros_like(labels) if parent is None else parent
    sizes = np.bincount(labels, minlength=k)
    sums = np.zeros((k, x.shape[1]))
    np.add.at(sums, labels, x)
    up = np.zeros(k, dtype=np.int64)
    up[labels] = parent
    into = np.arange(k)  # each node's node once merged
    alive = np.ones(k, dtype=bool)
    stuck: set[int] = set()  # small nodes without a sibling: they stay
    while True:
        small = np.flatnonzero(alive & (sizes < min_size))
        small = small[~np.isin(small, list(stuck))] if stuck else small
        if len(small) == 0:
            break
        node = int(small[np.lexsort((small, sizes[small]))[0]])
        siblings = np.flatnonzero(alive & (up == up[node]))
        siblings = siblings[siblings != node]
        if len(siblings) == 0:
            stuck.add(node)
            continue
        centroid = sums[node] / sizes[node]
        target = int(siblings[np.argmax((sums[siblings] / sizes[siblings, None]) @ centroid)])
        sums[target] += sums[node]
        sizes[target] += sizes[node]
        alive[node], sizes[node] = False, 0
        into[into == node] = target
    return np.unique(into[labels], return_inverse=True)[1].reshape(-1)


def groups(labels: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """Each label >= 0 with its rows (ascending), in one sort rather than one scan a node."""
    order = np.argsort(labels, kind="stable")
    ordered = labels[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(order) else np.array([], dtype=int)
    ends = np.r_[starts[1:], len(order)]
    return [(int(ordered[i]), order[i:j]) for i, j in zip(starts, ends, strict=True) if ordered[i] >= 0]


def one_theme(
    emb: np.ndarray, rows: np.ndarray, sizes: Sequence[float], settings: HierarchySettings
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Local labels per level (nested, 0..k-1) of the theme's ``rows`` (``sizes``: papers a node at each
    level, coarsest first) and each node's support. BLAS runs on one thread here (``threadpool_limits``): the
    products are small (a node's rows, at most ``max_theme_size``) and many (16 a consensus), and OpenBLAS's second
    thread spinning on each cost 3x the CPU of a 170-row consensus on a busy 2-core machine (0.18 vs 0.05 s), the
    same result (each product's sums are not split between threads)."""
    with threadpool_limits(limits=1, user_api="blas"):
        keep, inverse = _distinct(emb[rows])
        x = emb[rows][keep].astype(np.float64)
        labels, support = _cluster(x, np.bincount(inverse, minlength=len(keep)), sizes, settings)
    return [lab[inverse] for lab in labels], support


def _cluster(
    x: np.ndarray, weight: np.ndarray, sizes: Sequence[float], settings: HierarchySettings
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Nested labels per level of distinct rows ``x`` (``weight``: papers each row stands for) into
    ``round(papers / size)`` nodes a level, and each node's support. Above ``max_theme_size`` rows: the coarser
    levels from a sample (``_sampled``), the finer ones inside each placed node."""
    n_rows = int(weight.sum())
    counts = [int(min(len(x), max(1, round(n_rows / s)))) for s in sizes]
    if len(x) > settings.max_theme_size:
        return _sampled(x, weight, counts, sizes, settings)
    labels, runs = theme_tree(x, counts, settings)
    if settings.refine:
        from icml_topics.stages.hierarchy_refine import refine_levels  # lazy: keeps TopicMap and the CLI light

        labels = refine_levels(x, labels, settings.refine)
    return _folded_levels(x, labels, runs, settings.min_size)


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


def _sampled(
    x: np.ndarray, weight: np.ndarray, counts: list[int], sizes: Sequence[float], settings: HierarchySettings
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``_cluster`` for more than ``max_theme_size`` distinct rows ``x``: the coarser levels (at least the top
    one; those of at most ``sample / SAMPLED_ROWS_A_NODE`` nodes) from the tree of an evenly spaced sample,
    every other row placed at its nearest node of the deepest of them (cosine to its centroid), its coarser
    nodes following; each finer level built inside each placed node by ``_cluster``."""
    sample = np.linspace(0, len(x) - 1, settings.max_theme_size).round().astype(np.int64)
    top = max(1, sum(c <= len(sample) / SAMPLED_ROWS_A_NODE for c in counts))
    labels, runs = theme_tree(x[sample], [min(c, len(sample)) for c in counts[:top]], settings)
    folded, support = _folded_levels(x[sample], labels, runs, settings.min_size)
    deepest = folded[-1]
    k = deepest.max() + 1
    sums = np.zeros((k, x.shape[1]))
    np.add.at(sums, deepest, x[sample])
    centroids = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
    placed = np.concatenate([np.argmax(x[i : i + 4096] @ centroids.T, axis=1) for i in range(0, len(x), 4096)])
    placed[sample] = deepest
    out = []
    for lab in folded:  # a node's ancestor at each level, from its sampled papers
        up = np.zeros(k, dtype=np.int64)
        up[deepest] = lab
        out.append(up[placed])
    finer = [np.zeros(len(x), dtype=np.int64) for _ in sizes[top:]]
    finer_support: list[list[np.ndarray]] = [[] for _ in sizes[top:]]
    offsets = [0] * len(finer)
    for _, members in groups(placed) if finer else ():
        sub, sub_support = _cluster(x[members], weight[members], sizes[top:], settings)
        for level, (lab, sup) in enumerate(zip(sub, sub_support, strict=True)):
            finer[level][members] = lab + offsets[level]
            offsets[level] += int(lab.max()) + 1
            finer_support[level].append(sup)
    return out + finer, support + [np.concatenate(s) for s in finer_support]

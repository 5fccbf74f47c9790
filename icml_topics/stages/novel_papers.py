"""Step 1 of a new subject (``new_subjects.py``): the papers of the latest period whose nearest papers are of
the latest period more often than chance allows.

Identical embeddings are one point (identical abstracts make no subject). ``Neighbours`` finds each point's
nearest points once, on every paper; the stability reruns (each leaving a tenth of the papers out) read
their neighbours from it instead of searching again: a point's ``k`` nearest among the papers a rerun keeps
are the first ``k`` kept ones of its list, and a point whose list keeps fewer is searched again in full. So a
rerun finds exactly the neighbours a search on its own papers finds, and the search runs once instead of
once per rerun.

Examples:
    >>> import numpy as np
    >>> emb = np.array([[1, 0, 0], [1, .1, 0], [1, 0, .1], [0, 1, 0], [.1, 1, 0], [0, 1, .1]], np.float32)
    >>> emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    >>> latest = np.array([False, False, False, True, True, True])
    >>> novel, near = novel_papers(emb, np.arange(6), latest, alpha=0.2, k_range=(2, 2))
    >>> novel.tolist(), np.sort(near, axis=1).tolist()
    ([3, 4, 5], [[4, 5], [3, 5], [3, 4]])
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import hypergeom

__all__ = ["MARGIN", "Neighbours", "dense_groups", "novel_outside", "novel_papers"]

MARGIN = 30
"""Neighbours kept per point beyond the most a paper reads: with a tenth of the papers left out, a list of 80
keeps fewer than 50 only when more than 30 of them are left out, a binomial chance of about 1e-11 (and such a
point is searched again)."""

_CHUNK = 1024


def _nearest(ref: np.ndarray, queries: np.ndarray, k: int, present: np.ndarray | None = None) -> np.ndarray:
    """The ``k`` points of ``ref`` (only those ``present``) most similar to each of ``queries`` (indices into
    ``ref``), each row most similar first, a point never its own neighbour."""
    out = np.empty((len(queries), k), dtype=np.int64)
    for start in range(0, len(queries), _CHUNK):
        chunk = queries[start : start + _CHUNK]
        sims = ref[chunk] @ ref.T
        sims[np.arange(len(chunk)), chunk] = -np.inf
        if present is not None:
            sims[:, ~present] = -np.inf
        part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        order = np.argsort(-np.take_along_axis(sims, part, axis=1), axis=1, kind="stable")
        out[start : start + _CHUNK] = np.take_along_axis(part, order, axis=1)
    return out


@dataclass(frozen=True)
class Neighbours:
    """Every point's nearest points among the papers ``rows`` (``Neighbours.of``), for reruns on subsets."""

    point_of: np.ndarray  # each corpus row's point (-1: not among rows)
    ref: np.ndarray  # each point's embedding
    near: np.ndarray  # each point's nearest points, most similar first (rows of points with no latest paper: -1)

    @classmethod
    def of(cls, emb: np.ndarray, rows: np.ndarray, latest: np.ndarray, k_max: int) -> Neighbours:
        """The neighbour lists of the points of ``rows`` that hold a paper of the latest period."""
        _, first, inverse = np.unique(emb[rows], axis=0, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        point_of = np.full(len(emb), -1, dtype=np.int64)
        point_of[rows] = inverse
        ref = emb[rows[first]]
        has_latest = np.bincount(inverse, weights=latest[rows], minlength=len(first)) > 0
        near = np.full((len(first), max(min(k_max + MARGIN, len(first) - 1), 1)), -1, dtype=np.int64)
        queries = np.flatnonzero(has_latest)
        if len(first) > 1 and len(queries):
            near[queries] = _nearest(ref, queries, near.shape[1])
        return cls(point_of, ref, near)


def _subset_nearest(index: Neighbours, points: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` nearest of ``points`` (sorted point ids of a subset) to each of ``queries`` (positions in
    ``points``), as positions in ``points``: read from the lists, searched again where a list keeps fewer."""
    present = np.zeros(len(index.ref), dtype=bool)
    present[points] = True
    lists = index.near[points[queries]]
    kept = present[np.maximum(lists, 0)] & (lists >= 0)
    enough = kept.sum(axis=1) >= k
    out = np.empty((len(queries), k), dtype=np.int64)
    rank = np.cumsum(kept, axis=1)
    pick = kept & (rank <= k)
    out[enough] = lists[enough][pick[enough]].reshape(-1, k)
    short = np.flatnonzero(~enough)
    if len(short):
        out[short] = _nearest(index.ref, points[queries[short]], k, present)
    return np.searchsorted(points, out)


def novel_papers(
    emb: np.ndarray,
    rows: np.ndarray,
    latest: np.ndarray,
    alpha: float,
    k_range: tuple[int, int],
    index: Neighbours | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The rows (of ``rows``, a subset of the corpus) of the latest period whose ``k`` nearest rows among
    ``rows`` are of the latest period more often than chance allows at ``alpha`` (hypergeometric tail), and
    each one's ``k`` nearest rows (corpus indices). Identical embeddings are one point, of the latest period
    only when all its rows are. ``index``: ``Neighbours`` of a superset of ``rows`` (``None``: search here)."""
    if index is None:
        index = Neighbours.of(emb, rows, latest, k_range[1])
    point = index.point_of[rows]
    points, first, inverse = np.unique(point, return_index=True, return_inverse=True)
    point_latest = np.bincount(inverse, weights=~latest[rows], minlength=len(first)) == 0
    n, n_latest = len(first), int(point_latest.sum())
    p = (n_latest - 1) / max(n - 1, 1)
    if n_latest < 2 or p >= 1:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 1), dtype=np.int64)
    k = int(np.clip(math.ceil(math.log(alpha) / math.log(p)), *k_range)) if p > 0 else k_range[0]
    k = min(k, n - 1)
    queries = np.flatnonzero(point_latest)
    near = _subset_nearest(index, points, queries, k)
    hits = point_latest[near].sum(axis=1)
    tail = hypergeom.sf(np.arange(-1, k), n - 1, n_latest - 1, k)  # tail[h]: P(at least h) by chance
    novel = tail[hits] <= alpha
    position = np.full(n, -1)
    position[queries[novel]] = np.arange(int(novel.sum()))
    members = np.flatnonzero(position[inverse] >= 0)  # every row of a novel point
    return rows[members], rows[first[near[novel]]][position[inverse[members]]]


def novel_outside(
    emb: np.ndarray, sample: np.ndarray, queries: np.ndarray, latest: np.ndarray, alpha: float, k_range: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """The ``queries`` (rows outside ``sample``, of the latest period) that are novel against ``sample``: their ``k``
    nearest rows of ``sample`` are of the latest period more often than chance allows at ``alpha`` (``k`` and the
    chance as ``novel_papers`` sets them on ``sample``), and each one's ``k`` nearest (corpus rows, nearest first).
    One pass over ``sample`` per query: linear in the queries."""
    n, n_latest = len(sample), int(latest[sample].sum())
    p = n_latest / max(n, 1)
    if n_latest < 1 or p >= 1 or not len(queries):
        return np.zeros(0, dtype=np.int64), np.zeros((0, 1), dtype=np.int64)
    k = int(np.clip(math.ceil(math.log(alpha) / math.log(p)), *k_range)) if p > 0 else k_range[0]
    k = min(k, n)
    ref = np.ascontiguousarray(emb[sample])
    near = np.empty((len(queries), k), dtype=np.int64)
    for start in range(0, len(queries), _CHUNK):
        sims = emb[queries[start : start + _CHUNK]] @ ref.T
        part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        order = np.argsort(-np.take_along_axis(sims, part, axis=1), axis=1, kind="stable")
        near[start : start + _CHUNK] = sample[np.take_along_axis(part, order, axis=1)]
    hits = latest[near].sum(axis=1)
    tail = hypergeom.sf(np.arange(-1, k), n, n_latest, k)  # tail[h]: P(at least h) by chance
    novel = tail[hits] <= alpha
    return queries[novel], near[novel]


def dense_groups(
    emb: np.ndarray, novel: np.ndarray, near: np.ndarray, min_size: int, max_size: int
) -> list[np.ndarray]:
    """Step 2 of a new subject: groups of ``novel`` rows joined by being among each other's nearest rows (``near``; connected components
    of that graph), a group over ``max_size`` cut by average linkage into pieces of about half that; the groups
    of at least ``min_size`` rows, largest first."""
    if len(novel) < min_size:
        return []
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    position = np.full(len(emb), -1, dtype=np.int64)
    position[novel] = np.arange(len(novel))
    b = position[np.asarray(near, dtype=np.int64).ravel()]
    a = np.repeat(np.arange(len(novel)), np.asarray(near).shape[1])[b >= 0]
    b = b[b >= 0]
    graph = coo_matrix((np.ones(len(a)), (a, b)), shape=(len(novel), len(novel)))
    _, component = connected_components(graph, directed=False)
    order = np.argsort(component, kind="stable")  # each component's rows in ``novel``'s order
    cuts = np.flatnonzero(np.diff(component[order])) + 1
    groups = []
    for part in np.split(order, cuts):
        members = novel[part]
        if len(members) < min_size:  # no piece of it can reach ``min_size``
            continue
        if len(members) > max_size:
            x = emb[members].astype(np.float64)
            cut = fcluster(
                linkage(x, method="average", metric="cosine"), math.ceil(2 * len(members) / max_size), "maxclust"
            )
            groups += [members[cut == c2] for c2 in np.unique(cut)]
        else:
            groups.append(members)
    groups = [g for g in groups if len(g) >= min_size]
    return sorted(groups, key=lambda g: (-len(g), int(g[0])))

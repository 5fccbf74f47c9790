"""A subject new in the latest period, as a node of its own in the one hierarchy (issue 49, item 3).

The hierarchy cuts each theme's consensus tree at a fixed node size, so a subject that only the latest
period has (a planted set of papers, RL with verifiable rewards in 2026) is spread over nodes whose older
papers dilute it: none is *new*. This pass runs after the hierarchy, on the same embeddings, and makes such
a subject one node:

1. **Papers of the latest period whose neighbourhood is of the latest period.** For each paper of the latest
   period (the last ``year`` with at least ``MIN_PERIOD_PAPERS`` papers) its ``k`` nearest papers (cosine,
   all periods up to the latest) are counted by period. If years carried no information (any relabelling
   equally likely), that count is hypergeometric: ``k`` draws from the other papers, of which the latest
   period's share is ``p``. A paper is *novel* when so many of its neighbours are of the latest period that
   the chance of it is at most ``paper_alpha`` (0.001). ``k`` is the smallest count for which a
   neighbourhood of the latest period alone can reach that (``log(alpha) / log(p)``, 10 to 50).
2. **Subjects among the novel papers.** Two novel papers are joined when one is among the other's ``k``
   nearest papers; each connected group of at least ``min_size`` papers (half the finest level's target
   size, at least 10) is a candidate subject (a group over twice the coarsest target size is cut by average
   linkage into pieces of about that size). Deterministic, no cluster count to choose. HDBSCAN was tried
   first: on the 384-dimensional vectors of 66 novel papers, 59 of them one planted subject, it kept 12 and
   called the rest noise (density in that many dimensions is nearly flat), so the neighbour graph the test
   already reads is used instead.
3. **The node.** A cluster takes, besides its papers, every paper of any period closer to the cluster's
   centroid than to its own finest node's centroid and at least as close as the cluster's own 10%-quantile
   paper: a subject's older papers come with it (then the node is *emerging*, not *new*). The node enters
   the hierarchy at its top level, under the theme most of its papers have; its papers are clustered again
   by the hierarchy's own rule (``fit_levels``) into the finer levels below it (``new_subject_nodes.py``).
4. **Noise is not a subject.** A cluster becomes a node only if (a) the node's count of latest-period papers
   is significant at ``node_alpha`` (one-sided exact test against the share ``p``) and (b) it reappears
   (Jaccard >= 0.5) in at least ``MIN_STABILITY`` of ``runs`` reruns of steps 1-3 on the corpus with a
   different 10% of its papers left out (a fixed generator: no seed dependence). Its ``stability`` is that
   share, and its papers are those it holds in at least half of the runs where it reappears (bagging: one run's
   node moves with each borderline neighbour count, the majority less; below the search cap). Under a random
   relabelling of the years step 1 flags about ``paper_alpha`` of the papers, scattered, and no cluster survives
   (``tests/stages/test_new_subjects.py``).
5. **Bounded cost.** Steps 1-4 read every searched paper's nearest papers (a search of the latest period's papers
   against all searched papers) and cluster the novel ones: quadratic in the papers searched. A corpus of more
   than ``max_papers`` (20,000) is searched on a fixed random sample of that many (each period in about its
   share, so the same chance model). Each subject kept there then takes the latest-period papers outside the
   sample that are novel against the sample (their nearest sampled papers, step 1's test) and have a paper of
   its core among those nearest (step 2's rule), and is grown over every paper by step 3: one pass of those
   papers against the sample, linear in the corpus. A subject needs ``min_size`` papers in the sample: about
   ``min_size * n / max_papers`` in a corpus of ``n`` (600 at a million), a node worth a top level there.

Why this and not a cut of the tree where a branch is mostly of the latest period: the consensus tree is
built inside each theme, and a new subject is often split across themes (RLVR papers fall under
reinforcement learning and under language models), and its papers may sit in branches already merged with
older work below the cut; the neighbourhood test reads the embeddings themselves, across themes.

The statuses are not decided here: ``compare.topic_status`` tests every node, new ones included, with the
same exact test, interval and FDR; the node is ``new`` there when earlier periods hold at most
``new_max`` of its papers each, ``emerging`` otherwise.

    >>> found = find_new_subjects(emb, years, finest_labels, (90.0, 24.0))  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import hypergeom

from icml_topics.stages.hierarchy import MIN_STABILITY, NOISE_SEED
from icml_topics.stages.novel_papers import Neighbours, dense_groups, novel_outside, novel_papers
from icml_topics.stages.representatives import label_rows

__all__ = [
    "CACHE_VERSION",
    "MIN_PERIOD_PAPERS",
    "NewSubjectSettings",
    "candidate_subjects",
    "find_new_subjects",
    "grown_subject",
    "period_values",
]

CACHE_VERSION = "new-subjects-v6"  # v6: bagged rows (``_rerun_votes``); keys the nodes ``new_subject_nodes`` caches

#: the latest period needs this many papers to have a new subject (as ``compare.periods.MIN_PERIOD_PAPERS``)
MIN_PERIOD_PAPERS = 30


@dataclass(frozen=True)
class NewSubjectSettings:
    """How a new subject is found (see the module docstring).

    Args:
        paper_alpha: a latest-period paper is novel when its neighbours' periods are this unlikely by chance.
        node_alpha: a node's count of latest-period papers must be this unlikely by chance.
        min_neighbours: the least neighbours read per paper.
        max_neighbours: the most neighbours read per paper.
        min_size: the least papers of a new subject (0: half the finest level's target size, at least 10).
        runs: reruns with a tenth of the papers left out, for the node's stability.
        drop: the share of papers each rerun leaves out.
        min_stability: the least share of reruns a new node reappears in.
        max_papers: the most papers searched (steps 1-4): a larger corpus is searched on a fixed random sample
            of this many, and each subject found there is grown (step 3) over every paper.

    Examples:
        >>> NewSubjectSettings().paper_alpha
        0.001
    """

    paper_alpha: float = 1e-3
    node_alpha: float = 1e-3
    min_neighbours: int = 10
    max_neighbours: int = 50
    min_size: int = 0
    runs: int = 8
    drop: float = 0.1
    min_stability: float = MIN_STABILITY
    max_papers: int = 20_000


def period_values(periods: Sequence[object] | None) -> np.ndarray | None:
    """``periods`` as floats (NaN: unknown), or None when they are not numbers or fewer than two values.

    >>> period_values([2019, 2024, None]).tolist(), period_values(["ICML", "ICLR"])
    ([2019.0, 2024.0, nan], None)
    """
    if periods is None:
        return None
    try:
        values = np.array([np.nan if v is None else float(v) for v in periods], dtype=float)
    except (TypeError, ValueError):
        return None
    return values if len(np.unique(values[~np.isnan(values)])) >= 2 else None


def _latest(values: np.ndarray) -> float | None:
    """The last period with at least ``MIN_PERIOD_PAPERS`` papers and an earlier period as large, or None."""
    known = values[~np.isnan(values)]
    periods, counts = np.unique(known, return_counts=True)
    big = periods[counts >= MIN_PERIOD_PAPERS]
    return float(big[-1]) if len(big) >= 2 else None


def grown_subject(
    emb: np.ndarray, core: np.ndarray, finest: np.ndarray, rows: np.ndarray, taken: np.ndarray,
    node_rows: dict[int, np.ndarray] | None = None,
) -> np.ndarray:  # fmt: skip
    """``core`` and every row of ``rows`` (not ``taken``) closer to the core's centroid than to its own finest
    node's centroid (that node without the core) and at least as close as the core's 10%-quantile row.
    ``node_rows``: ``label_rows(finest[rows])`` (positions in ``rows`` of each node), computed once for every core
    of ``rows`` rather than one scan of ``rows`` a node a core."""
    node_rows = label_rows(finest[rows]) if node_rows is None else node_rows
    centroid = emb[core].mean(axis=0)
    centroid /= max(float(np.linalg.norm(centroid)), 1e-12)
    sim = emb[rows] @ centroid
    floor = float(np.quantile(emb[core] @ centroid, 0.1))
    in_core = np.isin(rows, core)
    candidates = rows[(sim >= floor) & ~in_core & ~taken[rows]]
    joined = []
    for node in np.unique(finest[candidates]):
        at = node_rows[int(node)]
        members = rows[at[~in_core[at]]]
        own = emb[members].mean(axis=0)
        own /= max(float(np.linalg.norm(own)), 1e-12)
        these = candidates[finest[candidates] == node]
        joined.append(these[emb[these] @ centroid > emb[these] @ own])
    return np.union1d(core, np.concatenate(joined)) if joined else np.sort(core)


def candidate_subjects(
    emb: np.ndarray, rows: np.ndarray, latest: np.ndarray, finest: np.ndarray, settings: NewSubjectSettings,
    sizes: tuple[int, int], index: Neighbours,
) -> list[tuple[np.ndarray, np.ndarray]]:  # fmt: skip
    """Steps 1-3 on ``rows`` (``index``: every paper's nearest papers, read for ``rows``): each candidate
    subject's core (its novel papers) and rows (grown), largest core first, the rows disjoint."""
    k_range = (settings.min_neighbours, settings.max_neighbours)
    novel, near = novel_papers(emb, rows, latest, settings.paper_alpha, k_range, index)
    taken = np.zeros(len(emb), dtype=bool)
    out = []
    node_rows = label_rows(finest[rows])
    for core in dense_groups(emb, novel, near, *sizes):
        node = grown_subject(emb, core, finest, rows, taken, node_rows)
        taken[node] = True
        out.append((core, node))
    return out


def _searched(rows: np.ndarray, max_papers: int) -> np.ndarray:
    """``rows``, or a fixed random sample of ``max_papers`` of them (sorted) when there are more."""
    if len(rows) <= max_papers:
        return rows
    return np.sort(np.random.default_rng(NOISE_SEED + 1).choice(rows, max_papers, replace=False))


def _grown_everywhere(
    emb: np.ndarray, cores: list[np.ndarray], finest: np.ndarray, rows: np.ndarray, searched: np.ndarray,
    latest: np.ndarray, settings: NewSubjectSettings,
) -> list[np.ndarray]:  # fmt: skip
    """Each subject's ``core`` (found on the sample ``searched``) with the latest-period ``rows`` outside the
    sample that are novel against it and have a paper of that core among their nearest (step 2's rule, read
    one way), then grown over all ``rows`` (step 3); in order, disjoint."""
    outside = rows[latest[rows] & ~np.isin(rows, searched)]
    novel, near = novel_outside(
        emb, searched, outside, latest, settings.paper_alpha, (settings.min_neighbours, settings.max_neighbours)
    )
    core_of = np.full(len(emb), -1, dtype=np.int64)
    for i, core in enumerate(cores):
        core_of[core] = i
    ids = core_of[near]  # each novel row's nearest papers' cores: it joins the core of the nearest in one
    first = ids[np.arange(len(novel)), np.argmax(ids >= 0, axis=1)] if len(novel) else np.zeros(0, np.int64)
    taken = np.zeros(len(emb), dtype=bool)
    node_rows = label_rows(finest[rows])
    out = []
    for i, core in enumerate(cores):
        node = grown_subject(emb, np.union1d(core, novel[first == i]), finest, rows, taken, node_rows)
        taken[node] = True
        out.append(node)
    return out


def _significant(node: np.ndarray, rows: np.ndarray, latest: np.ndarray, alpha: float) -> bool:
    """The node's latest-period papers are more than chance allows at ``alpha`` (one-sided exact test)."""
    n_latest = int(latest[rows].sum())
    return bool(hypergeom.sf(int(latest[node].sum()) - 1, len(rows), n_latest, len(node)) <= alpha)


def _jaccard(a: np.ndarray, b: np.ndarray) -> float:
    union = len(np.union1d(a, b))
    return len(np.intersect1d(a, b)) / union if union else 0.0


def find_new_subjects(
    embeddings: np.ndarray,
    periods: Sequence[object],
    finest: np.ndarray,
    sizes: Sequence[int],
    settings: NewSubjectSettings | None = None,
) -> list[tuple[np.ndarray, float]]:
    """The subjects new in the latest period: each node's rows and its stability (share of reruns with a
    tenth of the papers left out in which it reappears), largest first; empty when ``periods`` are not
    ordered numbers or no period but the latest has ``MIN_PERIOD_PAPERS`` papers.

    Args:
        embeddings: one L2-normalised row per paper.
        periods: each paper's period (e.g. its year; None: unknown).
        finest: each paper's node at the hierarchy's finest level (-1: none).
        sizes: the hierarchy's target node sizes, coarsest first.
        settings: the thresholds; ``None``: ``NewSubjectSettings()``.
    """
    settings = settings or NewSubjectSettings()
    values = period_values(periods)
    last = _latest(values) if values is not None else None
    if last is None:
        return []
    emb = np.asarray(embeddings, dtype=np.float32)
    latest = values == last
    rows = np.flatnonzero(~np.isnan(values) & (values <= last) & (finest >= 0))
    searched = _searched(rows, settings.max_papers)  # the search's cost is bounded by the sample, not the corpus
    min_size = settings.min_size or max(10, int(sizes[-1]) // 2)
    bounds = (min_size, max(2 * int(sizes[0]), 2 * min_size))
    index = Neighbours.of(emb, searched, latest, settings.max_neighbours)  # searched once, read by every rerun
    found = [
        c for c in candidate_subjects(emb, searched, latest, finest, settings, bounds, index) if len(c[1]) >= min_size
    ]
    found = [c for c in found if _significant(c[1], searched, latest, settings.node_alpha)]
    if not found:
        return []
    stability, votes, present = _rerun_votes(emb, searched, latest, finest, settings, bounds, index, found)
    stable = np.flatnonzero(stability >= settings.min_stability)
    kept_found = [(found[i], float(stability[i])) for i in stable]
    if len(searched) == len(rows):  # each subject's rows: the majority over its runs (empty: taken by a larger one)
        bagged = zip(_bagged(votes[stable], present[stable]), stability[stable].tolist(), strict=True)
        return [(node, s) for node, s in bagged if len(node) >= min_size]
    nodes = _grown_everywhere(emb, [core for (core, _), _ in kept_found], finest, rows, searched, latest, settings)
    return [(node, s) for node, (_, s) in zip(nodes, kept_found, strict=True)]


def _rerun_votes(
    emb: np.ndarray, searched: np.ndarray, latest: np.ndarray, finest: np.ndarray, settings: NewSubjectSettings,
    bounds: tuple[int, int], index: Neighbours, found: list[tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Steps 1-3 rerun ``settings.runs`` times with a tenth of ``searched`` left out: each found subject's stability
    (the share of reruns holding a node with Jaccard >= 0.5 to it), and per subject and row the runs that put the
    row in the subject (``votes``) and the runs where the subject reappears with the row kept (``present``; the
    run on every paper counts in both), for ``_bagged``."""
    hits = np.zeros(len(found))
    votes = np.zeros((len(found), len(emb)), dtype=np.int32)
    present = np.zeros((len(found), len(emb)), dtype=np.int32)
    for i, (_, node) in enumerate(found):  # the run on every paper
        votes[i, node] += 1
        present[i, searched] += 1
    rng = np.random.default_rng(NOISE_SEED)
    for _ in range(settings.runs):
        kept = searched[rng.random(len(searched)) >= settings.drop]
        again = [node for _, node in candidate_subjects(emb, kept, latest, finest, settings, bounds, index)]
        for i, (_, node) in enumerate(found):
            mine = np.intersect1d(node, kept)
            scores = [_jaccard(mine, other) for other in again]
            if scores and max(scores) >= 0.5:
                hits[i] += 1
                votes[i, again[int(np.argmax(scores))]] += 1
                present[i, kept] += 1
    return hits / max(settings.runs, 1), votes, present


def _bagged(votes: np.ndarray, present: np.ndarray) -> list[np.ndarray]:
    """Each subject's rows (in order, disjoint): those in it in at least half of the runs where it reappears with
    them kept (``_rerun_votes``). One run's node moves with each borderline neighbour count (ICML: a subject of 438
    papers kept 77% of them on embeddings perturbed at the int8 scale); the majority moves less
    (``benchmarks/results/hierarchy_stability_icml_default.md``).

        >>> [n.tolist() for n in _bagged(np.array([[3, 1, 0, 2]]), np.array([[3, 3, 0, 3]]))]
        [[0, 3]]
    """
    taken = np.zeros(votes.shape[1], dtype=bool)
    nodes = []
    for v, p in zip(votes, present, strict=True):
        node = np.flatnonzero((2 * v >= p) & (p > 0) & ~taken)
        taken[node] = True
        nodes.append(node)
    return nodes

"""Each subject new in the latest period (``new_subjects.find_new_subjects``) made a node of the one hierarchy.

The subject's node enters the tree at its top level, under the theme most of its papers have, and its papers
are clustered again by the hierarchy's own rule (``fit_levels``) into the finer levels below it; nodes it
empties are removed. The subjects are cached by content.

    >>> levels = new_subject_levels(emb, groups, years, labels, parents, stability, settings)  # doctest: +SKIP
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from icml_topics.stages.hierarchy import HierarchySettings, fit_levels
from icml_topics.stages.hierarchy_shape import level_sizes
from icml_topics.stages.new_subjects import CACHE_VERSION, NewSubjectSettings, find_new_subjects, period_values
from icml_topics.store.cache import cached_json, content_key

__all__ = ["Levels", "new_subject_levels", "target_sizes"]

#: a hierarchy: labels (one column per level, coarsest first), each level's node -> parent, node -> stability
Levels = tuple[np.ndarray, list[dict[int, object]], list[dict[int, float]]]


def target_sizes(settings: HierarchySettings) -> tuple[float, ...]:
    """The hierarchy's target node sizes, coarsest first; with ``branching``, a node ``branching`` times the finest
    above the finest (what a coarser level holds)."""
    if settings.branching is None:
        return tuple(settings.sizes)
    return (settings.sizes[0] * settings.branching, settings.sizes[0])


def _below(settings: HierarchySettings, depth: int, n: int) -> HierarchySettings:
    """The settings of the ``depth - 1`` levels under a new subject's node of ``n`` papers: the tree's own sizes
    below its top level, or with ``branching`` sizes that follow the subject's papers (``level_sizes``)."""
    if settings.branching is None:
        return replace(settings, levels=settings.levels[1:depth], sizes=settings.sizes[1:depth])
    sizes = tuple(max(1, round(s)) for s in level_sizes(n, finest=settings.sizes[0], depth=depth - 1))
    return replace(settings, levels=settings.levels[1:depth], sizes=sizes, branching=None)


def _with_subject(levels: Levels, node: np.ndarray, stability: float, emb: np.ndarray, groups: Sequence[str],
                  settings: HierarchySettings) -> Levels:  # fmt: skip
    """``levels`` (coarsest first) with ``node``'s rows moved into a new top-level node under their most common
    group, clustered into the finer levels by ``fit_levels``; nodes left empty are removed."""
    labels, parents, stab = levels[0].copy(), [dict(p) for p in levels[1]], [dict(s) for s in levels[2]]
    next_id = int(max((max(p) for p in parents if p), default=-1)) + 1
    theme = min(Counter(groups[i] for i in node).items(), key=lambda kv: (-kv[1], str(kv[0])))[0]
    labels[node, 0] = next_id
    parents[0][next_id], stab[0][next_id] = theme, stability
    depth = labels.shape[1]  # the tree's levels (with ``branching``, fewer than ``settings.levels``)
    if depth > 1:
        sub, sub_parents, sub_stab = fit_levels(emb[node], [theme] * len(node), _below(settings, depth, len(node)))
        offset = next_id + 1
        labels[node, 1:] = sub + offset
        for lv in range(1, depth):
            for old, parent in sub_parents[lv - 1].items():
                parents[lv][old + offset] = next_id if lv == 1 else int(parent) + offset
                stab[lv][old + offset] = sub_stab[lv - 1][old]
    for lv in range(labels.shape[1]):  # nodes the subject emptied
        present = set(labels[:, lv].tolist())
        for gone in [t for t in parents[lv] if t not in present]:
            del parents[lv][gone]
            stab[lv].pop(gone, None)
    return labels, parents, stab


def new_subject_levels(
    embeddings: np.ndarray,
    groups: Sequence[str],
    periods: Sequence[object] | None,
    labels: np.ndarray,
    parents: list[dict[int, object]],
    stability: list[dict[int, float]],
    settings: HierarchySettings,
    *,
    subject_settings: NewSubjectSettings | None = None,
    cache_dir: Path | None = None,
) -> Levels:
    """``fit_levels``' result (``labels`` coarsest first, ``parents``, ``stability``) with every subject new
    in the latest period (``find_new_subjects``) made a top-level node of its own, cached by content.
    Unchanged when ``periods`` is None or not ordered numbers.

    Args:
        embeddings: one L2-normalised row per paper.
        groups: each paper's theme (the hierarchy's groups).
        periods: each paper's period (e.g. its year); None: no pass.
        labels: the hierarchy's labels, coarsest first.
        parents: each level's node -> parent (the theme at the top level).
        stability: each level's node -> stability.
        settings: the hierarchy's settings (levels and sizes).
        subject_settings: the pass's thresholds; ``None``: ``NewSubjectSettings()``.
        cache_dir: where the result is cached; ``None``: not cached.
    """
    values = period_values(periods)
    if values is None:
        return labels, parents, stability
    subject_settings = subject_settings or NewSubjectSettings()
    emb = np.asarray(embeddings, dtype=np.float32)
    key = content_key(
        CACHE_VERSION, np.ascontiguousarray(emb), list(groups), values, np.ascontiguousarray(labels), settings,
        subject_settings,
    )  # fmt: skip

    def compute() -> dict:
        found = find_new_subjects(emb, values, labels[:, -1], target_sizes(settings), subject_settings)
        return {"nodes": [node.tolist() for node, _ in found], "stability": [s for _, s in found]}

    def valid(value: object) -> bool:
        return isinstance(value, dict) and isinstance(value.get("nodes"), list)

    value = cached_json(key, compute, cache_dir, check=valid)
    levels: Levels = (labels, parents, stability)
    for node, stab in zip(value["nodes"], value["stability"], strict=True):
        levels = _with_subject(levels, np.asarray(node, dtype=np.int64), float(stab), emb, groups, settings)
    return levels

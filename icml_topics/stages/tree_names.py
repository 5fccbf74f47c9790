"""Names for every node of the topic tree, top-down, each told apart from its siblings (issue 39, item 3).

The top level's nodes are named as siblings under their research theme, each lower level's under its
parent's new name ([`sibling_names`][icml_topics.stages.sibling_names.sibling_names]: the phrases of
the node's own titles and author keywords that its siblings' papers do not say); a name is never
repeated within a level. A node without a phrase of its own, or without a sibling to tell it apart from
(the only child of its parent), keeps its keyphrase name (``fallback``).
Names are cached by content (they take ~20 s on 5,600 papers and are the same for the same nodes).

    >>> names = name_levels(labels, parents, themes, titles, texts, fallback)  # doctest: +SKIP
    >>> names[-1][labels[0, -1]]  # doctest: +SKIP
    'offline reinforcement learning'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from icml_topics.stages.sibling_names import ChildPapers, sibling_names
from icml_topics.store.cache import cached_json, content_key

__all__ = ["name_levels", "node_theme"]

_VERSION = "tree-names-v8"
_TITLE_WORDS = 14  # a paper without a title is represented by the first words of its text


def node_theme(labels: np.ndarray, themes: Sequence[str]) -> dict[int, str]:
    """Each node's theme: the most common theme of its papers (ties: the first in name order).

    >>> node_theme(np.array([3, 3, 4]), ["RL", "RL", "Graphs"])
    {3: 'RL', 4: 'Graphs'}
    """
    out: dict[int, str] = {}
    counts: dict[int, Counter] = {}
    for node, theme in zip(labels.tolist(), themes, strict=True):
        if node >= 0:
            counts.setdefault(node, Counter())[str(theme or "")] += 1
    for node, c in counts.items():
        out[node] = min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return out


def _papers(
    rows: np.ndarray, titles: Sequence[str], author_keywords: Sequence[Sequence[str]] | None, texts: Sequence[str]
) -> ChildPapers:
    """One node's papers: each paper's title and author keywords as one text (a name is carried by a paper
    when either says it)."""
    shown = ["; ".join([titles[i], *(author_keywords[i] if author_keywords is not None else ())]) for i in rows]
    return ChildPapers(shown, [str(texts[i] or "") for i in rows])


def _titles(titles: Sequence[str], texts: Sequence[str]) -> list[str]:
    """Titles, or the first words of the text where a paper has none."""
    out = []
    for title, text in zip(titles, texts, strict=True):
        title = str(title or "").strip()
        out.append(title if title else " ".join(str(text or "").split()[:_TITLE_WORDS]))
    return out


def name_levels(
    labels: np.ndarray,
    parents: Sequence[Mapping[int, int]],
    themes: Sequence[str],
    titles: Sequence[str],
    texts: Sequence[str],
    fallback: Sequence[Mapping[int, str]],
    *,
    author_keywords: Sequence[Sequence[str]] | None = None,
    cache_dir: Path | None = None,
) -> list[dict[int, str]]:
    """One name per node of every level (``labels``: papers x levels, finest first; ``parents[l]``: a
    node's parent one level up, -1 at the top); ``fallback[l][node]``: the name a node keeps when no
    phrase sets it apart."""
    shown = _titles(titles, texts)
    n_levels = labels.shape[1]
    key = content_key(
        _VERSION, np.ascontiguousarray(labels), list(themes), shown, [str(t or "") for t in texts],
        [sorted(f.items()) for f in fallback],
        [list(k) for k in author_keywords] if author_keywords is not None else [],
    )  # fmt: skip

    def compute() -> dict:
        names: list[dict[int, str]] = [{} for _ in range(n_levels)]
        top_theme = node_theme(labels[:, -1], themes)
        for level in reversed(range(n_levels)):
            column = labels[:, level]
            groups: dict[str, list[int]] = {}
            for node in sorted(parents[level]):
                parent = top_theme.get(node, "") if level == n_levels - 1 else names[level + 1][parents[level][node]]
                groups.setdefault(parent, []).append(node)
            given: list[str] = []
            for parent in sorted(groups):
                kids = {
                    node: _papers(np.flatnonzero(column == node), shown, author_keywords, texts)
                    for node in groups[parent]
                }
                only = groups[parent][0] if len(kids) == 1 else None
                if only is not None and fallback[level].get(only) and fallback[level][only] not in given:
                    named = {only: fallback[level][only]}  # no sibling to tell apart: its keyphrase name
                else:
                    named = sibling_names(parent, kids, taken=given, fallback=fallback[level])
                names[level].update(named)
                given += list(named.values())
        return {"names": [{str(k): v for k, v in level.items()} for level in names]}

    def valid(value: object) -> bool:
        return isinstance(value, dict) and len(value.get("names", ())) == n_levels

    value = cached_json(key, compute, cache_dir, check=valid)
    return [{int(k): v for k, v in level.items()} for level in value["names"]]

"""Post-fit edits of themes and topics: functions from a fitted state to a new one, no re-fitting or re-embedding.

``TopicMap``'s edit methods call these and rebuild every table from the result (``state.derive``), so
a document's theme score and reason, a topic's theme, purity, representatives and centroid always
follow the edit.

>>> tm.rename_theme("Graph learning", "Graphs & networks")
>>> tm.merge_topics([3, 7], label="offline RL")
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from icml_topics.errors import InvalidValueError, UnknownNameError
from icml_topics.stages.tree import node_similarity
from icml_topics.state import FittedState, ThemeState, regroup, topic_theme_scores
from icml_topics.themes.taxonomy import Taxonomy

__all__ = ["known_themes", "merge_themes", "merge_topics", "rename_theme", "rename_topic"]


def known_themes(state: FittedState) -> list[str]:
    """Every theme name a document or topic can carry: the rule's, then derived topic themes."""
    th = state.themes
    if th is None:
        return []
    topic_theme = topic_theme_scores(state)[0]
    return [t for t in dict.fromkeys([*th.rule.unique_names, *topic_theme.values()]) if t]


def _require_themes(state: FittedState, names: Sequence[str]) -> None:
    known = known_themes(state)
    for name in names:
        if name not in known:
            raise UnknownNameError(f"Unknown theme {name!r}. Known themes: {', '.join(known)}.")


def _renamed(state: FittedState, mapping: dict[str, str], taxonomy: Taxonomy) -> FittedState:
    """Map theme names in the rule and the aliases of derived topic themes; re-decide the documents."""
    th = state.themes
    assert th is not None  # _require_themes checked it
    rule = th.rule.renamed(mapping)  # transform and theme_ranking follow
    aliases = {k: mapping.get(v, v) for k, v in th.aliases.items()}
    aliases.update({k: v for k, v in mapping.items() if k not in th.rule.unique_names})
    return state.with_themes(ThemeState(taxonomy, rule, regroup(th.docs, rule, mapping), aliases))


def merge_themes(state: FittedState, themes: Sequence[str], into: str) -> FittedState:
    """Every document and topic of ``themes`` moves to ``into`` (new or one of them); the taxonomy follows.
    A document's theme is then the most probable merged name, its score the sum of the merged probabilities."""
    themes = list(dict.fromkeys(themes))
    _require_themes(state, themes)
    taxonomy = state.themes.taxonomy
    in_taxonomy = [t for t in themes if t in taxonomy.names]
    if in_taxonomy and in_taxonomy != [into]:
        taxonomy = taxonomy.merge(in_taxonomy, into)
    return _renamed(state, {t: into for t in themes}, taxonomy)


def rename_theme(state: FittedState, old: str, new: str) -> FittedState:
    """Rename theme ``old`` to ``new`` everywhere (documents, topics, taxonomy, rule)."""
    _require_themes(state, [old])
    if new in known_themes(state) and new != old:
        raise InvalidValueError(
            f"A theme named {new!r} exists already; use merge_themes([{old!r}, {new!r}], into={new!r})."
        )
    taxonomy = state.themes.taxonomy
    return _renamed(state, {old: new}, taxonomy.rename(old, new) if old in taxonomy.names else taxonomy)


def _require_topics(state: FittedState, topics: Sequence[int]) -> None:
    known = set(state.labels.tolist()) - {-1}
    for t in topics:
        if t not in known:
            raise UnknownNameError(
                f"Unknown topic {t!r}. Topics are the integers in topics_['topic']: {sorted(known)}."
            )


def rename_topic(state: FittedState, topic: int, label: str) -> FittedState:
    """Give ``topic`` the name ``label``."""
    _require_topics(state, [topic])
    tree = state.tree
    if tree is not None:
        tree = replace(tree, names=({**tree.names[0], int(topic): label}, *tree.names[1:]))
    return replace(state, topic_names={**state.topic_names, int(topic): label}, tree=tree)


def merge_topics(state: FittedState, topics: Sequence[int], label: str | None = None) -> FittedState:
    """Merge ``topics`` into the largest of them; keyphrases are interleaved, largest topic first.
    Documents keep their own themes (a topic never overrides them); the merged topic's theme, score and
    purity are recomputed from its documents."""
    topics = list(dict.fromkeys(int(t) for t in topics))
    if len(topics) < 2:
        raise InvalidValueError("merge_topics needs at least two topics.")
    _require_topics(state, topics)
    sizes = {t: int((state.labels == t).sum()) for t in topics}
    topics.sort(key=lambda t: (-sizes[t], t))
    target = topics[0]
    merged_kw: list[str] = []
    for group in zip(*[state.keywords.get(t, []) for t in topics]):
        merged_kw.extend(k for k in group if k not in merged_kw)
    keywords = {t: list(v) for t, v in state.keywords.items() if t not in topics[1:]}
    keywords[target] = merged_kw[: len(state.keywords.get(target, [])) or 10]
    names = {t: v for t, v in state.topic_names.items() if t not in topics[1:]}
    if label is not None:
        names[target] = label
    labels = np.where(np.isin(state.labels, topics), target, state.labels).astype(np.int64)
    tree = None if state.tree is None else _merged_tree(state, labels, topics, keywords, names)
    return replace(state, labels=labels, keywords=keywords, topic_names=names, tree=tree)


def _merged_tree(state: FittedState, labels: np.ndarray, topics: list[int], keywords: dict, names: dict):
    """The state's tree after ``merge_topics``: the merged papers follow the target topic (``topics[0]``)
    up the tree; coarser nodes left without papers are removed; the merged node's stability is unknown."""

    tree, target = state.tree, topics[0]
    out = tree.labels.copy()
    out[:, 0] = labels
    moved = np.isin(tree.labels[:, 0], topics[1:])
    home = tree.labels[np.flatnonzero(tree.labels[:, 0] == target)[0]]
    out[moved, 1:] = home[1:]
    keep = [set(out[:, level].tolist()) - {-1} for level in range(tree.n_levels)]
    parents = tuple({k: v for k, v in p.items() if k in keep[i]} for i, p in enumerate(tree.parents))
    tree_names = tuple({k: v for k, v in n.items() if k in keep[i]} for i, n in enumerate(tree.names))
    tree_keywords = tuple({k: v for k, v in kw.items() if k in keep[i]} for i, kw in enumerate(tree.keywords))
    stability = tuple({k: v for k, v in st.items() if k in keep[i]} for i, st in enumerate(tree.stability))
    if stability:
        stability[0][target] = float("nan")
    return replace(
        tree,
        labels=out,
        parents=parents,
        names=({**tree_names[0], target: names[target]}, *tree_names[1:]),
        keywords=({**tree_keywords[0], target: keywords[target]}, *tree_keywords[1:]),
        stability=stability,
        similarity=node_similarity(state.embeddings, out),
    )

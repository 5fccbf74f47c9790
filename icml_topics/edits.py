"""Post-fit edits of themes and topics: rename and merge without re-fitting or re-embedding.

>>> tm.rename_theme("Graph learning", "Graphs & networks")      # doctest: +SKIP
>>> tm.merge_topics([3, 7], label="offline RL")                 # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from icml_topics import tables

__all__ = ["merge_themes", "merge_topics", "rename_theme", "rename_topic"]


def _known_themes(model: Any) -> list[str]:
    return [t for t in dict.fromkeys([*model.theme_names_, *model.topics_["theme"].tolist()]) if t]


def _require_themes(model: Any, names: Sequence[str]) -> None:
    known = _known_themes(model)
    for name in names:
        if name not in known:
            raise KeyError(f"Unknown theme {name!r}. Known themes: {', '.join(known)}.")


def merge_themes(model: Any, themes: Sequence[str], into: str) -> None:
    """Every document and topic of ``themes`` moves to ``into``; the taxonomy follows."""
    themes = list(themes)
    _require_themes(model, themes)
    mapping = {t: into for t in themes}
    for frame in (model.documents_, model.topics_):
        frame["theme"] = frame["theme"].replace(mapping)
    in_taxonomy = [t for t in themes if t in model.taxonomy_.names]
    if in_taxonomy and in_taxonomy != [into]:
        model.taxonomy_ = model.taxonomy_.merge(in_taxonomy, into)
    model.theme_names_ = list(dict.fromkeys(mapping.get(n, n) for n in model.theme_names_))
    model.theme_rule_ = model.theme_rule_.renamed(mapping)  # transform and theme_ranking follow
    model._refresh_themes()


def rename_theme(model: Any, old: str, new: str) -> None:
    """Rename theme ``old`` to ``new``."""
    _require_themes(model, [old])
    if new in _known_themes(model) and new != old:
        raise ValueError(f"A theme named {new!r} exists already; use merge_themes([{old!r}, {new!r}], into={new!r}).")
    for frame in (model.documents_, model.topics_):
        frame["theme"] = frame["theme"].replace({old: new})
    if old in model.taxonomy_.names:
        model.taxonomy_ = model.taxonomy_.rename(old, new)
    model.theme_names_ = [new if n == old else n for n in model.theme_names_]
    model.theme_rule_ = model.theme_rule_.renamed({old: new})
    model._refresh_themes()


def _require_topics(model: Any, topics: Sequence[int]) -> None:
    known = set(model.topics_["topic"].tolist()) - {-1}
    for t in topics:
        if t not in known:
            raise KeyError(f"Unknown topic {t!r}. Topics are the integers in topics_['topic']: {sorted(known)}.")


def rename_topic(model: Any, topic: int, label: str) -> None:
    """Give ``topic`` the name ``label``."""
    _require_topics(model, [topic])
    model.topic_names_[topic] = label
    model.topics_.loc[model.topics_["topic"] == topic, "label"] = label
    model.documents_.loc[model.documents_["topic"] == topic, "topic_label"] = label


def merge_topics(model: Any, topics: Sequence[int], label: str | None = None) -> None:
    """Merge ``topics`` into the largest of them; keyphrases are interleaved, largest topic first."""
    topics = list(dict.fromkeys(topics))
    if len(topics) < 2:
        raise ValueError("merge_topics needs at least two topics.")
    _require_topics(model, topics)
    sizes = model.topics_.set_index("topic")["size"]
    topics.sort(key=lambda t: (-sizes[t], t))
    target = topics[0]
    merged_kw: list[str] = []
    for group in zip(*[model.keywords_.get(t, []) for t in topics]):
        merged_kw.extend(k for k in group if k not in merged_kw)
    model.keywords_[target] = merged_kw[: len(model.keywords_.get(target, [])) or 10]
    for t in topics[1:]:
        model.keywords_.pop(t, None)
        model.topic_names_.pop(t, None)
    model._labels = np.where(np.isin(model._labels, topics), target, model._labels)
    if label is not None:
        model.topic_names_[target] = label
    docs = model.documents_
    moved = docs["topic"].isin(topics[1:]).fillna(False).to_numpy(dtype=bool)
    docs.loc[moved, "topic"] = target  # documents keep their own themes: a topic never overrides them
    docs.loc[docs["topic"] == target, "topic_label"] = model.topic_names_[target]
    old = model.topics_.set_index("topic")
    purity = {}
    for t, theme in old["theme"].items():
        members = docs["topic"] == t
        purity[t] = float((docs.loc[members.fillna(False), "theme"] == theme).mean()) if members.any() else float("nan")
    model.topics_ = tables.topics_table(
        model._labels, model.keywords_, model.topic_names_, old["theme"].to_dict(), old["theme_score"].to_dict(), purity
    )
    model.topics_ = tables.with_representatives(model.topics_, model.documents_, model.embeddings_, model._labels)
    model.topic_embeddings_ = tables.topic_centroids(model.embeddings_, model._labels, model.topics_["topic"].tolist())
    model._refresh_themes()

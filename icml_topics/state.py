"""The fitted state of a [`TopicMap`][icml_topics.TopicMap] as plain dataclasses, and the tables derived from it.

``TopicMap.state_`` holds what a fit computed and nothing derived from it: the corpus table, the
embeddings, fine-topic labels, map coordinates, keyphrases, topic names and the theme assignment
(taxonomy, fitted rule and the documents' themes, whose rule carries its [`ThemeSettings`][icml_topics.ThemeSettings]).
Edits, placement and persistence are functions of a state; ``derive`` rebuilds every public table
(``documents_``, ``topics_``, ``themes_``, centroids, theme names) from it, so no column can go stale.

    >>> from icml_topics.state import derive
    >>> derive(tm.state_).topics.head()
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from icml_topics import tables
from icml_topics.errors import InvalidValueError
from icml_topics.fitted_tables import FittedTables, modelled_rows
from icml_topics.stages.tree import TopicTree
from icml_topics.themes.assign import DocumentThemes, ThemeRule, ThemeSettings
from icml_topics.themes.taxonomy import Taxonomy
from icml_topics.themes.topics import topic_themes

__all__ = ["FittedState", "FittedTables", "ThemeState", "derive", "regroup", "theme_catalogue"]


@dataclass(frozen=True)
class ThemeState:
    """The theme assignment: taxonomy, the fitted rule (with its settings) and each modelled document's themes.

    ``aliases`` renames derived topic themes that are not taxonomy themes (``"Other: ..."`` names) after
    ``rename_theme`` / ``merge_themes``.
    """

    taxonomy: Taxonomy
    rule: ThemeRule
    docs: DocumentThemes
    aliases: dict[str, str] = field(default_factory=dict)

    @property
    def settings(self) -> ThemeSettings:
        """The thresholds the rule was fitted with (``save``, ``transform`` and edits keep them)."""
        return self.rule.settings


@dataclass(frozen=True)
class FittedState:
    """What ``fit`` computed. Arrays are aligned with the modelled rows (``fitted_tables.modelled_rows``)."""

    corpus: pd.DataFrame  # one row per input row: corpus columns, flags, and the modelled ``text``
    embeddings: np.ndarray  # (n modelled, dim) float32, L2-normalised
    labels: np.ndarray  # (n modelled,) int64 topic: the tree's finest level, -1 = no theme, so no node
    coords: np.ndarray  # (n modelled, 2) map coordinates
    keywords: dict[int, list[str]]
    topic_names: dict[int, str]
    themes: ThemeState | None = None  # None only between clustering and the theme stage
    tree: TopicTree | None = (
        None  # the topic tree (stages/tree.py): level 0 is ``labels``; None only before the tree stage
    )

    @property
    def modelled(self) -> pd.DataFrame:
        """The corpus rows that were modelled, in the order of the arrays."""
        return modelled_rows(self.corpus)

    @property
    def texts(self) -> list[str]:
        """The cleaned texts that were embedded and modelled."""
        return self.modelled["text"].tolist()

    def with_themes(self, themes: ThemeState) -> FittedState:
        return replace(self, themes=themes)


def _themes_of(state: FittedState) -> ThemeState:
    if state.themes is None:
        raise InvalidValueError("This state has no theme assignment yet (TopicMap.set_taxonomy assigns one).")
    return state.themes


def topic_theme_scores(state: FittedState) -> tuple[dict[int, str], dict[int, float], dict[int, float]]:
    """Per topic: its theme (aliases applied), mean probability of that theme, and purity."""
    th = _themes_of(state)
    theme, score, purity = topic_themes(state.labels, th.docs, th.rule, state.keywords)
    return {t: th.aliases.get(n, n) for t, n in theme.items()}, score, purity


def theme_catalogue(
    rule: ThemeRule, topic_theme: Mapping[int, str], topic_ids: list[int], topic_embeddings: np.ndarray
) -> tuple[list[str], np.ndarray]:
    """Theme names (the rule's, then topic themes outside it) and one unit vector per name: the mean of
    a taxonomy theme's prototypes, or the centroid of the first topic carrying an extra name."""
    names, vectors = rule.unique_names, [rule.theme_vectors()]
    for row, t in enumerate(topic_ids):
        name = topic_theme.get(t)
        if name is not None and name not in names:
            names.append(name)
            vectors.append(topic_embeddings[row][None, :])
    return names, np.vstack(vectors).astype(np.float32)


def derive(state: FittedState) -> FittedTables:
    """Rebuild every fitted table from ``state`` (the one place derived columns are computed)."""
    th = _themes_of(state)
    topic_theme, topic_score, topic_purity = topic_theme_scores(state)
    tree = state.tree
    similarity = None if tree is None or tree.similarity is None else tree.similarity[:, 0]
    documents = tables.documents_table(state.corpus, state.labels, state.topic_names, th.docs, state.coords, similarity)
    documents = tables.with_tree_columns(documents, None if tree is None else tree.labels)
    stability = tree.stability[0] if tree is not None and tree.stability else None
    topics = tables.topics_table(
        state.labels, state.keywords, state.topic_names, topic_theme, topic_score, topic_purity, stability
    )
    topics = tables.with_representatives(topics, documents, state.embeddings, state.labels)
    topic_ids = topics["topic"].tolist()
    centroids = tables.topic_centroids(state.embeddings, state.labels, topic_ids)
    names, vectors = theme_catalogue(th.rule, topic_theme, topic_ids, centroids)
    themes = tables.themes_table(documents, topics, {t.name: t.description for t in th.taxonomy})
    return FittedTables(
        documents=documents,
        topics=topics,
        themes=themes,
        topic_tree=tree_table(state),
        topic_embeddings=centroids,
        theme_names=names,
        theme_embeddings=vectors,
        embeddings=state.embeddings,
    )


def tree_table(state: FittedState) -> pd.DataFrame:
    """``topic_tree_``: one row per node of the state's topic tree, its theme from its papers' themes
    (as a topic's, aliases applied); no rows when the state has no tree."""
    tree, th = state.tree, _themes_of(state)
    if tree is None:
        return tables.tree_frame([])
    levels = []
    for level in range(tree.n_levels):
        labels = tree.labels[:, level]
        theme, score, purity = topic_themes(labels, th.docs, th.rule, tree.keywords[level])
        theme = {t: th.aliases.get(n, n) for t, n in theme.items()}
        levels.append(tables.tree_level(level, tree, labels, theme, score, purity, state))
    return tables.tree_frame(levels)


def regroup(docs: DocumentThemes, rule: ThemeRule, mapping: Mapping[str, str]) -> DocumentThemes:
    """The documents' themes under ``rule`` after its names were mapped (rename or merge): theme and
    runner-up from the probabilities added per displayed name, as ``rule.assign`` decides them, so the
    fitted documents read as ``transform`` would place them. Documents without a theme keep none."""
    proba = rule.grouped(docs.proba)
    names = rule.unique_names
    order = np.argsort(-proba, axis=1, kind="stable")[:, :2]
    rows = np.arange(len(proba))
    has = np.array([t != "" for t in docs.theme], dtype=bool)
    second = proba.shape[1] > 1
    score = np.where(has, proba[rows, order[:, 0]], np.nan).astype(np.float32)
    score_2 = np.where(has, proba[rows, order[:, 1]] if second else 0.0, np.nan).astype(np.float32)
    theme = [names[order[i, 0]] if has[i] else "" for i in rows]
    theme_2 = [names[order[i, 1]] if has[i] and second else "" for i in rows]
    reason = list(docs.reason)
    for old, new in mapping.items():  # a "no theme" reason names the closest theme
        reason = [r.replace(f"({old})", f"({new})") if not has[i] else r for i, r in enumerate(reason)]
    return DocumentThemes(theme, score, theme_2, score_2, reason, docs.proba)

"""``TopicMap``'s methods that read and edit the fitted tables (a mixin of the facade).

Reading: one level of the tree, each paper's top themes, a topic's representative papers, the topics nearest a
query, BERTopic's document table (``tables.py`` computes them). Editing: rename or merge themes and topics,
no re-fitting (``edits.py`` changes the frozen state; the facade sets it).

    >>> tm = TopicMap(random_state=0).fit("../shared/data/icml-2013-2024.jsonl.gz")
    >>> tm.find_topics("offline reinforcement learning", k=3)
    >>> tm.rename_topic(3, "Bayesian optimisation").topics_at(0).head()
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from icml_topics import edits, tables
from icml_topics.errors import InvalidValueError, check_fitted

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["TableMethods"]


class TableMethods:
    """Reading and editing the tables of a fitted ``TopicMap``: ``topics_at``, ``theme_ranking``,
    ``representative_docs``, ``find_topics``, ``document_info``, ``rename_theme``, ``merge_themes``,
    ``rename_topic``, ``merge_topics``."""

    def topics_at(self, level: int) -> pd.DataFrame:
        """The ``topic_tree_`` rows of one level, largest node first.

        Args:
            level: the tree level: 0 = the finest topics; higher = coarser.

        Examples:
            >>> tm.topics_at(tm.topic_tree_["level"].max())[["topic", "label", "size"]]
        """
        check_fitted(self)
        return tables.tree_level_rows(self.topic_tree_, level)

    def theme_ranking(self, k: int = 3) -> pd.DataFrame:
        """Top-``k`` themes of every modelled document by probability: columns ``id, rank, theme, score``.

        Args:
            k: themes per document (an integer >= 1).

        Examples:
            >>> tm.theme_ranking(k=3).query("rank == 2 and score > 0.3")
        """
        check_fitted(self)
        if not isinstance(k, numbers.Integral) or isinstance(k, bool) or k < 1:
            raise InvalidValueError(
                f"k={k!r} is not allowed: use an integer >= 1 (the number of themes per document; "
                f"{len(self.theme_names_)} themes exist)."
            )
        return tables.theme_ranking(self.documents_, self.theme_rule_, self.theme_proba_, k)

    def representative_docs(self, topic: int) -> pd.DataFrame:
        """The papers nearest ``topic``'s centroid (``topics_``' representative columns), nearest first:
        the ``documents_`` columns ``id, title, year, venue, authors``.

        Args:
            topic: a fine topic id (``topics_["topic"]``).

        Examples:
            >>> tm.representative_docs(0)["title"].tolist()
        """
        check_fitted(self)
        return tables.representative_rows(self.documents_, self.topics_, topic)

    def find_topics(self, query: str, k: int = 5) -> pd.DataFrame:
        """The ``k`` topics nearest ``query`` by cosine similarity of its embedding to the topic centroids
        (``topic_embeddings_``), most similar first: ``topic, label, theme, size, similarity``.

        Args:
            query: a text (a phrase or an abstract), embedded as the documents were.
            k: how many topics to return.

        Examples:
            >>> tm.find_topics("offline reinforcement learning", k=3)
        """
        check_fitted(self)
        if not isinstance(query, str) or not query.strip():
            raise InvalidValueError(f"find_topics needs a non-empty text query, got {query!r}.")
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise InvalidValueError(f"k must be a positive integer (how many topics to return), got {k!r}.")
        return tables.nearest_topics(self.topics_, self.topic_embeddings_, self._embedder()([query.strip()])[0], int(k))

    def document_info(self) -> pd.DataFrame:
        """One row per modelled paper, as BERTopic's ``get_document_info``: ``id, title, year, topic,
        topic_label, keywords, theme, theme_score, representative`` (one of its topic's representative papers).

        Examples:
            >>> tm.document_info().query("representative")[["topic", "title"]]
        """
        check_fitted(self)
        return tables.document_info(self.documents_, self.topics_)

    def rename_theme(self, old: str, new: str) -> Self:
        """Rename a theme everywhere (tables and taxonomy); no re-fitting.

        Args:
            old: the theme's name now.
            new: its new name.

        Examples:
            >>> tm.rename_theme("Reinforcement learning", "RL")
        """
        check_fitted(self)
        return self._set_state(edits.rename_theme(self.state_, old, new))

    def merge_themes(self, themes: Sequence[str], into: str) -> Self:
        """Merge several themes into one; no re-fitting.

        Args:
            themes: the names of the themes to merge.
            into: the merged theme's name (a new name or one of ``themes``).

        Examples:
            >>> tm.merge_themes(["Computer vision", "Speech & audio"], into="Perception")
        """
        check_fitted(self)
        return self._set_state(edits.merge_themes(self.state_, themes, into))

    def rename_topic(self, topic: int, label: str) -> Self:
        """Give a fine topic a name of your own.

        Args:
            topic: the fine topic id.
            label: its new name.

        Examples:
            >>> tm.rename_topic(3, "Bayesian optimisation")
        """
        check_fitted(self)
        return self._set_state(edits.rename_topic(self.state_, topic, label))

    def merge_topics(self, topics: Sequence[int], label: str | None = None) -> Self:
        """Merge fine topics into the largest of them, which keeps its id and theme; papers keep their own themes.

        Args:
            topics: the fine topic ids to merge (at least two).
            label: the merged topic's name; ``None`` keeps the largest topic's name.

        Examples:
            >>> tm.merge_topics([3, 7], label="Bayesian methods")
        """
        check_fitted(self)
        return self._set_state(edits.merge_topics(self.state_, topics, label))

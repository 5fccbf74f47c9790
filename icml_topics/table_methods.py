"""``TopicMap``'s methods that read the fitted tables (a mixin of the facade): one level of the tree, each
paper's top themes, a topic's representative papers, BERTopic's document table (``tables.py`` computes them).
The facade keeps what needs its own state: ``find_topics`` (its embedder) and the edits (its frozen state).

    >>> tm = TopicMap(random_state=0).fit("../shared/data/icml-2013-2024.jsonl.gz")
    >>> tm.topics_at(0).head()
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import pandas as pd

from icml_topics import tables
from icml_topics.errors import InvalidValueError, check_fitted

if TYPE_CHECKING:
    pass

__all__ = ["TableMethods"]


class TableMethods:
    """Reading the tables of a fitted ``TopicMap``: ``topics_at``, ``theme_ranking``, ``representative_docs``,
    ``document_info``."""

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

    def document_info(self) -> pd.DataFrame:
        """One row per modelled paper, as BERTopic's ``get_document_info``: ``id, title, year, topic,
        topic_label, keywords, theme, theme_score, representative`` (one of its topic's representative papers).

        Examples:
            >>> tm.document_info().query("representative")[["topic", "title"]]
        """
        check_fitted(self)
        return tables.document_info(self.documents_, self.topics_)

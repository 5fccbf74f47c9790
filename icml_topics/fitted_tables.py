"""The fitted tables of a [`TopicMap`][icml_topics.TopicMap] and the one owner of their rules.

``FittedTables`` is what ``fit`` hands to everything downstream (``compare/``, ``plotting/``, ``report/``,
outputs, interop, workflows): the public tables (``documents_``, ``topics_``, ``themes_``, ``topic_tree_``)
and the arrays aligned with them, with the rules that read them written once here:

- which rows were modelled (``modelled_mask`` / ``modelled_rows``: ``status`` is ``"ok"``);
- the column of each tree level (``level_column``: ``topic_0`` is the finest, ``topic_1`` the next);
- the levels of the tree, its nodes per level, each modelled paper's node per level, node centroids.

``TopicMap.tables_`` holds the fit's; it is rebuilt with every edit (``state.derive``).

Examples:
    >>> tables = tm.tables_
    >>> tables.levels
    [0, 1]
    >>> tables.level_nodes(1)[["topic", "label", "size"]].head()
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

import numpy as np
import pandas as pd

from icml_topics.errors import InvalidValueError, UnknownNameError
from icml_topics.schema import LEVEL_COLUMN, level_columns

__all__ = [
    "MODELLED",
    "FittedModel",
    "FittedTables",
    "headline_numbers",
    "level_column",
    "level_labels",
    "modelled_mask",
    "modelled_rows",
    "tree_levels",
]

#: the ``status`` of a row that was modelled (any other status: dropped, with a ``drop_reason``)
MODELLED = "ok"


def modelled_mask(frame: pd.DataFrame) -> np.ndarray:
    """Per row of ``frame``, whether it was modelled (``status`` is ``"ok"``); every row of a table
    without a ``status`` column (a table of modelled rows only).

    Args:
        frame: a table with a ``status`` column (``documents_``, a flagged corpus) or of modelled rows only.

    Examples:
        >>> modelled_mask(pd.DataFrame({"status": ["ok", "dropped", None]})).tolist()
        [True, False, False]
    """
    if "status" not in frame.columns:
        return np.ones(len(frame), dtype=bool)
    return (frame["status"].astype("string").fillna("") == MODELLED).to_numpy(dtype=bool)


def modelled_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``frame`` that were modelled (see ``modelled_mask``), in their order.

    Args:
        frame: a table with a ``status`` column, e.g. ``documents_``.

    Examples:
        >>> modelled_rows(pd.DataFrame({"id": ["a", "b"], "status": ["ok", "dropped"]}))["id"].tolist()
        ['a']
    """
    return frame.loc[modelled_mask(frame)]


def headline_numbers(
    documents: pd.DataFrame, topics: pd.DataFrame, themes: pd.DataFrame, *, digits: int | None = 4
) -> dict[str, Any]:
    """The key numbers of a fit (``TopicMap.summary()``, the reports): documents, modelled, dropped, duplicates,
    topics (outliers not counted), themes with at least one paper, and the outlier and no-theme shares of the
    modelled papers (fractions, rounded to ``digits`` decimals; ``None``: not rounded).

    Args:
        documents: ``documents_`` (or ``documents.csv`` read back).
        topics: ``topics_``.
        themes: ``themes_``.
        digits: decimals of the shares; ``None``: not rounded.

    Examples:
        >>> import pandas as pd
        >>> docs = pd.DataFrame({"status": ["ok", "ok", "dropped"], "topic": [0, -1, None], "theme": ["A", "", ""]})
        >>> headline_numbers(docs, pd.DataFrame({"topic": [-1, 0]}), pd.DataFrame({"theme": ["A"], "size": [1]}))["modelled"]
        2
    """
    ok = modelled_rows(documents)
    topic_ids = pd.to_numeric(topics["topic"], errors="coerce") if "topic" in topics.columns else pd.Series([])
    if "size" in themes.columns:
        n_themes = int((pd.to_numeric(themes["size"], errors="coerce").fillna(0) > 0).sum())
    else:
        n_themes = int((themes["theme"].astype("string").fillna("") != "").sum()) if "theme" in themes.columns else 0

    def share(mask: pd.Series) -> float:
        value = float(mask.mean()) if len(ok) else 0.0
        return value if digits is None else round(value, digits)

    doc_topics = pd.to_numeric(ok["topic"], errors="coerce") if "topic" in ok.columns else None
    no_theme = ok["theme"].astype("string").fillna("").str.strip() == "" if "theme" in ok.columns else None
    return {
        "documents": len(documents),
        "modelled": len(ok),
        "dropped": len(documents) - len(ok),
        "duplicates": int(documents["is_duplicate"].fillna(False).astype(bool).sum())
        if "is_duplicate" in documents.columns
        else 0,
        "topics": int((topic_ids != -1).sum()),
        "themes": n_themes,
        "outlier share": share(doc_topics == -1) if doc_topics is not None else float("nan"),
        "no-theme share": share(no_theme) if no_theme is not None else float("nan"),
    }


def level_column(level: int) -> str:
    """The ``documents_`` column holding each paper's node at tree ``level``.

    Args:
        level: the tree level (0: the finest).

    Examples:
        >>> level_column(1)
        'topic_1'
    """
    return LEVEL_COLUMN.format(level=int(level))


def tree_levels(documents: pd.DataFrame) -> list[int]:
    """The tree levels present as ``topic_<level>`` columns of ``documents``, finest first (``[]``: none).

    Args:
        documents: ``documents_`` or any table with ``topic_<level>`` columns.

    Examples:
        >>> tree_levels(pd.DataFrame(columns=["id", "topic", "topic_1", "topic_0"]))
        [0, 1]
    """
    return [int(c.rpartition("_")[2]) for c in level_columns(documents.columns)]


def level_labels(documents: pd.DataFrame, level: int) -> np.ndarray:
    """Each modelled row's node at tree ``level`` (``int64``, ``-1``: none); a table without level columns
    is read as one level, its ``topic`` column.

    Args:
        documents: ``documents_`` (its modelled rows are read).
        level: the tree level.

    Examples:
        >>> level_labels(pd.DataFrame({"status": ["ok", "dropped"], "topic_0": [3, None]}), 0).tolist()
        [3]
    """
    column = level_column(level)
    if column not in documents.columns:
        if level == 0 and "topic" in documents.columns and not tree_levels(documents):
            column = "topic"
        else:
            raise InvalidValueError(
                f"level={level!r} is not a tree level of this table: use one of {tree_levels(documents)}."
            )
    values = pd.to_numeric(modelled_rows(documents)[column], errors="coerce")
    return values.fillna(-1).to_numpy(np.int64)


class FittedModel(Protocol):
    """What the modules above the fit (``outputs``, ``interop``, ``compare``, ``evaluate``) read of a fitted model:
    its tables (``tables_``: every table they read, never the estimator's own ``documents_``, ...), the fitted
    arrays BERTopic's model is built from, the saved state and the settings they need. ``TopicMap`` is one; typing
    them with this view keeps them from importing ``model.py`` back.

    Examples:
        >>> def n_topics(model: FittedModel) -> int:
        ...     return len(model.tables_.topics)
    """

    tables_: FittedTables
    embeddings_: np.ndarray
    keywords_: dict[int, list[str]]
    topic_names_: dict[int, str]
    state_: Any
    embedding_model: Any
    precision: str
    cache: Any
    n_keywords: int
    prepend_title: bool

    def get_params(self, deep: bool = True) -> dict[str, Any]: ...

    def summary(self) -> dict[str, Any]: ...

    def report(self, path: Any = None, **options: Any) -> Any: ...


@dataclass(frozen=True)
class FittedTables:
    """The fitted tables of one fit and the arrays aligned with them (``TopicMap.tables_``).

    Attributes:
        documents: ``documents_``: one row per input row, modelled or not.
        topics: ``topics_``: one row per finest-level node (``-1``, papers without a node, last).
        themes: ``themes_``: one row per theme with papers.
        topic_tree: ``topic_tree_``: one row per node of every level (level 0 = ``topics``).
        topic_embeddings: the ``topics`` rows' centroids (L2-normalised).
        theme_names: the themes' names, rows of ``theme_embeddings``.
        theme_embeddings: one unit vector per theme name.
        embeddings: the modelled rows' embeddings, in the order of ``modelled``.

    Examples:
        >>> tables = tm.tables_
        >>> tables.level_nodes(tables.levels[-1])[["topic", "label", "size"]].head()
        >>> tables.papers(1, 4)["title"].head()
    """

    documents: pd.DataFrame
    topics: pd.DataFrame
    themes: pd.DataFrame
    topic_tree: pd.DataFrame
    topic_embeddings: np.ndarray
    theme_names: list[str]
    theme_embeddings: np.ndarray
    embeddings: np.ndarray

    @cached_property
    def modelled(self) -> pd.DataFrame:
        """The modelled rows of ``documents``, in the order of ``embeddings``."""
        return modelled_rows(self.documents)

    @property
    def levels(self) -> list[int]:
        """The tree's levels, finest first (``[0, 1]``: subtopics and topics under the themes)."""
        return sorted(int(v) for v in self.topic_tree["level"].unique())

    def level_column(self, level: int) -> str:
        """The ``documents`` column of tree ``level`` (``topic_<level>``), checked against ``levels``.

        Args:
            level: one of ``levels``.
        """
        self._check_level(level)
        return level_column(level)

    def level_nodes(self, level: int) -> pd.DataFrame:
        """The ``topic_tree`` rows of ``level``, by node id.

        Args:
            level: one of ``levels``.
        """
        self._check_level(level)
        rows = self.topic_tree[self.topic_tree["level"] == level]
        return rows.sort_values("topic", kind="mergesort").reset_index(drop=True)

    def level_labels(self, level: int) -> np.ndarray:
        """Each modelled paper's node at ``level`` (``int64``; rows as ``modelled``).

        Args:
            level: one of ``levels``.
        """
        self._check_level(level)
        return level_labels(self.documents, level)

    def node(self, level: int, topic: int) -> pd.Series:
        """One node's ``topic_tree`` row; ``UnknownNameError`` naming the nodes of that level.

        Args:
            level: one of ``levels``.
            topic: a node id of that level (``topic_tree["topic"]``).
        """
        rows = self.level_nodes(level)
        hit = rows[rows["topic"] == topic]
        if hit.empty:
            raise UnknownNameError(
                f"Unknown node {topic!r} at level {level}: use one of {rows['topic'].tolist()} (topic_tree_['topic'])."
            )
        return hit.iloc[0]

    def papers(self, level: int, topic: int) -> pd.DataFrame:
        """The modelled ``documents`` rows of one node.

        Args:
            level: one of ``levels``.
            topic: a node id of that level.
        """
        return self.modelled.loc[self.level_labels(level) == topic]

    def node_centroids(self, level: int) -> np.ndarray:
        """The L2-normalised mean embedding of each node of ``level``, rows as ``level_nodes(level)``.

        Args:
            level: one of ``levels``.
        """
        labels = self.level_labels(level)
        return _centroids(self.embeddings, labels, self.level_nodes(level)["topic"].to_numpy(np.int64))

    def _check_level(self, level: int) -> None:
        if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or level not in self.levels:
            raise InvalidValueError(f"level={level!r} is not a level of this topic tree: use one of {self.levels}.")


def _centroids(embeddings: np.ndarray, labels: np.ndarray, nodes: Iterable[int]) -> np.ndarray:
    emb = np.asarray(embeddings, dtype=np.float64)
    nodes = list(nodes)
    out = np.zeros((len(nodes), emb.shape[1]))
    for i, node in enumerate(nodes):
        members = emb[labels == node]
        if len(members):
            c = members.mean(axis=0)
            out[i] = c / (np.linalg.norm(c) or 1.0)
    return out

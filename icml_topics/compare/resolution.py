"""Align two fitted models at matching resolution: pick the tree levels whose node counts agree best.

A model fitted on 773 papers of 2019 and one fitted on 2,600 papers of 2024 find different numbers of
topics; aligned at their default resolution, the coarser one shows "merges" that are only a
granularity difference. With a topic tree on both sides (``topic_tree_``, columns ``topic_<level>`` of
``documents_``), [`align_models`][icml_topics.compare.align_models] compares the two levels with the closest number of nodes (finest
such pair on a tie), each node described by its centroid (mean of its papers' embeddings) and keywords.

Examples:
    >>> alignment = align_models(tm_2019, tm_2024)
    >>> alignment.levels, round(alignment.resolution_ratio, 2)
    ((1, 0), 0.94)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from icml_topics.errors import InvalidValueError
from icml_topics.fitted_tables import FittedModel, FittedTables

from .align import TopicAlignment, align_topics

__all__ = ["align_models", "level_nodes", "matching_levels"]


def matching_levels(tree_a: pd.DataFrame, tree_b: pd.DataFrame) -> tuple[int, int]:
    """The level of each tree whose node counts are closest (smallest ``|log(n_a / n_b)|``, finest first).

    Examples:
        >>> a = pd.DataFrame({"level": [0] * 40 + [1] * 10, "topic": list(range(40)) + list(range(10))})
        >>> b = pd.DataFrame({"level": [0] * 12 + [1] * 4, "topic": list(range(12)) + list(range(4))})
        >>> matching_levels(a, b)
        (1, 0)
    """
    count_a = tree_a.groupby("level")["topic"].nunique()
    count_b = tree_b.groupby("level")["topic"].nunique()
    pairs = [(abs(np.log(na / nb)), la + lb, la, lb) for la, na in count_a.items() for lb, nb in count_b.items()]
    _, _, la, lb = min(pairs)
    return int(la), int(lb)


def level_nodes(tables: FittedTables, level: int) -> tuple[pd.DataFrame, np.ndarray]:
    """The nodes of one tree level (``tables``: a fit's [`FittedTables`][icml_topics.fitted_tables.FittedTables],
    ``TopicMap.tables_``) as a ``topics_``-like table (``topic, label, size, keywords``) and their centroids
    (L2-normalised mean embedding of their papers), rows aligned."""
    rows = tables.level_nodes(level)
    centroids = tables.node_centroids(level)
    keywords = rows["keywords"] if "keywords" in rows.columns else rows["label"].map(lambda s: [str(s)])
    table = pd.DataFrame(
        {
            "topic": rows["topic"].to_numpy(np.int64),
            "label": rows["label"].astype(str).to_numpy(),
            "size": rows["size"].to_numpy(np.int64),
            "keywords": list(keywords),
        }
    )
    return table, centroids


def align_models(
    model_a: FittedModel, model_b: FittedModel, *, level: tuple[int, int] | str | None = "match", **kw: Any
) -> TopicAlignment:
    """[`align_topics`][icml_topics.compare.align_topics] on two fitted models. ``level="match"`` (default): the two
    tree levels of matching resolution (``matching_levels``); ``level=None`` aligns ``topics_`` (the finest
    levels); ``level=(la, lb)`` picks the levels.

    Args:
        model_a: a fitted [`TopicMap`][icml_topics.TopicMap] (e.g. of the earlier year).
        model_b: another, fitted with the same embedding model.
        level: ``"match"``, ``None`` or a pair of tree levels, as above.
        **kw: passed on to [`align_topics`][icml_topics.compare.align_topics] (``threshold``,
            ``keyword_weight``, ``mode``, ``keyword_embedder``).

    Examples:
        >>> alignment = align_models(tm_2019, tm_2024, threshold=0.75)
        >>> alignment.summary.query("status == 'new'")
    """
    tables_a, tables_b = _fitted_tables("model_a", model_a), _fitted_tables("model_b", model_b)
    if level is None:
        return align_topics(
            tables_a.topics, tables_a.topic_embeddings, tables_b.topics, tables_b.topic_embeddings, **kw
        )
    if level == "match":
        level = matching_levels(tables_a.topic_tree, tables_b.topic_tree)
    if not (isinstance(level, tuple) and len(level) == 2):
        raise InvalidValueError(f"level must be 'match', None or a pair of tree levels (la, lb), got {level!r}.")
    table_a, emb_a = level_nodes(tables_a, int(level[0]))
    table_b, emb_b = level_nodes(tables_b, int(level[1]))
    alignment = align_topics(table_a, emb_a, table_b, emb_b, **kw)
    alignment.levels = (int(level[0]), int(level[1]))
    return alignment


def _fitted_tables(name: str, model: FittedModel) -> FittedTables:
    tables = getattr(model, "tables_", None)
    if not isinstance(tables, FittedTables):
        raise InvalidValueError(
            f"{name} is not a fitted TopicMap (it has no tables_): fit it first (e.g. TopicMap().fit(docs)), "
            "or pass tables to align_topics(topics_a, emb_a, topics_b, emb_b)."
        )
    return tables

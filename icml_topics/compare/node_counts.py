"""Papers per node of the topic tree and period: the counts every topic-level trend is computed from.

The input follows the ``documents_`` contract: one integer column ``topic_<level>`` per tree level (level 0 =
finest, ``-1`` = no node at that level; a table with none is read as one level, its ``topic`` column), only
modelled rows counted (``fitted_tables.modelled_rows``), rows without a ``by`` value left out.

Examples:
    >>> import pandas as pd
    >>> c = node_counts(pd.DataFrame({"year": [2019, 2024, 2024], "topic_0": [0, 0, 1]}))
    >>> c.periods, c.counts.tolist()
    ([2019, 2024], [[1, 1], [0, 1]])
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from icml_topics.errors import InvalidTypeError, InvalidValueError
from icml_topics.fitted_tables import level_labels, modelled_rows, tree_levels
from icml_topics.schema import NODE_COLUMNS

__all__ = ["NodeCounts", "node_counts"]


@dataclass(frozen=True)
class NodeCounts:
    """Papers per node and period: ``counts[i, j]`` = papers of node ``nodes.iloc[i]`` in ``periods[j]``;
    ``totals[j]`` = modelled papers of ``periods[j]`` (with or without a node).

    Examples:
        >>> import pandas as pd
        >>> c = node_counts(pd.DataFrame({"year": [2019, 2023, 2024], "topic_0": [0, 0, 1]}))
        >>> [int(n) for n in c.pooled([2019, 2023])[0]], c.pooled([2019, 2023])[1]
        ([2, 0], 2)
    """

    nodes: pd.DataFrame  # level, topic, parent, label, theme, stability (one row per node)
    periods: list[Any]
    counts: np.ndarray  # (n_nodes, n_periods) int64
    totals: np.ndarray  # (n_periods,) int64
    by: str

    def pooled(self, values: Iterable[Hashable]) -> tuple[np.ndarray, int]:
        """Counts per node and the total over several periods pooled."""
        cols = [j for j, p in enumerate(self.periods) if p in set(values)]
        return self.counts[:, cols].sum(axis=1), int(self.totals[cols].sum())


def _modelled(documents: pd.DataFrame, by: str) -> pd.DataFrame:
    """The modelled rows of ``documents`` with a ``by`` value."""
    if not isinstance(documents, pd.DataFrame):
        raise InvalidTypeError(
            f"documents must be a pandas DataFrame (TopicMap.documents_), got {type(documents).__name__}."
        )
    rows = modelled_rows(documents)
    if by not in documents.columns:
        raise InvalidValueError(
            f"by={by!r} is not a column of documents (columns: {list(map(str, documents.columns))}); "
            "pass by='year' or by='venue'."
        )
    return rows[rows[by].notna().to_numpy()]


def _node_table(level_ids: dict[int, np.ndarray], tree: pd.DataFrame | None) -> pd.DataFrame:
    nodes = pd.DataFrame(
        {
            "level": np.concatenate([np.full(len(ids), lv, dtype=np.int64) for lv, ids in level_ids.items()]),
            "topic": np.concatenate(list(level_ids.values())).astype(np.int64),
        }
    )
    if tree is not None and len(tree):
        cols = [c for c in NODE_COLUMNS[2:] if c in tree.columns]
        info = tree[["level", "topic", *cols]].astype({"level": np.int64, "topic": np.int64})
        nodes = nodes.merge(info.drop_duplicates(["level", "topic"]), on=["level", "topic"], how="left")
    if "label" not in nodes.columns:
        nodes["label"] = pd.NA
    missing = nodes["label"].isna()
    nodes.loc[missing, "label"] = [f"topic {t} (level {lv})" for lv, t in nodes.loc[missing, ["level", "topic"]].values]
    for col in ("parent", "theme"):
        if col not in nodes.columns:
            nodes[col] = pd.NA
    if "stability" not in nodes.columns:
        nodes["stability"] = np.nan
    return nodes[list(NODE_COLUMNS)]


def _levels(rows: pd.DataFrame) -> list[int]:
    """The tree levels of ``rows``; a table without level columns is one level, its ``topic`` column."""
    levels = tree_levels(rows) or ([0] if "topic" in rows.columns else [])
    if not levels:
        raise InvalidValueError(
            "documents has no topic_<level> column (nor a topic column); pass TopicMap.documents_ of a fitted model."
        )
    return levels


def node_counts(documents: pd.DataFrame, tree: pd.DataFrame | None = None, *, by: str = "year") -> NodeCounts:
    """Count the modelled papers of every node of every level per ``by`` value (vectorised).

    Args:
        documents: ``TopicMap.documents_`` with its ``topic_<level>`` columns.
        tree: ``TopicMap.topic_tree_`` (node labels, parents and themes); ``None``: nodes without labels.
        by: the column that defines the periods.

    Examples:
        >>> import pandas as pd
        >>> c = node_counts(pd.DataFrame({"year": [2019, 2024, 2024], "topic_0": [0, 0, 1]}))
        >>> c.counts.tolist(), c.totals.tolist()
        ([[1, 1], [0, 1]], [1, 2])
    """
    rows = _modelled(documents, by)
    levels = _levels(rows)
    codes, periods = pd.factorize(rows[by], sort=True)
    n_periods = len(periods)
    totals = np.bincount(codes, minlength=n_periods).astype(np.int64)
    level_ids, blocks = {}, []
    for lv in levels:
        values = level_labels(rows, lv)
        keep = values >= 0
        ids, node = np.unique(values[keep], return_inverse=True)
        flat = np.bincount(node * n_periods + codes[keep], minlength=len(ids) * n_periods)
        level_ids[lv] = ids
        blocks.append(flat.reshape(len(ids), n_periods))
    counts = np.vstack(blocks).astype(np.int64) if blocks else np.zeros((0, n_periods), dtype=np.int64)
    values = [p.item() if isinstance(p, np.generic) else p for p in periods]
    return NodeCounts(_node_table(level_ids, tree), values, counts, totals, by)

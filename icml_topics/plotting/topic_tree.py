"""The topic tree as a treemap: themes, then the coarsest topics, down to the finest, area = papers.

Example:
    >>> from icml_topics.plotting.topic_tree import plot_topic_tree
    >>> fig = plot_topic_tree(model.topic_tree_)  # doctest: +SKIP
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ._style import base_layout

__all__ = ["plot_topic_tree"]


def plot_topic_tree(tree: pd.DataFrame, *, title: str | None = None, max_depth: int = 3) -> go.Figure:
    """Treemap of a ``topic_tree_`` table (``level, topic, parent, label, size, theme``): click a box to
    open it. Nodes of the coarsest level sit inside their theme.

    Example:
        >>> import pandas as pd
        >>> tree = pd.DataFrame({"level": [0, 0, 1], "topic": [0, 1, 0], "parent": [0, 0, -1],
        ...                      "label": ["offline RL", "bandits", "RL"], "size": [6, 4, 10],
        ...                      "theme": ["RL", "RL", "RL"]})
        >>> len(plot_topic_tree(tree).data[0].ids)
        4
    """
    missing = [c for c in ("level", "topic", "parent", "label", "size", "theme") if c not in tree.columns]
    if missing:
        raise ValueError(f"tree is missing columns {missing}; pass TopicMap.topic_tree_ (or topic_tree.csv).")
    top = int(tree["level"].max()) if len(tree) else 0
    ids, labels, parents, values, hover = [], [], [], [], []
    themes = tree.loc[tree["level"] == top].groupby("theme", sort=True)["size"].sum()
    for theme, size in themes.items():
        ids.append(f"theme:{theme}")
        labels.append(str(theme) or "(no theme)")
        parents.append("")
        values.append(int(size))
        hover.append(f"{html.escape(str(theme))}<br>{int(size):,} papers")
    for row in tree.sort_values(["level", "topic"], ascending=[False, True]).itertuples(index=False):
        parent = row.parent
        has_parent = row.level < top and pd.notna(parent) and int(parent) >= 0
        ids.append(f"{row.level}:{row.topic}")
        labels.append(str(row.label))
        parents.append(f"{row.level + 1}:{int(parent)}" if has_parent else f"theme:{row.theme}")
        values.append(int(row.size))
        hover.append(f"{html.escape(str(row.label))}<br>level {row.level}, topic {row.topic}: {int(row.size):,} papers")
    fig = go.Figure(
        go.Treemap(
            ids=ids,
            labels=labels,
            parents=parents,
            values=np.asarray(values),
            branchvalues="total",
            hovertext=hover,
            hoverinfo="text",
            maxdepth=max_depth,
        )
    )
    fig.update_layout(**base_layout(title or "", height=650))
    return fig

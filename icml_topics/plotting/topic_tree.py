"""The topic tree (``TopicMap.topic_tree_``) as a zoomable treemap: coarsest nodes outside, finer inside.

Examples:
    >>> from icml_topics.plotting.topic_tree import plot_topic_tree
    >>> fig = plot_topic_tree(model.topic_tree_)
"""

from __future__ import annotations

import html
from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from icml_topics.errors import InvalidValueError

from .._wording import counted
from ..schema import split_cell
from ._style import NO_THEME_COLOR, base_layout, fade, hierarchy_trace, theme_colors

__all__ = ["plot_topic_tree"]

_REQUIRED = ("level", "topic", "parent", "label", "size", "theme")


def plot_topic_tree(
    tree: pd.DataFrame,
    *,
    title: str | None = None,
    colors: Mapping[str, str] | None = None,
    maxdepth: int = 2,
) -> go.Figure:
    """A treemap of ``tree`` (``topic_tree_`` / ``topic_tree.csv``): the research themes at the root, each
    node a box sized by its papers, nested in its parent (the top level's nodes in their theme); colour = the
    theme. Click a box to zoom into it; ``maxdepth`` levels show at once.

    Examples:
        >>> plot_topic_tree(tm.topic_tree_, maxdepth=3).show()
    """
    missing = [c for c in _REQUIRED if c not in tree.columns]
    if missing:
        raise InvalidValueError(
            f"plot_topic_tree needs the topic_tree_ columns {list(_REQUIRED)} (missing: {missing}); "
            "pass TopicMap.topic_tree_ of a fitted model."
        )
    tree = tree.sort_values(["level", "topic"], ascending=[False, True])
    themes = tree["theme"].astype("string").fillna("").str.strip()
    colors = colors or theme_colors(themes)
    top = int(tree["level"].max()) if len(tree) else 0
    ids, labels, parents, values, node_colors, hover = [], [], [], [], [], []
    at_top = tree["level"] == top
    for theme, size in tree.loc[at_top].groupby(themes[at_top], sort=False)["size"].sum().items():
        ids.append(f"theme:{theme}")
        parents.append("")
        labels.append(html.escape(theme or "no theme", quote=False))
        values.append(int(size))
        node_colors.append(colors.get(theme, NO_THEME_COLOR))
        hover.append(f"<b>{html.escape(theme or 'no theme', quote=False)}</b><br>{counted(int(size), 'paper')}")
    for row, theme in zip(tree.itertuples(), themes):
        level, node = int(row.level), int(row.topic)
        ids.append(f"{level}:{node}")
        parents.append(f"theme:{theme}" if level == top else f"{level + 1}:{int(row.parent)}")
        name = html.escape(str(row.label), quote=False)
        labels.append(name)
        values.append(int(row.size))
        color = colors.get(theme, NO_THEME_COLOR)
        node_colors.append(fade(color, 0.15 + 0.25 * (top - level) / max(top, 1), towards="#ffffff"))
        words = html.escape(", ".join(split_cell(getattr(row, "keywords", ""))[:6]), quote=False)
        titles = getattr(row, "representative_titles", None)
        titles = [str(t)[:90] for t in titles][:3] if isinstance(titles, (list, tuple, np.ndarray)) else []
        papers = "".join(f"<br>· {html.escape(t, quote=False)}" for t in titles if t)
        hover.append(
            f"<b>{name}</b><br>level {level}, node {node} · {counted(int(row.size), 'paper')} · "
            f"{html.escape(theme or 'no theme')}"
            + (f"<br>{words}" if words else "")
            + (f"<br><i>Most representative papers:</i>{papers}" if papers else "")
        )
    trace = hierarchy_trace("treemap", ids, labels, parents, values, node_colors, hover, maxdepth=maxdepth)
    fig = go.Figure(trace)
    fig.update_layout(**base_layout(title if title is not None else "Topic tree", height=700))
    fig.update_layout(uniformtext={"minsize": 10, "mode": "hide"})
    return fig

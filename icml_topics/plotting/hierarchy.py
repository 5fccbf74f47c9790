"""The theme → topic hierarchy as a sunburst or treemap, sized by the number of papers.

Examples:
    >>> from icml_topics.plotting import plot_theme_hierarchy
    >>> fig = plot_theme_hierarchy(model.topics_, kind="treemap")
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Literal

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from icml_topics.errors import InvalidValueError

from .._wording import counted
from ..schema import split_cell
from ._style import NO_THEME_COLOR, NO_THEME_LABEL, base_layout, fade, hierarchy_trace, theme_colors

__all__ = ["plot_theme_hierarchy"]

_REQUIRED = ("topic", "label", "theme", "size")


def _keywords(value: object, limit: int = 8) -> str:
    """Keywords (a list, or a ``"; "``-joined string from topics.csv) as a short escaped line."""
    words = split_cell(value)
    return html.escape(", ".join(words[:limit]), quote=False)


def plot_theme_hierarchy(
    topics: pd.DataFrame,
    *,
    kind: Literal["sunburst", "treemap"] = "sunburst",
    title: str | None = None,
    colors: Mapping[str, str] | None = None,
) -> go.Figure:
    """Themes as the inner ring (or outer boxes), their topics inside, area = number of papers.

    Topic ``-1`` (papers without a topic, in an older model) is left out; topics without a theme are grouped
    under ``"(no theme)"``.
    Hovering a topic shows its keywords. ``colors`` (theme → colour) defaults to
    [`theme_colors`][icml_topics.plotting.theme_colors] of the themes in ``topics``.

    Args:
        topics: ``TopicMap.topics_`` (``topic, label, size, theme, keywords``).
        kind: ``"sunburst"`` or ``"treemap"``.
        title: the figure's title; ``None``: a default naming what is shown.
        colors: theme -> colour; ``None``: as above.

    Examples:
        >>> fig = plot_theme_hierarchy(model.topics_, kind="sunburst")
    """
    if kind not in ("sunburst", "treemap"):
        raise InvalidValueError(f"kind must be 'sunburst' or 'treemap', got {kind!r}.")
    missing = [c for c in _REQUIRED if c not in topics.columns]
    if missing:
        raise InvalidValueError(
            f"plot_theme_hierarchy needs the topics_ columns {list(_REQUIRED)} (missing: {missing}); "
            "pass TopicMap.topics_ of a fitted model."
        )
    frame = topics.loc[pd.to_numeric(topics["topic"], errors="coerce").astype("float64").to_numpy() != -1].copy()
    frame["size"] = pd.to_numeric(frame["size"], errors="coerce").fillna(0).astype("int64")
    frame = frame.loc[frame["size"] > 0]
    frame["theme"] = frame["theme"].astype("string").fillna("").str.strip()
    if colors is None:
        colors = theme_colors(topics["theme"].astype("string").fillna("").str.strip())

    ids: list[str] = []
    labels: list[str] = []
    parents: list[str] = []
    values: list[int] = []
    node_colors: list[str] = []
    hover: list[str] = []
    theme_sizes = frame.groupby("theme", sort=False)["size"].sum()
    order = sorted(theme_sizes.index, key=lambda t: (t == "", -theme_sizes[t], t))
    for theme in order:
        members = frame.loc[frame["theme"] == theme].sort_values("size", ascending=False)
        name = theme or NO_THEME_LABEL
        ids.append(f"theme:{name}")
        labels.append(html.escape(name, quote=False))
        parents.append("")
        values.append(int(members["size"].sum()))
        theme_color = colors.get(theme) or colors.get(name) or NO_THEME_COLOR
        node_colors.append(theme_color)
        hover.append(f"<b>{labels[-1]}</b><br>{counted(values[-1], 'paper')} · {counted(len(members), 'topic')}")
        for row in members.itertuples(index=False):
            topic_label = str(row.label) if isinstance(row.label, str) and row.label else f"Topic {row.topic}"
            ids.append(f"topic:{row.topic}")
            labels.append(html.escape(topic_label, quote=False))
            parents.append(f"theme:{name}")
            values.append(int(row.size))
            node_colors.append(fade(theme_color, 0.35, towards="#ffffff"))
            keywords = _keywords(getattr(row, "keywords", None))
            titles = getattr(row, "representative_titles", None)
            titles = [str(t) for t in titles][:3] if isinstance(titles, (list, tuple, np.ndarray)) else []
            papers = "".join(
                f"<br>· {html.escape(t[:90] + ('…' if len(t) > 90 else ''), quote=False)}" for t in titles if t
            )
            hover.append(
                f"<b>{labels[-1]}</b><br>topic {row.topic} · {counted(int(row.size), 'paper')}"
                + (f"<br>{keywords}" if keywords else "")
                + (f"<br><i>Most representative papers:</i>{papers}" if papers else "")
            )

    trace = hierarchy_trace(kind, ids, labels, parents, values, node_colors, hover, maxdepth=2)
    fig = go.Figure(trace)
    fig.update_layout(**base_layout(title if title is not None else "Themes and their topics", height=650))
    fig.update_layout(uniformtext={"minsize": 10, "mode": "hide"})  # no unreadable text on small slices
    return fig

"""Figures of two periods: each theme's share in both (a dumbbell) and the largest changes (movers).

Each function takes the tables of ``icml_topics.compare.trends`` and returns a
``plotly.graph_objects.Figure`` (shows in Jupyter, exports with ``fig.write_html``).

Examples:
    >>> import pandas as pd
    >>> from icml_topics.compare import theme_shares
    >>> docs = pd.DataFrame({"year": [2019, 2019, 2024, 2024], "theme": ["RL", "Vision", "RL", "RL"]})
    >>> fig = plot_share_dumbbell(theme_shares(docs))
    >>> fig.layout.title.text is not None
    True
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from icml_topics.errors import InvalidValueError
from icml_topics.schema import MOVER_COLUMNS, SHARE_COLUMNS

from .._validation import require_columns
from ..compare.trend_info import read_trend_info
from ._style import base_layout
from ._trend_columns import DIRECTION_COLOURS, group_column, level_text

__all__ = ["plot_movers", "plot_share_dumbbell"]


def plot_share_dumbbell(
    shares_df: pd.DataFrame,
    *,
    by: str = "year",
    group: str | None = None,
    themes: list[str] | None = None,
    title: str | None = None,
) -> go.Figure:
    """Two periods: one row per theme, a hollow dot for the first period's share and a filled dot for
    the second's (with their intervals), joined by a line coloured by the direction of the change
    (Okabe-Ito blue = up, orange = down: safe for colour-blind readers). Themes are ordered by their
    share in the second period. [`plot_theme_shares`][icml_topics.plotting.plot_theme_shares] draws this when ``by`` has two values.

    Args:
        shares_df: a [`theme_shares`][icml_topics.compare.theme_shares] table with two periods.
        by: its period column.
        group: the column of the themes (or topics); ``None``: the one the table names, else its only other column.
        themes: the themes to draw, in this order; ``None``: all, by share in the second period.
        title: the figure's title; ``None``: a default naming what is shown.

    Examples:
        >>> fig = plot_share_dumbbell(theme_shares(docs[docs.year.isin([2019, 2024])]))
    """
    require_columns(shares_df, [by, *SHARE_COLUMNS], "shares_df", "theme_shares()")
    group = group_column(shares_df, by, group, SHARE_COLUMNS)
    periods = sorted(shares_df[by].dropna().unique().tolist(), key=lambda v: (isinstance(v, str), v))
    if len(periods) != 2:
        raise InvalidValueError(
            f"a dumbbell chart needs exactly two values of {by!r}, got {len(periods)}; use plot_theme_shares."
        )
    a, b = periods
    wide = shares_df.pivot_table(
        index=group, columns=by, values=["share", "lower", "upper", "n", "total"], aggfunc="first"
    )
    names = [t for t in (themes or wide.index.tolist()) if t in wide.index]
    names = sorted(names, key=lambda t: (-float(np.nan_to_num(wide.loc[t, ("share", b)])), str(t)))
    ci = level_text(shares_df)
    fig = go.Figure()
    for name in names:
        sa, sb = (float(np.nan_to_num(wide.loc[name, ("share", p)])) for p in (a, b))
        colour = DIRECTION_COLOURS["rising" if sb > sa else "declining" if sb < sa else "stable"]
        fig.add_trace(
            go.Scatter(
                x=[sa, sb],
                y=[str(name)] * 2,
                mode="lines",
                line={"color": colour, "width": 3},
                showlegend=False,
                hoverinfo="skip",
            )
        )
    for period, symbol in ((a, "circle-open"), (b, "circle")):
        share = np.array([float(np.nan_to_num(wide.loc[t, ("share", period)])) for t in names])
        lower = np.array([float(np.nan_to_num(wide.loc[t, ("lower", period)])) for t in names])
        upper = np.array([float(np.nan_to_num(wide.loc[t, ("upper", period)])) for t in names])
        counts = np.column_stack(
            [[wide.loc[t, ("n", period)] for t in names], [wide.loc[t, ("total", period)] for t in names], lower, upper]
        )
        fig.add_trace(
            go.Scatter(
                x=share,
                y=[str(t) for t in names],
                mode="markers",
                name=str(period),
                marker={"symbol": symbol, "size": 11, "color": "#333333", "line": {"width": 2, "color": "#333333"}},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": upper - share,
                    "arrayminus": share - lower,
                    "thickness": 1,
                    "width": 2,
                    "color": "#999999",
                },
                customdata=counts,
                hovertemplate=(
                    f"<b>%{{y}}</b><br>{by} {period}: %{{x:.1%}}<br>%{{customdata[0]:.0f}} of "
                    f"%{{customdata[1]:.0f}} papers<br>{ci} %{{customdata[2]:.1%}}–%{{customdata[3]:.1%}}<extra></extra>"
                ),
            )
        )
    fig.update_layout(
        **base_layout(
            title
            or f"Share of papers per {group}, {by} {a} → {b}<br><sup>hollow: {a}, filled: {b}; "
            f"line blue = up, orange = down; error bars: {ci.replace('CI', 'intervals')}</sup>",
            height=max(400, 160 + 26 * len(names)),
        ),
        xaxis_title="Share of papers",
        yaxis_title=group.capitalize(),
        legend_title=by.capitalize(),
        hovermode="closest",
    )
    fig.update_xaxes(tickformat=".0%", rangemode="tozero")
    fig.update_yaxes(
        type="category", categoryorder="array", categoryarray=[str(t) for t in names], autorange="reversed"
    )
    return fig


def plot_movers(
    movers_df: pd.DataFrame,
    *,
    top: int | None = 10,
    group: str | None = None,
    label_a: str | None = None,
    label_b: str | None = None,
    title: str | None = None,
) -> go.Figure:
    """Horizontal bars of the change in share (percentage points) with Newcombe error bars.

    ``movers_df`` is the output of [`theme_movers`][icml_topics.compare.theme_movers]. The ``top`` themes
    with the largest absolute change are shown (``None`` = all), largest rise at the top; one bar
    trace per direction present, in the order rising, stable, declining. Period labels come from
    the table (``label_a`` / ``label_b`` override them).

    Args:
        movers_df: a [`theme_movers`][icml_topics.compare.theme_movers] table.
        top: the themes with the largest absolute change to show; ``None``: all.
        group: the column of the themes (or topics); ``None``: the one the table names, else its only other column.
        label_a: the first period's name; ``None``: from the table.
        label_b: the second period's name; ``None``: from the table.
        title: the figure's title; ``None``: a default naming what is shown.

    Examples:
        >>> fig = plot_movers(theme_movers(docs, a=range(2013, 2020), b=2024), top=12)
    """
    needed = list(MOVER_COLUMNS)
    require_columns(movers_df, needed, "movers_df", "theme_movers()")
    group = group_column(movers_df, "", group, (*needed, "ratio", "significant"))
    if top is not None and top < 1:
        raise InvalidValueError(f"top must be a positive number of themes (or None for all), got {top!r}.")
    df = movers_df.assign(_abs=movers_df["diff"].abs(), _name=movers_df[group].map(str))
    df = df.sort_values(["_abs", "_name"], ascending=[False, True], kind="mergesort")
    if top is not None:
        df = df.head(top)
    df = df.sort_values(["diff", "_name"], ascending=[False, True], kind="mergesort")
    info = read_trend_info(movers_df, name="movers_df")
    label_a = label_a or info.a_label or "A"
    label_b = label_b or info.b_label or "B"
    by = info.by or ""
    ci = level_text(movers_df)
    fig = go.Figure()
    for direction in ("rising", "stable", "declining"):
        rows = df[df["direction"] == direction]
        if rows.empty:
            continue
        diff = rows["diff"].to_numpy(float)
        fig.add_trace(
            go.Bar(
                x=diff * 100,
                y=rows["_name"].tolist(),
                orientation="h",
                name=direction,
                marker={"color": DIRECTION_COLOURS[direction]},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": (rows["diff_upper"].to_numpy(float) - diff) * 100,
                    "arrayminus": (diff - rows["diff_lower"].to_numpy(float)) * 100,
                    "thickness": 1.2,
                    "width": 3,
                },
                customdata=np.column_stack(
                    [
                        rows["share_a"],
                        rows["share_b"],
                        rows["n_a"],
                        rows["total_a"],
                        rows["n_b"],
                        rows["total_b"],
                        rows["diff_lower"] * 100,
                        rows["diff_upper"] * 100,
                    ]
                ),
                hovertemplate=(
                    f"<b>%{{y}}</b><br>{label_a}: %{{customdata[0]:.1%}} (%{{customdata[2]:.0f}} of "
                    f"%{{customdata[3]:.0f}})<br>{label_b}: %{{customdata[1]:.1%}} (%{{customdata[4]:.0f}} of "
                    f"%{{customdata[5]:.0f}})<br>change %{{x:+.1f}} pp, {ci} %{{customdata[6]:+.1f}} to "
                    "%{customdata[7]:+.1f} pp<extra></extra>"
                ),
            )
        )
    period = f"{by} {label_a} → {label_b}" if by and by != "venue" else f"{label_a} → {label_b}"
    fig.update_layout(
        **base_layout(
            title
            or f"Rising and declining {group}s, {period}<br><sup>error bars: "
            f"{ci.replace('CI', 'Newcombe intervals')}</sup>",
            height=max(400, 160 + 26 * len(df)),
        ),
        xaxis_title=f"Change in share of papers ({label_a} → {label_b}), percentage points",
        yaxis_title=group.capitalize(),
        legend_title="Direction",
        barmode="overlay",
    )
    fig.update_xaxes(ticksuffix=" pp", zeroline=True, zerolinecolor="#444", zerolinewidth=1)
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=df["_name"].tolist(), autorange="reversed")
    return fig

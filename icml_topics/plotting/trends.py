"""Plots of theme trends: shares over years with intervals and a year x theme heatmap (two periods:
``two_periods.py``).

Each function takes the tables of ``icml_topics.compare.trends`` and returns a
``plotly.graph_objects.Figure`` (shows in Jupyter, exports with ``fig.write_html``).

Examples:
    >>> import pandas as pd
    >>> from icml_topics.compare import theme_shares
    >>> docs = pd.DataFrame({"year": [2019, 2019, 2022, 2024], "theme": ["RL", "Vision", "RL", "RL"]})
    >>> fig = plot_theme_shares(theme_shares(docs))
    >>> [t.name for t in fig.data]
    ['RL', 'Vision']
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from icml_topics.errors import InvalidTypeError, InvalidValueError
from icml_topics.schema import SHARE_COLUMNS

from .._validation import require_columns
from ..compare.trend_info import read_trend_info
from ._style import base_layout, theme_colors
from ._trend_columns import group_column, group_order, level_text
from .two_periods import plot_share_dumbbell

__all__ = ["plot_theme_shares", "plot_year_theme_heatmap"]


def _gap_starts(x_values: list) -> set:
    """The numeric periods that follow missing ones, so that no line is drawn across periods without data.

    The expected step between periods is the greatest common divisor of the steps for whole numbers
    (years: 1; decades: 10), else the smallest step; a period further than that from the one before
    follows a gap. Empty for fewer than three periods (two are drawn as a dumbbell).

    Examples:
        >>> sorted(_gap_starts([2013, 2014, 2015, 2019, 2024]))
        [2019, 2024]
        >>> sorted(_gap_starts([1990, 2000, 2010]))
        []
    """
    if len(x_values) < 3:
        return set()
    values = np.asarray(x_values, dtype=float)
    steps = np.diff(values)
    if np.all(values == np.round(values)):
        expected = float(np.gcd.reduce(steps.astype(np.int64)))
    else:
        expected = float(steps.min())
    return {x for x, step in zip(x_values[1:], steps) if step > expected * 1.000001}


def _with_breaks(rows: pd.DataFrame, by: str, gaps: set) -> pd.DataFrame:
    """``rows`` (sorted by ``by``) with a row of missing values just before each period in ``gaps``."""
    breaks = pd.DataFrame({by: [float(x) - 0.5 for x in sorted(gaps)], "share": np.nan, "lower": np.nan})
    breaks["upper"] = np.nan
    merged = pd.concat([rows, breaks], ignore_index=True)
    return merged.sort_values(by, kind="mergesort").reset_index(drop=True)


def _runs(rows: pd.DataFrame, by: str) -> list[pd.DataFrame]:
    """The runs of consecutive rows with a share, split at the break rows of :func:`_with_breaks`."""
    has_data = rows["share"].notna()
    run_id = (~has_data).cumsum()
    return [run for _, run in rows[has_data].groupby(run_id[has_data], sort=True)]


def _bands(rows: pd.DataFrame, by: str, name: str, colour: str, ci: str) -> tuple[list[go.Scatter], list[int]]:
    """One shaded interval band per run of periods with data (none across a gap), and the positions of the
    periods that stand alone: a band needs two periods, so those show their interval as an error bar."""
    bands, lone = [], []
    for run in _runs(rows, by):
        if len(run) == 1:
            lone.extend(run.index)
            continue
        bands.append(
            go.Scatter(
                x=run[by].tolist() + run[by].tolist()[::-1],
                y=np.concatenate([run["upper"].to_numpy(float), run["lower"].to_numpy(float)[::-1]]),
                fill="toself",
                mode="lines",
                line={"width": 0},
                fillcolor=_hex_to_rgba(colour, 0.15),
                hoverinfo="skip",
                legendgroup=name,
                showlegend=False,
                name=f"{name} ({ci})",
            )
        )
    return bands, lone


def _hex_to_rgba(colour: str, alpha: float) -> str:
    try:
        r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    except (ValueError, TypeError):  # a named colour passed through ``colors``
        r, g, b = 128, 128, 128
    return f"rgba({r},{g},{b},{alpha})"


def plot_theme_shares(
    shares_df: pd.DataFrame,
    *,
    by: str = "year",
    top: int | None = None,
    themes: list[str] | None = None,
    group: str | None = None,
    intervals: Literal["bars", "bands"] = "bars",
    colors: dict[str, str] | None = None,
    title: str | None = None,
) -> go.Figure:
    """Lines of each theme's share per year, with error bars (or shaded bands) from ``lower``/``upper``.

    No line (or band) joins two periods with missing periods between them (ICML 2019 and 2024): the line
    breaks there, and a period standing alone shows its interval as an error bar also with ``"bands"``.

    ``shares_df`` is the output of [`theme_shares`][icml_topics.compare.theme_shares]. Themes are ordered
    by pooled share, largest first; ``top`` keeps the first ``top`` of them, ``themes`` picks
    (and orders) them explicitly. One line trace per theme (plus one band trace before each line
    when ``intervals="bands"``). Hover shows ``n`` of ``total`` papers and the interval. Colours
    follow [`theme_colors`][icml_topics.plotting.theme_colors] over all themes in the table (as in the topic
    map) unless ``colors`` maps names to colours.

    Args:
        shares_df: a [`theme_shares`][icml_topics.compare.theme_shares] table.
        by: its period column (``"year"``); two values draw a dumbbell chart instead.
        top: keep the ``top`` themes by pooled share; ``None``: all.
        themes: the themes to draw, in this order; ``None``: by pooled share.
        group: the column of the themes (or topics); ``None``: the one the table names, else its only other column.
        intervals: ``"bars"`` (error bars) or ``"bands"`` (shaded bands).
        colors: name -> colour; ``None``: [`theme_colors`][icml_topics.plotting.theme_colors].
        title: the figure's title; ``None``: a default naming what is shown.

    Examples:
        >>> fig = plot_theme_shares(shares, top=8)
        >>> fig.write_html("theme_shares.html")
    """
    require_columns(shares_df, [by, *SHARE_COLUMNS], "shares_df", "theme_shares()")
    if intervals not in ("bars", "bands"):
        raise InvalidValueError(f"intervals must be 'bars' or 'bands', got {intervals!r}.")
    group = group_column(shares_df, by, group, SHARE_COLUMNS)
    order = group_order(shares_df, group)
    palette = {**theme_colors(order), **(colors or {})}
    if themes is not None:
        unknown = [t for t in themes if t not in order]
        if unknown:
            raise InvalidValueError(f"themes {unknown} are not in shares_df; available: {sorted(map(str, order))}.")
        order = list(themes)
    if top is not None:
        if top < 1:
            raise InvalidValueError(f"top must be a positive number of themes, got {top!r}.")
        order = order[:top]
    x_values = sorted(shares_df[by].dropna().unique().tolist(), key=lambda v: (isinstance(v, str), v))
    if len(x_values) == 2:  # two periods: a dumbbell per theme reads better than crossing lines
        return plot_share_dumbbell(shares_df, by=by, group=group, themes=order, title=title)
    numeric_x = all(isinstance(v, (int, float, np.integer, np.floating)) for v in x_values)
    gaps = _gap_starts(x_values) if numeric_x else set()
    ci = level_text(shares_df)
    fig = go.Figure()
    for name in order:
        rows = shares_df[shares_df[group] == name].sort_values(by, kind="mergesort").reset_index(drop=True)
        if gaps:  # a blank row before each period that follows missing ones: plotly breaks the line there
            rows = _with_breaks(rows, by, gaps)
        x = rows[by].tolist() if numeric_x else rows[by].map(str).tolist()
        share = rows["share"].to_numpy(float)
        lower, upper = rows["lower"].to_numpy(float), rows["upper"].to_numpy(float)
        colour = palette.get(str(name), "#4e79a7")
        bars = np.full(len(rows), intervals == "bars")
        if intervals == "bands":
            bands, lone = _bands(rows, by, str(name), colour, ci)
            fig.add_traces(bands)
            bars[lone] = True
        fig.add_trace(
            go.Scatter(
                x=x,
                y=share,
                mode="lines+markers",
                name=str(name),
                legendgroup=str(name),
                line={"color": colour},
                marker={"color": colour, "size": 7},
                error_y=None
                if not bars.any()
                else {
                    "type": "data",
                    "symmetric": False,
                    "array": np.where(bars, upper - share, np.nan),
                    "arrayminus": np.where(bars, share - lower, np.nan),
                    "thickness": 1.2,
                    "width": 3,
                },
                customdata=np.column_stack([rows["n"], rows["total"], lower, upper]),
                hovertemplate=(
                    f"<b>{name}</b><br>{by} %{{x}}: %{{y:.1%}}<br>%{{customdata[0]:d}} of "
                    f"%{{customdata[1]:d}} papers<br>{ci} %{{customdata[2]:.1%}}–%{{customdata[3]:.1%}}"
                    "<extra></extra>"
                ),
            )
        )
    method_text = {"wilson": "Wilson", "bootstrap": "bootstrap"}.get(read_trend_info(shares_df).method or "", "")
    fig.update_layout(
        **base_layout(
            title
            or f"Share of papers per {group} by {by}<br><sup>{'error bars' if intervals == 'bars' else 'bands'}: "
            f"{ci.replace('CI', 'intervals')}{' (' + method_text + ')' if method_text else ''}</sup>",
            height=550,
        ),
        xaxis_title=by.capitalize(),
        yaxis_title="Share of papers",
        legend_title=group.capitalize(),
        hovermode="closest",
    )
    fig.update_yaxes(tickformat=".0%", rangemode="tozero")
    if numeric_x:
        fig.update_xaxes(tickmode="array", tickvals=x_values, tickformat="d")
    else:
        fig.update_xaxes(type="category", categoryorder="array", categoryarray=[str(v) for v in x_values])
    return fig


def plot_year_theme_heatmap(
    data: pd.DataFrame,
    *,
    by: str = "year",
    group: str | None = None,
    title: str | None = None,
) -> go.Figure:
    """Heatmap of shares, themes as rows (largest first) and years as columns.

    ``data`` is either the long output of [`theme_shares`][icml_topics.compare.theme_shares] (hover then shows
    ``n`` of ``total`` papers and the interval) or a wide table of shares such as
    [`year_theme_table`][icml_topics.compare.year_theme_table] (rows themes, columns years; hover shows the share).

    Args:
        data: a long [`theme_shares`][icml_topics.compare.theme_shares] table or a wide table of shares.
        by: the period column of a long table.
        group: the column of the themes (or topics); ``None``: the one the table names, else its only other column.
        title: the figure's title; ``None``: a default naming what is shown.

    Examples:
        >>> fig = plot_year_theme_heatmap(theme_shares(docs))
    """
    if not isinstance(data, pd.DataFrame):
        raise InvalidTypeError(
            f"data must be a DataFrame from theme_shares() or year_theme_table(), got {type(data).__name__}."
        )
    long = by in data.columns and all(c in data.columns for c in SHARE_COLUMNS)
    if long:
        group = group_column(data, by, group, SHARE_COLUMNS)
        order = group_order(data, group)
        cols = sorted(data[by].dropna().unique().tolist(), key=lambda v: (isinstance(v, str), v))
        piv = {
            c: data.pivot(index=group, columns=by, values=c).reindex(index=order, columns=cols) for c in SHARE_COLUMNS
        }
        z = piv["share"].to_numpy(float)
        custom = np.stack([piv[c].to_numpy(float) for c in ("n", "total", "lower", "upper")], axis=-1)
        ci = level_text(data)
        hover = (
            f"<b>%{{y}}</b><br>{by} %{{x}}: %{{z:.1%}}<br>%{{customdata[0]:.0f}} of %{{customdata[1]:.0f}} "
            f"papers<br>{ci} %{{customdata[2]:.1%}}–%{{customdata[3]:.1%}}<extra></extra>"
        )
        rows, columns = order, cols
    else:
        numeric = data.apply(pd.to_numeric, errors="coerce")
        if numeric.isna().all().all():
            raise InvalidValueError(
                "data is neither a theme_shares() table (columns "
                f"{[by, *SHARE_COLUMNS]}) nor a wide table of shares; pass one of them."
            )
        z, custom = numeric.to_numpy(float), None
        group = group or str(data.index.name or "theme")
        by = str(data.columns.name or by)
        hover = f"<b>%{{y}}</b><br>{by} %{{x}}: %{{z:.1%}}<extra></extra>"
        rows, columns = data.index.tolist(), data.columns.tolist()
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[str(c) for c in columns],
            y=[str(r) for r in rows],
            customdata=custom,
            colorscale="Blues",
            zmin=0,
            colorbar={"title": "Share", "tickformat": ".0%"},
            texttemplate="%{z:.0%}",
            textfont={"size": 10},
            hovertemplate=hover,
            xgap=1,
            ygap=1,
        )
    )
    fig.update_layout(
        **base_layout(title or f"Share of papers per {group} and {by}", height=max(400, 140 + 24 * len(rows))),
        xaxis_title=by.capitalize(),
        yaxis_title=group.capitalize(),
    )
    fig.update_xaxes(type="category")
    fig.update_yaxes(type="category", autorange="reversed")
    return fig

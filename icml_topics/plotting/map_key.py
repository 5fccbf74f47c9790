"""The static map's key: every colour on the map is named, over its papers or in a legend.

A theme with at least ``MIN_LABEL_POINTS`` clustered papers is named over its papers (DataMapPlot's labels);
every other coloured theme, and grey for papers without a theme, gets a legend entry under the map with its
paper count, as DataMapPlot's and Embedding Atlas's maps do when there are many small groups (a fit of a few
dozen abstracts colours many themes with one or two papers each).

Examples:
    >>> key = map_key(pd.Series(["A", "A", "A", "B", ""]), np.zeros(5, dtype=bool), {"A": "#ff0000", "B": "#00ff00"})
    >>> key.labelled, [(e.name, e.papers) for e in key.legend]
    (('A',), [('B', 1), ('No theme', 1)])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._wording import counted
from ._style import NO_THEME_COLOR

__all__ = ["MIN_LABEL_POINTS", "NO_THEME_ENTRY", "LegendEntry", "MapKey", "add_legend", "map_key"]

MIN_LABEL_POINTS = 3
"""A theme is named over its papers from this many clustered (non-outlier) papers on; smaller ones in the legend."""
NO_THEME_ENTRY = "No theme"
LEGEND_TITLE = "Smaller themes"


@dataclass(frozen=True)
class LegendEntry:
    """One legend row: a theme (or ``NO_THEME_ENTRY``), its colour and its papers on the map."""

    name: str
    color: str
    papers: int

    @property
    def text(self) -> str:
        return f"{self.name} ({counted(self.papers, 'paper')})"


@dataclass(frozen=True)
class MapKey:
    """What names each colour: ``labelled`` themes over their papers, the ``legend`` rows for the rest
    (largest first, no-theme grey last); ``outliers``: papers drawn lighter (topic -1)."""

    labelled: tuple[str, ...]
    legend: tuple[LegendEntry, ...]
    outliers: int


def map_key(theme: pd.Series, outlier: np.ndarray, palette: Mapping[str, str]) -> MapKey:
    """The key of a map whose papers have themes ``theme`` ("" for none) and outlier flags ``outlier``."""
    theme = theme.astype("string").fillna("").str.strip().reset_index(drop=True)
    outlier = np.asarray(outlier, dtype=bool)
    clustered = theme[~outlier]
    counts = clustered[clustered != ""].value_counts()
    labelled = tuple(sorted(counts[counts >= MIN_LABEL_POINTS].index))
    sizes = theme[theme != ""].value_counts()
    small = sizes[[name not in labelled for name in sizes.index]]
    order = sorted(small.items(), key=lambda item: (-int(item[1]), str(item[0])))
    legend = [LegendEntry(str(name), palette.get(name, NO_THEME_COLOR), int(n)) for name, n in order]
    no_theme = int((theme == "").sum())
    if no_theme:
        legend.append(LegendEntry(NO_THEME_ENTRY, NO_THEME_COLOR, no_theme))
    return MapKey(labelled, tuple(legend), int(outlier.sum()))


def add_legend(fig, ax, key: MapKey, *, font: str, columns: int = 3) -> None:
    """The legend rows of ``key`` under the map, aligned with the title; the figure grows by their height
    and the map keeps its size in inches (DataMapPlot's label spacing is in inches)."""
    if not key.legend:
        return
    from matplotlib.lines import Line2D
    from matplotlib.transforms import blended_transform_factory

    fig.canvas.draw()
    fig.set_layout_engine("none")
    handles = [
        Line2D([], [], marker="o", linestyle="", markersize=9, markerfacecolor=e.color, markeredgecolor=e.color)
        for e in key.legend
    ]
    for ncol in range(min(columns, len(handles)), 0, -1):  # as many columns as fit the figure's width
        legend = ax.legend(
            handles,
            [e.text for e in key.legend],
            loc="upper left",
            bbox_to_anchor=(0.03, 0.0),  # x: as the title (figure fraction); y: the map's bottom edge
            bbox_transform=blended_transform_factory(fig.transFigure, ax.transAxes),
            ncol=ncol,
            frameon=False,
            title=LEGEND_TITLE if key.labelled else "Themes",
            alignment="left",
            prop={"family": font, "size": 10},
            title_fontproperties={"family": font, "size": 11, "weight": "bold"},
            handletextpad=0.3,
            columnspacing=1.5,
        )
        fig.canvas.draw()
        if legend.get_window_extent().x1 <= 0.98 * fig.bbox.width or ncol == 1:
            break
        legend.remove()
    needed = legend.get_window_extent().height / fig.dpi + 0.3  # inches, with a margin below
    width, height = fig.get_size_inches()
    x0, y0, w, h = ax.get_position().bounds
    new_height = height + needed
    fig.set_size_inches(width, new_height)
    ax.set_position([x0, (y0 * height + needed) / new_height, w, h * height / new_height])

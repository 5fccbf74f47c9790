"""Interactive plotly figures: each function returns a ``plotly.graph_objects.Figure``.

Figures work in Jupyter, in ``save_figure(fig, "x.html")`` files and in the self-contained report
(``icml_topics.report``). Themes get the same colour in every figure ([`theme_colors`][icml_topics.plotting.theme_colors]).

Examples:
    >>> from icml_topics.plotting import plot_topic_map, save_figure
    >>> fig = plot_topic_map(model.documents_)
    >>> save_figure(fig, "topic_map.html")

Names are imported lazily, so ``import icml_topics.plotting`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from ._style import theme_colors
    from .alignment import plot_alignment_sankey
    from .explore import MapExplorer
    from .export import StaticExportError, save_figure
    from .hierarchy import plot_theme_hierarchy
    from .static_map import plot_map_static, save_map
    from .topic_map import plot_topic_map
    from .trends import plot_theme_shares, plot_year_theme_heatmap
    from .two_periods import plot_movers, plot_share_dumbbell

_EXPORTS: dict[str, str] = {
    "plot_topic_map": "topic_map",
    "plot_theme_hierarchy": "hierarchy",
    "save_figure": "export",
    "StaticExportError": "export",
    "theme_colors": "_style",
    "plot_theme_shares": "trends",
    "plot_year_theme_heatmap": "trends",
    "plot_movers": "two_periods",
    "plot_share_dumbbell": "two_periods",
    "plot_map_static": "static_map",
    "save_map": "static_map",
    "plot_alignment_sankey": "alignment",
    "MapExplorer": "explore",  # anywidget (a dependency), imported on first use
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

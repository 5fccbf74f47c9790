"""Self-contained HTML reports: plotly.js inlined once, no network needed, a paper search box.

Examples:
    >>> from icml_topics.report import Report, build_fit_report
    >>> build_fit_report(model.documents_, model.topics_, model.themes_).write("out/report.html")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .builder import Report

if TYPE_CHECKING:  # pragma: no cover
    from .fit_report import build_fit_report  # lazy: it pulls in the plotting modules

__all__ = ["Report", "build_fit_report"]


def __getattr__(name: str) -> Any:
    if name == "build_fit_report":  # imported lazily: it pulls in the plotting modules
        from .fit_report import build_fit_report  # lazy: it pulls in the plotting modules

        return build_fit_report
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

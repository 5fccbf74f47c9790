"""``TopicMap``'s maps, plots and reports (a mixin of the facade).

They read the fitted tables (``documents_``, ``topics_``, ``themes_``, ``topic_tree_``) and hand them to
``icml_topics.plotting`` and ``icml_topics.report``, which never import back up (the report writes its
tables through ``icml_topics.store``, not through ``icml_topics.outputs``).

    >>> tm = TopicMap(random_state=0).fit("../shared/data/icml-2013-2024.jsonl.gz")
    >>> tm.plot_map().show()
    >>> tm.report("report.html")
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from icml_topics.errors import check_fitted
from icml_topics.fitted_tables import FittedTables
from icml_topics.outputs import run_record

__all__ = ["PlotMethods"]


class PlotMethods:
    """The interactive and static maps, the explorer widget, the hierarchy and share plots, and the HTML
    report of a fitted ``TopicMap``."""

    def _tables(self) -> FittedTables:
        """The fit's tables ([`NotFittedError`][icml_topics.NotFittedError] before ``fit``)."""
        check_fitted(self)
        return self.tables_

    def plot_map(self, **kwargs: Any):
        """The 2-D topic map (points coloured by theme): a ``plotly.graph_objects.Figure``.

        Args:
            **kwargs: passed on to [`plot_topic_map`][icml_topics.plotting.plot_topic_map] (``color``,
                ``label_themes``, ``by_year``, ``title``, ...); the fitted ``topic_tree_`` names the zoom layers.

        Examples:
            >>> tm.plot_map().write_html("map.html")
        """
        from icml_topics.plotting import plot_topic_map  # lazy: keeps TopicMap light

        tables = self._tables()
        kwargs.setdefault("topic_tree", tables.topic_tree)
        return plot_topic_map(tables.documents, **kwargs)

    def explore(self, *, height: int = 560, **kwargs: Any):
        """The interactive map in Jupyter: lasso / box / click a name to select papers, search, a year
        filter; ``explorer.selection`` is the DataFrame of the selected rows of ``documents_``.

        Outside a notebook it raises a ``RuntimeError`` that names what to use instead (``plot_map()``).
        See ``icml_topics.plotting.explore``.

        Args:
            height: the widget's height in pixels.
            **kwargs: passed on to ``icml_topics.plotting.explore.explore`` (e.g. ``colors``).

        Examples:
            >>> explorer = tm.explore()
            >>> explorer.on_select(lambda papers: print(len(papers)))
        """
        try:
            from icml_topics.plotting.explore import explore  # lazy: keeps TopicMap light
        except ImportError as exc:
            raise ImportError(
                f"tm.explore() needs anywidget ({exc}), a dependency of icml-topics missing here: pip install anywidget. "
                "Without it, tm.plot_map() gives an interactive plotly map."
            ) from exc
        tables = self._tables()
        return explore(tables.documents, topic_tree=tables.topic_tree, height=height, **kwargs)

    def plot_map_static(self, **kwargs: Any):
        """The publication map (DataMapPlot): a matplotlib Figure with theme labels placed around the
        map without overlaps; ``topic_labels=True`` adds topic names. See [`plot_map_static`][icml_topics.plotting.plot_map_static].

        Args:
            **kwargs: passed on to [`plot_map_static`][icml_topics.plotting.plot_map_static] (``title``,
                ``subtitle``, ``topic_labels``, ``figsize``, ...).

        Examples:
            >>> fig = tm.plot_map_static(topic_labels=True)
            >>> fig.savefig("map.png", dpi=200)
        """
        from icml_topics.plotting.static_map import plot_map_static  # lazy: keeps TopicMap light

        return plot_map_static(self._tables().documents, **kwargs)

    def save_map(self, path: str | os.PathLike, *, dpi: int = 300, **kwargs: Any) -> Path:
        """Write the publication map as PNG, SVG or PDF (from the suffix) at ``dpi``; returns the path.

        Args:
            path: the file to write; its suffix (``.png``, ``.svg``, ``.pdf``) picks the format.
            dpi: resolution of a PNG (and of the raster parts of SVG/PDF).
            **kwargs: passed on to [`plot_map_static`][icml_topics.plotting.plot_map_static].

        Examples:
            >>> tm.save_map("figures/icml-map.pdf", title="ICML 2013-2024")
        """
        from icml_topics.plotting.static_map import save_map  # lazy: keeps TopicMap light

        fig = self.plot_map_static(**kwargs)
        try:
            return save_map(fig, path, dpi=dpi)
        finally:
            import matplotlib.pyplot as plt

            plt.close(fig)

    def plot_hierarchy(self, **kwargs: Any):
        """Themes -> topics (``topics_``, the tree's finest level) as a sunburst (or ``kind="treemap"``);
        ``plotting.topic_tree.plot_topic_tree(tm.topic_tree_)`` draws every level of the tree under the themes.

        Args:
            **kwargs: passed on to [`plot_theme_hierarchy`][icml_topics.plotting.plot_theme_hierarchy]
                (``kind``, ``title``, ``colors``).

        Examples:
            >>> tm.plot_hierarchy(kind="treemap")
        """
        from icml_topics.plotting import plot_theme_hierarchy  # lazy: keeps TopicMap light

        return plot_theme_hierarchy(self._tables().topics, **kwargs)

    def plot_theme_shares(self, by: str = "year", **kwargs: Any):
        """Share of papers per theme per ``by`` value, with 95% intervals.

        Args:
            by: the ``documents_`` column that defines the periods or groups (``"year"``, ``"venue"``, ...).
            **kwargs: passed on to [`plot_theme_shares`][icml_topics.plotting.plot_theme_shares] (``top``,
                ``themes``, ``title``, ...).

        Examples:
            >>> tm.plot_theme_shares(by="year")
        """
        from icml_topics.compare import theme_shares  # heavy: scipy
        from icml_topics.plotting import plot_theme_shares  # lazy: keeps TopicMap light

        return plot_theme_shares(theme_shares(self._tables().documents, by=by), by=by, **kwargs)

    def report(
        self, path: str | os.PathLike, *, title: str = "Topic map", tables: bool = True, csv_safe: bool = True
    ) -> Path:
        """Write a self-contained HTML report (plotly.js inlined, opens offline); with ``tables``, the
        tables it shows also as CSV in ``tables/`` next to it (``fit --out`` writes its own CSVs instead), formulas
        escaped with a leading ``'`` (``csv_safe=False``: raw cells). Returns the path.

        Args:
            path: the HTML file to write.
            title: the page title.
            tables: also write the tables shown as CSV files in ``tables/`` next to the report.
            csv_safe: start a CSV cell that a spreadsheet would read as a formula with ``'``.

        Examples:
            >>> tm.report("results/report.html", title="ICML 2024: topic map")
        """
        from icml_topics.report import build_fit_report  # lazy: keeps TopicMap light

        fitted = self._tables()
        extra = {"duplicates": self.summary()["duplicates"]}  # the report computes the other key numbers itself
        csv_dir = "tables" if tables else None
        report = build_fit_report(
            fitted.documents,
            fitted.topics,
            fitted.themes,
            title=title,
            metrics=extra,
            csv_dir=csv_dir,
            tree=fitted.topic_tree,
        )
        report.set_provenance(run_record(self)).write(path, csv_safe=csv_safe)
        return Path(path)

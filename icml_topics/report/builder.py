"""``Report``: a self-contained HTML page of figures, tables and key numbers.

plotly.js is inlined once, there is no CDN, font or MathJax reference, and a Content-Security-Policy
forbids any network access, so the page opens from ``file://`` on a machine without network.
Figures added with ``searchable=True`` get a search box that highlights the matching papers; a topic
map's names follow the zoom (``plotting/labels.js``).

Examples:
    >>> from icml_topics.report import Report
    >>> report = Report("ICML 2024", subtitle="2,610 papers")
    >>> report.add_metrics({"papers": 2610, "topics": 84})
    <Report 'ICML 2024': 1 block>
    >>> report.add_figure(fig, caption="Each point is a paper.", searchable=True)
    >>> report.set_search_index(model.documents_)
    >>> report.write("out/report.html")
"""

from __future__ import annotations

import html
import importlib.resources
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from icml_topics.errors import InvalidTypeError, InvalidValueError
from icml_topics.plotting.topic_map import plain_text

from ..plotting.labels import labels_js
from ._render import cell_text, json_for_script, metrics_html, slugify, table_html, text_to_html

__all__ = ["Report"]

_CSP = (
    "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; "
    "img-src data: blob:; font-src data:; connect-src 'none'; form-action 'none'; base-uri 'none'"
)
_PLOTLY_CONFIG = {"displaylogo": False, "responsive": True, "toImageButtonOptions": {"scale": 2}}


def _asset(name: str) -> str:
    return importlib.resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _csv_path(name: str) -> str:
    """Validate a table's CSV file name: relative, inside the report folder, ending in ``.csv``."""
    path = PurePosixPath(str(name).replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or path.suffix.lower() != ".csv" or not path.name:
        raise InvalidValueError(
            f"csv_name={name!r} must be a relative path ending in .csv inside the report folder, "
            "e.g. 'topics.csv' or 'tables/topics.csv'."
        )
    return path.as_posix()


@dataclass
class _Block:
    kind: str
    payload: object
    caption: str = ""
    options: dict = field(default_factory=dict)


def _label_layers(fig: go.Figure) -> list:
    """The zoom label layers a figure carries (``plot_topic_map``), or ``[]``."""
    meta = fig.layout.meta
    return list(meta.get("label_layers") or []) if isinstance(meta, dict) else []


def _zoom_labelled(fig: go.Figure) -> go.Figure:
    """A figure with zoom label layers loses its static theme annotations: the page's label script
    (``labels.js``, ``map_labels.js``) draws the names instead, at every zoom."""
    if not _label_layers(fig) or not any(a.name == "theme-label" for a in fig.layout.annotations):
        return fig
    fig = go.Figure(fig)
    fig.layout.annotations = [a for a in fig.layout.annotations if a.name != "theme-label"]
    return fig


def _readable(text: str) -> str:
    """LaTeX shown as text in the search results (``E$^2$GAN`` -> ``E²GAN``), like the map's hover."""

    return plain_text(text)


class Report:
    """Builder for one self-contained HTML report; add blocks in display order, then [`write`][icml_topics.report.Report.write].

    Args:
        title: the page title (also the HTML ``<title>``).
        subtitle: a line under the title.

    Examples:
        >>> report = Report("ICML 2024", subtitle="5,630 papers")
        >>> report.write("report.html")
    """

    def __init__(self, title: str, subtitle: str = "") -> None:
        self.title = str(title)
        self.subtitle = str(subtitle)
        self._blocks: list[_Block] = []
        self._csv: dict[str, pd.DataFrame] = {}
        self._search: list[list[object]] | None = None
        self.provenance = ""  # set_provenance: what made the results, in the footer

    # ----------------------------------------------------------------- adding content
    def set_provenance(self, record: Mapping[str, object]) -> Report:
        """What made the results, shown in the footer: the embedding path, the CPU class and the package
        version (``outputs.run_record``), so a reader knows which machine's vectors a tree comes from.

        Args:
            record: ``{"embedding_path": ..., "cpu": "<arch>|<model>|<flags>", "package_version": ...}``.
        """
        cpu = str(record.get("cpu") or "").split("|")
        machine = " ".join(p for p in cpu[:2] if p) or "unknown CPU"
        path = record.get("embedding_path") or "the machine's embedding path"
        self.provenance = f"icml_topics {record.get('package_version', '')} · embeddings: {path} on {machine}"
        return self

    def add_heading(self, text: str) -> Report:
        """A section heading (also listed in the table of contents).

        Args:
            text: the heading.
        """
        self._blocks.append(_Block("heading", str(text)))
        return self

    def add_text(self, text: str) -> Report:
        """A paragraph of markdown-ish text (``**bold**``, ``*em*``, `` `code` ``, ``- `` lists); HTML is escaped.

        Args:
            text: the paragraph.
        """
        self._blocks.append(_Block("text", str(text)))
        return self

    def add_figure(self, fig: go.Figure, caption: str = "", searchable: bool = False) -> Report:
        """A plotly figure. ``searchable=True``: the search box highlights matching points.

        Searchable figures must carry the document id in each trace's ``customdata`` (as
        [`plot_topic_map`][icml_topics.plotting.plot_topic_map] does); the searchable texts come from
        [`set_search_index`][icml_topics.report.Report.set_search_index].

        Args:
            fig: a plotly figure.
            caption: a line under the figure.
            searchable: the search box highlights the matching points of this figure.
        """
        if not isinstance(fig, go.Figure):
            raise InvalidTypeError(f"add_figure expects a plotly.graph_objects.Figure, got {type(fig).__name__}.")
        self._blocks.append(_Block("figure", fig, str(caption), {"searchable": bool(searchable)}))
        return self

    def add_table(self, df: pd.DataFrame, caption: str = "", max_rows: int = 50, csv_name: str | None = None) -> Report:
        """An HTML table of the first ``max_rows`` rows; ``csv_name``: [`write`][icml_topics.report.Report.write] saves all rows there.

        Args:
            df: the table.
            caption: a line above the table.
            max_rows: rows shown in the page (the CSV holds all).
            csv_name: save the whole table as this CSV (relative to the report) on ``write``; ``None``: not saved.
        """
        if not isinstance(df, pd.DataFrame):
            raise InvalidTypeError(f"add_table expects a pandas DataFrame, got {type(df).__name__}.")
        if max_rows < 1:
            raise InvalidValueError(f"max_rows must be at least 1, got {max_rows}.")
        name = self._register_csv(csv_name, df)
        self._blocks.append(_Block("table", df.copy(), str(caption), {"max_rows": int(max_rows), "csv": name}))
        return self

    def add_metrics(self, metrics: Mapping[str, object], *, csv_name: str | None = None) -> Report:
        """A row of key numbers, e.g. ``{"papers": 2610, "topics": 84, "without theme": "4.1%"}``.

        Args:
            metrics: label -> value, shown in this order.
            csv_name: also save them as this CSV (relative to the report) on ``write``; ``None``: not saved.
        """
        metrics = dict(metrics)
        frame = pd.DataFrame({"metric": list(metrics), "value": pd.Series(list(metrics.values()), dtype=object)})
        name = self._register_csv(csv_name, frame)
        self._blocks.append(_Block("metrics", metrics, options={"csv": name}))
        return self

    def set_search_index(self, documents: pd.DataFrame, *, abstract_chars: int | None = None) -> Report:
        """Papers the search box looks through (columns ``id``, ``title``, ``abstract``; ``year``, ``venue`` optional).

        A query matches a paper when it occurs (case-insensitively) in its title or abstract.
        ``abstract_chars`` truncates the embedded abstracts to save space (search then sees only
        their beginning); ``None`` embeds them whole.

        Args:
            documents: the papers (``TopicMap.documents_``).
            abstract_chars: keep this many characters of each abstract; ``None``: whole abstracts.
        """
        if "id" not in documents.columns or not {"title", "abstract"} & set(documents.columns):
            raise InvalidValueError(
                "set_search_index needs an 'id' column and a 'title' or 'abstract' column (documents_ table)."
            )

        def column(name: str) -> list[str]:
            if name not in documents.columns:
                return [""] * len(documents)
            if name == "year":  # 2024.0 -> "2024"
                return [cell_text(v) for v in documents[name]]
            texts = ["" if v is None or (np.ndim(v) == 0 and pd.isna(v)) else str(v) for v in documents[name]]
            return [_readable(t) for t in texts] if name in ("title", "abstract") else texts

        abstracts = column("abstract")
        if abstract_chars is not None:
            abstracts = [a[:abstract_chars] for a in abstracts]
        self._search = [
            list(row) for row in zip(column("id"), column("title"), column("year"), column("venue"), abstracts)
        ]
        return self

    def _register_csv(self, csv_name: str | None, df: pd.DataFrame) -> str | None:
        if csv_name is None:
            return None
        name = _csv_path(csv_name)
        if name in self._csv:
            raise InvalidValueError(
                f"csv_name {name!r} is already used by another table in this report; pick another name."
            )
        self._csv[name] = df.copy()
        return name

    # ------------------------------------------------------------------ rendering
    def _searchable(self) -> bool:
        return any(b.kind == "figure" and b.options["searchable"] for b in self._blocks)

    def _render_blocks(self) -> tuple[list[str], list[tuple[str, str]]]:
        parts: list[str] = []
        toc: list[tuple[str, str]] = []
        ids: set[str] = set()
        n_fig = 0
        for block in self._blocks:
            if block.kind == "heading":
                slug = slugify(block.payload, ids)
                toc.append((slug, block.payload))
                parts.append(f'<h2 id="{slug}">{html.escape(block.payload)}</h2>')
            elif block.kind == "text":
                parts.append(f'<div class="text">{text_to_html(block.payload)}</div>')
            elif block.kind == "metrics":
                parts.append(metrics_html(block.payload) + self._csv_note(block.options["csv"]))
            elif block.kind == "figure":
                n_fig += 1
                fig: go.Figure = _zoom_labelled(block.payload)
                div = pio.to_html(
                    fig,
                    include_plotlyjs=False,
                    include_mathjax=False,
                    full_html=False,
                    div_id=f"figure-{n_fig}",
                    config=_PLOTLY_CONFIG,
                    default_width="100%",
                    default_height=f"{fig.layout.height or 550}px",
                )
                attrs = ' data-searchable="true"' if block.options["searchable"] else ""
                caption = f"<figcaption>{text_to_html(block.caption)}</figcaption>" if block.caption else ""
                parts.append(f'<figure class="plot"{attrs}>{div}{caption}</figure>')
            elif block.kind == "table":
                df: pd.DataFrame = block.payload
                max_rows = block.options["max_rows"]
                note = f"Showing {max_rows:,} of {len(df):,} rows. " if len(df) > max_rows else ""
                caption = html.escape(block.caption) + (" " if block.caption else "")
                extra = note + (self._csv_note(block.options["csv"], bare=True) if block.options["csv"] else "")
                parts.append(
                    f'<figure class="table"><figcaption>{caption}<span class="note">{extra}</span></figcaption>'
                    f'<div class="table-scroll">{table_html(df, max_rows)}</div></figure>'
                )
        return parts, toc

    @staticmethod
    def _csv_note(name: str | None, bare: bool = False) -> str:
        if not name:
            return ""
        link = f'All values: <a href="{html.escape(name)}" download>{html.escape(name)}</a>'
        return link if bare else f'<p class="note">{link}</p>'

    def _zoom_labels(self) -> bool:
        return any(b.kind == "figure" and _label_layers(b.payload) for b in self._blocks)

    def _search_html(self) -> str:
        return (
            '<section class="search" role="search">'
            '<label for="paper-search">Find papers</label>'
            '<input type="search" id="paper-search" placeholder="Search titles and abstracts, e.g. your paper" '
            'autocomplete="off" spellcheck="false">'
            '<span id="search-status" class="search-status" aria-live="polite"></span>'
            '<ol id="search-results" class="search-results"></ol>'
            '<div id="search-detail" class="search-detail" hidden></div>'
            "</section>"
        )

    def to_html(self) -> str:
        """The whole page as one string (plotly.js inlined once when there is a figure)."""
        searchable = self._searchable()
        if searchable and self._search is None:
            raise InvalidValueError(
                "A figure was added with searchable=True but there is nothing to search: "
                "call report.set_search_index(documents) with the documents_ table."
            )
        parts, toc = self._render_blocks()
        has_figures = any(b.kind == "figure" for b in self._blocks)
        plotly_js = f"<script>{_plotlyjs()}</script>" if has_figures else ""
        nav = ""
        if len(toc) >= 2:
            links = "".join(f'<li><a href="#{slug}">{html.escape(text)}</a></li>' for slug, text in toc)
            nav = f'<nav class="toc" aria-label="Contents"><ol>{links}</ol></nav>'
        search = self._search_html() if searchable else ""
        index = (
            f'<script type="application/json" id="search-index">{json_for_script(self._search)}</script>'
            if searchable
            else ""
        )
        subtitle = f'<p class="subtitle">{html.escape(self.subtitle)}</p>' if self.subtitle else ""
        return "\n".join(
            [
                "<!DOCTYPE html>",
                '<html lang="en">',
                "<head>",
                '<meta charset="utf-8">',
                '<meta name="viewport" content="width=device-width, initial-scale=1">',
                f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
                '<meta name="generator" content="icml_topics">',
                f"<title>{html.escape(self.title)}</title>",
                f"<style>{_asset('report.css')}</style>",
                plotly_js,
                "</head>",
                "<body>",
                f'<header class="page-header"><h1>{html.escape(self.title)}</h1>{subtitle}</header>',
                search,
                nav,
                '<main class="content">',
                *parts,
                "</main>",
                '<footer class="page-footer">Made with icml_topics · self-contained: works offline.'
                + (f"<br>{html.escape(self.provenance)}" if self.provenance else "")
                + "</footer>",
                index,
                f"<script>{_asset('search.js')}</script>" if searchable else "",
                f"<script>{labels_js()}\n{_asset('map_labels.js')}</script>" if self._zoom_labels() else "",
                "</body>",
                "</html>",
            ]
        )

    def write(self, path: str | os.PathLike[str], *, tables: bool = True, csv_safe: bool = True) -> list[Path]:
        """Write the HTML (and, with ``tables``, each ``csv_name`` table next to it), atomically; a folder of
        tables under the rules of ``--out`` (``report/files.py``: only files icml_topics wrote are replaced); the
        tables as ``icml_topics.store.csv_files.write_csv`` writes every CSV (``csv_safe``, the default: formulas
        escaped with a leading ``'``; ``csv_safe=False``: raw cells).

        Returns the paths written, the HTML first.

        Args:
            path: the HTML file to write.
            tables: also write the tables added with a ``csv_name``.
            csv_safe: start a cell a spreadsheet would read as a formula with ``'``.
        """
        from icml_topics.report.files import write_report_files  # the folder rules of --out, for the tables

        return write_report_files(path, self.to_html(), self._csv if tables else {}, csv_safe=csv_safe)

    def __repr__(self) -> str:
        n = len(self._blocks)
        return f"<Report {self.title!r}: {n} block{'' if n == 1 else 's'}>"


_PLOTLY_JS: str | None = None


def _plotlyjs() -> str:
    """plotly.js source, read once per process (about 4.8 MB)."""
    global _PLOTLY_JS
    if _PLOTLY_JS is None:
        from plotly.offline import get_plotlyjs

        _PLOTLY_JS = get_plotlyjs()
        if "</script" in _PLOTLY_JS.lower():  # pragma: no cover - would break inlining
            raise RuntimeError("This plotly.js build contains '</script' and cannot be inlined safely.")
    return _PLOTLY_JS

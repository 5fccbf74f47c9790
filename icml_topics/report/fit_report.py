"""The standard report of one fitted topic map, built from the plain result tables.

Examples:
    >>> from icml_topics.report import build_fit_report
    >>> report = build_fit_report(model.documents_, model.topics_, model.themes_)
    >>> report.write("out/report.html")
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from icml_topics.errors import InvalidTypeError

from .._wording import count_and_share, counted
from ..fitted_tables import headline_numbers, modelled_mask
from ..plotting._style import theme_colors
from ..plotting.hierarchy import plot_theme_hierarchy
from ..plotting.topic_map import plot_topic_map
from ..plotting.topic_tree import plot_topic_tree
from ..schema import LIST_SEPARATOR, THEME_TABLE_COLUMNS, cell_text, is_list_cell, split_cell
from ..text import first_sentence
from .builder import Report

__all__ = [
    "build_fit_report",
    "corpus_subtitle",
    "map_guide",
    "percent_text",
    "themes_table",
    "topics_table",
    "tree_sentence",
]


def percent_text(part: int, whole: int) -> str:
    """``part`` of ``whole`` as a percentage with one decimal (``"n/a"`` of nothing)."""
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def _text(value: object) -> str:
    return "" if pd.isna(value) else str(value)


def key_number_cards(documents: pd.DataFrame, topics: pd.DataFrame, themes: pd.DataFrame) -> dict[str, object]:
    """The report's key numbers: the headline numbers of ``schema.headline_numbers``, shares as percentages."""
    numbers = headline_numbers(documents, topics, themes, digits=None)
    cards: dict[str, object] = {k: numbers[k] for k in ("documents", "modelled", "dropped", "themes")}
    if numbers["no-theme share"] == numbers["no-theme share"]:  # NaN: the tables have no such column
        cards["without theme"] = f"{100 * numbers['no-theme share']:.1f}%" if numbers["modelled"] else "n/a"
    cards["topics"] = numbers["topics"]
    outliers = (
        round(numbers["outlier share"] * numbers["modelled"])
        if numbers["outlier share"] == numbers["outlier share"]
        else 0
    )
    if outliers:  # a table without a topic for some papers (an older model): counts that add up
        cards["papers in topics"] = numbers["modelled"] - outliers
        cards["papers in no topic"] = count_and_share(outliers, numbers["modelled"])
    return cards


def tree_sentence(levels: pd.Series) -> str:
    """The topic tree section's first sentence from its node count per level (index: level, 0 the finest).

    Examples:
        >>> tree_sentence(pd.Series([12, 5, 2], index=[0, 1, 2]))[:73]
        'The same papers at 3 resolutions, from 2 broad topics to 12 fine ones (le'
        >>> tree_sentence(pd.Series([2], index=[0]))[:50]
        'The topic tree has a single level here: 2 topics, '
    """
    if len(levels) == 1:
        return (
            f"The topic tree has a single level here: {counted(int(levels.iloc[0]), 'topic')}; each box is a topic, "
            "sized by its papers."
        )
    broad, fine = int(levels.iloc[-1]), int(levels.iloc[0])
    return (
        f"The same papers at {counted(len(levels), 'resolution')}, from {counted(broad, 'broad topic')} to "
        f"{counted(fine, 'fine one')} (level 0); each box holds its finer topics. Click a box to zoom in, "
        "the bar above to zoom out."
    )


def corpus_subtitle(modelled: pd.DataFrame) -> str:
    """The report's subtitle: papers modelled, the years and venues they come from."""
    bits = [f"{counted(len(modelled), 'paper')} modelled"]
    if "year" in modelled.columns:
        years = pd.to_numeric(modelled["year"], errors="coerce").dropna()
        if len(years):
            lo, hi = int(years.min()), int(years.max())
            bits.append(str(lo) if lo == hi else f"{lo}–{hi}")
    if "venue" in modelled.columns:
        venues = modelled["venue"].dropna().astype(str).str.strip()
        venues = sorted(v for v in venues.unique() if v)
        if venues:
            bits.append(", ".join(venues[:4]) + (f" and {len(venues) - 4} more" if len(venues) > 4 else ""))
    return " · ".join(bits)


def themes_table(themes: pd.DataFrame) -> pd.DataFrame:
    """The themes table as the reports show it."""
    cols = [c for c in THEME_TABLE_COLUMNS if c in themes.columns]
    table = themes[cols].copy()
    if "share" in table.columns:
        table["share"] = (pd.to_numeric(table["share"], errors="coerce") * 100).round(1)
        table = table.rename(columns={"share": "share (%)"})
    if "size" in table.columns:
        table = table.sort_values("size", ascending=False, kind="stable")
    return table.reset_index(drop=True)


def topics_table(topics: pd.DataFrame, documents: pd.DataFrame | None = None) -> pd.DataFrame:
    """The topics table as the reports show it (keyphrases and representative papers as text). A paper
    without a title is shown by its abstract's first sentence, read from ``documents`` (``TopicMap.documents_``)."""
    cols = [c for c in ("topic", "label", "theme", "size", "keywords", "representative_titles") if c in topics.columns]
    table = topics[cols].copy()
    if "representative_titles" in table.columns and documents is not None:
        table["representative_titles"] = _paper_names(topics, documents)
    for col, sep in (("keywords", LIST_SEPARATOR), ("representative_titles", " · ")):
        if col in table.columns:
            table[col] = table[col].map(lambda v, sep=sep: cell_text(v, sep) if is_list_cell(v) else _text(v))
    table = table.rename(columns={"representative_titles": "most representative papers"})
    if "size" in table.columns:
        table = table.sort_values("size", ascending=False, kind="stable")
    return table.reset_index(drop=True)


def _paper_names(topics: pd.DataFrame, documents: pd.DataFrame) -> list[list[str]]:
    """Each topic's representative papers by title, or by their abstract's first sentence when untitled."""
    if "representative_ids" not in topics.columns or not {"id", "abstract"} <= set(documents.columns):
        return [split_cell(v) for v in topics["representative_titles"]]
    abstracts = dict(zip(documents["id"].astype(str), documents["abstract"]))
    names = []
    for ids, titles in zip(topics["representative_ids"], topics["representative_titles"]):
        ids = split_cell(ids)
        titles = [("" if pd.isna(t) else str(t)) for t in titles] if is_list_cell(titles) else split_cell(titles)
        titles = titles + [""] * (len(ids) - len(titles))  # a list without its empty titles: by id then
        names.append([t if str(t).strip() else first_sentence(abstracts.get(str(i))) for i, t in zip(ids, titles)])
    return [[n for n in row if n] for row in names]


def map_guide(figure: object, documents: pd.DataFrame) -> tuple[str, str]:
    """The text above the report's map and its caption, saying only what this map has: finer names when
    zoomed in (``label_layers`` below the themes), a year menu, grey points for papers without a theme."""
    meta = figure.layout.meta if isinstance(figure.layout.meta, dict) else {}  # type: ignore[attr-defined]
    finer = any(layer.get("level") != "theme" for layer in meta.get("label_layers", []))
    years = bool(figure.layout.updatemenus)  # type: ignore[attr-defined]
    themes = documents.loc[modelled_mask(documents), "theme"] if "theme" in documents.columns else pd.Series()
    no_theme = bool(themes.astype("string").fillna("").str.strip().eq("").any())
    text = (
        "Each point is a paper, placed so that papers with similar abstracts are close; colours are research "
        "themes, named over their papers"
        + ("; zoom in to read the names of finer topics" if finer else "")
        + ". Hover for details, click legend entries to hide themes"
        + (", use the year menu to show one year" if years else "")
        + ", or search above to find a paper."
    )
    caption = " ".join(
        part
        for part in (
            "Zoom in (drag a box; double-click to zoom out)" + (" for finer topic names." if finer else "."),
            "Grey: papers without a theme." if no_theme else "",
        )
        if part
    )
    return text, caption


def _report_colors(documents: pd.DataFrame, topics: pd.DataFrame, themes: pd.DataFrame) -> dict[str, str]:
    """One colour per theme named in any of the three tables (the map, the sunburst and the tree share them)."""
    names = pd.concat([f["theme"] for f in (documents, topics, themes) if "theme" in f.columns] or [pd.Series([""])])
    return theme_colors(names.astype("string").fillna("").str.strip())


def _add_map(
    report: Report,
    documents: pd.DataFrame,
    modelled: pd.DataFrame,
    colors: dict[str, str],
    tree: pd.DataFrame | None,
    chars: int | None,
) -> None:
    """The searchable map of papers (names following the zoom through ``tree``) and its search index."""
    report.add_heading("Map of papers")
    figure = plot_topic_map(documents, title="", colors=colors, topic_tree=tree)
    text, caption = map_guide(figure, documents)
    report.add_text(text)
    report.add_figure(figure, caption=caption, searchable=True)
    report.set_search_index(modelled, abstract_chars=chars)


def _add_tree(report: Report, tree: pd.DataFrame | None, colors: dict[str, str], csv_name: str | None) -> None:
    """The topic tree as a treemap and its nodes' table (coarsest level first), when the fit built one."""
    if tree is None or not len(tree):
        return
    report.add_heading("Topic tree")
    report.add_text(tree_sentence(tree.groupby("level")["topic"].count()))
    report.add_figure(
        plot_topic_tree(tree, title="", colors=colors, maxdepth=3),
        caption="Area: number of papers; colour: the node's research theme (fainter: finer levels).",
    )
    columns = ["level", "topic", "parent", "label", "size", "theme", "purity"]
    report.add_table(
        tree[columns].sort_values(["level", "size"], ascending=[False, False]).reset_index(drop=True),
        caption="Topic tree nodes (coarsest level first)",
        max_rows=60,
        csv_name=csv_name,
    )


def _add_dropped(report: Report, dropped: pd.DataFrame, csv_name: str | None) -> None:
    """The input rows that were not modelled, with the reason, when there are any."""
    if dropped.empty:
        return
    cols = [c for c in ("id", "title", "drop_reason") if c in dropped.columns]
    report.add_heading("Dropped rows")
    report.add_text("These input rows were not modelled; they are kept in documents.csv with the reason.")
    report.add_table(dropped[cols].reset_index(drop=True), caption="Dropped rows", csv_name=csv_name)


def build_fit_report(
    documents: pd.DataFrame,
    topics: pd.DataFrame,
    themes: pd.DataFrame,
    *,
    title: str = "Topic map",
    metrics: Mapping[str, object] | None = None,
    csv_dir: str | None = "tables",
    search_abstract_chars: int | None = None,
    tree: pd.DataFrame | None = None,
) -> Report:
    """Key numbers, the searchable topic map, the theme hierarchy and the themes/topics tables.

    Args:
        documents: ``TopicMap.documents_`` (see docs/architecture.md); no model object is needed.
        topics: ``TopicMap.topics_``.
        themes: ``TopicMap.themes_``.
        title: page title.
        metrics: extra key numbers shown after the standard ones (e.g. coherence).
        csv_dir: folder (relative to the report) where [`Report.write`][icml_topics.report.Report.write] saves every table
            shown as CSV; ``None`` writes none.
        search_abstract_chars: embed only this many characters of each abstract for the search
            box (smaller file; matches later in an abstract are then missed). ``None``: whole
            abstracts, about 1 MB per 1,000 papers.
        tree: ``TopicMap.topic_tree_``: shown as a zoomable treemap (and its CSV) when it has rows; the
            map's names then follow the zoom through every level of the tree (themes zoomed out, coarser
            then finer topics zoomed in); without it, themes then the ``topic`` column.

    Examples:
        >>> build_fit_report(docs, topics, themes, metrics={"NPMI": 0.12}).write("report.html")
    """
    for name, frame in (("documents", documents), ("topics", topics), ("themes", themes)):
        if not isinstance(frame, pd.DataFrame):
            raise InvalidTypeError(f"{name} must be a pandas DataFrame (TopicMap.{name}_), got {type(frame).__name__}.")

    def csv(name: str) -> str | None:
        return f"{csv_dir.rstrip('/')}/{name}.csv" if csv_dir else None

    ok = modelled_mask(documents)
    modelled = documents.loc[ok]
    cards = key_number_cards(documents, topics, themes)
    colors = _report_colors(documents, topics, themes)
    report = Report(title, subtitle=corpus_subtitle(modelled))
    report.add_metrics({**cards, **(metrics or {})}, csv_name=csv("metrics"))
    _add_map(report, documents, modelled, colors, tree, search_abstract_chars)
    report.add_heading("Themes and topics")
    if len(topics) and cards["topics"]:
        report.add_figure(
            plot_theme_hierarchy(topics, title="", colors=colors),
            caption="Inner ring: themes; outer ring: their topics, sized by number of papers. Click to zoom.",
        )
    report.add_table(themes_table(themes), caption="Themes", max_rows=100, csv_name=csv("themes"))
    report.add_table(topics_table(topics, documents), caption="Topics", max_rows=50, csv_name=csv("topics"))
    _add_tree(report, tree, colors, csv("topic_tree"))
    _add_dropped(report, documents.loc[~ok], csv("dropped"))
    return report

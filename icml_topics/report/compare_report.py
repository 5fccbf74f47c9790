"""The comparison report: research themes across years (or venues) from one joint model.

Built from plain tables only: ``documents_`` / ``topics_`` / ``themes_`` of the joint model, the
outputs of [`theme_shares`][icml_topics.compare.theme_shares] and [`theme_movers`][icml_topics.compare.theme_movers],
and optionally a [`TopicAlignment`][icml_topics.compare.TopicAlignment] of two separately fitted periods.
Every table shown is also saved as CSV by [`Report.write`][icml_topics.report.Report.write] (folder ``csv_dir``).

Examples:
    >>> from icml_topics.compare import theme_movers, theme_shares
    >>> from icml_topics.report.compare_report import build_compare_report
    >>> docs = model.documents_
    >>> report = build_compare_report(
    ...     docs, model.topics_, model.themes_,
    ...     shares=theme_shares(docs), movers=theme_movers(docs, a=2019, b=2024), periods=(2019, 2024))
    >>> report.write("compare/report.html")
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from icml_topics.errors import InvalidTypeError, InvalidValueError
from icml_topics.schema import MOVER_COLUMNS, SHARE_COLUMNS

from .._validation import require_columns
from .._wording import counted
from ..compare.period_labels import baseline_label, period_label
from ..compare.topic_tables import TopicTables
from ..compare.trend_info import read_trend_info
from ..fitted_tables import modelled_rows
from ..plotting.alignment import plot_alignment_sankey
from ..plotting.hierarchy import plot_theme_hierarchy
from ..plotting.topic_map import plot_topic_map
from ..plotting.trends import plot_theme_shares, plot_year_theme_heatmap
from ..plotting.two_periods import plot_movers
from .builder import Report
from .compare_parts import (
    alignment_scope,
    alignment_table,
    alignment_text,
    coverage_table,
    interval_text,
    movers_table,
    movers_text,
    no_theme,
    period_sizes,
    shares_table,
    skipped_text,
    summary_table,
)
from .fit_report import corpus_subtitle, key_number_cards, map_guide, percent_text, themes_table, topics_table
from .topic_sections import add_topic_sections

if TYPE_CHECKING:  # pragma: no cover
    from ..compare.align import TopicAlignment
    from ..compare.periods import ComparisonPlan

__all__ = ["alignment_scope", "build_compare_report"]

TOP_THEMES = 10  # lines drawn in the theme-shares figure (all themes stay in its table / CSV)
TOP_MOVERS = 10  # bars drawn in the movers figure (all themes stay in the movers table / CSV)


# ------------------------------------------------------------------------------------- checks
def _resolve_periods(periods: tuple[Any, Any] | None, movers: pd.DataFrame) -> tuple[Any, Any]:
    """``periods`` as given, else the ones recorded in the movers table's ``TrendInfo``; both must agree when
    both exist."""
    if periods is None:
        hint = "; pass periods=(a, b), the same a and b given to theme_movers (e.g. periods=(2019, 2024))"
        info = read_trend_info(movers, require=("a", "b"), name="movers", hint=hint)
        return info.a, info.b
    if not isinstance(periods, (tuple, list)) or len(periods) != 2:
        raise InvalidValueError(
            f"periods must be a pair (a, b) such as (2019, 2024) or (range(2013, 2020), 2024), got {periods!r}."
        )
    a, b = periods
    recorded = read_trend_info(movers, name="movers")
    if recorded.a and recorded.b:
        given, found = (period_label(a), period_label(b)), (period_label(recorded.a), period_label(recorded.b))
        if given != found:
            raise InvalidValueError(
                f"periods {given[0]} → {given[1]} do not match the movers table, computed for "
                f"{found[0]} → {found[1]}; pass the same a and b to theme_movers and periods=."
            )
    return a, b


# ------------------------------------------------------------------------------------- report
@dataclass(frozen=True)
class _Page:
    """What every section of the comparison report reads: the tables, the columns compared and the periods."""

    documents: pd.DataFrame
    modelled: pd.DataFrame
    shares: pd.DataFrame
    movers: pd.DataFrame
    by: str
    group: str
    periods: tuple[Any, Any]
    csv: Callable[[str], str | None]

    @property
    def label_a(self) -> str:
        return period_label(self.periods[0])

    @property
    def label_b(self) -> str:
        return period_label(self.periods[1])


def _checked_group(
    documents: pd.DataFrame,
    topics: pd.DataFrame,
    themes: pd.DataFrame,
    shares: pd.DataFrame,
    movers: pd.DataFrame,
    by: str,
) -> str:
    """Check the inputs of ``build_compare_report``; the column whose shares are shown (``theme``)."""
    for name, frame in (("documents", documents), ("topics", topics), ("themes", themes)):
        if not isinstance(frame, pd.DataFrame):
            raise InvalidTypeError(f"{name} must be a pandas DataFrame (TopicMap.{name}_), got {type(frame).__name__}.")
    if by not in documents.columns:
        raise InvalidValueError(
            f"by={by!r} is not a column of documents (columns: {list(map(str, documents.columns))}); "
            "pass the column the shares were computed by, e.g. by='year'."
        )
    require_columns(shares, [by, *SHARE_COLUMNS], "shares", f"theme_shares(documents, by={by!r})")
    require_columns(movers, MOVER_COLUMNS, "movers", f"theme_movers(documents, by={by!r}, a=..., b=...)")
    movers_by = read_trend_info(movers, name="movers").by
    if movers_by is not None and movers_by != by:
        raise InvalidValueError(f"movers was computed by {movers_by!r} but by={by!r}; pass the same column to both.")
    group = str(read_trend_info(shares, name="shares").group or "theme")
    require_columns(shares, [group], "shares", f"theme_shares(documents, by={by!r})")
    require_columns(movers, [group], "movers", f"theme_movers(documents, by={by!r}, a=..., b=...)")
    return group


def _add_key_numbers(report: Report, page: _Page, cards: dict[str, object], plan: ComparisonPlan | None) -> None:
    """The key numbers (``cards``: ``key_number_cards``), the values left out and the papers per ``by`` value."""
    by, modelled = page.by, page.modelled
    coverage = coverage_table(modelled, by)
    key_numbers: dict[str, object] = {
        "documents": cards["documents"],
        "modelled": cards["modelled"],
        "dropped": cards["dropped"],
        f"{by}s": len(coverage),
        "topics": cards["topics"],
        "themes": cards["themes"],
        "without theme": cards.get("without theme", percent_text(int(no_theme(modelled).sum()), len(modelled))),
    }
    if by != "venue" and "venue" in modelled.columns:
        venues = sorted({str(v).strip() for v in modelled["venue"].dropna()} - {""})
        if venues:
            key_numbers["venues"] = ", ".join(venues) if len(venues) <= 3 else len(venues)
    report.add_metrics(key_numbers, csv_name=page.csv("metrics"))
    missing_by = int(modelled[by].isna().sum())
    note = f" {missing_by:,} modelled papers without a {by} are left out of the trends." if missing_by else ""
    if skipped := skipped_text(plan, by):
        report.add_text(skipped)
    report.add_table(
        coverage,
        caption=f"Modelled papers per {by}: the denominators of every share.{note}",
        max_rows=100,
        csv_name=page.csv("papers_per_period"),  # fixed names: `by` never becomes a path
    )


def _add_map(report: Report, page: _Page, topic_tables: TopicTables | None) -> None:
    """The searchable map of papers, then the topic-level sections when their tables are given."""
    report.add_heading("Map of papers")
    figure = plot_topic_map(page.documents, title="")
    text, caption = map_guide(figure, page.documents)
    report.add_text(text)
    report.add_figure(figure, caption=caption, searchable=True)
    report.set_search_index(page.modelled)
    if topic_tables is not None:
        labels = page.documents["topic_label"] if "topic_label" in page.documents.columns else None
        add_topic_sections(report, topic_tables, by=page.by, labels=labels, documents=page.documents)


def _add_shares(report: Report, page: _Page, table: pd.DataFrame | None) -> None:
    """Theme shares per ``by`` value: the figure with intervals, its table, the heatmap and the wide table."""
    by, group, shares = page.by, page.group, page.shares
    report.add_heading(f"Theme shares by {by}")
    report.add_text(interval_text(shares, by))
    n_groups = shares[group].nunique()
    shown = (
        f"the {TOP_THEMES} largest of {n_groups} {group}s"
        if n_groups > TOP_THEMES
        else f"all {counted(n_groups, group)}"
    )
    report.add_figure(
        plot_theme_shares(shares, by=by, group=group, top=TOP_THEMES),
        caption=f"Showing {shown}; hover a point for its paper count and interval.",
    )
    report.add_table(
        shares_table(shares, by, group),
        caption=f"Share of papers per {group} and {by}, with intervals",
        max_rows=30,
        csv_name=page.csv("theme_shares"),
    )
    report.add_figure(
        plot_year_theme_heatmap(shares, by=by, group=group),
        caption=f"Each cell: share of that {by}'s papers in the {group}; hover for counts and intervals.",
    )
    report.add_table(
        summary_table(page.documents, by, group, table),
        caption=f"Share of each {by}'s papers per {group} (%), largest {group}s first",
        max_rows=100,
        csv_name=page.csv("theme_table"),
    )


def _add_movers(report: Report, page: _Page) -> None:
    """Rising and declining themes between the two periods: a sentence, the figure and the table."""
    by, group, movers, label_a, label_b = page.by, page.group, page.movers, page.label_a, page.label_b
    baseline = baseline_label(page.periods[0])
    report.add_heading(f"Rising and declining {group}s")
    shown_movers = (
        f"The {TOP_MOVERS} largest of {len(movers)} changes"
        if len(movers) > TOP_MOVERS
        else f"All {len(movers)} changes"
    )
    report.add_text(movers_text(movers, group, label_a, label_b))
    report.add_figure(
        plot_movers(movers, top=TOP_MOVERS, group=group, label_a=label_a, label_b=label_b),
        caption=f"{shown_movers} in share from {by} {label_a} to {label_b} (baseline: {baseline}).",
    )
    total_a = int(movers["total_a"].iloc[0]) if len(movers) else 0
    total_b = int(movers["total_b"].iloc[0]) if len(movers) else 0
    report.add_table(
        movers_table(movers, group, label_a, label_b),
        caption=(
            f"Change in share from {by} {label_a} ({total_a:,} papers) to {label_b} ({total_b:,} papers), "
            f"baseline: {baseline}. "
            "Rising / declining: the interval of the change (Newcombe) excludes 0; stable otherwise."
        ),
        max_rows=100,
        csv_name=page.csv("movers"),
    )


def _add_alignment(report: Report, page: _Page, alignment: TopicAlignment | None, note: str | None) -> None:
    """The alignment of the separately fitted periods (Sankey and crosswalk), or why there is none."""
    label_a, label_b = page.label_a, page.label_b
    report.add_heading("Topic alignment")
    if alignment is None:
        sizes = ", ".join(period_sizes(page.modelled, page.by, page.periods))
        report.add_text(
            note
            or (
                f"Topic alignment was skipped ({sizes}). It fits a separate topic model on each period, so it "
                "runs only when alignment is on and each period has enough abstracts to be fitted on its own "
                "(`icml_topics.workflows.MIN_ALIGN_DOCS`). The shares and movers above come from the joint "
                "model and do not depend on it."
            )
        )
        return
    report.add_text(alignment_text(alignment, label_a, label_b))
    report.add_figure(
        plot_alignment_sankey(alignment, label_a=label_a, label_b=label_b),
        caption=f"Left: topics of {label_a}; right: topics of {label_b}. Hover a link for its similarity.",
    )
    report.add_table(
        alignment_table(alignment),
        caption=(
            f"Topic crosswalk, A = {label_a}, B = {label_b}: one row per link, plus one per vanished "
            "or new topic with the closest topic on the other side"
        ),
        max_rows=100,
        csv_name=page.csv("alignment"),
    )


def _add_themes_and_topics(
    report: Report, page: _Page, topics: pd.DataFrame, themes: pd.DataFrame, cards: dict[str, Any]
) -> None:
    """The theme → topic sunburst and the themes and topics tables."""
    report.add_heading("Themes and topics")
    if len(topics) and cards["topics"] > 0:
        report.add_figure(
            plot_theme_hierarchy(topics, title=""),
            caption="Inner ring: themes; outer ring: their topics, sized by number of papers. Click to zoom.",
        )
    report.add_table(
        themes_table(themes), caption="Themes (all years together)", max_rows=100, csv_name=page.csv("themes")
    )
    report.add_table(topics_table(topics, page.documents), caption="Topics", max_rows=50, csv_name=page.csv("topics"))


def build_compare_report(
    documents: pd.DataFrame,
    topics: pd.DataFrame,
    themes: pd.DataFrame,
    *,
    shares: pd.DataFrame,
    movers: pd.DataFrame,
    table: pd.DataFrame | None = None,
    alignment: TopicAlignment | None = None,
    by: str = "year",
    periods: tuple[Any, Any] | None = None,
    title: str | None = None,
    alignment_note: str | None = None,
    csv_dir: str | None = "tables",
    topic_tables: TopicTables | None = None,
    plan: ComparisonPlan | None = None,
) -> Report:
    """Themes across ``by`` values, in sections: key numbers and papers per ``by`` value; the searchable map
    (then the topic-level sections); theme shares with intervals, the ``by`` × theme heatmap and table; rising /
    declining themes between the two periods; the topic alignment (or why it was skipped); themes and topics.

    Args:
        documents: ``TopicMap.documents_`` of the joint model (see docs/architecture.md).
        topics: its ``topics_``.
        themes: its ``themes_``.
        shares: [`theme_shares`][icml_topics.compare.theme_shares] of ``documents`` by ``by``.
        movers: [`theme_movers`][icml_topics.compare.theme_movers] of ``documents`` between the two periods.
        table: [`year_theme_table`][icml_topics.compare.year_theme_table] of ``documents`` by ``by``, when already
            computed; ``None``: computed here.
        alignment: [`align_models`][icml_topics.compare.align_models] of the two periods fitted separately;
            ``None`` shows a note that alignment was skipped.
        by: the column compared (``"year"`` or ``"venue"``).
        periods: ``(a, b)`` given to ``theme_movers``; default: the ones recorded in ``movers``.
        title: page title; default ``"Research themes by {by}"``.
        alignment_note: why alignment was skipped, shown instead of the default explanation.
        csv_dir: folder (relative to the report) where [`Report.write`][icml_topics.report.Report.write] saves every table
            shown as CSV; ``None`` writes none (the compare workflow writes each table once itself).
        topic_tables: the topic-level tables (``TopicTables``):
            adds "What is new in <latest period>", the most novel papers, the topic tree, the wording
            of the rising topics and, when known, acceptance shares and the theme x area table.
        plan: the comparison's ``ComparisonPlan``: the ``by`` values skipped for too few papers are named.

    Examples:
        >>> report = build_compare_report(docs, topics, themes, shares=theme_shares(docs),
        ...                               movers=theme_movers(docs, a=2019, b=2024), periods=(2019, 2024))
        >>> report.write("compare/report.html")
    """
    group = _checked_group(documents, topics, themes, shares, movers, by)
    csv = (lambda name: f"{csv_dir.rstrip('/')}/{name}.csv") if csv_dir else (lambda name: None)
    page = _Page(documents, modelled_rows(documents), shares, movers, by, group, _resolve_periods(periods, movers), csv)
    subtitle = f"{corpus_subtitle(page.modelled)} · comparing {by} {page.label_a} with {page.label_b}"
    report = Report(title or f"Research themes by {by}", subtitle=subtitle)
    cards = key_number_cards(documents, topics, themes)
    _add_key_numbers(report, page, cards, plan)
    _add_map(report, page, topic_tables)
    _add_shares(report, page, table)
    _add_movers(report, page)
    _add_alignment(report, page, alignment, alignment_note)
    _add_themes_and_topics(report, page, topics, themes, cards)
    return report

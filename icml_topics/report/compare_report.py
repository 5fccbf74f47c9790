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

from typing import TYPE_CHECKING, Any

import pandas as pd

from icml_topics.errors import InvalidTypeError, InvalidValueError

from .._validation import require_columns
from ..compare.trends import baseline_label, period_label, year_theme_table
from ..plotting.alignment import plot_alignment_sankey
from ..plotting.hierarchy import plot_theme_hierarchy
from ..plotting.topic_map import plot_topic_map
from ..plotting.trends import plot_movers, plot_theme_shares, plot_year_theme_heatmap
from .builder import Report
from .fit_report import corpus_subtitle, key_number_cards, percent_text, themes_table, topics_table
from .topic_sections import TopicTables, add_topic_sections

if TYPE_CHECKING:  # pragma: no cover
    from ..compare.align import TopicAlignment

__all__ = ["build_compare_report"]

TOP_THEMES = 10  # lines drawn in the theme-shares figure (all themes stay in its table / CSV)
TOP_MOVERS = 10  # bars drawn in the movers figure (all themes stay in the movers table / CSV)

_SHARE_COLUMNS = ("n", "total", "share", "lower", "upper")
_MOVER_COLUMNS = (
    "n_a",
    "total_a",
    "share_a",
    "n_b",
    "total_b",
    "share_b",
    "diff",
    "diff_lower",
    "diff_upper",
    "direction",
)


# ------------------------------------------------------------------------------------- checks
def _resolve_periods(periods: tuple[Any, Any] | None, movers: pd.DataFrame) -> tuple[Any, Any]:
    """``periods`` as given, else the ones recorded in ``movers.attrs``; both must agree when both exist."""
    recorded = (movers.attrs.get("a"), movers.attrs.get("b"))
    if periods is None:
        if recorded[0] is None or recorded[1] is None:
            raise InvalidValueError(
                "periods is missing and the movers table does not record them; pass "
                "periods=(a, b), the same a and b given to theme_movers (e.g. periods=(2019, 2024))."
            )
        return recorded
    if not isinstance(periods, (tuple, list)) or len(periods) != 2:
        raise InvalidValueError(
            f"periods must be a pair (a, b) such as (2019, 2024) or (range(2013, 2020), 2024), got {periods!r}."
        )
    a, b = periods
    if recorded[0] is not None and recorded[1] is not None:
        given, found = (period_label(a), period_label(b)), (period_label(recorded[0]), period_label(recorded[1]))
        if given != found:
            raise InvalidValueError(
                f"periods {given[0]} → {given[1]} do not match the movers table, computed for "
                f"{found[0]} → {found[1]}; pass the same a and b to theme_movers and periods=."
            )
    return a, b


# ------------------------------------------------------------------------------------- tables
def _modelled(documents: pd.DataFrame) -> pd.DataFrame:
    if "status" not in documents.columns:
        return documents
    return documents.loc[(documents["status"].astype("string").fillna("") == "ok").to_numpy()]


def _no_theme(frame: pd.DataFrame) -> pd.Series:
    if "theme" not in frame.columns:
        return pd.Series(False, index=frame.index)
    return frame["theme"].astype("string").fillna("").str.strip() == ""


def _coverage_table(modelled: pd.DataFrame, by: str) -> pd.DataFrame:
    """Modelled papers per ``by`` value (the denominators of every share) and how many lack a theme."""
    rows = modelled[modelled[by].notna()]
    no_theme = _no_theme(rows)
    grouped = pd.DataFrame({by: rows[by], "papers": 1, "no_theme": no_theme.astype(int)}).groupby(by, sort=True).sum()
    out = grouped.reset_index()
    out["without theme (%)"] = 100.0 * out["no_theme"] / out["papers"]
    return out.drop(columns="no_theme")


def _shares_table(shares: pd.DataFrame, by: str, group: str) -> pd.DataFrame:
    """The long theme-shares table in percent, as drawn in the shares figure."""
    level = shares.attrs.get("level", 0.95)
    ci = f"{level:.0%}" if isinstance(level, float) else "CI"
    return pd.DataFrame(
        {
            by: shares[by].to_numpy(),
            group: shares[group].to_numpy(),
            "papers": shares["n"].to_numpy(),
            f"papers in {by}": shares["total"].to_numpy(),
            "share (%)": 100.0 * shares["share"].to_numpy(float),
            f"{ci} lower (%)": 100.0 * shares["lower"].to_numpy(float),
            f"{ci} upper (%)": 100.0 * shares["upper"].to_numpy(float),
        }
    )


def _movers_table(movers: pd.DataFrame, group: str, label_a: str, label_b: str) -> pd.DataFrame:
    """Theme, both shares (%), the change and its interval (percentage points), direction, counts."""
    level = movers.attrs.get("level", 0.95)
    ci = f"{level:.0%}" if isinstance(level, float) else "CI"
    return pd.DataFrame(
        {
            group: movers[group].to_numpy(),
            f"{label_a} (%)": 100.0 * movers["share_a"].to_numpy(float),
            f"{label_b} (%)": 100.0 * movers["share_b"].to_numpy(float),
            "change (pp)": 100.0 * movers["diff"].to_numpy(float),
            f"{ci} lower (pp)": 100.0 * movers["diff_lower"].to_numpy(float),
            f"{ci} upper (pp)": 100.0 * movers["diff_upper"].to_numpy(float),
            "direction": movers["direction"].to_numpy(),
            f"papers {label_a}": movers["n_a"].to_numpy(),
            f"papers {label_b}": movers["n_b"].to_numpy(),
        }
    )


def _summary_table(documents: pd.DataFrame, by: str, group: str) -> pd.DataFrame:
    """Themes as rows (largest first), one column of shares (%) per ``by`` value."""
    wide = year_theme_table(documents, by=by, group=group) * 100.0
    wide.columns = [str(c) for c in wide.columns]
    return wide.rename_axis(index=group).reset_index()


def _alignment_table(alignment: TopicAlignment) -> pd.DataFrame:
    """The crosswalk ([`TopicAlignment.to_frame`][icml_topics.compare.TopicAlignment.to_frame]) plus, for vanished and new
    topics, the closest topic on the other side and its similarity (below the threshold by definition)."""
    table = alignment.to_frame()
    summary = alignment.summary
    closest_topic = pd.Series(pd.NA, index=table.index, dtype="Int64")
    closest_sim = pd.Series(float("nan"), index=table.index)
    for status, side, column in (("vanished", "a", "topic_a"), ("new", "b", "topic_b")):
        rows = summary[(summary["side"] == side) & (summary["status"] == status)].set_index("topic")
        mask = (table["status"] == status).to_numpy()
        topics = table.loc[mask, column]
        closest_topic[mask] = pd.array(topics.map(rows["best_match"]).tolist(), dtype="Int64")
        closest_sim[mask] = topics.map(rows["best_similarity"]).astype(float).to_numpy()
    return table.assign(**{"closest topic": closest_topic, "closest similarity": closest_sim})


# ------------------------------------------------------------------------------------- texts
def _interval_text(shares: pd.DataFrame, by: str) -> str:
    level = shares.attrs.get("level", 0.95)
    method = {"wilson": "Wilson score", "bootstrap": "bootstrap"}.get(shares.attrs.get("method", ""), "")
    totals = shares.drop_duplicates(by).set_index(by)["total"]
    text = (
        f"Each point is the share of that {by}'s papers in a theme; the error bars are {level:.0%} "
        f"{method + ' ' if method else ''}intervals, the range of shares the data are compatible with. "
        "A small group has wide intervals: two points whose intervals do not overlap differ clearly, "
        "but overlapping intervals do not prove there was no change; the movers below test the "
        "change between the two compared periods directly."
    )
    if len(totals) >= 2:
        smallest, largest = totals.idxmin(), totals.idxmax()
        if totals[smallest] < totals[largest]:
            text += (
                f" Here {by} {smallest} has {int(totals[smallest]):,} papers and {by} {largest} "
                f"{int(totals[largest]):,}, so the intervals of {smallest} are the widest."
            )
    return text


def _movers_text(movers: pd.DataFrame, group: str, label_a: str, label_b: str) -> str:
    if movers.empty:
        return f"No {group} has papers in {label_a} or {label_b}."
    order = movers.sort_values("diff", kind="mergesort")
    top, bottom = order.iloc[-1], order.iloc[0]
    bits = []
    if top["diff"] > 0:
        bits.append(
            f"Largest rise: **{top[group]}** ({100 * top['share_a']:.1f}% → {100 * top['share_b']:.1f}%, "
            f"{100 * top['diff']:+.1f} pp)."
        )
    if bottom["diff"] < 0:
        bits.append(
            f"Largest decline: **{bottom[group]}** ({100 * bottom['share_a']:.1f}% → "
            f"{100 * bottom['share_b']:.1f}%, {100 * bottom['diff']:+.1f} pp)."
        )
    n_sig = int((movers["direction"] != "stable").sum())
    level = movers.attrs.get("level", 0.95)
    level = level if isinstance(level, float) else 0.95
    bits.append(
        f"{n_sig} of {len(movers)} {group}s changed significantly (the {level:.0%} interval of the change "
        f"excludes 0). No multiple-testing correction is applied: among {len(movers)} {group}s about "
        f"{(1 - level) * len(movers):.1f} would look significant by chance alone."
    )
    return " ".join(bits)


def _period_sizes(modelled: pd.DataFrame, by: str, periods: tuple[Any, Any]) -> list[str]:
    sizes = []
    for period in periods:
        values = list(period) if isinstance(period, (range, list, tuple, set, frozenset)) else [period]
        sizes.append(f"{period_label(period)}: {int(modelled[by].isin(values).sum()):,} papers")
    return sizes


def alignment_scope(alignment: TopicAlignment) -> str:
    """Which clustering an alignment counts: ``"40 and 45 nodes at tree levels 1 and 1 of the separate fits"``
    (the resolutions whose node counts match best), or their fine topics for models without a tree."""
    la, lb = alignment.levels
    n_a, n_b = len(alignment.topics_a), len(alignment.topics_b)
    if la is None:
        return f"{n_a} and {n_b} fine topics of the separate fits"
    return (
        f"{n_a} and {n_b} nodes at tree levels {la} and {lb} of the separate fits "
        "(the resolutions whose node counts match best)"
    )


def _skipped_text(plan: Any, by: str) -> str:
    """One sentence on the ``by`` values left out of the comparison for having too few papers (or "")."""
    skipped = dict(getattr(plan, "skipped", None) or {})
    if not skipped:
        return ""
    listing = ", ".join(f"{v} ({n:,} paper{'s' if n != 1 else ''})" for v, n in skipped.items())
    return (
        f"Not compared on their own: {by} {listing}, fewer than {plan.min_papers} modelled papers each, too few "
        f"for a share to be evidence; they stay on the map, in the shares by {by} (with their wide intervals) and, "
        "when earlier, in a pooled baseline."
    )


def _alignment_text(alignment: TopicAlignment, label_a: str, label_b: str) -> str:
    counts = alignment.counts()
    return (
        f"{label_a} and {label_b} were also fitted on their own: two clusterings apart from the joint model above. "
        f"The alignment counts {alignment_scope(alignment)}, outliers left out, as the command line's alignment "
        "line does; they were matched by centroid and "
        f"keyword similarity (threshold {alignment.threshold:.2f}, {alignment.mode}): "
        f"{counts['matched']} matched, {counts['split']} split, {counts['merged']} merged, "
        f"{counts['vanished']} vanished and {counts['new']} new; {counts['coarser']} merges and "
        f"{counts['finer']} splits are only the difference in resolution ({label_b} has "
        f"{alignment.resolution_ratio:.2f} topics per topic of {label_a}) and are listed as coarser / finer. "
        "Each link has a confidence (high / medium / low, from its similarity and its margin over the next "
        "best partner). Before reading a topic as vanished or new, check the similarity of its closest topic "
        "in the table: one just below the threshold may be the same research described differently."
    )


# ------------------------------------------------------------------------------------- report
def build_compare_report(
    documents: pd.DataFrame,
    topics: pd.DataFrame,
    themes: pd.DataFrame,
    *,
    shares: pd.DataFrame,
    movers: pd.DataFrame,
    alignment: TopicAlignment | None = None,
    by: str = "year",
    periods: tuple[Any, Any] | None = None,
    title: str | None = None,
    alignment_note: str | None = None,
    csv_dir: str | None = "tables",
    topic_tables: TopicTables | None = None,
    plan: Any = None,
) -> Report:
    """Themes across ``by`` values: key numbers, map, shares with intervals, movers, alignment, tables.

    Sections, in order: key numbers and papers per ``by`` value; the searchable topic map (with a
    year menu); theme shares with intervals (largest ``TOP_THEMES`` themes) and their table; the
    ``by`` × theme heatmap and summary table; rising / declining themes between the two periods
    (figure and table); the topic alignment Sankey and crosswalk (or a note that it was skipped);
    the theme → topic hierarchy with the themes and topics tables.

    Args:
        documents, topics, themes: ``TopicMap.documents_``, ``topics_`` and ``themes_`` of the joint
            model (see docs/architecture.md).
        shares: [`theme_shares`][icml_topics.compare.theme_shares] of ``documents`` by ``by``.
        movers: [`theme_movers`][icml_topics.compare.theme_movers] of ``documents`` between the two periods.
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
    for name, frame in (("documents", documents), ("topics", topics), ("themes", themes)):
        if not isinstance(frame, pd.DataFrame):
            raise InvalidTypeError(f"{name} must be a pandas DataFrame (TopicMap.{name}_), got {type(frame).__name__}.")
    if by not in documents.columns:
        raise InvalidValueError(
            f"by={by!r} is not a column of documents (columns: {list(map(str, documents.columns))}); "
            "pass the column the shares were computed by, e.g. by='year'."
        )
    require_columns(shares, [by, *_SHARE_COLUMNS], "shares", f"theme_shares(documents, by={by!r})")
    require_columns(movers, _MOVER_COLUMNS, "movers", f"theme_movers(documents, by={by!r}, a=..., b=...)")
    if movers.attrs.get("by", by) != by:
        raise InvalidValueError(
            f"movers was computed by {movers.attrs['by']!r} but by={by!r}; pass the same column to both."
        )
    group = str(shares.attrs.get("group") or "theme")
    require_columns(shares, [group], "shares", f"theme_shares(documents, by={by!r})")
    require_columns(movers, [group], "movers", f"theme_movers(documents, by={by!r}, a=..., b=...)")
    a, b = _resolve_periods(periods, movers)
    label_a, label_b = period_label(a), period_label(b)

    def csv(name: str) -> str | None:
        return f"{csv_dir.rstrip('/')}/{name}.csv" if csv_dir else None

    modelled = _modelled(documents)
    coverage = _coverage_table(modelled, by)

    # Key numbers --------------------------------------------------------------------------
    cards = key_number_cards(documents, topics, themes)
    key_numbers: dict[str, object] = {
        "documents": cards["documents"],
        "modelled": cards["modelled"],
        "dropped": cards["dropped"],
        f"{by}s": len(coverage),
        "topics": cards["topics"],
        "themes": cards["themes"],
        "without theme": cards.get("without theme", percent_text(int(_no_theme(modelled).sum()), len(modelled))),
    }
    if by != "venue" and "venue" in modelled.columns:
        venues = sorted({str(v).strip() for v in modelled["venue"].dropna()} - {""})
        if venues:
            key_numbers["venues"] = ", ".join(venues) if len(venues) <= 3 else len(venues)
    missing_by = int(modelled[by].isna().sum())
    report = Report(
        title or f"Research themes by {by}",
        subtitle=f"{corpus_subtitle(modelled)} · comparing {by} {label_a} with {label_b}",
    )
    report.add_metrics(key_numbers, csv_name=csv("metrics"))
    note = f" {missing_by:,} modelled papers without a {by} are left out of the trends." if missing_by else ""
    if skipped := _skipped_text(plan, by):
        report.add_text(skipped)
    report.add_table(
        coverage,
        caption=f"Modelled papers per {by}: the denominators of every share.{note}",
        max_rows=100,
        csv_name=csv("papers_per_period"),  # fixed names: `by` never becomes a path
    )

    # Map ----------------------------------------------------------------------------------
    report.add_heading("Map of papers")
    report.add_text(
        "Each point is a paper, placed so that papers with similar abstracts are close; colours are "
        "research themes. Use the year menu to show one year, click legend entries to hide themes, "
        "or search above to find a paper."
    )
    report.add_figure(
        plot_topic_map(documents, title=""),
        caption="Grey: papers without a theme.",
        searchable=True,
    )
    report.set_search_index(modelled)
    if topic_tables is not None:
        labels = documents["topic_label"] if "topic_label" in documents.columns else None
        add_topic_sections(report, topic_tables, by=by, labels=labels)

    # Shares over `by` --------------------------------------------------------------------
    report.add_heading(f"Theme shares by {by}")
    report.add_text(_interval_text(shares, by))
    n_groups = shares[group].nunique()
    shown = f"the {TOP_THEMES} largest of {n_groups} {group}s" if n_groups > TOP_THEMES else f"all {n_groups} {group}s"
    report.add_figure(
        plot_theme_shares(shares, by=by, group=group, top=TOP_THEMES),
        caption=f"Showing {shown}; hover a point for its paper count and interval.",
    )
    report.add_table(
        _shares_table(shares, by, group),
        caption=f"Share of papers per {group} and {by}, with intervals",
        max_rows=30,
        csv_name=csv("theme_shares"),
    )
    report.add_figure(
        plot_year_theme_heatmap(shares, by=by, group=group),
        caption=f"Each cell: share of that {by}'s papers in the {group}; hover for counts and intervals.",
    )
    report.add_table(
        _summary_table(documents, by, group),
        caption=f"Share of each {by}'s papers per {group} (%), largest {group}s first",
        max_rows=100,
        csv_name=csv("theme_table"),
    )

    # Movers -------------------------------------------------------------------------------
    report.add_heading(f"Rising and declining {group}s")
    shown_movers = (
        f"The {TOP_MOVERS} largest of {len(movers)} changes"
        if len(movers) > TOP_MOVERS
        else f"All {len(movers)} changes"
    )
    report.add_text(_movers_text(movers, group, label_a, label_b))
    report.add_figure(
        plot_movers(movers, top=TOP_MOVERS, group=group, label_a=label_a, label_b=label_b),
        caption=f"{shown_movers} in share from {by} {label_a} to {label_b} (baseline: {baseline_label(a)}).",
    )
    total_a = int(movers["total_a"].iloc[0]) if len(movers) else 0
    total_b = int(movers["total_b"].iloc[0]) if len(movers) else 0
    report.add_table(
        _movers_table(movers, group, label_a, label_b),
        caption=(
            f"Change in share from {by} {label_a} ({total_a:,} papers) to {label_b} ({total_b:,} papers), "
            f"baseline: {baseline_label(a)}. "
            "Rising / declining: the interval of the change (Newcombe) excludes 0; stable otherwise."
        ),
        max_rows=100,
        csv_name=csv("movers"),
    )

    # Alignment ----------------------------------------------------------------------------
    report.add_heading("Topic alignment")
    if alignment is not None:
        report.add_text(_alignment_text(alignment, label_a, label_b))
        report.add_figure(
            plot_alignment_sankey(alignment, label_a=label_a, label_b=label_b),
            caption=f"Left: topics of {label_a}; right: topics of {label_b}. Hover a link for its similarity.",
        )
        report.add_table(
            _alignment_table(alignment),
            caption=(
                f"Topic crosswalk, A = {label_a}, B = {label_b}: one row per link, plus one per vanished "
                "or new topic with the closest topic on the other side"
            ),
            max_rows=100,
            csv_name=csv("alignment"),
        )
    else:
        sizes = ", ".join(_period_sizes(modelled, by, (a, b)))
        report.add_text(
            alignment_note
            or (
                f"Topic alignment was skipped ({sizes}). It fits a separate topic model on each period, so it "
                "runs only when alignment is on and each period has enough abstracts to be fitted on its own "
                "(`icml_topics.workflows.MIN_ALIGN_DOCS`). The shares and movers above come from the joint "
                "model and do not depend on it."
            )
        )

    # Themes and topics -------------------------------------------------------------------
    report.add_heading("Themes and topics")
    if len(topics) and cards["topics"] > 0:
        report.add_figure(
            plot_theme_hierarchy(topics, title=""),
            caption="Inner ring: themes; outer ring: their topics, sized by number of papers. Click to zoom.",
        )
    report.add_table(themes_table(themes), caption="Themes (all years together)", max_rows=100, csv_name=csv("themes"))
    report.add_table(topics_table(topics), caption="Topics", max_rows=50, csv_name=csv("topics"))
    return report

"""The comparison report's tables and sentences, each from the plain tables of ``icml_topics.compare``.

The numbers are those of the tables (``theme_shares``, ``theme_movers``, ``TopicAlignment``); the confidence
level a text or a column header names is the one the table records (its ``TrendInfo``).

Examples:
    >>> import pandas as pd
    >>> from icml_topics.compare import theme_movers
    >>> docs = pd.DataFrame({"year": [2019] * 10 + [2024] * 10, "theme": ["RL"] * 9 + ["GNN"] * 11})
    >>> movers_text(theme_movers(docs, a=2019, b=2024), "theme", "2019", "2024")[:40]
    'Largest rise: **GNN** (10.0% → 100.0%, +'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from .._wording import counted
from ..compare.period_labels import period_label
from ..compare.trend_info import read_trend_info
from ..compare.trends import year_theme_table

if TYPE_CHECKING:  # pragma: no cover
    from ..compare.align import TopicAlignment
    from ..compare.periods import ComparisonPlan

__all__ = [
    "alignment_scope",
    "alignment_table",
    "alignment_text",
    "coverage_table",
    "interval_text",
    "movers_table",
    "movers_text",
    "no_theme",
    "period_sizes",
    "shares_table",
    "skipped_text",
    "summary_table",
]


# ------------------------------------------------------------------------------------- tables
def no_theme(frame: pd.DataFrame) -> pd.Series:
    """Per row, whether it has no theme (empty or missing ``theme``; a table without the column: none)."""
    if "theme" not in frame.columns:
        return pd.Series(False, index=frame.index)
    return frame["theme"].astype("string").fillna("").str.strip() == ""


def coverage_table(modelled: pd.DataFrame, by: str) -> pd.DataFrame:
    """Modelled papers per ``by`` value (the denominators of every share) and how many lack a theme."""
    rows = modelled[modelled[by].notna()]
    missing = no_theme(rows)
    grouped = pd.DataFrame({by: rows[by], "papers": 1, "no_theme": missing.astype(int)}).groupby(by, sort=True).sum()
    out = grouped.reset_index()
    out["without theme (%)"] = 100.0 * out["no_theme"] / out["papers"]
    return out.drop(columns="no_theme")


def shares_table(shares: pd.DataFrame, by: str, group: str) -> pd.DataFrame:
    """The long theme-shares table in percent, as drawn in the shares figure."""
    ci = f"{read_trend_info(shares, name='shares').confidence:.0%}"
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


def movers_table(movers: pd.DataFrame, group: str, label_a: str, label_b: str) -> pd.DataFrame:
    """Theme, both shares (%), the change and its interval (percentage points), direction, counts."""
    ci = f"{read_trend_info(movers, name='movers').confidence:.0%}"
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


def summary_table(documents: pd.DataFrame, by: str, group: str, table: pd.DataFrame | None) -> pd.DataFrame:
    """Themes as rows (largest first), one column of shares (%) per ``by`` value; ``table``: the
    ``year_theme_table`` already computed (``None``: computed here)."""
    wide = (year_theme_table(documents, by=by, group=group) if table is None else table) * 100.0
    wide.columns = [str(c) for c in wide.columns]
    return wide.rename_axis(index=group).reset_index()


def alignment_table(alignment: TopicAlignment) -> pd.DataFrame:
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
def interval_text(shares: pd.DataFrame, by: str) -> str:
    """How to read the shares' intervals (their confidence level and method), naming the smallest ``by`` value."""
    info = read_trend_info(shares, name="shares")
    level = info.confidence
    method = {"wilson": "Wilson score", "bootstrap": "bootstrap"}.get(info.method or "", "")
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


def movers_text(movers: pd.DataFrame, group: str, label_a: str, label_b: str) -> str:
    """The largest rise and decline, and how many changes are significant (and how many chance alone gives)."""
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
    level = read_trend_info(movers, name="movers").confidence
    bits.append(
        f"{n_sig:,} of {counted(len(movers), group)} changed significantly (the {level:.0%} interval of the change "
        f"excludes 0). No multiple-testing correction is applied: among {counted(len(movers), group)} about "
        f"{(1 - level) * len(movers):.1f} would look significant by chance alone."
    )
    return " ".join(bits)


def period_sizes(modelled: pd.DataFrame, by: str, periods: tuple[Any, Any]) -> list[str]:
    """``"2019: 1,234 papers"`` for each of the two compared periods."""
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


def skipped_text(plan: ComparisonPlan | None, by: str) -> str:
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


def alignment_text(alignment: TopicAlignment, label_a: str, label_b: str) -> str:
    """What the alignment of the separately fitted periods counts and how to read it."""
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

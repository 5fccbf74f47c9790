"""The compare report's sections below the themes: what is new in the latest period, what faded, the most
novel papers, the topic tree, how the rising topics' wording moved, and decisions / areas when known.

Built from the plain tables of ``icml_topics.compare`` (``topic_status``, ``topic_wording``,
``paper_novelty``, ``acceptance_shares``, ``area_table``); the numbers shown are those of the CSV files
the compare workflow writes (``topic_status.csv``, ``topic_trends.csv``, ``novelty.csv``, ...).

Examples:
    >>> add_topic_sections(report, status=tm.topic_status(), tree=tm.topic_tree_)
"""

from __future__ import annotations

import pandas as pd

from ..compare.headlines import STATUS_MEANINGS, held_back_lines
from ..compare.name_checks import name_checks
from ..compare.topic_tables import TopicTables
from ..compare.topic_trends import whats_new
from ..compare.trend_info import TrendInfo, read_trend_info
from ..plotting.topic_tree import plot_topic_tree
from ..schema import split_cell
from .builder import Report

__all__ = ["add_topic_sections"]

TOP_NODES = 15  # rows of the what's-new / declining tables shown (all are in topic_status.csv)
TOP_NOVEL = 15  # most novel papers of the latest period shown


def _unknown_line(acceptance: pd.DataFrame) -> str:
    """How many decisions were left out as unknown (``pending``, ``NaN``, a label of no known outcome)."""
    unknown = acceptance.attrs.get("unknown_decisions") or {}
    if not unknown:
        return ""
    shown = ", ".join(f"{label} ({n})" for label, n in list(unknown.items())[:5])
    return f"{sum(unknown.values())} papers whose decision is not a known outcome are left out: {shown}. "


def _pct(x: float) -> str:
    return "" if pd.isna(x) else f"{100 * x:.1f}"


def _examples(wording: pd.DataFrame | None, latest: object) -> dict[tuple[int, int], str]:
    if wording is None or wording.empty:
        return {}
    rows = wording[wording["period"] == latest]
    return {
        (int(r.level), int(r.topic)): " · ".join(split_cell(r.representative_titles)[:2])
        for r in rows.itertuples(index=False)
    }


def _interval(rows: pd.DataFrame, lower: str, upper: str) -> list[str]:
    if lower not in rows.columns:
        return [""] * len(rows)
    return [f"{_pct(a)}–{_pct(b)}" for a, b in zip(rows[lower], rows[upper])]


def _row_examples(rows: pd.DataFrame, examples: dict[tuple[int, int], str]) -> list[str]:
    """Each row's titles of the latest period: its own ``latest_titles`` (``headline_evidence``), else the
    wording table's representative papers."""
    own = rows["latest_titles"] if "latest_titles" in rows.columns else [None] * len(rows)
    return [
        " · ".join(titles) if isinstance(titles, list) and titles else examples.get((int(a), int(b)), "")
        for titles, a, b in zip(own, rows["level"], rows["topic"])
    ]


def _node_table(rows: pd.DataFrame, examples: dict[tuple[int, int], str], info: TrendInfo) -> pd.DataFrame:
    """The rows of a ``topic_status`` table as the report shows them (shares in %, intervals, stability,
    example papers of the latest period)."""
    label_b, label_l = _baseline_text(info), str(info.latest)
    growth = rows["growth"]
    ci = f"{info.confidence:.0%}"
    return pd.DataFrame(
        {
            "level": rows["level"].to_numpy(),
            "topic": rows["label"].astype(str).to_numpy(),
            "theme": rows["theme"].astype("string").fillna("").to_numpy(),
            "status": rows["status"].to_numpy(),
            f"papers {label_l}": rows["n_latest"].to_numpy(),
            f"share {label_l} (%)": [_pct(x) for x in rows["share_latest"]],
            f"{info.confidence:.0%} interval (%)": [
                f"{_pct(a)}–{_pct(b)}" for a, b in zip(rows["latest_lower"], rows["latest_upper"])
            ],
            f"share {label_b} (%)": [_pct(x) for x in rows["share_before"]],
            f"{ci} interval {label_b} (%)": _interval(rows, "before_lower", "before_upper"),
            "stability": ["" if pd.isna(x) else f"{x:.2f}" for x in rows["stability"]],
            "change (pp)": [
                f"{100 * d:+.1f} [{100 * a:+.1f}, {100 * b:+.1f}]"
                for d, a, b in zip(rows["change"], rows["change_lower"], rows["change_upper"])
            ],
            "growth / year": [
                "" if pd.isna(g) else f"{100 * g:+.0f}% [{100 * a:+.0f}%, {100 * b:+.0f}%]"
                for g, a, b in zip(growth, rows["growth_lower"], rows["growth_upper"])
            ],
            "q-value": [f"{q:.2g}" for q in rows["q_value"]],
            "first": rows["first_period"].astype(str).to_numpy(),
            f"example papers ({label_l})": _row_examples(rows, examples),
        }
    )


def _checked_labels(
    labels: pd.Series, index: pd.Index, documents: pd.DataFrame | None, tree: pd.DataFrame | None
) -> pd.Series:
    """The ``labels`` of the papers at ``index``, each marked "(name fails: ...)" when its finest node's name
    fails the checks of names (``compare.name_checks``, with the node's papers in ``documents``)."""
    shown = labels.reindex(index).astype(str)
    if documents is None or tree is None or "topic" not in documents.columns or tree.empty:
        return shown
    topics = pd.to_numeric(documents["topic"].reindex(index), errors="coerce")
    wanted = (tree["level"] == 0) & tree["topic"].isin(set(topics.dropna().astype(int)))
    checked = name_checks(tree, documents, check=wanted.to_numpy())
    fails = dict(zip(checked.loc[wanted, "topic"].astype(int), checked.loc[wanted, "name_defects"]))
    marks = [fails.get(int(t), "") if pd.notna(t) else "" for t in topics]
    return pd.Series(
        [f"{label} (name fails: {d.replace('; ', ', ')})" if d else label for label, d in zip(shown, marks)],
        index=index,
    )


def _novel_table(
    novelty: pd.DataFrame,
    by: str,
    latest: object,
    labels: pd.Series | None,
    documents: pd.DataFrame | None = None,
    tree: pd.DataFrame | None = None,
) -> pd.DataFrame:
    rows = novelty[novelty[by] == latest].nlargest(TOP_NOVEL, "novelty")
    out = pd.DataFrame(
        {
            "title": rows["title"].astype(str).to_numpy(),
            "novelty": rows["novelty"].round(3).to_numpy(),
            "percentile in its year": rows["novelty_percentile"].round(1).to_numpy(),
            "nearest earlier paper": rows["nearest_earlier_title"].astype(str).to_numpy(),
        }
    )
    if labels is not None:
        out.insert(1, "topic", _checked_labels(labels, rows.index, documents, tree).to_numpy())
    return out


def _wording_table(wording: pd.DataFrame, nodes: pd.DataFrame) -> pd.DataFrame:
    keys = set(zip(nodes["level"], nodes["topic"]))
    rows = wording[[k in keys for k in zip(wording["level"], wording["topic"])]]
    names = dict(zip(zip(nodes["level"], nodes["topic"]), nodes["label"]))
    return pd.DataFrame(
        {
            "topic": [names[(a, b)] for a, b in zip(rows["level"], rows["topic"])],
            "period": rows["period"].astype(str).to_numpy(),
            "papers": rows["n"].to_numpy(),
            "keyphrases of that period": [", ".join(split_cell(k)[:8]) for k in rows["keywords"]],
        }
    )


def _baseline_text(info: TrendInfo) -> str:
    """How the report names the baseline: as the rows do (``"2013–2019 pooled"``), else from its periods."""
    before = info.before
    if info.baseline_label:
        return info.baseline_label
    return f"{before[0]}–{before[-1]}" if len(before) > 1 else (str(before[0]) if before else "before")


def _add_whats_new(report: Report, status: pd.DataFrame, info: TrendInfo, by: str, examples: dict) -> pd.DataFrame:
    """How every node is tested, then the new / emerging and the declining / vanished nodes; the rising ones."""
    label_l, label_b = str(info.latest), _baseline_text(info)
    levels = sorted(status["level"].unique().tolist())
    report.add_heading(f"What is new in {label_l}")
    counts = status["status"].value_counts()
    report.add_text(
        f"Every node of the topic tree ({len(status):,} nodes on {len(levels)} level"
        f"{'s' if len(levels) != 1 else ''}, level 0 the finest) is tested: is its share of {label_l}'s papers "
        f"different from its share in the baseline, {label_b}? The test is exact (hypergeometric) and the false-discovery rate "
        f"is held at {info.fdr:.0%} across all nodes (Benjamini–Hochberg), so a handful of papers in a small year makes "
        f"no headline. **New**: a significant rise with at most 2 papers in every earlier {by}; **emerging**: "
        f"any other significant rise. Here {int(counts.get('new', 0))} nodes are new, "
        f"{int(counts.get('emerging', 0))} emerging, {int(counts.get('declining', 0))} declining, "
        f"{int(counts.get('vanished', 0))} vanished and {int(counts.get('stable', 0))} show no change the data can "
        "tell from noise. A node and its parent often rise together; both are listed with their level."
    )
    report.add_text(" ".join(f"**{s.capitalize()}**: {m}" for s, m in STATUS_MEANINGS.items()))
    rising = whats_new(status, top=TOP_NODES)
    held = held_back_lines(rising)
    if held:  # one node a line: its name, level and id, and the checks its name fails
        report.add_text(held[0] + "\n\n" + "\n".join(line.strip() for line in held[1:]))
    report.add_table(
        _node_table(rising, examples, info),
        caption=f"New and emerging topics in {label_l} (baseline: {label_b}; strongest evidence first); all nodes "
        "in topic_status.csv",
        max_rows=TOP_NODES,
    )
    falling = whats_new(status, statuses=("vanished", "declining"), top=TOP_NODES)
    report.add_table(
        _node_table(falling, examples, info),
        caption=f"Declining and vanished topics in {label_l} (baseline: {label_b})",
        max_rows=TOP_NODES,
    )
    return rising


def _add_novelty_and_wording(
    report: Report,
    tables: TopicTables,
    latest: object,
    by: str,
    rising: pd.DataFrame,
    labels: pd.Series | None,
    documents: pd.DataFrame | None = None,
) -> None:
    """The most novel papers of ``latest`` and how the rising nodes' wording moved, when computed."""
    if tables.novelty is not None and tables.novelty["novelty"].notna().any():
        report.add_text(
            f"**Most novel papers of {latest}.** A paper's novelty is one minus its mean cosine similarity to its "
            f"10 nearest papers of all earlier {by}s; the percentile ranks it within its own {by} (100 = the most "
            "novel). Every paper's score is in novelty.csv."
        )
        novel = _novel_table(tables.novelty, by, latest, labels, documents, tables.tree)
        report.add_table(novel, caption="", max_rows=TOP_NOVEL)
    if tables.wording is not None and not tables.wording.empty and len(rising):
        report.add_heading("How the rising topics' wording moved")
        report.add_text(
            f"Keyphrases of each {by} from that {by}'s papers only (c-TF-IDF within the {by}), so a {by}'s words do "
            "not change when later years are added. All nodes and years: topic_wording.csv."
        )
        report.add_table(_wording_table(tables.wording, rising.head(5)), caption="", max_rows=60)


def _add_tree(report: Report, tree: pd.DataFrame | None) -> None:
    if tree is not None and len(tree):
        report.add_heading("Topic tree")
        report.add_figure(
            plot_topic_tree(tree),
            caption="Themes, then topics from the coarsest level to the finest; click a box to open it. "
            "The tree is in topic_tree.csv, every node's share per period in topic_trends.csv.",
        )


def _add_decisions_and_areas(report: Report, acceptance: pd.DataFrame | None, areas: pd.DataFrame | None) -> None:
    """Acceptance shares by theme and the largest theme x area cells, when known."""
    if acceptance is not None and len(acceptance):
        ci = f"{read_trend_info(acceptance, name='acceptance').confidence:.0%}"
        report.add_heading("Review decisions")
        report.add_text(
            "Share of submissions accepted (oral, spotlight or poster) among those with a known decision, with "
            f"{ci} Wilson intervals; withdrawn and desk-rejected submissions count as not accepted. "
            + _unknown_line(acceptance)
            + "Per node of every level: acceptance_by_topic.csv."
        )
        table = pd.DataFrame(
            {
                "theme": acceptance["theme"].to_numpy(),
                "accepted": acceptance["accepted"].to_numpy(),
                "submissions": acceptance["n"].to_numpy(),
                "acceptance (%)": [_pct(x) for x in acceptance["share"]],
                f"{ci} interval (%)": [
                    f"{_pct(a)}–{_pct(b)}" for a, b in zip(acceptance["lower"], acceptance["upper"])
                ],
            }
        )
        report.add_table(
            table.sort_values("submissions", ascending=False, kind="mergesort"),
            caption="Acceptance share by theme (acceptance_by_theme.csv)",
            max_rows=60,
        )
    if areas is not None and len(areas):
        report.add_heading("Themes and the authors' own areas")
        top = areas.sort_values("n", ascending=False, kind="mergesort").head(40)
        report.add_table(
            top.assign(share_of_area=top["share_of_area"].map(_pct)).rename(columns={"share_of_area": "% of area"}),
            caption="The largest theme × area cells (all cells: theme_areas.csv)",
            max_rows=40,
        )


def add_topic_sections(
    report: Report,
    tables: TopicTables,
    *,
    by: str = "year",
    labels: pd.Series | None = None,
    documents: pd.DataFrame | None = None,
) -> Report:
    """Append the topic-level sections to ``report`` (see the module docstring); ``labels`` (the documents'
    ``topic_label``, indexed like ``tables.novelty``) names each novel paper's topic, marked when its name fails
    the checks of names given the node's papers in ``documents`` (``documents_``, indexed the same way).
    ``tables.status`` is a ``topic_status`` table: its ``TrendInfo`` names the latest period, the baseline and
    the FDR.

    Examples:
        >>> add_topic_sections(report, TopicTables(status=tm.topic_status()), by="year")
    """
    info = read_trend_info(
        tables.status, require=("latest",), name="status", hint="; pass the table that topic_status returned"
    )
    examples = _examples(tables.wording, info.latest)
    rising = _add_whats_new(report, tables.status, info, by, examples)
    _add_novelty_and_wording(report, tables, info.latest, by, rising, labels, documents)
    _add_tree(report, tables.tree)
    _add_decisions_and_areas(report, tables.acceptance, tables.areas)
    return report

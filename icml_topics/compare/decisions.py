"""Review decisions and the authors' own areas: acceptance share per theme or node, theme x area table.

The decision column (``decision``; an input ``status`` column is read as ``decision``, see
``corpus/table.rename_reserved``) holds labels such as ``oral``, ``spotlight``, ``poster``, ``Accept (Oral)``,
``rejected``, ``withdrawn``, ``not_accepted``, CVPR's ``Highlight`` or ACL's ``Findings``. Each is read as
*accepted*, *rejected*, *withdrawn* or *unknown* with the documented vocabulary of
``decision_labels`` (a negation wins: ``"Reject (poster session)"`` is rejected).
The acceptance share is accepted / known decisions, where the known decisions are the accepted, rejected
and withdrawn ones (withdrawn and desk-rejected submissions count as not accepted). Papers without a
decision, and papers whose label is unknown (``pending``, ``NaN``, a label the vocabulary does not know),
are left out of the denominator; the unknown ones are counted (an ``unknown`` column, the table's
``attrs["unknown_decisions"]``) and logged, never read as rejections.

A file whose known decisions are all of one class (ICML's and NeurIPS' proceedings hold accepted papers
only) has no acceptance rate to show: [`acceptance_shares`][icml_topics.compare.acceptance_shares] refuses it, and
``single_outcome_reason`` says why (``compare`` then writes no acceptance table).

Examples:
    >>> import pandas as pd
    >>> docs = pd.DataFrame({"theme": ["RL", "RL", "RL", "GNN"],
    ...                      "decision": ["poster", "rejected", "oral", "withdrawn"]})
    >>> acceptance_shares(docs)[["theme", "accepted", "n", "share"]].values.tolist()
    [['GNN', 0, 1, 0.0], ['RL', 2, 3, 0.6666666666666666]]
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from icml_topics._validation import require_column
from icml_topics.compare.trend_info import DEFAULT_CONFIDENCE
from icml_topics.errors import InvalidValueError
from icml_topics.fitted_tables import level_column, modelled_rows, tree_levels
from icml_topics.schema import ACCEPTANCE_COLUMNS

from ._confidence import accepts_level
from .decision_labels import ACCEPTED, DECISION_LABELS, UNKNOWN, decision_class
from .intervals import wilson_interval
from .trend_info import TrendInfo, record_trend_info

__all__ = [
    "DECISION_COLUMNS",
    "DECISION_LABELS",
    "acceptance_shares",
    "area_table",
    "decision_class",
    "decision_column",
    "is_accepted",
    "node_acceptance",
    "single_outcome_reason",
    "unknown_decisions",
]

logger = logging.getLogger("icml_topics")

#: where a decision is looked for, first match wins
DECISION_COLUMNS = ("decision", "input_status")


def decision_column(documents: pd.DataFrame) -> str | None:
    """The column holding review decisions, or ``None`` when the table has none."""
    return next((c for c in DECISION_COLUMNS if c in documents.columns), None)


def is_accepted(values: pd.Series) -> pd.Series:
    """``True`` for an accepted decision, ``False`` for a rejected or withdrawn one, ``NA`` where there is
    none or its label is unknown (``decision_class``).

    Examples:
        >>> is_accepted(pd.Series(["Oral", "not_accepted", None, "Accept (Poster)", "pending"])).tolist()
        [True, False, <NA>, True, <NA>]
    """
    classes = decision_class(values)
    known = classes.notna() & (classes != UNKNOWN)
    return (classes == ACCEPTED).astype("boolean").where(known, pd.NA)


def unknown_decisions(values: pd.Series) -> dict[str, int]:
    """Each label read as unknown and its number of papers, most frequent first.

    Examples:
        >>> unknown_decisions(pd.Series(["poster", "pending", "NaN", "pending", None]))
        {'pending': 2, 'NaN': 1}
    """
    text = values.astype("string").str.strip()
    counts = text[decision_class(values) == UNKNOWN].value_counts(sort=False)
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return {str(label): int(n) for label, n in ordered}


def single_outcome_reason(documents: pd.DataFrame, decision: str | None = None) -> str | None:
    """Why acceptance shares would say nothing for ``documents``, or ``None`` when they can be computed:
    no decision column, no known decision, or known decisions of one outcome only: all accepted (a file of
    accepted papers, such as ICML's proceedings, shows 100% for every theme) or none accepted.

    Examples:
        >>> single_outcome_reason(pd.DataFrame({"decision": ["Poster", "Oral", "Poster"]}))[:44]
        'Acceptance shares are not computed: all 3 pa'
    """
    column = decision or decision_column(documents)
    if column is None or column not in documents.columns:
        return f"Acceptance shares are not computed: the papers have no decision column ({list(DECISION_COLUMNS)})."
    rows = modelled_rows(documents)[column]
    classes = decision_class(rows)
    known = classes[classes.notna() & (classes != UNKNOWN)]
    accepted = known == ACCEPTED
    if accepted.any() and not accepted.all():
        return None
    labels = rows.astype("string").str.strip()[known.index].value_counts()
    shown = ", ".join(f"{label!r}: {n}" for label, n in labels.head(5).items())
    if known.empty:
        return (
            f"Acceptance shares are not computed: none of the {len(rows)} papers has a known decision in "
            f"column {column!r} (unknown labels: {unknown_decisions(rows) or 'none'}); label decisions as "
            "accepted / rejected / withdrawn (see icml_topics.compare.decision_labels)."
        )
    return (
        f"Acceptance shares are not computed: all {len(known)} papers with a known decision in column "
        f"{column!r} are {'accepted' if accepted.all() else 'not accepted'} ({shown}); the file holds one outcome only (a conference's "
        "accepted papers), so every share would be the same. Use a file with rejected submissions too "
        "(e.g. OpenReview's ICLR submissions)."
    )


@accepts_level
def acceptance_shares(
    documents: pd.DataFrame,
    *,
    group: str = "theme",
    decision: str | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> pd.DataFrame:
    """Share of submissions accepted per ``group`` value, with a Wilson interval.

    Returns ``group, accepted, n, share, lower, upper, unknown`` sorted by ``group``: ``n`` counts the
    papers with a known decision (accepted, rejected or withdrawn; the denominator of ``share``),
    ``unknown`` those whose label is unknown (left out of ``n``, also in ``attrs["unknown_decisions"]``
    by label, and logged). Decisions of one class only raise ``InvalidValueError``
    (``single_outcome_reason``). With ``group="topic"`` and ``topic_<level>`` columns present, use
    [`node_acceptance`][icml_topics.compare.node_acceptance] for every level at once.

    Args:
        documents: ``TopicMap.documents_`` (or any table with a decision column and ``group``).
        group: the column whose values get an acceptance share.
        decision: the column of review decisions; ``None``: the one ``decision_column`` finds (``decision``).
        confidence: the confidence level of the Wilson intervals (default 0.95; ``level=``, its old name, is deprecated).

    Examples:
        >>> import pandas as pd
        >>> docs = pd.DataFrame({"theme": ["RL", "RL", "Vision", "Vision"],
        ...                      "decision": ["poster", "rejected", "oral", "withdrawn"]})
        >>> acceptance_shares(docs)[["theme", "accepted", "n", "share"]].values.tolist()
        [['RL', 1, 2, 0.5], ['Vision', 1, 2, 0.5]]
    """
    column = _checked_column(documents, decision)
    require_column(documents, group, "group", "theme")
    table = _shares(documents, group, column, confidence)
    _log_unknown(table.attrs["unknown_decisions"], column)
    return record_trend_info(table, TrendInfo(group=group, confidence=float(confidence), method="wilson"))


def _checked_column(documents: pd.DataFrame, decision: str | None) -> str:
    column = decision or decision_column(documents)
    if column is None or column not in documents.columns:
        raise InvalidValueError(
            f"documents has no decision column (looked for {list(DECISION_COLUMNS)}); pass decision='<column>' "
            "naming the column with oral / spotlight / poster / rejected values."
        )
    reason = single_outcome_reason(documents, column)
    if reason is not None:
        raise InvalidValueError(reason)
    return column


def _shares(documents: pd.DataFrame, group: str, column: str, confidence: float) -> pd.DataFrame:
    rows = modelled_rows(documents)
    classes = decision_class(rows[column])
    accepted = is_accepted(rows[column])
    frame = pd.DataFrame(
        {
            group: rows[group].to_numpy(),
            "accepted": accepted.fillna(False).astype(int).to_numpy(),
            "known": accepted.notna().astype(int).to_numpy(),
            "unknown": (classes == UNKNOWN).fillna(False).astype(int).to_numpy(),
        }
    )
    frame = frame[frame[group].notna() & (frame[group].astype("string").str.strip() != "")]
    frame = frame[(frame["known"] + frame["unknown"]) > 0]
    table = frame.groupby(group, sort=True)[["accepted", "known", "unknown"]].sum().reset_index()
    table = table[table["known"] > 0].rename(columns={"known": "n"}).reset_index(drop=True)
    lower, upper = wilson_interval(table["accepted"], table["n"], confidence)
    table = table.assign(share=table["accepted"] / table["n"], lower=lower, upper=upper)
    table = table[[group, *ACCEPTANCE_COLUMNS]]
    table.attrs["unknown_decisions"] = unknown_decisions(rows[column])
    return table


def _log_unknown(unknown: dict[str, int], column: str) -> None:
    if unknown:
        shown = ", ".join(f"{label!r} x{n}" for label, n in list(unknown.items())[:5])
        logger.warning(
            "%d papers have a decision in %r that is not a known outcome (%s): left out of the acceptance "
            "shares (see the 'unknown' column); relabel them accepted / rejected / withdrawn to count them",
            sum(unknown.values()),
            column,
            shown,
        )


@accepts_level
def node_acceptance(
    documents: pd.DataFrame,
    tree: pd.DataFrame | None = None,
    *,
    decision: str | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> pd.DataFrame:
    """[`acceptance_shares`][icml_topics.compare.acceptance_shares] for the nodes of every tree level: ``level, topic, label, accepted, n,
    share, lower, upper, unknown`` (``label`` from ``tree`` when given; papers of no node, ``-1``, are left out).

    Args:
        documents: ``TopicMap.documents_`` with its ``topic_<level>`` columns and a decision column.
        tree: ``TopicMap.topic_tree_`` for the node labels; ``None``: no labels.
        decision: the column of review decisions; ``None``: the one ``decision_column`` finds (``decision``).
        confidence: the confidence level of the Wilson intervals (default 0.95; ``level=``, its old name, is deprecated).

    Examples:
        >>> import pandas as pd
        >>> docs = pd.DataFrame({"topic_0": [0, 0, 1, -1], "decision": ["poster", "rejected", "oral", "poster"]})
        >>> node_acceptance(docs)[["level", "topic", "accepted", "n"]].values.tolist()
        [[0, 0, 1, 2], [0, 1, 1, 1]]
    """
    column = _checked_column(documents, decision)
    frames = []
    for lv in tree_levels(documents) or [0]:
        col = level_column(lv) if level_column(lv) in documents.columns else "topic"
        labels = pd.to_numeric(documents[col], errors="coerce")
        docs = documents.assign(_node=labels.where(labels >= 0))
        table = _shares(docs, "_node", column, confidence).rename(columns={"_node": "topic"})
        frames.append(table.assign(level=lv, topic=table["topic"].astype(np.int64)))
    out = pd.concat(frames, ignore_index=True)
    unknown = unknown_decisions(modelled_rows(documents)[column])
    _log_unknown(unknown, column)
    if tree is not None and {"level", "topic", "label"} <= set(tree.columns):
        out = out.merge(tree[["level", "topic", "label"]], on=["level", "topic"], how="left")
    else:
        out["label"] = pd.NA
    out = out[["level", "topic", "label", *ACCEPTANCE_COLUMNS]]
    out.attrs["unknown_decisions"] = unknown
    return record_trend_info(out, TrendInfo(group="topic", confidence=float(confidence), method="wilson"))


def area_table(documents: pd.DataFrame, *, group: str = "theme", area: str = "area") -> pd.DataFrame:
    """Theme x area cross-table in long form: ``area, group, n, share_of_area, share_of_group``, where
    ``share_of_area`` is the share of the area's papers in the theme (each area sums to 1 over its themes
    when every paper has one) and ``share_of_group`` the share of the theme's papers in the area.

    Args:
        documents: a table with the ``group`` and ``area`` columns (e.g. ``TopicMap.documents_`` with an ``area``).
        group: the theme column.
        area: the column of the venue's own areas (e.g. a conference's primary area).

    Examples:
        >>> docs = pd.DataFrame({"theme": ["RL", "RL", "GNN"], "area": ["rl", "graphs", "graphs"]})
        >>> area_table(docs)[["area", "theme", "n"]].values.tolist()
        [['graphs', 'GNN', 1], ['graphs', 'RL', 1], ['rl', 'RL', 1]]
    """
    for name, col in (("area", area), ("group", group)):
        if col not in documents.columns:
            raise InvalidValueError(
                f"{name}={col!r} is not a column of documents (columns: {list(documents.columns)})."
            )
    rows = modelled_rows(documents)
    text = lambda s: s.astype("string").fillna("").str.strip()  # noqa: E731
    frame = pd.DataFrame({area: text(rows[area]).to_numpy(), group: text(rows[group]).to_numpy()})
    frame = frame[(frame[area] != "") & (frame[group] != "")]
    table = frame.groupby([area, group], sort=True).size().rename("n").reset_index()
    table["share_of_area"] = table["n"] / table.groupby(area)["n"].transform("sum")
    table["share_of_group"] = table["n"] / table.groupby(group)["n"].transform("sum")
    return table

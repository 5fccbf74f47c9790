"""Review decisions and the authors' own areas: acceptance share per theme or node, theme x area table.

The decision column (``decision``; an input ``status`` column is read as ``decision``, see
``corpus/table.rename_reserved``) holds values such as ``oral``, ``spotlight``, ``poster``,
``rejected``, ``withdrawn``, ``not_accepted``. A paper is *accepted* when its decision names an oral,
a spotlight or a poster, or starts with "accept" (``"Accept (Poster)"``); every other non-empty decision
counts as not accepted (withdrawn and desk-rejected submissions included: the share is of all
submissions with a decision). Papers without a decision are left out of the denominator.

Example:
    >>> import pandas as pd
    >>> docs = pd.DataFrame({"theme": ["RL", "RL", "RL", "GNN"],
    ...                      "decision": ["poster", "rejected", "oral", "withdrawn"]})
    >>> acceptance_shares(docs)[["theme", "accepted", "n", "share"]].values.tolist()
    [['GNN', 0, 1, 0.0], ['RL', 2, 3, 0.6666666666666666]]
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from icml_topics._validation import require_column
from icml_topics.errors import InvalidValueError

from .intervals import wilson_interval
from .topic_trends import modelled_rows, topic_levels

__all__ = [
    "ACCEPTED",
    "DECISION_COLUMNS",
    "acceptance_shares",
    "area_table",
    "decision_column",
    "is_accepted",
    "node_acceptance",
]

#: decisions that count as accepted (case-insensitive, anywhere in the value)
ACCEPTED = ("oral", "spotlight", "poster")
#: where a decision is looked for, first match wins
DECISION_COLUMNS = ("decision", "input_status")
_ACCEPTED = re.compile(r"\b(?:oral|spotlight|poster)\b|^accept", re.IGNORECASE)


def decision_column(documents: pd.DataFrame) -> str | None:
    """The column holding review decisions, or ``None`` when the table has none."""
    return next((c for c in DECISION_COLUMNS if c in documents.columns), None)


def is_accepted(values: pd.Series) -> pd.Series:
    """``True`` / ``False`` per decision, ``NA`` where there is none.

    Example:
        >>> is_accepted(pd.Series(["Oral", "not_accepted", None, "Accept (Poster)"])).tolist()
        [True, False, <NA>, True]
    """
    text = values.astype("string").str.strip()
    accepted = text.str.contains(_ACCEPTED, na=False)
    known = text.notna() & (text != "")
    return accepted.astype("boolean").where(known, pd.NA)


def acceptance_shares(
    documents: pd.DataFrame, *, group: str = "theme", decision: str | None = None, level: float = 0.95
) -> pd.DataFrame:
    """Share of submissions accepted per ``group`` value, with a Wilson interval.

    Returns ``group, accepted, n, share, lower, upper`` sorted by ``group``; ``n`` counts the papers with
    a decision. With ``group="topic"`` and ``topic_<level>`` columns present, use
    :func:`node_acceptance` for every level at once.

    Example:
        >>> import pandas as pd
        >>> docs = pd.DataFrame({"theme": ["RL", "RL", "Vision", "Vision"],
        ...                      "decision": ["poster", "rejected", "oral", "withdrawn"]})
        >>> acceptance_shares(docs)[["theme", "accepted", "n", "share"]].values.tolist()
        [['RL', 1, 2, 0.5], ['Vision', 1, 2, 0.5]]
    """
    column = decision or decision_column(documents)
    if column is None or column not in documents.columns:
        raise InvalidValueError(
            f"documents has no decision column (looked for {list(DECISION_COLUMNS)}); pass decision='<column>' "
            "naming the column with oral / spotlight / poster / rejected values."
        )
    require_column(documents, group, "group", "theme")
    rows = modelled_rows(documents)
    accepted = is_accepted(rows[column])
    keep = accepted.notna().to_numpy()
    frame = pd.DataFrame({group: rows[group].to_numpy()[keep], "accepted": accepted[keep].astype(int).to_numpy()})
    frame = frame[frame[group].notna() & (frame[group].astype("string").str.strip() != "")]
    table = frame.groupby(group, sort=True)["accepted"].agg(["sum", "count"]).reset_index()
    table.columns = [group, "accepted", "n"]
    lower, upper = wilson_interval(table["accepted"], table["n"], level)
    return table.assign(share=table["accepted"] / table["n"], lower=lower, upper=upper)


def node_acceptance(documents: pd.DataFrame, tree: pd.DataFrame | None = None, **kwargs) -> pd.DataFrame:
    """:func:`acceptance_shares` for the nodes of every tree level: ``level, topic, label, accepted, n,
    share, lower, upper`` (``label`` from ``tree`` when given; papers of no node, ``-1``, are left out).

    Example:
        >>> import pandas as pd
        >>> docs = pd.DataFrame({"topic_0": [0, 0, 1, -1], "decision": ["poster", "rejected", "oral", "poster"]})
        >>> node_acceptance(docs)[["level", "topic", "accepted", "n"]].values.tolist()
        [[0, 0, 1, 2], [0, 1, 1, 1]]
    """
    frames = []
    for lv in topic_levels(documents) or [0]:
        col = f"topic_{lv}" if f"topic_{lv}" in documents.columns else "topic"
        labels = pd.to_numeric(documents[col], errors="coerce")
        docs = documents.assign(_node=labels.where(labels >= 0))
        table = acceptance_shares(docs, group="_node", **kwargs).rename(columns={"_node": "topic"})
        frames.append(table.assign(level=lv, topic=table["topic"].astype(np.int64)))
    out = pd.concat(frames, ignore_index=True)
    if tree is not None and {"level", "topic", "label"} <= set(tree.columns):
        out = out.merge(tree[["level", "topic", "label"]], on=["level", "topic"], how="left")
    else:
        out["label"] = pd.NA
    return out[["level", "topic", "label", "accepted", "n", "share", "lower", "upper"]]


def area_table(documents: pd.DataFrame, *, group: str = "theme", area: str = "area") -> pd.DataFrame:
    """Theme x area cross-table in long form: ``area, group, n, share_of_area, share_of_group``, where
    ``share_of_area`` is the share of the area's papers in the theme (each area sums to 1 over its themes
    when every paper has one) and ``share_of_group`` the share of the theme's papers in the area.

    Example:
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

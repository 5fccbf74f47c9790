"""Which nodes of a ``topic_status`` table make the headline: ``whats_new`` (new and emerging, or what faded).

Strongest evidence first; a node that few of the hierarchy's perturbed runs find again is left out; a parent
holding exactly its child's papers is the same finding twice and is listed once, at the finer level.

Examples:
    >>> import pandas as pd
    >>> from icml_topics.compare.topic_trends import topic_status
    >>> docs = pd.DataFrame({"year": [2023] * 40 + [2024] * 40, "topic_0": [0] * 40 + [1] * 40})
    >>> whats_new(topic_status(docs), statuses=("vanished",))["topic"].tolist()
    [0]
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from icml_topics.errors import InvalidValueError
from icml_topics.stages.hierarchy import MIN_STABILITY

from .align_links import unstable
from .periods import check_count

__all__ = ["STATUSES", "whats_new"]

STATUSES = ("new", "emerging", "stable", "declining", "vanished")


def _same_papers_once(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` without the parents whose papers are exactly a listed child's (nested nodes: equal counts in
    every period mean equal sets), each kept child with ``also_at_levels``: the levels of those parents."""
    rows = rows.copy()
    rows["also_at_levels"] = [[] for _ in range(len(rows))]
    if "parent" not in rows.columns or rows.empty:
        return rows
    counts = ["size", "n_before", "n_latest"]
    index = {(int(lv), int(t)): i for i, (lv, t) in enumerate(zip(rows["level"], rows["topic"]))}
    values = rows[counts].to_numpy()
    dropped: set[int] = set()
    for i in np.argsort(rows["level"].to_numpy(), kind="stable"):
        if i in dropped:
            continue
        level, parent = int(rows["level"].iloc[i]), rows["parent"].iloc[i]
        while pd.notna(parent) and int(parent) >= 0:
            j = index.get((level + 1, int(parent)))
            if j is None or not (values[j] == values[i]).all():
                break
            dropped.add(j)
            rows["also_at_levels"].iloc[i].append(level + 1)
            level, parent = level + 1, rows["parent"].iloc[j]
    return rows.drop(index=rows.index[sorted(dropped)])


def whats_new(
    status: pd.DataFrame,
    *,
    statuses: Iterable[str] = ("new", "emerging"),
    top: int | None = None,
    min_stability: float = MIN_STABILITY,
) -> pd.DataFrame:
    """The nodes of a [`topic_status`][icml_topics.compare.topic_status] table with one of ``statuses``, strongest evidence first
    (new before emerging, then by q-value, then by the rise); ``top`` (None or a positive integer) keeps
    the first rows. A node that reappears in fewer than ``min_stability`` of the hierarchy's perturbed runs
    (its ``stability``) is never a headline: it is left out (NaN, a node no run could split: kept).

    A node and its parent often rise together; both are listed, with their ``level``, so that a reader
    sees at which resolution the change is sharpest. A parent holding exactly its child's papers (a node
    with one child) is the same finding twice: it is listed once, at the finer level, and
    ``also_at_levels`` names the coarser levels that hold the same papers.

    Args:
        status: a [`topic_status`][icml_topics.compare.topic_status] table.
        statuses: the statuses to list (``("declining", "vanished")``: what faded).
        top: at most this many rows; ``None``: all.
        min_stability: the least ``stability`` a listed node has (default 0.5, ``MIN_STABILITY``; 0: every node).

    Examples:
        >>> import pandas as pd
        >>> from icml_topics.compare.topic_trends import topic_status
        >>> docs = pd.DataFrame({"year": [2023] * 40 + [2024] * 40, "topic_0": [0] * 40 + [1] * 40})
        >>> whats_new(topic_status(docs))["topic"].tolist()
        [1]
    """
    check_count(top, "top", optional=True, hint=" (the number of rows kept)")
    wanted = list(statuses)
    unknown = [s for s in wanted if s not in STATUSES]
    if unknown:
        raise InvalidValueError(f"statuses {unknown} are not statuses; pick from {list(STATUSES)}.")
    steady = ~unstable(status, min_stability)  # unknown stability: steady
    rows = _same_papers_once(status[status["status"].isin(wanted) & steady])
    rows["_rank"] = rows["status"].map({s: i for i, s in enumerate(wanted)})
    rows["_rise"] = rows["change"].abs()
    rows = (
        rows.sort_values(["_rank", "q_value", "_rise", "level"], ascending=[True, True, False, True], kind="mergesort")
        .drop(columns=["_rank", "_rise"])
        .reset_index(drop=True)
    )
    rows.attrs = dict(status.attrs)
    return rows if top is None else rows.head(top)

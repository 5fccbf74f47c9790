"""Which nodes of a ``topic_status`` table make the headline: ``whats_new`` (new and emerging, or what faded).

Strongest evidence first; a node that few of the hierarchy's perturbed runs find again is left out; a parent
holding exactly its child's papers is the same finding twice and is listed once, at the finer level; a node
whose name fails the checks of names (``name_checks.name_checks``: ``evaluate.names.name_defects`` given the
node's own papers, its parent's name and its siblings' names and papers, and for a new or emerging node its
papers of the latest period: ``headline_evidence`` writes them in ``name_defects``) is
held back until renamed, and listed in the table's ``attrs["held_back"]``. ``headline_evidence`` also gives
each changed node up to three titles of the latest period (``latest_titles``: its papers nearest their
finest node's centroid), so a headline can be checked at a glance.

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
from icml_topics.fitted_tables import modelled_rows
from icml_topics.stages.hierarchy import MIN_STABILITY

from .align_links import unstable
from .name_checks import name_checks, node_rows, paper_titles
from .periods import check_count

__all__ = [
    "CHANGED",
    "LATEST_TITLES",
    "STATUSES",
    "STATUS_MEANINGS",
    "headline_evidence",
    "held_back_lines",
    "whats_new",
]

STATUSES = ("new", "emerging", "stable", "declining", "vanished")
CHANGED = ("new", "emerging", "declining", "vanished")  # the statuses a headline can have
LATEST_TITLES = 3  # titles of the latest period shown with a headline
#: what a status means, one line each (the CLI and the report say it)
STATUS_MEANINGS = {
    "new": "a significant rise (exact test, false-discovery rate held across all nodes of all levels) "
    "with at most 2 papers (new_max) in every earlier period.",
    "emerging": "a significant rise of a node with a real past (more papers than that in some earlier period).",
    "stable": "no change of share the data can tell from noise at that false-discovery rate.",
    "stability": "the share of the hierarchy's perturbed runs that find the node again (below 0.5: no headline).",
}


def headline_evidence(status: pd.DataFrame, documents: pd.DataFrame, *, by: str, latest: object) -> pd.DataFrame:
    """``status`` with two columns for each node of a ``CHANGED`` status ("" and [] for the others):
    ``latest_titles`` (up to ``LATEST_TITLES`` titles of its ``latest`` papers, those nearest their finest
    node's centroid first) and ``name_defects`` (the failed checks of its name, "; "-joined, "" = clean:
    ``name_checks.name_checks``; a new or emerging node's name must also be carried by its ``latest`` papers).

    Args:
        status: a ``topic_status`` frame (``level``, ``topic``, ``parent``, ``label``, ``theme``, ``status``).
        documents: ``TopicMap.documents_`` (titles, ``topic_<level>`` columns, ``topic_similarity``).
        by: the column that defines the periods.
        latest: the period compared.
    """
    rows = modelled_rows(documents)
    if "topic_similarity" in rows.columns:
        rows = rows.sort_values("topic_similarity", ascending=False, kind="mergesort")
    changed = status["status"].isin(CHANGED).to_numpy()
    latest_titles: list[list[str]] = []
    for r, shown in zip(status.itertuples(index=False), changed):
        members = node_rows(rows, int(r.level), int(r.topic)) if shown and "title" in rows.columns else rows.iloc[:0]
        latest_titles.append(paper_titles(members[members[by] == latest])[:LATEST_TITLES] if len(members) else [])
    checks = name_checks(status, documents, check=changed, by=by, latest=latest)
    # a headline's name must be judged in full: a node too small for that (``name_caveat``) is held back too
    defects = ["; ".join(x for x in pair if x) for pair in zip(checks["name_defects"], checks["name_caveat"])]
    return status.assign(latest_titles=latest_titles, name_defects=defects)


def held_back_lines(rows: pd.DataFrame, limit: int = 20) -> list[str]:
    """What ``whats_new`` held back for its name (its ``attrs["held_back"]``): a first line, then one line per
    node with its name, its level and node id, and the checks its name fails (at most ``limit`` nodes, then how
    many more); [] when nothing was held back.

    >>> frame = pd.DataFrame()
    >>> frame.attrs["held_back"] = [{"level": 0, "topic": 7, "label": "loss", "name_defects": "mixed node; generic name"}]
    >>> print("\\n".join(held_back_lines(frame)))
    1 node held back until renamed (its name fails the checks of names):
      - 'loss' (level 0, node 7): mixed node, generic name
    """
    held = rows.attrs.get("held_back") or []
    if not held:
        return []
    noun = "1 node" if len(held) == 1 else f"{len(held)} nodes"
    lines = [
        f"{noun} held back until renamed ({'its name fails' if len(held) == 1 else 'their names fail'} the checks of names):"
    ]
    for h in held[:limit]:
        fails = ", ".join(d.strip() for d in str(h.get("name_defects", "")).split(";") if d.strip())
        lines.append(f"  - {str(h['label'])!r} (level {h.get('level', '?')}, node {h.get('topic', '?')}): {fails}")
    if len(held) > limit:
        lines.append(f"  - and {len(held) - limit} more (topic_status.csv: the name_defects column)")
    return lines


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
    ``also_at_levels`` names the coarser levels that hold the same papers. A node whose ``name_defects``
    (``headline_evidence``) is not empty is held back: ``attrs["held_back"]`` lists it (``held_back_lines``).

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
    chosen = status[status["status"].isin(wanted) & steady]
    named = chosen["name_defects"].fillna("").astype(str) == "" if "name_defects" in chosen.columns else True
    held = chosen[~named] if "name_defects" in chosen.columns else chosen.iloc[:0]
    rows = _same_papers_once(chosen[named])
    rows["_rank"] = rows["status"].map({s: i for i, s in enumerate(wanted)})
    rows["_rise"] = rows["change"].abs()
    rows = (
        rows.sort_values(["_rank", "q_value", "_rise", "level"], ascending=[True, True, False, True], kind="mergesort")
        .drop(columns=["_rank", "_rise"])
        .reset_index(drop=True)
    )
    rows.attrs = dict(status.attrs)
    rows.attrs["held_back"] = held[["level", "topic", "label", "name_defects"]].to_dict("records") if len(held) else []
    return rows if top is None else rows.head(top)

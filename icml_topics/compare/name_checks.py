"""A fitted tree's names judged with their own papers (issue 49): each node's name against the checks of names.

``name_checks`` gives every node of a tree (or of a ``topic_status`` table) the defects of its name
(``evaluate.names.name_defects``), read with what the node is: its parent's name (a top node's parent is its
theme), its siblings' names (the other nodes under the same parent, or of the same theme at the top level), its
papers' titles and texts (title, author keywords, abstract) and each sibling's (a node without siblings is its
parent's papers: its name may say the parent's subject, ``alone=``); given ``latest``, also the
node's papers of that period (``rare in its latest papers``: what a headline grew by must carry its name).
``""`` is a name that passes every check. A node of fewer than ``MIN_JUDGED`` (10) papers gets the caveat
``too few papers to judge`` in ``name_caveat`` (not a defect of its name: a few titles either way would decide
the shares of its titles that ``unsupported by its papers`` and ``mixed node`` ask for, so those two are not
asked of it); its name is still judged on its own and by its papers' whole texts (``rare in its papers``,
``carried by a sibling``, ``bare word``): "node representations" on 8 papers of which one says it is flagged,
"bandits" on 6 bandit papers is not. ``TopicMap.name_checks`` shows it for a fitted model, the headlines
(``headlines.headline_evidence``) hold back a node it flags, and ``benchmarks/iclr_whats_new.py`` marks a
README row it flags.

Examples:
    >>> import pandas as pd
    >>> titles = ["Offline RL with value bounds", "Conservative offline RL", "Graph nets", "Message passing graph nets"]
    >>> docs = pd.DataFrame({"title": titles * 5, "topic_0": [0, 0, 1, 1] * 5, "status": "ok"})  # 10 papers a node
    >>> tree = pd.DataFrame({"level": [0, 0], "topic": [0, 1], "parent": [-1, -1], "label": ["offline RL", "loss"],
    ...                      "theme": ["RL", "RL"]})
    >>> name_checks(tree, docs)["name_defects"].tolist()
    ['', 'unsupported by its papers; mixed node; generic name; rare in its papers']
    >>> small = name_checks(tree, docs.head(4))  # 2 papers a node
    >>> small["name_defects"].tolist(), small["name_caveat"].tolist()
    (['', 'generic name; rare in its papers'], ['too few papers to judge', 'too few papers to judge'])
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import pandas as pd

from icml_topics.evaluate.names import DEFECTS, name_defects
from icml_topics.fitted_tables import level_column, modelled_rows
from icml_topics.schema import split_cell
from icml_topics.stages.defaults import MIN_NODE_SIZE
from icml_topics.stages.tree_names import shown_titles

__all__ = ["GROWN", "MIN_JUDGED", "TOO_FEW", "name_checks", "node_rows", "paper_said", "paper_texts", "paper_titles"]

#: a node of fewer papers is not judged by its titles' shares: below it a title either way decides them
#: (``stages/defaults.py``'s ``MIN_NODE_SIZE``, the smallest node a default tree of a small corpus cuts out of
#: its parent); it gets the caveat ``TOO_FEW`` (``name_caveat``) and is judged by its papers' texts
MIN_JUDGED = MIN_NODE_SIZE
TOO_FEW = DEFECTS[-1]  # "too few papers to judge"
#: the statuses whose headline is what the node grew by: their names must be carried by their latest papers
GROWN = ("new", "emerging")


def node_rows(rows: pd.DataFrame, level: int, topic: int) -> pd.DataFrame:
    """The rows of ``rows`` (``documents_``) in node ``topic`` of ``level`` (``topic`` when the level's column
    is absent: a one-level table)."""
    column = level_column(level) if level_column(level) in rows.columns else "topic"
    return rows[pd.to_numeric(rows[column], errors="coerce").to_numpy() == topic]


def paper_titles(rows: pd.DataFrame) -> list[str]:
    """Each paper's title ("" where it has none)."""
    return rows["title"].fillna("").astype(str).tolist() if "title" in rows.columns else []


def _abstracts(rows: pd.DataFrame) -> list[str]:
    return rows["abstract"].fillna("").astype(str).tolist() if "abstract" in rows.columns else [""] * len(rows)


def _keywords(rows: pd.DataFrame) -> list[str]:
    """Each paper's author keywords, "; "-joined ("" where it has none or the table has no ``keywords``)."""
    if "keywords" not in rows.columns:
        return [""] * len(rows)
    return ["; ".join(split_cell(v)) for v in rows["keywords"].tolist()]


def paper_said(rows: pd.DataFrame) -> list[str]:
    """Each paper's title with its author keywords (what ``name_defects`` reads as ``titles``: a paper says a
    name when its title or its keywords do, as the names are chosen, ``stages/tree_names.py``); a paper
    without a title is read by the first words of its abstract, as the names are chosen."""
    titles = shown_titles(paper_titles(rows), _abstracts(rows)) if "title" in rows.columns else []
    return [f"{t}; {k}" if k else t for t, k in zip(titles, _keywords(rows))]


def paper_texts(rows: pd.DataFrame) -> list[str]:
    """Each paper's title, author keywords and abstract (what ``name_defects`` reads as ``papers``)."""
    if "title" not in rows.columns and "abstract" not in rows.columns:
        return []
    titles = paper_titles(rows) if "title" in rows.columns else [""] * len(rows)
    abstracts = _abstracts(rows)
    return [". ".join(p for p in parts if p) for parts in zip(titles, _keywords(rows), abstracts)]


class _Papers:
    """Each node's titles and texts, read once per node."""

    def __init__(self, documents: pd.DataFrame, by: str | None, latest: Hashable | None) -> None:
        self.rows, self.by, self.latest = modelled_rows(documents), by, latest
        self._seen: dict[tuple[int, int], tuple[list[str], list[str], list[str] | None]] = {}

    def of(self, level: int, topic: int) -> tuple[list[str], list[str], list[str] | None]:
        key = (level, topic)
        if key not in self._seen:
            members = node_rows(self.rows, level, topic)
            late = None
            if self.by is not None and self.by in members.columns:
                late = paper_texts(members[members[self.by] == self.latest])
            self._seen[key] = (paper_said(members), paper_texts(members), late)
        return self._seen[key]


def name_checks(
    tree: pd.DataFrame,
    documents: pd.DataFrame,
    *,
    check: Sequence[bool] | np.ndarray | None = None,
    by: str | None = None,
    latest: Hashable | None = None,
) -> pd.DataFrame:
    """``tree`` with ``name_defects``: the failed checks of each node's name, "; "-joined ("" = clean), and
    ``name_caveat``: ``TOO_FEW`` for a node of fewer than ``MIN_JUDGED`` papers (its titles' shares not asked), else "".

    Args:
        tree: one row per node: ``level``, ``topic``, ``parent`` (one level up; -1 or NaN at the top),
            ``label``, ``theme`` (``TopicMap.topic_tree_``, ``topic_tree.csv`` or a ``topic_status`` table).
        documents: ``TopicMap.documents_`` (or ``documents.csv``): ``title`` (``keywords``, ``abstract`` where
            known) and a ``topic_<level>`` column per level.
        check: which rows to check (the others get ""); ``None``: every row.
        by: the column that defines the periods; with ``latest``, a node of a ``GROWN`` ``status`` is also
            checked against its papers of that period.
        latest: the latest period.

    Examples:
        >>> checks = name_checks(tm.topic_tree_, tm.documents_)  # doctest: +SKIP
        >>> checks[checks["name_defects"] != ""][["level", "label", "name_defects"]]  # doctest: +SKIP
    """
    papers = _Papers(documents, by, latest)
    rows = tree.reset_index(drop=True)
    levels, topics = rows["level"].astype(int).to_numpy(), rows["topic"].astype(int).to_numpy()
    parents = pd.to_numeric(rows["parent"], errors="coerce").fillna(-1).astype(int).to_numpy()
    themes = rows["theme"].fillna("").astype(str).to_numpy()
    labels = rows["label"].fillna("").astype(str).to_numpy()
    named = {(int(lv), int(t)): lb for lv, t, lb in zip(levels, topics, labels)}
    grown = rows["status"].isin(GROWN).to_numpy() if "status" in rows.columns else np.zeros(len(rows), bool)
    wanted = np.ones(len(rows), bool) if check is None else np.asarray(check, dtype=bool)
    defects: list[str] = []
    caveats: list[str] = []
    for i in range(len(rows)):
        if not wanted[i] or "title" not in papers.rows.columns:
            defects.append("")
            caveats.append("")
            continue
        level, topic, top = int(levels[i]), int(topics[i]), parents[i] < 0
        parent = themes[i] if top else named.get((level + 1, int(parents[i])), "")
        same = (levels == level) & (topics != topic)
        same &= (themes == themes[i]) & (parents < 0) if top else (parents == parents[i])
        kids = np.flatnonzero(same)
        titles, texts, late = papers.of(level, topic)
        few = len(titles) < MIN_JUDGED  # too few titles for their shares: judged by the papers' texts
        caveats.append(TOO_FEW if few else "")
        found = name_defects(
            labels[i],
            parent=parent,
            siblings=[labels[j] for j in kids],
            titles=None if few else titles,
            sibling_titles=[] if few else [papers.of(level, int(topics[j]))[0] for j in kids],
            papers=texts,
            sibling_papers=[papers.of(level, int(topics[j]))[1] for j in kids],
            latest_papers=late if grown[i] else None,
            alone=not len(kids),
        )
        defects.append("; ".join(found))
    return tree.assign(name_defects=defects, name_caveat=caveats)

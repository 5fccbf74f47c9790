"""Column names of the tables icml_topics reads and writes and how list cells are written: the one place for each.

>>> from icml_topics.schema import DOCUMENT_COLUMNS
>>> DOCUMENT_COLUMNS[:3]
['id', 'venue', 'year']
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "CONTROL_CHARACTERS",
    "ANALYSIS_COLUMNS",
    "CLEAN_COLUMNS",
    "CORPUS_COLUMNS",
    "CSV_DOCUMENT_COLUMNS",
    "DOCUMENT_COLUMNS",
    "FLAG_COLUMNS",
    "MODEL_COLUMNS",
    "REPRESENTATIVE_COLUMNS",
    "RESERVED_COLUMNS",
    "TEXT_COLUMNS",
    "THEME_COLUMNS",
    "THEME_TABLE_COLUMNS",
    "SHARE_COLUMNS",
    "MOVER_COLUMNS",
    "ALIGN_PAIR_COLUMNS",
    "ALIGN_SUMMARY_COLUMNS",
    "WORDING_COLUMNS",
    "TOPIC_COLUMNS",
    "TOPIC_DTYPE",
    "TREE_COLUMNS",
    "LEVEL_COLUMN",
    "level_columns",
    "csv_document_columns",
    "LIST_SEPARATOR",
    "cell_text",
    "printable",
    "is_list_cell",
    "join_cell",
    "split_cell",
    "text_columns",
    "with_text_dtypes",
]

#: what every reader delivers, in this order (``read_corpus`` and every ``datasets`` loader)
CORPUS_COLUMNS = ["id", "venue", "year", "title", "abstract", "authors"]
#: what the proceedings loaders add after them: title and abstract with LaTeX / markup turned into text
CLEAN_COLUMNS = ["title_clean", "abstract_clean"]
#: why a row is or is not modelled (``corpus/validation.py``)
FLAG_COLUMNS = ["status", "drop_reason", "is_duplicate", "duplicate_of"]
#: a document's research theme, its probability, the runner-up and the evidence (``themes/assign.py``)
THEME_COLUMNS = ["theme", "theme_score", "theme_2", "theme_2_score", "theme_reason"]
#: what a fit adds to every row
MODEL_COLUMNS = ["topic", "topic_label", "topic_similarity", *THEME_COLUMNS, "x", "y"]
#: ``TopicMap.documents_`` (extra input columns follow these)
DOCUMENT_COLUMNS = [*CORPUS_COLUMNS, *FLAG_COLUMNS, *MODEL_COLUMNS]
#: ``documents.csv`` (abstracts and authors stay in the model folder and the report)
CSV_DOCUMENT_COLUMNS = ["id", "venue", "year", "title", *MODEL_COLUMNS, *FLAG_COLUMNS]
#: names an input column may not keep: it is renamed ``input_<name>`` (an input ``status`` becomes ``decision``)
RESERVED_COLUMNS = frozenset({"text", *FLAG_COLUMNS, *MODEL_COLUMNS})
#: the text columns of ``documents_`` (pandas ``string`` dtype in every fitted table)
TEXT_COLUMNS = [
    "id",
    "venue",
    "title",
    "abstract",
    "authors",
    "status",
    "drop_reason",
    "duplicate_of",
    "topic_label",
    "theme",
    "theme_2",
    "theme_reason",
]
#: dtype of ``topic`` in every table (nullable: a dropped row of ``documents_`` has no topic)
TOPIC_DTYPE = "Int64"
#: ``TopicMap.topics_`` (and ``topics.csv``)
TOPIC_COLUMNS = ["topic", "label", "theme", "theme_score", "theme_purity", "size", "stability", "keywords"]
#: ids and titles of each topic's papers nearest its centroid (lists, nearest first), after TOPIC_COLUMNS
REPRESENTATIVE_COLUMNS = ["representative_ids", "representative_titles"]
#: ``TopicMap.topic_tree_`` (and ``topic_tree.csv``): one row per node, level 0 = finest
TREE_COLUMNS = [
    "level", "topic", "parent", "label", "size", "stability", "theme", "theme_score", "purity", "x", "y", "keywords",
    "representative_ids", "representative_titles",
]  # fmt: skip
#: ``documents_``' node of each tree level: ``topic_0`` (finest), ``topic_1``, ... (-1 = none, NA = not modelled)
LEVEL_COLUMN = "topic_{level}"
#: ``TopicMap.themes_`` (and ``themes.csv``)
THEME_TABLE_COLUMNS = ["theme", "description", "size", "share", "n_topics"]

# ---- compare's tables (icml_topics.compare): the columns its functions write and the report and plots read
#: ``theme_shares``: beside the period column, each theme's papers, the period's papers, the share and its interval
SHARE_COLUMNS = ("n", "total", "share", "lower", "upper")
#: ``theme_movers``: each theme's counts and shares in periods a and b, their difference with its interval
MOVER_COLUMNS = (
    "n_a", "total_a", "share_a", "n_b", "total_b", "share_b", "diff", "diff_lower", "diff_upper", "direction",
)  # fmt: skip
#: ``align_models``: one row per matched pair of topics
ALIGN_PAIR_COLUMNS = (
    "topic_a", "label_a", "topic_b", "label_b", "similarity", "centroid_similarity", "keyword_similarity",
    "size_a", "size_b", "relation", "margin", "confidence",
)  # fmt: skip
#: ``align_models``: one row per topic of either side
ALIGN_SUMMARY_COLUMNS = ("side", "topic", "label", "size", "status", "partners", "best_match", "best_similarity")
#: ``topic_wording``: one row per node and period (before the node's names are added)
WORDING_COLUMNS = ("level", "topic", "period", "n", "keywords", "representative_ids", "representative_titles")
#: every topic-level table's node columns (``compare/node_counts.py``): a node of the tree and what names it
NODE_COLUMNS = ("level", "topic", "parent", "label", "theme", "stability")
#: ``acceptance_shares`` / ``node_acceptance``: after the group (or node) columns, accepted of known decisions
ACCEPTANCE_COLUMNS = ("accepted", "n", "share", "lower", "upper", "unknown")

#: how a list is written in one table cell (authors, keywords, representative titles in CSV)
LIST_SEPARATOR = "; "


def level_columns(columns: Iterable[str]) -> list[str]:
    """The tree-level columns among ``columns`` (``topic_0``, ``topic_1``, ...), finest first.

    >>> level_columns(["id", "topic", "topic_1", "topic_0", "topic_label"])
    ['topic_0', 'topic_1']
    """
    levels = [c for c in columns if c.startswith("topic_") and c[6:].isdigit()]
    return sorted(levels, key=lambda c: int(c[6:]))


def text_columns(frame: pd.DataFrame) -> list[str]:
    """The columns of ``frame`` that hold Python strings (and missing values) as ``object``: the input's own
    text columns (``decision``, ``source``, ``area``, ...), given the pandas ``string`` dtype as ours are."""
    out = []
    for column in frame.columns:
        if frame[column].dtype == object:
            values = frame[column].dropna()
            if len(values) and all(isinstance(v, str) for v in values):
                out.append(column)
    return out


def with_text_dtypes(frame: pd.DataFrame, columns: Iterable[str] = ()) -> pd.DataFrame:
    """``frame`` with ``columns`` and every text column of ``text_columns`` as pandas ``string``: the one dtype
    of text in the corpus table (``read_corpus``) and the fitted tables (``documents_``).

    Examples:
        >>> with_text_dtypes(pd.DataFrame({"decision": ["oral", None], "n": [1, 2]})).dtypes.astype(str).tolist()
        ['string', 'int64']
    """
    wanted = [*dict.fromkeys([*columns, *text_columns(frame)])]
    return frame.astype({c: "string" for c in wanted if c in frame.columns}) if wanted else frame


#: input columns the trend analysis reads, kept in ``documents.csv`` when they hold any value
ANALYSIS_COLUMNS = ["decision", "area"]


def csv_document_columns(columns: Iterable[str], filled: Iterable[str] = ()) -> list[str]:
    """The ``documents.csv`` columns among ``documents_``' ``columns``: ``CSV_DOCUMENT_COLUMNS`` with the
    tree levels (``topic_0``, ...) after ``topic_label``, then those of ``ANALYSIS_COLUMNS`` that are in
    ``filled`` (the columns holding at least one value).

    Examples:
        >>> csv_document_columns(["id", "topic_label", "topic_0", "decision"], filled=["decision"])
        ['id', 'topic_label', 'topic_0', 'decision']
    """
    columns = list(columns)
    filled = set(filled)
    levels = level_columns(columns)
    out: list[str] = []
    for c in CSV_DOCUMENT_COLUMNS:
        if c in columns:
            out.append(c)
        if c == "topic_label":
            out.extend(levels)
    return out + [c for c in ANALYSIS_COLUMNS if c in columns and c in filled]


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value) or type(value).__name__ == "NAType"


def is_list_cell(value: Any) -> bool:
    """True for a list, tuple or 1-d array held in one cell (keywords, representative titles)."""
    return isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim == 1)


def join_cell(values: Iterable[Any], sep: str = LIST_SEPARATOR) -> str:
    """``["a", "b"]`` -> ``"a; b"`` (blank and missing items left out)."""
    return sep.join(text for text in (str(v).strip() for v in values if not _missing(v)) if text)


def cell_text(value: Any, sep: str = LIST_SEPARATOR) -> Any:
    """A list cell as one ``sep``-joined string (for CSV and HTML); any other value as it is."""
    return join_cell(value, sep) if is_list_cell(value) else value


#: a terminal escape sequence (ANSI CSI, a terminated OSC, two-character; 7-bit only: the 8-bit C1 introducers
#: \x9b / \x9d are bytes of mis-decoded quotes in real abstracts ("\xe2\x80\x9d"), removed one by one, never
#: taken to start a sequence that would swallow the text after them), then any other control character but tab
#: and line breaks: never written to an output file (``printable``)
CONTROL_CHARACTERS = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]{0,512}(?:\x07|\x1b\\)"
    r"|\x1b[@-Z\\-_]|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"
)


def printable(text: str) -> str:
    """``text`` without terminal escape sequences and control characters (tab and line breaks kept): a NUL
    or an ESC in a title must not cut a CSV cell short for a reader or recolour a terminal that shows it."""
    return CONTROL_CHARACTERS.sub("", text) if isinstance(text, str) else text


def split_cell(value: Any) -> list[str]:
    """A list cell back as a list: ``"a; b"`` (as in CSV) -> ``["a", "b"]``; a list as strings; missing -> []."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(LIST_SEPARATOR.strip()) if part.strip()]
    if is_list_cell(value):
        return [str(v).strip() for v in value if not _missing(v) and str(v).strip()]
    return []

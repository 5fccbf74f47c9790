"""Records -> the corpus table, for the proceedings loaders (PMLR BibTeX, OpenReview notes).

A loader turns its input into ``Record`` objects (a location for messages plus a dict of fields
under the corpus names) and hands them to ``build_corpus``, which builds the table through the same
column contract and repeated-id rule as ``read_corpus`` (``corpus/table.py``), adds the cleaned
``title_clean`` / ``abstract_clean`` columns and attaches the load report.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from icml_topics.corpus.load_report import LoadReport
from icml_topics.corpus.markup import clean_markup
from icml_topics.corpus.table import rows_to_frame, standardize, unique_ids
from icml_topics.schema import CLEAN_COLUMNS, CORPUS_COLUMNS, join_cell

__all__ = ["Record", "add_clean_columns", "build_corpus", "is_missing", "join_list", "to_year"]


@dataclass
class Record:
    """One input record: where it came from (for messages) and its fields (corpus names)."""

    location: str
    fields: dict[str, Any]


def is_missing(value: Any) -> bool:
    """None, NaN/NA, or a blank string."""
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, float) and math.isnan(value):
        return True
    return value is pd.NA


def join_list(value: Any) -> Any:
    """A list of strings -> ``"a; b"``; other values unchanged; missing -> None."""
    if isinstance(value, (list, tuple)):
        return join_cell(value) or None
    return None if is_missing(value) else value


def to_year(value: Any) -> int | None:
    """``2024``, ``"2024"``, ``2024.0`` -> 2024; anything else (missing, ``"2024a"``) -> None."""
    if is_missing(value) or isinstance(value, bool):
        return None
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    if not number.is_integer() or not 1000 <= number <= 9999:
        return None
    return int(number)


def add_clean_columns(corpus: pd.DataFrame) -> pd.DataFrame:
    """Insert ``title_clean`` and ``abstract_clean`` (LaTeX and markup turned into text) after the corpus
    columns, replacing any the input carried."""
    extra = [c for c in corpus.columns if c not in CORPUS_COLUMNS and c not in CLEAN_COLUMNS]
    out = corpus[[*CORPUS_COLUMNS, *extra]].copy()
    out.insert(len(CORPUS_COLUMNS), "title_clean", [clean_markup(t) for t in corpus["title"]])
    out.insert(len(CORPUS_COLUMNS) + 1, "abstract_clean", [clean_markup(a) for a in corpus["abstract"]])
    for column in CLEAN_COLUMNS:
        out[column] = out[column].astype("string")
    return out


def build_corpus(records: Iterable[Record], report: LoadReport, *, log: bool = True) -> pd.DataFrame:
    """Build the corpus DataFrame from ``records``; ``report.n_read`` must already count skipped ones.

    Every record is kept; a repeated id is renamed ``<id>#1`` and listed in ``report.duplicates``.
    """
    records = list(records)
    if not records:
        df = add_clean_columns(pd.DataFrame({c: pd.Series(dtype="string") for c in CORPUS_COLUMNS}))
        df["year"] = df["year"].astype("Int64")
    else:
        n_read = report.n_read
        frame, locations = rows_to_frame([(r.location, r.fields) for r in records], report)
        report.n_read = n_read  # the loader counted its records (and the ones it skipped) already
        table, locations = standardize(frame, origin=report.source, report=report, locations=locations)
        df = add_clean_columns(unique_ids(table, report, locations))
    report.n_kept = len(df)
    report.n_missing_abstract = int((df["abstract"].str.strip() == "").sum())
    df.attrs["load_report"] = report
    if log:
        report.log()
    return df

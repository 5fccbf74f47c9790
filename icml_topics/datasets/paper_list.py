"""Generic paper lists (JSON array, JSONL, CSV/TSV; ``.gz`` allowed) -> the corpus table, and back.

Field names are configurable: ``fields`` maps the corpus names (``id, venue, year, title,
abstract, authors``) to the names used in the file. The files in ``shared/data`` and those written
by ``icml-topics fetch`` use the corpus names directly, with ``authors`` as a JSON list.

Examples:
    >>> from icml_topics.datasets import load_paper_list
    >>> df = load_paper_list("papers.csv", fields={"abstract": "summary", "id": "paper_id"},
    ...                      venue="ICML", year=2024)
"""

from __future__ import annotations

import gzip
import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from icml_topics._io import atomic_write_bytes
from icml_topics.corpus.readers import read_file
from icml_topics.corpus.record_files import PARQUET_SUFFIXES, RECORD_SUFFIXES, format_suffix
from icml_topics.corpus.records import add_clean_columns
from icml_topics.corpus.table import fill_missing
from icml_topics.errors import InvalidValueError
from icml_topics.schema import CLEAN_COLUMNS, CORPUS_COLUMNS, split_cell

__all__ = ["PAPER_LIST_SUFFIXES", "load_paper_list", "write_paper_list"]

PAPER_LIST_SUFFIXES = (*RECORD_SUFFIXES, *PARQUET_SUFFIXES)


def _check_fields(fields: Mapping[str, str] | None) -> dict[str, str]:
    fields = dict(fields or {})
    unknown = sorted(set(fields) - set(CORPUS_COLUMNS))
    if unknown:
        raise InvalidValueError(
            f"fields maps corpus names to the file's names, but {unknown} are not corpus names; "
            f"use some of {list(CORPUS_COLUMNS)}, e.g. fields={{'abstract': 'summary'}}."
        )
    return fields


def load_paper_list(
    path: str | os.PathLike[str],
    *,
    fields: Mapping[str, str] | None = None,
    venue: str | None = None,
    year: int | None = None,
) -> pd.DataFrame:
    """Load a JSON, JSONL, CSV/TSV (optionally ``.gz``) or Parquet paper list as the corpus table.

    The file is read by ``read_corpus``'s reader (``corpus/readers.read_file``): the same column
    contract, repeated-id rule and unreadable-record rule; this adds ``title_clean`` / ``abstract_clean``
    and keeps input columns under their own names (``read_corpus`` renames the model's, e.g. ``status``).

    Args:
        path: the file; the format comes from its suffix (``.json``, ``.jsonl``/``.ndjson``,
            ``.csv``, ``.tsv``, each optionally followed by ``.gz``, or ``.parquet``).
        fields: corpus name -> the file's name, e.g. ``{"abstract": "summary", "id": "paper_id"}``.
            Unmapped corpus names are looked up as they are, then under usual other names (``summary``...).
        venue: used for records that have none.
        year: used for records that have none.

    Returns:
        One row per record, in file order; every other field is kept as an extra column. Records
        without an id get ``<file stem>-<index>``. Broken lines/rows are skipped and repeated ids
        renamed ``<id>#1``; both are listed in ``df.attrs["load_report"]``.

    Raises:
        ValueError: unknown format, a mapped field the file lacks, or no abstract field at all.

    Examples:
        >>> df = load_paper_list("../shared/data/icml-2026-seed-abstracts.jsonl")
    """
    path = Path(path).expanduser()
    fields = _check_fields(fields)
    kind = format_suffix(path)
    if kind not in PAPER_LIST_SUFFIXES:
        raise InvalidValueError(
            f"Cannot tell the format of {path.name}: expected a name ending in "
            f"{', '.join(PAPER_LIST_SUFFIXES)} (optionally + .gz). Rename the file, or use "
            "load_pmlr(path=...) for BibTeX and load_openreview(...) for OpenReview notes."
        )
    table = read_file(path, columns=fields, kind=kind)
    report = table.attrs["load_report"]
    df = add_clean_columns(fill_missing(table, venue=venue, year=year))
    df.attrs["load_report"] = report
    return df


def _jsonable(value: Any) -> Any:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    if hasattr(value, "item") and not isinstance(value, (list, dict, str)):
        try:
            return value.item()  # numpy / pandas scalars
        except (AttributeError, ValueError):
            pass
    return value


def write_paper_list(df: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write a corpus table as JSON lines (``.gz`` compresses), in the ``shared/data`` format.

    ``authors`` becomes a list; the derived ``title_clean``/``abstract_clean`` columns are left
    out (loaders recompute them). The file is written atomically.

    Args:
        df: the corpus table (``read_corpus`` or a loader).
        path: the file to write (``.jsonl`` or ``.jsonl.gz``).

    Examples:
        >>> write_paper_list(load_pmlr(2024), "data/icml-2024.jsonl")
    """
    missing = [column for column in CORPUS_COLUMNS if column not in df.columns]
    if missing:
        raise InvalidValueError(f"Not a corpus table: columns {missing} are missing (expected {list(CORPUS_COLUMNS)}).")
    path = Path(path)
    columns = [c for c in df.columns if c not in CLEAN_COLUMNS]
    lines = []
    for row in df[columns].itertuples(index=False, name=None):
        record = {column: _jsonable(value) for column, value in zip(columns, row)}
        authors = record.get("authors")
        if isinstance(authors, str):
            record["authors"] = split_cell(authors)
        lines.append(json.dumps(record, ensure_ascii=False, default=str))
    data = ("\n".join(lines) + "\n" if lines else "").encode("utf-8")
    if path.suffix.lower() == ".gz":
        data = gzip.compress(data, mtime=0)
    atomic_write_bytes(path, data)
    return path

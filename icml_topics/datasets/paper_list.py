"""Generic paper lists (JSON array, JSONL, CSV/TSV; ``.gz`` allowed) -> the corpus table, and back.

Field names are configurable: ``fields`` maps the corpus names (``id, venue, year, title,
abstract, authors``) to the names used in the file. The files in ``shared/data`` and those written
by ``icml-topics fetch`` use the corpus names directly, with ``authors`` as a JSON list.

Example:
    >>> from icml_topics.datasets import load_paper_list
    >>> df = load_paper_list("papers.csv", fields={"abstract": "summary", "id": "paper_id"},
    ...                      venue="ICML", year=2024)  # doctest: +SKIP
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
from icml_topics.corpus.load_report import Issue, LoadReport
from icml_topics.corpus.record_files import (
    RECORD_SUFFIXES,
    Broken,
    compression_free_suffix,
    read_rows,
)
from icml_topics.corpus.records import (
    AUTHOR_SEPARATOR,
    CLEAN_COLUMNS,
    CORE_COLUMNS,
    Record,
    build_corpus,
    is_missing,
)

__all__ = ["PAPER_LIST_SUFFIXES", "load_paper_list", "write_paper_list"]

PAPER_LIST_SUFFIXES = RECORD_SUFFIXES


def _stem(path: Path) -> str:
    name = path.name
    for suffix in reversed(path.suffixes):
        if suffix.lower() in (".gz", *PAPER_LIST_SUFFIXES):
            name = name[: -len(suffix)]
    return name or path.name


def _check_fields(fields: Mapping[str, str] | None) -> dict[str, str]:
    fields = dict(fields or {})
    unknown = sorted(set(fields) - set(CORE_COLUMNS))
    if unknown:
        raise ValueError(
            f"fields maps corpus names to the file's names, but {unknown} are not corpus names; "
            f"use some of {list(CORE_COLUMNS)}, e.g. fields={{'abstract': 'summary'}}."
        )
    return fields


def _scalar_text(value: Any, name: str) -> str | None:
    if is_missing(value):
        return None
    if isinstance(value, (list, dict)):
        raise ValueError(f"{name!r} is a {type(value).__name__}, expected text")
    return str(value)


def _to_record(
    raw: dict[str, Any],
    location: str,
    index: int,
    *,
    fields: dict[str, str],
    stem: str,
    venue: str | None,
    year: int | None,
) -> Record:
    mapped = {theirs: ours for ours, theirs in fields.items()}
    record: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    for key, value in raw.items():
        if key in mapped:
            record[mapped[key]] = value
        elif key in CORE_COLUMNS and key in fields:
            extras[f"original_{key}"] = value  # shadowed by a mapped column; kept under another name
        elif key in CORE_COLUMNS:
            record.setdefault(key, value)
        elif key in CLEAN_COLUMNS:
            continue  # derived columns (e.g. from write_paper_list output) are recomputed
        else:
            extras[key] = value
    authors = record.get("authors")
    if not (is_missing(authors) or isinstance(authors, (str, list))):
        raise ValueError(f"'authors' is a {type(authors).__name__}, expected a list of names or text")
    out = {
        "id": _scalar_text(record.get("id"), "id") or f"{stem}-{index}",
        "venue": _scalar_text(record.get("venue"), "venue") or venue,
        "year": record.get("year") if not is_missing(record.get("year")) else year,
        "title": _scalar_text(record.get("title"), "title"),
        "abstract": _scalar_text(record.get("abstract"), "abstract") or "",
        "authors": authors,
    }
    out.update(extras)
    return Record(location, out)


def load_paper_list(
    path: str | os.PathLike[str],
    *,
    fields: Mapping[str, str] | None = None,
    venue: str | None = None,
    year: int | None = None,
) -> pd.DataFrame:
    """Load a JSON, JSONL or CSV/TSV paper list (optionally ``.gz``) as the corpus table.

    Args:
        path: the file; the format comes from its suffix (``.json``, ``.jsonl``/``.ndjson``,
            ``.csv``, ``.tsv``, each optionally followed by ``.gz``).
        fields: corpus name -> the file's name, e.g. ``{"abstract": "summary", "id": "paper_id"}``.
            Unmapped corpus names are looked up as they are.
        venue, year: used for records that have none.

    Returns:
        One row per record, in file order; every other field is kept as an extra column. Records
        without an id get ``<file stem>-<index>``. Broken lines/rows are skipped and repeated ids
        dropped (first kept); both are listed in ``df.attrs["load_report"]``.

    Raises:
        ValueError: unknown format, a mapped field that no record has, or no abstract field at all.

    Example:
        >>> df = load_paper_list("../shared/data/icml-2026-seed-abstracts.jsonl")  # doctest: +SKIP
    """
    path = Path(path).expanduser()
    fields = _check_fields(fields)
    kind = compression_free_suffix(path)
    if kind not in PAPER_LIST_SUFFIXES:
        raise ValueError(
            f"Cannot tell the format of {path.name}: expected a name ending in "
            f"{', '.join(PAPER_LIST_SUFFIXES)} (optionally + .gz). Rename the file, or use "
            "load_pmlr(path=...) for BibTeX and load_openreview(...) for OpenReview notes."
        )
    report = LoadReport(source=str(path))
    rows = read_rows(path, kind)

    present: set[str] = set()
    for _, raw in rows:
        if isinstance(raw, dict):
            present.update(raw)
    missing = {ours: theirs for ours, theirs in fields.items() if theirs not in present}
    if rows and missing:
        raise ValueError(
            f"{path.name}: no record has the field(s) {missing} named in `fields`. "
            f"Fields found: {sorted(present)[:20]}."
        )
    abstract_name = fields.get("abstract", "abstract")
    if rows and abstract_name not in present:
        raise ValueError(
            f"{path.name} has no '{abstract_name}' field. Fields found: {sorted(present)[:20]}. "
            "Say which one holds the abstracts, e.g. fields={'abstract': 'summary'}."
        )

    records: list[Record] = []
    stem = _stem(path)
    for index, (location, raw) in enumerate(rows):
        report.n_read += 1
        if isinstance(raw, Broken):
            report.skipped.append(Issue(location, str(raw)))
            continue
        if not isinstance(raw, dict):
            report.skipped.append(Issue(location, f"is a JSON {type(raw).__name__}, expected an object"))
            continue
        try:
            records.append(_to_record(raw, location, index, fields=fields, stem=stem, venue=venue, year=year))
        except ValueError as exc:
            report.skipped.append(Issue(location, str(exc)))
    return build_corpus(records, report)


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

    Example:
        >>> write_paper_list(load_pmlr(2024), "data/icml-2024.jsonl")  # doctest: +SKIP
    """
    missing = [column for column in CORE_COLUMNS if column not in df.columns]
    if missing:
        raise ValueError(f"Not a corpus table: columns {missing} are missing (expected {list(CORE_COLUMNS)}).")
    path = Path(path)
    columns = [c for c in df.columns if c not in CLEAN_COLUMNS]
    lines = []
    for row in df[columns].itertuples(index=False, name=None):
        record = {column: _jsonable(value) for column, value in zip(columns, row)}
        authors = record.get("authors")
        if isinstance(authors, str):
            record["authors"] = [name.strip() for name in authors.split(AUTHOR_SEPARATOR.strip()) if name.strip()]
        lines.append(json.dumps(record, ensure_ascii=False, default=str))
    data = ("\n".join(lines) + "\n" if lines else "").encode("utf-8")
    if path.suffix.lower() == ".gz":
        data = gzip.compress(data, mtime=0)
    atomic_write_bytes(path, data)
    return path

"""The one reader of record files: JSON, JSONL and CSV/TSV (optionally ``.gz``) -> rows of records.

Each row is ``(location, record)`` where ``location`` names the line/item for messages and
``record`` is a dict, or a :class:`Broken` string saying why that record could not be read. The
caller decides what a broken record means (the dataset loaders skip and report it).

    >>> rows = read_rows("papers.jsonl.gz")            # doctest: +SKIP
    >>> rows[0]                                         # doctest: +SKIP
    ('line 1', {'id': 'p1', 'abstract': '...'})
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "LIST_KEYS",
    "RECORD_SUFFIXES",
    "Broken",
    "compression_free_suffix",
    "iter_jsonl",
    "read_json",
    "read_rows",
    "read_text",
]

RECORD_SUFFIXES = (".json", ".jsonl", ".ndjson", ".csv", ".tsv")
# Keys under which a JSON object may hold the list of papers: {"papers": [...]}.
LIST_KEYS = ("papers", "data", "items", "records", "results", "notes")


def compression_free_suffix(path: Path) -> str:
    """``papers.jsonl.gz`` -> ``".jsonl"``; ``papers.CSV`` -> ``".csv"``."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def read_text(path: str | os.PathLike[str]) -> str:
    """The UTF-8 text of ``path`` (gunzipped when it ends in ``.gz``); a clear error when missing."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"File not found: {path}. Check the path (it is relative to {Path.cwd()}).")
    data = path.read_bytes()
    if path.suffix.lower() == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise ValueError(f"{path} ends in .gz but is not a valid gzip file ({exc}).") from exc
    return data.decode("utf-8-sig", errors="replace")


def read_json(text: str, source: str) -> Any:
    """``json.loads`` with an error that names the file, position and what to try instead."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{source} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}). "
            "If it holds one JSON object per line, give it a .jsonl suffix so that each line is read "
            "separately and broken lines are skipped and reported."
        ) from exc


def iter_jsonl(text: str) -> Iterator[tuple[int, Any, str | None]]:
    """Yield ``(line number, value, None)`` per non-blank line, or ``(line, None, error)`` if invalid.

    Lines end at ``\n`` only: ``str.splitlines`` would also split at characters such as U+2028
    or form feeds, which JSON allows unescaped inside strings.
    """
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line), None
        except json.JSONDecodeError as exc:
            yield number, None, f"invalid JSON ({exc.msg} at column {exc.colno})"


def _json_rows(data: Any, source: str) -> list[tuple[str, Any]]:
    if isinstance(data, dict):
        lists = [key for key in LIST_KEYS if isinstance(data.get(key), list)]
        if not lists:
            raise ValueError(
                f"{source} holds a JSON object with keys {sorted(data)[:10]}; expected a list of papers, "
                f"or an object with the list under one of {list(LIST_KEYS)}."
            )
        data = data[lists[0]]
    if not isinstance(data, list):
        raise ValueError(f"{source} holds a JSON {type(data).__name__}; expected a list of paper objects.")
    return [(f"item {index}", row) for index, row in enumerate(data)]


class Broken(str):
    """Stands in for a record that could not be read; the string is the reason."""


def _csv_rows(text: str, delimiter: str) -> list[tuple[str, Any]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = next(reader, None)
    if header is None:
        return []
    header = [name.strip() for name in header]
    rows: list[tuple[str, Any]] = []
    start = reader.line_num + 1
    for row in reader:
        location = f"line {start}"
        start = reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            reason = f"has {len(row)} fields, the header has {len(header)} (a delimiter inside an unquoted value?)"
            rows.append((location, Broken(reason)))
        else:
            rows.append((location, dict(zip(header, row))))
    return rows


def read_rows(path: str | os.PathLike[str], kind: str | None = None) -> list[tuple[str, Any]]:
    """``(location, record or Broken)`` for every record of a JSON / JSONL / CSV / TSV file (``.gz`` allowed).

    ``kind`` is the format suffix (``".jsonl"``...); by default it comes from the file name.
    """
    path = Path(path).expanduser()
    kind = kind or compression_free_suffix(path)
    text = read_text(path)
    if kind in (".jsonl", ".ndjson"):
        return [(f"line {line}", Broken(error) if error else value) for line, value, error in iter_jsonl(text)]
    if kind == ".json":
        return _json_rows(read_json(text, str(path)), str(path))
    return _csv_rows(text, "\t" if kind == ".tsv" else ",")

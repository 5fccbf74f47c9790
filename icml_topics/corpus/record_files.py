"""The one reader per file format: CSV / TSV, JSON, JSONL (each optionally ``.gz``) and Parquet -> records.

Text formats give rows ``(location, record)``: ``location`` names the line or item for messages,
``record`` is what the file holds there (normally a dict), or a :class:`Broken` string saying why that
record could not be read. Broken records are skipped and listed in the load report by the table
builder (``corpus/table.py``); a file with no readable record at all is an error. ``read_corpus``,
the ``datasets`` loaders and the streaming reader all read files through this module.

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

import pandas as pd

from icml_topics.corpus.errors import CorpusError, InputNotFoundError

__all__ = [
    "LIST_KEYS",
    "PARQUET_SUFFIXES",
    "RECORD_SUFFIXES",
    "Broken",
    "count_parquet_rows",
    "file_stem",
    "format_suffix",
    "iter_jsonl",
    "iter_jsonl_chunks",
    "iter_parquet_chunks",
    "read_json",
    "read_parquet",
    "read_rows",
    "read_text",
]

RECORD_SUFFIXES = (".json", ".jsonl", ".ndjson", ".csv", ".tsv")
PARQUET_SUFFIXES = (".parquet", ".pq")
# Keys under which a JSON object may hold the list of papers: {"papers": [...]}.
LIST_KEYS = ("papers", "data", "items", "records", "results", "notes")


class Broken(str):
    """Stands in for a record that could not be read; the string is the reason."""


def format_suffix(path: Path) -> str:
    """``papers.jsonl.gz`` -> ``".jsonl"``; ``papers.CSV`` -> ``".csv"``."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def file_stem(path: Path) -> str:
    """``icml-2024.jsonl.gz`` -> ``"icml-2024"``: the prefix of generated ids."""
    name = path.name
    for suffix in reversed(path.suffixes):
        if suffix.lower() in (".gz", *RECORD_SUFFIXES, *PARQUET_SUFFIXES):
            name = name[: -len(suffix)]
    return name or "doc"


def _existing_file(path: str | os.PathLike[str]) -> Path:
    path = Path(path).expanduser()
    if path.is_dir():
        raise CorpusError(f"{path} is a folder: pass the data files inside it (e.g. {path}/*.jsonl).")
    if not path.is_file():
        raise InputNotFoundError(
            f"Input file not found: {path}. Check the path (relative paths start at {Path.cwd()})."
        )
    return path


def read_text(path: str | os.PathLike[str]) -> str:
    """The UTF-8 text of ``path``, gunzipped when it is gzip data; clear errors when missing or not UTF-8."""
    path = _existing_file(path)
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise CorpusError(
                f"{path} looks gzip-compressed but cannot be decompressed ({exc}); re-download it."
            ) from exc
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"{path} is not valid UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 4]!r}). "
            "Re-save it as UTF-8, e.g. `iconv -f latin1 -t utf-8 in.csv > out.csv`."
        ) from exc


def read_json(text: str, source: str) -> Any:
    """``json.loads`` with an error that names the file, position and what to try instead."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise _json_error(exc, source) from exc


def _json_error(exc: json.JSONDecodeError, source: str) -> CorpusError:
    return CorpusError(
        f"{source} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}). "
        "If it holds one JSON object per line, give it a .jsonl suffix so that each line is read "
        "separately and broken lines are skipped and reported."
    )


def _jsonl_value(line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        return Broken(f"invalid JSON ({exc.msg} at column {exc.colno})")


def iter_jsonl(text: str) -> Iterator[tuple[int, Any]]:
    """Yield ``(line number, value or Broken)`` per non-blank line.

    Lines end at ``\\n`` only: ``str.splitlines`` would also split at characters such as U+2028
    or form feeds, which JSON allows unescaped inside strings.
    """
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield number, _jsonl_value(line)


def iter_jsonl_chunks(path: str | os.PathLike[str], chunksize: int) -> Iterator[list[tuple[str, Any]]]:
    """The rows of a JSONL(.gz) file in lists of at most ``chunksize``, reading one line at a time."""
    path = _existing_file(path)
    with path.open("rb") as fh:
        opener = gzip.open if fh.read(2) == b"\x1f\x8b" else open  # gzip data by its magic number
    chunk: list[tuple[str, Any]] = []
    with opener(path, "rt", encoding="utf-8-sig", newline="\n") as fh:
        for number, line in enumerate(fh, start=1):
            if line.strip():
                chunk.append((f"line {number}", _jsonl_value(line)))
            if len(chunk) == chunksize:
                yield chunk
                chunk = []
    if chunk:
        yield chunk


def _json_rows(data: Any, source: str) -> list[tuple[str, Any]]:
    if isinstance(data, dict):
        lists = [key for key in LIST_KEYS if isinstance(data.get(key), list)]
        others = [key for key, value in data.items() if isinstance(value, list)]
        if not lists and len(others) != 1:
            raise CorpusError(
                f"{source} holds a JSON object with keys {sorted(data)[:10]}; expected a list of papers, "
                f"or an object with the list under one of {list(LIST_KEYS)}."
            )
        data = data[(lists or others)[0]]
    if not isinstance(data, list):
        raise CorpusError(f"{source} holds a JSON {type(data).__name__}; expected a list of paper objects.")
    return [(f"item {index}", row) for index, row in enumerate(data)]


def _sniff_separator(text: str) -> str:
    """``,`` unless the header line holds none and another usual separator (``;``, tab, ``|``) instead."""
    header = text.split("\n", 1)[0]
    if "," in header:
        return ","
    counts = {c: header.count(c) for c in (";", "\t", "|")}
    best = max(counts, key=counts.get)
    return best if counts[best] else ","


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
            reason = (
                f"has {len(row)} fields, the header has {len(header)} (a {delimiter!r} inside an unquoted value? "
                "If the fields are separated by another character, pass it with --sep, sep= in Python)"
            )
            rows.append((location, Broken(reason)))
        else:
            rows.append((location, {name: (cell if cell.strip() else None) for name, cell in zip(header, row)}))
    return rows


def _jsonl_or_json_rows(text: str, source: str, *, lines_first: bool) -> list[tuple[str, Any]]:
    """JSONL rows, or the records of one JSON document; whichever the text is (a .json of lines, a
    pretty-printed .jsonl) when the suffix is wrong."""
    if not lines_first:
        try:
            return _json_rows(json.loads(text), source)
        except json.JSONDecodeError as exc:
            rows = [(f"line {n}", value) for n, value in iter_jsonl(text)]
            if any(not isinstance(value, Broken) for _, value in rows):
                return rows
            raise _json_error(exc, source) from exc
    rows = [(f"line {n}", value) for n, value in iter_jsonl(text)]
    if rows and isinstance(rows[0][1], Broken) and text.lstrip()[:1] in "[{":
        try:
            return _json_rows(json.loads(text), source)
        except json.JSONDecodeError:
            pass
    return rows


def read_rows(
    path: str | os.PathLike[str], kind: str | None = None, *, sep: str | None = None
) -> list[tuple[str, Any]]:
    """``(location, record or Broken)`` for every record of a JSON / JSONL / CSV / TSV file (``.gz`` allowed).

    ``kind`` is the format suffix (``".jsonl"``...); by default it comes from the file name, and a
    name without a known suffix is read as JSON when its text starts with ``[`` or ``{``, else CSV.
    ``sep`` is the CSV field separator (default: tab for ``.tsv``, else detected from the header).
    """
    path = Path(path).expanduser()
    kind = kind or format_suffix(path)
    text = read_text(path)
    stripped = text.lstrip()
    if not stripped:
        raise CorpusError(f"{path} is empty: it holds no records.")
    if sep is None and kind not in (".csv", ".tsv") and (kind in RECORD_SUFFIXES or stripped[0] in "[{"):
        return _jsonl_or_json_rows(text, str(path), lines_first=kind != ".json")
    return _csv_rows(text, sep or ("\t" if kind == ".tsv" else _sniff_separator(stripped)))


def read_parquet(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A Parquet file as a DataFrame, with an error that says what went wrong."""
    path = _existing_file(path)
    try:
        return pd.read_parquet(path)
    except Exception as exc:
        raise CorpusError(f"Cannot read {path} as Parquet ({exc}). Is it a Parquet file?") from exc


def iter_parquet_chunks(path: str | os.PathLike[str], chunksize: int) -> Iterator[pd.DataFrame]:
    """A Parquet file in DataFrames of at most ``chunksize`` rows."""
    import pyarrow.parquet as pq

    path = _existing_file(path)
    for batch in pq.ParquetFile(path).iter_batches(batch_size=chunksize):
        yield batch.to_pandas()


def count_parquet_rows(path: str | os.PathLike[str]) -> int:
    """Rows of a Parquet file, from its metadata (nothing is loaded)."""
    import pyarrow.parquet as pq

    return pq.ParquetFile(_existing_file(path)).metadata.num_rows

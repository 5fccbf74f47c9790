"""The one reader per file format: CSV / TSV, JSON, JSONL (each optionally ``.gz``) and Parquet -> records.

Text formats give rows ``(location, record)``: ``location`` names the line or item for messages,
``record`` is what the file holds there (normally a dict), or a ``Broken`` string saying why that
record could not be read. Broken records are skipped and listed in the load report by the table
builder (``corpus/table.py``); a file with no readable record at all is an error. ``read_corpus``,
the ``datasets`` loaders and the streaming reader all read files through this module.

    >>> rows = read_rows("papers.jsonl.gz")
    >>> rows[0]
    ('line 1', {'id': 'p1', 'abstract': '...'})
"""

from __future__ import annotations

import bz2
import contextlib
import csv
import gzip
import json
import lzma
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from icml_topics.corpus.errors import CorpusError, InputNotFoundError
from icml_topics.corpus.load_report import Issue, LoadReport

__all__ = [
    "BIBTEX_SUFFIXES",
    "INPUT_SUFFIXES",
    "LINE_SUFFIXES",
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

# The one list of input file formats, by suffix (a ``.gz`` after any of them is read through gzip):
#: one record per line: read whole or streamed in chunks (``corpus/streaming.py``)
LINE_SUFFIXES = (".jsonl", ".ndjson")
#: records parsed here: JSON, JSON lines, CSV, TSV
RECORD_SUFFIXES = (".json", *LINE_SUFFIXES, ".csv", ".tsv")
#: Parquet tables (read whole or streamed in row groups)
PARQUET_SUFFIXES = (".parquet", ".pq")
#: PMLR BibTeX, read by the ``datasets`` loader registered for it
BIBTEX_SUFFIXES = (".bib",)
#: every suffix ``read_corpus`` takes as a file name
INPUT_SUFFIXES = (*RECORD_SUFFIXES, *PARQUET_SUFFIXES, *BIBTEX_SUFFIXES)
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


# Compressed data is recognised by its magic bytes, whatever the file is named.
_COMPRESSED = {
    b"\x1f\x8b": ("gzip", gzip.decompress),
    b"BZh": ("bzip2", bz2.decompress),
    b"\xfd7zXZ\x00": ("xz", lzma.decompress),
}
_ARCHIVES = {
    b"PK\x03\x04": "a zip archive (unzip it first)",
    b"\x28\xb5\x2f\xfd": "zstd data (decompress it first: unzstd)",
}
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def decompress(raw: bytes, source: object) -> bytes:
    """``raw`` decompressed when it starts with gzip, bzip2 or xz magic bytes (else as it is)."""
    for magic, (name, inflate) in _COMPRESSED.items():
        if raw.startswith(magic):
            try:
                return inflate(raw)
            except (OSError, EOFError, ValueError, lzma.LZMAError) as exc:
                raise CorpusError(
                    f"{source} holds {name}-compressed data that cannot be decompressed ({exc}); re-download it."
                ) from exc
    for magic, what in _ARCHIVES.items():
        if raw.startswith(magic):
            raise CorpusError(f"{source} is {what}; pass the CSV / JSON / JSONL file inside it.")
    return raw


def decode_text(raw: bytes, source: object) -> str:
    """UTF-8 (a BOM allowed), or UTF-16 with its BOM; other bytes are an error that says what they look like."""
    if raw.startswith(_UTF16_BOMS):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise CorpusError(
                f"{source} starts with a UTF-16 byte-order mark but is not valid UTF-16 ({exc.reason}); "
                "re-save it as UTF-8."
            ) from exc
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        head = raw[:4096]
        if head and head.count(0) > len(head) // 4:  # every other byte NUL: UTF-16 without a BOM
            raise CorpusError(
                f"{source} looks like UTF-16 text without a byte-order mark (many NUL bytes). Re-save it as "
                "UTF-8, e.g. `iconv -f UTF-16LE -t UTF-8 in.csv > out.csv`."
            ) from exc
        raise CorpusError(
            f"{source} is not valid UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 4]!r}). "
            "Re-save it as UTF-8, e.g. `iconv -f latin1 -t utf-8 in.csv > out.csv` (if it was written as Latin-1)."
        ) from exc


def read_text(path: str | os.PathLike[str]) -> str:
    """The text of ``path``: decompressed when it is gzip / bzip2 / xz data (by its magic bytes), decoded
    as UTF-8 (or UTF-16 with a byte-order mark); clear errors when missing, another archive or not text."""
    path = _existing_file(path)
    return decode_text(decompress(path.read_bytes(), path), path)


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
        magic = fh.read(6)
    opener = open  # compressed data by its magic number, whatever the name
    if magic.startswith(_UTF16_BOMS) or any(magic.startswith(m) for m in _ARCHIVES):
        opener = None
    for prefix, module in ((b"\x1f\x8b", gzip), (b"BZh", bz2), (b"\xfd7zXZ\x00", lzma)):
        if magic.startswith(prefix):
            opener = module.open
    if opener is None:  # UTF-16 or an archive: read whole, for the message (or the UTF-16 text)
        rows = [(f"line {n}", value) for n, value in iter_jsonl(read_text(path))]
        for start in range(0, len(rows), chunksize):
            yield rows[start : start + chunksize]
        return
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


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _physical_lines(text: str) -> list[str]:
    """The file's physical lines, each with its ending (only \\r\\n, \\r and \\n end a line, as in CSV)."""
    return [m.group() for m in _LINE.finditer(text)]


_SHAPE_WORD, _SHAPE_DIGITS = re.compile(r"[^\W\d_]+"), re.compile(r"\d+")
_PANDAS_QUOTED = re.compile(r'"((?:[^"]|"")*"")(?:[^"]|"")*"')  # a whole cell quoted, inner quotes doubled


@contextlib.contextmanager
def _any_field_size() -> Iterator[None]:
    """Cells of any size (the csv module stops at 131,072 characters by default)."""
    old = csv.field_size_limit()
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    try:
        yield
    finally:
        csv.field_size_limit(old)


def _split_line(line: str, delimiter: str) -> list[str]:
    """One physical line split at ``delimiter`` with quotes as text (the TSV dialect)."""
    return line.rstrip("\r\n").split(delimiter)


def _quoted_records(lines: list[str], delimiter: str, width: int | None) -> Iterator[tuple[int, int, list[str], str]]:
    """``(first line index, end index, fields, note)`` of standard CSV quoting (RFC 4180).

    A quote that is never closed properly (strict parsing fails, or a value spanning lines leaves the
    record with the wrong number of fields) would swallow the lines after it: that record's first line
    is read with its quotes as text instead (``note`` says so) and parsing goes on at the next line.
    """
    i = 0
    while i < len(lines):
        start = i
        reader = csv.reader(lines[i:], delimiter=delimiter, strict=True)
        try:
            for row in reader:
                end = i + reader.line_num
                if width is None:
                    width = len(row)
                elif end - start > 1 and len(row) != width:
                    raise csv.Error("a quoted value spans lines, and the record has the wrong number of fields")
                yield start, end, row, ""
                start = end
            return
        except csv.Error:
            row = _split_line(lines[start], delimiter)
            yield start, start + 1, row, "an unmatched quote (read as text, so that it swallows no line)"
            width = len(row) if width is None else width
            i = start + 1


def _unescape(cell: str) -> str:
    """A whole cell quoted pandas / Excel style (inner quotes doubled) as its text; other quotes stay text."""
    return cell[1:-1].replace('""', '"') if _PANDAS_QUOTED.fullmatch(cell) else cell


def _shape(cell: str) -> str:
    return _SHAPE_WORD.sub("a", _SHAPE_DIGITS.sub("0", cell.strip()))[:24]


def _records(text: str, delimiter: str, quoted: bool) -> list[tuple[int, int, list[str], str]]:
    lines = _physical_lines(text)
    if quoted:
        with _any_field_size():
            return list(_quoted_records(lines, delimiter, None))
    return [(i, i + 1, [_unescape(c) for c in _split_line(line, delimiter)], "") for i, line in enumerate(lines)]


def _swallowed(records: list[tuple[int, int, list[str], str]], lines: list[str], delimiter: str, width: int) -> dict:
    """Records (by first line index) spanning lines of which some look like records of their own: same
    number of fields and a first field shaped like the other records' (an unmatched quote swallowed them)."""
    shapes = {_shape(row[0]) for start, end, row, _ in records[1:] if end - start == 1 and row}
    found = {}
    for start, end, _row, _note in records[1:]:
        if end - start > 1:
            inner = [_split_line(lines[j], delimiter) for j in range(start + 1, end)]
            n = sum(len(f) == width and f[0].strip() and _shape(f[0]) in shapes for f in inner)
            if n:
                found[start] = n
    return found


def _csv_rows(text: str, delimiter: str, quoting: bool, report: LoadReport | None = None) -> list[tuple[str, Any]]:
    """The records of delimited text. ``quoting``: standard CSV quoting (CSV); False: every line is one
    record and quotes are text (the TSV dialect; a whole cell quoted pandas-style is unquoted). A TSV that
    only reads with quoting (quoted values spanning lines) is read with quoting."""
    records = _records(text, delimiter, quoting)
    if not quoting:
        width = len(records[0][2]) if records else 0
        bad = sum(1 for _s, _e, row, _n in records[1:] if any(c.strip() for c in row) and len(row) != width)
        if bad:
            retry = _records(text, delimiter, True)
            width2 = len(retry[0][2]) if retry else 0
            bad2 = sum(1 for _s, _e, row, n in retry[1:] if (any(c.strip() for c in row) and len(row) != width2) or n)
            if bad2 < bad and not _swallowed(retry, _physical_lines(text), delimiter, width2):
                records = retry
    if not records:
        return []
    header = [name.strip() for name in records[0][2]]
    if not quoting:
        header = [name[1:-1] if len(name) > 1 and name[0] == name[-1] == '"' else name for name in header]
    lines = _physical_lines(text)
    swallowed = _swallowed(records, lines, delimiter, len(header))
    rows: list[tuple[str, Any]] = []
    for start, end, row, note in records[1:]:
        location = f"line {start + 1}" if end - start == 1 else f"lines {start + 1}-{end}"
        if not any(cell.strip() for cell in row):
            continue
        if report is not None and note:
            report.quoting.append(Issue(location, note))
        if report is not None and start in swallowed:
            report.quoting.append(
                Issue(
                    location,
                    f"read as one record of {end - start} lines, {swallowed[start]} of which look like records of "
                    "their own (an unmatched quote?); check the quotes there",
                )
            )
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
    path: str | os.PathLike[str],
    kind: str | None = None,
    *,
    sep: str | None = None,
    quoting: bool | None = None,
    report: LoadReport | None = None,
) -> list[tuple[str, Any]]:
    """``(location, record or Broken)`` for every record of a JSON / JSONL / CSV / TSV file (``.gz`` allowed).

    ``kind`` is the format suffix (``".jsonl"``...); by default it comes from the file name, and a
    name without a known suffix is read as JSON when its text starts with ``[`` or ``{``, else CSV.
    ``sep`` is the CSV field separator (default: tab for ``.tsv``, else detected from the header).
    ``quoting``: standard CSV quoting; default: on, except for tab-separated text, where quotes are text
    (the TSV dialect). Quoting problems (an unmatched quote) are listed in ``report.quoting``.
    """
    path = Path(path).expanduser()
    kind = kind or format_suffix(path)
    text = read_text(path)
    stripped = text.lstrip()
    if not stripped:
        raise CorpusError(f"{path} is empty: it holds no records.")
    if sep is None and kind not in (".csv", ".tsv") and (kind in RECORD_SUFFIXES or stripped[0] in "[{"):
        return _jsonl_or_json_rows(text, str(path), lines_first=kind != ".json")
    delimiter = sep or ("\t" if kind == ".tsv" else _sniff_separator(stripped))
    return _csv_rows(text, delimiter, delimiter != "\t" if quoting is None else quoting, report)


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

"""Read abstracts from files, DataFrames or lists into the corpus table.

Accepted inputs: CSV/TSV, JSON/JSONL (optionally ``.gz``), Parquet, PMLR BibTeX (``.bib``),
``pmlr:235``-style proceedings sources, a pandas DataFrame, a list of strings, or a list mixing
several of these (they are concatenated, e.g. two conference years).

    >>> corpus = read_corpus(["icml-2019.jsonl", "icml-2024.jsonl"])            # doctest: +SKIP
    >>> corpus = read_corpus(df, columns={"abstract": "summary", "year": "pub_year"})  # doctest: +SKIP
"""

from __future__ import annotations

import gzip
import io
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from icml_topics._sources import find_source
from icml_topics.schema import RESERVED_COLUMNS

__all__ = ["CORE_COLUMNS", "CorpusError", "read_corpus"]

CORE_COLUMNS = ("id", "venue", "year", "title", "abstract", "authors")

# Our name -> names other exports use for the same field (first match wins, case-insensitive).
_ALIASES: dict[str, tuple[str, ...]] = {
    "abstract": ("abstract", "summary", "paper_abstract", "paperabstract", "abstract_text", "text"),
    "title": ("title", "paper_title", "name"),
    "year": ("year", "pub_year", "publication_year"),
    "venue": ("venue", "conference", "booktitle"),
    "id": ("id", "paper_id", "paperid", "uid", "key"),
    "authors": ("authors", "author", "author_names"),
}

Source = str | os.PathLike | pd.DataFrame


class CorpusError(ValueError):
    """The input cannot be read as a corpus; the message says what is wrong and how to fix it."""


def read_corpus(
    source: Source | Sequence[Source] | Sequence[str],
    *,
    columns: Mapping[str, str] | None = None,
    venue: str | None = None,
    year: int | None = None,
    sep: str | None = None,
) -> pd.DataFrame:
    """Read one or several inputs into the corpus table (columns ``id, venue, year, title, abstract, authors``).

    Args:
        source: a path, a ``pmlr:<volume>`` source, a DataFrame, a list of abstracts (strings),
            or a list of paths/DataFrames to concatenate.
        columns: our column name -> your column name, e.g. ``{"abstract": "summary"}``.
        venue, year: fill these columns where the input has no value (e.g. a CSV of one conference).
        sep: the field separator of CSV files; ``None`` detects ``,``, ``;``, ``|`` or tab from the header.

    Every input row is kept, in order, including rows with empty abstracts (the model drops and
    reports those). Raises :class:`CorpusError` with the fix when the input cannot be used.
    """
    if isinstance(source, Mapping):
        source = _frame_from_mapping(source)
    if isinstance(source, pd.DataFrame):
        frames = [_standardize(source, columns, origin="DataFrame")]
    elif isinstance(source, (str, os.PathLike)):
        frames = [_read_one(source, columns, sep)]
    elif isinstance(source, Iterable) and not isinstance(source, bytes):
        items = list(source)
        if not items:
            raise CorpusError("The input is empty: pass a file, a DataFrame or a non-empty list of abstracts.")
        if all(s is None or (isinstance(s, str) and not _looks_like_path(s)) for s in items):
            frame = pd.DataFrame({"abstract": pd.array(items, dtype="string")})
            frames = [_standardize(frame, None, origin="list", id_prefix="doc")]
        else:
            bad = next(
                ((i, s) for i, s in enumerate(items) if not isinstance(s, (str, os.PathLike, pd.DataFrame))), None
            )
            if bad is not None:
                raise CorpusError(
                    f"Item {bad[0]} of the input list is {type(bad[1]).__name__} ({bad[1]!r:.40}): a list must hold "
                    "abstracts (strings), or file paths / DataFrames to combine."
                )
            frames = [
                _standardize(s, columns, origin=f"input {i}")
                if isinstance(s, pd.DataFrame)
                else _read_one(s, columns, sep)
                for i, s in enumerate(items)
            ]
    else:
        raise CorpusError(
            f"Cannot read a corpus from {type(source).__name__}: pass a path, a pandas DataFrame or a list of strings."
        )
    corpus = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    if venue is not None:
        corpus["venue"] = corpus["venue"].fillna(venue)
    if year is not None:
        corpus["year"] = corpus["year"].fillna(year).astype("Int64")
    return _dedupe_ids(corpus)


def _frame_from_mapping(mapping: Mapping) -> pd.DataFrame:
    """A dict of columns (``{"abstract": [...], "year": [...]}``) as a DataFrame."""
    lengths = {len(v) for v in mapping.values() if isinstance(v, (list, tuple, pd.Series)) or hasattr(v, "__array__")}
    if not mapping or len(lengths) != 1 or any(isinstance(v, (str, bytes)) for v in mapping.values()):
        raise CorpusError(
            "A dict is read as columns of equal length, e.g. {'abstract': [...], 'year': [...]}; "
            "for anything else build a pandas DataFrame first (pd.DataFrame(...))."
        )
    return pd.DataFrame(dict(mapping))


def _looks_like_path(text: str) -> bool:
    if "\n" in text or len(text) > 400:
        return False
    if text.startswith(("pmlr:", "icml:")):
        return True
    return Path(text).suffix.lower() in {".csv", ".tsv", ".jsonl", ".json", ".gz", ".parquet", ".pq", ".bib"}


def _read_one(path_like: str | os.PathLike, columns: Mapping[str, str] | None, sep: str | None = None) -> pd.DataFrame:
    spec = os.fspath(path_like)
    load_source = find_source(spec)  # pmlr:/icml:/openreview: specs and BibTeX, registered by datasets/
    if load_source is not None:
        return _standardize(load_source(spec), columns, origin=spec)
    path = Path(spec)
    if not path.exists():
        raise CorpusError(f"Input file not found: {path}. Check the path (relative paths start at {Path.cwd()}).")
    if path.is_dir():
        raise CorpusError(f"{path} is a folder: pass the data files inside it (e.g. {path}/*.jsonl).")
    suffixes = [s.lower() for s in path.suffixes]
    kind = (
        suffixes[-2] if suffixes and suffixes[-1] == ".gz" and len(suffixes) > 1 else (suffixes[-1] if suffixes else "")
    )
    if kind == ".parquet" or kind == ".pq":
        try:
            frame = pd.read_parquet(path)
        except Exception as exc:
            raise CorpusError(f"Cannot read {path} as Parquet ({exc}). Is it a Parquet file?") from exc
    else:
        text = _read_text(path)
        frame = _parse_text(text, kind, path, sep)
    return _standardize(frame, columns, origin=str(path), id_prefix=_stem(path))


def _stem(path: Path) -> str:
    name = path.name
    for suffix in reversed(path.suffixes):
        name = name[: -len(suffix)] if name.endswith(suffix) else name
    return name or "doc"


def _read_text(path: Path) -> str:
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


def _parse_text(text: str, kind: str, path: Path, sep: str | None = None) -> pd.DataFrame:
    stripped = text.lstrip()
    if not stripped:
        raise CorpusError(f"{path} is empty: it holds no records.")
    if sep is None and (kind in {".jsonl", ".json", ".ndjson"} or stripped[0] in "[{"):
        if stripped[0] == "[":
            try:
                return pd.DataFrame(json.loads(stripped))
            except json.JSONDecodeError as exc:
                raise CorpusError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg}).") from exc
        records = []
        for lineno, line in enumerate(text.split("\n"), start=1):  # not splitlines(): U+2029 occurs inside abstracts
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                if lineno == 1 and stripped[0] == "{":
                    try:  # a single JSON object holding a list of records, e.g. {"papers": [...]}
                        return _records_from_object(json.loads(stripped), path)
                    except json.JSONDecodeError:
                        pass
                raise CorpusError(
                    f"{path}, line {lineno}: not valid JSON ({exc.msg}). Fix or remove that line; "
                    "JSONL files hold one JSON object per line."
                ) from exc
        return pd.DataFrame.from_records(records)
    sep = sep or ("\t" if kind == ".tsv" else _sniff_separator(stripped))
    try:
        return pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False, na_values=[""])
    except pd.errors.ParserError as exc:
        raise CorpusError(
            f"Cannot parse {path} as {'TSV' if sep == chr(9) else 'CSV'} separated by {sep!r}: {' '.join(str(exc).split())}. "
            "If its fields are separated by another character, pass it with --sep (sep= in Python)."
        ) from exc


def _sniff_separator(text: str) -> str:
    """``,`` unless the header line holds none and another usual separator (``;``, tab, ``|``) instead."""
    header = text.split("\n", 1)[0]
    if "," in header:
        return ","
    counts = {c: header.count(c) for c in (";", "\t", "|")}
    best = max(counts, key=counts.get)
    return best if counts[best] else ","


def _records_from_object(obj: object, path: Path) -> pd.DataFrame:
    if isinstance(obj, dict):
        lists = [v for v in obj.values() if isinstance(v, list)]
        if len(lists) == 1:
            return pd.DataFrame(lists[0])
    raise CorpusError(f"{path} holds one JSON object, not a list of records; expected JSONL or a JSON array.")


def _find_column(frame: pd.DataFrame, ours: str, columns: Mapping[str, str] | None) -> str | None:
    if columns and ours in columns:
        theirs = columns[ours]
        if theirs not in frame.columns:
            raise CorpusError(
                f"Column {theirs!r} (given for {ours!r}) is not in the input. Columns found: {list(frame.columns)}."
            )
        return theirs
    lowered = {str(c).lower(): c for c in frame.columns}
    for alias in _ALIASES[ours]:
        if alias in lowered:
            return lowered[alias]
    return None


def _standardize(
    frame: pd.DataFrame, columns: Mapping[str, str] | None, *, origin: str, id_prefix: str = "doc"
) -> pd.DataFrame:
    if len(frame) == 0:
        raise CorpusError(f"{origin} holds no rows.")
    found = {ours: _find_column(frame, ours, columns) for ours in CORE_COLUMNS}
    if found["abstract"] is None:
        raise CorpusError(
            f"{origin} has no abstract column. Columns found: {list(map(str, frame.columns))}. "
            "Name the column holding the text, e.g. columns={'abstract': 'summary'} "
            "(CLI: --abstract-column summary)."
        )
    out = pd.DataFrame(index=range(len(frame)))
    src = frame.reset_index(drop=True)
    out["id"] = src[found["id"]].astype("string") if found["id"] else pd.array([pd.NA] * len(src), dtype="string")
    missing_id = out["id"].isna() | (out["id"].str.strip() == "")
    out.loc[missing_id, "id"] = [f"{id_prefix}-{i}" for i in range(len(src)) if missing_id.iloc[i]]
    out["venue"] = (
        src[found["venue"]].astype("string") if found["venue"] else pd.array([pd.NA] * len(src), dtype="string")
    )
    out["year"] = _to_year(src[found["year"]], origin) if found["year"] else pd.array([pd.NA] * len(src), dtype="Int64")
    out["title"] = (
        src[found["title"]].astype("string") if found["title"] else pd.array([pd.NA] * len(src), dtype="string")
    )
    out["abstract"] = src[found["abstract"]].astype("string").fillna("")
    out["authors"] = (
        src[found["authors"]].map(_join_authors).astype("string")
        if found["authors"]
        else pd.array([pd.NA] * len(src), dtype="string")
    )
    used = {c for c in found.values() if c is not None}
    for col in src.columns:
        if col not in used and col not in out.columns:
            # an input column named like one the model writes (e.g. a Poster/Oral "status") is kept
            # as "input_<name>" so that nothing is overwritten
            out[f"input_{col}" if col in RESERVED_COLUMNS else col] = src[col]
    return out


YEAR_RANGE = (1800, 2200)


def _to_year(values: pd.Series, origin: str) -> pd.Series:
    """Years as nullable integers; blanks and NaN are missing; booleans, fractions and years outside
    ``YEAR_RANGE`` are errors."""
    values = values.astype(object).where(values.notna(), None)
    values = values.map(lambda v: None if isinstance(v, str) and not v.strip() else v)
    missing = values.isna()
    years = pd.to_numeric(values.where(~values.map(lambda v: isinstance(v, (bool, np.bool_))), "x"), errors="coerce")
    low, high = YEAR_RANGE
    bad = ~missing & (years.isna() | (years % 1 != 0) | (years < low) | (years > high))
    if bad.any():
        raise CorpusError(
            f"{origin}: the year column holds values that are not years ({low}-{high}), e.g. {values[bad].iloc[0]!r} "
            f"in row {int(bad.to_numpy().argmax())}. Fix or blank them, or map another column with "
            "columns={'year': '<column>'} (CLI: --year-column)."
        )
    return years.astype("Float64").round().astype("Int64")


def _join_authors(value: object) -> object:
    if isinstance(value, (list, tuple)):
        return "; ".join(str(v) for v in value)
    if value is None or (isinstance(value, float) and value != value):
        return pd.NA
    if hasattr(value, "tolist"):
        return "; ".join(str(v) for v in value.tolist())
    return str(value)


def _dedupe_ids(corpus: pd.DataFrame) -> pd.DataFrame:
    """Make ids unique: a repeated id gets ``#1``, ``#2``, ... (skipping suffixes already in use)."""
    if not corpus["id"].duplicated().any():
        return corpus
    taken = set(corpus["id"])
    seen: set[str] = set()
    ids = []
    for value in corpus["id"]:
        if value in seen:
            n = 1
            while f"{value}#{n}" in taken:
                n += 1
            value = f"{value}#{n}"
            taken.add(value)
        seen.add(value)
        ids.append(value)
    corpus["id"] = pd.array(ids, dtype="string")
    return corpus

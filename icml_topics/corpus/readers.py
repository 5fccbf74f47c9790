"""Read abstracts from files, DataFrames or lists into the corpus table.

Accepted inputs: CSV/TSV, JSON/JSONL (optionally ``.gz``), Parquet, PMLR BibTeX (``.bib``),
``pmlr:235``-style proceedings sources, a pandas DataFrame, a list of strings, or a list mixing
several of these (they are concatenated, e.g. two conference years).

    >>> corpus = read_corpus(["icml-2019.jsonl", "icml-2024.jsonl"])
    >>> corpus = read_corpus(df, columns={"abstract": "summary", "year": "pub_year"})
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from icml_topics.corpus import record_files
from icml_topics.corpus.errors import CorpusError
from icml_topics.corpus.load_report import LoadReport
from icml_topics.corpus.table import fill_missing, rename_reserved, rows_to_frame, standardize, unique_ids
from icml_topics.schema import with_text_dtypes
from icml_topics.source_registry import find_source

__all__ = ["CorpusError", "read_corpus", "read_file"]

logger = logging.getLogger("icml_topics.datasets")

Source = str | os.PathLike | pd.DataFrame


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
        venue: fill the ``venue`` column where the input has no value (e.g. a CSV of one conference).
        year: fill the ``year`` column where the input has no value.
        sep: the field separator of CSV files; ``None`` detects ``,``, ``;``, ``|`` or tab from the header.

    Every input row is kept, in order, including rows with empty abstracts (the model drops and
    reports those); a repeated id is renamed ``<id>#1``, ``<id>#2``. A record that cannot be read (a
    broken JSONL line, a CSV row with the wrong number of fields) is skipped. A warning names both;
    [`read_file`][icml_topics.corpus.read_file] returns one file's table with the full list in ``df.attrs["load_report"]``.
    Raises [`CorpusError`][icml_topics.CorpusError] with the fix when the input cannot be used at all.

    Examples:
        >>> corpus = read_corpus(["icml-2024.jsonl.gz", "extra.csv"], venue="ICML")
        >>> corpus[["id", "year", "title"]].head()
    """
    if isinstance(source, Mapping):
        source = _frame_from_mapping(source)
    if isinstance(source, pd.DataFrame):
        frames = [_read_frame(source, columns, origin="DataFrame")]
    elif isinstance(source, (str, os.PathLike)):
        frames = [_read_one(source, columns, sep)]
    elif isinstance(source, Iterable) and not isinstance(source, bytes):
        items = list(source)
        if not items:
            raise CorpusError("The input is empty: pass a file, a DataFrame or a non-empty list of abstracts.")
        if all(s is None or (isinstance(s, str) and not _looks_like_path(s)) for s in items):
            frame = pd.DataFrame({"abstract": pd.array(items, dtype="string")})
            frames = [_read_frame(frame, None, origin="list")]
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
                _read_frame(s, columns, origin=f"input {i}")
                if isinstance(s, pd.DataFrame)
                else _read_one(s, columns, sep)
                for i, s in enumerate(items)
            ]
    else:
        raise CorpusError(
            f"Cannot read a corpus from {type(source).__name__}: pass a path, a pandas DataFrame or a list of strings."
        )
    return _combine(frames, venue=venue, year=year)


def _combine(frames: list[pd.DataFrame], *, venue: str | None, year: int | None) -> pd.DataFrame:
    """One table from the inputs' tables: their reports merged, ids unique across them, reserved names renamed."""
    reports = [frame.attrs.get("load_report") or LoadReport(source="input") for frame in frames]
    if len(frames) == 1:
        corpus, report = frames[0], reports[0]
        locations = None
    else:
        report = LoadReport.merge(reports, source=", ".join(r.source for r in reports))
        locations = [f"{r.source}: row {i}" for r, frame in zip(reports, frames) for i in range(len(frame))]
        corpus = pd.concat(frames, ignore_index=True)
    corpus.attrs = {}
    corpus = fill_missing(corpus, venue=venue, year=year)
    n_renamed = len(report.duplicates)
    corpus = with_text_dtypes(rename_reserved(unique_ids(corpus, report, locations), report))
    if len(report.duplicates) > n_renamed or report.renamed_columns:  # not seen by the inputs' own reports
        report.n_kept = len(corpus)
        report.log()
    # no df.attrs: they would follow the table into documents_ and its Parquet file (read_file keeps the report)
    corpus.attrs = {}
    return corpus


def _read_frame(frame: pd.DataFrame, columns: Mapping[str, str] | None, *, origin: str) -> pd.DataFrame:
    report = LoadReport(source=origin, n_read=len(frame))
    table, locations = standardize(frame, columns, origin=origin, report=report)
    return _finish(table, report, locations)


def _finish(table: pd.DataFrame, report: LoadReport, locations: list[str]) -> pd.DataFrame:
    """Apply the repeated-id rule within one input, count what was kept, warn about what was not."""
    table = unique_ids(table, report, locations)
    report.n_kept = len(table)
    report.n_missing_abstract = int((table["abstract"].str.strip() == "").sum())
    report.log()
    table.attrs["load_report"] = report
    return table


def read_file(
    path: str | os.PathLike,
    *,
    columns: Mapping[str, str] | None = None,
    sep: str | None = None,
    kind: str | None = None,
) -> pd.DataFrame:
    """One CSV / TSV / JSON / JSONL (``.gz``) / Parquet file as the corpus table, with its load report.

    ``kind`` is the format suffix (``".jsonl"``); by default it comes from the file name (and, for a name
    without a known suffix, from the text). Generated ids are ``<file stem>-<record number>``.

    Args:
        path: the file.
        columns: our column name -> your column name, e.g. ``{"abstract": "summary"}``.
        sep: the CSV field separator; ``None`` detects it from the header.
        kind: the format suffix, as above; ``None``: from the file name (or the text).

    Examples:
        >>> read_file("papers.tsv", columns={"abstract": "summary"}).columns.tolist()[:6]
        ['id', 'venue', 'year', 'title', 'abstract', 'authors']
    """
    path = Path(path).expanduser()
    kind = kind or record_files.format_suffix(path)
    report = LoadReport(source=str(path))
    if kind in record_files.PARQUET_SUFFIXES:
        frame = record_files.read_parquet(path)
        report.n_read = len(frame)
        locations, numbers = [f"row {i}" for i in range(len(frame))], None
    else:
        frame, locations = rows_to_frame(record_files.read_rows(path, kind, sep=sep, report=report), report)
        numbers = list(frame.index)
    table, locations = standardize(
        frame,
        columns,
        origin=str(path),
        report=report,
        id_prefix=record_files.file_stem(path),
        locations=locations,
        row_numbers=numbers,
    )
    return _finish(table, report, locations)


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
    return Path(text).suffix.lower() in (*record_files.INPUT_SUFFIXES, ".gz")


def _read_one(path_like: str | os.PathLike, columns: Mapping[str, str] | None, sep: str | None = None) -> pd.DataFrame:
    spec = os.fspath(path_like)
    load_source = find_source(spec)  # pmlr:/icml:/openreview: specs and BibTeX, registered by datasets/
    if load_source is not None:
        loaded = load_source(spec)
        report = loaded.attrs.get("load_report") or LoadReport(source=spec, n_read=len(loaded))
        table, locations = standardize(loaded, columns, origin=spec, report=report)
        table.attrs["load_report"] = report
        return table
    return read_file(spec, columns=columns, sep=sep)

"""The corpus table (docs/architecture.md, "Corpus table"): the one column contract every reader ends in.

Every input (a file, a DataFrame, a list of abstracts, a proceedings loader's records) passes through
``standardize`` (our columns found by name, alias or mapping; types checked; ids generated) and
``unique_ids`` (the one repeated-id rule). The rules, one each:

- **Repeated ids**: every input row is kept; a row whose id repeats an earlier one is renamed
  ``<id>#1``, ``<id>#2``, ... and listed in the load report's ``duplicates``.
- **Unreadable records** (a broken JSONL line, a CSV row with the wrong number of fields, an item
  that is not an object, a title that is a list): skipped and listed in the load report's
  ``skipped`` with their line, and a warning names them; an input with no readable record is an error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from icml_topics.corpus.errors import CorpusError
from icml_topics.corpus.load_report import Issue, LoadReport
from icml_topics.corpus.record_files import Broken
from icml_topics.schema import CONTROL_CHARACTERS, CORPUS_COLUMNS, RESERVED_COLUMNS, join_cell, printable

__all__ = ["ALIASES", "YEAR_RANGE", "fill_missing", "rename_reserved", "rows_to_frame", "standardize", "unique_ids"]

# Our name -> names other exports use for the same field (first match wins, case-insensitive).
ALIASES: dict[str, tuple[str, ...]] = {
    "abstract": ("abstract", "summary", "paper_abstract", "paperabstract", "abstract_text", "text"),
    "title": ("title", "paper_title", "name"),
    "year": ("year", "pub_year", "publication_year"),
    "venue": ("venue", "conference", "booktitle"),
    "id": ("id", "paper_id", "paperid", "uid", "key"),
    "authors": ("authors", "author", "author_names"),
}
YEAR_RANGE = (1800, 2200)
_TEXT_COLUMNS = ("id", "venue", "title", "abstract")
_SHOWN = 3


def _missing(value: Any) -> bool:
    if value is None or value is pd.NA:
        return True
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, float) and value != value


def rows_to_frame(
    rows: Sequence[tuple[str, Any]], report: LoadReport, *, allow_empty: bool = False
) -> tuple[pd.DataFrame, list[str]]:
    """The readable records of ``rows`` as a DataFrame (index = position in ``rows``) and their locations.

    Broken records and records that are not objects are listed in ``report.skipped``; no readable
    record at all is an error naming the first broken ones, unless ``allow_empty``.
    """
    records, locations, positions = [], [], []
    for position, (location, raw) in enumerate(rows):
        report.n_read += 1
        if isinstance(raw, Broken):
            report.skipped.append(Issue(location, str(raw)))
        elif not isinstance(raw, dict):
            report.skipped.append(Issue(location, f"is a JSON {type(raw).__name__}, expected an object"))
        else:
            records.append(raw)
            locations.append(location)
            positions.append(position)
    if not records and allow_empty:
        return pd.DataFrame(), []
    if not records:
        shown = "; ".join(map(str, report.skipped[:_SHOWN]))
        raise CorpusError(f"{report.source} holds no readable record" + (f" ({shown})." if shown else "."))
    keys = list(dict.fromkeys(key for record in records for key in record))
    data = {}
    for key in keys:
        values = [record.get(key) for record in records]
        present = [v for v in values if not _missing(v)]
        if present and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in present):
            data[key] = pd.array([None if _missing(v) else int(v) for v in values], dtype="Int64")
        else:
            data[key] = pd.Series(values, dtype=object, index=positions)
    return pd.DataFrame(data, index=positions), locations


def _find_column(frame: pd.DataFrame, ours: str, columns: Mapping[str, str] | None) -> str | None:
    if columns and ours in columns:
        theirs = columns[ours]
        if theirs not in frame.columns:
            raise CorpusError(
                f"Column {theirs!r} (given for {ours!r}) is not in the input. Columns found: {list(frame.columns)}."
            )
        return theirs
    lowered: dict[str, Any] = {}
    for column in frame.columns:  # an exact name wins over another capitalisation of it
        lowered.setdefault(str(column).lower(), column)
        if str(column) == str(column).lower():
            lowered[str(column)] = column
    taken = set((columns or {}).values())
    for alias in ALIASES[ours]:
        if alias in lowered and lowered[alias] not in taken:
            return lowered[alias]
    return None


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


def _scalar_text(value: Any) -> Any:
    """A cell as text: bytes decoded as UTF-8 (a BOM dropped), a list of parts joined with spaces."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8-sig")
    if isinstance(value, (list, tuple, np.ndarray)):
        parts = [_scalar_text(v) for v in list(value) if not _missing(v)]
        return " ".join(str(p) for p in parts if not _missing(p))
    return value


def _text(value: Any) -> Any:
    value = _scalar_text(value)
    return pd.NA if _missing(value) else printable(str(value))


def _id_text(value: Any) -> Any:
    value = _scalar_text(value)
    return pd.NA if _missing(value) else str(value).strip()


def _authors(value: Any) -> Any:
    if isinstance(value, (list, tuple, np.ndarray)):
        return printable(join_cell([_scalar_text(v) for v in list(value)])) or pd.NA
    value = _scalar_text(value)
    return pd.NA if _missing(value) else printable(str(value))


def _check_ids(ids: pd.Series, origin: str, locations: Sequence[str]) -> None:
    """An id is a key that joins tables: one holding a control character (a NUL, an ESC) would be cut short
    or changed by the readers of the output files, so it is refused, never rewritten."""
    bad = [
        i
        for i, v in enumerate(ids.tolist())
        if isinstance(v, str) and (CONTROL_CHARACTERS.search(v) or any(c in v for c in "\t\n\r"))
    ]
    if bad:
        shown = ", ".join(f"{locations[i]} ({ids.iloc[i]!r})" for i in bad[:3]) + (" ..." if len(bad) > 3 else "")
        raise CorpusError(
            f"{origin}: {len(bad)} id(s) hold a control character (a NUL, an escape sequence, a tab or line break, ...): {shown}. An id "
            "must survive every output file unchanged, so it is never rewritten: remove those characters from the "
            "ids (pandas: df['id'] = df['id'].str.replace(r'[\\x00-\\x1f\\x7f-\\x9f]', '', regex=True)), or "
            "leave the id column out (ids are then made from the row numbers)."
        )


def _printable_cells(values: pd.Series) -> pd.Series:
    """A column the corpus passes through, its text cells without control characters (``schema.printable``)."""
    if values.dtype != object and not pd.api.types.is_string_dtype(values.dtype):
        return values
    if not any(isinstance(v, str) and CONTROL_CHARACTERS.search(v) for v in values.tolist()):
        return values
    return values.map(printable)


def _bad_cell(ours: str, value: Any) -> str | None:
    """Why a value cannot stand in column ``ours``: text columns hold text, bytes (UTF-8) or a list of text
    parts (joined); a mapping, a set, nested lists or bytes that are not UTF-8 cannot be read as text."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            bytes(value).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            return f"{ours!r} holds bytes that are not UTF-8 (byte {exc.start}); decode them before reading"
        return None
    if isinstance(value, (list, tuple, np.ndarray)):
        parts = list(value)
        if all(_missing(v) or isinstance(v, (str, bytes, int, float, np.generic)) for v in parts):
            reasons = [reason for v in parts if (reason := _bad_cell(ours, v))]
            return reasons[0] if reasons else None
        return f"{ours!r} is a list holding {type(parts[0]).__name__} values, expected text"
    if isinstance(value, (dict, set)):
        return f"{ours!r} is a {type(value).__name__}, expected {'a list of names or text' if ours == 'authors' else 'text'}"
    return None


def _drop_bad_cells(
    src: pd.DataFrame, found: dict[str, Any], locations: list[str], report: LoadReport
) -> tuple[pd.DataFrame, list[str]]:
    """Rows whose core fields hold nested values (a dict as title, ...) are unreadable records: skipped."""
    bad: dict[int, str] = {}
    for ours, theirs in found.items():
        if theirs is None or ours == "year" or src[theirs].dtype != object:
            continue
        for i, value in enumerate(src[theirs].tolist()):
            reason = _bad_cell(ours, value)
            if reason and i not in bad:
                bad[i] = reason
    if not bad:
        return src, locations
    for i in sorted(bad):
        report.skipped.append(Issue(locations[i], bad[i]))
    keep = [i for i in range(len(src)) if i not in bad]
    if not keep:
        shown = "; ".join(map(str, report.skipped[:_SHOWN]))
        raise CorpusError(f"{report.source} holds no readable record ({shown}).")
    return src.iloc[keep], [locations[i] for i in keep]  # iloc keeps the positions as the index


def standardize(
    frame: pd.DataFrame,
    columns: Mapping[str, str] | None = None,
    *,
    origin: str,
    report: LoadReport,
    id_prefix: str = "doc",
    locations: Sequence[str] | None = None,
    row_numbers: Sequence[int] | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """``frame`` as the corpus table (``id, venue, year, title, abstract, authors``, then its other columns),
    and the location of each of its rows.

    Args:
        columns: our column name -> the input's name; unmapped ones are found by ``ALIASES``.
        origin: names the input in messages.
        report: the load report; unreadable rows are added to ``report.skipped``.
        id_prefix, row_numbers: a missing id becomes ``<id_prefix>-<row number>`` (default: the row position).
        locations: where each row stands in the input, for the report (default ``row <i>``).

    An input column with one of our names that a mapping replaced is kept as ``original_<name>``.
    """
    if len(frame) == 0:
        raise CorpusError(f"{origin} holds no rows.")
    found = {ours: _find_column(frame, ours, columns) for ours in CORPUS_COLUMNS}
    if found["abstract"] is None:
        raise CorpusError(
            f"{origin} has no abstract column. Columns found: {list(map(str, frame.columns))}. "
            "Name the column holding the text, e.g. columns={'abstract': 'summary'} "
            "(CLI: --abstract-column summary)."
        )
    numbers = list(row_numbers) if row_numbers is not None else list(range(len(frame)))
    src = frame.reset_index(drop=True)
    src, kept_locations = _drop_bad_cells(src, found, list(locations or [f"row {i}" for i in numbers]), report)
    kept_numbers = [numbers[i] for i in src.index]
    src = src.reset_index(drop=True)
    n = len(src)
    out = pd.DataFrame(index=range(n))
    for ours in CORPUS_COLUMNS:
        theirs = found[ours]
        if ours == "year":
            out[ours] = _to_year(src[theirs], origin) if theirs else pd.array([pd.NA] * n, dtype="Int64")
        elif ours == "authors":
            out[ours] = src[theirs].map(_authors).astype("string") if theirs else pd.array([pd.NA] * n, dtype="string")
        elif theirs:
            out[ours] = src[theirs].map(_id_text if ours == "id" else _text).astype("string")
        else:
            out[ours] = pd.array([pd.NA] * n, dtype="string")
    out["abstract"] = out["abstract"].fillna("")
    _check_ids(out["id"], origin, kept_locations)
    missing_id = out["id"].isna().to_numpy()
    out.loc[missing_id, "id"] = [f"{id_prefix}-{kept_numbers[i]}" for i in np.flatnonzero(missing_id)]
    used = {c for c in found.values() if c is not None}
    for col in frame.columns:
        if col in used:
            continue
        name = f"original_{col}" if col in CORPUS_COLUMNS else col
        if name not in out.columns:
            out[name] = _printable_cells(src[col]).array
    return out, kept_locations


def unique_ids(
    corpus: pd.DataFrame,
    report: LoadReport,
    locations: Sequence[str] | None = None,
    earlier: dict[str, str] | None = None,
) -> pd.DataFrame:
    """The one repeated-id rule: keep every row; a repeated id becomes ``<id>#1``, ``<id>#2``, ... (skipping
    suffixes already in use), and each renamed row is listed in ``report.duplicates``.

    ``earlier`` (id -> location) holds the ids of rows read before this table (the chunks of a stream);
    it is updated with this table's ids.
    """
    earlier = {} if earlier is None else earlier
    ids = corpus["id"].tolist()
    where = list(locations) if locations is not None else [f"row {i}" for i in range(len(ids))]
    if len(set(ids)) == len(ids) and not earlier.keys() & set(ids):
        earlier.update(zip(ids, where))
        return corpus
    core = corpus[[c for c in CORPUS_COLUMNS if c != "id"]].astype(object)
    values = list(core.where(core.notna(), None).itertuples(index=False, name=None))
    taken = set(ids) | earlier.keys()
    first: dict[str, int] = {}
    renamed = []
    for i, value in enumerate(ids):
        if value in first or value in earlier:
            n = 1
            while f"{value}#{n}" in taken:
                n += 1
            new = f"{value}#{n}"
            taken.add(new)
            if value in first:
                same = " (identical copy)" if values[i] == values[first[value]] else " (this copy differs from it)"
                before = where[first[value]]
            else:
                same, before = "", earlier[value]
            report.duplicates.append(Issue(where[i], f"repeats the id {value!r} of {before}; kept as {new!r}{same}"))
            value = new
        first.setdefault(value, i)
        renamed.append(value)
    earlier.update(zip(renamed, where))
    corpus["id"] = pd.array(renamed, dtype="string")
    return corpus


def fill_missing(corpus: pd.DataFrame, *, venue: str | None = None, year: int | None = None) -> pd.DataFrame:
    """``venue`` and ``year`` where a row has none (e.g. a CSV of one conference)."""
    if venue is not None:
        corpus["venue"] = corpus["venue"].fillna(venue)
    if year is not None:
        corpus["year"] = corpus["year"].fillna(year).astype("Int64")
    return corpus


def rename_reserved(corpus: pd.DataFrame, report: LoadReport | None = None) -> pd.DataFrame:
    """An input column named like one the model writes becomes ``input_<name>``, so that nothing is overwritten;
    an input ``status`` (OpenReview's oral / spotlight / poster / rejected) becomes ``decision`` unless the input
    has a ``decision`` column already. Each rename is noted in ``report.renamed_columns``."""
    clashes = {col: f"input_{col}" for col in corpus.columns if col in RESERVED_COLUMNS}
    if "status" in clashes and "decision" not in corpus.columns:
        clashes["status"] = "decision"
    if report is not None:
        report.renamed_columns.update(clashes)
    return corpus.rename(columns=clashes) if clashes else corpus

"""Records -> the corpus table (see docs/architecture.md, "Corpus table"): the one builder every loader uses.

Loaders turn their input into ``Record`` objects (a location for messages plus a dict of fields)
and hand them to :func:`build_corpus`, which drops repeated ids (reporting them), adds the cleaned
analysis columns, fixes column order and dtypes, and attaches the load report.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from icml_topics.corpus.load_report import Issue, LoadReport
from icml_topics.corpus.markup import clean_markup
from icml_topics.corpus.readers import CORE_COLUMNS

__all__ = ["CLEAN_COLUMNS", "CORE_COLUMNS", "Record", "build_corpus", "join_list", "to_year"]

CLEAN_COLUMNS = ("title_clean", "abstract_clean")
AUTHOR_SEPARATOR = "; "
_PANDAS_MAJOR = int(pd.__version__.split(".")[0])


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
        items = [str(v).strip() for v in value if not is_missing(v)]
        return AUTHOR_SEPARATOR.join(items) if items else None
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


def _text_or_none(value: Any) -> str | None:
    return None if is_missing(value) else str(value)


def build_corpus(records: Iterable[Record], report: LoadReport, *, log: bool = True) -> pd.DataFrame:
    """Build the corpus DataFrame from ``records``; ``report.n_read`` must already count skipped ones.

    The first record with a given id is kept; later ones are listed in ``report.duplicates``.
    """
    seen: dict[str, tuple[str, dict[str, Any]]] = {}
    rows: list[dict[str, Any]] = []
    for record in records:
        fields = dict(record.fields)
        record_id = str(fields["id"]).strip()
        fields["id"] = record_id
        if record_id in seen:
            first_location, first_fields = seen[record_id]
            same = first_fields == fields
            reason = f"repeats the id of {first_location}, which is kept" + (
                " (identical copy)" if same else " (this copy differs from it)"
            )
            report.duplicates.append(Issue(record.location, reason))
            continue
        seen[record_id] = (record.location, fields)
        rows.append(fields)

    extra: list[str] = []
    for row in rows:
        for key in row:
            if key not in CORE_COLUMNS and key not in CLEAN_COLUMNS and key not in extra:
                extra.append(key)
    data: dict[str, Sequence[Any] | pd.api.extensions.ExtensionArray] = {
        "id": [row["id"] for row in rows],
        "venue": [_text_or_none(row.get("venue")) for row in rows],
        "year": pd.array([to_year(row.get("year")) for row in rows], dtype="Int64"),
        "title": [_text_or_none(row.get("title")) for row in rows],
        "abstract": [_text_or_none(row.get("abstract")) or "" for row in rows],
        "authors": [_text_or_none(join_list(row.get("authors"))) for row in rows],
    }
    data["title_clean"] = [clean_markup(title) for title in data["title"]]
    data["abstract_clean"] = [clean_markup(abstract) for abstract in data["abstract"]]
    for key in extra:
        values = [row.get(key) for row in rows]
        present = [v for v in values if not is_missing(v)]
        if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
            data[key] = pd.array([None if is_missing(v) else v for v in values], dtype="Int64")
        else:
            data[key] = values
    df = pd.DataFrame(data, index=pd.RangeIndex(len(rows)))
    if _PANDAS_MAJOR >= 3:  # all-missing columns would otherwise be object, not the str dtype
        for column in ("id", "venue", "title", "abstract", "authors", "title_clean", "abstract_clean"):
            df[column] = df[column].astype("str")
    report.n_kept = len(df)
    report.n_missing_abstract = int((df["abstract"].str.strip() == "").sum())
    df.attrs["load_report"] = report
    if log:
        report.log()
    return df

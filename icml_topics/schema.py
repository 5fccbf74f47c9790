"""Column names of the tables icml_topics reads and writes, and how list cells are written: the one place.

>>> from icml_topics.schema import DOCUMENT_COLUMNS
>>> DOCUMENT_COLUMNS[:3]
['id', 'venue', 'year']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = [
    "CLEAN_COLUMNS",
    "CORPUS_COLUMNS",
    "CSV_DOCUMENT_COLUMNS",
    "DOCUMENT_COLUMNS",
    "FLAG_COLUMNS",
    "MODEL_COLUMNS",
    "RESERVED_COLUMNS",
    "THEME_COLUMNS",
    "LIST_SEPARATOR",
    "join_cell",
    "split_cell",
]

#: what every reader delivers, in this order (``read_corpus`` and every ``datasets`` loader)
CORPUS_COLUMNS = ["id", "venue", "year", "title", "abstract", "authors"]
#: what the proceedings loaders add after them: title and abstract with LaTeX / markup turned into text
CLEAN_COLUMNS = ["title_clean", "abstract_clean"]
#: why a row is or is not modelled (``corpus/validation.py``)
FLAG_COLUMNS = ["status", "drop_reason", "is_duplicate", "duplicate_of"]
#: a document's research theme, its probability, the runner-up and the evidence (``themes/assign.py``)
THEME_COLUMNS = ["theme", "theme_score", "theme_2", "theme_2_score", "theme_reason"]
#: what a fit adds to every row
MODEL_COLUMNS = ["topic", "topic_label", *THEME_COLUMNS, "x", "y"]
#: ``TopicMap.documents_`` (extra input columns follow these)
DOCUMENT_COLUMNS = [*CORPUS_COLUMNS, *FLAG_COLUMNS, *MODEL_COLUMNS]
#: ``documents.csv`` (abstracts and authors stay in the model folder and the report)
CSV_DOCUMENT_COLUMNS = ["id", "venue", "year", "title", *MODEL_COLUMNS, *FLAG_COLUMNS]
#: names an input column may not keep: it is renamed ``input_<name>`` (e.g. the shared files' ``status``)
RESERVED_COLUMNS = frozenset({"text", *FLAG_COLUMNS, *MODEL_COLUMNS})

#: how a list is written in one table cell (authors, keywords, representative titles in CSV)
LIST_SEPARATOR = "; "


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value) or type(value).__name__ == "NAType"


def join_cell(values: Iterable[Any]) -> str:
    """``["a", "b"]`` -> ``"a; b"`` (blank and missing items left out)."""
    return LIST_SEPARATOR.join(text for text in (str(v).strip() for v in values if not _missing(v)) if text)


def split_cell(text: str) -> list[str]:
    """``"a; b"`` -> ``["a", "b"]``: the inverse of :func:`join_cell`."""
    return [part.strip() for part in text.split(LIST_SEPARATOR.strip()) if part.strip()]

"""Column names of the tables icml_topics reads and writes: the one place that lists them.

>>> from icml_topics.schema import DOCUMENT_COLUMNS
>>> DOCUMENT_COLUMNS[:3]
['id', 'venue', 'year']
"""

from __future__ import annotations

__all__ = [
    "CORPUS_COLUMNS",
    "CSV_DOCUMENT_COLUMNS",
    "DOCUMENT_COLUMNS",
    "FLAG_COLUMNS",
    "MODEL_COLUMNS",
    "RESERVED_COLUMNS",
    "THEME_COLUMNS",
]

#: what every reader delivers (``corpus.readers.CORE_COLUMNS`` adds nothing to these)
CORPUS_COLUMNS = ["id", "venue", "year", "title", "abstract", "authors"]
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

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
    "REPRESENTATIVE_COLUMNS",
    "RESERVED_COLUMNS",
    "TEXT_COLUMNS",
    "THEME_COLUMNS",
    "THEME_TABLE_COLUMNS",
    "TOPIC_COLUMNS",
    "TOPIC_DTYPE",
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
#: the text columns of ``documents_`` (pandas ``string`` dtype in every fitted table)
TEXT_COLUMNS = [
    "id",
    "venue",
    "title",
    "abstract",
    "authors",
    "status",
    "drop_reason",
    "duplicate_of",
    "topic_label",
    "theme",
    "theme_2",
    "theme_reason",
]
#: dtype of ``topic`` in every table (nullable: a dropped row of ``documents_`` has no topic)
TOPIC_DTYPE = "Int64"
#: ``TopicMap.topics_`` (and ``topics.csv``)
TOPIC_COLUMNS = ["topic", "label", "theme", "theme_score", "theme_purity", "size", "keywords"]
#: ids and titles of each topic's papers nearest its centroid (lists, nearest first), after TOPIC_COLUMNS
REPRESENTATIVE_COLUMNS = ["representative_ids", "representative_titles"]
#: ``TopicMap.themes_`` (and ``themes.csv``)
THEME_TABLE_COLUMNS = ["theme", "description", "size", "share", "n_topics"]

"""Inputs: files, DataFrames and lists of strings -> the corpus table (see docs/architecture.md)."""

from icml_topics.corpus.cleaning import clean_text
from icml_topics.corpus.errors import CorpusError
from icml_topics.corpus.readers import read_corpus, read_file
from icml_topics.corpus.validation import flag_rows

__all__ = ["CorpusError", "clean_text", "flag_rows", "read_corpus", "read_file"]

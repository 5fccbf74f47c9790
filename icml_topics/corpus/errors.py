"""The errors of reading a corpus: each message says what is wrong and how to fix it."""

from __future__ import annotations

from icml_topics.errors import IcmlTopicsError

__all__ = ["CorpusError", "InputNotFoundError"]


class CorpusError(IcmlTopicsError, ValueError):
    """The input cannot be read as a corpus; the message says what is wrong and how to fix it.

    Examples:
        >>> read_corpus("empty.csv")
        Traceback (most recent call last):
        CorpusError: ...
    """


class InputNotFoundError(CorpusError, FileNotFoundError):
    """The input file does not exist (a [`CorpusError`][icml_topics.CorpusError] and a ``FileNotFoundError``)."""

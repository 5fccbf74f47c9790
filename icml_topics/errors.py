"""The errors icml_topics raises on purpose: one family, each message naming the value, the rule and the fix.

Every error the library raises deliberately (a bad parameter, an unreadable input, an unknown theme, a
model that is not available offline) is an :class:`IcmlTopicsError`, and also the built-in exception a
caller would expect (``ValueError``, ``TypeError``, ``KeyError``, ``FileNotFoundError``), so existing
``except ValueError`` code keeps working. The CLI prints these as one line; anything else is a bug and
shows its traceback (``--debug``: the whole of it).

    >>> from icml_topics.errors import IcmlTopicsError, InvalidValueError
    >>> issubclass(InvalidValueError, ValueError) and issubclass(InvalidValueError, IcmlTopicsError)
    True
"""

from __future__ import annotations

__all__ = ["IcmlTopicsError", "InvalidTypeError", "InvalidValueError", "MissingFileError", "UnknownNameError"]


class IcmlTopicsError(Exception):
    """Base of every error icml_topics raises on purpose; the message says what is wrong and how to fix it.

    Example:
        >>> from icml_topics import IcmlTopicsError, TopicMap
        >>> try:
        ...     TopicMap(min_topic_size=-1).fit(["We study bandits.", "We study graphs."])
        ... except IcmlTopicsError as err:
        ...     print(type(err).__name__)
        InvalidValueError
    """


class InvalidValueError(IcmlTopicsError, ValueError):
    """A value breaks a rule (a parameter out of range, a malformed table or taxonomy)."""


class InvalidTypeError(IcmlTopicsError, TypeError):
    """A value of the wrong kind (a string where a list of strings belongs, an object without the needed method)."""


class UnknownNameError(IcmlTopicsError, KeyError):
    """A theme, topic or column that does not exist; the message lists the known ones."""


class MissingFileError(IcmlTopicsError, FileNotFoundError):
    """A file the caller named (a taxonomy, a saved model, a download) is not there."""

"""The errors icml_topics raises on purpose: one family, each message naming the value, the rule and the fix.

Every error the library raises deliberately (a bad parameter, an unreadable input, an unknown theme, a
model that is not available offline) is an [`IcmlTopicsError`][icml_topics.IcmlTopicsError], and also the built-in exception a
caller would expect (``ValueError``, ``TypeError``, ``KeyError``, ``FileNotFoundError``), so existing
``except ValueError`` code keeps working. The CLI prints these as one line; anything else is a bug and
shows its traceback (``--debug``: the whole of it).

    >>> from icml_topics.errors import IcmlTopicsError, InvalidValueError
    >>> issubclass(InvalidValueError, ValueError) and issubclass(InvalidValueError, IcmlTopicsError)
    True
"""

from __future__ import annotations

from sklearn.exceptions import NotFittedError as SklearnNotFittedError

__all__ = [
    "IcmlTopicsError",
    "InvalidTypeError",
    "InvalidValueError",
    "MissingFileError",
    "NotFittedError",
    "OutputWriteError",
    "UnknownNameError",
    "check_fitted",
]


class IcmlTopicsError(Exception):
    """Base of every error icml_topics raises on purpose; the message says what is wrong and how to fix it.

    Examples:
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


class OutputWriteError(IcmlTopicsError, OSError):
    """An output folder cannot be written (a full disk, a quota, no permission): the message names the folder,
    says that the earlier output there is intact, and how to go on; nothing half-written is left behind."""


class NotFittedError(IcmlTopicsError, SklearnNotFittedError):
    """A method that needs a fitted model was called before ``fit`` or ``TopicMap.load`` (scikit-learn's
    ``NotFittedError``, so ``except sklearn.exceptions.NotFittedError`` catches it too).

    Examples:
        >>> from icml_topics import NotFittedError, TopicMap
        >>> try:
        ...     TopicMap().transform(["We study bandits."])
        ... except NotFittedError as err:
        ...     print(err)
        This TopicMap is not fitted yet: call .fit(corpus) or TopicMap.load(path) first.
    """


def check_fitted(model: object) -> None:
    """Raise [`NotFittedError`][icml_topics.NotFittedError] unless ``model`` has been fitted (or loaded): it has ``state_``.

    Examples:
        >>> from icml_topics import TopicMap
        >>> check_fitted(TopicMap())
        Traceback (most recent call last):
        ...
        icml_topics.errors.NotFittedError: This TopicMap is not fitted yet: call .fit(corpus) or TopicMap.load(path) first.
    """
    if not hasattr(model, "state_"):
        name = type(model).__name__
        raise NotFittedError(f"This {name} is not fitted yet: call .fit(corpus) or {name}.load(path) first.")

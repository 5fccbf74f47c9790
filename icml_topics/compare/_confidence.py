"""``level=`` -> ``confidence=``: the old name of the confidence level, accepted for one more release.

``level`` now means a level of the topic tree only; a trend function that took ``level=`` for the confidence
of its intervals takes ``confidence=``. ``accepts_level`` lets the old keyword through with a
``DeprecationWarning`` that names the new one.

Examples:
    >>> import warnings
    >>> @accepts_level
    ... def interval(n, *, confidence=0.95):
    ...     return confidence
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     interval(3, level=0.9)
    0.9
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from icml_topics.errors import InvalidTypeError

__all__ = ["accepts_level"]

F = TypeVar("F", bound=Callable[..., Any])


def accepts_level(func: F) -> F:
    """Let ``func`` (which takes ``confidence=``) be called with ``level=`` meaning the confidence level,
    warning with a ``DeprecationWarning`` that names ``confidence=``; passing both is an error."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if "level" in kwargs:
            value = kwargs.pop("level")
            if "confidence" in kwargs:
                raise InvalidTypeError(
                    f"{func.__name__}() got level={value!r} and confidence={kwargs['confidence']!r}; pass "
                    "confidence= only (level= is its deprecated name)."
                )
            warnings.warn(
                f"{func.__name__}(level=...) is deprecated and will be removed in the next release: the confidence "
                f"level of the intervals is confidence= (level names a tree level); pass confidence={value!r}.",
                DeprecationWarning,
                stacklevel=2,
            )
            kwargs["confidence"] = value
        return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]

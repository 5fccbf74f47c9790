"""Input sources that ``read_corpus`` accepts besides files and tables: the public extension point
(``icml_topics.register_source``).

``corpus/`` reads files and tables; loaders that know other sources (PMLR volumes, ``icml:2024``,
BibTeX, OpenReview notes: ``datasets/``) register here, so that ``corpus`` never imports them.
``icml_topics/__init__.py`` registers the built-in ``datasets`` loaders (imported on first use).

    >>> register_source("my-db", lambda spec: spec.startswith("mydb:"), load_from_my_db)
    >>> read_corpus("mydb:icml-2024")
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["find_source", "register_source", "registered_sources", "unregister_source"]

_SOURCES: dict[str, tuple[Callable[[str], bool], Callable[[str], Any]]] = {}


def register_source(name: str, matches: Callable[[str], bool], load: Callable[[str], Any]) -> None:
    """Let ``read_corpus`` read strings for which ``matches(spec)`` is true with ``load(spec)`` (a DataFrame).

    Args:
        name: the source's name; registering a name again replaces the earlier source.
        matches: ``matches(spec)`` is true for the strings this source reads (e.g. a prefix test).
        load: ``load(spec)`` returns the corpus as a DataFrame (columns as ``read_corpus`` reads them).

    Examples:
        >>> register_source("arxiv", lambda s: s.startswith("arxiv:"), load_arxiv)
        >>> read_corpus("arxiv:cs.LG")
    """
    _SOURCES[name] = (matches, load)


def unregister_source(name: str) -> None:
    """Forget the source registered as ``name`` (nothing happens when there is none)."""
    _SOURCES.pop(name, None)


def registered_sources() -> list[str]:
    """The names of the registered sources, in registration order (``"datasets"``: the built-in loaders)."""
    return list(_SOURCES)


def find_source(spec: str) -> Callable[[str], Any] | None:
    """The loader registered for ``spec``, or None when it is a plain file path."""
    for matches, load in _SOURCES.values():
        if matches(spec):
            return load
    return None

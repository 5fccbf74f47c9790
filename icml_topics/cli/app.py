"""The typer application object; command modules register themselves on it.

Its commands show value types as words in ``--help`` (``--min-topic-size INTEGER``, ``--out PATH``; flags
and arguments show none) instead of typer's ``<int>``/``<list[str]>``: each command's own parameters are of
the subclasses below. typer and click themselves are left as they are.

Examples:
    >>> from icml_topics.cli.app import app
    >>> @app.command("fit")  # how cli/fit.py registers its command: fit's parameters are word-typed
    ... def fit(min_topic_size: int = 10) -> None: ...
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

__all__ = ["app"]

_WORDS = {"int": "INTEGER", "str": "TEXT", "float": "NUMBER", "path": "PATH", "file": "FILE", "directory": "DIR"}


class _WordTypedOption(TyperOption):
    """An option whose help names its value type as a word (``INTEGER``, ``TEXT...``); a flag names none."""

    def display_type_rich(self, ctx: Any) -> str | None:
        if self.metavar is not None:
            return self.metavar
        if getattr(self, "is_flag", False) or getattr(self, "count", False):
            return None
        label = self.display_type(ctx).strip("<>")
        many = label.startswith("list[")
        label = label[5:-1] if many else label
        return _WORDS.get(label, label.upper()) + ("..." if many else "")


class _UntypedArgument(TyperArgument):
    """An argument whose help shows its name only (``INPUT...``), no type."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None


_HELP_CLASSES: dict[type, type] = {TyperOption: _WordTypedOption, TyperArgument: _UntypedArgument}


def _word_typed(param: Any) -> Any:
    """``param``, a parameter typer has just made for one of our commands, as its word-typed subclass
    (typer takes no per-parameter class)."""
    param.__class__ = _HELP_CLASSES.get(type(param), type(param))
    return param


class _WordTypedHelp:
    """Mixin: the command's own ``--help`` option is word-typed too (it shows no type)."""

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        return None if option is None else _word_typed(option)


class _Command(_WordTypedHelp, TyperCommand):
    """A typer command whose parameters show their types as words in ``--help``."""

    def __init__(self, *args: Any, params: list | None = None, **kwargs: Any) -> None:
        super().__init__(*args, params=[_word_typed(param) for param in params or ()], **kwargs)


class _Group(_WordTypedHelp, TyperGroup):
    """The ``icml-topics`` group: its ``--help`` shows no type."""


class _Typer(typer.Typer):
    """``typer.Typer`` whose commands are ``_Command`` unless a command names its own ``cls``."""

    def command(self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kwargs: Any) -> Any:
        return super().command(name, cls=cls or _Command, **kwargs)


app = _Typer(
    name="icml-topics",
    cls=_Group,
    help=(
        "Research themes and topic maps for conference abstracts, offline.\n\n"
        "Start with `icml-topics demo`, then `icml-topics fit ../shared/data/icml-2013-2024.jsonl.gz --out map/`."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

"""The typer application object; command modules register themselves on it."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="icml-topics",
    help=(
        "Research themes and topic maps for conference abstracts, offline.\n\n"
        "Start with `icml-topics demo`, then `icml-topics fit ../shared/data/icml-2013-2024.jsonl.gz --out map/`."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


_WORDS = {"int": "INTEGER", "str": "TEXT", "float": "NUMBER", "path": "PATH", "file": "FILE", "directory": "DIR"}


def _click_style_types() -> None:
    """Help shows value types as words (``INTEGER``, ``PATH``), flags none, instead of ``<bool>``/``<list[str]>``.

    typer >= 0.20 prints its own ``<type>`` column; older versions ask click, which is what we restore.
    """
    core = getattr(typer, "core", None)
    if core is None or not hasattr(core, "TyperOption"):
        return

    def option_type(self, ctx):
        if self.metavar is not None:
            return self.metavar
        if getattr(self, "is_flag", False) or getattr(self, "count", False):
            return None
        label = self.display_type(ctx).strip("<>")
        many = label.startswith("list[")
        label = label[5:-1] if many else label
        return _WORDS.get(label, label.upper()) + ("..." if many else "")

    def argument_type(self, ctx):
        return None

    core.TyperOption.display_type_rich = option_type
    core.TyperArgument.display_type_rich = argument_type


_click_style_types()

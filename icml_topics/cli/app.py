"""The typer application object; command modules register themselves on it."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="icml-topics",
    help=(
        "Research themes and topic maps for conference abstracts, offline.\n\n"
        "Start with `icml-topics demo`, then `icml-topics fit papers.jsonl --out report/`."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

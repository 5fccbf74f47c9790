"""The ``icml-topics`` command line: ``demo``, ``fit``, ``compare``, ``fetch``, ``info``.

Each command lives in its own module and registers itself on ``icml_topics.cli.app.app``.
"""

from __future__ import annotations

from icml_topics.cli import compare, demo, fetch, fit, info  # noqa: F401  (register the commands)
from icml_topics.cli.app import app

__all__ = ["app", "main"]


def main() -> None:
    """Entry point of the ``icml-topics`` console script.

    Examples:
        >>> main()  # what the icml-topics console script runs; reads sys.argv
    """
    app()

"""``icml-topics demo``: the whole pipeline on the bundled 38 ICML 2026 abstracts, offline."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import typer

from icml_topics.cli._common import DEBUG_HELP, cli_errors, setup_logging
from icml_topics.cli.app import app
from icml_topics.cli.fit import print_summary
from icml_topics.parameters import DEFAULT_RANDOM_STATE

SAMPLE = "icml-2026-seed-abstracts.jsonl"


def sample_path() -> Path:
    """Path of the bundled sample corpus (38 ICML 2026 abstracts), what ``icml-topics demo`` fits.

    Examples:
        >>> from icml_topics.cli.demo import sample_path
        >>> sample_path().name
        'icml-2026-seed-abstracts.jsonl'
    """
    return Path(str(resources.files("icml_topics") / "data" / SAMPLE))


@app.command("demo")
def demo(
    out: Path = typer.Option(Path("icml-topics-demo"), "--out", "-o", help="Folder for the demo's report and tables."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only warnings and errors."),
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
) -> None:
    """Fit the bundled sample (38 ICML 2026 abstracts) and write a report, fully offline.

    Example: icml-topics demo --out demo/ && open demo/report.html
    """
    setup_logging(quiet)
    with cli_errors(debug=debug):
        from icml_topics.model import TopicMap  # lazy: keeps the CLI light
        from icml_topics.outputs import write_outputs  # lazy: keeps the CLI light

        tm = TopicMap(random_state=DEFAULT_RANDOM_STATE, verbose=not quiet).fit(sample_path())
        paths = write_outputs(tm, out, title="icml_topics demo: 38 ICML 2026 abstracts")
        print_summary(tm, paths)

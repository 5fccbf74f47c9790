"""``icml-topics compare INPUT... --by year --out DIR``: themes across years or venues, one report."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from icml_topics.cli._common import cli_errors, setup_logging
from icml_topics.cli.app import app
from icml_topics.cli.fit import INPUT_HELP


def _value(text: Optional[str]):
    """``"2019"`` -> 2019, ``"2017,2018"`` -> [2017, 2018], ``"2013-2019"`` -> range list, ``"ICML"`` -> "ICML"."""
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) == 1 and "-" in parts[0] and all(x.isdigit() for x in parts[0].split("-", 1)):
        lo, hi = map(int, parts[0].split("-", 1))
        return list(range(lo, hi + 1))
    values = [int(p) if p.isdigit() else p for p in parts]
    return values[0] if len(values) == 1 else values


def alignment_line(counts: dict[str, int]) -> str:
    """``{"matched": 12, "split": 1, "new": 0}`` -> ``"12 topics matched, 1 split"`` (zero counts left out)."""
    words = {"matched": "topics matched", "split": "split", "merged": "merged", "vanished": "vanished", "new": "new"}
    parts = [f"{n} {words.get(k, k)}" for k, n in counts.items() if n]
    return ", ".join(parts) or "no topics to align"


@app.command("compare")
def compare(
    inputs: list[str] = typer.Argument(..., help=INPUT_HELP, metavar="INPUT..."),
    out: Path = typer.Option(..., "--out", "-o", help="Folder for report.html and the CSV tables behind it."),
    by: str = typer.Option("year", "--by", help="Column to compare by: year or venue."),
    a: Optional[str] = typer.Option(
        None,
        "--a",
        help="First period: a value (2019), a list (2017,2018) or a range (2013-2019). Default: chosen from the data.",
    ),
    b: Optional[str] = typer.Option(None, "--b", help="Second period, as --a."),
    no_align: bool = typer.Option(
        False, "--no-align", help="Skip fitting the two periods separately to align their topics."
    ),
    taxonomy: Optional[Path] = typer.Option(None, help="Your own research-theme taxonomy (YAML)."),
    random_state: int = typer.Option(42, help="Seed: the same input and seed give the same result."),
    title: Optional[str] = typer.Option(None, help="Title of report.html."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only warnings and errors."),
) -> None:
    """Compare research themes across years (or venues) and write one self-contained report.

    Example: icml-topics compare ../shared/data/icml-2013-2024.jsonl.gz --by year --a 2019 --b 2024 --out trends/
    """
    setup_logging(quiet)
    with cli_errors():
        from icml_topics.cli.fit import load_taxonomy_option
        from icml_topics.outputs import check_output_path

        check_output_path(out, inputs=list(inputs))  # checked before anything is read or embedded
        tax = load_taxonomy_option(taxonomy)
        from icml_topics.workflows import compare as run_compare

        result = run_compare(
            inputs if len(inputs) > 1 else inputs[0],
            by=by,
            out=out,
            a=_value(a),
            b=_value(b),
            align=not no_align,
            taxonomy=tax,
            random_state=random_state,
            title=title,
            verbose=not quiet,
        )
        a_label, b_label = result.periods
        typer.echo(f"Biggest movers from {a_label} to {b_label}:")
        for row in result.movers.head(5).itertuples(index=False):
            typer.echo(f"  {row.diff:+6.1%}  {row.theme} ({row.direction})")
        for row in result.movers.tail(3).itertuples(index=False):
            typer.echo(f"  {row.diff:+6.1%}  {row.theme} ({row.direction})")
        if result.alignment is not None:
            typer.echo(f"Topic alignment {a_label} -> {b_label}: {alignment_line(result.alignment.counts())}")
        typer.echo(f"Report: {result.paths['report']}")

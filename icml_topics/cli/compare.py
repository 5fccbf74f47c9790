"""``icml-topics compare INPUT... --by year --out DIR``: themes across years or venues, one report."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from icml_topics.cli._common import (
    DEBUG_HELP,
    NAMER_KEY_HELP,
    NAMER_MODEL_HELP,
    NAMER_URL_HELP,
    cli_errors,
    setup_logging,
    topic_namer,
)
from icml_topics.cli.app import app
from icml_topics.cli.fit import INPUT_HELP, RAW_CSV_HELP, load_taxonomy_option
from icml_topics.parameters import DEFAULT_RANDOM_STATE


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
    words = {
        "matched": "topics matched",
        "coarser": "merged only by the coarser resolution",
        "finer": "split only by the finer resolution",
    }
    parts = [f"{n} {words.get(k, k)}" for k, n in counts.items() if n]
    return ", ".join(parts) or "no topics to align"


def movers_text(movers, a_label: str, b_label: str, first: int = 5, last: int = 3) -> str:
    """The ``first`` largest rises and ``last`` largest falls of a ``theme_movers`` table, each theme once
    (a short table is listed whole), with its significance."""
    rows = movers if len(movers) <= first + last else movers.iloc[list(range(first)) + list(range(-last, 0))]
    baseline = movers["baseline"].iloc[0] if "baseline" in movers.columns and len(movers) else a_label
    lines = [f"Biggest movers from {a_label} to {b_label} (baseline: {baseline}):"]
    lines += [f"  {r.diff:+6.1%}  {r.theme} ({r.direction})" for r in rows.itertuples(index=False)]
    return "\n".join(lines)


def _stability(value: float) -> str:
    return "stability n/a" if value != value else f"stability {value:.2f}"  # NaN: a node no run could split


def new_topics_text(status, top: int = 10) -> str:
    """The top new and emerging nodes of a ``topic_status`` table: per node its name, its share before and in
    the latest period with their intervals, its stability and up to three titles of the latest period; then
    the nodes held back for their names, and what the statuses mean."""
    from icml_topics.compare.headlines import STATUS_MEANINGS, held_back_lines  # lazy: keeps the CLI light
    from icml_topics.compare.topic_trends import whats_new  # lazy: keeps the CLI light
    from icml_topics.compare.trend_info import read_trend_info  # lazy: keeps the CLI light

    info = read_trend_info(status, require=("latest",), name="status")
    latest, fdr = info.latest, info.fdr
    baseline = info.baseline_label or (status["baseline"].iloc[0] if len(status) else "earlier")
    rows = whats_new(status, top=top)
    held = held_back_lines(rows)
    if rows.empty:
        return "\n".join(
            [
                f"No topic is new or emerging in {latest} (baseline: {baseline}; false-discovery rate {fdr:.0%}, "
                "all tree levels tested).",
                *held,
            ]
        )
    lines = [f"New and emerging topics in {latest} (baseline: {baseline}; false-discovery rate {fdr:.0%}):"]
    for r in rows.itertuples(index=False):
        before = f"{r.share_before:.1%}"
        if hasattr(r, "before_lower"):
            before += f" [{r.before_lower:.1%}, {r.before_upper:.1%}]"
        lines.append(
            f"  {r.status:8} {r.label} (level {r.level}): {before} in {baseline} -> {r.share_latest:.1%} "
            f"[{r.latest_lower:.1%}, {r.latest_upper:.1%}] of {latest}, {_stability(r.stability)}, q {r.q_value:.1g}"
        )
        for title in getattr(r, "latest_titles", None) or []:
            lines.append(f"             e.g. {title}")
    lines += held
    lines += [f"  {status}: {meaning}" for status, meaning in STATUS_MEANINGS.items()]
    return "\n".join(lines)


@app.command("compare")
def compare(
    inputs: list[str] = typer.Argument(..., help=INPUT_HELP, metavar="INPUT..."),
    out: Path = typer.Option(..., "--out", "-o", help="Folder for report.html and the CSV tables behind it."),
    by: str = typer.Option("year", "--by", help="Column to compare by: year or venue."),
    a: Optional[str] = typer.Option(
        None,
        "--a",
        help="First period: a value (2019), a list (2017,2018) or a range (2013-2019). Default: the two latest "
        "values with 150 papers each, else the two latest with --min-papers.",
    ),
    b: Optional[str] = typer.Option(None, "--b", help="Second period, as --a."),
    align: bool = typer.Option(
        False,
        "--align/--no-align",
        help="Also fit the two periods separately and align their topics (two more fits; the joint tree "
        "answers what changed without them).",
    ),
    taxonomy: Optional[Path] = typer.Option(None, help="Your own research-theme taxonomy (YAML)."),
    random_state: int = typer.Option(DEFAULT_RANDOM_STATE, help="Seed: the same input and seed give the same result."),
    title: Optional[str] = typer.Option(None, help="Title of report.html."),
    raw_csv: bool = typer.Option(False, "--raw-csv", help=RAW_CSV_HELP),
    min_papers: int = typer.Option(
        30,
        "--min-papers",
        help="Papers a year (or venue) needs to be compared; smaller ones are reported, not compared.",
    ),
    max_periods: int = typer.Option(
        50, "--max-periods", help="Most distinct --by values accepted (more: refused before any work)."
    ),
    namer_url: Optional[str] = typer.Option(None, "--namer-url", help=NAMER_URL_HELP),
    namer_model: Optional[str] = typer.Option(None, "--namer-model", help=NAMER_MODEL_HELP),
    namer_key_env: Optional[str] = typer.Option(None, "--namer-key-env", help=NAMER_KEY_HELP),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only warnings and errors."),
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
) -> None:
    """Compare research themes across years (or venues) and write one self-contained report.

    Example: icml-topics compare ../shared/data/icml-2013-2024.jsonl.gz --by year --a 2019 --b 2024 --out trends/
    """
    setup_logging(quiet)
    with cli_errors(debug=debug):
        from icml_topics.store.folders import check_output_path  # lazy: keeps the CLI light

        check_output_path(out, inputs=list(inputs))  # checked before anything is read or embedded
        tax = load_taxonomy_option(taxonomy)
        from icml_topics.workflows import compare as run_compare  # lazy: keeps the CLI light

        result = run_compare(
            inputs if len(inputs) > 1 else inputs[0],
            by=by,
            out=out,
            a=_value(a),
            b=_value(b),
            align=align,
            taxonomy=tax,
            random_state=random_state,
            title=title,
            csv_safe=not raw_csv,
            min_papers=min_papers,
            max_periods=max_periods,
            topic_namer=topic_namer(namer_url, namer_model, namer_key_env),
            verbose=not quiet,
        )
        from icml_topics.compare.period_labels import period_label  # lazy: keeps the CLI light

        a_label, b_label = period_label(result.periods[0]), period_label(result.periods[1])
        typer.echo(movers_text(result.movers, a_label, b_label))
        if result.topics is not None:
            typer.echo(new_topics_text(result.topics.status))
        if result.alignment is not None:
            from icml_topics.report.compare_report import alignment_scope  # lazy: keeps the CLI light

            typer.echo(
                f"Topic alignment {a_label} -> {b_label} ({alignment_scope(result.alignment)}): "
                f"{alignment_line(result.alignment.counts())}"
            )
        typer.echo(f"Report: {result.paths['report']}")

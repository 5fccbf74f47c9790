"""``icml-topics fit INPUT... --out DIR``: fit a topic map and write its tables, report and model."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pandas as pd
import typer

from icml_topics._wording import counted, fit_sentence
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
from icml_topics.errors import InvalidValueError
from icml_topics.fitted_tables import headline_numbers
from icml_topics.parameters import DEFAULT_RANDOM_STATE

INPUT_HELP = (
    "Abstract files: CSV, JSONL (.gz), JSON, Parquet, PMLR BibTeX (.bib), or a source such as pmlr:235. "
    "Several inputs are combined (e.g. two conference years)."
)


RAW_CSV_HELP = (
    "Write CSV cells exactly as fitted (for pandas/R). Default: text cells starting with = + - @, a tab or a "
    "carriage return (or a full-width ＝ ＋ － ＠) get a leading ' so spreadsheets show them as text, not formulas."
)
CSV_SAFE_HELP = "Deprecated, does nothing: formulas in CSV cells are escaped by default (--raw-csv turns it off)."


def csv_option(raw_csv: bool, csv_safe: bool, quiet: bool = False) -> bool:
    """``csv_safe`` for the writers from ``--raw-csv`` and the deprecated ``--csv-safe`` (now the default)."""
    if raw_csv and csv_safe:
        raise InvalidValueError(
            "--csv-safe and --raw-csv contradict each other: CSV formulas are escaped by default, "
            "so drop --csv-safe (and keep --raw-csv only to write raw cells)."
        )
    if csv_safe and not quiet:
        typer.echo("note: --csv-safe is the default now and will be removed; drop it from your command.", err=True)
    return not raw_csv


def column_map(
    abstract: str | None, title: str | None, year: str | None, venue: str | None, id_: str | None
) -> dict[str, str]:
    given = {"abstract": abstract, "title": title, "year": year, "venue": venue, "id": id_}
    return {k: v for k, v in given.items() if v}


@app.command("fit")
def fit(
    inputs: list[str] = typer.Argument(..., help=INPUT_HELP, metavar="INPUT..."),
    out: Path = typer.Option(
        ..., "--out", "-o", help="Folder for documents.csv, topics.csv, themes.csv, report.html and model/."
    ),
    taxonomy: Optional[Path] = typer.Option(
        None, help="Your own research-theme taxonomy (YAML). Default: the built-in one."
    ),
    model: Optional[str] = typer.Option(
        None, "--model", help="sentence-transformers model name or path. Default: bundled all-MiniLM-L6-v2."
    ),
    min_topic_size: Optional[int] = typer.Option(None, help="Smallest fine topic (default scales with corpus size)."),
    random_state: int = typer.Option(DEFAULT_RANDOM_STATE, help="Seed: the same input and seed give the same result."),
    abstract_column: Optional[str] = typer.Option(None, help="Column holding the abstract, if not 'abstract'."),
    title_column: Optional[str] = typer.Option(None, help="Column holding the title, if not 'title'."),
    year_column: Optional[str] = typer.Option(None, help="Column holding the year, if not 'year'."),
    venue_column: Optional[str] = typer.Option(None, help="Column holding the venue, if not 'venue'."),
    id_column: Optional[str] = typer.Option(None, help="Column holding a paper id, if not 'id'."),
    cache_dir: Optional[Path] = typer.Option(
        None, help="Embedding cache folder (default: the user cache, or $ICML_TOPICS_CACHE_DIR)."
    ),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the embedding cache."),
    title: str = typer.Option("Topic map", help="Title of report.html."),
    sep: Optional[str] = typer.Option(
        None, "--sep", help="Field separator of CSV inputs (default: detected: , ; | or tab)."
    ),
    raw_csv: bool = typer.Option(False, "--raw-csv", help=RAW_CSV_HELP),
    csv_safe: bool = typer.Option(False, "--csv-safe", hidden=True, help=CSV_SAFE_HELP),
    fast: bool = typer.Option(
        False,
        "--fast",
        help="Embed only the first 128 tokens of each text: about 2x faster, slightly lower quality (see README).",
    ),
    scheduler: Optional[str] = typer.Option(
        None,
        help="Embed, and build each theme's topic tree, on a running Dask cluster: its scheduler address "
        "(tcp://host:8786).",
    ),
    workers: Optional[int] = typer.Option(
        None,
        help="Embed, and build each theme's topic tree, on N local Dask worker processes (a LocalCluster on this "
        "machine, closed once the trees are built).",
    ),
    maps: str = typer.Option(
        "png",
        "--maps",
        help="Static map files: a comma list of png, svg, pdf, or none. Default: map.png at screen resolution.",
    ),
    map_dpi: int = typer.Option(
        100, "--map-dpi", help="Resolution of map.png (and of the points in svg/pdf): 100 for screens, 300 for print."
    ),
    namer_url: Optional[str] = typer.Option(None, "--namer-url", help=NAMER_URL_HELP),
    namer_model: Optional[str] = typer.Option(None, "--namer-model", help=NAMER_MODEL_HELP),
    namer_key_env: Optional[str] = typer.Option(None, "--namer-key-env", help=NAMER_KEY_HELP),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only warnings and errors."),
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
) -> None:
    """Fit research themes and fine topics on INPUT... and write them to --out.

    Example: icml-topics fit ../shared/data/icml-2013-2024.jsonl.gz --out icml-map/

    For print: --maps png,svg,pdf --map-dpi 300 (a 3600-pixel-wide map.png plus vector files).
    """
    setup_logging(quiet)
    cache = False if no_cache else (cache_dir or True)
    with cli_errors(cache=cache, debug=debug):
        from icml_topics.plotting.static_map import check_map_dpi, parse_map_formats  # lazy: keeps the CLI light
        from icml_topics.workflows import fit_to_folder  # lazy: keeps the CLI light

        map_formats, dpi = parse_map_formats(maps), check_map_dpi(map_dpi)  # checked before anything loads
        tax = load_taxonomy_option(taxonomy)  # checked before anything loads
        # the one-time setup of the embedding path (large corpora only) says so itself when it starts
        columns = column_map(abstract_column, title_column, year_column, venue_column, id_column) or None
        tm, paths = fit_to_folder(
            inputs if len(inputs) > 1 else inputs[0],
            out,
            columns=columns,
            sep=sep,
            title=title,
            csv_safe=csv_option(raw_csv, csv_safe, quiet),
            scheduler=scheduler,
            workers=workers,
            embedding_model=model,
            taxonomy=tax,
            min_topic_size=min_topic_size,
            random_state=random_state,
            cache=cache,
            verbose=not quiet,
            max_tokens=128 if fast else None,
            topic_namer=topic_namer(namer_url, namer_model, namer_key_env),
            maps=map_formats,
            map_dpi=dpi,
        )
        print_summary(tm, paths)


def load_taxonomy_option(path: Path | None):
    """The taxonomy named by ``--taxonomy`` (``None``: the built-in one), checked now."""
    if path is None:
        return None
    from icml_topics.themes.taxonomy import load_taxonomy  # lazy: keeps the CLI light

    try:
        return load_taxonomy(str(path))
    except TypeError as exc:  # a well-formed YAML file of the wrong shape
        raise InvalidValueError(f"--taxonomy {path}: {exc}") from None


SUMMARY_THEMES = 8
"""The CLI lists this many themes by name (all of them up to two more), then sums up the rest."""


def summary_lines(tm) -> list[str]:
    """What the fit found, as ``fit`` and ``demo`` print it: the counts (that add up), then what the papers are
    about: the largest themes with their papers, the rest summed up, so the list accounts for every paper."""
    numbers = headline_numbers(tm.documents_, tm.topics_, tm.themes_, digits=None)
    modelled = numbers["modelled"]
    read = (
        f"{numbers['documents']:,} read, {numbers['dropped']:,} dropped, {counted(numbers['duplicates'], 'duplicate')}"
    )
    lines = [f"{fit_sentence(numbers)} ({read})."]
    themes = tm.themes_[pd.to_numeric(tm.themes_["size"], errors="coerce").fillna(0) > 0]
    themes = themes.sort_values("size", ascending=False, kind="stable")
    shown = themes if len(themes) <= SUMMARY_THEMES + 2 else themes.head(SUMMARY_THEMES)
    if len(shown):
        lines.append("What the papers are about (research themes, largest first):")
    for theme, size in shown[["theme", "size"]].itertuples(index=False):
        lines.append(f"  {counted(int(size), 'paper'):>10}  {count_share(int(size), modelled)}  {theme}")
    rest = themes.iloc[len(shown) :]
    if len(rest):
        papers = int(rest["size"].sum())
        lines.append(
            f"  {counted(papers, 'paper'):>10}  {count_share(papers, modelled)}  in {counted(len(rest), 'more theme')}"
        )
    no_theme = modelled - int(themes["size"].sum())
    if no_theme > 0:
        lines.append(f"  {counted(no_theme, 'paper'):>10}  {count_share(no_theme, modelled)}  without a theme")
    return lines


def count_share(part: int, whole: int) -> str:
    """A share as the summary's column shows it: ``" 18.4%"``."""
    return f"{part / whole:6.1%}" if whole else "   n/a"


def print_summary(tm, paths) -> None:
    """The closing lines of ``fit`` and ``demo``: the key numbers, what the papers are about, where the files are."""
    for line in summary_lines(tm):
        typer.echo(line)
    typer.echo(f"Report: {paths['report']}")
    typer.echo(f"Tables: {paths['documents']}, {paths['topics']}, {paths['themes']}")

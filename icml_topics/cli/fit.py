"""``icml-topics fit INPUT... --out DIR``: fit a topic map and write its tables, report and model."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from icml_topics.cli._common import DEBUG_HELP, cli_errors, setup_logging
from icml_topics.cli.app import app
from icml_topics.errors import InvalidValueError

INPUT_HELP = (
    "Abstract files: CSV, JSONL (.gz), JSON, Parquet, PMLR BibTeX (.bib), or a source such as pmlr:235. "
    "Several inputs are combined (e.g. two conference years)."
)


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
    random_state: int = typer.Option(42, help="Seed: the same input and seed give the same result."),
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
    csv_safe: bool = typer.Option(
        False,
        "--csv-safe",
        help="Prefix text cells starting with = + - @ with ' so spreadsheets do not run them as formulas.",
    ),
    fast: bool = typer.Option(
        False,
        "--fast",
        help="Embed only the first 128 tokens of each text: about 2x faster, slightly lower quality (see README).",
    ),
    scheduler: Optional[str] = typer.Option(
        None, help="Embed on a running Dask cluster: its scheduler address (tcp://host:8786)."
    ),
    workers: Optional[int] = typer.Option(
        None, help="Embed on N local Dask worker processes (a LocalCluster on this machine)."
    ),
    maps: str = typer.Option(
        "png",
        "--maps",
        help="Static map files: a comma list of png, svg, pdf, or none. Default: map.png at screen resolution.",
    ),
    map_dpi: int = typer.Option(
        100, "--map-dpi", help="Resolution of map.png (and of the points in svg/pdf): 100 for screens, 300 for print."
    ),
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
        from icml_topics.plotting.static_map import check_map_dpi, parse_map_formats
        from icml_topics.workflows import fit_to_folder

        map_formats, dpi = parse_map_formats(maps), check_map_dpi(map_dpi)  # checked before anything loads
        tax = load_taxonomy_option(taxonomy)  # checked before anything loads
        if not quiet and cache is not False and not scheduler and not workers:
            from icml_topics.embedding.paths import first_run_note
            from icml_topics.fit_config import cache_dir as stage_cache_dir

            note = first_run_note(model, stage_cache_dir(cache, "embeddings"))
            if note:
                typer.echo(note, err=True)
        columns = column_map(abstract_column, title_column, year_column, venue_column, id_column) or None
        tm, paths = fit_to_folder(
            inputs if len(inputs) > 1 else inputs[0],
            out,
            columns=columns,
            sep=sep,
            title=title,
            csv_safe=csv_safe,
            scheduler=scheduler,
            workers=workers,
            embedding_model=model,
            taxonomy=tax,
            min_topic_size=min_topic_size,
            random_state=random_state,
            cache=cache,
            verbose=not quiet,
            max_tokens=128 if fast else None,
            maps=map_formats,
            map_dpi=dpi,
        )
        print_summary(tm, paths)


def load_taxonomy_option(path: Path | None):
    """The taxonomy named by ``--taxonomy`` (``None``: the built-in one), checked now."""
    if path is None:
        return None
    from icml_topics.themes.taxonomy import load_taxonomy

    try:
        return load_taxonomy(str(path))
    except TypeError as exc:  # a well-formed YAML file of the wrong shape
        raise InvalidValueError(f"--taxonomy {path}: {exc}") from None


def print_summary(tm, paths) -> None:
    """The closing lines of ``fit`` and ``demo``: the key numbers, the largest themes, where the files are."""
    s = tm.summary()
    typer.echo(
        f"{s['documents']} documents ({s['modelled']} modelled, {s['dropped']} dropped, {s['duplicates']} duplicates): "
        f"{s['topics']} topics in {s['themes']} themes; {s['no-theme share']:.1%} without a theme."
    )
    present = tm.themes_[tm.themes_["size"] > 0]
    for theme, share in present[["theme", "share"]].head(8).itertuples(index=False):
        typer.echo(f"  {share:6.1%}  {theme}")
    typer.echo(f"Report: {paths['report']}")
    typer.echo(f"Tables: {paths['documents']}, {paths['topics']}, {paths['themes']}")

"""``icml-topics fetch``: download proceedings into JSONL paper lists (one file per year/volume).

Examples:
    $ icml-topics fetch icml --years 2019 2025 --out data/
    $ icml-topics fetch icml --year 2024 --offline --cache-dir ~/icml-bib
    $ icml-topics fetch pmlr --volume 238 --out data/
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from icml_topics.cli.app import app

__all__ = ["fetch"]

_COLLECTIONS = ("icml", "pmlr")


def _summary(label: str, df, target: Path) -> str:  # noqa: ANN001 (pandas imported lazily)
    report = df.attrs["load_report"]
    parts = [f"{len(df)} papers"]
    if report.n_missing_abstract:
        parts.append(f"{report.n_missing_abstract} without abstract")
    if report.skipped:
        parts.append(f"{len(report.skipped)} broken entries skipped")
    if report.duplicates:
        parts.append(f"{len(report.duplicates)} repeated ids renamed")
    lines = [f"{label}: {', '.join(parts)} -> {target}"]
    lines.extend(f"    skipped {issue}" for issue in report.skipped)
    lines.extend(f"    renamed {issue}" for issue in report.duplicates)
    return "\n".join(lines)


def _load_volume(number: int, out: Path, *, offline: bool, cache_dir: Path | None):  # noqa: ANN202
    from icml_topics.datasets import DatasetUnavailableError, load_pmlr  # lazy: keeps the CLI light

    label, target = f"PMLR v{number}", out / f"pmlr-v{number}.jsonl"
    try:
        return label, load_pmlr(volume=number, offline=offline, cache_dir=cache_dir), None, target
    except DatasetUnavailableError as exc:
        return label, None, exc, target


@app.command("fetch")
def fetch(
    collection: Annotated[str, typer.Argument(help="What to fetch: 'icml' (by year) or 'pmlr' (by volume).")],
    years: Annotated[
        tuple[int, int] | None,
        typer.Option("--years", metavar="FIRST LAST", help="ICML years FIRST to LAST, inclusive: --years 2019 2025."),
    ] = None,
    year: Annotated[
        list[int] | None, typer.Option("--year", help="One ICML year; repeat for several: --year 2019 --year 2024.")
    ] = None,
    volume: Annotated[
        list[int] | None, typer.Option("--volume", help="PMLR volume number (with 'pmlr'); repeatable.")
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the JSONL files.")] = Path("data"),
    offline: Annotated[bool, typer.Option("--offline", help="Use only cached files; never touch the network.")] = False,
    cache_dir: Annotated[
        Path | None,
        typer.Option("--cache-dir", help="Download cache (default: $ICML_TOPICS_DATA_DIR or the user cache)."),
    ] = None,
) -> None:
    """Download ICML / PMLR proceedings and write one JSONL paper list per year (or volume).

    Files already in the cache are not downloaded again, so a second run works offline.
    """
    from icml_topics.datasets import write_paper_list  # lazy: keeps the CLI light
    from icml_topics.datasets.sources import icml_output_path, iter_icml_years  # lazy: keeps the CLI light

    name = collection.strip().lower()
    if name not in _COLLECTIONS:
        raise typer.BadParameter(f"unknown collection {collection!r}; use one of: {', '.join(_COLLECTIONS)}.")
    failures: list[str] = []
    n_papers = n_files = 0
    if name == "icml":
        wanted = set(year or [])
        if years is not None:
            first, last = years
            if last < first:
                raise typer.BadParameter(f"--years {first} {last}: the last year comes before the first.")
            wanted.update(range(first, last + 1))
        if volume:
            raise typer.BadParameter("--volume goes with 'pmlr'; for ICML use --years FIRST LAST or --year Y.")
        if not wanted:
            raise typer.BadParameter("say which years: --years 2019 2025, or --year 2024 (repeatable).")
        try:
            loaded = iter_icml_years(sorted(wanted), offline=offline, cache_dir=cache_dir)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from exc
        jobs = ((f"ICML {y}", df, err, icml_output_path(out, y)) for y, df, err in loaded)
    else:
        if not volume:
            raise typer.BadParameter("say which volumes: --volume 235 (repeatable).")
        if years or year:
            raise typer.BadParameter("--years/--year go with 'icml'; for PMLR use --volume N.")
        jobs = (_load_volume(number, out, offline=offline, cache_dir=cache_dir) for number in sorted(set(volume)))
    for label, df, error, target in jobs:  # lazily: each line is printed as its download completes
        if error is not None:
            failures.append(f"{label}: {error}")
            continue
        write_paper_list(df, target)
        n_papers += len(df)
        n_files += 1
        typer.echo(_summary(label, df, target))
    if n_files:
        typer.echo(f"Wrote {n_papers} papers in {n_files} file(s) to {out}/")
    if failures:
        typer.echo(f"{len(failures)} could not be loaded:", err=True)
        for failure in failures:
            typer.echo(f"  {failure}", err=True)
        raise typer.Exit(code=1)

"""Source strings (``"pmlr:235"``, ``"icml:2019-2025"``, ``"paper.bib"``) and multi-year ICML fetches.

``read_corpus`` and the CLI accept these strings wherever a file is expected.

==============================  ===========================================================
spec                            loads
==============================  ===========================================================
``pmlr:235`` / ``pmlr:v235``    PMLR volume 235 (ICML 2024), cached / downloaded
``pmlr:icml2024``, ``icml:2024``  the PMLR volume of ICML 2024
``icml:2019-2025``              ICML 2019 to 2025 inclusive (``icml:2019,2024`` for a list)
``pmlr:path/to/file.bib``       a local PMLR BibTeX file (a bare ``*.bib`` path also works)
``openreview:notes.json``       OpenReview notes saved from the API (JSON or JSONL)
==============================  ===========================================================

Examples:
    >>> from icml_topics.datasets import fetch_icml, load_source
    >>> df = load_source("icml:2023-2024", offline=True)
    >>> df = fetch_icml(range(2019, 2026), out="data/")
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import pandas as pd

from icml_topics.corpus.load_report import LoadReport
from icml_topics.corpus.record_files import BIBTEX_SUFFIXES, format_suffix
from icml_topics.datasets.cache import DatasetUnavailableError
from icml_topics.datasets.openreview import load_openreview
from icml_topics.datasets.paper_list import write_paper_list
from icml_topics.datasets.pmlr import ICML_PMLR_VOLUMES, load_pmlr
from icml_topics.errors import InvalidValueError

__all__ = ["fetch_icml", "icml_output_path", "is_source_spec", "iter_icml_years", "load_source", "parse_years"]

_SCHEME_RE = re.compile(r"^(pmlr|icml|openreview):(.*)$", re.IGNORECASE | re.DOTALL)


def _is_bib_path(text: str) -> bool:
    return format_suffix(Path(text)) in BIBTEX_SUFFIXES  # one list of suffixes (corpus/record_files.py), .gz read too


def is_source_spec(s: object) -> bool:
    """True for strings that [`load_source`][icml_topics.datasets.load_source] handles: ``pmlr:…``, ``icml:…``, ``openreview:…``, ``*.bib``.

    An existing file whose name merely starts with ``icml:`` is not a spec.

    Args:
        s: any value (only strings can be source strings).

    Examples:
        >>> is_source_spec("pmlr:235"), is_source_spec("icml:2019-2025"), is_source_spec("papers.csv")
        (True, True, False)
    """
    if not isinstance(s, str):
        return False
    text = s.strip()
    if _SCHEME_RE.match(text):
        return not Path(text).is_file()
    return _is_bib_path(text)


def parse_years(text: str | Iterable[int] | int) -> list[int]:
    """``"2019-2025"`` / ``"2019,2021"`` / ``2024`` / ``[2019, 2024]`` -> a sorted list of unique years.

    Examples:
        >>> parse_years("2019-2021,2024")
        [2019, 2020, 2021, 2024]
    """
    if isinstance(text, int):
        return [text]
    if not isinstance(text, str):
        return sorted({int(year) for year in text})
    years: set[int] = set()
    for part in filter(None, (p.strip() for p in text.replace(" ", ",").split(","))):
        match = re.fullmatch(r"(\d{4})(?:\s*(?:-|\.\.|–)\s*(\d{4}))?", part)
        if match is None:
            raise InvalidValueError(f"Cannot read {part!r} as a year or range; use e.g. 2024, 2019-2025 or 2019,2024.")
        first, last = int(match.group(1)), int(match.group(2) or match.group(1))
        if last < first:
            raise InvalidValueError(f"Year range {part!r} ends before it starts; write it as {last}-{first}.")
        years.update(range(first, last + 1))
    if not years:
        raise InvalidValueError("No years given; use e.g. 2024, 2019-2025 or 2019,2024.")
    return sorted(years)


def icml_output_path(out: str | os.PathLike[str], year: int) -> Path:
    """The file ``fetch_icml(out=...)`` writes for ``year``: ``<out>/icml-<year>.jsonl``."""
    return Path(out) / f"icml-{year}.jsonl"


def iter_icml_years(
    years: Iterable[int] | int | str,
    *,
    offline: bool = False,
    cache_dir: str | os.PathLike[str] | None = None,
) -> Iterator[tuple[int, pd.DataFrame | None, DatasetUnavailableError | None]]:
    """Yield ``(year, corpus, None)`` or ``(year, None, error)`` per ICML year, in order.

    All years are checked against [`ICML_PMLR_VOLUMES`][icml_topics.datasets.ICML_PMLR_VOLUMES] when this is called, before anything
    is downloaded; each year is then loaded as the iterator reaches it.

    Raises:
        ValueError: a year with no known PMLR volume (raised here, not during iteration).
    """
    wanted = parse_years(years)
    unknown = [year for year in wanted if year not in ICML_PMLR_VOLUMES]
    if unknown:
        raise InvalidValueError(
            f"No PMLR volume is known for ICML {', '.join(map(str, unknown))} (known years: "
            f"{min(ICML_PMLR_VOLUMES)}-{max(ICML_PMLR_VOLUMES)}). If PMLR has published one, load it by "
            "volume number: load_pmlr(volume=N) or the source 'pmlr:N'."
        )
    return _load_years(wanted, offline=offline, cache_dir=cache_dir)


def _load_years(
    years: list[int], *, offline: bool, cache_dir: str | os.PathLike[str] | None
) -> Iterator[tuple[int, pd.DataFrame | None, DatasetUnavailableError | None]]:
    for year in years:
        try:
            yield year, load_pmlr(year, offline=offline, cache_dir=cache_dir), None
        except DatasetUnavailableError as exc:
            yield year, None, exc


def fetch_icml(
    years: Iterable[int] | int | str,
    *,
    out: str | os.PathLike[str] | None = None,
    offline: bool = False,
    cache_dir: str | os.PathLike[str] | None = None,
) -> pd.DataFrame:
    """Load (downloading when needed) the ICML proceedings of ``years`` as one corpus table.

    Args:
        years: years (``range(2019, 2026)``, ``[2019, 2024]``), one year, or ``"2019-2025"``.
        out: when given, also write ``<out>/icml-<year>.jsonl`` per year (the ``shared/data`` format).
        offline: use only the cache (``ICML_TOPICS_OFFLINE=1`` has the same effect).
        cache_dir: the download cache (default ``$ICML_TOPICS_DATA_DIR`` or the user cache folder).

    Raises:
        DatasetUnavailableError: after trying every year, if any could not be loaded; the message
            lists, per missing year, the URL to download and the path to save it at.
        ValueError: a year with no known PMLR volume.

    Examples:
        >>> df = fetch_icml(range(2019, 2026), out="data/")
        >>> df.groupby("year").size()
    """
    frames: list[pd.DataFrame] = []
    reports: list[LoadReport] = []
    failures: list[tuple[int, DatasetUnavailableError]] = []
    for year, df, error in iter_icml_years(years, offline=offline, cache_dir=cache_dir):
        if error is not None:
            failures.append((year, error))
            continue
        assert df is not None
        reports.append(df.attrs["load_report"])
        if out is not None:
            write_paper_list(df, icml_output_path(out, year))
        frames.append(df)
    if failures:
        done = f" The other {len(frames)} year(s) loaded and are cached." if frames else ""
        lines = [f"ICML {year}: {error.url} -> {error.path}" for year, error in failures]
        raise DatasetUnavailableError(
            f"{len(failures)} ICML year(s) could not be loaded.{done} Download each file below and save it "
            "at the path shown, then run again:\n  " + "\n  ".join(lines) + f"\nFirst error: {failures[0][1]}",
            url=failures[0][1].url,
            path=failures[0][1].path,
        )
    combined = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0].copy()
    source = "ICML " + ", ".join(str(year) for year in parse_years(years))
    combined.attrs = {"load_report": LoadReport.merge(reports, source=source)}
    return combined


def load_source(
    spec: str,
    *,
    offline: bool = False,
    cache_dir: str | os.PathLike[str] | None = None,
) -> pd.DataFrame:
    """Load the corpus table named by a source string (see [`is_source_spec`][icml_topics.datasets.is_source_spec]).

    Raises:
        ValueError: ``spec`` is not a source string, or names nothing loadable.
        DatasetUnavailableError: the data is neither cached nor downloadable.

    Args:
        spec: the source string, e.g. ``"pmlr:235"``, ``"icml:2019-2024"`` or ``"openreview:notes.json"``.
        offline: never touch the network (cached files only).
        cache_dir: the dataset cache folder; ``None``: ``$ICML_TOPICS_DATA_DIR``, else the user cache folder.

    Examples:
        >>> df = load_source("pmlr:235", offline=True)
    """
    text = spec.strip() if isinstance(spec, str) else spec
    if not isinstance(text, str) or not is_source_spec(text):
        raise InvalidValueError(
            f"{spec!r} is not a source string; use 'pmlr:235', 'pmlr:icml2024', 'icml:2019-2025', "
            "'openreview:notes.json' or a path ending in .bib."
        )
    match = _SCHEME_RE.match(text)
    if match is None:  # a bare .bib path
        return load_pmlr(path=text)
    scheme, rest = match.group(1).lower(), match.group(2).strip()
    if not rest:
        raise InvalidValueError(f"{spec!r} names nothing after '{scheme}:'; e.g. '{scheme}:2024'.")
    if scheme == "openreview":
        return load_openreview(rest)
    if scheme == "pmlr" and (_is_bib_path(rest) or Path(rest).is_file()):
        return load_pmlr(path=rest)
    if scheme == "icml":
        years = parse_years(rest)
        if len(years) == 1:
            return load_pmlr(year=years[0], offline=offline, cache_dir=cache_dir)
        return fetch_icml(years, offline=offline, cache_dir=cache_dir)
    return load_pmlr(rest, offline=offline, cache_dir=cache_dir)

"""PMLR proceedings: parse a volume's BibTeX, and download it by ICML year or volume number.

PMLR (Proceedings of Machine Learning Research) publishes one volume per ICML, each with a
``bibliography.bib`` that holds every paper's title, authors and abstract. Parsing uses
``bibtexparser``; titles and abstracts keep their original LaTeX/HTML in ``title`` / ``abstract``,
and cleaned unicode text goes to ``title_clean`` / ``abstract_clean``.

Examples:
    >>> from icml_topics.datasets import load_pmlr
    >>> df = load_pmlr(2024)                         # ICML 2024 = PMLR volume 235, cached
    >>> df = load_pmlr(path="v235.bib", year=2024)   # a file you downloaded yourself
"""

from __future__ import annotations

import gzip
import logging
import os
import re
from pathlib import Path
from typing import Any

import pandas as pd

from icml_topics.corpus.load_report import Issue, LoadReport
from icml_topics.corpus.markup import latex_to_text
from icml_topics.corpus.records import Record, build_corpus, to_year
from icml_topics.datasets.cache import cached_download, get_cache_dir
from icml_topics.errors import InvalidTypeError, InvalidValueError, MissingFileError
from icml_topics.schema import CLEAN_COLUMNS, CORPUS_COLUMNS, join_cell

__all__ = [
    "ICML_PMLR_VOLUMES",
    "PMLR_BASE_URL",
    "format_bibtex_authors",
    "load_pmlr",
    "parse_pmlr_bibtex",
    "pmlr_bibtex_url",
    "pmlr_cache_path",
    "resolve_pmlr_volume",
]

logger = logging.getLogger("icml_topics.datasets")

#: ICML year -> PMLR volume holding that year's main-conference proceedings.
ICML_PMLR_VOLUMES: dict[int, int] = {
    2013: 28,
    2014: 32,
    2015: 37,
    2016: 48,
    2017: 70,
    2018: 80,
    2019: 97,
    2020: 119,
    2021: 139,
    2022: 162,
    2023: 202,
    2024: 235,
    2025: 267,
}
_ICML_YEAR_OF_VOLUME = {volume: year for year, volume in ICML_PMLR_VOLUMES.items()}

PMLR_BASE_URL = "https://proceedings.mlr.press"

# Entry types that describe a volume rather than a paper; listed in report.ignored.
_NON_PAPER_TYPES = {"proceedings", "book", "collection"}
_KEY_RE = re.compile(r"@\s*\w+\s*[{(]\s*([^,\s]+)\s*,")
_YEAR_RANGE = range(1900, 2101)


def pmlr_bibtex_url(volume: int) -> str:
    """The public URL of a PMLR volume's BibTeX file.

    Args:
        volume: the PMLR volume number (e.g. 235 for ICML 2024).

    Examples:
        >>> pmlr_bibtex_url(235)
        'https://proceedings.mlr.press/v235/assets/bib/bibliography.bib'
    """
    return f"{PMLR_BASE_URL}/v{int(volume)}/assets/bib/bibliography.bib"


def pmlr_cache_path(volume: int, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where the BibTeX of PMLR ``volume`` is cached: ``<cache dir>/pmlr/v<volume>.bib``.

    Args:
        volume: the PMLR volume number.
        cache_dir: the dataset cache folder; ``None``: ``$ICML_TOPICS_DATA_DIR``, else the user cache folder.

    Examples:
        >>> pmlr_cache_path(235, "cache").as_posix()
        'cache/pmlr/v235.bib'
    """
    return get_cache_dir(cache_dir) / "pmlr" / f"v{int(volume)}.bib"


def _known_years() -> str:
    return f"{min(ICML_PMLR_VOLUMES)}-{max(ICML_PMLR_VOLUMES)}"


def _icml_volume(year: int) -> int:
    try:
        return ICML_PMLR_VOLUMES[year]
    except KeyError:
        raise InvalidValueError(
            f"ICML {year} has no PMLR volume in ICML_PMLR_VOLUMES (known years: {_known_years()}). "
            f"If PMLR has published it, pass its number: load_pmlr(volume=N) or the source 'pmlr:N' "
            f"(volumes are listed at {PMLR_BASE_URL}/)."
        ) from None


def _parse_volume_or_year(value: int | str) -> tuple[int | None, int | None]:
    """``235``/``"v235"`` -> (235, None); ``2024``/``"icml2024"`` -> (None, 2024)."""
    if isinstance(value, bool):
        raise InvalidTypeError("volume_or_year must be an int or a string such as 2024, 235, 'v235' or 'icml2024'.")
    if isinstance(value, int):
        number = value
        text = str(value)
    else:
        text = str(value).strip().lower()
        match = re.fullmatch(r"(v|icml[-_ ]?)?(\d+)", text)
        if match is None:
            raise InvalidValueError(
                f"Cannot read {value!r} as a PMLR volume or ICML year; use e.g. 2024, 235, 'v235' or 'icml2024'."
            )
        number = int(match.group(2))
        if match.group(1) == "v":
            return number, None
        if match.group(1):
            return None, number
    if number in _YEAR_RANGE:
        return None, number
    if number <= 0:
        raise InvalidValueError(f"PMLR volume numbers are positive; got {text}.")
    return number, None


def resolve_pmlr_volume(
    volume_or_year: int | str | None = None, *, volume: int | None = None, year: int | None = None
) -> tuple[int | None, int | None]:
    """Return ``(volume, year)`` from any of the ways [`load_pmlr`][icml_topics.datasets.load_pmlr] accepts them.

    Numbers from 1900 to 2100 are years; others are volume numbers. The year of a known ICML
    volume (and the volume of a known ICML year) is filled in.

    Examples:
        >>> resolve_pmlr_volume(2024)
        (235, 2024)
        >>> resolve_pmlr_volume("v202")
        (202, 2023)
    """
    if volume_or_year is not None:
        parsed_volume, parsed_year = _parse_volume_or_year(volume_or_year)
        for name, given, parsed in (("volume", volume, parsed_volume), ("year", year, parsed_year)):
            if given is not None and parsed is not None and int(given) != parsed:
                raise InvalidValueError(f"{volume_or_year!r} and {name}={given} disagree; pass only one of them.")
        volume = volume if volume is not None else parsed_volume
        year = year if year is not None else parsed_year
    volume = None if volume is None else int(volume)
    year = None if year is None else int(year)
    if volume is None and year is not None:
        volume = _icml_volume(year)
    elif volume is not None and year is None:
        year = _ICML_YEAR_OF_VOLUME.get(volume)
    elif volume is not None and year is not None:
        expected = ICML_PMLR_VOLUMES.get(year)
        if expected is not None and expected != volume:
            raise InvalidValueError(
                f"ICML {year} is PMLR volume {expected}, not {volume}; pass only the year or only the volume."
            )
    return volume, year


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        logger.warning("%s is not valid UTF-8; reading it as Latin-1 (accents may be wrong).", source)
        return data.decode("latin-1")


def _read_input(text_or_path: str | bytes | os.PathLike[str]) -> tuple[str, str]:
    """Return (BibTeX text, source name). Strings with a newline or starting with '@' are text."""
    if isinstance(text_or_path, bytes):
        return _decode(text_or_path, "<bytes>"), "<bytes>"
    if isinstance(text_or_path, str) and ("\n" in text_or_path or text_or_path.lstrip().startswith("@")):
        return text_or_path, "<string>"
    path = Path(text_or_path).expanduser()
    if not path.is_file():
        raise MissingFileError(
            f"BibTeX file not found: {path}. Pass the path of a PMLR bibliography.bib "
            f"(download it from {PMLR_BASE_URL}/v<volume>/assets/bib/bibliography.bib) or the BibTeX text itself."
        )
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return _decode(data, str(path)), str(path)


def format_bibtex_authors(value: str | None) -> str | None:
    """``"Smith, Jane and M{\\"u}ller, K."`` -> ``"Jane Smith; K. Müller"`` (None when empty)."""
    from bibtexparser.middlewares.names import (
        InvalidNameError,
        parse_single_name_into_parts,
        split_multiple_persons_names,
    )

    if value is None or not value.strip():
        return None
    names = []
    for raw in split_multiple_persons_names(value):
        try:
            parts = parse_single_name_into_parts(raw)
            name = " ".join(parts.first + parts.von + parts.last) + (", " + " ".join(parts.jr) if parts.jr else "")
        except InvalidNameError:
            name = raw
        name = " ".join(latex_to_text(name).split())
        if name:
            names.append(name)
    return join_cell(names) or None


def _location(block: Any) -> str:
    line = "" if block.start_line is None else f"line {block.start_line + 1}"
    key = getattr(block, "key", None)
    if key is None and getattr(block, "raw", None):
        match = _KEY_RE.match(block.raw.lstrip())
        key = match.group(1) if match else None
    if key:
        return f"entry {key!r}" + (f" ({line})" if line else "")
    return line or "unknown position"


def _failure_reason(block: Any) -> str:
    from bibtexparser.model import DuplicateFieldKeyBlock

    if isinstance(block, DuplicateFieldKeyBlock):
        return f"field(s) {', '.join(sorted(block.duplicate_keys))} given twice; fix the entry to keep it"
    error = getattr(block, "error", None)
    detail = getattr(error, "abort_reason", None) or str(error or "") or type(error).__name__
    return "malformed BibTeX, fix the entry to keep it (" + " ".join(detail.split()) + ")"


def _fields(entry: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for field in entry.fields:
        fields.setdefault(field.key.lower(), field.value)
    return fields


def _inherited(fields: dict[str, Any], proceedings: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``fields`` completed, as BibTeX does, from its ``crossref`` parent or the file's single
    ``@Proceedings`` entry: the parent's ``title`` becomes ``booktitle``; the entry's own fields win."""
    parent = proceedings.get(str(fields.get("crossref", "")).strip().lower())
    if parent is None and len(proceedings) == 1 and "crossref" not in fields:
        parent = next(iter(proceedings.values()))
    if parent is None:
        return fields
    inherited = {k: v for k, v in parent.items() if k not in {"title", "abstract", "author"}}
    if "title" in parent:
        inherited.setdefault("booktitle", parent["title"])
    return {**inherited, **fields}


def _display_title(raw: Any) -> Any:
    """A BibTeX title as it is meant to be read: ``R{\'e}nyi`` -> ``Rényi``, ``{B}ayesian`` -> ``Bayesian``."""
    return " ".join(latex_to_text(raw).split()) if isinstance(raw, str) else raw


def _entry_record(
    entry: Any,
    location: str,
    *,
    venue: str | None,
    year: int | None,
    proceedings: dict[str, dict[str, Any]] | None = None,
) -> Record:
    fields = _inherited(_fields(entry), proceedings or {})
    raw_title = fields.pop("title", None)
    record: dict[str, Any] = {
        "id": entry.key,
        "venue": venue,
        "year": to_year(fields.pop("year", None)) or year,
        "title": _display_title(raw_title),
        "title_bibtex": raw_title,
        "abstract": fields.pop("abstract", None) or "",
        "authors": format_bibtex_authors(fields.pop("author", None)),
    }
    for key, value in fields.items():
        record[f"bib_{key}" if key in CORPUS_COLUMNS or key in CLEAN_COLUMNS else key] = value
    return Record(location, record)


def parse_pmlr_bibtex(
    text_or_path: str | bytes | os.PathLike[str],
    *,
    venue: str | None = "ICML",
    year: int | None = None,
    source: str | None = None,
) -> pd.DataFrame:
    """Parse a PMLR volume's BibTeX into the corpus table.

    Args:
        text_or_path: BibTeX text, or the path of a ``.bib`` (or ``.bib.gz``) file.
        venue: the ``venue`` of every row.
        year: the ``year`` of entries that have no ``year`` field.
        source: the name used in the load report (default: the path).

    Returns:
        One row per paper entry, ``id`` = the BibTeX key. Other BibTeX fields (``pdf``, ``url``,
        ``pages``, ``volume``, ...) are kept as extra columns. Broken entries are skipped and
        repeated keys renamed ``<key>#1`` (every entry kept); both are listed in ``df.attrs["load_report"]``.

    Raises:
        ValueError: the input holds no BibTeX entry at all.

    Examples:
        >>> df = parse_pmlr_bibtex("v235.bib", year=2024)
        >>> df[["id", "title_clean"]].head()
    """
    import bibtexparser
    from bibtexparser.model import DuplicateBlockKeyBlock, Entry, ParsingFailedBlock

    text, name = _read_input(text_or_path)
    report = LoadReport(source=source or name)
    library = bibtexparser.parse_string(text)
    proceedings = {
        block.key.strip().lower(): _fields(block)
        for block in library.blocks
        if isinstance(block, Entry) and block.entry_type.lower() in _NON_PAPER_TYPES
    }
    records: list[Record] = []
    for block in library.blocks:
        if isinstance(block, DuplicateBlockKeyBlock):
            duplicate = block.ignore_error_block
            report.n_read += 1
            if isinstance(duplicate, Entry):  # kept and renamed by build_corpus, which says whether it differs
                parsed = bibtexparser.parse_string(duplicate.raw).entries if duplicate.raw else []
                entry = parsed[0] if parsed else duplicate  # the parse above runs the middlewares (braces) on it
                records.append(_entry_record(entry, _location(block), venue=venue, year=year, proceedings=proceedings))
            else:
                report.skipped.append(Issue(_location(block), f"repeats the key {block.key!r} but is not an entry"))
        elif isinstance(block, ParsingFailedBlock):
            report.n_read += 1
            report.skipped.append(Issue(_location(block), _failure_reason(block)))
        elif isinstance(block, Entry):
            if block.entry_type.lower() in _NON_PAPER_TYPES:
                report.ignored.append(Issue(_location(block), f"@{block.entry_type} entry (not a paper)"))
                continue
            report.n_read += 1
            records.append(_entry_record(block, _location(block), venue=venue, year=year, proceedings=proceedings))
    if report.n_read == 0 and not report.ignored:
        raise InvalidValueError(
            f"No BibTeX entries found in {report.source}. Expected a PMLR bibliography.bib "
            "(entries like '@InProceedings{pmlr-v235-smith24a, title = {...}, ...}')."
        )
    return build_corpus(records, report)


def _looks_like_bibtex(data: bytes) -> None:
    if not re.search(rb"@\s*inproceedings\s*[{(]", data[:200_000], re.IGNORECASE):
        start = data[:60].decode("utf-8", "replace").strip()
        raise InvalidValueError(f"no @InProceedings entry in {len(data)} bytes starting with {start!r}")


def _single_volume(df: pd.DataFrame) -> int | None:
    """The PMLR volume all entries of a parsed file name (``volume`` field or ``pmlr-v<N>-`` keys)."""
    volumes = {str(v).strip() for v in df["volume"].dropna()} if "volume" in df.columns else set()
    if not volumes:
        volumes = {m.group(1) for m in map(re.compile(r"pmlr-v(\d+)-").match, df["id"]) if m}
    return int(volumes.pop()) if len(volumes) == 1 and next(iter(volumes)).isdigit() else None


def load_pmlr(
    volume_or_year: int | str | None = None,
    *,
    volume: int | None = None,
    year: int | None = None,
    path: str | os.PathLike[str] | None = None,
    offline: bool = False,
    cache_dir: str | os.PathLike[str] | None = None,
    venue: str | None = None,
) -> pd.DataFrame:
    """Load a PMLR volume (by ICML year or volume number) as the corpus table.

    The volume's BibTeX is read from ``path`` when given, else from the cache
    ([`pmlr_cache_path`][icml_topics.datasets.pmlr_cache_path]), downloading it there first when online.

    Args:
        volume_or_year: an ICML year (``2024``, ``"icml2024"``) or a PMLR volume (``235``, ``"v235"``).
        volume: a PMLR volume number, by keyword.
        year: an ICML year, by keyword.
        path: a local ``bibliography.bib``; no cache or network is used.
        offline: never touch the network (``ICML_TOPICS_OFFLINE=1`` has the same effect).
        cache_dir: the cache folder (default: ``$ICML_TOPICS_DATA_DIR`` or the user cache folder).
        venue: the ``venue`` column (default ``"ICML"`` for ICML volumes, else ``"PMLR v<volume>"``;
            for a ``path``, the volume is read from the entries' ``volume`` field or keys).

    Raises:
        DatasetUnavailableError: not cached and offline, or the download failed; the message says
            which URL to download and where to save it.
        ValueError: a year with no known PMLR volume, or contradictory arguments.

    Examples:
        >>> df = load_pmlr(2024, offline=True)
        >>> df.attrs["load_report"].summary()
    """
    resolved_volume, resolved_year = resolve_pmlr_volume(volume_or_year, volume=volume, year=year)
    if path is not None:
        df = parse_pmlr_bibtex(Path(path), venue=venue, year=resolved_year)
        file_volume = resolved_volume or _single_volume(df)
        if venue is None and file_volume is not None:
            default = "ICML" if file_volume in _ICML_YEAR_OF_VOLUME else f"PMLR v{file_volume}"
            df["venue"] = df["venue"].fillna(default)
        if file_volume in _ICML_YEAR_OF_VOLUME:
            df["year"] = df["year"].fillna(_ICML_YEAR_OF_VOLUME[file_volume])
        return df
    if venue is None:
        venue = "ICML" if resolved_volume in _ICML_YEAR_OF_VOLUME else f"PMLR v{resolved_volume}"
    if resolved_volume is None:
        raise InvalidTypeError(
            "load_pmlr needs a volume, a year or a path: load_pmlr(2024), load_pmlr(volume=235) "
            "or load_pmlr(path='bibliography.bib')."
        )
    what = f"PMLR volume {resolved_volume}" + (
        f" (ICML {resolved_year})" if resolved_volume in _ICML_YEAR_OF_VOLUME else ""
    )
    file = cached_download(
        pmlr_bibtex_url(resolved_volume),
        pmlr_cache_path(resolved_volume, cache_dir),
        what=what,
        offline=offline,
        validate=_looks_like_bibtex,
    )
    try:
        return parse_pmlr_bibtex(file, venue=venue, year=resolved_year, source=f"{what} ({file})")
    except ValueError as exc:
        raise InvalidValueError(
            f"{exc} The cached file {file} is damaged or not BibTeX: delete it and load again to re-download."
        ) from exc

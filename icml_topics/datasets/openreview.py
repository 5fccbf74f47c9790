"""OpenReview submissions (API v2 notes, API v1 accepted too) -> the corpus table.

Save a venue's submissions with the official client, then load the JSON here; no network is used::

    import json, openreview
    client = openreview.api.OpenReviewClient(baseurl="https://api2.openreview.net")
    notes = client.get_all_notes(content={"venueid": "ICML.cc/2024/Conference"})
    json.dump([n.to_json() for n in notes], open("icml2024.json", "w"))

Examples:
    >>> from icml_topics.datasets import load_openreview
    >>> df = load_openreview("icml2024.json")
    >>> df[["id", "venue", "year", "status", "primary_area"]].head()
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from icml_topics.corpus.load_report import Issue, LoadReport
from icml_topics.corpus.record_files import LINE_SUFFIXES, Broken, format_suffix, iter_jsonl, read_json, read_text
from icml_topics.corpus.records import Record, build_corpus, is_missing, join_list
from icml_topics.errors import InvalidValueError
from icml_topics.schema import CLEAN_COLUMNS, CORPUS_COLUMNS

__all__ = ["OPENREVIEW_URL", "load_openreview", "openreview_status"]

OPENREVIEW_URL = "https://openreview.net"

# "ICML.cc/2024/Conference/Rejected_Submission" -> ("ICML", "2024")
_VENUE_ID_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*?)(?:\.(?:cc|org|ai|com|net))?/(\d{4})(?:/|$)")
_VENUEID_STATUS = {
    "desk_rejected_submission": "Desk Rejected",
    "rejected_submission": "Rejected",
    "withdrawn_submission": "Withdrawn",
}
_PRESENTATION = ("oral", "spotlight", "poster")
# Top-level note fields that are access control or bookkeeping, not paper metadata.
_DROPPED_NOTE_FIELDS = {"id", "content", "details", "readers", "writers", "signatures", "nonreaders"}


def _value(field: Any) -> Any:
    """API v2 wraps every content field as ``{"value": ...}``; API v1 does not."""
    if isinstance(field, dict) and "value" in field:
        return field["value"]
    return field


def _text(field: Any, name: str) -> str | None:
    value = _value(field)
    if is_missing(value):
        return None
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    raise InvalidValueError(f"content.{name} is a {type(value).__name__}, expected text")


def openreview_status(venue: str | None, venueid: str | None, decision: str | None = None) -> str | None:
    """The outcome of a submission: the decision when known, else read from ``venue``/``venueid``.

    Examples:
        >>> openreview_status("ICML 2024 Oral", "ICML.cc/2024/Conference")
        'Oral'
        >>> openreview_status("Submitted to ICLR 2024", "ICLR.cc/2024/Conference/Rejected_Submission")
        'Rejected'
    """
    if decision:
        return decision
    last = (venueid or "").rstrip("/").rsplit("/", 1)[-1].lower()
    if last in _VENUEID_STATUS:
        return _VENUEID_STATUS[last]
    words = (venue or "").lower().split()
    if words and words[-1] in _PRESENTATION:
        return words[-1].capitalize()
    if "withdrawn" in words:
        return "Withdrawn"
    if words[:2] == ["submitted", "to"]:
        return "Submitted"
    if last == "conference":
        return "Accepted"
    return None


def _venue_and_year(candidates: Iterable[Any]) -> tuple[str | None, int | None]:
    for candidate in candidates:
        if isinstance(candidate, list):
            candidate = candidate[0] if candidate else None
        if isinstance(candidate, str):
            match = _VENUE_ID_RE.match(candidate)
            if match:
                return match.group(1), int(match.group(2))
    return None, None


def _decision(note: dict[str, Any]) -> str | None:
    details = note.get("details")
    if not isinstance(details, dict):
        return None
    for key in ("directReplies", "replies"):
        for reply in details.get(key) or []:
            content = reply.get("content") if isinstance(reply, dict) else None
            if isinstance(content, dict) and "decision" in content:
                decision = _value(content["decision"])
                if isinstance(decision, str) and decision.strip():
                    return decision.strip()
    return None


def _note_record(note: Any, location: str, *, venue: str | None, year: int | None) -> Record:
    """One note -> a record; ``ValueError`` (with the reason) for a malformed note."""
    if not isinstance(note, dict):
        raise InvalidValueError(f"is a {type(note).__name__}, expected a note object")
    note_id = note.get("id")
    if not isinstance(note_id, str) or not note_id.strip():
        raise InvalidValueError("has no 'id'")
    content = note.get("content")
    if not isinstance(content, dict):
        raise InvalidValueError("has no 'content' object")
    content = dict(content)
    or_venue = _text(content.pop("venue", None), "venue")
    venueid = _text(content.pop("venueid", None), "venueid")
    found_venue, found_year = _venue_and_year(
        [venueid, note.get("domain"), note.get("invitations"), note.get("invitation")]
    )
    decision = _decision(note)
    authors = _value(content.pop("authors", None))
    if not (authors is None or isinstance(authors, (str, list))):
        raise InvalidValueError(f"content.authors is a {type(authors).__name__}, expected a list of names")
    record: dict[str, Any] = {
        "id": note_id.strip(),
        "venue": found_venue or venue,
        "year": found_year or year,
        "title": _text(content.pop("title", None), "title"),
        "abstract": _text(content.pop("abstract", None), "abstract") or "",
        "authors": join_list(authors),
        "status": openreview_status(or_venue, venueid, decision),
        "decision": decision,
        "openreview_venue": or_venue,
        "venueid": venueid,
        "keywords": join_list(_value(content.pop("keywords", None))),
        "primary_area": _text(content.pop("primary_area", None), "primary_area"),
        "url": f"{OPENREVIEW_URL}/forum?id={note.get('forum') or note_id}",
    }
    pdf = _value(content.pop("pdf", None))
    record["pdf"] = f"{OPENREVIEW_URL}{pdf}" if isinstance(pdf, str) and pdf.startswith("/") else pdf
    for key, field in content.items():
        name = f"content_{key}" if key in record or key in CORPUS_COLUMNS or key in CLEAN_COLUMNS else key
        record[name] = join_list(_value(field))
    for key, value in note.items():
        if key not in _DROPPED_NOTE_FIELDS and key not in record and isinstance(value, (str, int, float)):
            record[key] = value
    return Record(location, record)


def _items(data: Any, prefix: str = "") -> Iterable[tuple[str, Any]]:
    """Notes from a list of notes, ``{"notes": [...]}``, a single note, or a list of such pages."""
    if isinstance(data, dict) and isinstance(data.get("notes"), list):
        for index, note in enumerate(data["notes"]):
            yield f"{prefix}note {index}", note
    elif isinstance(data, list):
        for index, item in enumerate(data):
            if isinstance(item, dict) and isinstance(item.get("notes"), list):
                yield from _items(item, f"{prefix}page {index} ")
            else:
                yield f"{prefix}note {index}", item
    elif isinstance(data, dict) and "content" in data:
        yield f"{prefix}note 0", data
    else:
        raise InvalidValueError(
            'Expected OpenReview notes: a list of notes, {"notes": [...]} as the API returns, or a '
            f"JSON/JSONL file of them; got a {type(data).__name__}"
            + (f" with keys {sorted(data)[:8]}" if isinstance(data, dict) else "")
            + "."
        )


def load_openreview(
    path_or_json: str | os.PathLike[str] | list[Any] | dict[str, Any],
    *,
    venue: str | None = None,
    year: int | None = None,
) -> pd.DataFrame:
    """Load OpenReview submissions (notes as the API returns them) as the corpus table.

    Args:
        path_or_json: a list of notes, ``{"notes": [...]}``, JSON text, or the path of a
            ``.json`` / ``.jsonl`` file (``.gz`` allowed; in JSONL each line is a note or a page
            ``{"notes": [...]}``).
        venue: used for notes whose ``venueid``/``domain``/invitation does not name it
            (``"ICML.cc/2024/Conference"`` gives venue ``"ICML"``, year 2024).
        year: used for notes whose ``venueid``/``domain``/invitation does not name it.

    Returns:
        One row per note, ``id`` = the note id, with extra columns ``status`` (``"Oral"``,
        ``"Poster"``, ``"Rejected"``, ... or the decision when the notes carry decision replies),
        ``decision``, ``openreview_venue``, ``venueid``, ``keywords``, ``primary_area``, ``url``,
        ``pdf`` and any other content fields. Malformed notes are skipped and repeated ids renamed
        ``<id>#1``; both are listed in ``df.attrs["load_report"]``.

    Examples:
        >>> df = load_openreview({"notes": [{"id": "x1", "content": {"title": {"value": "T"}}}]})
        >>> df.loc[0, "title"]
        'T'
    """
    report = LoadReport(source="<notes>")
    records: list[Record] = []

    def add(location: str, note: Any) -> None:
        report.n_read += 1
        try:
            records.append(_note_record(note, location, venue=venue, year=year))
        except ValueError as exc:
            report.skipped.append(Issue(location, f"malformed note: {exc}"))

    if isinstance(path_or_json, (list, dict)):
        for location, note in _items(path_or_json, ""):
            add(location, note)
        return build_corpus(records, report)

    if isinstance(path_or_json, str) and path_or_json.lstrip()[:1] in ("[", "{"):
        text, source, is_lines = path_or_json, "<json text>", False
    else:
        path = Path(path_or_json).expanduser()
        text, source = read_text(path), str(path)
        is_lines = format_suffix(path) in LINE_SUFFIXES
    report.source = source
    if is_lines:
        for line, value in iter_jsonl(text):
            if isinstance(value, Broken):
                report.n_read += 1
                report.skipped.append(Issue(f"line {line}", str(value)))
            elif isinstance(value, list) or (isinstance(value, dict) and isinstance(value.get("notes"), list)):
                for location, note in _items(value, f"line {line} "):
                    add(location, note)
            else:
                add(f"line {line}", value)
    else:
        for location, note in _items(read_json(text, source), ""):
            add(location, note)
    return build_corpus(records, report)

"""Where a report's files go: the HTML at the path given, its tables under the same folder rules as ``--out``.

A report's CSV tables in a folder (``tables/`` beside ``report.html``, as ``TopicMap.report`` writes them) are
an output folder of their own: checked before anything is written, staged, listed in ``manifest.json`` and
swapped in as a whole (``store/folders.py``), so a folder holding a file icml_topics did not write (a user's own
``tables/topics.csv``) is refused, never overwritten. The HTML replaces only a report icml_topics wrote (its
``<meta name="generator" content="icml_topics">``); a table written straight beside it only a file that the
earlier report there lists with its unchanged SHA-256 (``<meta name="icml-topics-files">``).

Examples:
    >>> from icml_topics.report.files import write_report_files
    >>> write_report_files("proj/report.html", html_text, {"tables/topics.csv": topics})
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

import pandas as pd

from icml_topics._io import atomic_write_text, sha256_file
from icml_topics.errors import InvalidValueError
from icml_topics.store.csv_files import write_csv
from icml_topics.store.folders import check_output_path, output_folder

__all__ = ["GENERATOR", "write_report_files"]

GENERATOR = '<meta name="generator" content="icml_topics">'
_FILES = re.compile(r'<meta name="icml-topics-files" content="([^"]*)">')
_HEAD_BYTES = 1 << 16  # the meta tags are in the first lines of the page


def _earlier_report(target: Path) -> dict[str, str] | None:
    """The files the report at ``target`` lists (name -> SHA-256) when icml_topics wrote it; None when there
    is no file; a refusal when it is something else (a folder, a link, a page or file of the user's)."""
    if not target.exists() and not target.is_symlink():
        return None
    head = ""
    if target.is_file() and not target.is_symlink():
        with contextlib.suppress(OSError), open(target, "rb") as fh:
            head = fh.read(_HEAD_BYTES).decode("utf-8", errors="replace")
    if GENERATOR not in head:
        raise InvalidValueError(
            f"report path {target} already exists and is not a report icml_topics wrote (a symbolic link, a folder "
            "or another file); it is never overwritten: choose another path (or move that file away)."
        )
    found = _FILES.search(head)
    try:
        listed = json.loads(html.unescape(found.group(1))) if found else {}
    except ValueError:
        listed = {}
    return listed if isinstance(listed, dict) else {}


def _check_beside(target: Path, names: list[str], listed: Mapping[str, str]) -> None:
    """A table written straight beside the HTML replaces only a file the earlier report lists, unchanged."""
    for name in names:
        path = target.parent / name
        if not path.exists() and not path.is_symlink():
            continue
        if path.is_symlink() or not path.is_file() or listed.get(name) != sha256_file(path):
            raise InvalidValueError(
                f"{path} exists and icml_topics cannot prove it wrote it (the report at {target} does not list it "
                "unchanged); it is never overwritten: give the table a csv_name in a folder of its own (e.g. "
                f"'tables/{PurePosixPath(name).name}'), write the report elsewhere, or move that file away."
            )


def write_report_files(
    path: str | os.PathLike, page: str, tables: Mapping[str, pd.DataFrame], *, csv_safe: bool = True
) -> list[Path]:
    """Write the HTML ``page`` to ``path`` and each table at its relative ``csv_name`` (``tables``); every
    folder rule is checked before anything is written. Returns the paths written, the HTML first."""
    target = Path(path).expanduser()
    listed = _earlier_report(target)
    folders: dict[str, dict[str, pd.DataFrame]] = {}
    beside: dict[str, pd.DataFrame] = {}
    for name, frame in tables.items():
        top, _, rest = name.partition("/")
        if rest:
            folders.setdefault(top, {})[rest] = frame
        else:
            beside[name] = frame
    _check_beside(target, list(beside), listed or {})
    for top in folders:
        _checked(lambda top=top: check_output_path(target.parent / top, label="the report's tables folder"))
    written = []
    for top, frames in folders.items():
        with output_folder(target.parent / top, label="the report's tables folder") as stage:
            for rest, frame in frames.items():
                write_csv(frame, stage / rest, csv_safe=csv_safe)
        written += [target.parent / top / rest for rest in frames]
    hashes = {}
    for name, frame in beside.items():
        written.append(write_csv(frame, target.parent / name, csv_safe=csv_safe))
        hashes[name] = sha256_file(target.parent / name)
    record = html.escape(json.dumps(hashes, sort_keys=True), quote=True)
    page = page.replace(GENERATOR, f'{GENERATOR}\n<meta name="icml-topics-files" content="{record}">', 1)
    atomic_write_text(target, page)
    return [target, *written]


def _checked(step):
    """``step()``, a refusal of the tables folder told with the report's own ways out."""
    try:
        return step()
    except InvalidValueError as exc:
        raise InvalidValueError(
            f"{exc} The report writes its tables there: pass tables=False, or write the report to another folder."
        ) from None

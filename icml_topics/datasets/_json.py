"""Reading JSON / JSONL (optionally gzipped) with per-line error reporting, shared by the loaders."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["compression_free_suffix", "iter_jsonl", "read_json", "read_text"]


def compression_free_suffix(path: Path) -> str:
    """``papers.jsonl.gz`` -> ``".jsonl"``; ``papers.CSV`` -> ``".csv"``."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def read_text(path: str | os.PathLike[str]) -> str:
    """The UTF-8 text of ``path`` (gunzipped when it ends in ``.gz``); a clear error when missing."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"File not found: {path}. Check the path (it is relative to {Path.cwd()}).")
    data = path.read_bytes()
    if path.suffix.lower() == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise ValueError(f"{path} ends in .gz but is not a valid gzip file ({exc}).") from exc
    return data.decode("utf-8-sig", errors="replace")


def read_json(text: str, source: str) -> Any:
    """``json.loads`` with an error that names the file, position and what to try instead."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{source} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}). "
            "If it holds one JSON object per line, give it a .jsonl suffix so that each line is read "
            "separately and broken lines are skipped and reported."
        ) from exc


def iter_jsonl(text: str) -> Iterator[tuple[int, Any, str | None]]:
    """Yield ``(line number, value, None)`` per non-blank line, or ``(line, None, error)`` if invalid.

    Lines end at ``\n`` only: ``str.splitlines`` would also split at characters such as U+2028
    or form feeds, which JSON allows unescaped inside strings.
    """
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line), None
        except json.JSONDecodeError as exc:
            yield number, None, f"invalid JSON ({exc.msg} at column {exc.colno})"

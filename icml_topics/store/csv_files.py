"""The one CSV writer: every table the package writes (fit and compare outputs, report tables) goes through
:func:`write_csv`, atomically and spreadsheet-safe by default.

Spreadsheet-safe (OWASP's CSV-injection guidance): a text cell or header starting with ``=``, ``+``, ``-``,
``@``, a tab, a carriage return or a full-width ``＝ ＋ － ＠`` gets a leading ``'``, so Excel and LibreOffice
show it as text instead of running it as a formula. Numbers are not text: numeric columns, and text cells
that are a plain number such as ``-1.5``, are written as they are. ``csv_safe=False`` (CLI: ``--raw-csv``)
writes every cell exactly as fitted, for pandas or R. In both modes a control character (a NUL, an ESC
starting a terminal colour) never reaches the file: ``schema.printable`` removes it.

Examples:
    >>> from icml_topics.store.csv_files import write_csv
    >>> write_csv(pd.DataFrame({"label": ["=SUM(A1)", "-1.5"]}), "out/labels.csv")
    PosixPath('out/labels.csv')
    >>> Path("out/labels.csv").read_text()
    "label\\n'=SUM(A1)\\n-1.5\\n"
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pandas as pd

from icml_topics._io import atomic_open
from icml_topics.schema import cell_text, printable

__all__ = ["write_csv"]

#: what starts a formula in a spreadsheet (OWASP CSV injection), full-width forms included
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")  # "-1.5": a number, not a formula
_LINE_BREAK = re.compile(r"\r\n?")


def _csv_cell(value: Any, csv_safe: bool = True) -> Any:
    """One CSV cell: a list joined with ``"; "``; a text that a spreadsheet would run as a formula
    prefixed with ``'`` (``csv_safe``); line breaks as ``\\n``; control characters and terminal escape sequences
    removed (both modes). Anything else as it is."""
    value = cell_text(value)
    if isinstance(value, str):
        value = printable(value)  # a NUL or an escape sequence never reaches a file (ids refused at read time)
        # checked before line breaks are normalised, so a leading "\r=" is caught as a carriage return
        if csv_safe and value.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(value):
            value = "'" + value
        # a bare carriage return is not quoted by the csv module and would split the record
        value = _LINE_BREAK.sub("\n", value)
    return value


def write_csv(frame: pd.DataFrame, path: str | os.PathLike, *, csv_safe: bool = True) -> Path:
    """Write ``frame`` as UTF-8 CSV atomically; list cells are joined with ``"; "``.

    Line breaks inside cells are written as ``\\n`` (quoted), so every record is one CSV record.
    ``csv_safe`` (default): text cells and headers that a spreadsheet would run as a formula get a
    leading ``'``; numeric columns are left as they are. ``csv_safe=False``: every cell as it is.
    """
    out = frame.copy()
    for i in range(out.shape[1]):  # by position: a table may repeat a column name
        col = out.iloc[:, i]
        if not (pd.api.types.is_numeric_dtype(col) or pd.api.types.is_datetime64_any_dtype(col)):
            out.isetitem(i, col.astype(object).map(lambda v: _csv_cell(v, csv_safe)))
    out.columns = [_csv_cell(c, csv_safe) if isinstance(c, str) else c for c in out.columns]
    with atomic_open(path, "w") as fh:
        out.to_csv(fh, index=False)
    return Path(path)

"""Write a fitted model's output folder: documents.csv, topics.csv, themes.csv, report.html, model/.

    >>> write_outputs(tm, "out/")       # doctest: +SKIP
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from icml_topics._io import atomic_open

__all__ = ["CSV_DOCUMENT_COLUMNS", "write_outputs", "write_csv"]

CSV_DOCUMENT_COLUMNS = [
    "id", "venue", "year", "title", "topic", "topic_label", "theme", "theme_score", "theme_2", "theme_2_score", "theme_reason",
    "x", "y", "status", "drop_reason", "is_duplicate", "duplicate_of",
]


def write_csv(frame: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write ``frame`` as UTF-8 CSV atomically; list cells are joined with ``"; "``."""
    out = frame.copy()
    for col in out.columns:
        if out[col].map(lambda v: isinstance(v, (list, tuple))).any():
            out[col] = out[col].map(lambda v: "; ".join(map(str, v)) if isinstance(v, (list, tuple)) else v)
    with atomic_open(path, "w") as fh:
        out.to_csv(fh, index=False)
    return Path(path)


def write_outputs(
    model: Any,
    out: str | os.PathLike,
    *,
    title: str = "Topic map",
    save_model: bool = True,
    report: bool = True,
    static_map: bool = True,
) -> dict[str, Path]:
    """Write every output of a fitted ``model`` into folder ``out``; returns the paths written.
    ``static_map``: also ``map.png`` and ``map.svg`` (DataMapPlot, print resolution)."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    docs = model.documents_
    paths = {
        "documents": write_csv(docs[[c for c in CSV_DOCUMENT_COLUMNS if c in docs.columns]], folder / "documents.csv"),
        "topics": write_csv(model.topics_, folder / "topics.csv"),
        "themes": write_csv(model.themes_, folder / "themes.csv"),
    }
    if report:
        # the tables are the CSVs above (one table, one column set): no second copy under tables/
        paths["report"] = model.report(folder / "report.html", title=title, tables=False)
    if static_map:
        from icml_topics.plotting.static_map import write_map_files

        paths.update(write_map_files(model.documents_, folder, title=title))
    if save_model:
        paths["model"] = model.save(folder / "model")
    return paths

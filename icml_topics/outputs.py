"""Write a fitted model's output folder: documents.csv, topics.csv, themes.csv, topic_tree.csv, report.html, model/.

A run's outputs are written into a staging folder next to ``out`` (``<out>.tmp-<pid>``), completed
with ``manifest.json`` (the SHA-256 of every file and ``"complete": true``), and only then swapped
into place as a whole: an interrupted run leaves the earlier folder as it was (or no folder), never
files of two runs side by side. Staging folders of dead runs are removed by the next run.

    >>> write_outputs(tm, "out/")       # doctest: +SKIP
    >>> verify_folder("out/")           # raises unless every file matches the manifest  # doctest: +SKIP

CSV cells are written as they are by default, so that pandas/R read back exactly the fitted values.
``csv_safe=True`` (CLI: ``--csv-safe``) prefixes text cells starting with ``=``, ``+``, ``-`` or ``@``
with ``'`` so that spreadsheet programs show them as text instead of running them as formulas.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from icml_topics._io import MANIFEST, atomic_open, verify_folder, write_manifest
from icml_topics._progress import STAGE
from icml_topics.schema import CSV_DOCUMENT_COLUMNS, cell_text, csv_document_columns

__all__ = [
    "CSV_DOCUMENT_COLUMNS",
    "MANIFEST",
    "check_output_path",
    "output_folder",
    "verify_folder",
    "write_csv",
    "write_outputs",
]

logger = logging.getLogger("icml_topics")

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_LINE_BREAK = re.compile(r"\r\n?")


def _csv_cell(value: Any, csv_safe: bool) -> Any:
    value = cell_text(value)
    if isinstance(value, str):
        # a bare carriage return is not quoted by the csv module and would split the record
        value = _LINE_BREAK.sub("\n", value)
        if csv_safe and value.startswith(_FORMULA_START):
            value = "'" + value
    return value


def write_csv(frame: pd.DataFrame, path: str | os.PathLike, *, csv_safe: bool = False) -> Path:
    """Write ``frame`` as UTF-8 CSV atomically; list cells are joined with ``"; "``.

    Line breaks inside cells are written as ``\\n`` (quoted), so every record is one CSV record;
    ``csv_safe=True`` neutralises cells that a spreadsheet would read as a formula.
    """
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].map(lambda v: _csv_cell(v, csv_safe))
    with atomic_open(path, "w") as fh:
        out.to_csv(fh, index=False)
    return Path(path)


def check_output_path(out: str | os.PathLike) -> Path:
    """Raise ``ValueError`` now (before any work) when ``out`` cannot become an output folder."""
    folder = Path(out).expanduser()
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--out {folder} is an existing file, not a folder; choose a folder path (it is created).")
    if folder.is_dir():
        ours = _manifest_names(folder)
        foreign = sorted(p.name for p in folder.iterdir() if p.name not in ours and not _is_output_name(p.name))
        if foreign:
            raise ValueError(
                f"--out {folder} already holds files that icml_topics did not write (e.g. {foreign[0]}); the output "
                "folder is replaced as a whole, so choose a new or empty folder."
            )
    parent = folder.absolute().parent
    probe_root = parent
    while not probe_root.exists():
        probe_root = probe_root.parent
    if not probe_root.is_dir():
        raise ValueError(
            f"--out {folder}: {probe_root} is a file, so the folder cannot be created there; choose another path."
        )
    try:
        parent.mkdir(parents=True, exist_ok=True)
        probe = parent / f".{folder.name}.probe-{os.getpid()}"
        probe.mkdir()
        probe.rmdir()
    except OSError as exc:
        raise ValueError(
            f"--out {folder} cannot be written ({exc.strerror or exc}); choose a writable folder."
        ) from None
    return folder


def _manifest_names(folder: Path) -> set[str]:
    """Top-level names listed in ``folder``'s manifest (an earlier run's outputs), if it has one."""
    try:
        files = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["files"]
        return {name.split("/", 1)[0] for name in files}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return set()


def _is_output_name(name: str) -> bool:
    """A name that a fit or compare run writes at the top of its output folder."""
    return (
        name.endswith(".csv")
        or name in {"report.html", "map.png", "map.svg", "model", "tables", MANIFEST}
        or name.startswith(".")
    )


def _remove_stale_staging(folder: Path) -> None:
    """Remove ``<out>.tmp-<pid>`` staging folders and ``.<out>.probe-<pid>`` write probes whose process is
    gone (left by a killed run)."""
    name = glob_escape(folder.name)
    for stale in [*folder.parent.glob(f"{name}.tmp-*"), *folder.parent.glob(f".{name}.probe-*")]:
        pid = stale.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)
    old = folder.parent / f".{folder.name}.old"
    if old.exists() and folder.exists():
        shutil.rmtree(old, ignore_errors=True)
    elif old.exists():  # killed between the two renames: the earlier, complete run comes back
        old.rename(folder)


def glob_escape(name: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", name)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def output_folder(out: str | os.PathLike) -> Iterator[Path]:
    """Yield a staging folder; on success it gets a manifest and replaces ``out`` as a whole.

    On error the staging folder is removed and ``out`` is left as it was.
    """
    folder = Path(out).expanduser().absolute()
    check_output_path(folder)
    _remove_stale_staging(folder)
    staging = folder.with_name(f"{folder.name}.tmp-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        yield staging
        write_manifest(staging)
        old = folder.with_name(f".{folder.name}.old")
        if folder.exists():
            shutil.rmtree(old, ignore_errors=True)
            folder.rename(old)
        staging.rename(folder)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def write_outputs(model: Any, out: str | os.PathLike, **options: Any) -> dict[str, Path]:
    """Write every output of a fitted ``model`` into folder ``out`` (swapped into place as a whole);
    returns the paths written. ``options`` are :func:`write_outputs_into`'s (``title``, ``save_model``,
    ``report``, ``csv_safe``, ``static_map``: also ``map.png`` and ``map.svg``, DataMapPlot, print resolution)."""
    folder = Path(out).expanduser()
    logger.info("writing outputs to %s", folder, extra={STAGE: True})  # a stage line: the CLI shows it
    with output_folder(folder) as staging:
        names = write_outputs_into(model, staging, **options)
    return {key: folder / name for key, name in names.items()}


def write_outputs_into(
    model: Any,
    folder: Path,
    *,
    title: str = "Topic map",
    save_model: bool = True,
    report: bool = True,
    csv_safe: bool = False,
    static_map: bool = True,
) -> dict[str, str]:
    """Write the outputs into an existing (staging) ``folder``; returns their names inside it."""
    docs = model.documents_
    write_csv(docs[csv_document_columns(docs.columns)], folder / "documents.csv", csv_safe=csv_safe)
    write_csv(model.topics_, folder / "topics.csv", csv_safe=csv_safe)
    write_csv(model.themes_, folder / "themes.csv", csv_safe=csv_safe)
    write_csv(model.topic_tree_, folder / "topic_tree.csv", csv_safe=csv_safe)
    names = {"documents": "documents.csv", "topics": "topics.csv", "themes": "themes.csv", "tree": "topic_tree.csv"}
    if report:
        # the tables are the CSVs above (one table, one column set): no second copy under tables/
        model.report(folder / "report.html", title=title, tables=False)
        names["report"] = "report.html"
    if static_map:
        from icml_topics.plotting.static_map import write_map_files

        names.update({key: path.name for key, path in write_map_files(model.documents_, folder, title=title).items()})
    if save_model:
        model.save(folder / "model")
        names["model"] = "model"
    return names

"""Write a fitted model's output folder: documents.csv, topics.csv, themes.csv, topic_tree.csv, report.html, model/.

A run's outputs are written into a staging folder next to ``out`` (``<out>.tmp-<pid>``), completed
with ``manifest.json`` (the SHA-256 of every file and ``"complete": true``), and only then swapped
into place as a whole: an interrupted run leaves the earlier folder as it was (or no folder), never
files of two runs side by side. A folder is replaced only when its manifest proves that icml_topics
wrote it, unchanged; what a killed run left next to it is removed (or put back) by the next run
(:mod:`icml_topics._folders`).

    >>> write_outputs(tm, "out/")
    >>> verify_folder("out/")           # raises unless every file matches the manifest

Every CSV is written spreadsheet-safe by default (OWASP's CSV-injection guidance): a text cell or header
starting with ``=``, ``+``, ``-``, ``@``, a tab, a carriage return or a full-width ``＝ ＋ － ＠`` gets a
leading ``'``, so Excel and LibreOffice show it as text instead of running it as a formula. Numbers are
not text: numeric columns, and text cells that are a plain number such as ``-1.5``, are written as they
are. ``csv_safe=False`` (CLI: ``--raw-csv``) writes every cell exactly as fitted, for pandas or R.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from icml_topics._folders import (
    follow_link,
    foreign_entries,
    is_ours,
    kill_point,
    ownership_problem,
    remove_leftovers,
    staged,
)
from icml_topics._io import MANIFEST, atomic_open, verify_folder
from icml_topics._progress import STAGE
from icml_topics.errors import InvalidValueError
from icml_topics.schema import ANALYSIS_COLUMNS, CSV_DOCUMENT_COLUMNS, cell_text, csv_document_columns

__all__ = [
    "CSV_DOCUMENT_COLUMNS",
    "MANIFEST",
    "check_output_path",
    "foreign_entries",
    "is_ours",
    "output_folder",
    "recover_folder",
    "verify_folder",
    "write_csv",
    "write_outputs",
]

logger = logging.getLogger("icml_topics")

#: what starts a formula in a spreadsheet (OWASP CSV injection), full-width forms included
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")  # "-1.5": a number, not a formula
_LINE_BREAK = re.compile(r"\r\n?")


def _csv_cell(value: Any, csv_safe: bool = True) -> Any:
    """One CSV cell: a list joined with ``"; "``; a text that a spreadsheet would run as a formula
    prefixed with ``'`` (``csv_safe``); line breaks as ``\\n``. Anything else as it is."""
    value = cell_text(value)
    if isinstance(value, str):
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


def check_output_path(out: str | os.PathLike, *, inputs: Any = None, label: str = "--out") -> Path:
    """Raise ``ValueError`` now (before any work) when ``out`` cannot become an output folder.

    ``out`` is replaced as a whole, so it must be new, empty, or a folder whose ``manifest.json``
    proves that icml_topics wrote it (``written_by``, ``format``, every file listed with its unchanged
    SHA-256): any other entry (a CSV, a dotfile, ``.git/``) is the user's and is never removed, and an
    edited output file is named. A symbolic link is followed to its folder (the link is never moved).
    Returns the folder written (a link's target). ``inputs`` (paths, or anything ``read_corpus`` takes): an
    ``out`` equal to or above an input file's folder is refused. ``label`` names ``out`` in messages.
    """
    folder = follow_link(Path(out).expanduser(), label)
    if folder.exists() and not folder.is_dir():
        raise InvalidValueError(
            f"{label} {folder} is an existing file, not a folder; it is never replaced: choose a folder path "
            "(it is created)."
        )
    _check_inputs_outside(folder, inputs, label)
    if folder.is_dir():
        problem = ownership_problem(folder, label)
        if problem:
            raise InvalidValueError(problem)
    parent = folder.absolute().parent
    probe_root = parent
    while not probe_root.exists():
        probe_root = probe_root.parent
    if not probe_root.is_dir():
        raise InvalidValueError(
            f"{label} {folder}: {probe_root} is a file, so the folder cannot be created there; choose another path."
        )
    try:
        parent.mkdir(parents=True, exist_ok=True)
        probe = parent / f".{folder.name}.probe-{os.getpid()}"
        probe.mkdir()
        probe.rmdir()
    except OSError as exc:
        raise InvalidValueError(
            f"{label} {folder} cannot be written ({exc.strerror or exc}); choose a writable folder."
        ) from None
    return folder


def _input_files(inputs: Any) -> list[Path]:
    """The existing files among ``inputs`` (a path or a list of paths; DataFrames and specs are skipped)."""
    items = inputs if isinstance(inputs, (list, tuple)) else [inputs]
    files = []
    for item in items:
        if isinstance(item, (str, os.PathLike)) and not isinstance(item, bytes):
            try:
                path = Path(item).expanduser()
                if path.is_file():
                    files.append(path.resolve())
            except (OSError, ValueError):
                continue
    return files


def _check_inputs_outside(folder: Path, inputs: Any, label: str) -> None:
    """An output folder equal to or above an input file's folder would hold (and replace) the input."""
    if inputs is None:
        return
    target = folder.resolve()
    for path in _input_files(inputs):
        if target == path.parent or target in path.parents:
            raise InvalidValueError(
                f"{label} {folder} holds the input file {path}: the output folder is replaced as a whole, so it "
                "cannot be the input's folder or one above it; choose a new folder (e.g. "
                f"{path.parent / (path.stem + '-topics')})."
            )


def recover_folder(out: str | os.PathLike) -> None:
    """Put back an earlier complete output that a killed run had moved aside, and remove what killed
    runs left next to ``out`` (see :mod:`icml_topics._folders`); a dangling link is left alone."""
    folder = Path(out).expanduser().absolute()
    with contextlib.suppress(InvalidValueError):
        folder = follow_link(folder)
    if folder.parent.is_dir():
        remove_leftovers(folder)


@contextlib.contextmanager
def output_folder(
    out: str | os.PathLike, *, inputs: Any = None, label: str = "--out", record: dict[str, Any] | None = None
) -> Iterator[Path]:
    """Yield a staging folder; on success it gets a manifest and replaces ``out`` as a whole.

    ``out`` is checked first (``check_output_path``: only a folder icml_topics wrote is replaced).
    The earlier folder is moved to ``.<out>.old-<pid>`` for the instant between two renames; what a run
    killed at any step leaves is recognised by its marker and repaired by the next run (or ``load``), see
    :mod:`icml_topics._folders`. On error the staging folder is removed and ``out`` is left as it was; a
    full disk says so, naming the path. A symbolic link ``out`` is followed: its target is replaced.
    """
    folder = follow_link(Path(out).expanduser().absolute(), label)
    check_output_path(folder, inputs=inputs, label=label)
    remove_leftovers(folder)
    check_output_path(folder, inputs=inputs, label=label)  # a folder put back by the recovery is checked too
    with staged(folder, record=record) as staging:  # record: more manifest fields (what made the outputs)
        yield staging


def write_outputs(model: Any, out: str | os.PathLike, *, inputs: Any = None, **options: Any) -> dict[str, Path]:
    """Write every output of a fitted ``model`` into folder ``out`` (swapped into place as a whole);
    returns the paths written. ``options`` are ``write_outputs_into``'s (``title``, ``save_model``,
    ``report``, ``csv_safe`` (default True: formulas escaped; False: raw cells), ``maps``: the static
    map's formats, default ``("png",)`` at ``map_dpi=100``;
    ``map_dpi=300`` for print; ``static_map=False``: no static map)."""
    folder = Path(out).expanduser()
    logger.info("writing outputs to %s", folder, extra={STAGE: True})  # a stage line: the CLI shows it
    with output_folder(folder, inputs=inputs, record=run_record(model)) as staging:
        names = write_outputs_into(model, staging, **options)
    return {key: folder / name for key, name in names.items()}


def run_record(model: Any) -> dict[str, Any]:
    """What made a fitted ``model``'s outputs, for their manifest: the embedding path of its vectors (a loaded
    model: the one its corpus size gives, ``corpus_rule``; None when that is the machine's, not recorded), the CPU
    and the package version."""
    from icml_topics import __version__
    from icml_topics.embedding.corpus_rule import corpus_path
    from icml_topics.embedding.precision import cpu_features

    path = getattr(model, "embedding_path_", None)
    if path is None and getattr(model, "embeddings_", None) is not None:
        path = corpus_path(str(getattr(model, "precision", "auto")), len(model.embeddings_))
    return {"embedding_path": path, "cpu": cpu_features(), "package_version": __version__}


def write_outputs_into(
    model: Any,
    folder: Path,
    *,
    title: str = "Topic map",
    save_model: bool = True,
    report: bool = True,
    csv_safe: bool = True,
    static_map: bool = True,
    maps: tuple[str, ...] | list[str] = ("png",),
    map_dpi: int | None = None,
) -> dict[str, str]:
    """Write the outputs into an existing (staging) ``folder``; returns their names inside it.

    The report, the static map and the model folder are independent files: the map (the one part that
    uses matplotlib) and the model are written on worker threads while the tables and the report are
    written here, so the slowest of the three sets the time, not their sum. Any failure is raised here,
    before the caller writes the manifest (so a failed run never replaces the earlier folder).
    """
    from concurrent.futures import ThreadPoolExecutor

    from icml_topics.plotting.static_map import SCREEN_DPI, check_map_dpi

    formats = tuple(maps) if static_map else ()
    dpi = check_map_dpi(SCREEN_DPI if map_dpi is None else map_dpi)
    docs = model.documents_
    maps_dir = _output_cache(model)
    names: dict[str, str] = {}
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="icml-topics-outputs") as pool:
        jobs = []
        if formats:
            from icml_topics.plotting.static_map import write_map_files

            jobs.append(
                pool.submit(write_map_files, docs, folder, title=title, formats=formats, dpi=dpi, cache_dir=maps_dir)
            )
        if save_model:  # written in place inside the staging folder: the one swap is the output folder's
            jobs.append(pool.submit(_write_model, model, folder / "model"))
        filled = [c for c in ANALYSIS_COLUMNS if c in docs.columns and docs[c].notna().any()]
        write_csv(docs[csv_document_columns(docs.columns, filled)], folder / "documents.csv", csv_safe=csv_safe)
        kill_point("mid-staging")  # test hook (ICML_TOPICS_KILL_AT): a run killed while writing its outputs
        write_csv(model.topics_, folder / "topics.csv", csv_safe=csv_safe)
        write_csv(model.themes_, folder / "themes.csv", csv_safe=csv_safe)
        write_csv(model.topic_tree_, folder / "topic_tree.csv", csv_safe=csv_safe)
        names.update(
            {"documents": "documents.csv", "topics": "topics.csv", "themes": "themes.csv", "tree": "topic_tree.csv"}
        )
        if report:
            # the tables are the CSVs above (one table, one column set): no second copy under tables/
            _write_report(model, folder / "report.html", title, maps_dir)
            names["report"] = "report.html"
        for job in jobs:
            written = job.result()  # re-raises a worker's error here, before the manifest
            names.update({key: Path(path).name for key, path in written.items()})
    return names


def _output_cache(model: Any) -> Path | None:
    """Where drawn outputs (static maps, reports) are kept for re-runs: ``<cache>/outputs``; None
    when the model was fitted with ``cache=False``."""
    from icml_topics.fit_config import cache_dir

    try:
        return cache_dir(model.get_params(deep=False).get("cache", True), "outputs")
    except (AttributeError, TypeError, ValueError):
        return None


def _write_report(model: Any, path: Path, title: str, cache: Path | None) -> None:
    """``model.report(path)``, or the same bytes from an earlier run on the same tables and title (building
    the page takes seconds: plotly, the map's hover texts, the search index)."""
    from icml_topics.stages.result_cache import cached_files, code_signature, content_key

    frames = (model.documents_, model.topics_, model.themes_, model.topic_tree_)
    key = content_key(
        "fit-report-v1",
        code_signature("icml_topics.report", "icml_topics.plotting", distributions=("plotly",)),
        title,
        json.dumps(model.summary(), sort_keys=True, default=str),
        *(frame.to_csv(index=False) if frame is not None else "" for frame in frames),
    )

    def build() -> dict[str, bytes]:
        model.report(path, title=title, tables=False)
        return {"report.html": path.read_bytes()}

    blobs = cached_files(f"report-{key}", build, cache)
    if not path.exists():
        from icml_topics._io import atomic_write_bytes

        atomic_write_bytes(path, blobs["report.html"])


def _write_model(model: Any, folder: Path) -> dict[str, Path]:
    from icml_topics.persistence import write_model_into

    write_model_into(model.get_params(deep=False), model.state_, folder, record=run_record(model))
    return {"model": folder}

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
import errno
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

WRITTEN_BY = "icml_topics"  # manifest.json's "written_by": the proof that a folder is ours to replace
STAGING_MARK = ".icml_topics-staging"  # marks a staging folder as ours (removed before the manifest)
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


def check_output_path(out: str | os.PathLike, *, inputs: Any = None, label: str = "--out") -> Path:
    """Raise ``ValueError`` now (before any work) when ``out`` cannot become an output folder.

    ``out`` is replaced as a whole, so it must be new, empty, or a folder whose ``manifest.json``
    (written by icml_topics) lists every file in it: any other entry (a CSV, a dotfile, ``.git/``)
    is the user's, and is never removed. ``inputs`` (paths, or anything ``read_corpus`` takes): an
    ``out`` equal to or above an input file's folder is refused. ``label`` names ``out`` in messages.
    """
    folder = Path(out).expanduser()
    if folder.exists() and not folder.is_dir():
        raise InvalidValueError(
            f"{label} {folder} is an existing file, not a folder; it is never replaced: choose a folder path "
            "(it is created)."
        )
    _check_inputs_outside(folder, inputs, label)
    if folder.is_dir():
        foreign = foreign_entries(folder)
        if foreign:
            raise InvalidValueError(
                f"{label} {folder} holds {foreign[0]!r}, which no icml_topics manifest lists"
                + (f" (and {len(foreign) - 1} more)" if len(foreign) > 1 else "")
                + "; the output folder is replaced as a whole and icml_topics never removes what it did not "
                "write: choose a new or empty folder (or move those files out)."
            )
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


def _listed_files(folder: Path) -> set[str] | None:
    """The files ``folder``'s manifest lists, when icml_topics wrote it (a complete manifest), else None."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("complete") is not True:
        return None
    files = manifest.get("files")
    if not isinstance(files, dict) or manifest.get("written_by", WRITTEN_BY) != WRITTEN_BY:
        return None
    return {str(name) for name in files}


def foreign_entries(folder: Path) -> list[str]:
    """Entries of ``folder`` (relative paths, recursively) that no icml_topics manifest in it lists.

    Empty means the folder is ours to replace (or empty). Symbolic links, and folders holding no listed
    file, count as foreign; nothing is followed outside ``folder``.
    """
    manifest = _listed_files(folder)
    listed = manifest or set()
    listed_dirs = {"/".join(name.split("/")[:i]) for name in listed for i in range(1, name.count("/") + 1)}
    foreign: list[str] = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        base = Path(root).relative_to(folder).as_posix()
        for name in sorted(dirs):
            rel = name if base == "." else f"{base}/{name}"
            if (Path(root) / name).is_symlink() or rel not in listed_dirs:
                foreign.append(rel + "/")
        dirs[:] = [d for d in sorted(dirs) if (d if base == "." else f"{base}/{d}") in listed_dirs]
        dirs[:] = [d for d in dirs if not (Path(root) / d).is_symlink()]
        for name in sorted(files):
            rel = name if base == "." else f"{base}/{name}"
            if rel == MANIFEST and manifest is not None:
                continue
            if rel not in listed or (Path(root) / name).is_symlink():
                foreign.append(rel)
    return foreign


def is_ours(folder: Path) -> bool:
    """``folder`` holds a complete icml_topics manifest that lists every file in it."""
    return _listed_files(folder) is not None and not foreign_entries(folder)


def _remove_stale_staging(folder: Path) -> None:
    """Clean up after killed runs: their ``<out>.tmp-<pid>`` staging folders (marked as ours) and
    ``.<out>.probe-<pid>`` write probes are removed, and a ``.<out>.old-<pid>`` (the earlier output,
    moved aside during a swap) is put back when ``out`` is missing, or removed when ``out`` is a complete
    output. Only when process ``<pid>`` is gone, and only folders that icml_topics provably wrote: a live
    run's swap is never touched."""
    name = glob_escape(folder.name)
    for stale in folder.parent.glob(f"{name}.tmp-*"):
        pid = stale.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)) and (stale / STAGING_MARK).is_file():
            shutil.rmtree(stale, ignore_errors=True)
    for probe in folder.parent.glob(f".{name}.probe-*"):
        pid = probe.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                probe.rmdir()  # an empty folder only
    for old in sorted(folder.parent.glob(f".{name}.old-*")):
        pid = old.name.rsplit("-", 1)[-1]
        if not pid.isdigit() or _alive(int(pid)) or not is_ours(old):
            continue
        if not folder.exists():  # killed between the two renames: the earlier, complete output comes back
            old.rename(folder)
        elif is_ours(folder):
            shutil.rmtree(old, ignore_errors=True)


def recover_folder(out: str | os.PathLike) -> None:
    """Put back an earlier complete output that a killed run had moved aside (see :func:`output_folder`)."""
    folder = Path(out).expanduser().absolute()
    if folder.parent.is_dir():
        _remove_stale_staging(folder)


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
def output_folder(out: str | os.PathLike, *, inputs: Any = None, label: str = "--out") -> Iterator[Path]:
    """Yield a staging folder; on success it gets a manifest and replaces ``out`` as a whole.

    ``out`` is checked first (:func:`check_output_path`: only a folder icml_topics wrote is replaced).
    The earlier folder is moved to ``.<out>.old-<pid>`` for the instant between two renames; a run killed
    there is repaired by the next run (or ``load``). On error the staging folder is removed and ``out`` is
    left as it was; a full disk says so, naming the path.
    """
    folder = Path(out).expanduser().absolute()
    check_output_path(folder, inputs=inputs, label=label)
    _remove_stale_staging(folder)
    check_output_path(folder, inputs=inputs, label=label)  # a folder put back by the recovery is checked too
    staging = folder.with_name(f"{folder.name}.tmp-{os.getpid()}")
    if staging.exists() and (staging / STAGING_MARK).is_file():
        shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    (staging / STAGING_MARK).write_text(str(os.getpid()), encoding="utf-8")
    try:
        try:
            yield staging
            (staging / STAGING_MARK).unlink()
            write_manifest(staging, written_by=WRITTEN_BY)
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                kept = "the earlier output there is intact" if folder.exists() else "nothing was written there"
                full = OSError(
                    f"the disk is full while writing {folder} ({exc.filename or staging}); {kept}. "
                    "Free some space (or write to another disk) and run again."
                )
                full.errno = exc.errno
                raise full from None
            raise
        old = folder.with_name(f".{folder.name}.old-{os.getpid()}")
        if folder.exists():
            shutil.rmtree(old, ignore_errors=True)
            folder.rename(old)
        staging.rename(folder)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def write_outputs(model: Any, out: str | os.PathLike, *, inputs: Any = None, **options: Any) -> dict[str, Path]:
    """Write every output of a fitted ``model`` into folder ``out`` (swapped into place as a whole);
    returns the paths written. ``options`` are :func:`write_outputs_into`'s (``title``, ``save_model``,
    ``report``, ``csv_safe``, ``maps``: the static map's formats, default ``("png",)`` at ``map_dpi=100``;
    ``map_dpi=300`` for print; ``static_map=False``: no static map)."""
    folder = Path(out).expanduser()
    logger.info("writing outputs to %s", folder, extra={STAGE: True})  # a stage line: the CLI shows it
    with output_folder(folder, inputs=inputs) as staging:
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

    write_model_into(model.get_params(deep=False), model.state_, folder)
    return {"model": folder}

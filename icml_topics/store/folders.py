"""Output folders replaced as a whole: checked before any work, staged, verified, repaired after a kill.

``fit --out``, ``compare --out`` and ``TopicMap.save`` write through :func:`output_folder`: a staging folder
next to ``out`` (``<out>.tmp-<pid>``), completed with ``manifest.json`` (the SHA-256 of every file and
``"complete": true``) and only then swapped into place as a whole (:mod:`icml_topics.store.swap`). A
folder is replaced only when its manifest proves that icml_topics wrote it, unchanged
(:mod:`icml_topics.store.ownership`); what a killed run left next to it is removed (or put back) by the
next run.

Examples:
    >>> from icml_topics.store.folders import output_folder, verify_folder
    >>> with output_folder("out/") as staging:
    ...     (staging / "topics.csv").write_text("topic,label\\n")
    >>> verify_folder("out/")["files"]
    {'topics.csv': '...'}
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from icml_topics._io import MANIFEST, verify_folder
from icml_topics.errors import InvalidValueError
from icml_topics.store.ownership import follow_link, ownership_problem
from icml_topics.store.swap import disk_full, is_full, remove_leftovers, staged

__all__ = ["MANIFEST", "check_output_path", "output_folder", "recover_folder", "verify_folder"]


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
    probe = parent / f".{folder.name}.probe-{os.getpid()}"
    try:
        parent.mkdir(parents=True, exist_ok=True)
        probe.mkdir()
        probe.rmdir()
    except OSError as exc:
        with contextlib.suppress(OSError):
            probe.rmdir()
        if is_full(exc):
            raise disk_full(exc, folder, parent) from None
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
    runs left next to ``out`` (see :mod:`icml_topics.store.swap`); a dangling link is left alone."""
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
    :mod:`icml_topics.store.swap`. On error the staging folder is removed and ``out`` is left as it was; a
    full disk says so, naming the path. A symbolic link ``out`` is followed: its target is replaced.
    """
    folder = follow_link(Path(out).expanduser().absolute(), label)
    check_output_path(folder, inputs=inputs, label=label)
    remove_leftovers(folder)
    check_output_path(folder, inputs=inputs, label=label)  # a folder put back by the recovery is checked too
    with staged(folder, record=record) as staging:  # record: more manifest fields (what made the outputs)
        yield staging

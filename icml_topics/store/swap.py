"""Replacing a folder as a whole: the staged swap, and the clean-up after a killed run.

A run writes into a staging folder next to ``<out>``, completes it with ``manifest.json`` and only then
swaps it into place with two renames (``staged``). Every folder a run makes next to ``<out>`` carries a
marker written before anything else, so that the next run recognises what a killed run left (only when
that run's process is gone) and removes or restores it (``remove_leftovers``):

- ``.<out>.probe-<pid>``: a new staging folder, before it holds anything but its marker;
- ``<out>.tmp-<pid>``: the staging folder (marker ``.icml_topics-staging``, removed after the manifest);
- ``.<out>.old-<pid>``: the earlier output, moved aside for the instant between two renames (put back
  when ``<out>`` is missing, deleted when ``<out>`` is whole);
- ``.<out>.trash-<pid>-<n>``: a folder being deleted; its marker is deleted last, so a deletion cut short
  is finished by the next run.

Test hook: ``ICML_TOPICS_KILL_AT=<step>`` (one of :data:`KILL_STEPS`) makes the process kill itself
(SIGKILL) at that step, so that a test can stop a real run at every step of the swap without mocks.

Examples:
    >>> from icml_topics.store.swap import remove_leftovers, staged
    >>> remove_leftovers(Path("out"))
    >>> with staged(Path("out")) as staging:
    ...     (staging / "topics.csv").write_text("topic,label\\n")
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from icml_topics._io import write_manifest
from icml_topics.errors import OutputWriteError
from icml_topics.store.ownership import WRITTEN_BY, is_ours

__all__ = [
    "KILL_AT",
    "KILL_STEPS",
    "STAGING_MARK",
    "TRASH_MARK",
    "discard",
    "disk_full",
    "finish_staging",
    "is_full",
    "kill_point",
    "new_staging",
    "remove_leftovers",
    "staged",
]

logger = logging.getLogger("icml_topics")

STAGING_MARK = ".icml_topics-staging"  # written first into a staging folder; removed once its manifest is written
TRASH_MARK = ".icml_topics-trash"  # written into a folder of ours before it is deleted; deleted last
#: a leftover untouched this long is a killed run's even when its pid is alive again (a reused pid): a run
#: writes its staging folder in minutes, and its probe and moved-aside folders exist for an instant
STALE_AFTER_S = 24 * 3600
KILL_AT = "ICML_TOPICS_KILL_AT"
#: the steps of a swap at which ``ICML_TOPICS_KILL_AT`` kills the process (in order)
KILL_STEPS = (
    "after-mark",  # the new staging folder holds only its marker (still named .<out>.probe-<pid>)
    "mid-staging",  # some output files written (outputs.write_outputs_into, persistence: model.json)
    "after-manifest",  # the staging folder is complete, its marker still there
    "after-unmark",  # the staging folder is complete, without its marker
    "after-rename-old",  # the earlier output is .<out>.old-<pid>, <out> missing
    "after-rename-new",  # the new output is <out>, the earlier one still .<out>.old-<pid>
    "after-trash-mark",  # .<out>.old-<pid> is marked for deletion
    "mid-delete",  # a folder being deleted has lost some of its files
)


def kill_point(step: str) -> None:
    """Test hook: SIGKILL this process when ``ICML_TOPICS_KILL_AT`` names ``step``; a no-op otherwise."""
    if os.environ.get(KILL_AT) == step:
        os.kill(os.getpid(), signal.SIGKILL)


# --- leftovers of killed runs --------------------------------------------------------------------------
def _dead(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _untouched_for(path: Path) -> float:
    """Seconds since ``path`` or any entry directly in it last changed (a live run keeps writing there)."""
    try:
        newest = max([path.lstat().st_mtime, *(entry.lstat().st_mtime for entry in path.iterdir())])
    except OSError:
        return 0.0
    return time.time() - newest


def _stale(path: Path, pid: int) -> bool:
    """A leftover of a killed run: its process is gone, or (its pid reused by another process) it has not
    changed for ``STALE_AFTER_S`` (Python's ``tempfile`` way: the owner removes, stale ones are swept)."""
    if pid == os.getpid():
        return False
    return _dead(pid) or _untouched_for(path) > STALE_AFTER_S


def _leftovers(folder: Path, kind: str) -> list[Path]:
    """The ``kind`` folders (probe, tmp, old, trash) next to ``folder`` whose writing process is gone."""
    name = re.escape(folder.name)
    pattern = {
        "probe": rf"\.{name}\.probe-(\d+)",
        "tmp": rf"{name}\.tmp-(\d+)",
        "old": rf"\.{name}\.old-(\d+)",
        "trash": rf"\.{name}\.trash-(\d+)-\d+",
    }[kind]
    found = []
    with contextlib.suppress(OSError):
        for entry in sorted(folder.parent.iterdir()):
            match = re.fullmatch(pattern, entry.name)
            if match and entry.is_dir() and not entry.is_symlink() and _stale(entry, int(match.group(1))):
                found.append(entry)
    return found


def _only(path: Path, names: set[str]) -> bool:
    """``path`` holds nothing but entries named in ``names`` (possibly nothing)."""
    return all(entry.name in names for entry in path.iterdir())


def discard(path: Path, out: Path, mark: str) -> None:
    """Delete ``path`` (a folder of ours holding the file ``mark``) so that a kill at any instant leaves a
    folder the next run recognises: it is renamed ``.<out>.trash-<pid>-<n>``, emptied but for ``mark``,
    and ``mark`` and the folder go last. An error only leaves the trash folder for the next run."""
    try:
        n = 0
        while (trash := out.with_name(f".{out.name}.trash-{os.getpid()}-{n}")).exists():
            n += 1
        path.rename(trash)
        for entry in sorted(trash.iterdir()):
            if entry.name == mark:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
            kill_point("mid-delete")
        (trash / mark).unlink(missing_ok=True)
        trash.rmdir()
    except OSError as exc:
        logger.warning("could not remove %s (%s); the next run removes it", path, exc.strerror or exc)


def _mark_and_discard(path: Path, out: Path) -> None:
    (path / TRASH_MARK).write_text(str(os.getpid()), encoding="utf-8")
    kill_point("after-trash-mark")
    discard(path, out, TRASH_MARK)


def remove_leftovers(folder: Path) -> None:
    """Clean up next to ``folder`` after killed runs (only runs whose process is gone, only folders
    carrying our marker or a manifest that proves them ours): unfinished deletions are finished, staging
    folders removed, and an earlier output moved aside is put back when ``folder`` is missing, or deleted
    when ``folder`` is whole."""
    marks = {STAGING_MARK, TRASH_MARK}
    for probe in _leftovers(folder, "probe"):  # a write probe, or a new staging folder holding its marker
        with contextlib.suppress(OSError):
            if _only(probe, {STAGING_MARK}):
                (probe / STAGING_MARK).unlink(missing_ok=True)
                probe.rmdir()
    for trash in _leftovers(folder, "trash"):
        with contextlib.suppress(OSError):
            mark = next((m for m in (STAGING_MARK, TRASH_MARK) if (trash / m).is_file()), None)
            if mark is not None:
                discard(trash, folder, mark)
            elif not any(trash.iterdir()):
                trash.rmdir()
    for stale in _leftovers(folder, "tmp"):
        mark = next((m for m in (STAGING_MARK, TRASH_MARK) if (stale / m).is_file()), None)
        with contextlib.suppress(OSError):  # what cannot be removed now is left for a later run
            if mark is not None:
                discard(stale, folder, mark)
            elif is_ours(stale):  # complete, killed after its marker was removed
                _mark_and_discard(stale, folder)
    for old in _leftovers(folder, "old"):
        with contextlib.suppress(OSError):
            if (old / TRASH_MARK).is_file():  # marked for deletion once the new output was in place
                discard(old, folder, TRASH_MARK)
            elif not _only(old, marks) and is_ours(old):
                if not folder.exists() and not folder.is_symlink():  # killed between the two renames
                    old.rename(folder)
                elif is_ours(folder):
                    _mark_and_discard(old, folder)


# --- the swap ------------------------------------------------------------------------------------------
def new_staging(folder: Path) -> Path:
    """A new, marked staging folder ``<out>.tmp-<pid>``: made as ``.<out>.probe-<pid>``, marked, then
    renamed, so it never exists unmarked under the staging name."""
    staging = folder.with_name(f"{folder.name}.tmp-{os.getpid()}")
    if staging.is_dir() and (staging / STAGING_MARK).is_file():  # this pid's, from a killed run of old
        discard(staging, folder, STAGING_MARK)
    probe = folder.with_name(f".{folder.name}.probe-{os.getpid()}")
    try:
        probe.mkdir(parents=True)
        (probe / STAGING_MARK).write_text(str(os.getpid()), encoding="utf-8")
        kill_point("after-mark")
        probe.rename(staging)
    except OSError as exc:  # a full disk, no permission: nothing of this run is left next to the output
        with contextlib.suppress(OSError):
            (probe / STAGING_MARK).unlink(missing_ok=True)
            probe.rmdir()
        raise disk_full(exc, folder, probe) from None
    return staging


def finish_staging(staging: Path, folder: Path, record: dict[str, Any] | None = None) -> None:
    """Write the manifest of a filled ``staging`` folder (with the fields of ``record``), then swap it into
    place of ``folder``."""
    try:
        write_manifest(staging, exclude=(STAGING_MARK,), **{**(record or {}), "written_by": WRITTEN_BY})
        kill_point("after-manifest")
        (staging / STAGING_MARK).unlink()
        kill_point("after-unmark")
    except OSError as exc:
        raise disk_full(exc, folder, staging) from None
    old = folder.with_name(f".{folder.name}.old-{os.getpid()}")
    if folder.exists():
        if old.exists():  # this pid's, from a killed run of old: ours only when marked or proven
            if (old / TRASH_MARK).is_file():
                discard(old, folder, TRASH_MARK)
            elif is_ours(old):
                _mark_and_discard(old, folder)
        folder.rename(old)
        kill_point("after-rename-old")
    staging.rename(folder)
    kill_point("after-rename-new")
    if old.exists():
        _mark_and_discard(old, folder)


def is_full(exc: OSError) -> bool:
    """``exc`` says the disk (or the user's quota) is full; a writer that drops the errno (pyarrow) still says so."""
    return exc.errno in (errno.ENOSPC, errno.EDQUOT) or any(
        words in str(exc) for words in ("No space left on device", "Disk quota exceeded")
    )


def disk_full(exc: OSError, folder: Path, staging: Path) -> OSError:
    """The error of a full disk (or a quota, a read-only disk, no permission) while writing ``folder``: an
    ``OutputWriteError`` naming the path and what was kept, and the fix. An ``IcmlTopicsError`` passes as it is."""
    if isinstance(exc, OutputWriteError):
        return exc
    kept = "the earlier output there is intact" if folder.exists() else "nothing was written there"
    if is_full(exc):
        what, fix = "the disk is full", "Free some space (or write to another disk) and run again."
    else:
        what = f"it cannot be written ({exc.strerror or exc})"
        fix = "Check the folder's permissions (or write to another folder) and run again."
    full = OutputWriteError(f"{what} while writing {folder} ({exc.filename or staging}); {kept}. {fix}")
    full.errno = exc.errno
    return full


@contextlib.contextmanager
def staged(folder: Path, *, record: dict[str, Any] | None = None) -> Iterator[Path]:
    """Yield a new staging folder for ``folder`` (already checked); on success it gets a manifest and
    replaces ``folder`` as a whole; on error it is removed and ``folder`` is left as it was."""
    staging = new_staging(folder)
    try:
        try:
            yield staging
        except OSError as exc:
            if is_full(exc):
                raise disk_full(exc, folder, staging) from None
            raise
        finish_staging(staging, folder, record)
    finally:
        if staging.exists():
            discard(staging, folder, STAGING_MARK if (staging / STAGING_MARK).is_file() else _trash_mark(staging))


def _trash_mark(path: Path) -> str:
    with contextlib.suppress(OSError):
        (path / TRASH_MARK).write_text(str(os.getpid()), encoding="utf-8")
    return TRASH_MARK

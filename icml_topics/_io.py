"""Atomic file writes: a reader never sees a half-written file.

Every writer in the package goes through these helpers, so an interrupted run leaves either the
old file or the new one, never a truncated one that a later run would trust.

Examples:
    >>> from icml_topics._io import atomic_write_text
    >>> atomic_write_text("out/topics.csv", "topic,label\\n")
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from icml_topics.errors import InvalidValueError

__all__ = [
    "MANIFEST",
    "MANIFEST_FORMAT",
    "atomic_path",
    "atomic_write_bytes",
    "atomic_write_text",
    "member_problem",
    "verify_folder",
    "write_manifest",
]

MANIFEST = "manifest.json"
#: the layout of ``manifest.json`` ("complete", "format", "files": name -> SHA-256, "written_by"); a folder
#: whose manifest has no format (written before it was recorded) is not replaced: it cannot be proven ours
MANIFEST_FORMAT = 1


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it over ``path`` only if the block succeeds."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix + ".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp_path, 0o666 & ~umask)  # mkstemp makes 0600; outputs are meant to be shared
    try:
        yield tmp_path
        os.replace(tmp_path, target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (fsync'd temp file, then rename)."""
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically."""
    atomic_write_bytes(path, text.encode(encoding))


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temp file for writing; it replaces ``path`` when the block exits without error."""
    with atomic_path(path) as tmp:
        kwargs = {} if "b" in mode else {"encoding": encoding, "newline": ""}
        with open(tmp, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's bytes, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_manifest(folder: Path, *, exclude: tuple[str, ...] = (), **extra: Any) -> dict:
    """Write ``manifest.json`` listing every file of ``folder`` (recursively) with its SHA-256.

    The manifest records its ``"format"`` (``MANIFEST_FORMAT``); ``exclude``: names (relative to
    ``folder``) left out of it, e.g. a staging marker that is removed right after; ``extra``: more fields
    (``written_by="icml_topics"``: the claim that ``icml_topics.store.ownership.is_ours`` checks).
    """
    files = {
        p.relative_to(folder).as_posix(): sha256_file(p)
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p != folder / MANIFEST and p.relative_to(folder).as_posix() not in exclude
    }
    manifest = {"complete": True, "format": MANIFEST_FORMAT, "files": files, **extra}
    atomic_write_text(folder / MANIFEST, json.dumps(manifest, indent=1))
    return manifest


def member_problem(folder: Path, name: object) -> str | None:
    """Why the manifest entry ``name`` is not a regular file inside ``folder`` (None when it is one).

    A folder is read only from its own regular files: a name must be a relative POSIX path without
    ``..``, ``.``, a backslash, a NUL or another control character, and no part of it (folders included)
    may be a symbolic link, so a crafted manifest can never make a reader open a file outside ``folder``.
    """
    if not isinstance(name, str) or not name:
        return f"lists the file name {name!r}, which is not a file name"
    parts = name.split("/")
    if (
        name.startswith("/")
        or "\\" in name
        or any(part in ("", ".", "..") for part in parts)
        or any(ord(ch) < 32 or ord(ch) == 127 for ch in name)
        or (len(name) > 1 and name[1] == ":")
    ):
        return f"lists {name!r}, a path outside the folder (only plain relative names inside it are read)"
    path = folder
    for i, part in enumerate(parts):
        path = path / part
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return f"lists {name!r}, which is missing"
        except OSError as exc:
            return f"lists {name!r}, which cannot be read ({exc.strerror or exc})"
        if stat.S_ISLNK(mode):
            return f"lists {name!r}, but {path.name} is a symbolic link (a saved folder holds only its own files)"
        last = i == len(parts) - 1
        if last and not stat.S_ISREG(mode) or not last and not stat.S_ISDIR(mode):
            return f"lists {name!r}, which is not a regular file"
    return None


def verify_folder(folder: str | os.PathLike, *, what: str = "output folder") -> dict:
    """The manifest of ``folder`` after checking that every listed file exists with its checksum.

    Raises ``ValueError`` (saying what to do) when the manifest is missing, incomplete or does not
    match the files: such a folder comes from an interrupted run or was changed afterwards. Every listed
    name must be a regular file inside ``folder`` (``member_problem``: no ``..``, no absolute path, no
    symbolic link on the way), and ``manifest.json`` itself must be a regular file: nothing outside the
    folder is ever opened.
    """
    folder = Path(folder)
    path = folder / MANIFEST
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise InvalidValueError(
            f"{path} is not a regular file (a symbolic link or a folder); a folder is read only from its own "
            f"files: write the {what} again."
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidValueError(
            f"{folder} is incomplete or was not written by icml_topics (no {MANIFEST}); "
            f"write the {what} again (e.g. re-run the same command)."
        ) from None
    except (OSError, ValueError, RecursionError, MemoryError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:200]
        raise InvalidValueError(f"{folder}/{MANIFEST} cannot be read ({why}); write the {what} again.") from None
    if (
        not isinstance(manifest, dict)
        or manifest.get("complete") is not True
        or not isinstance(manifest.get("files"), dict)
    ):
        raise InvalidValueError(f"{folder}/{MANIFEST} does not mark a complete {what}; write it again.")
    for name, digest in manifest["files"].items():
        problem = member_problem(folder, name)
        if problem is not None:
            if problem.endswith("which is missing"):
                raise InvalidValueError(f"{folder} is incomplete: {name} is missing; write the {what} again.")
            raise InvalidValueError(f"{folder}/{MANIFEST} {problem}; write the {what} again.")
        if sha256_file(folder / name) != digest:
            raise InvalidValueError(
                f"{folder}/{name} was changed after it was written (checksum mismatch); write the {what} again."
            )
    return manifest

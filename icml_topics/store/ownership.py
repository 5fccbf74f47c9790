"""The proof that a folder is ours to replace: its ``manifest.json`` says so, and every file in it agrees.

A folder is ours only when its manifest proves it: ``"written_by": "icml_topics"``, a ``"format"`` this
version writes, ``"complete": true``, every listed file present with its SHA-256, and nothing unlisted.
A symbolic link given as the folder is followed (``follow_link``): its target is checked and replaced,
the link is left as it is.

Examples:
    >>> from icml_topics.store.ownership import is_ours, ownership_problem
    >>> is_ours(Path("out"))  # written by `icml-topics fit --out out`, unchanged since
    True
    >>> ownership_problem(Path("notes"))
    "--out notes holds 'todo.txt', which no icml_topics manifest lists (...); ..."
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath

from icml_topics._io import MANIFEST, MANIFEST_FORMAT, sha256_file
from icml_topics.errors import InvalidValueError

__all__ = ["WRITTEN_BY", "follow_link", "foreign_entries", "is_ours", "ownership_problem"]

WRITTEN_BY = "icml_topics"  # manifest.json's "written_by": with "format", the claim that a folder is ours
_LEGACY = "legacy"  # a manifest of ours written before "format" was recorded


def _manifest_claim(folder: Path) -> tuple[dict[str, str] | None, str | None]:
    """``(files, None)``: ``folder/manifest.json`` proves nothing yet wrong about itself (name -> SHA-256);
    ``(files or None, why)``: it is not one of ours (``why`` says what is missing); ``(None, None)``: none."""
    path = folder / MANIFEST
    if not path.exists() and not path.is_symlink():
        return None, None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8")) if not path.is_symlink() else None
    except (OSError, ValueError):
        manifest = None
    if not isinstance(manifest, dict):
        return None, f"{MANIFEST} is not a JSON object written by icml_topics"
    files = manifest.get("files")
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        return None, f'{MANIFEST} has no "files" map of file names to SHA-256'
    if any(_unsafe_name(name) for name in files):
        return None, f"{MANIFEST} lists a path outside the folder"
    if manifest.get("written_by") != WRITTEN_BY:
        return None, f'{MANIFEST} does not say "written_by": "{WRITTEN_BY}"'
    if "format" not in manifest:
        return files, _LEGACY
    fmt = manifest["format"]
    if isinstance(fmt, bool) or fmt != MANIFEST_FORMAT:
        return None, f'{MANIFEST} has "format": {json.dumps(fmt)}, not {MANIFEST_FORMAT} (another icml_topics version)'
    if manifest.get("complete") is not True:
        return None, f'{MANIFEST} does not say "complete": true (an interrupted run)'
    return files, None


def _unsafe_name(name: str) -> bool:
    path = PurePosixPath(name)
    return not name or path.is_absolute() or ".." in path.parts or "\\" in name


def _entries(folder: Path, listed: set[str]) -> list[str]:
    """Entries of ``folder`` (relative paths, recursively) that ``listed`` does not name; symbolic links and
    folders holding no listed file count as unlisted; nothing is followed outside ``folder``."""
    listed_dirs = {"/".join(name.split("/")[:i]) for name in listed for i in range(1, name.count("/") + 1)}
    found: list[str] = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        base = Path(root).relative_to(folder).as_posix()
        for name in sorted(dirs):
            rel = name if base == "." else f"{base}/{name}"
            if (Path(root) / name).is_symlink() or rel not in listed_dirs:
                found.append(rel + "/")
        dirs[:] = [d for d in sorted(dirs) if (d if base == "." else f"{base}/{d}") in listed_dirs]
        dirs[:] = [d for d in dirs if not (Path(root) / d).is_symlink()]
        for name in sorted(files):
            rel = name if base == "." else f"{base}/{name}"
            if rel not in listed or (Path(root) / name).is_symlink():
                found.append(rel)
    return found


def foreign_entries(folder: Path) -> list[str]:
    """Entries of ``folder`` (relative paths, recursively) that no icml_topics manifest in it lists;
    ``manifest.json`` itself counts when it does not prove that icml_topics wrote it (it comes last)."""
    files, why = _manifest_claim(folder)
    listed = set(files) if files is not None and why is None else set()
    if files is not None and why is None:
        listed.add(MANIFEST)
    found = _entries(folder, listed)
    return sorted(found, key=lambda e: e == MANIFEST)


def ownership_problem(folder: Path, label: str = "--out") -> str | None:
    """Why ``folder`` may not be replaced as a whole, as a message naming the entry, the rule and the fix;
    None when it is empty or provably ours."""
    files, why = _manifest_claim(folder)
    if files is None and why is None and not any(folder.iterdir()):
        return None
    keep = "icml_topics never removes what it cannot prove it wrote"
    if why is not None and why != _LEGACY:
        foreign = foreign_entries(folder)
        return (
            f"{label} {folder} holds {foreign[0]!r}, which no icml_topics manifest lists"
            + (f" (and {len(foreign) - 1} more)" if len(foreign) > 1 else "")
            + f" ({why}); the output folder is replaced as a whole and {keep}: choose a new or empty folder "
            "(or move those files out)."
        )
    listed = set(files or ()) | {MANIFEST}
    unlisted = _entries(folder, listed)
    if unlisted:
        return (
            f"{label} {folder} holds {unlisted[0]!r}, which no icml_topics manifest lists"
            + (f" (and {len(unlisted) - 1} more)" if len(unlisted) > 1 else "")
            + f"; the output folder is replaced as a whole and {keep}: choose a new or empty folder "
            "(or move those files out)."
        )
    if files is None:  # no manifest and nothing else: an empty folder (handled above)
        return None
    if why == _LEGACY:
        return (
            f"{label} {folder} was written by an earlier icml_topics version: its {MANIFEST} records no "
            f'"format", so {keep} (every file in it listed with its checksum, in this version\'s format). '
            f"Delete that folder yourself (rm -r {folder}) and run again, or choose a new folder."
        )
    for name, digest in sorted(files.items()):
        path = folder / name
        if not path.is_file():
            return (
                f"{label} {path} is missing: {MANIFEST} lists it, so the folder was changed after icml_topics "
                f"wrote it, and {keep}. Delete that folder yourself (rm -r {folder}) and run again, or choose "
                "a new folder."
            )
        if sha256_file(path) != digest:
            return (
                f"{label} {path} was edited after icml_topics wrote it (its SHA-256 differs from the one in "
                f"{MANIFEST}); the output folder is replaced as a whole, so the edit would be lost. To keep it, "
                f"move the file out of {folder} (or choose a new folder); to discard it, delete the folder "
                f"yourself (rm -r {folder}) and run again."
            )
    return None


def is_ours(folder: Path) -> bool:
    """``folder`` holds a complete icml_topics manifest that lists every file in it, each unchanged."""
    files, why = _manifest_claim(folder)
    return files is not None and why is None and ownership_problem(folder) is None


def follow_link(folder: Path, label: str = "--out") -> Path:
    """``folder``, or the folder a symbolic link ``folder`` points to (checked and replaced like any
    folder; the link itself is never moved). A dangling or looping link is refused."""
    if not folder.is_symlink():
        return folder
    try:
        target = folder.resolve(strict=True)
    except (OSError, RuntimeError):
        raise InvalidValueError(
            f"{label} {folder} is a symbolic link to {os.readlink(folder)!r}, which does not exist (or loops); "
            "icml_topics writes through a link only into an existing folder: create the folder it points to, "
            "or give the real folder's path."
        ) from None
    return target

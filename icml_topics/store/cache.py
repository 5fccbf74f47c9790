"""On-disk caches of results: the same inputs and settings never run UMAP, BERTopic or a drawing twice.

Reductions are keyed by a hash of the embedding matrix and the reducer's settings (``cached_reduction``);
topic representations, the hierarchy and its names by a hash of their inputs and settings
(``cached_json``); drawn outputs (static maps, reports) by a hash of the tables and of the code that draws
them (``cached_files``, ``code_signature``). They live next to the embedding cache (``<cache dir>/reductions``,
``<cache dir>/representations``, ``<cache dir>/outputs``, ...) and are written atomically.

Nothing is trusted blindly: every entry carries a SHA-256 of its content, reductions must be finite
and have one row per document, and JSON values must pass the caller's ``check``. An entry that
fails is logged, recomputed and rewritten, and a result that is not finite is never cached.

Examples:
    >>> from icml_topics.store.cache import cached_json, content_key
    >>> key = content_key("names-v1", ["graph neural networks", "diffusion"])
    >>> cached_json(key, lambda: {"0": "Graphs"}, Path("~/.cache/icml_topics/names").expanduser())
    {'0': 'Graphs'}
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from icml_topics._io import atomic_write_bytes, atomic_write_text

__all__ = ["cached_files", "cached_json", "cached_reduction", "code_signature", "content_key"]

logger = logging.getLogger("icml_topics")

_FORMAT = "v2"  # entries carry a checksum; v1 files (bare .npy / JSON) are never read


def _array_digest(array: np.ndarray) -> str:
    return content_key(str(array.dtype), np.ascontiguousarray(array))


def _read_reduction(path: Path, n_rows: int) -> np.ndarray | None:
    """The stored array, or None (with the reason logged) when it is missing or not to be trusted."""
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as npz:
            values, digest = npz["values"], str(npz["sha256"])
        problem = (
            "checksum mismatch"
            if _array_digest(values) != digest
            else "non-finite values"
            if not np.isfinite(values).all()
            else f"{values.shape[0]} rows for {n_rows} documents"
            if values.ndim != 2 or values.shape[0] != n_rows
            else None
        )
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        problem = f"unreadable: {type(exc).__name__}"
    if problem is None:
        return values
    logger.warning("cached reduction %s is damaged (%s); recomputing it", path.name, problem)
    return None


def reduction_path(embeddings: np.ndarray, settings: str, cache_dir: Path | None) -> Path | None:
    """Where ``cached_reduction`` keeps the reduction of ``embeddings`` with ``settings`` (``None``: no cache)."""
    if cache_dir is None:
        return None
    return Path(cache_dir) / f"{content_key(_FORMAT, settings, np.asarray(embeddings, dtype=np.float32))}.npz"


def cached_reduction(
    embeddings: np.ndarray, settings: str, compute: Callable[[], np.ndarray], cache_dir: Path | None
) -> np.ndarray:
    """Return ``compute()``, reading it from / writing it to ``cache_dir`` when one is given."""
    path = reduction_path(embeddings, settings, cache_dir)
    if path is None:
        return compute()
    out = _read_reduction(path, len(embeddings))
    if out is not None:
        logger.info("reusing cached reduction %s", path.name)
        return out
    out = compute()
    if not np.isfinite(out).all():
        logger.warning("the reduction produced non-finite values; not caching it")
        return out
    buffer = io.BytesIO()
    np.savez(buffer, values=out, sha256=np.array(_array_digest(np.asarray(out))))
    try:
        atomic_write_bytes(path, buffer.getvalue())
    except OSError as exc:
        logger.warning("could not cache a reduction in %s (%s); continuing without", cache_dir, exc)
    return out


def content_key(*parts: object) -> str:
    """A hash of strings, arrays and lists of strings, for cache file names."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            h.update(str(part.shape).encode())
            h.update(np.ascontiguousarray(part).tobytes())
        elif isinstance(part, (list, tuple)):
            for item in part:
                h.update(str(item).encode("utf-8"))
                h.update(b"\x00")
        else:
            h.update(str(part).encode("utf-8"))
        h.update(b"\x01")
    return h.hexdigest()[:32]


def _json_digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode("utf-8")).hexdigest()


def cached_json(
    key: str, compute: Callable[[], dict], cache_dir: Path | None, *, check: Callable[[Any], bool] | None = None
) -> dict:
    """Return ``compute()``, or the JSON stored under ``key`` in ``cache_dir`` by an earlier call.

    A stored value is used only when its checksum matches and ``check(value)`` (if given) is true.
    """
    if cache_dir is None:
        return compute()
    path = Path(cache_dir) / f"{key}.{_FORMAT}.json"
    if path.exists():
        problem = None
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            if (
                not isinstance(stored, dict)
                or "value" not in stored
                or stored.get("sha256") != _json_digest(stored["value"])
            ):
                problem = "checksum mismatch"
            elif check is not None and not check(stored["value"]):
                problem = "unexpected content"
        except (OSError, ValueError) as exc:
            problem = f"unreadable: {type(exc).__name__}"
        if problem is None:
            return stored["value"]
        logger.warning("cache file %s is damaged (%s); recomputing it", path.name, problem)
    value = compute()
    try:
        atomic_write_text(path, json.dumps({"sha256": _json_digest(value), "value": value}))
    except OSError as exc:
        logger.warning("could not write cache file %s (%s); continuing without", path, exc)
    return value


def cached_files(
    key: str, compute: Callable[[], dict[str, bytes]], cache_dir: Path | None, *, keep: int | None = 12
) -> dict[str, bytes]:
    """Return ``compute()`` (named byte strings: a map's PNG and SVG, a report), or what an earlier call
    stored under ``key`` in ``cache_dir``: one zip holding each blob and its SHA-256. An entry whose
    checksums do not match is logged, recomputed and rewritten. ``keep``: after a write, only the newest
    ``keep`` entries of this kind (the key's prefix before ``-``) stay (a report is megabytes).
    """
    if cache_dir is None:
        return compute()
    path = Path(cache_dir) / f"{key}.{_FORMAT}.zip"
    if path.exists():
        problem = None
        try:
            with zipfile.ZipFile(path) as bundle:
                digests = json.loads(bundle.read("sha256.json"))
                if not isinstance(digests, dict):
                    raise ValueError("sha256.json is not a table of checksums")
                blobs = {name: bundle.read(f"files/{name}") for name in digests}
            if any(hashlib.sha256(blob).hexdigest() != digests[name] for name, blob in blobs.items()):
                problem = "checksum mismatch"
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            problem = f"unreadable: {type(exc).__name__}"
        if problem is None:
            return blobs
        logger.warning("cache file %s is damaged (%s); recomputing it", path.name, problem)
    blobs = compute()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as bundle:
        bundle.writestr("sha256.json", json.dumps({n: hashlib.sha256(b).hexdigest() for n, b in blobs.items()}))
        for name, blob in blobs.items():
            bundle.writestr(f"files/{name}", blob)
    try:
        atomic_write_bytes(path, buffer.getvalue())
        if keep is not None:
            kind = key.split("-", 1)[0]
            entries = sorted(Path(cache_dir).glob(f"{kind}-*.{_FORMAT}.zip"), key=lambda p: p.stat().st_mtime_ns)
            for old in entries[: max(len(entries) - keep, 0)]:
                old.unlink(missing_ok=True)
    except OSError as exc:
        logger.warning("could not write cache file %s (%s); continuing without", path, exc)
    return blobs


def code_signature(*modules: str, distributions: tuple[str, ...] = ()) -> str:
    """A hash of the files (path, size, modification time) of the packages ``modules`` and of the
    versions of ``distributions``: an output cached under it is redrawn when the code that draws it
    changes, even without a new version number."""
    from importlib.metadata import PackageNotFoundError, version
    from importlib.util import find_spec

    parts: list[str] = []
    for name in modules:
        spec = find_spec(name)  # the package's folder, without importing it (plotly, matplotlib: seconds)
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
        folder = Path(locations[0]) if locations else Path(spec.origin if spec and spec.origin else ".").parent
        for path in sorted(folder.glob("*")):
            if path.suffix in (".py", ".js", ".css", ".json", ".html") and path.is_file():
                stat = path.stat()
                parts.append(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}")
    for dist in distributions:
        try:
            parts.append(f"{dist}=={version(dist)}")
        except PackageNotFoundError:
            parts.append(f"{dist}: none")
    return content_key(parts)

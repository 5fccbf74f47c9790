"""Persistent embedding cache: one SQLite file, keyed by model identity + normalised text.

* Shared across runs and corpora: a text embedded once by a model is never embedded again by it.
* Safe under interruption: every ``put_many`` is one SQLite transaction, so a killed process leaves
  either all of a batch or none of it.
* Never silently trusted: the file is checked (``PRAGMA quick_check``) when opened, and every row
  carries a CRC32 of its vector and its dimension, both verified on read. A corrupt file is moved
  aside (``embeddings.sqlite3.corrupt``), a warning is logged, and an empty cache is rebuilt.
* Never fatal: a cache that cannot be created or written (read-only disk, full disk) logs one
  warning and embedding carries on without it.

Location: ``$ICML_TOPICS_CACHE_DIR/embeddings``, else ``platformdirs.user_cache_dir("icml_topics")/embeddings``.

Examples:
    >>> from icml_topics.embedding import EmbeddingCache
    >>> cache = EmbeddingCache("/tmp/emb-cache")
    >>> cache.put_many("my-model@abc", ["a text"], np.ones((1, 4), np.float32) / 2)
    >>> cache.get_many("my-model@abc", ["  a   text "])[0]
    array([0.5, 0.5, 0.5, 0.5], dtype=float32)
    >>> cache.stats()["entries"], cache.clear()
    (1, 1)
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
import unicodedata
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from icml_topics.errors import InvalidValueError

__all__ = ["CACHE_FILENAME", "EmbeddingCache", "default_cache_dir", "normalize_text", "text_key"]

logger = logging.getLogger("icml_topics")

CACHE_FILENAME = "embeddings.sqlite3"
SCHEMA_VERSION = "1"
_CHUNK = 500  # keys per SELECT ... IN (...), below SQLite's host-parameter limit

# SQLite primary result codes (sqlite3.Error.sqlite_errorcode & 0xFF)
_CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
_UNWRITABLE_CODES = {3, 8, 10, 13, 14, 23}  # PERM, READONLY, IOERR, FULL, CANTOPEN, AUTH

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vectors (
    model_id TEXT NOT NULL,
    text_key BLOB NOT NULL,
    dim INTEGER NOT NULL,
    crc INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model_id, text_key)
);
"""


def default_cache_dir() -> Path:
    """Folder of the default embedding cache (created on first write, not here).

    Examples:
        >>> default_cache_dir()
        PosixPath('/home/me/.cache/icml_topics/embeddings')
    """
    root = os.environ.get("ICML_TOPICS_CACHE_DIR", "").strip()
    if root:
        return Path(root).expanduser() / "embeddings"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("icml_topics")) / "embeddings"


def machine_dir() -> Path:
    """Folder of what belongs to this machine rather than to one cache: the exported ONNX models and the
    per-machine embedding-path decision. ``$ICML_TOPICS_MACHINE_DIR`` when set (so several embedding
    caches share one export and one decision), else next to the default embedding cache."""
    root = os.environ.get("ICML_TOPICS_MACHINE_DIR", "").strip()
    return Path(root).expanduser() if root else default_cache_dir().parent


def normalize_text(text: str) -> str:
    """Unicode NFC, stripped, whitespace runs collapsed to one space: the text that is embedded and keyed.

    Args:
        text: the text.

    Examples:
        >>> normalize_text("  A\\n  graph   network ")
        'A graph network'
    """
    return " ".join(unicodedata.normalize("NFC", text).split())


def text_key(normalized: str) -> bytes:
    """SHA-256 of an already normalised text (32 bytes)."""
    return hashlib.sha256(normalized.encode("utf-8")).digest()


def _error_code(exc: sqlite3.Error) -> int:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:  # Python < 3.11: fall back to the message
        message = str(exc).lower()
        if "not a database" in message or "malformed" in message:
            return 11
        if "readonly" in message or "unable to open" in message or "disk" in message:
            return 8
        return 1
    return int(code) & 0xFF


def _is_corrupt(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.DatabaseError) and _error_code(exc) in _CORRUPT_CODES


def _chunks(items: Sequence[Any], size: int = _CHUNK) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class EmbeddingCache:
    """Persistent store of L2-normalised float32 vectors, keyed by ``(model_id, normalised text)``.

    Nothing touches the disk until the first call. Usable as a context manager; ``close`` releases the file.

    Args:
        path: a folder (the file inside is ``embeddings.sqlite3``) or a file ending in ``.sqlite3``,
            ``.sqlite`` or ``.db``; ``None`` means [`default_cache_dir`][icml_topics.embedding.default_cache_dir].

    Examples:
        >>> cache = EmbeddingCache("cache/")
        >>> embed(["An abstract."], cache=cache).shape
        (1, 384)
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        target = Path(path).expanduser() if path is not None else default_cache_dir()
        if target.suffix.lower() not in {".sqlite3", ".sqlite", ".db"}:
            target = target / CACHE_FILENAME
        self.path: Path = target
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        self._unavailable: str | None = None  # why the cache cannot be used at all
        self._read_only: str | None = None  # why writes are skipped
        self.recovered: list[str] = []  # messages about corrupt files moved aside

    # -- public API ---------------------------------------------------------------------------------
    @property
    def available(self) -> bool:
        """False when the cache could not be opened (then every lookup misses and writes are skipped)."""
        with self._lock:
            return self._connection() is not None

    @property
    def writable(self) -> bool:
        with self._lock:
            return self._connection() is not None and self._read_only is None

    def get_many(self, model_id: str, texts: Sequence[str], *, dim: int | None = None) -> list[np.ndarray | None]:
        """Cached vectors for ``texts`` (normalised here), aligned with them; ``None`` marks a miss.

        Rows whose CRC, dimension (when ``dim`` is given) or norm is wrong are reported, deleted and
        returned as misses, so they are recomputed.

        Args:
            model_id: the model's identity (``icml_topics.embedding.model_identity``): vectors of different
                models never mix.
            texts: the texts to look up.
            dim: the expected vector length; a cached vector of another length is a miss. ``None``: any.
        """
        keys = [text_key(normalize_text(t)) for t in texts]
        found: dict[bytes, np.ndarray] = {}
        with self._lock:
            rows = self._run(lambda conn: self._select(conn, model_id, list(dict.fromkeys(keys))), default=[])
            bad: list[bytes] = []
            for key, row_dim, crc, blob in rows:
                vector = self._decode(row_dim, crc, blob, dim)
                if vector is None:
                    bad.append(key)
                else:
                    found[key] = vector
            if bad:
                logger.warning(
                    "embedding cache %s: %d damaged entr%s for %s ignored and removed; they will be recomputed",
                    self.path,
                    len(bad),
                    "y" if len(bad) == 1 else "ies",
                    model_id,
                )
                self._write(
                    lambda conn: conn.executemany(
                        "DELETE FROM vectors WHERE model_id = ? AND text_key = ?", [(model_id, k) for k in bad]
                    )
                )
        return [found.get(k) for k in keys]

    def put_many(self, model_id: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Store one vector per text, all in one transaction (all or nothing).

        Args:
            model_id: the model's identity (``icml_topics.embedding.model_identity``): vectors of different
                models never mix.
            texts: the texts (normalised here).
            vectors: one finite row per text.
        """
        array = np.asarray(vectors, dtype=np.float32)
        if array.ndim != 2 or array.shape[0] != len(texts):
            raise InvalidValueError(
                f"put_many needs one vector per text: got {len(texts)} texts and an array of shape {array.shape}"
            )
        if not np.isfinite(array).all():
            raise InvalidValueError("put_many got NaN or infinite values; refusing to cache them")
        norms = np.linalg.norm(array, axis=1)
        if array.size and np.abs(norms - 1.0).max() > 1e-3:
            raise InvalidValueError("put_many stores L2-normalised vectors only; divide each row by its norm first")
        dim = int(array.shape[1])
        rows = []
        for text, vector in zip(texts, array):
            blob = np.ascontiguousarray(vector, dtype="<f4").tobytes()
            rows.append((model_id, text_key(normalize_text(text)), dim, zlib.crc32(blob), blob))
        if rows:
            with self._lock:
                self._write(
                    lambda conn: conn.executemany(
                        "INSERT OR REPLACE INTO vectors (model_id, text_key, dim, crc, vector) VALUES (?, ?, ?, ?, ?)",
                        rows,
                    )
                )

    def stats(self) -> dict[str, Any]:
        """``{"path", "size_bytes", "entries", "models": {model_id: entries}, "available", "writable"}``."""
        with self._lock:
            models: dict[str, int] = dict(
                self._run(
                    lambda conn: conn.execute(
                        "SELECT model_id, COUNT(*) FROM vectors GROUP BY model_id ORDER BY model_id"
                    ).fetchall(),
                    default=[],
                )
            )
            size = sum(p.stat().st_size for p in self._files() if p.exists())
            return {
                "path": str(self.path),
                "size_bytes": int(size),
                "entries": int(sum(models.values())),
                "models": models,
                "available": self._conn is not None,
                "writable": self._conn is not None and self._read_only is None,
            }

    def clear(self, model_id: str | None = None) -> int:
        """Delete the entries of ``model_id`` (all entries when ``None``); returns how many were deleted.

        Args:
            model_id: the model whose vectors to delete; ``None``: every model's.
        """
        with self._lock:
            if not self.path.exists():
                return 0
            where, args = ("WHERE model_id = ?", (model_id,)) if model_id is not None else ("", ())
            before = self._run(
                lambda conn: conn.execute(f"SELECT COUNT(*) FROM vectors {where}", args).fetchone()[0], default=0
            )
            if not self._write(lambda conn: conn.execute(f"DELETE FROM vectors {where}", args)):
                return 0
            self._run(lambda conn: conn.execute("VACUUM"), default=None)
            return int(before)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> EmbeddingCache:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"EmbeddingCache({str(self.path)!r})"

    # -- internals ----------------------------------------------------------------------------------
    def _files(self) -> list[Path]:
        return [self.path] + [self.path.with_name(self.path.name + s) for s in ("-journal", "-wal", "-shm")]

    def _connection(self) -> sqlite3.Connection | None:
        if self._conn is not None or self._unavailable is not None:
            return self._conn
        for attempt in range(2):
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
            except (OSError, sqlite3.Error) as exc:
                return self._give_up(
                    f"cannot open {self.path} ({exc}); embeddings will not be cached. "
                    "Set ICML_TOPICS_CACHE_DIR to a writable folder or pass cache=False"
                )
            try:
                status = conn.execute("PRAGMA quick_check").fetchone()
                if status is None or status[0] != "ok":
                    raise sqlite3.DatabaseError(f"quick_check reported: {status[0] if status else 'nothing'}")
                self._init_schema(conn)
            except sqlite3.DatabaseError as exc:
                conn.close()
                if attempt == 0 and (_is_corrupt(exc) or "quick_check" in str(exc)):
                    self._quarantine(exc)
                    continue
                return self._give_up(f"cannot use {self.path} ({exc}); embeddings will not be cached")
            self._conn = conn
            return conn
        return None  # pragma: no cover - the loop always returns

    def _init_schema(self, conn: sqlite3.Connection) -> None:
        try:
            conn.executescript(_SCHEMA)
            conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
        except sqlite3.OperationalError as exc:
            if _error_code(exc) not in _UNWRITABLE_CODES:
                raise
            self._mark_read_only(exc)
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None or row[0] != SCHEMA_VERSION:
            found = row[0] if row else "none"
            raise sqlite3.DatabaseError(
                f"cache schema version {found} is not the expected {SCHEMA_VERSION} (written by another icml_topics "
                "version); point ICML_TOPICS_CACHE_DIR elsewhere or delete the file"
            )

    def _give_up(self, message: str) -> None:
        logger.warning("embedding cache: %s", message)
        self._unavailable = message
        return None

    def _mark_read_only(self, exc: BaseException) -> None:
        if self._read_only is None:
            self._read_only = str(exc)
            logger.warning(
                "embedding cache %s is not writable (%s); new embeddings will not be cached. "
                "Set ICML_TOPICS_CACHE_DIR to a writable folder or pass cache=False",
                self.path,
                exc,
            )

    def _quarantine(self, exc: BaseException) -> None:
        """Move a corrupt database aside (keeping the latest one for inspection) so a fresh one is built."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        aside = self.path.with_name(self.path.name + ".corrupt")
        message = (
            f"embedding cache {self.path} is corrupt ({exc}); moved it to {aside} and started an empty "
            "cache, so affected texts will be embedded again"
        )
        logger.warning(message)
        self.recovered.append(message)
        try:
            os.replace(self.path, aside)
        except FileNotFoundError:
            pass
        except OSError:
            self.path.unlink(missing_ok=True)
        for extra in self._files()[1:]:
            extra.unlink(missing_ok=True)

    def _run(self, op: Any, default: Any) -> Any:
        """Run a read ``op(conn)``; on corruption move the file aside and rebuild, on other errors warn."""
        for attempt in range(2):
            conn = self._connection()
            if conn is None:
                return default
            try:
                return op(conn)
            except sqlite3.DatabaseError as exc:
                if _is_corrupt(exc) and attempt == 0:
                    self._quarantine(exc)
                    continue
                logger.warning("embedding cache %s: read failed (%s); treating as a miss", self.path, exc)
                return default
        return default  # pragma: no cover

    def _write(self, op: Any) -> bool:
        """Run ``op(conn)`` inside one transaction; returns whether it was committed."""
        for attempt in range(2):
            conn = self._connection()
            if conn is None or self._read_only is not None:
                return False
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    op(conn)
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
                return True
            except sqlite3.DatabaseError as exc:
                if _is_corrupt(exc) and attempt == 0:
                    self._quarantine(exc)
                    continue
                if _error_code(exc) in _UNWRITABLE_CODES:
                    self._mark_read_only(exc)
                else:
                    logger.warning(
                        "embedding cache %s: write failed (%s); these embeddings were not cached", self.path, exc
                    )
                return False
        return False  # pragma: no cover

    @staticmethod
    def _select(conn: sqlite3.Connection, model_id: str, keys: list[bytes]) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = []
        for chunk in _chunks(keys):
            marks = ",".join("?" * len(chunk))
            rows.extend(
                conn.execute(
                    f"SELECT text_key, dim, crc, vector FROM vectors WHERE model_id = ? AND text_key IN ({marks})",
                    (model_id, *chunk),
                ).fetchall()
            )
        return rows

    @staticmethod
    def _decode(row_dim: int, crc: int, blob: bytes, expected_dim: int | None) -> np.ndarray | None:
        if not isinstance(blob, bytes) or len(blob) != 4 * row_dim or zlib.crc32(blob) != crc:
            return None
        if expected_dim is not None and row_dim != expected_dim:
            return None
        vector = np.frombuffer(blob, dtype="<f4").astype(np.float32)
        norm = float(np.linalg.norm(vector))
        if not np.isfinite(norm) or abs(norm - 1.0) > 1e-3:
            return None
        return vector

"""On-disk caches of stage results: the same inputs and settings never run UMAP or BERTopic twice.

Reductions are keyed by a hash of the embedding matrix and the reducer's settings and stored as
``.npy``; topic representations (keyphrases) by a hash of the texts, the cluster labels and the
settings, stored as JSON. Both live next to the embedding cache (``<cache dir>/reductions``,
``<cache dir>/representations``) and are written atomically; a file that does not load or does not
fit is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np

from icml_topics._io import atomic_path

__all__ = ["cached_json", "cached_reduction", "content_key"]

logger = logging.getLogger("icml_topics")


def cached_reduction(
    embeddings: np.ndarray, settings: str, compute: Callable[[], np.ndarray], cache_dir: Path | None
) -> np.ndarray:
    """Return ``compute()``, reading it from / writing it to ``cache_dir`` when one is given."""
    if cache_dir is None:
        return compute()
    path = Path(cache_dir) / f"{content_key(settings, np.asarray(embeddings, dtype=np.float32))}.npy"
    if path.exists():
        try:
            out = np.load(path, allow_pickle=False)
            if out.shape[0] == len(embeddings):
                logger.info("reusing cached reduction %s", path.name)
                return out
        except (OSError, ValueError):
            logger.warning("ignoring unreadable cached reduction %s", path)
    out = compute()
    try:
        with atomic_path(path, suffix=".npy") as tmp:
            with open(tmp, "wb") as fh:
                np.save(fh, out, allow_pickle=False)
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


def cached_json(key: str, compute: Callable[[], dict], cache_dir: Path | None) -> dict:
    """Return ``compute()``, or the JSON stored under ``key`` in ``cache_dir`` by an earlier call."""
    import json

    from icml_topics._io import atomic_write_text

    if cache_dir is None:
        return compute()
    path = Path(cache_dir) / f"{key}.json"
    if path.exists():
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            logger.warning("ignoring unreadable cache file %s", path)
    value = compute()
    try:
        atomic_write_text(path, json.dumps(value))
    except OSError as exc:
        logger.warning("could not write cache file %s (%s); continuing without", path, exc)
    return value

"""On-disk cache of reductions: the same embeddings and reducer settings never run UMAP twice.

Keyed by a hash of the embedding matrix and the reducer's settings, stored as ``.npy`` files written
atomically next to the embedding cache (``<cache dir>/reductions``). A file that does not load or has
the wrong shape is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np

from icml_topics._io import atomic_path

__all__ = ["cached_reduction"]

logger = logging.getLogger("icml_topics")


def _key(embeddings: np.ndarray, settings: str) -> str:
    h = hashlib.sha256()
    h.update(settings.encode())
    h.update(str(embeddings.shape).encode())
    h.update(np.ascontiguousarray(embeddings, dtype=np.float32).tobytes())
    return h.hexdigest()[:32]


def cached_reduction(
    embeddings: np.ndarray, settings: str, compute: Callable[[], np.ndarray], cache_dir: Path | None
) -> np.ndarray:
    """Return ``compute()``, reading it from / writing it to ``cache_dir`` when one is given."""
    if cache_dir is None:
        return compute()
    path = Path(cache_dir) / f"{_key(embeddings, settings)}.npy"
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

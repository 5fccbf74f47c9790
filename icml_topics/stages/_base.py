"""The contract of the pluggable map projection (reducer) and the seed rule every stage follows.

Pass your own object to ``TopicMap(reducer=...)``; it needs only this method:

    >>> from sklearn.decomposition import PCA
    >>> isinstance(PCA(2), ReducerProtocol)
    True

Seeds follow scikit-learn's ``check_random_state``: ``None`` = fresh randomness on every call
(results differ and no stage result is cached), an ``int`` = fixed (same data + seed = same result).
"""

from __future__ import annotations

import inspect
from typing import Protocol, runtime_checkable

import numpy as np

from icml_topics.parameters import DEFAULT_RANDOM_STATE

__all__ = ["DEFAULT_RANDOM_STATE", "CacheableReducer", "ReducerProtocol", "accepts_knn", "seed_from"]


@runtime_checkable
class ReducerProtocol(Protocol):
    """Reduces document embeddings ``(n, dim)`` to ``(n, k)``: a user's map (``TopicMap(reducer=...)``; its first
    two columns are the 2-D map).

    ``fit_transform(embeddings)`` returns one row per document. If it also takes a ``knn`` argument,
    it receives the exact cosine kNN graph ``(indices, distances)`` (each ``(n, n_neighbors)``) that
    icml_topics computes once for both projections.

    Examples:
        >>> from sklearn.decomposition import PCA
        >>> isinstance(PCA(5), ReducerProtocol)
        True
    """

    def fit_transform(self, embeddings: np.ndarray) -> np.ndarray:
        """The documents in the reduced space, one row per row of ``embeddings``.

        Args:
            embeddings: the document embeddings ``(n, dim)``.
        """
        ...


@runtime_checkable
class CacheableReducer(ReducerProtocol, Protocol):
    """A reducer whose result may be cached on disk: ``cache_key()`` returns a string that changes
    whenever a setting that changes the result does (e.g. ``"UMAP:5:15:0.0:42"``).

    Examples:
        >>> isinstance(Reducer(n_components=5), CacheableReducer)
        True
    """

    def cache_key(self) -> str: ...


def accepts_knn(reducer: object) -> bool:
    """True when ``reducer.fit_transform`` takes the precomputed kNN graph (a ``knn`` parameter)."""
    try:
        return "knn" in inspect.signature(reducer.fit_transform).parameters  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        return False


def seed_from(random_state: object) -> int:
    """An int seed for libraries that need one: an int as given, ``None`` a fresh one, a
    ``RandomState`` a draw from it (scikit-learn's ``check_random_state`` rule).

    Args:
        random_state: an int, ``None`` or a ``numpy.random.RandomState``.

    Examples:
        >>> seed_from(7)
        7
    """
    from sklearn.utils import check_random_state

    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return int(random_state)
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))

"""Defaults that scale with corpus size; every one can be overridden on ``TopicMap``.

>>> size_aware_defaults(5630)
StageDefaults(n_neighbors=15, reducer='umap', min_df=2, topic_sizes=(90, 24))
>>> size_aware_defaults(38).reducer
'small'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["SMALL_CORPUS", "TOPIC_SIZES", "TREE_FULL_SIZE", "StageDefaults", "size_aware_defaults"]

# Below this, UMAP's numba JIT (~12 s a process) costs more than it brings to a map of a few dozen points;
# t-SNE (scikit-learn, no JIT) draws it instead.
SMALL_CORPUS = 100
# The topic tree's papers a node (topic, subtopic): the settings whose stability was measured on ICML 2013-2024
# and 3,000 ICLR 2024 papers (benchmarks/results/hierarchy_stability.md); below TREE_FULL_SIZE papers they
# shrink with sqrt(n / TREE_FULL_SIZE), so a few hundred papers still get topics below their themes.
TOPIC_SIZES = (90, 24)
TREE_FULL_SIZE = 2000


@dataclass(frozen=True)
class StageDefaults:
    """The map and vocabulary settings [`size_aware_defaults`][icml_topics.stages.size_aware_defaults] picks for a corpus size.

    Args:
        n_neighbors: UMAP's neighbourhood size.
        reducer: ``"umap"`` or ``"small"`` (PCA + t-SNE).
        min_df: the fewest documents a keyphrase must occur in.
        topic_sizes: the topic tree's mean papers a node, coarsest level first.

    Examples:
        >>> size_aware_defaults(5000).reducer
        'umap'
    """

    n_neighbors: int
    reducer: str
    min_df: int
    topic_sizes: tuple[int, ...]


def size_aware_defaults(n_documents: int) -> StageDefaults:
    """Defaults for ``n_documents`` abstracts.

    * ``n_neighbors`` is UMAP's 15, capped for tiny corpora;
    * corpora under ``SMALL_CORPUS`` documents use the small-corpus map (PCA + t-SNE), which needs no JIT
      compilation;
    * a keyphrase must occur in two papers, one under 200 papers;
    * ``topic_sizes`` is ``TOPIC_SIZES`` from ``TREE_FULL_SIZE`` papers up, scaled by ``sqrt(n / TREE_FULL_SIZE)``
      below it (at least 2 papers, each level smaller than the one above).

    Args:
        n_documents: the number of modelled documents.

    Examples:
        >>> size_aware_defaults(240).n_neighbors
        15
    """
    n = max(int(n_documents), 1)
    scale = math.sqrt(min(1.0, n / TREE_FULL_SIZE))
    sizes: list[int] = []
    for size in reversed(TOPIC_SIZES):  # finest first: each coarser level at least one paper more
        sizes.insert(0, max(round(size * scale), 2, sizes[0] + 1 if sizes else 2))
    return StageDefaults(
        n_neighbors=max(2, min(15, n - 1)),
        reducer="small" if n < SMALL_CORPUS else "umap",
        min_df=1 if n < 200 else 2,
        topic_sizes=tuple(sizes),
    )

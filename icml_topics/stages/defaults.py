"""Defaults that scale with corpus size; every one can be overridden on ``TopicMap``.

>>> size_aware_defaults(5630)
StageDefaults(min_topic_size=25, min_samples=6, n_neighbors=15, reducer='umap', min_df=2)
>>> size_aware_defaults(38).reducer
'small'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["SMALL_CORPUS", "StageDefaults", "size_aware_defaults"]

# Below this, UMAP's numba JIT (~12 s a process) costs more than it brings. Measured on 240 real ICML
# abstracts: PCA-5 + HDBSCAN gave 5 topics (one of 125 papers, 33% outliers), UMAP gave 17 topics
# (largest 30, 17% outliers); so UMAP from 100 documents up.
SMALL_CORPUS = 100


@dataclass(frozen=True)
class StageDefaults:
    """The clustering, UMAP and vocabulary settings [`size_aware_defaults`][icml_topics.stages.size_aware_defaults] picks for a corpus size.

    Args:
        min_topic_size: HDBSCAN's smallest cluster.
        min_samples: HDBSCAN's density setting.
        n_neighbors: UMAP's neighbourhood size.
        reducer: ``"umap"`` or ``"small"`` (PCA + t-SNE).
        min_df: the fewest documents a keyphrase must occur in.

    Examples:
        >>> size_aware_defaults(5000).reducer
        'umap'
    """

    min_topic_size: int
    min_samples: int
    n_neighbors: int
    reducer: str
    min_df: int


def size_aware_defaults(n_documents: int) -> StageDefaults:
    """Defaults for ``n_documents`` abstracts.

    * ``min_topic_size`` grows like ``sqrt(n)/3`` (25 for 5.6k abstracts, 41 for 15k), so a
      conference gets tens of fine topics instead of BERTopic's 80+ ten-paper topics;
    * ``min_samples`` is a quarter of it, which keeps HDBSCAN's outlier share low;
    * ``n_neighbors`` is UMAP's 15, capped for tiny corpora;
    * corpora under ``SMALL_CORPUS`` documents use the small-corpus reducer (PCA + t-SNE), which
      needs no JIT compilation.

    Args:
        n_documents: the number of modelled documents.

    Examples:
        >>> size_aware_defaults(240).min_topic_size
        5
    """
    n = max(int(n_documents), 1)
    min_topic_size = max(3, min(100, round(math.sqrt(n) / 3)))
    return StageDefaults(
        min_topic_size=min_topic_size,
        min_samples=max(2, min_topic_size // 4),
        n_neighbors=max(2, min(15, n - 1)),
        reducer="small" if n < SMALL_CORPUS else "umap",
        min_df=1 if n < 200 else 2,
    )

"""Defaults that scale with corpus size; every one can be overridden on ``TopicMap``.

>>> size_aware_defaults(5630)
StageDefaults(n_neighbors=15, reducer='umap', min_df=2, finest_size=24, branching=8.0, min_size=3)
>>> size_aware_defaults(240).finest_size, size_aware_defaults(240).min_size
(10, 10)
>>> size_aware_defaults(38).reducer
'small'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "BRANCHING",
    "FINEST_SIZE",
    "FOLD_SIZE",
    "MIN_NODE_SIZE",
    "SMALL_CORPUS",
    "TREE_FULL_SIZE",
    "StageDefaults",
    "size_aware_defaults",
]

# Below this, UMAP's numba JIT (~12 s a process) costs more than it brings to a map of a few dozen points;
# t-SNE (scikit-learn, no JIT) draws it instead.
SMALL_CORPUS = 100
# The topic tree's finest level: papers a node on average (the subtopics' size whose stability was measured on
# ICML 2013-2024 and 3,000 ICLR 2024 papers, benchmarks/results/hierarchy_stability.md); below TREE_FULL_SIZE
# papers it shrinks with sqrt(n / TREE_FULL_SIZE), so a few hundred papers still get topics below their themes.
FINEST_SIZE = 24
TREE_FULL_SIZE = 2000
# The most children a node has on average: the tree gets as many levels as the median paper's theme needs to
# stay within it (stages/hierarchy_shape.py): one level for a few hundred papers, two for a few thousand,
# three or four for a million.
BRANCHING = 8.0
# The fewest papers a node needs for its name to be judged by its papers (``compare/name_checks.py`` marks a
# smaller node "too few papers to judge"): the checks ask that 40% of a node's titles say its name
# (``evaluate/names.py``), and below 10 papers one title either way decides it: a name said by 60% of a node's
# papers fails that floor in 10-18% of nodes of 6-9 papers (binomial), 5.5% at 10; one said by 15% passes it
# in 16% of nodes of 5 papers, 5% at 10. Below TREE_FULL_SIZE papers (where the finest size shrinks) the
# default tree cuts no node of fewer papers out of its parent: the finest size is at least this, a theme of
# fewer than twice it is one node, and a smaller node of a cut is folded into its closest sibling
# (benchmarks/results/small_corpus_names.md).
MIN_NODE_SIZE = 10
# From TREE_FULL_SIZE papers up, nodes of fewer papers than this are folded into their closest sibling (the
# fold the tree was tuned with; the finest target of 24 keeps nodes well above MIN_NODE_SIZE there).
FOLD_SIZE = 3


@dataclass(frozen=True)
class StageDefaults:
    """The map and vocabulary settings [`size_aware_defaults`][icml_topics.stages.size_aware_defaults] picks for a corpus size.

    Args:
        n_neighbors: UMAP's neighbourhood size.
        reducer: ``"umap"`` or ``"small"`` (PCA + t-SNE).
        min_df: the fewest documents a keyphrase must occur in.
        finest_size: the topic tree's finest level's mean papers a node.
        branching: the most children a node of the topic tree has on average (its depth follows from it).
        min_size: the topic tree's smallest node: a node of fewer papers joins its closest sibling.

    Examples:
        >>> size_aware_defaults(5000).reducer
        'umap'
    """

    n_neighbors: int
    reducer: str
    min_df: int
    finest_size: int
    branching: float
    min_size: int


def size_aware_defaults(n_documents: int) -> StageDefaults:
    """Defaults for ``n_documents`` abstracts.

    * ``n_neighbors`` is UMAP's 15, capped for tiny corpora;
    * corpora under ``SMALL_CORPUS`` documents use the small-corpus map (PCA + t-SNE), which needs no JIT
      compilation;
    * a keyphrase must occur in two papers, one under 200 papers;
    * the topic tree's finest nodes hold ``FINEST_SIZE`` papers on average from ``TREE_FULL_SIZE`` papers up,
      scaled by ``sqrt(n / TREE_FULL_SIZE)`` below it, never under ``MIN_NODE_SIZE``; its depth is the fewest
      levels at which the median paper's theme branches at most ``BRANCHING`` ways a level
      (``stages/hierarchy_shape.py``);
    * below ``TREE_FULL_SIZE`` papers no node of the tree holds fewer than ``MIN_NODE_SIZE`` papers unless its
      theme does (``min_size``; ``FOLD_SIZE`` from ``TREE_FULL_SIZE`` up).

    Args:
        n_documents: the number of modelled documents.

    Examples:
        >>> size_aware_defaults(240).n_neighbors
        15
    """
    n = max(int(n_documents), 1)
    scale = math.sqrt(min(1.0, n / TREE_FULL_SIZE))
    return StageDefaults(
        n_neighbors=max(2, min(15, n - 1)),
        reducer="small" if n < SMALL_CORPUS else "umap",
        min_df=1 if n < 200 else 2,
        finest_size=max(round(FINEST_SIZE * scale), MIN_NODE_SIZE),
        branching=BRANCHING,
        min_size=FOLD_SIZE if n >= TREE_FULL_SIZE else MIN_NODE_SIZE,
    )

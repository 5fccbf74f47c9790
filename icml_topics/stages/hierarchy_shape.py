"""The shape of the hierarchy under the themes: how many levels, how many nodes a level (issue 51).

With fixed ``HierarchySettings.sizes`` every theme gets those levels (``TopicMap(topic_sizes=...)``). By
default (``HierarchySettings(branching=...)``) the shape follows the corpus:

* a theme of ``n`` papers gets ``n / finest`` nodes at its finest level (``finest``: ``sizes[-1]``, 24 papers
  from 2,000 papers up), so the finest median node stays a readable size at every corpus size;
* the **depth** is the fewest levels (up to ``len(levels)``) at which the theme of the median paper branches
  at most ``branching`` ways a level: ``(n / finest) ** (1 / depth) <= branching``. One level for a few
  hundred papers, two for a few thousand, three or four for a million;
* each coarser level of a theme holds ``(n / finest) ** (l / depth)`` nodes (``l`` levels from the top: the
  same branching at every level of the theme);
* a theme too small for ``MIN_BRANCHING`` children a node at every level gets smaller finest nodes (down to
  ``finest / 2`` papers) so that it branches ``MIN_BRANCHING`` ways a level: most themes are smaller than the
  median paper's theme that sets the depth, and without it their top level held 2 nodes (10k papers: median
  2 topics a theme);
* a level whose nodes are more than ``MAX_REPEATED`` of the time identical to their parent (the same papers)
  repeats the level above it; the coarser one is dropped (the 38-paper demo gets one level, not two that repeat
  each other).

    >>> tree_depth([300] * 20, finest=24, branching=8.0, max_levels=4)
    2
    >>> [round(s) for s in level_sizes(300, finest=24, depth=2)]
    [85, 24]
    >>> [round(s) for s in level_sizes(120, finest=24, depth=2)]  # 3 x 3 nodes, not 2.2 x 2.2
    [40, 13]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["MAX_REPEATED", "MIN_BRANCHING", "drop_repeated_levels", "level_sizes", "repeated_share", "tree_depth"]

#: a level with more than this share of its nodes identical to their parent repeats the level above it
MAX_REPEATED = 0.6

#: the fewest children a node should have: a theme's levels branch at least this many ways when its size allows
#: nodes of ``finest / 2`` papers (``level_sizes``); a coarse level's gap cut keeps at least this many nodes
MIN_BRANCHING = 3


def tree_depth(theme_sizes: Sequence[int], *, finest: int, branching: float, max_levels: int) -> int:
    """The fewest levels (1 to ``max_levels``) at which the theme holding the median paper branches at most
    ``branching`` ways a level, its finest nodes holding ``finest`` papers on average.

    Args:
        theme_sizes: papers per theme.
        finest: the finest level's target papers a node.
        branching: the most children a node should have on average.
        max_levels: the deepest tree allowed.
    """
    sizes = np.sort(np.asarray([s for s in theme_sizes if s > 0], dtype=np.float64))
    if len(sizes) == 0:
        return 1
    median = float(sizes[np.searchsorted(np.cumsum(sizes), sizes.sum() / 2.0)])  # the median paper's theme
    leaves = median / finest
    for depth in range(1, max_levels + 1):
        if leaves ** (1.0 / depth) <= branching:
            return depth
    return max_levels


def level_sizes(n: int, *, finest: int, depth: int, smallest: int = 1) -> list[float]:
    """Papers a node at each of ``depth`` levels (coarsest first) of a theme of ``n`` papers: the finest
    ``finest``, each level above ``(n / finest) ** (1 / depth)`` times larger (at most ``n``: one node). A
    theme with fewer than ``MIN_BRANCHING ** depth`` finest nodes gets that many, each of at least
    ``finest / 2`` and ``smallest`` papers (so it branches ``MIN_BRANCHING`` ways a level when its size allows
    it); no node is planned under ``smallest`` papers (a theme of fewer than twice it is one node).

        >>> [round(s) for s in level_sizes(15, finest=10, depth=1, smallest=10)]  # one node, not 3 of 5
        [15]

    Args:
        n: the theme's papers.
        finest: the finest level's target papers a node.
        depth: the number of levels.
        smallest: the fewest papers a node (the tree's ``min_size``).
    """
    floor = max(finest / 2.0, float(smallest))
    leaves = max(n / finest, min(float(MIN_BRANCHING**depth), n / floor), 1.0)
    leaves = max(min(leaves, float(n // max(smallest, 1))), 1.0)  # no node planned under smallest papers
    return [n / leaves ** ((level + 1) / depth) for level in range(depth)]


def repeated_share(coarse: np.ndarray, fine: np.ndarray) -> float:
    """The share of ``fine``'s nodes that hold exactly the papers of their node in ``coarse`` (nested labels of
    the same papers, -1: none).

        >>> repeated_share(np.array([0, 0, 1, 1]), np.array([5, 6, 7, 7]))
        0.3333333333333333
    """
    rows = fine >= 0
    if not rows.any():
        return 0.0
    pairs, counts = np.unique(np.stack([fine[rows], coarse[rows]]), axis=1, return_counts=True)
    parent_size = dict(zip(*np.unique(coarse[rows], return_counts=True), strict=True))
    same = sum(int(c == parent_size[p]) for p, c in zip(pairs[1], counts, strict=True))
    return same / pairs.shape[1]


def drop_repeated_levels(labels: np.ndarray) -> list[int]:
    """The levels (columns of ``labels``, coarsest first) kept once every level that its next finer level
    repeats (``repeated_share`` above ``MAX_REPEATED``) is dropped; the finest level is always kept.

        >>> drop_repeated_levels(np.array([[0, 2], [1, 3], [1, 3]]))
        [1]
    """
    keep = list(range(labels.shape[1]))
    level = len(keep) - 1
    while level > 0:
        fine, coarse = keep[level], keep[level - 1]
        if repeated_share(labels[:, coarse], labels[:, fine]) > MAX_REPEATED:
            del keep[level - 1]
        level -= 1
    return keep

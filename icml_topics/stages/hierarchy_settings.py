"""How the hierarchy under the themes is built: ``HierarchySettings``, read by ``stages/hierarchy.py`` (the
consensus over the themes) and ``stages/hierarchy_theme.py`` (inside one theme), which both import it from here.

Examples:
    >>> HierarchySettings(levels=("topic",), sizes=(24,)).runs
    16
"""

from __future__ import annotations

from dataclasses import dataclass

from icml_topics.errors import InvalidValueError

__all__ = ["HierarchySettings"]


@dataclass(frozen=True)
class HierarchySettings:
    """How the hierarchy under the themes is built.

    Args:
        levels: level names, coarsest first.
        sizes: target mean papers per node at each level (same order as ``levels``).
        runs: perturbed Ward trees averaged into the consensus (1: a plain Ward tree, no noise).
        noise_cosine: mean cosine of each perturbed copy to the original embeddings.
        smooth: neighbours averaged into each embedding before clustering (0: off).
        min_size: nodes smaller than this are folded into their closest sibling (when they have one).
        final_linkage: linkage of the consensus tree ("average" or "ward").
        refine: k-means (Lloyd) iterations moving the top level's papers to their closest centroid (0: off).
        gap_cut: cut each level but the finest at the widest gap between merge heights among
            0.7-1.4 times its node count (the finest keeps its count, so its median size stays on target,
            unless the level above took so many nodes that it would branch fewer than 3 ways: then it grows,
            down to nodes of half the target size).
        max_theme_size: a theme (or node) with more distinct papers is clustered on an evenly spaced sample of
            this many into its coarser levels, the others placed at their nearest node (cosine to its centroid);
            the finer levels are then built inside each placed node the same way. It bounds each consensus
            (``runs`` trees over all its pairs: time and memory grow with the square of its rows), so the
            hierarchy's cost grows linearly with the corpus beyond it (``benchmarks/results/tree_shape.md``);
            themes of up to this many distinct papers are clustered whole.
        branching: ``None``: every theme gets the levels of ``sizes``. A number: the shape follows the corpus
            (``stages/hierarchy_shape.py``): ``sizes`` is one size, the finest level's papers a node, and the tree
            gets as many of ``levels`` as it takes for the median paper's theme to branch at most this many
            ways a level; a level that repeats the one above it is dropped.

    Examples:
        >>> HierarchySettings(sizes=(100, 25)).sizes
        (100, 25)
    """

    levels: tuple[str, ...] = ("topic", "subtopic")
    sizes: tuple[int, ...] = (90, 24)
    runs: int = 16
    noise_cosine: float = 0.997
    smooth: int = 0
    min_size: int = 3
    final_linkage: str = "average"
    refine: int = 0
    gap_cut: bool = True
    max_theme_size: int = 2000
    branching: float | None = None

    def __post_init__(self) -> None:
        if self.branching is not None:
            if len(self.sizes) != 1 or not self.levels or self.sizes[0] < 1 or self.branching < 2:
                raise InvalidValueError(
                    f"with branching={self.branching} (the depth follows the corpus), sizes {self.sizes} must be "
                    "one size >= 1 (the finest level's papers a node), levels non-empty and branching >= 2"
                )
        elif len(self.levels) != len(self.sizes) or not self.levels:
            raise InvalidValueError(
                f"levels {self.levels} and sizes {self.sizes} must be non-empty and of equal length"
            )
        if any(b > a for a, b in zip(self.sizes, self.sizes[1:], strict=False)) or min(self.sizes) < 1:
            raise InvalidValueError(f"sizes {self.sizes} must be >= 1 and shrink from the coarsest level to the finest")
        if self.runs < 1 or not 0.0 < self.noise_cosine <= 1.0:
            raise InvalidValueError(f"runs={self.runs} must be >= 1 and noise_cosine={self.noise_cosine} in (0, 1]")
        if self.final_linkage not in ("average", "ward"):
            raise InvalidValueError(f"final_linkage={self.final_linkage!r} must be 'average' or 'ward'")

"""The topic tree of a fit: the hierarchy under the research themes (``stages/hierarchy.py``: one consensus
clustering inside each theme), as nested levels, every node named by what sets it apart from its siblings.

Level 0 is the finest (``topics_`` and ``documents_.topic`` are this level); level ``l + 1`` holds the
nodes above it; the top level's nodes sit directly under a research theme (``topic_tree_``'s ``theme``
column), so a paper's path is theme > topic > subtopic. Node ids are unique across levels (the finest
level's are ``0 .. k - 1``, largest first, so ``topics_`` reads as BERTopic's; each coarser level goes on
from there), so no two nodes share an id in any table. Papers without a theme are clustered among themselves
the same way (their nodes' ``theme`` is ""), so every paper has a node at every level.

Names are given level by level (``stages/tree_names.py``, ``stages/sibling_names.py``): each node against
the other nodes of its level and theme, no name repeated within a level. A node with no phrase
of its own keeps its keyphrase name (``name_topics``). A ``topic_namer`` callable names every node instead
when given; a sibling namer (``OpenAINamer``: a language model) names each parent's children together, over
the offline names, which every node whose answer is not usable keeps (``stages/llm_names.py``).

    >>> tree = build_tree(embeddings, themes, texts, titles, keyphrases)  # doctest: +SKIP
    >>> tree.n_levels, len(tree.names[0])  # doctest: +SKIP
    (2, 226)
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from icml_topics._progress import step
from icml_topics.errors import InvalidValueError
from icml_topics.stages.hierarchy import HierarchySettings, fit_levels, membership
from icml_topics.stages.naming import name_key, name_topics
from icml_topics.stages.new_subject_nodes import new_subject_levels
from icml_topics.stages.representatives import representative_order
from icml_topics.store.cache import cached_json, content_key

__all__ = ["TopicTree", "build_tree", "node_similarity", "ranked_levels", "renumbered_finest"]

logger = logging.getLogger("icml_topics")

#: v2: the depth follows the corpus (issue 51); v4: every level branches 3+ ways; v5: every consensus at most
#: ``max_theme_size`` (2,000) rows (a larger theme's coarser levels from a sample, its finer ones inside each node);
#: v6: no node planned under ``min_size`` papers (``hierarchy_shape.level_sizes``' ``smallest``)
_HIERARCHY_VERSION = "hierarchy-v6"

Keyphrases = Callable[[np.ndarray], Sequence[Mapping[int, Sequence[str]]]]
"""``keyphrases(labels)``: each node's keyphrases (best first), one mapping per level of ``labels``
(``(n, levels)``, finest first)."""
NO_THEME = "\x00no theme"  # the group of the papers without a theme (never a taxonomy name)


@dataclass(frozen=True)
class TopicTree:
    """The topic tree of a fit; arrays are aligned with the modelled rows, as in ``FittedState``.

    Args:
        labels: ``labels[:, l]``: each paper's node at level ``l`` (0 = finest, -1 = none).
        parents: ``parents[l][node]``: the node at level ``l + 1`` holding it (-1 at the top level, whose nodes
            sit under their papers' theme).
        names: ``names[l][node]``: the node's name.
        keywords: ``keywords[l][node]``: its keyphrases, best first.
        stability: ``stability[l][node]``: the share of the hierarchy's perturbed runs in which the node
            reappears (Jaccard >= 0.5; NaN: a node no run could split, e.g. the only node of a small theme).
        similarity: ``similarity[:, l]``: each paper's cosine to its node's centroid (how firmly it belongs).

    Examples:
        >>> tree = TopicTree(np.array([[0, 1], [0, 1]]), ({0: 1}, {1: -1}), ({0: "a"}, {1: "b"}), ({0: []}, {1: []}))
        >>> tree.n_levels, tree.nodes(1)
        (2, [1])
    """

    labels: np.ndarray  # (n modelled, n levels) int64
    parents: tuple[dict[int, int], ...]
    names: tuple[dict[int, str], ...]
    keywords: tuple[dict[int, list[str]], ...]
    stability: tuple[dict[int, float], ...] = ()
    similarity: np.ndarray | None = None  # (n modelled, n levels) float

    @property
    def n_levels(self) -> int:
        return int(self.labels.shape[1])

    def nodes(self, level: int) -> list[int]:
        """The node ids of ``level`` (0 = finest), ascending (largest node first: ids are ranked by size within a level).

        Args:
            level: the level, 0 = finest.
        """
        return sorted(self.parents[level])

    def check(self, n_rows: int) -> None:
        """Raise ``ValueError`` naming the first inconsistency (shape, unknown node, a paper whose
        coarser node is not its node's parent, an id used at two levels).

        Args:
            n_rows: the modelled papers the tree must cover.
        """
        labels = self.labels
        if labels.ndim != 2 or labels.shape[0] != n_rows:
            raise InvalidValueError(f"topic tree labels have shape {labels.shape}; expected ({n_rows}, n levels).")
        if not len(self.parents) == len(self.names) == len(self.keywords) == labels.shape[1]:
            raise InvalidValueError(
                f"topic tree has {labels.shape[1]} label columns but {len(self.parents)} parent maps, "
                f"{len(self.names)} name maps and {len(self.keywords)} keyword maps."
            )
        if self.stability and len(self.stability) != labels.shape[1]:
            raise InvalidValueError(
                f"topic tree has {labels.shape[1]} levels but {len(self.stability)} stability maps."
            )
        if self.similarity is not None and self.similarity.shape != labels.shape:
            raise InvalidValueError(
                f"topic tree similarity has shape {self.similarity.shape}; expected {labels.shape}."
            )
        seen: set[int] = set()
        for level in range(self.n_levels):
            if seen & set(self.parents[level]):
                raise InvalidValueError(f"topic tree level {level} reuses node ids of a finer level.")
            seen |= set(self.parents[level])
        for level in range(self.n_levels):
            present = set(labels[:, level].tolist()) - {-1}
            nodes = set(self.parents[level])
            if present - nodes or nodes - set(self.names[level]):
                raise InvalidValueError(
                    f"topic tree level {level}: papers or names refer to nodes without a parent entry."
                )
            top = level == self.n_levels - 1
            for node, parent in self.parents[level].items():
                if (parent != -1) if top else (parent not in self.parents[level + 1]):
                    raise InvalidValueError(
                        f"topic tree level {level}: node {node} has parent {parent}, not a node above."
                    )
            if not top:
                rows = labels[:, level] != -1
                expected = np.array([self.parents[level][int(t)] for t in labels[rows, level]], dtype=np.int64)
                if not np.array_equal(expected, labels[rows, level + 1]):
                    raise InvalidValueError(f"topic tree level {level}: papers are not nested in their node's parent.")


def ranked_levels(
    coarse_first: np.ndarray, h_parents: Sequence[Mapping[int, object]], h_stability: Sequence[Mapping[int, float]]
) -> tuple[np.ndarray, list[dict[int, int]], list[dict[int, float]]]:
    """``fit_levels``' levels (labels coarsest first, parents, stability) finest first, node ids renumbered: the
    finest level ``0 .. k - 1`` by size (largest first; ties: first paper), each coarser level going on from
    there. Returns the labels, each node's parent one level up (-1 at the top) and each node's stability."""
    n_levels = coarse_first.shape[1]
    labels = np.full_like(coarse_first, -1)
    maps: list[dict[int, int]] = []
    next_id = 0
    for level in range(n_levels):  # finest first
        column = coarse_first[:, n_levels - 1 - level]
        nodes, first, counts = np.unique(column[column >= 0], return_index=True, return_counts=True)
        order = np.lexsort((first, -counts))
        new = {int(nodes[i]): next_id + rank for rank, i in enumerate(order)}
        next_id += len(new)
        maps.append(new)
        labels[:, level] = [new.get(int(t), -1) for t in column]
    parents: list[dict[int, int]] = []
    stability: list[dict[int, float]] = []
    for level in range(n_levels):
        h_level = n_levels - 1 - level
        up = maps[level + 1] if level + 1 < n_levels else None
        parents.append(
            {new: (up[int(h_parents[h_level][old])] if up is not None else -1) for old, new in maps[level].items()}
        )
        stability.append({new: float(h_stability[h_level].get(old, np.nan)) for old, new in maps[level].items()})
    return labels, parents, stability


def _hierarchy(
    embeddings: np.ndarray, themes: Sequence[str], settings: HierarchySettings, cache_dir: Path | None, client: Any
) -> tuple[np.ndarray, list[dict[int, object]], list[dict[int, float]]]:
    """``fit_levels`` of ``embeddings`` under ``themes`` (labels coarsest first, parents, stability), cached by
    content and settings (``client``: each theme's consensus on its Dask workers; the same result)."""
    key = content_key(_HIERARCHY_VERSION, np.ascontiguousarray(embeddings, dtype=np.float32), list(themes), settings)

    def compute() -> dict:
        labels, parents, stability = fit_levels(embeddings, themes, settings, client=client)
        return {
            "levels": int(labels.shape[1]),
            "labels": labels.tolist(),
            "parents": [{str(k): v for k, v in p.items()} for p in parents],
            "stability": [{str(k): (None if np.isnan(v) else v) for k, v in s.items()} for s in stability],
        }

    def valid(value: object) -> bool:
        return (
            isinstance(value, dict)
            and len(value.get("labels", ())) == len(embeddings)
            and isinstance(value.get("levels"), int)
        )

    value = cached_json(key, compute, cache_dir, check=valid)
    labels = np.asarray(value["labels"], dtype=np.int64).reshape(len(embeddings), value["levels"])
    parents = [{int(k): v for k, v in p.items()} for p in value["parents"]]
    stability = [{int(k): (np.nan if v is None else float(v)) for k, v in s.items()} for s in value["stability"]]
    return labels, parents, stability


def node_similarity(embeddings: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Each paper's cosine to its node's centroid at every level (NaN without a node; ``hierarchy.membership``)."""
    emb = np.asarray(embeddings, dtype=np.float32)
    return np.column_stack([membership(emb, labels[:, level])[0] for level in range(labels.shape[1])])


def build_tree(
    embeddings: np.ndarray,
    themes: Sequence[str],
    texts: Sequence[str],
    titles: Sequence[str],
    keyphrases: Keyphrases,
    *,
    settings: HierarchySettings | None = None,
    author_keywords: Sequence[Sequence[str]] | None = None,
    namer: Any = None,
    cache_dir: Path | None = None,
    periods: Sequence[object] | None = None,
    client: Any = None,
) -> TopicTree:
    """The named topic tree of the modelled papers (``embeddings``: L2-normalised rows; ``themes``: each
    paper's research theme, "" = none; ``texts``: cleaned texts; ``titles``: titles, "" where there is
    none). ``keyphrases(labels)`` returns each node's keyphrases (best first), one mapping per level of the
    labels (``Keyphrases``).
    Papers without a theme are clustered among themselves, as a theme's papers are. Given ``periods`` (each
    paper's year), a subject that only the latest period has becomes a top-level node of its own
    (``stages/new_subjects.py``). Given a Dask ``client``, each theme's consensus tree is one task on its
    workers (``fit_levels``)."""
    from icml_topics.stages.llm_names import SiblingNamer, llm_levels  # lazy: keeps TopicMap and the CLI light
    from icml_topics.stages.tree_names import name_levels  # lazy: keeps TopicMap and the CLI light

    settings = settings or HierarchySettings()
    emb = np.asarray(embeddings, dtype=np.float32)
    groups = [str(t) if t else NO_THEME for t in themes]  # papers without a theme: a group of their own
    levels = _hierarchy(emb, groups, settings, cache_dir, client)
    levels = new_subject_levels(emb, groups, periods, *levels, settings, cache_dir=cache_dir)  # issue 49
    labels, parents, stability = ranked_levels(*levels)
    n_levels = labels.shape[1]
    keywords = [{int(t): list(v) for t, v in level.items() if int(t) != -1} for level in keyphrases(labels)]
    for lv in range(n_levels):  # a node BERTopic found no phrase for still gets an entry
        for node in parents[lv]:
            keywords[lv].setdefault(node, [])
    siblings = isinstance(namer, SiblingNamer)  # OpenAINamer: names siblings together, over the offline names
    per_topic = None if siblings else namer  # a plain callable: TopicInfo -> name, replacing the offline names
    step("naming %d nodes", sum(len(p) for p in parents))
    fallback, orders = [], []
    for lv in range(n_levels):
        order = representative_order(emb, labels[:, lv])
        orders.append(order)
        docs = {t: [texts[i] for i in rows] for t, rows in order.items() if t != -1}
        fallback.append(name_topics(keywords[lv], docs, distinct=name_key, namer=per_topic))
    if per_topic is not None:
        names = fallback
    else:
        names = name_levels(
            labels, parents, themes, titles, texts, fallback, author_keywords=author_keywords, cache_dir=cache_dir
        )
    if siblings:
        names = llm_levels(
            namer, labels, parents, themes, texts, titles, keywords, names, orders, cache_dir=cache_dir
        )  # fmt: skip
    tree = TopicTree(
        labels, tuple(parents), tuple(names), tuple(keywords), tuple(stability), node_similarity(emb, labels)
    )
    tree.check(len(emb))
    logger.debug("topic tree: %s nodes per level, finest first", [len(p) for p in parents])
    return tree


def renumbered_finest(tree: TopicTree, new_id: Mapping[int, int]) -> TopicTree:
    """``tree`` with its finest level's ids replaced by ``new_id[old]`` (a permutation of them, e.g. BERTopic's
    numbering of the same partition, so that ``to_bertopic()`` keeps every id)."""
    if sorted(new_id) != sorted(new_id.values()) or set(new_id) != set(tree.parents[0]):
        return tree  # not a permutation of the finest level's ids: keep ours
    labels = tree.labels.copy()
    labels[:, 0] = [new_id.get(int(t), -1) for t in tree.labels[:, 0]]

    def moved(level0: Mapping[int, object]) -> dict:
        return {new_id[k]: v for k, v in sorted(level0.items(), key=lambda kv: new_id[kv[0]])}

    return TopicTree(
        labels,
        (moved(tree.parents[0]), *tree.parents[1:]),
        (moved(tree.names[0]), *tree.names[1:]),
        (moved(tree.keywords[0]), *tree.keywords[1:]),
        (moved(tree.stability[0]), *tree.stability[1:]) if tree.stability else (),
        tree.similarity,
    )

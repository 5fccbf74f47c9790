"""A topic tree at several resolutions: EVoC's cluster layers, made strictly nested, every node named.

EVoC (``evoc.EVoC``) clusters the embeddings themselves (cosine kNN graph, node embedding, HDBSCAN-style
condensed tree) and returns several layers, finest first: ``cluster_layers_``. Its layers are cuts of one
hierarchy, but a cut can put a fine cluster's papers in two coarse clusters, or leave them as noise.
``nest`` makes them a tree: each fine node goes to the coarse node holding most of its papers (the
nearest coarse centroid when none holds any), and its papers follow it. Level 0 is the finest; a node's
``parent`` is a node of the next level; ``-1`` is "no node at this level" (EVoC noise). Levels are kept
when they are at least ``MIN_RATIO`` times coarser than the level below; when EVoC gives fewer than
``min_levels``, coarser levels are made by merging the top level's nodes by centroid (average-linkage,
cosine), so a tree always has ``min_levels`` levels once there are enough nodes.

EVoC leaves many papers as noise at its fine layers (about half of ICML 2013-2024 at the finest). A
paper without a node at a level joins the nearest child of its node one level up (the nearest node at
the top level) when it lies as close to that child's centroid as most of the child's own papers do (at
least the ``FILL_QUANTILE`` quantile of their cosine similarities to it): ``fill``. The others
keep ``-1`` ("no node at this level"); their share is logged.

Identical abstracts (identical embeddings) are one point for EVoC: it clusters the distinct rows and
every copy takes its original's layers, so copies share their node at every level and a corpus of copies
of a few texts builds no tree (fewer than ``4 * min_cluster_size`` distinct texts: no tree, as for a
small corpus); without copies the layers are those of all rows, unchanged.

Every node is named as fine topics are ([`name_topics`][icml_topics.stages.name_topics]: cleaned
keyphrases, representative papers), no two nodes of a level share a name or a near-copy of one
(``name_key``: plural, acronym, word order): the smaller node says what
tells it apart. Levels are named coarsest first, and a node's name differs from its parent's too, so the
children of "reinforcement learning (RL)" say which part of it they are.

    >>> tree = fit_tree(embeddings, texts, keyphrases, random_state=0)
    >>> tree.n_levels, len(tree.names[0])
    (4, 212)
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from icml_topics.errors import InvalidValueError
from icml_topics.stages import jit_warmup
from icml_topics.stages.naming import name_key, name_topics
from icml_topics.stages.reduce import distinct_rows
from icml_topics.stages.representatives import representative_order
from icml_topics.stages.result_cache import cached_json, content_key

__all__ = ["FILL_QUANTILE", "MIN_RATIO", "TopicTree", "cluster_layers", "fill", "fit_tree", "nest"]

logger = logging.getLogger("icml_topics")

MIN_RATIO = 1.5  # a level has at most 1/MIN_RATIO as many nodes as the level below it
MIN_NODES = 2  # a level of fewer nodes says nothing
FILL_QUANTILE = 0.1  # a paper without a node joins one when closer to it than 10% of its own papers
_LAYERS_VERSION = "tree-layers-v1"

Keyphrases = Callable[[np.ndarray], Mapping[int, Sequence[str]]]


@dataclass(frozen=True)
class TopicTree:
    """The topic tree of a fit; arrays are aligned with the modelled rows, as in ``FittedState``.

    ``labels[:, l]``: each paper's node at level ``l`` (0 = finest, -1 = none); ``parents[l][node]``: the
    node at level ``l + 1`` holding it (-1 at the top level); ``names[l]``, ``keywords[l]``: per node.
    """

    labels: np.ndarray  # (n modelled, n levels) int64
    parents: tuple[dict[int, int], ...]
    names: tuple[dict[int, str], ...]
    keywords: tuple[dict[int, list[str]], ...]

    @property
    def n_levels(self) -> int:
        return int(self.labels.shape[1])

    def nodes(self, level: int) -> list[int]:
        """The node ids of ``level``, ascending (largest node first: ids are ranked by size)."""
        return sorted(self.parents[level])

    def check(self, n_rows: int) -> None:
        """Raise ``ValueError`` naming the first inconsistency (shape, unknown node, a paper whose
        coarser node is not its node's parent)."""
        labels = self.labels
        if labels.ndim != 2 or labels.shape[0] != n_rows:
            raise InvalidValueError(f"topic tree labels have shape {labels.shape}; expected ({n_rows}, n levels).")
        if not len(self.parents) == len(self.names) == len(self.keywords) == labels.shape[1]:
            raise InvalidValueError(
                f"topic tree has {labels.shape[1]} label columns but {len(self.parents)} parent maps, "
                f"{len(self.names)} name maps and {len(self.keywords)} keyword maps."
            )
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


def cluster_layers(
    embeddings: np.ndarray, *, random_state: int, cache_dir: Path | None = None, **evoc_params: object
) -> list[np.ndarray]:
    """EVoC's cluster layers of ``embeddings`` (finest first, -1 = noise), cached by content and settings."""
    settings = sorted({"random_state": random_state, **evoc_params}.items())
    key = content_key(_LAYERS_VERSION, np.ascontiguousarray(embeddings, dtype=np.float32), settings)

    def compute() -> dict:
        jit_warmup.ready("evoc")  # a child compiling EVoC's numba code (new machine): wait rather than compile twice
        from evoc import EVoC

        model = EVoC(random_state=random_state, **evoc_params)
        model.fit(np.ascontiguousarray(embeddings, dtype=np.float32))
        return {"layers": [np.asarray(layer, dtype=np.int64).tolist() for layer in model.cluster_layers_]}

    def valid(value: object) -> bool:
        layers = value.get("layers") if isinstance(value, dict) else None
        return isinstance(layers, list) and all(isinstance(x, list) and len(x) == len(embeddings) for x in layers)

    value = cached_json(key, compute, cache_dir, check=valid)
    return [np.asarray(layer, dtype=np.int64) for layer in value["layers"]]


def _centroids(embeddings: np.ndarray, labels: np.ndarray, nodes: Sequence[int]) -> np.ndarray:
    rows = [embeddings[labels == t].mean(axis=0) for t in nodes]
    c = np.vstack(rows) if rows else np.zeros((0, embeddings.shape[1]), np.float32)
    return c / np.linalg.norm(c, axis=1, keepdims=True).clip(1e-12)


def _select(layers: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The layers that make distinct levels: at least MIN_NODES nodes, each MIN_RATIO times coarser."""
    kept: list[np.ndarray] = []
    for layer in layers:
        n = len(set(layer.tolist()) - {-1})
        if n < MIN_NODES:
            continue
        if not kept or n * MIN_RATIO <= len(set(kept[-1].tolist()) - {-1}):
            kept.append(layer)
    return kept


def nest(layers: Sequence[np.ndarray], embeddings: np.ndarray) -> tuple[np.ndarray, list[dict[int, int]]]:
    """Strictly nested levels from ``layers`` (finest first): each node of a level goes to the node of the
    next layer holding most of its papers (ties: the lower id; none: the nearest centroid) and its papers
    follow; a paper without a node (-1) keeps its own coarser label. Returns the label matrix and the
    parent of every node (-1 at the top)."""
    labels = np.full((len(embeddings), len(layers)), -1, dtype=np.int64)
    labels[:, 0] = layers[0]
    parents: list[dict[int, int]] = []
    for level in range(len(layers) - 1):
        below, above = labels[:, level], np.asarray(layers[level + 1], dtype=np.int64)
        above_nodes = sorted(set(above.tolist()) - {-1})
        centroids = _centroids(embeddings, above, above_nodes)
        parent: dict[int, int] = {}
        for node in sorted(set(below.tolist()) - {-1}):
            held = above[(below == node) & (above != -1)]
            if len(held):
                values, counts = np.unique(held, return_counts=True)
                parent[node] = int(values[np.argmax(counts)])
            else:
                centroid = _centroids(embeddings, below, [node])[0]
                parent[node] = int(above_nodes[int(np.argmax(centroids @ centroid))])
        mapped = np.array([parent.get(int(t), -1) for t in below], dtype=np.int64)
        labels[:, level + 1] = np.where(below != -1, mapped, above)
        parents.append(parent)
    parents.append({int(t): -1 for t in sorted(set(labels[:, -1].tolist()) - {-1})})
    return labels, parents


def fill(
    labels: np.ndarray, parents: Sequence[Mapping[int, int]], embeddings: np.ndarray, quantile: float = FILL_QUANTILE
) -> np.ndarray:
    """``labels`` (papers x levels, finest first, strictly nested) with the papers that have no node at a
    level placed in the nearest node among the children of their node one level up (any node at the top
    level), when their cosine similarity to its centroid is at least the ``quantile`` of its own papers'
    similarities; the others keep -1. Coarsest level first, so a filled paper stays nested. Centroids and
    thresholds come from each node's own papers (those EVoC put there), never from filled ones.

        >>> fill(np.array([[0, 0], [-1, 0]]), [{0: 0}, {0: -1}], np.array([[1.0, 0.0], [1.0, 0.0]]))
        array([[0, 0],
               [0, 0]])
    """
    out = np.array(labels, dtype=np.int64, copy=True)
    emb = np.asarray(embeddings, dtype=np.float32)
    emb = emb / np.linalg.norm(emb, axis=1, keepdims=True).clip(1e-12)
    for level in reversed(range(out.shape[1])):
        column = out[:, level]
        nodes = sorted(parents[level])
        if not nodes:
            continue
        centroids = _centroids(emb, column, nodes)
        threshold = np.array(
            [np.quantile(emb[column == t] @ c, quantile) for t, c in zip(nodes, centroids)], dtype=np.float32
        )
        top = level == out.shape[1] - 1
        placed_above = np.ones(len(out), dtype=bool) if top else out[:, level + 1] != -1
        rows = np.flatnonzero((column == -1) & placed_above)
        if not len(rows):
            continue
        sims = emb[rows] @ centroids.T
        if not top:  # only the children of the paper's node above
            parent_of = np.array([parents[level][t] for t in nodes], dtype=np.int64)
            sims = np.where(parent_of[None, :] == out[rows, level + 1][:, None], sims, -np.inf)
        best = np.argmax(sims, axis=1)
        take = sims[np.arange(len(rows)), best] >= threshold[best]
        out[rows[take], level] = np.asarray(nodes, dtype=np.int64)[best[take]]
    return out


def _merged_level(embeddings: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """A coarser layer: ``labels``' nodes merged by centroid (average linkage, cosine) into a third as many
    (at least MIN_NODES, always fewer than before)."""
    from sklearn.cluster import AgglomerativeClustering

    nodes = sorted(set(labels.tolist()) - {-1})
    n_clusters = max(MIN_NODES, int(round(len(nodes) / 3)))
    groups = AgglomerativeClustering(n_clusters=n_clusters, metric="cosine", linkage="average").fit_predict(
        _centroids(embeddings, labels, nodes)
    )
    lookup = dict(zip(nodes, groups.tolist()))
    return np.array([lookup.get(int(t), -1) for t in labels], dtype=np.int64)


def _ranked(labels: np.ndarray, parents: list[dict[int, int]]) -> tuple[np.ndarray, list[dict[int, int]]]:
    """Node ids renumbered per level by size (largest = 0; ties: first paper), parents following."""
    out = np.full_like(labels, -1)
    maps = []
    for level in range(labels.shape[1]):
        column = labels[:, level]
        nodes, first, counts = np.unique(column[column != -1], return_index=True, return_counts=True)
        order = np.lexsort((first, -counts))
        new = {int(nodes[i]): rank for rank, i in enumerate(order)}
        maps.append(new)
        out[:, level] = [new.get(int(t), -1) for t in column]
    ranked = []
    for level, parent in enumerate(parents):
        up = maps[level + 1] if level + 1 < len(maps) else {}
        ranked.append({maps[level][n]: up.get(p, -1) for n, p in parent.items() if n in maps[level]})
    return out, ranked


def fit_tree(
    embeddings: np.ndarray,
    texts: Sequence[str],
    keyphrases: Keyphrases,
    *,
    random_state: int,
    cache_dir: Path | None = None,
    min_levels: int = 3,
    min_cluster_size: int = 5,
    max_layers: int = 10,
) -> TopicTree | None:
    """The named topic tree of the modelled documents (``embeddings``: L2-normalised rows, ``texts``: their
    cleaned texts). ``keyphrases(labels)`` returns each node's keyphrases (best first) for one level's
    labels (the fit's c-TF-IDF + KeyBERT + MMR, cached). None when the corpus has too few distinct texts
    for two nodes (copies of one abstract are one point: they share every node)."""
    emb = np.asarray(embeddings, dtype=np.float32)
    keep, inverse = distinct_rows(emb)  # identical abstracts are one point: they share every node
    if len(keep) < 4 * min_cluster_size:
        return None
    layers = _select(
        [layer[inverse] for layer in cluster_layers(
            emb[keep], random_state=random_state, cache_dir=cache_dir, base_min_cluster_size=min_cluster_size,
            max_layers=max_layers,
        )]
    )  # fmt: skip
    if not layers:
        return None
    while len(layers) < min_levels and len(set(layers[-1].tolist()) - {-1}) > MIN_NODES:
        layers.append(_merged_level(emb, layers[-1]))
    nested, parents = nest(layers, emb)
    labels, parents = _ranked(fill(nested, parents, emb), parents)
    logger.debug("topic tree: share of papers without a node per level %s", (labels == -1).mean(axis=0).round(3))
    n_levels = labels.shape[1]
    names: list[dict[int, str]] = [{} for _ in range(n_levels)]
    keywords: list[dict[int, list[str]]] = [{} for _ in range(n_levels)]
    for level in reversed(range(n_levels)):  # coarsest first: a node's name differs from its parent's
        column = labels[:, level]
        keywords[level] = {int(t): list(v) for t, v in keyphrases(column).items() if int(t) != -1}
        order = representative_order(emb, column)
        docs = {t: [texts[i] for i in rows] for t, rows in order.items() if t != -1}
        above = names[level + 1] if level + 1 < n_levels else {}
        avoid = {t: [above[p]] for t, p in parents[level].items() if p in above}
        names[level] = name_topics(keywords[level], docs, distinct=name_key, avoid=avoid)
    tree = TopicTree(labels, tuple(parents), tuple(names), tuple(keywords))
    tree.check(len(emb))
    logger.debug("topic tree: %s nodes per level", [len(p) for p in parents])
    return tree

"""Place new documents on a fitted map: theme from the fitted theme rule (the same rule ``fit`` used,
``themes.assign.ThemeRule``), topic from the tree under that theme, position from the nearest neighbours.

No UMAP model is kept (so nothing needs pickling): a new abstract's theme comes from its own evidence
(prototypes, phrases, neighbours, centroids), so an abstract of the fitted corpus gets exactly the theme
the fit gave it; its topic is the nearest (cosine to the centroid) finest node under that theme, and its
coarser nodes are that node's ancestors, so placed papers nest as fitted ones do; its map position is the
similarity-weighted mean position of its ``n_neighbors`` nearest fitted documents.

A paper of the fitted corpus (its embedding equal to a fitted row's, cosine within
[`SAME_PAPER_TOLERANCE`][icml_topics.placement.SAME_PAPER_TOLERANCE] of 1) is not voted on: it gets that
row's fitted topic, position, tree nodes and themes, so ``transform`` on the fit's own papers returns their fit.
A paper is found by its text first ([`text_twins`][icml_topics.placement.text_twins]: the same cleaned text, or,
given without a title, the same cleaned abstract), so its stored embedding is reused and nothing is embedded again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from icml_topics import tables
from icml_topics.corpus.cleaning import clean_text
from icml_topics.errors import InvalidValueError
from icml_topics.fitted_tables import modelled_rows
from icml_topics.state import FittedState
from icml_topics.themes.assign import DocumentThemes

__all__ = [
    "SAME_PAPER_TOLERANCE",
    "Placement",
    "fitted_twins",
    "place_documents",
    "placed_table",
    "text_twins",
    "tree_nodes",
    "vote_topics",
]

SAME_PAPER_TOLERANCE = 1e-5  # 1 - cosine under which a new row is a fitted paper again (float32 rounding is ~1e-7)
_CHUNK = 2048  # rows of new documents compared with every fitted row at a time (bounds the similarity block)


@dataclass
class Placement:
    labels: np.ndarray
    themes: DocumentThemes
    coords: np.ndarray
    tree_labels: np.ndarray | None = None  # (n, n levels): node per level, None without a tree
    similarity: np.ndarray | None = None  # (n,) cosine to the topic's centroid, NaN without one


def fitted_twins(embeddings: np.ndarray, fitted: np.ndarray) -> np.ndarray:
    """For each row of ``embeddings``, the index of the first row of ``fitted`` it equals (cosine within
    ``SAME_PAPER_TOLERANCE`` of 1; rows L2-normalised), else -1.

    Examples:
        >>> e = np.eye(3, dtype=np.float32)
        >>> fitted_twins(e[[2, 0]], e[:2]).tolist()
        [-1, 0]
    """
    twins = np.full(len(embeddings), -1, dtype=np.int64)
    if not len(embeddings) or not len(fitted):
        return twins
    for start in range(0, len(embeddings), _CHUNK):
        sims = embeddings[start : start + _CHUNK] @ fitted.T
        best = np.argmax(sims, axis=1)
        same = sims[np.arange(len(best)), best] >= 1.0 - SAME_PAPER_TOLERANCE
        twins[start : start + len(best)] = np.where(same, best, -1)
    return twins


def text_twins(state: FittedState, modelled: pd.DataFrame) -> np.ndarray:
    """For each row of ``modelled`` (new rows with their ``text``), the first fitted row with the same cleaned
    text, or, for a row without a title, the first fitted row with the same cleaned abstract; else -1.

    So an abstract of the fit given as a plain string is that fitted paper again: ``transform`` reuses its
    stored embedding and returns its fitted topic, theme and position.
    """
    twins = np.full(len(modelled), -1, dtype=np.int64)
    fitted = state.modelled
    if not len(modelled) or not len(fitted):
        return twins
    by_text = _first_rows(fitted["text"].astype(str))
    twins[:] = [by_text.get(t, -1) for t in modelled["text"].astype(str)]
    titles = modelled["title"] if "title" in modelled else pd.Series([None] * len(modelled), index=modelled.index)
    untitled = np.array([not clean_text(t) for t in titles], dtype=bool) & (twins < 0)
    if untitled.any():
        by_abstract = _first_rows(pd.Series([clean_text(a) for a in fitted["abstract"]]))
        texts = modelled["text"].astype(str).to_numpy()
        twins[untitled] = [by_abstract.get(t, -1) for t in texts[untitled]]
    return twins


def _first_rows(values: pd.Series) -> dict[str, int]:
    """Each distinct value's first position."""
    first = ~pd.Series(values).reset_index(drop=True).duplicated()
    return {str(v): int(i) for i, v in pd.Series(values).reset_index(drop=True)[first].items()}


def _fitted_themes(themes: DocumentThemes, fitted: DocumentThemes, twins: np.ndarray) -> DocumentThemes:
    """``themes`` with the rows of fitted papers (``twins`` >= 0) replaced by their fitted themes."""
    known = np.flatnonzero(twins >= 0)
    if not len(known):
        return themes
    rows = twins[known]
    theme, theme_2, reason = list(themes.theme), list(themes.theme_2), list(themes.reason)
    for i, j in zip(known.tolist(), rows.tolist()):
        theme[i], theme_2[i], reason[i] = fitted.theme[j], fitted.theme_2[j], fitted.reason[j]
    score, score_2, proba = themes.score.copy(), themes.score_2.copy(), themes.proba.copy()
    score[known], score_2[known], proba[known] = fitted.score[rows], fitted.score_2[rows], fitted.proba[rows]
    return DocumentThemes(theme, score, theme_2, score_2, reason, proba)


def tree_nodes(
    state: FittedState, embeddings: np.ndarray, themes: Sequence[str], twins: np.ndarray | None = None
) -> np.ndarray | None:
    """Each row's node at every tree level: the nearest finest-level node centroid (cosine) among the nodes
    of the row's theme (``themes``; "" = the nodes of the fit's papers without a theme; any node when the fit
    has none of that theme), then that node's ancestors, so placed papers are nested as fitted ones are; a fitted paper keeps
    its fitted nodes (see [`fitted_twins`][icml_topics.placement.fitted_twins]; ``twins``: its result when
    already computed). None when ``state`` has no tree."""
    from icml_topics.stages.tree_names import node_theme  # sklearn.metrics (via evaluate): only when naming nodes

    tree = state.tree
    if tree is None:
        return None
    out = np.full((len(embeddings), tree.n_levels), -1, dtype=np.int64)
    nodes = np.asarray(tree.nodes(0), dtype=np.int64)
    if not len(embeddings) or not len(nodes):
        return out
    fitted_themes = node_theme(tree.labels[:, 0], list(state.themes.docs.theme))
    of_node = np.array([fitted_themes.get(int(t), "") for t in nodes], dtype=object)
    sims = embeddings @ tables.topic_centroids(state.embeddings, tree.labels[:, 0], nodes.tolist()).T
    wanted = np.asarray([str(t or "") for t in themes], dtype=object)
    allowed = of_node[None, :] == wanted[:, None]
    allowed[~allowed.any(axis=1)] = True  # a theme the fit gave no node: the nearest node of any theme
    out[:, 0] = nodes[np.argmax(np.where(allowed, sims, -np.inf), axis=1)]
    for level in range(1, tree.n_levels):
        out[:, level] = [tree.parents[level - 1].get(int(t), -1) for t in out[:, level - 1]]
    twins = fitted_twins(embeddings, state.embeddings) if twins is None else twins
    known = twins >= 0
    out[known] = tree.labels[twins[known]]
    return out


def place_documents(
    state: FittedState,
    embeddings: np.ndarray,
    titles: Sequence[str | None],
    abstracts: Sequence[str | None],
    *,
    n_neighbors: int = 10,
) -> Placement:
    """Place ``embeddings`` (rows L2-normalised, same model as the fit) on the map of ``state``."""
    if state.themes is None:
        raise InvalidValueError("place_documents needs a state with a theme assignment (a fitted TopicMap's state_).")
    fitted = state.embeddings
    themes = state.themes.rule.assign(embeddings, titles, abstracts, reference=fitted)
    twins = fitted_twins(embeddings, fitted)  # once for the vote, the tree and the themes
    themes = _fitted_themes(themes, state.themes.docs, twins)
    voted, coords = vote_topics(embeddings, fitted, state.labels, state.coords, n_neighbors=n_neighbors, twins=twins)
    nodes = tree_nodes(state, embeddings, themes.theme, twins)
    labels = nodes[:, 0].copy() if nodes is not None else voted  # a state without a tree: its neighbours' topic
    similarity = np.full(len(embeddings), np.nan)
    placed = labels >= 0
    if placed.any():
        ids = sorted(set(labels[placed].tolist()))
        centroids = tables.topic_centroids(state.embeddings, state.labels, ids)
        row = np.searchsorted(np.asarray(ids), labels[placed])
        similarity[placed] = np.einsum("ij,ij->i", embeddings[placed], centroids[row])
    return Placement(labels, themes, coords, nodes, similarity)


def vote_topics(
    embeddings: np.ndarray,
    fitted: np.ndarray,
    labels_fit: np.ndarray,
    coords_fit: np.ndarray | None = None,
    *,
    n_neighbors: int = 10,
    twins: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Topic and map position of each row of ``embeddings`` from its ``n_neighbors`` most similar rows of
    ``fitted`` (dot product: rows L2-normalised): the similarity-weighted majority of their ``labels_fit``
    (ties: the lower topic id) and the weighted mean of their ``coords_fit`` (zeros without coordinates).
    A row equal to a fitted row (see [`fitted_twins`][icml_topics.placement.fitted_twins]) takes that
    row's label and position instead (``twins``: ``fitted_twins(embeddings, fitted)`` when already computed).

    Examples:
        >>> e = np.eye(3, dtype=np.float32)
        >>> vote_topics(e[:1], e, np.array([4, 4, 5]), n_neighbors=1)[0].tolist()
        [4]
    """
    n = len(embeddings)
    labels = np.full(n, -1, dtype=np.int64)
    coords = np.zeros((n, 2), dtype=np.float32)
    if n == 0 or len(fitted) == 0:
        return labels, coords
    k = min(n_neighbors, len(fitted))
    sims_all = embeddings @ fitted.T
    for i in range(n):
        nn = np.argpartition(-sims_all[i], k - 1)[:k]
        w = np.clip(sims_all[i, nn], 1e-6, None)
        if coords_fit is not None:
            coords[i] = (coords_fit[nn, :2] * w[:, None]).sum(axis=0) / w.sum()
        votes: dict[int, float] = {}
        for j, weight in zip(labels_fit[nn], w):
            votes[int(j)] = votes.get(int(j), 0.0) + float(weight)
        labels[i] = max(sorted(votes), key=lambda t: votes[t])
    twins = fitted_twins(embeddings, fitted) if twins is None else twins
    known = twins >= 0
    labels[known] = labels_fit[twins[known]]
    if coords_fit is not None:
        coords[known] = coords_fit[twins[known], :2]
    return labels, coords


def placed_table(
    state: FittedState, flagged: pd.DataFrame, embeddings: np.ndarray | None, *, n_neighbors: int = 10
) -> pd.DataFrame:
    """``flagged`` (a corpus table with its flags) as a ``documents_`` table placed on the map of ``state``;
    ``embeddings``: one row per modelled row (None when no row is modelled)."""
    modelled = modelled_rows(flagged)
    emb = np.zeros((0, state.embeddings.shape[1]), np.float32) if embeddings is None else embeddings
    placed = place_documents(
        state, emb, modelled["title"].tolist(), modelled["abstract"].tolist(), n_neighbors=n_neighbors
    )
    documents = tables.documents_table(
        flagged, placed.labels, state.topic_names, placed.themes, placed.coords, placed.similarity
    )
    return tables.with_tree_columns(documents, placed.tree_labels)

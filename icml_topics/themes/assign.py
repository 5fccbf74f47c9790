"""Where themes are assigned: topics and documents -> research themes from a taxonomy.

Each theme is represented by the normalised mean embedding of its description and seed phrases.
A topic takes the theme closest to its documents' centroid and its keyphrases; a topic that fits no
theme well enough is named honestly ("Other: <keyphrases>"). Every document then gets a theme and a
score: documents in a topic take their topic's theme; HDBSCAN outliers take a similarity-weighted vote
of their nearest clustered neighbours, or failing that the closest theme, so they still land in a
theme. A document gets no theme only when nothing is close enough, and ``theme_reason`` says so.

    >>> result = assign_themes(doc_emb, labels, keywords, theme_vectors, names, embed_fn)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np


__all__ = ["ThemeAssignment", "ThemeSettings", "assign_themes", "embed_taxonomy", "other_theme_name"]

OTHER_PREFIX = "Other: "


@dataclass(frozen=True)
class ThemeSettings:
    """Thresholds of the assignment (cosine similarities of all-MiniLM-L6-v2 space).

    Attributes:
        topic_threshold: a topic whose combined similarity to its best theme is below this is "Other".
        doc_threshold: an outlier document below this similarity to every theme gets no theme.
        keyword_weight: weight of the keyphrase similarity against the centroid similarity.
        override_margin: a clustered document whose own similarity to another theme beats its topic's
            theme by more than this takes that theme (topics are not always pure). On the hand-labelled
            ICML 2024 dev set this lifts agreement from 0.50 to 0.65 (0.05 was the best of 0-0.08).
        n_neighbors: neighbours that vote on an outlier document's theme.
        top_k: how many ranked themes are kept per document (``TopicMap.theme_ranking``).
    """

    topic_threshold: float = 0.20
    doc_threshold: float = 0.12
    keyword_weight: float = 0.3
    override_margin: float = 0.05
    n_neighbors: int = 15
    top_k: int = 3


@dataclass
class ThemeAssignment:
    topic_theme: dict[int, str]
    topic_score: dict[int, float]
    doc_theme: list[str]
    doc_score: np.ndarray
    doc_reason: list[str]
    theme_names: list[str] = field(default_factory=list)  # taxonomy themes + "Other: ..." themes, in order
    theme_vectors: np.ndarray | None = None  # rows aligned with theme_names


def _normalize(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


def embed_taxonomy(
    themes: Sequence[tuple[str, Sequence[str]]], embed_fn: Callable[[list[str]], np.ndarray]
) -> np.ndarray:
    """One vector per ``(description, seeds)`` theme: the mean of its description's embedding and its
    seeds' mean embedding; a theme without a description is its seeds' mean alone (no seed stands in
    for a missing description).

        >>> embed_taxonomy([(t.description, t.seeds) for t in taxonomy], embed)   # doctest: +SKIP
    """
    flat: list[str] = []
    for description, seeds in themes:
        flat += ([description] if description else []) + list(seeds)
    vectors = embed_fn(flat)
    out, start = [], 0
    for description, seeds in themes:
        parts = []
        if description:
            parts.append(vectors[start])
            start += 1
        if len(seeds):
            parts.append(_normalize(vectors[start : start + len(seeds)].mean(axis=0)))
            start += len(seeds)
        if not parts:
            raise ValueError("A taxonomy theme has neither a description nor seed phrases; give it one of them.")
        out.append(_normalize(np.mean(parts, axis=0)))
    return np.vstack(out).astype(np.float32)


def other_theme_name(keyphrases: Sequence[str]) -> str:
    """The honest name of a topic that fits no taxonomy theme."""
    return OTHER_PREFIX + ", ".join(list(keyphrases)[:2]) if keyphrases else OTHER_PREFIX + "unnamed"


def assign_themes(
    doc_embeddings: np.ndarray,
    labels: np.ndarray,
    keywords: Mapping[int, Sequence[str]],
    theme_vectors: np.ndarray,
    theme_names: Sequence[str],
    embed_fn: Callable[[list[str]], np.ndarray],
    settings: ThemeSettings = ThemeSettings(),
) -> ThemeAssignment:
    """Assign a theme to every topic and every document (see the module docstring)."""
    doc_embeddings = _normalize(doc_embeddings)
    theme_vectors = _normalize(theme_vectors)
    labels = np.asarray(labels)
    sims = doc_embeddings @ theme_vectors.T  # documents x themes
    topics = sorted(t for t in set(labels.tolist()) if t != -1)

    topic_theme: dict[int, str] = {}
    topic_score: dict[int, float] = {}
    other_vectors: dict[str, np.ndarray] = {}
    kw_lists = [list(keywords.get(t, []))[:5] for t in topics]
    kw_vectors = embed_fn([k for ks in kw_lists for k in ks]) if any(kw_lists) else None
    pos = 0
    for t, kws in zip(topics, kw_lists):
        members = labels == t
        centroid = _normalize(doc_embeddings[members].mean(axis=0))
        score = centroid @ theme_vectors.T
        if kws and kw_vectors is not None:
            kw_mean = _normalize(kw_vectors[pos : pos + len(kws)].mean(axis=0))
            score = (1 - settings.keyword_weight) * score + settings.keyword_weight * (kw_mean @ theme_vectors.T)
        pos += len(kws)
        best = int(np.argmax(score))
        if score[best] >= settings.topic_threshold:
            topic_theme[t] = theme_names[best]
        else:
            name = other_theme_name(keywords.get(t, []))
            topic_theme[t] = name
            other_vectors.setdefault(name, centroid)
        topic_score[t] = float(score[best])

    names = list(theme_names) + [n for n in other_vectors if n not in theme_names]
    vectors = np.vstack([theme_vectors, *[v[None, :] for v in other_vectors.values()]]) if other_vectors else theme_vectors
    index = {n: i for i, n in enumerate(names)}
    all_sims = doc_embeddings @ vectors.T

    doc_theme = [""] * len(labels)
    doc_score = np.zeros(len(labels), dtype=np.float32)
    doc_reason = [""] * len(labels)
    for i, t in enumerate(labels.tolist()):
        if t != -1:
            own = int(np.argmax(all_sims[i]))
            via_topic = index[topic_theme[t]]
            if all_sims[i, own] - all_sims[i, via_topic] > settings.override_margin:
                doc_theme[i], doc_score[i] = names[own], all_sims[i, own]
                doc_reason[i] = "own theme (closer than its topic's theme)"
            else:
                doc_theme[i], doc_score[i] = topic_theme[t], all_sims[i, via_topic]
                doc_reason[i] = "topic"

    outliers = np.flatnonzero(labels == -1)
    clustered = np.flatnonzero(labels != -1)
    if len(outliers):
        _assign_outliers(outliers, clustered, doc_embeddings, all_sims, names, doc_theme, doc_score, doc_reason, settings)
    return ThemeAssignment(topic_theme, topic_score, doc_theme, doc_score, doc_reason, names, vectors)


def _assign_outliers(outliers, clustered, emb, all_sims, names, doc_theme, doc_score, doc_reason, settings) -> None:
    n_taxonomy_like = all_sims.shape[1]
    votes = np.zeros((len(outliers), n_taxonomy_like), dtype=np.float32)
    if len(clustered):
        k = min(settings.n_neighbors, len(clustered))
        sub = emb[clustered]
        for j, i in enumerate(outliers):
            s = sub @ emb[i]
            nn = np.argpartition(-s, k - 1)[:k]
            for n_idx in nn:
                theme = doc_theme[clustered[n_idx]]
                if theme:
                    votes[j, names.index(theme)] += max(float(s[n_idx]), 0.0)
        total = votes.sum(axis=1, keepdims=True)
        votes = votes / np.where(total == 0, 1.0, total)
    for j, i in enumerate(outliers):
        # the neighbours' vote and the document's own similarity, half and half, among the themes the
        # document itself is close enough to
        own = all_sims[i]
        eligible = own >= settings.doc_threshold
        if eligible.any():
            combined = 0.5 * votes[j] + 0.5 * np.clip(own, 0.0, None) if votes[j].any() else own
            best = int(np.argmax(np.where(eligible, combined, -np.inf)))
            doc_theme[i] = names[best]
            doc_score[i] = own[best]
            doc_reason[i] = "nearest theme (outlier)"
        else:
            closest = int(np.argmax(own))
            doc_score[i] = own[closest]
            doc_reason[i] = (
                f"no theme: similarity {own[closest]:.2f} to the closest ({names[closest]}) "
                f"is below {settings.doc_threshold:.2f}"
            )

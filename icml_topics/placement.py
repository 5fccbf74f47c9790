"""Place new documents on a fitted map: topic, theme and coordinates from their nearest neighbours.

No UMAP model is kept (so nothing needs pickling): a new abstract takes the similarity-weighted
majority topic of its ``n_neighbors`` nearest fitted documents, that topic's theme (or, as an outlier,
the theme rule of ``themes.assign``), and the weighted mean position of those neighbours on the map.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


__all__ = ["Placement", "place_documents"]


@dataclass
class Placement:
    labels: np.ndarray
    themes: list[str]
    scores: np.ndarray
    reasons: list[str]
    coords: np.ndarray


def place_documents(model: Any, embeddings: np.ndarray, *, n_neighbors: int = 10) -> Placement:
    """Place ``embeddings`` (rows L2-normalised, same model as the fit) on ``model``'s map."""
    fitted = model.embeddings_
    labels_fit = model._labels
    coords_fit = model._coords
    n = len(embeddings)
    labels = np.full(n, -1, dtype=np.int64)
    coords = np.zeros((n, 2), dtype=np.float32)
    themes, reasons = [""] * n, [""] * n
    scores = np.zeros(n, dtype=np.float32)
    if n == 0:
        return Placement(labels, themes, scores, reasons, coords)
    k = min(n_neighbors, len(fitted))
    topic_theme = dict(zip(model.topics_["topic"], model.topics_["theme"]))
    theme_index = {t: i for i, t in enumerate(model.theme_names_)}
    settings = model.theme_settings
    threshold = settings.doc_threshold if settings is not None else 0.12
    sims_all = embeddings @ fitted.T
    theme_sims = embeddings @ model.theme_embeddings_.T
    for i in range(n):
        nn = np.argpartition(-sims_all[i], k - 1)[:k]
        w = np.clip(sims_all[i, nn], 1e-6, None)
        coords[i] = (coords_fit[nn, :2] * w[:, None]).sum(axis=0) / w.sum()
        votes: dict[int, float] = {}
        for j, weight in zip(labels_fit[nn], w):
            votes[int(j)] = votes.get(int(j), 0.0) + float(weight)
        topic = max(sorted(votes), key=lambda t: votes[t])
        labels[i] = topic
        if topic != -1 and topic_theme.get(topic):
            themes[i] = topic_theme[topic]
            scores[i] = theme_sims[i, theme_index[themes[i]]] if themes[i] in theme_index else np.nan
            reasons[i] = "topic (placed by nearest neighbours)"
            continue
        best = int(np.argmax(theme_sims[i]))
        scores[i] = theme_sims[i, best]
        if theme_sims[i, best] >= threshold:
            themes[i] = model.theme_names_[best]
            reasons[i] = "nearest theme (outlier)"
        else:
            reasons[i] = f"no theme: similarity {theme_sims[i, best]:.2f} is below {threshold:.2f}"
    return Placement(labels, themes, scores, reasons, coords)



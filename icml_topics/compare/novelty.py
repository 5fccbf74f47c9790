"""How far each paper lies from everything published before it.

A paper's ``novelty`` is one minus the mean cosine similarity to its ``k`` nearest papers of all
*earlier* periods (same embedding model as the fit; vectors L2-normalised). Papers of the first
period have nothing earlier and get NaN. Because the scale of a similarity depends on the period
(a bigger earlier corpus has closer neighbours), ``novelty_percentile`` ranks each paper within its
own period (0 = the most typical paper of its year, 100 = the most novel). Only earlier papers are
used, so a paper's score does not change when later years are added.

Examples:
    >>> import numpy as np
    >>> emb = np.array([[1, 0], [0.9, 0.1], [1, 0.05], [0, 1]], dtype=float)
    >>> out = paper_novelty(emb, [2019, 2019, 2024, 2024], k=1)
    >>> out["novelty"].round(3).tolist()
    [nan, nan, 0.001, 0.89]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from icml_topics.compare.period_labels import baseline_label
from icml_topics.errors import InvalidValueError
from icml_topics.fitted_tables import modelled_rows

__all__ = ["novelty_table", "paper_novelty"]

_CHUNK = 2048  # query rows per matrix product (memory: chunk x earlier papers floats)


def _normalised(embeddings: np.ndarray) -> np.ndarray:
    vectors = np.asarray(embeddings, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def _mean_top_k(query: np.ndarray, reference: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean of the ``k`` largest cosines of each query row to ``reference`` and the index of the nearest."""
    means = np.empty(len(query))
    nearest = np.empty(len(query), dtype=np.int64)
    for start in range(0, len(query), _CHUNK):
        sims = query[start : start + _CHUNK] @ reference.T
        top = np.partition(sims, sims.shape[1] - k, axis=1)[:, -k:] if k < sims.shape[1] else sims
        means[start : start + _CHUNK] = top.mean(axis=1)
        nearest[start : start + _CHUNK] = sims.argmax(axis=1)
    return means, nearest


def paper_novelty(embeddings: np.ndarray, periods: Sequence[Any], *, k: int = 10) -> pd.DataFrame:
    """Novelty of every paper against all papers of earlier periods (rows in the order given).

    Returns columns ``period``, ``novelty`` (1 - mean cosine to the ``k`` nearest earlier papers),
    ``novelty_percentile`` (0-100 within the paper's own period) and ``nearest_earlier`` (row index of
    the most similar earlier paper; -1 in the first period). Rows whose period is missing get NaN.

    Args:
        embeddings: the papers' embeddings, one row per paper.
        periods: each paper's period (e.g. its year), one per row; papers are compared with earlier periods.
        k: novelty is 1 - the mean cosine similarity to this many nearest earlier papers.

    Examples:
        >>> import numpy as np
        >>> out = paper_novelty(np.eye(3), [2020, 2021, 2021], k=1)
        >>> out["nearest_earlier"].tolist(), out["novelty_percentile"].tolist()
        ([-1, 0, 0], [nan, 50.0, 50.0])
    """
    vectors = _normalised(embeddings)
    if vectors.ndim != 2 or len(vectors) != len(periods):
        raise InvalidValueError(
            f"embeddings must have one row per period value ({len(periods)} rows), got shape {vectors.shape}; "
            "pass TopicMap.state_.embeddings with the modelled rows' years."
        )
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise InvalidValueError(f"k must be a positive integer (nearest earlier papers averaged), got {k!r}.")
    period = pd.Series(list(periods), dtype=object)
    known = period.notna().to_numpy()
    values = sorted(period[known].unique().tolist())
    novelty = np.full(len(vectors), np.nan)
    nearest = np.full(len(vectors), -1, dtype=np.int64)
    for i, value in enumerate(values[1:], start=1):
        rows = np.flatnonzero(known & (period == value).to_numpy())
        earlier = np.flatnonzero(known & period.isin(values[:i]).to_numpy())
        sims, near = _mean_top_k(vectors[rows], vectors[earlier], min(int(k), len(earlier)))
        novelty[rows] = 1.0 - sims
        nearest[rows] = earlier[near]
    frame = pd.DataFrame({"period": period, "novelty": novelty})
    # rank within the period: average ties, 0 = least novel, 100 = most novel
    ranks = frame.groupby("period", dropna=True)["novelty"].rank(method="average", pct=False)
    sizes = frame.groupby("period", dropna=True)["novelty"].transform("count")
    with np.errstate(invalid="ignore", divide="ignore"):
        percentile = np.where(sizes > 1, 100.0 * (ranks - 1) / (sizes - 1), np.where(sizes == 1, 100.0, np.nan))
    frame["novelty_percentile"] = np.where(np.isnan(novelty), np.nan, percentile)
    frame["nearest_earlier"] = nearest
    return frame


def _earlier_labels(periods: pd.Series, by: str) -> np.ndarray:
    """Per row, the earlier periods its novelty is measured against (``"2013–2018 pooled"``; the first
    period: ``"none (first year)"``)."""

    values = sorted(periods.dropna().unique().tolist())
    labels = {
        v: baseline_label([p for p in values if p < v]) if values.index(v) else f"none (first {by})" for v in values
    }
    return periods.map(labels).fillna("").to_numpy(dtype=object)


def novelty_table(documents: pd.DataFrame, embeddings: np.ndarray, *, by: str = "year", k: int = 10) -> pd.DataFrame:
    """Per modelled paper of ``documents`` (indexed as there): its ``by`` value, title, ``novelty`` and
    ``novelty_percentile`` (``paper_novelty``), the nearest earlier paper's id and title, and the ``baseline``:
    the earlier periods it is measured against (``TopicMap.paper_novelty``, ``novelty.csv``).

    Args:
        documents: ``documents_`` (its modelled rows are read, in the order of ``embeddings``).
        embeddings: the modelled rows' embeddings (``FittedTables.embeddings``).
        by: the column that defines the periods (ordered).
        k: novelty is 1 - the mean cosine similarity to this many nearest papers of earlier periods.

    Examples:
        >>> docs = pd.DataFrame({"id": ["a", "b", "c"], "year": [2019, 2024, 2024], "title": ["A", "B", "C"]})
        >>> novelty_table(docs, np.eye(3), k=1)["nearest_earlier_id"].tolist()
        [None, 'a', 'a']
    """
    rows = modelled_rows(documents)
    scores = paper_novelty(embeddings, rows[by].tolist(), k=k)
    nearest = scores["nearest_earlier"].to_numpy()
    has = nearest >= 0
    near_id = np.where(has, rows["id"].to_numpy(dtype=object)[np.where(has, nearest, 0)], None)
    near_title = np.where(has, rows["title"].to_numpy(dtype=object)[np.where(has, nearest, 0)], None)
    return pd.DataFrame(
        {
            "id": rows["id"].to_numpy(),
            by: rows[by].to_numpy(),
            "title": rows["title"].to_numpy(),
            "novelty": scores["novelty"].to_numpy(),
            "novelty_percentile": scores["novelty_percentile"].to_numpy(),
            "nearest_earlier_id": near_id,
            "nearest_earlier_title": near_title,
            "baseline": _earlier_labels(rows[by], by),
        },
        index=rows.index,
    )

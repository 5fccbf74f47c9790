"""Shares of unmodelled documents and agreement of predicted labels with reference labels.

Examples:
    >>> outlier_share([0, -1, 1, -1])
    0.5
    >>> unassigned_share(["Graph learning", "", None, "Causality"])
    0.5
    >>> label_agreement(["a", "a", "b"], ["x", "x", "y"])["ari"]
    1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

from icml_topics.errors import InvalidTypeError, InvalidValueError

__all__ = ["label_agreement", "outlier_share", "unassigned_share"]


def _series(values: Any, name: str) -> pd.Series:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise InvalidTypeError(f"{name} must be a list, array or Series of labels, got {type(values).__name__}")
    return pd.Series(list(values), dtype=object)


def _missing(s: pd.Series) -> pd.Series:
    """True where a label is missing: None, NaN, NA or a blank string."""
    return s.isna() | s.map(lambda v: isinstance(v, str) and not v.strip())


def outlier_share(labels: Sequence[Any], outlier: Any = -1) -> float:
    """Share of labelled items whose label is ``outlier`` (HDBSCAN's ``-1``); missing labels are ignored.

    Returns NaN when there is no label at all.

    Args:
        labels: the labels (e.g. ``documents_["topic"]``); missing ones are ignored.
        outlier: the outlier label.

    Examples:
        >>> outlier_share([3, -1, None, 2])  # the None (a dropped document) is not counted
        0.3333333333333333
    """
    s = _series(labels, "labels")
    s = s[~s.isna()]
    if s.empty:
        return float("nan")
    return float((s == outlier).mean())


def unassigned_share(themes: Sequence[Any]) -> float:
    """Share of items with no theme (empty string, None or NaN). NaN when ``themes`` is empty.

    Args:
        themes: the theme of each item (e.g. ``documents_["theme"]``).

    Examples:
        >>> unassigned_share(["Optimization", ""])
        0.5
    """
    s = _series(themes, "themes")
    if s.empty:
        return float("nan")
    return float(_missing(s).mean())


def label_agreement(predicted: Sequence[Any], reference: Sequence[Any]) -> dict[str, float | int]:
    """Agreement of predicted labels with reference labels: ARI, NMI and exact-match accuracy.

    The two sequences are aligned by position. Rows whose reference is missing (None, NaN, blank)
    are ignored; a missing *prediction* is kept as its own "no label" class, so leaving documents
    unassigned costs agreement. ARI (adjusted Rand index) and NMI (normalised mutual information,
    arithmetic mean) compare partitions and ignore the label names: permuting names changes
    nothing. ``accuracy`` is the share of rows where the names match exactly; it is NaN when no
    predicted name occurs among the reference names (e.g. topic ids against theme names).

    Returns:
        ``{"ari": float, "nmi": float, "accuracy": float, "n": rows used}``

    Args:
        predicted: the predicted labels (themes or topic ids), one per row.
        reference: the reference labels, aligned by position; missing ones are ignored.

    Examples:
        >>> label_agreement([0, 0, 1, 1], ["b", "b", "a", None])
        {'ari': 1.0, 'nmi': 1.0, 'accuracy': nan, 'n': 3}
    """
    pred, ref = _series(predicted, "predicted"), _series(reference, "reference")
    if len(pred) != len(ref):
        raise InvalidValueError(
            f"predicted has {len(pred)} labels but reference has {len(ref)}; pass one reference "
            "label per prediction, in the same order (None where there is no reference)"
        )
    keep = ~_missing(ref).to_numpy()
    if not keep.any():
        raise InvalidValueError(
            "no row has a reference label (all are None, NaN or blank); pass reference labels aligned "
            "with the predictions"
        )
    pred_kept = pred[keep]
    pred_labels = np.array(["" if gone else str(v) for v, gone in zip(pred_kept, _missing(pred_kept))])
    ref_labels = np.array([str(v).strip() for v in ref[keep]])
    shared = set(pred_labels) & set(ref_labels)
    accuracy = float(np.mean(pred_labels == ref_labels)) if shared else float("nan")
    return {
        "ari": float(adjusted_rand_score(ref_labels, pred_labels)),
        "nmi": float(normalized_mutual_info_score(ref_labels, pred_labels)),
        "accuracy": accuracy,
        "n": int(keep.sum()),
    }

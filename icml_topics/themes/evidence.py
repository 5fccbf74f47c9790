"""Embedding evidence for themes: prototypes, neighbours and corpus-adapted theme centroids.

All functions are pure and work on L2-normalised float32 rows.

Examples:
    >>> import numpy as np
    >>> protos = np.eye(3, dtype=np.float32)
    >>> prototype_evidence(np.eye(3, dtype=np.float32)[:2], protos, np.array([0, 1, 1]), 2, top=1).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
"""

from __future__ import annotations

import numpy as np

from icml_topics.text import function_word_share

ROW_CHUNK = 8_192
"""Documents whose temporaries (``(rows, k, themes)`` votes, float64 rows, softmax steps) are built at once:
the evidence's memory grows with the ``(n_docs, n_themes)`` results, not with copies of the embeddings."""

__all__ = [
    "MIN_PROSE_WORDS",
    "not_prose",
    "centroid_evidence",
    "classifier_columns",
    "classifier_log_proba",
    "neighbour_votes",
    "neighbours_among",
    "normalize",
    "prototype_evidence",
    "self_trained_classifier",
    "softmax",
    "theme_centroids",
]


def normalize(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax."""
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def prototype_evidence(
    emb: np.ndarray, prototypes: np.ndarray, prototype_theme: np.ndarray, n_themes: int, *, top: int = 2
) -> np.ndarray:
    """``(n_docs, n_themes)``: per theme, the mean cosine similarity of the ``top`` closest of its
    prototypes (its description and each seed phrase), so a paper close to one subarea of a broad
    theme is not diluted by the theme's other subareas."""
    sims = emb @ prototypes.T
    out = np.zeros((len(emb), n_themes), dtype=np.float32)
    for t in range(n_themes):
        cols = np.flatnonzero(prototype_theme == t)
        if len(cols) == 0:
            continue
        block = sims[:, cols]
        k = min(top, len(cols))
        part = -np.partition(-block, k - 1, axis=1)[:, :k] if k < len(cols) else block
        out[:, t] = part.mean(axis=1)
    return out


def neighbours_among(
    reference: np.ndarray, emb: np.ndarray, k: int, *, skip_self: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` most similar rows of ``reference`` for each row of ``emb``: ``(indices, similarities)``,
    ties broken by index. With ``skip_self`` the single most similar row is left out when it is the
    same document (cosine ≥ 0.99999), as in a kNN graph whose first neighbour is the row itself."""
    n_ref = len(reference)
    k_eff = min(k + (1 if skip_self else 0), n_ref)
    idx = np.zeros((len(emb), k), dtype=np.int64)
    sim = np.full((len(emb), k), -np.inf, dtype=np.float32)
    for start in range(0, len(emb), 2048):
        s = emb[start : start + 2048] @ reference.T
        part = (
            np.argpartition(-s, k_eff - 1, axis=1)[:, :k_eff]
            if k_eff < n_ref
            else np.tile(np.arange(n_ref), (len(s), 1))
        )
        ps = np.take_along_axis(s, part, axis=1)
        order = np.lexsort((part, -ps), axis=1)
        part, ps = np.take_along_axis(part, order, axis=1), np.take_along_axis(ps, order, axis=1)
        if skip_self:
            is_self = ps[:, 0] >= 0.99999
            part = np.where(is_self[:, None], np.roll(part, -1, axis=1), part)
            ps = np.where(is_self[:, None], np.roll(ps, -1, axis=1), ps)
            ps[is_self, -1] = -np.inf  # the rolled-around self is not a neighbour
        m = min(k, part.shape[1])
        idx[start : start + len(s), :m] = part[:, :m]
        sim[start : start + len(s), :m] = ps[:, :m]
    return idx, sim


def neighbour_votes(
    indices: np.ndarray, sims: np.ndarray, own: np.ndarray, *, floor: float, prior: float
) -> np.ndarray:
    """``(n_docs, n_themes)``: the neighbours' own-evidence probabilities, each weighted by how much its
    similarity exceeds ``floor``, shrunk towards uniform by ``prior`` pseudo-votes (few or distant
    neighbours, as in a tiny corpus, then say little)."""
    n_themes = own.shape[1]
    w = np.clip(np.nan_to_num(sims, neginf=0.0) - floor, 0.0, None).astype(np.float32)
    out = np.empty((len(w), n_themes), dtype=np.result_type(w, own))
    for start in range(0, len(w), ROW_CHUNK):  # own[indices] is (rows, k, themes): never for every row at once
        rows = slice(start, start + ROW_CHUNK)
        votes = np.einsum("nk,nkt->nt", w[rows], own[indices[rows]])
        out[rows] = (votes + prior / n_themes) / (w[rows].sum(axis=1, keepdims=True) + prior)
    return out


def theme_centroids(
    emb: np.ndarray, proba: np.ndarray, theme_vectors: np.ndarray, *, confidence: float, prior: float
) -> np.ndarray:
    """One corpus-adapted vector per theme: the probability-weighted mean of the documents confidently
    placed in it, plus ``prior`` pseudo-documents at the taxonomy's own vector (so a theme with few
    or no confident papers keeps its taxonomy meaning). A light self-trained classifier."""
    best = proba.argmax(axis=1)
    p = proba[np.arange(len(proba)), best]
    keep = p >= confidence
    sums = np.zeros_like(theme_vectors, dtype=np.float64)
    kept = np.flatnonzero(keep)
    for start in range(0, len(kept), ROW_CHUNK):  # float64 rows of a chunk, never of every kept document
        rows = kept[start : start + ROW_CHUNK]
        np.add.at(sums, best[rows], emb[rows].astype(np.float64) * p[rows, None])
    mass = np.bincount(best[keep], weights=p[keep], minlength=len(theme_vectors))
    means = sums / np.where(mass == 0, 1.0, mass)[:, None]
    blend = (mass[:, None] * normalize(means) + prior * theme_vectors) / (mass[:, None] + prior)
    return normalize(blend.astype(np.float32))


def centroid_evidence(emb: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """``(n_docs, n_themes)`` cosine similarity to each theme centroid."""
    return emb @ centroids.T


def self_trained_classifier(
    emb: np.ndarray,
    proba: np.ndarray,
    agree: np.ndarray,
    *,
    confidence: float,
    C: float,
    min_docs: int = 30,
    max_docs: int | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """A multinomial logistic regression (L2, balanced classes, lbfgs: deterministic) trained on the
    documents the rule places confidently (probability ≥ ``confidence`` and ``agree``: their own
    evidence points the same way). Returns ``(coef, intercept)`` with one row per theme column; a theme
    with no confident document gets a zero row and a NaN intercept. None when too few documents.
    ``max_docs``: above this many confident documents it learns from a fixed sample of them, drawn
    per theme in proportion (every theme keeps at least one), so its cost stops growing with the corpus."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    best = proba.argmax(axis=1)
    keep = (proba.max(axis=1) >= confidence) & agree
    if keep.sum() < min_docs or len(np.unique(best[keep])) < 2:
        return None
    rows = np.flatnonzero(keep)
    if max_docs is not None and len(rows) > max_docs:
        from icml_topics.stages.large import stratified_sample  # heavy: scipy

        rows = rows[stratified_sample(len(rows), max_docs, best[rows], random_state=0)]
    clf = LogisticRegression(C=C, class_weight="balanced", max_iter=200, tol=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(emb[rows], best[rows])
    return classifier_columns(clf, proba.shape[1])


def classifier_columns(clf, n_themes: int) -> tuple[np.ndarray, np.ndarray]:
    """A fitted scikit-learn logistic regression as ``(coef, intercept)`` with one row per theme column
    (a theme it never saw: zero row, NaN intercept), the form ``classifier_log_proba`` reads."""
    coef = np.zeros((n_themes, clf.coef_.shape[1]), dtype=np.float32)
    intercept = np.full(n_themes, np.nan, dtype=np.float32)
    if len(clf.classes_) == 2:  # binary: sklearn keeps one row (the second class against the first)
        coef[clf.classes_[1]], intercept[clf.classes_[1]] = clf.coef_[0], clf.intercept_[0]
        intercept[clf.classes_[0]] = 0.0
    else:
        coef[clf.classes_], intercept[clf.classes_] = clf.coef_, clf.intercept_
    return coef, intercept


def classifier_log_proba(
    emb: np.ndarray, coef: np.ndarray, intercept: np.ndarray, *, floor: float = 1e-3
) -> np.ndarray:
    """``(n_docs, n_themes)`` log-probabilities of a linear classifier (``classifier_columns``) on the
    rows of ``emb`` (dense embeddings, or sparse word features); a theme it never saw gets probability
    ``floor`` (before renormalising), so it is unlikely but not excluded."""
    seen = np.isfinite(intercept)
    p = np.full((emb.shape[0], len(intercept)), floor, dtype=np.float64)
    for start in range(0, emb.shape[0], ROW_CHUNK):  # the softmax's temporaries for a chunk of rows at a time
        block = p[start : start + ROW_CHUNK]
        block[:, seen] = softmax(
            np.asarray(emb[start : start + ROW_CHUNK] @ coef[seen].T + intercept[seen], np.float64)
        )
        block /= block.sum(axis=1, keepdims=True)
    return np.log(p, out=p)


MIN_PROSE_WORDS = 20  # a shorter abstract is judged by the other rules only (a title-like line has few "the")


def not_prose(abstracts, n: int, min_share: float) -> np.ndarray:
    """Per document: its abstract has ``MIN_PROSE_WORDS`` words or more and fewer than ``min_share`` of them
    are English function words (``text.function_word_share``): a list of words, no research evidence;
    ``abstracts`` None or ``min_share`` 0: none."""
    if abstracts is None or min_share <= 0:
        return np.zeros(n, dtype=bool)
    out = np.zeros(n, dtype=bool)
    for i, text in enumerate(abstracts):
        share, count = function_word_share(text if isinstance(text, str) else None)
        out[i] = count >= MIN_PROSE_WORDS and share < min_share
    return out

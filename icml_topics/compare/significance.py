"""The tests behind a node's status: the exact test of a change, Benjamini–Hochberg, the binomial growth.

* ``exact_change_test``: the conditional (hypergeometric, Fisher) two-sided test of "the node's share is the
  same in the latest period as in the baseline", per node;
* ``benjamini_hochberg``: the q-values of those tests, all nodes of all levels together;
* ``binomial_trend``: the yearly slope of a node's log-odds (binomial GLM, IRLS) with its Wald interval.

Examples:
    >>> p, q = exact_change_test(np.array([40, 10]), 50, np.array([10, 40]), 50)
    >>> bool(q[0] < 0.05), bool(q[1] < 0.05)
    (True, True)
"""

from __future__ import annotations

import numpy as np
from scipy.stats import hypergeom

from icml_topics.compare.trend_info import DEFAULT_CONFIDENCE

from ._confidence import accepts_level
from .intervals import z_value

__all__ = ["benjamini_hochberg", "binomial_trend", "exact_change_test"]


def exact_change_test(
    n_before: np.ndarray, total_before: int, n_latest: np.ndarray, total_latest: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per node, the two-sided exact conditional test of equal shares in two periods and its
    Benjamini–Hochberg q-value: ``(p_value, q_value)``, NaN for a node with no paper in either.

    Examples:
        >>> p, q = exact_change_test(np.array([0, 5]), 10, np.array([0, 5]), 10)
        >>> p.tolist()
        [nan, 1.0]
    """
    node_total = n_before + n_latest
    tested = node_total > 0
    grand = total_before + total_latest
    p_up = hypergeom.sf(n_latest - 1, grand, node_total, total_latest)
    p_down = hypergeom.cdf(n_latest, grand, node_total, total_latest)
    p_value = np.where(tested, np.minimum(1.0, 2.0 * np.minimum(p_up, p_down)), np.nan)
    return p_value, benjamini_hochberg(p_value)


def benjamini_hochberg(p_values: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (q-values); NaN stays NaN and is not counted as a test.

    Examples:
        >>> [round(float(q), 3) for q in benjamini_hochberg(np.array([0.01, 0.04, 0.03, np.nan]))]
        [0.03, 0.04, 0.04, nan]
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    if ok.size == 0:
        return out
    order = ok[np.argsort(p[ok], kind="mergesort")]
    ranked = p[order] * ok.size / np.arange(1, ok.size + 1)
    out[order] = np.minimum(1.0, np.minimum.accumulate(ranked[::-1])[::-1])
    return out


@accepts_level
def binomial_trend(
    counts: np.ndarray, totals: np.ndarray, t: np.ndarray, *, confidence: float = DEFAULT_CONFIDENCE, max_iter: int = 30
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Slope ``b`` of ``logit(share) = a + b * t`` per row of ``counts`` (binomial GLM, IRLS, all rows
    at once) with its Wald interval: returns ``(b, lower, upper)``, NaN where the fit is undefined
    (fewer than three periods, papers in fewer than two) or does not converge (separation).

    Examples:
        >>> b, lo, hi = binomial_trend(np.array([[10, 20, 40]]), np.array([100, 100, 100]), np.array([0, 1, 2]))
        >>> round(float(b[0]), 2), bool(lo[0] > 0)
        (0.91, True)
    """
    y = np.asarray(counts, dtype=float)
    m = np.broadcast_to(np.asarray(totals, dtype=float), y.shape)
    x = np.asarray(t, dtype=float) - np.average(t, weights=np.asarray(totals, dtype=float))
    n_rows = y.shape[0]
    beta = np.zeros((n_rows, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p0 = (y.sum(axis=1) + 0.5) / (m.sum(axis=1) + 1.0)
    beta[:, 0] = np.log(p0 / (1.0 - p0))
    converged = np.zeros(n_rows, dtype=bool)
    info = np.zeros((n_rows, 2, 2))
    for _ in range(max_iter):
        eta = beta[:, :1] + beta[:, 1:] * x
        mu = 1.0 / (1.0 + np.exp(-eta))
        w = m * mu * (1.0 - mu)
        score = np.stack([(y - m * mu).sum(axis=1), ((y - m * mu) * x).sum(axis=1)], axis=1)
        info = np.stack([np.stack([w.sum(1), (w * x).sum(1)], 1), np.stack([(w * x).sum(1), (w * x * x).sum(1)], 1)], 1)
        det = info[:, 0, 0] * info[:, 1, 1] - info[:, 0, 1] ** 2
        safe = np.where(det > 1e-12, det, np.nan)
        step = np.stack(
            [
                (info[:, 1, 1] * score[:, 0] - info[:, 0, 1] * score[:, 1]) / safe,
                (info[:, 0, 0] * score[:, 1] - info[:, 0, 1] * score[:, 0]) / safe,
            ],
            axis=1,
        )
        step = np.nan_to_num(step)
        beta = beta + np.clip(step, -5.0, 5.0)
        converged = np.abs(step).max(axis=1) < 1e-8
        if converged.all():
            break
    det = info[:, 0, 0] * info[:, 1, 1] - info[:, 0, 1] ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(info[:, 0, 0] / det)
    z = z_value(confidence)
    valid = converged & ((y > 0).sum(axis=1) >= 2) & (y.shape[1] >= 3) & np.isfinite(se) & (np.abs(beta[:, 1]) < 20)
    b = np.where(valid, beta[:, 1], np.nan)
    return b, b - z * se, b + z * se

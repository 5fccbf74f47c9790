"""Confidence intervals for proportions and their differences (closed form, vectorised).

* [`wilson_interval`][icml_topics.compare.wilson_interval] - Wilson score interval for a binomial proportion ``n / total``.
  Unlike the textbook ``p +- z*sqrt(p(1-p)/N)`` interval it never leaves ``[0, 1]``, is not
  degenerate at ``n = 0`` and keeps close to nominal coverage for small ``N``.
* [`newcombe_interval`][icml_topics.compare.newcombe_interval] - Newcombe's hybrid score interval (his "method 10") for the difference
  ``p_b - p_a`` of two independent proportions, built from the two Wilson intervals.

References: Wilson (1927), JASA 22:209; Newcombe (1998), Statistics in Medicine 17:873-890.

Examples:
    >>> from icml_topics.compare.intervals import wilson_interval
    >>> lo, hi = wilson_interval(0, 20)
    >>> float(lo), round(float(hi), 4)
    (0.0, 0.1611)
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike

from icml_topics.compare.trend_info import DEFAULT_CONFIDENCE
from icml_topics.errors import InvalidValueError

from ._confidence import accepts_level

__all__ = ["newcombe_interval", "wilson_interval", "z_value"]


def z_value(confidence: float) -> float:
    """Two-sided standard-normal quantile for a ``confidence`` level in (0, 1); 1.95996... for 0.95."""
    if not isinstance(confidence, (int, float)) or not 0.0 < float(confidence) < 1.0:
        raise InvalidValueError(
            f"confidence must be a confidence level strictly between 0 and 1, got {confidence!r}; "
            "pass e.g. confidence=0.95 for 95% intervals."
        )
    return NormalDist().inv_cdf(0.5 + float(confidence) / 2.0)


@accepts_level
def wilson_interval(
    n: ArrayLike, total: ArrayLike, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval ``(lower, upper)`` for the proportion ``n / total``.

    Works element-wise on arrays. Where ``total == 0`` both bounds are NaN (no information).

    Args:
        n: the counts (a number or an array), ``0 <= n <= total``.
        total: the totals, of the same shape as ``n`` (or broadcastable to it).
        confidence: the confidence level of the interval (default 0.95; ``level=``, its old name, is deprecated).

    Examples:
        >>> lo, hi = wilson_interval([3, 0], [38, 20])
        >>> [round(float(x), 4) for x in lo], [round(float(x), 4) for x in hi]
        ([0.0272, 0.0], [0.208, 0.1611])
    """
    z = z_value(confidence)
    n_arr = np.asarray(n, dtype=float)
    t_arr = np.asarray(total, dtype=float)
    if np.any(n_arr < 0) or np.any(n_arr > t_arr):
        raise InvalidValueError("wilson_interval needs 0 <= n <= total for every cell; check the counts passed.")
    with np.errstate(divide="ignore", invalid="ignore"):
        p = n_arr / t_arr
        z2n = z * z / t_arr
        denom = 1.0 + z2n
        centre = (p + z2n / 2.0) / denom
        half = z * np.sqrt(p * (1.0 - p) / t_arr + z2n / (4.0 * t_arr)) / denom
        lower = np.clip(centre - half, 0.0, 1.0)
        upper = np.clip(centre + half, 0.0, 1.0)
    # The bounds are exactly 0 / 1 at n = 0 / n = total; remove floating-point dust.
    lower = np.where(n_arr == 0, 0.0, lower)
    upper = np.where(n_arr == t_arr, 1.0, upper)
    empty = t_arr == 0
    lower = np.where(empty, np.nan, lower)
    upper = np.where(empty, np.nan, upper)
    return lower, upper


@accepts_level
def newcombe_interval(
    n_a: ArrayLike,
    total_a: ArrayLike,
    n_b: ArrayLike,
    total_b: ArrayLike,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Difference ``p_b - p_a`` of two independent proportions with Newcombe's hybrid score interval.

    Returns ``(diff, lower, upper)``, element-wise. The interval contains 0 exactly when the data
    are compatible with no change at the given confidence level.

    Args:
        n_a: the counts of the first group (a number or an array).
        total_a: the first group's totals.
        n_b: the counts of the second group.
        total_b: the second group's totals.
        confidence: the confidence level of the interval (default 0.95; ``level=``, its old name, is deprecated).

    Examples:
        >>> d, lo, hi = newcombe_interval(48, 80, 56, 70)  # 60% -> 80%
        >>> round(float(d), 4), round(float(lo), 4), round(float(hi), 4)
        (0.2, 0.0524, 0.3339)
    """
    na, ta = np.asarray(n_a, dtype=float), np.asarray(total_a, dtype=float)
    nb, tb = np.asarray(n_b, dtype=float), np.asarray(total_b, dtype=float)
    la, ua = wilson_interval(na, ta, confidence)
    lb, ub = wilson_interval(nb, tb, confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        pa, pb = na / ta, nb / tb
    diff = pb - pa
    lower = diff - np.sqrt((pb - lb) ** 2 + (ua - pa) ** 2)
    upper = diff + np.sqrt((ub - pb) ** 2 + (pa - la) ** 2)
    return diff, lower, upper

"""Trends at every level of the topic tree: shares with intervals, growth, and what is new in a period.

The input is a table following the ``documents_`` contract with one integer column ``topic_<level>``
per tree level (level 0 = finest, ``-1`` = no node at that level), and optionally the tree table
(``TopicMap.topic_tree_``: ``level, topic, parent, label, size, theme``) for names and themes. A table
with no ``topic_<level>`` column is read as one level: its ``topic`` column is level 0.

Per node and period ([`topic_shares`][icml_topics.compare.topic_shares]): ``n`` papers of ``total`` modelled papers of the period,
``share = n / total`` and its Wilson score interval. Per node, comparing the latest period ``L`` with
a baseline ``B``, by default everything before it pooled (``baseline="previous"``: the last earlier period
with at least 30 papers), named in every row's ``baseline`` column ([`topic_status`][icml_topics.compare.topic_status]):

* ``change = share_L - share_B`` with Newcombe's hybrid score interval;
* ``growth``: the yearly growth of the node's odds, ``exp(b) - 1``, from a binomial GLM
  ``logit(share_t) = a + b * t`` over the periods up to ``L`` (fitted by IRLS, Wald interval
  ``exp(b ± z·se) - 1``; NaN when ``by`` is not numeric, there are fewer than three periods, the node
  has papers in fewer than two, or the fit does not converge, e.g. all papers in one period);
* ``p_value``: the exact conditional (hypergeometric, Fisher) two-sided test of "the node's share is
  the same in ``L`` as in ``B``", and ``q_value``: Benjamini–Hochberg adjusted over every node tested,
  all levels together (BH is valid under the positive dependence of nested nodes);
* ``status`` in ``L``: ``new`` (significant rise and at most ``new_max`` papers in every earlier
  period), ``emerging`` (significant rise otherwise), ``vanished`` (significant fall to no paper),
  ``declining`` (significant fall), ``stable`` (no change the data can tell from noise at ``fdr``).

Periods are ordered by value; for a ``by`` that has no order in time (venues) ``B`` is every other
value. Nothing after ``L`` is used: the status of a node in 2024 is the same whether or not 2026 is in
the table.

Examples:
    >>> import pandas as pd
    >>> docs = pd.DataFrame({"year": [2019] * 50 + [2024] * 50,
    ...                      "topic_0": [0] * 40 + [1] * 10 + [0] * 10 + [1] * 10 + [2] * 30})
    >>> topic_status(docs)[["topic", "n_before", "n_latest", "status"]].values.tolist()
    [[2, 0, 30, 'new'], [1, 10, 10, 'stable'], [0, 40, 10, 'declining']]
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from icml_topics.compare.trend_info import DEFAULT_CONFIDENCE, DEFAULT_FDR
from icml_topics.errors import InvalidValueError

from ._confidence import accepts_level
from .baselines import BASELINES, StatusWindow, status_window
from .headlines import STATUSES, headline_evidence, whats_new
from .intervals import newcombe_interval, wilson_interval
from .node_counts import NodeCounts, node_counts
from .period_labels import baseline_label, period_label
from .periods import MIN_PERIOD_PAPERS, plain
from .significance import benjamini_hochberg, binomial_trend, exact_change_test
from .trend_info import TrendInfo, read_trend_info, record_trend_info

__all__ = [
    "BASELINES",
    "STATUSES",
    "NodeCounts",
    "benjamini_hochberg",
    "binomial_trend",
    "node_counts",
    "status_and_trends",
    "topic_changes",
    "topic_shares",
    "topic_status",
    "topic_trends",
    "whats_new",
]


def _check_status_options(fdr: float, new_max: int, baseline: str) -> None:
    if not 0.0 < float(fdr) < 1.0:
        raise InvalidValueError(f"fdr must be a false-discovery rate between 0 and 1 (e.g. 0.05), got {fdr!r}.")
    if not isinstance(new_max, (int, np.integer)) or new_max < 0:
        raise InvalidValueError(f"new_max must be a non-negative integer (papers per earlier period), got {new_max!r}.")
    if not isinstance(baseline, str) or baseline not in BASELINES:
        raise InvalidValueError(
            f"baseline={baseline!r} is not a baseline; use 'pooled' (all earlier periods together) "
            f"or 'previous' (the last earlier period with at least {MIN_PERIOD_PAPERS} papers)."
        )


def _growth_columns(counts: NodeCounts, window: StatusWindow, confidence: float) -> dict[str, np.ndarray]:
    """``growth`` = ``exp(b) - 1`` of each node's binomial trend over the earlier periods and ``latest``, with its
    interval; NaN when the periods have no order in time or are fewer than three."""
    cols = window.columns(counts)
    series = counts.counts[:, cols]
    if window.ordered and len(cols) >= 3:
        t = np.asarray([counts.periods[j] for j in cols], dtype=float)
        slope, lower, upper = binomial_trend(series, counts.totals[cols], t, confidence=confidence)
        with np.errstate(over="ignore"):  # a very uncertain slope: an interval up to inf
            growth, g_lo, g_hi = np.expm1(slope), np.expm1(lower), np.expm1(upper)
    else:
        growth = g_lo = g_hi = np.full(len(series), np.nan)
    return {"growth": growth, "growth_lower": g_lo, "growth_upper": g_hi}


def _first_periods(counts: NodeCounts, window: StatusWindow) -> np.ndarray:
    """Each node's first period with a paper, up to ``latest`` (``None``: none)."""
    cols = window.columns(counts)
    series = counts.counts[:, cols]
    return np.array([counts.periods[cols[int(np.argmax(r > 0))]] if r.any() else None for r in series], dtype=object)


def _node_statuses(
    diff: np.ndarray, q_value: np.ndarray, fdr: float, most_before: np.ndarray, n_latest: np.ndarray, new_max: int
) -> np.ndarray:
    """``new`` / ``emerging`` / ``vanished`` / ``declining`` for a change significant at ``fdr``, else ``stable``."""
    significant = q_value <= fdr
    rising, falling = significant & (diff > 0), significant & (diff < 0)
    return np.select(
        [rising & (most_before <= new_max), rising, falling & (n_latest == 0), falling],
        ["new", "emerging", "vanished", "declining"],
        default="stable",
    )


def _by_status(out: pd.DataFrame) -> pd.DataFrame:
    """``out`` sorted by level, then status (``STATUSES`` order), then the change (largest first), then topic."""
    rank = out["status"].map({s: i for i, s in enumerate(STATUSES)})
    out = out.assign(_rank=rank).sort_values(
        ["level", "_rank", "change", "topic"], ascending=[True, True, False, True], kind="mergesort"
    )
    return out.drop(columns="_rank").reset_index(drop=True)


@accepts_level
def topic_status(
    documents: pd.DataFrame | NodeCounts,
    tree: pd.DataFrame | None = None,
    *,
    by: str = "year",
    latest: Hashable | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    fdr: float = DEFAULT_FDR,
    new_max: int = 2,
    baseline: str = "pooled",
) -> pd.DataFrame:
    """One row per node: its counts in the baseline and in ``latest`` (default: the last period), the change
    with its Newcombe interval, the yearly growth with its Wald interval, the exact test, the BH q-value and
    the ``status`` (see the module docstring); given ``documents_``, each changed node's ``latest_titles`` and
    ``name_defects`` (``headline_evidence``: a node whose name fails is no headline of ``whats_new``).
    Every row names its ``baseline`` (e.g. ``"2013–2019 pooled"``)
    and the ``compared`` period. Sorted by level, then status, then the change, largest first. The table's
    [`TrendInfo`][icml_topics.compare.TrendInfo] records ``latest``, the baseline, ``confidence`` and ``fdr``.

    Args:
        documents: ``TopicMap.documents_`` with its ``topic_<level>`` columns (or precomputed node counts).
        tree: ``TopicMap.topic_tree_`` (node labels, parents and themes); ``None``: nodes without labels.
        by: the column that defines the periods.
        latest: the period compared with all earlier ones pooled; ``None``: the last.
        confidence: the confidence level of the intervals (default 0.95; ``level=``, its old name, is deprecated).
        fdr: the false-discovery rate of the Benjamini–Hochberg step (default 0.05).
        new_max: a node with at most this many papers in each earlier period can be ``new``.
        baseline: ``"pooled"``: ``latest`` against all earlier periods together (for venues: every other
            value); ``"previous"``: against the last earlier period with at least 30 modelled papers
            (``MIN_PERIOD_PAPERS``). Growth and ``new`` read every earlier period either way.

    Examples:
        >>> import pandas as pd
        >>> docs = pd.DataFrame({"year": [2023] * 40 + [2024] * 40, "topic_0": [0] * 40 + [1] * 40})
        >>> topic_status(docs)["status"].tolist()
        ['new', 'vanished']
    """
    _check_status_options(fdr, new_max, baseline)
    counts = documents if isinstance(documents, NodeCounts) else node_counts(documents, tree, by=by)
    status = _tested(counts, latest, confidence, fdr, new_max, baseline)
    return status if isinstance(documents, NodeCounts) else _with_evidence(status, documents)


def _tested(
    counts: NodeCounts, latest: Hashable | None, confidence: float, fdr: float, new_max: int, baseline: str
) -> pd.DataFrame:
    """``topic_status`` of ``counts`` without the headline evidence: every node tested once, sorted, its
    ``TrendInfo`` recorded."""
    window = status_window(counts, latest, baseline)
    info = TrendInfo(
        by=counts.by,
        confidence=float(confidence),
        latest=window.latest,
        before=tuple(window.before),
        baseline=baseline,
        baseline_label=baseline_label(window.before),
        fdr=float(fdr),
    )
    return record_trend_info(_by_status(_status_frame(counts, window, confidence, fdr, new_max)), info)


def _with_evidence(status: pd.DataFrame, documents: pd.DataFrame) -> pd.DataFrame:
    """``status`` with each changed node's titles to show and its name's checks (``headline_evidence``, issue 49)."""
    info = read_trend_info(status)
    return record_trend_info(headline_evidence(status, documents, by=info.by, latest=info.latest), info)


def _status_frame(
    counts: NodeCounts, window: StatusWindow, confidence: float, fdr: float, new_max: int
) -> pd.DataFrame:
    """The ``topic_status`` columns of every node (unsorted): counts, shares, intervals, growth, test, status."""
    n_b, total_b = counts.pooled(window.before)
    n_l, total_l = counts.pooled([window.latest])
    diff, lo, hi = newcombe_interval(n_b, total_b, n_l, total_l, confidence)
    latest_lo, latest_hi = wilson_interval(n_l, np.full(len(n_l), total_l), confidence)
    before_lo, before_hi = wilson_interval(n_b, np.full(len(n_b), total_b), confidence)
    p_value, q_value = exact_change_test(n_b, total_b, n_l, total_l)
    most_before = counts.counts[:, window.columns(counts, with_latest=False)].max(axis=1, initial=0)
    return counts.nodes.assign(
        size=counts.counts[:, window.columns(counts)].sum(axis=1),
        first_period=_first_periods(counts, window),
        **_share_columns("before", n_b, total_b),
        before_lower=before_lo,
        before_upper=before_hi,
        **_share_columns("latest", n_l, total_l),
        latest_lower=latest_lo,
        latest_upper=latest_hi,
        change=diff,
        change_lower=lo,
        change_upper=hi,
        **_growth_columns(counts, window, confidence),
        p_value=p_value,
        q_value=q_value,
        status=_node_statuses(diff, q_value, fdr, most_before, n_l, new_max),
        baseline=baseline_label(window.before),  # a CSV has no metadata: each row names what it compares
        compared=baseline_label([window.latest]),
    )


@accepts_level
def topic_shares(
    documents: pd.DataFrame | NodeCounts,
    tree: pd.DataFrame | None = None,
    *,
    by: str = "year",
    confidence: float = DEFAULT_CONFIDENCE,
) -> pd.DataFrame:
    """One row per node and period: ``level, topic, parent, label, theme, period, n, total, share, lower, upper``
    (Wilson interval), zero counts included.

    Args:
        documents: ``TopicMap.documents_`` with its ``topic_<level>`` columns (or precomputed node counts).
        tree: ``TopicMap.topic_tree_`` (node labels, parents and themes); ``None``: nodes without labels.
        by: the column that defines the periods.
        confidence: the confidence level of the intervals (default 0.95; ``level=``, its old name, is deprecated).

    Examples:
        >>> import pandas as pd
        >>> shares = topic_shares(pd.DataFrame({"year": [2019, 2024, 2024], "topic_0": [0, 0, 1]}))
        >>> shares[["topic", "period", "n", "total"]].values.tolist()
        [[0, 2019, 1, 1], [0, 2024, 1, 2], [1, 2019, 0, 1], [1, 2024, 1, 2]]
    """
    counts = documents if isinstance(documents, NodeCounts) else node_counts(documents, tree, by=by)
    n_nodes, n_periods = counts.counts.shape
    total = np.broadcast_to(counts.totals, counts.counts.shape)
    lower, upper = wilson_interval(counts.counts, total, confidence)
    out = counts.nodes.loc[np.repeat(np.arange(n_nodes), n_periods)].reset_index(drop=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = counts.counts / total
    periods = pd.Series(np.tile(np.arange(n_periods), n_nodes)).map(dict(enumerate(counts.periods)))
    out = out.assign(
        period=periods.to_numpy(),
        n=counts.counts.ravel(),
        total=total.ravel(),
        share=share.ravel(),
        lower=lower.ravel(),
        upper=upper.ravel(),
    )
    return record_trend_info(out, TrendInfo(by=counts.by, confidence=float(confidence), method="wilson"))


@accepts_level
def topic_trends(
    documents: pd.DataFrame,
    tree: pd.DataFrame | None = None,
    *,
    by: str = "year",
    latest: Hashable | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    **kwargs: Any,
) -> pd.DataFrame:
    """[`topic_shares`][icml_topics.compare.topic_shares] with each node's [`topic_status`][icml_topics.compare.topic_status]
    columns for ``latest`` joined on: the ``topic_trends.csv`` table (one row per node and period).

    Args:
        documents: ``TopicMap.documents_`` with its ``topic_<level>`` columns.
        tree: ``TopicMap.topic_tree_`` (node labels, parents and themes); ``None``: nodes without labels.
        by: the column that defines the periods.
        latest: the period whose status is joined on; ``None``: the last.
        confidence: the confidence level of the intervals (default 0.95; ``level=``, its old name, is deprecated).
        **kwargs: passed on to [`topic_status`][icml_topics.compare.topic_status] (``fdr``, ``new_max``,
            ``baseline``).

    Examples:
        >>> import pandas as pd
        >>> docs = pd.DataFrame({"year": [2023] * 40 + [2024] * 40, "topic_0": [0] * 40 + [1] * 40})
        >>> topic_trends(docs).query("period == 2024")[["topic", "n", "status"]].values.tolist()
        [[0, 0, 'vanished'], [1, 40, 'new']]
    """
    counts = node_counts(documents, tree, by=by)
    return _trends_table(counts, topic_status(counts, latest=latest, confidence=confidence, **kwargs), confidence)


def status_and_trends(
    documents: pd.DataFrame,
    tree: pd.DataFrame | None = None,
    *,
    by: str = "year",
    latest: Hashable | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    **kwargs: Any,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``topic_status(documents, ...)`` and ``topic_trends(documents, ...)`` from one count and one test of every
    node (``compare`` writes them as ``topic_status.csv`` and ``topic_trends.csv``); arguments as ``topic_trends``:
    ``status, trends = status_and_trends(tm.documents_, tm.topic_tree_, by="year")``."""
    counts = node_counts(documents, tree, by=by)
    status = topic_status(counts, latest=latest, confidence=confidence, **kwargs)
    return _with_evidence(status, documents), _trends_table(counts, status, confidence)


def _trends_table(counts: NodeCounts, status: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """``topic_shares`` of ``counts`` with the columns of ``status`` (a ``topic_status`` of the same counts) joined."""
    shares = topic_shares(counts, confidence=confidence)
    keys = ["level", "topic"]
    extra = status.drop(columns=[c for c in status.columns if c in shares.columns and c not in keys])  # said once
    out = shares.merge(extra, on=keys, how="left", validate="many_to_one")
    record_trend_info(out, replace(read_trend_info(status), method="wilson"))  # the shares' Wilson intervals
    return out


@accepts_level
def topic_changes(
    documents: pd.DataFrame,
    tree: pd.DataFrame | None = None,
    *,
    by: str = "year",
    a: Any,
    b: Any,
    confidence: float = DEFAULT_CONFIDENCE,
) -> pd.DataFrame:
    """Change in share of every node from period ``a`` to period ``b`` (each a value or several pooled),
    with Newcombe's interval: ``level, topic, label, n_a, total_a, share_a, n_b, total_b, share_b, diff,
    diff_lower, diff_upper``, largest rise first.

    Args:
        documents: ``TopicMap.documents_`` with its ``topic_<level>`` columns.
        tree: ``TopicMap.topic_tree_`` (node labels, parents and themes); ``None``: nodes without labels.
        by: the column that defines the periods.
        a: the earlier period: a value or several pooled.
        b: the later period: a value or several pooled.
        confidence: the confidence level of the intervals (default 0.95; ``level=``, its old name, is deprecated).

    Examples:
        >>> import pandas as pd
        >>> docs = pd.DataFrame({"year": [2019] * 4 + [2024] * 4, "topic_0": [0, 0, 0, 1, 0, 1, 1, 1]})
        >>> topic_changes(docs, a=2019, b=2024)[["topic", "diff"]].to_dict("list")
        {'topic': [1, 0], 'diff': [0.5, -0.5]}
    """
    counts = node_counts(documents, tree, by=by)
    values = {name: _period_values(counts, name, period) for name, period in (("a", a), ("b", b))}
    n_a, total_a = counts.pooled(values["a"])
    n_b, total_b = counts.pooled(values["b"])
    diff, lo, hi = newcombe_interval(n_a, total_a, n_b, total_b, confidence)
    out = counts.nodes.assign(
        **_share_columns("a", n_a, total_a),
        **_share_columns("b", n_b, total_b),
        diff=diff,
        diff_lower=lo,
        diff_upper=hi,
    )
    out = out[(out["n_a"] + out["n_b"]) > 0]
    out = out.sort_values(["diff", "level", "topic"], ascending=[False, True, True], kind="mergesort")
    info = TrendInfo(
        by=by,
        confidence=float(confidence),
        a=tuple(values["a"]),
        b=tuple(values["b"]),
        a_label=period_label(values["a"]),
        b_label=period_label(values["b"]),
    )
    return record_trend_info(out.reset_index(drop=True), info)


def _period_values(counts: NodeCounts, name: str, period: Any) -> list[Any]:
    """``period`` (a value or several pooled) as a list, refused when none of its values has modelled papers."""
    vals = list(period) if isinstance(period, (list, tuple, range, set, frozenset)) else [period]
    if not set(vals) & set(counts.periods):
        raise InvalidValueError(
            f"period {name}={plain(period)!r} has no modelled papers; {counts.by} values: {counts.periods}."
        )
    return vals


def _share_columns(suffix: str, n: np.ndarray, total: int) -> dict[str, object]:
    """``n_<suffix>``, ``total_<suffix>``, ``share_<suffix>``: a node's papers in a period, the period's, their share."""
    return {f"n_{suffix}": n, f"total_{suffix}": np.int64(total), f"share_{suffix}": n / total}

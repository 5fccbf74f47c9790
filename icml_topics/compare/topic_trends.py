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

import re
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import hypergeom

from icml_topics.errors import InvalidTypeError, InvalidValueError
from icml_topics.stages.hierarchy import MIN_STABILITY

from .intervals import newcombe_interval, wilson_interval, z_value
from .periods import MIN_PERIOD_PAPERS, check_count, plain
from .trends import baseline_label

__all__ = [
    "BASELINES",
    "STATUSES",
    "NodeCounts",
    "benjamini_hochberg",
    "binomial_trend",
    "modelled_rows",
    "node_counts",
    "topic_changes",
    "topic_levels",
    "topic_shares",
    "topic_status",
    "topic_trends",
    "whats_new",
]

STATUSES = ("new", "emerging", "stable", "declining", "vanished")
BASELINES = ("pooled", "previous")  # all earlier periods together, or the last earlier one with enough papers
_LEVEL_COLUMN = re.compile(r"^topic_(\d+)$")


def topic_levels(documents: pd.DataFrame) -> list[int]:
    """The tree levels present as ``topic_<level>`` columns, finest first (``[]`` when none)."""
    return sorted(int(m.group(1)) for c in documents.columns if (m := _LEVEL_COLUMN.match(str(c))))


@dataclass(frozen=True)
class NodeCounts:
    """Papers per node and period: ``counts[i, j]`` = papers of node ``nodes.iloc[i]`` in ``periods[j]``;
    ``totals[j]`` = modelled papers of ``periods[j]`` (with or without a node)."""

    nodes: pd.DataFrame  # level, topic, label, theme, parent (one row per node)
    periods: list[Any]
    counts: np.ndarray  # (n_nodes, n_periods) int64
    totals: np.ndarray  # (n_periods,) int64
    by: str

    def pooled(self, values: Iterable[Hashable]) -> tuple[np.ndarray, int]:
        """Counts per node and the total over several periods pooled."""
        cols = [j for j, p in enumerate(self.periods) if p in set(values)]
        return self.counts[:, cols].sum(axis=1), int(self.totals[cols].sum())


def modelled_rows(documents: pd.DataFrame) -> pd.DataFrame:
    """The rows with ``status == "ok"`` (all rows of a table without a ``status`` column)."""
    if not isinstance(documents, pd.DataFrame):
        raise InvalidTypeError(
            f"documents must be a pandas DataFrame (TopicMap.documents_), got {type(documents).__name__}."
        )
    if "status" not in documents.columns:
        return documents
    return documents[(documents["status"].astype("string").fillna("") == "ok").to_numpy()]


def _modelled(documents: pd.DataFrame, by: str) -> pd.DataFrame:
    rows = modelled_rows(documents)
    if by not in documents.columns:
        raise InvalidValueError(
            f"by={by!r} is not a column of documents (columns: {list(map(str, documents.columns))}); "
            "pass by='year' or by='venue'."
        )
    return rows[rows[by].notna().to_numpy()]


def _node_table(level_ids: dict[int, np.ndarray], tree: pd.DataFrame | None) -> pd.DataFrame:
    nodes = pd.DataFrame(
        {
            "level": np.concatenate([np.full(len(ids), lv, dtype=np.int64) for lv, ids in level_ids.items()]),
            "topic": np.concatenate(list(level_ids.values())).astype(np.int64),
        }
    )
    if tree is not None and len(tree):
        cols = [c for c in ("parent", "label", "theme", "stability") if c in tree.columns]
        info = tree[["level", "topic", *cols]].astype({"level": np.int64, "topic": np.int64})
        nodes = nodes.merge(info.drop_duplicates(["level", "topic"]), on=["level", "topic"], how="left")
    if "label" not in nodes.columns:
        nodes["label"] = pd.NA
    missing = nodes["label"].isna()
    nodes.loc[missing, "label"] = [f"topic {t} (level {lv})" for lv, t in nodes.loc[missing, ["level", "topic"]].values]
    for col in ("parent", "theme"):
        if col not in nodes.columns:
            nodes[col] = pd.NA
    if "stability" not in nodes.columns:
        nodes["stability"] = np.nan
    return nodes[["level", "topic", "parent", "label", "theme", "stability"]]


def node_counts(documents: pd.DataFrame, tree: pd.DataFrame | None = None, *, by: str = "year") -> NodeCounts:
    """Count the modelled papers of every node of every level per ``by`` value (vectorised).

    Examples:
        >>> import pandas as pd
        >>> c = node_counts(pd.DataFrame({"year": [2019, 2024, 2024], "topic_0": [0, 0, 1]}))
        >>> c.counts.tolist(), c.totals.tolist()
        ([[1, 1], [0, 1]], [1, 2])
    """
    rows = _modelled(documents, by)
    levels = topic_levels(rows)
    columns = {lv: f"topic_{lv}" for lv in levels} or ({0: "topic"} if "topic" in rows.columns else {})
    if not columns:
        raise InvalidValueError(
            "documents has no topic_<level> column (nor a topic column); pass TopicMap.documents_ of a fitted model."
        )
    codes, periods = pd.factorize(rows[by], sort=True)
    n_periods = len(periods)
    totals = np.bincount(codes, minlength=n_periods).astype(np.int64)
    level_ids, blocks = {}, []
    for lv, col in columns.items():
        values = pd.to_numeric(rows[col], errors="coerce").fillna(-1).to_numpy(dtype=np.int64)
        keep = values >= 0
        ids, node = np.unique(values[keep], return_inverse=True)
        flat = np.bincount(node * n_periods + codes[keep], minlength=len(ids) * n_periods)
        level_ids[lv] = ids
        blocks.append(flat.reshape(len(ids), n_periods))
    counts = np.vstack(blocks).astype(np.int64) if blocks else np.zeros((0, n_periods), dtype=np.int64)
    values = [p.item() if isinstance(p, np.generic) else p for p in periods]
    return NodeCounts(_node_table(level_ids, tree), values, counts, totals, by)


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


def binomial_trend(
    counts: np.ndarray, totals: np.ndarray, t: np.ndarray, *, level: float = 0.95, max_iter: int = 30
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
    z = z_value(level)
    valid = converged & ((y > 0).sum(axis=1) >= 2) & (y.shape[1] >= 3) & np.isfinite(se) & (np.abs(beta[:, 1]) < 20)
    b = np.where(valid, beta[:, 1], np.nan)
    return b, b - z * se, b + z * se


def _before(counts: NodeCounts, latest: Any, ordered: bool) -> list[Any]:
    return [p for p in counts.periods if (p < latest if ordered else p != latest)]


def _is_ordered(periods: list[Any]) -> bool:
    return all(isinstance(p, (int, float, np.integer, np.floating)) and not isinstance(p, bool) for p in periods)


def _baseline_periods(counts: NodeCounts, latest: Any, earlier: list[Any], baseline: str, ordered: bool) -> list[Any]:
    """The periods ``latest`` is compared with: all ``earlier`` ones (``"pooled"``), or the last earlier one
    with at least ``MIN_PERIOD_PAPERS`` modelled papers (``"previous"``)."""
    if baseline == "pooled":
        return earlier
    if not ordered:
        raise InvalidValueError(
            f"baseline='previous' needs {counts.by} values ordered in time (years); {counts.by} has "
            f"{counts.periods}. Use baseline='pooled' (every other value)."
        )
    totals = dict(zip(counts.periods, counts.totals.tolist()))
    enough = [p for p in earlier if totals[p] >= MIN_PERIOD_PAPERS]
    if not enough:
        raise InvalidValueError(
            f"baseline='previous': no {counts.by} before {plain(latest)!r} has {MIN_PERIOD_PAPERS} modelled papers "
            f"(papers: {', '.join(f'{p}: {totals[p]}' for p in earlier)}); use baseline='pooled'."
        )
    return enough[-1:]


def topic_status(
    documents: pd.DataFrame | NodeCounts,
    tree: pd.DataFrame | None = None,
    *,
    by: str = "year",
    latest: Hashable | None = None,
    level: float = 0.95,
    fdr: float = 0.05,
    new_max: int = 2,
    baseline: str = "pooled",
) -> pd.DataFrame:
    """One row per node: its counts in the baseline and in ``latest`` (default: the last period), the change
    with its Newcombe interval, the yearly growth with its Wald interval, the exact test, the BH q-value and
    the ``status`` (see the module docstring). Every row names its ``baseline`` (e.g. ``"2013–2019 pooled"``)
    and the ``compared`` period. Sorted by level, then status, then the change, largest first.

    Args:
        documents: ``TopicMap.documents_`` with its ``topic_<level>`` columns (or precomputed node counts).
        tree: ``TopicMap.topic_tree_`` (node labels, parents and themes); ``None``: nodes without labels.
        by: the column that defines the periods.
        latest: the period compared with all earlier ones pooled; ``None``: the last.
        level: the confidence level of the intervals.
        fdr: the false-discovery rate of the Benjamini–Hochberg step.
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
    if not 0.0 < float(fdr) < 1.0:
        raise InvalidValueError(f"fdr must be a false-discovery rate between 0 and 1 (e.g. 0.05), got {fdr!r}.")
    if not isinstance(new_max, (int, np.integer)) or new_max < 0:
        raise InvalidValueError(f"new_max must be a non-negative integer (papers per earlier period), got {new_max!r}.")
    if not isinstance(baseline, str) or baseline not in BASELINES:
        raise InvalidValueError(
            f"baseline={baseline!r} is not a baseline; use 'pooled' (all earlier periods together) "
            f"or 'previous' (the last earlier period with at least {MIN_PERIOD_PAPERS} papers)."
        )
    counts = documents if isinstance(documents, NodeCounts) else node_counts(documents, tree, by=by)
    if len(counts.periods) < 2:
        raise InvalidValueError(
            f"topic trends need at least two {counts.by} values; found {counts.periods}. Combine inputs "
            "from several years (or venues)."
        )
    latest = counts.periods[-1] if latest is None else latest
    if latest not in counts.periods:
        raise InvalidValueError(
            f"latest={plain(latest)!r} is not a {counts.by} of the modelled papers; values: {counts.periods}. "
            "Pass latest= one of them (or None: the last)."
        )
    ordered = _is_ordered(counts.periods)
    earlier_periods = _before(counts, latest, ordered)
    if not earlier_periods:
        raise InvalidValueError(
            f"latest={plain(latest)!r} is the first {counts.by}: nothing earlier to compare with; pass a later one."
        )
    before = _baseline_periods(counts, latest, earlier_periods, baseline, ordered)
    n_b, total_b = counts.pooled(before)
    n_l, total_l = counts.pooled([latest])
    diff, lo, hi = newcombe_interval(n_b, total_b, n_l, total_l, level)
    latest_lo, latest_hi = wilson_interval(n_l, np.full(len(n_l), total_l), level)
    node_total = n_b + n_l
    tested = node_total > 0
    grand = total_b + total_l
    p_up = hypergeom.sf(n_l - 1, grand, node_total, total_l)
    p_down = hypergeom.cdf(n_l, grand, node_total, total_l)
    p_value = np.where(tested, np.minimum(1.0, 2.0 * np.minimum(p_up, p_down)), np.nan)
    q_value = benjamini_hochberg(p_value)
    significant = q_value <= fdr
    cols = [j for j, p in enumerate(counts.periods) if p in set(earlier_periods) | {latest}]
    window = counts.counts[:, cols]
    earlier = counts.counts[:, [j for j, p in enumerate(counts.periods) if p in set(earlier_periods)]]
    if ordered and len(cols) >= 3:
        t = np.asarray([counts.periods[j] for j in cols], dtype=float)
        slope, s_lo, s_hi = binomial_trend(window, counts.totals[cols], t, level=level)
        with np.errstate(over="ignore"):  # a very uncertain slope: an interval up to inf
            growth, g_lo, g_hi = np.expm1(slope), np.expm1(s_lo), np.expm1(s_hi)
    else:
        growth = g_lo = g_hi = np.full(len(window), np.nan)
    first = np.array([counts.periods[cols[int(np.argmax(r > 0))]] if r.any() else None for r in window], dtype=object)
    rising, falling = significant & (diff > 0), significant & (diff < 0)
    status = np.select(
        [rising & (earlier.max(axis=1, initial=0) <= new_max), rising, falling & (n_l == 0), falling],
        ["new", "emerging", "vanished", "declining"],
        default="stable",
    )
    out = counts.nodes.assign(
        size=window.sum(axis=1),
        first_period=first,
        **_share_columns("before", n_b, total_b),
        **_share_columns("latest", n_l, total_l),
        latest_lower=latest_lo,
        latest_upper=latest_hi,
        change=diff,
        change_lower=lo,
        change_upper=hi,
        growth=growth,
        growth_lower=g_lo,
        growth_upper=g_hi,
        p_value=p_value,
        q_value=q_value,
        status=status,
        baseline=baseline_label(before),  # a CSV has no metadata: each row names what it compares
        compared=baseline_label([latest]),
    )
    rank = out["status"].map({s: i for i, s in enumerate(STATUSES)})
    out = out.assign(_rank=rank).sort_values(
        ["level", "_rank", "change", "topic"], ascending=[True, True, False, True], kind="mergesort"
    )
    out = out.drop(columns="_rank").reset_index(drop=True)
    out.attrs = {
        "by": counts.by,
        "latest": latest,
        "before": before,
        "baseline": baseline,
        "baseline_label": baseline_label(before),
        "level": float(level),
        "fdr": float(fdr),
    }
    return out


def topic_shares(
    documents: pd.DataFrame | NodeCounts, tree: pd.DataFrame | None = None, *, by: str = "year", level: float = 0.95
) -> pd.DataFrame:
    """One row per node and period: ``level, topic, parent, label, theme, period, n, total, share, lower, upper``
    (Wilson interval), zero counts included.

    Args:
        documents: ``TopicMap.documents_`` with its ``topic_<level>`` columns (or precomputed node counts).
        tree: ``TopicMap.topic_tree_`` (node labels, parents and themes); ``None``: nodes without labels.
        by: the column that defines the periods.
        level: the confidence level of the intervals.

    Examples:
        >>> import pandas as pd
        >>> shares = topic_shares(pd.DataFrame({"year": [2019, 2024, 2024], "topic_0": [0, 0, 1]}))
        >>> shares[["topic", "period", "n", "total"]].values.tolist()
        [[0, 2019, 1, 1], [0, 2024, 1, 2], [1, 2019, 0, 1], [1, 2024, 1, 2]]
    """
    counts = documents if isinstance(documents, NodeCounts) else node_counts(documents, tree, by=by)
    n_nodes, n_periods = counts.counts.shape
    total = np.broadcast_to(counts.totals, counts.counts.shape)
    lower, upper = wilson_interval(counts.counts, total, level)
    out = counts.nodes.loc[np.repeat(np.arange(n_nodes), n_periods)].reset_index(drop=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = counts.counts / total
    periods = pd.Series(np.tile(np.arange(n_periods), n_nodes)).map(dict(enumerate(counts.periods)))
    return out.assign(
        period=periods.to_numpy(),
        n=counts.counts.ravel(),
        total=total.ravel(),
        share=share.ravel(),
        lower=lower.ravel(),
        upper=upper.ravel(),
    )


def topic_trends(
    documents: pd.DataFrame,
    tree: pd.DataFrame | None = None,
    *,
    by: str = "year",
    latest: Hashable | None = None,
    **kwargs: Any,
) -> pd.DataFrame:
    """[`topic_shares`][icml_topics.compare.topic_shares] with each node's [`topic_status`][icml_topics.compare.topic_status]
    columns for ``latest`` joined on: the ``topic_trends.csv`` table (one row per node and period).

    Args:
        documents: ``TopicMap.documents_`` with its ``topic_<level>`` columns.
        tree: ``TopicMap.topic_tree_`` (node labels, parents and themes); ``None``: nodes without labels.
        by: the column that defines the periods.
        latest: the period whose status is joined on; ``None``: the last.
        **kwargs: passed on to [`topic_status`][icml_topics.compare.topic_status] (``level``, ``fdr``, ``new_max``,
            ``baseline``).

    Examples:
        >>> import pandas as pd
        >>> docs = pd.DataFrame({"year": [2023] * 40 + [2024] * 40, "topic_0": [0] * 40 + [1] * 40})
        >>> topic_trends(docs).query("period == 2024")[["topic", "n", "status"]].values.tolist()
        [[0, 0, 'vanished'], [1, 40, 'new']]
    """
    counts = node_counts(documents, tree, by=by)
    status = topic_status(
        counts, latest=latest, **{k: v for k, v in kwargs.items() if k != "level"}, level=kwargs.get("level", 0.95)
    )
    shares = topic_shares(counts, level=kwargs.get("level", 0.95))
    extra = status.drop(columns=["parent", "label", "theme"])
    out = shares.merge(extra, on=["level", "topic"], how="left", validate="many_to_one")
    out.attrs = dict(status.attrs)
    return out


def topic_changes(
    documents: pd.DataFrame, tree: pd.DataFrame | None = None, *, by: str = "year", a: Any, b: Any, level: float = 0.95
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
        level: the confidence level of the intervals.

    Examples:
        >>> import pandas as pd
        >>> docs = pd.DataFrame({"year": [2019] * 4 + [2024] * 4, "topic_0": [0, 0, 0, 1, 0, 1, 1, 1]})
        >>> topic_changes(docs, a=2019, b=2024)[["topic", "diff"]].to_dict("list")
        {'topic': [1, 0], 'diff': [0.5, -0.5]}
    """
    counts = node_counts(documents, tree, by=by)
    values = {}
    for name, period in (("a", a), ("b", b)):
        vals = list(period) if isinstance(period, (list, tuple, range, set, frozenset)) else [period]
        if not set(vals) & set(counts.periods):
            raise InvalidValueError(
                f"period {name}={plain(period)!r} has no modelled papers; {by} values: {counts.periods}."
            )
        values[name] = vals
    n_a, total_a = counts.pooled(values["a"])
    n_b, total_b = counts.pooled(values["b"])
    diff, lo, hi = newcombe_interval(n_a, total_a, n_b, total_b, level)
    out = counts.nodes.assign(
        **_share_columns("a", n_a, total_a),
        **_share_columns("b", n_b, total_b),
        diff=diff,
        diff_lower=lo,
        diff_upper=hi,
    )
    out = out[(out["n_a"] + out["n_b"]) > 0]
    return out.sort_values(["diff", "level", "topic"], ascending=[False, True, True], kind="mergesort").reset_index(
        drop=True
    )


def _share_columns(suffix: str, n: np.ndarray, total: int) -> dict[str, object]:
    """``n_<suffix>``, ``total_<suffix>``, ``share_<suffix>``: a node's papers in a period, the period's, their share."""
    return {f"n_{suffix}": n, f"total_{suffix}": np.int64(total), f"share_{suffix}": n / total}


def _same_papers_once(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` without the parents whose papers are exactly a listed child's (nested nodes: equal counts in
    every period mean equal sets), each kept child with ``also_at_levels``: the levels of those parents."""
    rows = rows.copy()
    rows["also_at_levels"] = [[] for _ in range(len(rows))]
    if "parent" not in rows.columns or rows.empty:
        return rows
    counts = ["size", "n_before", "n_latest"]
    index = {(int(lv), int(t)): i for i, (lv, t) in enumerate(zip(rows["level"], rows["topic"]))}
    values = rows[counts].to_numpy()
    dropped: set[int] = set()
    for i in np.argsort(rows["level"].to_numpy(), kind="stable"):
        if i in dropped:
            continue
        level, parent = int(rows["level"].iloc[i]), rows["parent"].iloc[i]
        while pd.notna(parent) and int(parent) >= 0:
            j = index.get((level + 1, int(parent)))
            if j is None or not (values[j] == values[i]).all():
                break
            dropped.add(j)
            rows["also_at_levels"].iloc[i].append(level + 1)
            level, parent = level + 1, rows["parent"].iloc[j]
    return rows.drop(index=rows.index[sorted(dropped)])


def whats_new(
    status: pd.DataFrame,
    *,
    statuses: Iterable[str] = ("new", "emerging"),
    top: int | None = None,
    min_stability: float = MIN_STABILITY,
) -> pd.DataFrame:
    """The nodes of a [`topic_status`][icml_topics.compare.topic_status] table with one of ``statuses``, strongest evidence first
    (new before emerging, then by q-value, then by the rise); ``top`` (None or a positive integer) keeps
    the first rows. A node that reappears in fewer than ``min_stability`` of the hierarchy's perturbed runs
    (its ``stability``) is never a headline: it is left out (NaN, a node no run could split: kept).

    A node and its parent often rise together; both are listed, with their ``level``, so that a reader
    sees at which resolution the change is sharpest. A parent holding exactly its child's papers (a node
    with one child) is the same finding twice: it is listed once, at the finer level, and
    ``also_at_levels`` names the coarser levels that hold the same papers.

    Args:
        status: a [`topic_status`][icml_topics.compare.topic_status] table.
        statuses: the statuses to list (``("declining", "vanished")``: what faded).
        top: at most this many rows; ``None``: all.
        min_stability: the least ``stability`` a listed node has (default 0.5, ``MIN_STABILITY``; 0: every node).

    Examples:
        >>> import pandas as pd
        >>> docs = pd.DataFrame({"year": [2023] * 40 + [2024] * 40, "topic_0": [0] * 40 + [1] * 40})
        >>> whats_new(topic_status(docs))["topic"].tolist()
        [1]
    """
    check_count(top, "top", optional=True, hint=" (the number of rows kept)")
    wanted = list(statuses)
    unknown = [s for s in wanted if s not in STATUSES]
    if unknown:
        raise InvalidValueError(f"statuses {unknown} are not statuses; pick from {list(STATUSES)}.")
    stability = pd.to_numeric(status["stability"], errors="coerce") if "stability" in status else None
    steady = (stability.isna() | (stability >= min_stability)) if stability is not None else True
    rows = _same_papers_once(status[status["status"].isin(wanted) & steady])
    rows["_rank"] = rows["status"].map({s: i for i, s in enumerate(wanted)})
    rows["_rise"] = rows["change"].abs()
    rows = (
        rows.sort_values(["_rank", "q_value", "_rise", "level"], ascending=[True, True, False, True], kind="mergesort")
        .drop(columns=["_rank", "_rise"])
        .reset_index(drop=True)
    )
    rows.attrs = dict(status.attrs)
    return rows if top is None else rows.head(top)

"""Theme shares per year (or venue) with honest intervals, and rising / declining themes.

All functions take a table following the ``documents_`` contract (see ``docs/architecture.md``):
rows with ``status != "ok"`` are left out (a table without a ``status`` column is taken as all
modelled), rows with a missing ``by`` value (e.g. no year) are left out, and an empty or missing
``group`` value (e.g. ``theme == ""``) means *unassigned*.

The denominator of a share is always the number of modelled papers in that year (or venue),
unassigned ones included, so shares match ``TopicMap.themes_`` and do not change when
``include_unassigned`` is toggled; with it, the ``"(no theme)"`` row makes the shares sum to 1.

Examples:
    >>> import pandas as pd
    >>> docs = pd.DataFrame({"year": [2019] * 4 + [2024] * 4,
    ...                      "theme": ["RL", "RL", "Vision", "", "RL", "LLMs", "LLMs", "LLMs"]})
    >>> shares = theme_shares(docs)
    >>> shares.loc[shares.year == 2019, ["theme", "n", "total", "share"]].to_string(index=False)
    ' theme  n  total  share\\n  LLMs  0      4   0.00\\n    RL  2      4   0.50\\nVision  1      4   0.25'
    >>> theme_movers(docs, a=2019, b=2024)[["theme", "diff", "direction"]].to_string(index=False)
    ' theme  diff direction\\n  LLMs  0.75    rising\\n    RL -0.25    stable\\nVision -0.25    stable'
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, Literal

import numpy as np
import pandas as pd

from icml_topics._validation import require_column
from icml_topics.compare.trend_info import DEFAULT_CONFIDENCE
from icml_topics.errors import InvalidTypeError, InvalidValueError
from icml_topics.fitted_tables import modelled_rows

from ._confidence import accepts_level
from .intervals import newcombe_interval, wilson_interval, z_value
from .period_labels import baseline_label, period_label, period_values
from .periods import plain
from .trend_info import TrendInfo, record_trend_info

__all__ = ["baseline_label", "compare_venues", "period_label", "theme_movers", "theme_shares", "year_theme_table"]

_GROUP = "__group__"
_MISSING = object()


def _unassigned_label(group: str) -> str:
    return "(no theme)" if group == "theme" else f"(no {group})"


def _prepare(documents: pd.DataFrame, by: str, group: str, include_unassigned: bool) -> pd.DataFrame:
    """Modelled rows with a ``by`` value; ``_GROUP`` holds the group or ``_MISSING`` (unassigned)."""
    require_column(documents, by, "by", "year")
    require_column(documents, group, "group", "theme")
    if by == group:
        raise InvalidValueError(
            f"by and group are both {by!r}; pass two different columns (e.g. by='year', group='theme')."
        )
    rows = modelled_rows(documents)
    if rows.empty and not documents.empty:  # only a table with a status column can lose every row
        found = sorted(map(str, documents["status"].dropna().unique()))[:5]
        raise InvalidValueError(
            f"documents has a 'status' column but no row has status 'ok' (values: {found}); these functions "
            "expect TopicMap.documents_, where status is 'ok' or 'dropped'. For another table, drop or "
            "rename that column (documents.drop(columns='status')) to count every row."
        )
    rows = rows[rows[by].notna()]
    values = rows[group]
    unassigned = values.isna() | (values.astype("string").str.strip() == "")
    label: Any = _unassigned_label(group) if include_unassigned else _MISSING
    grp = pd.Series(
        [label if u else v for u, v in zip(unassigned.to_numpy(), values.to_numpy(), strict=True)],
        index=rows.index,
        dtype=object,
    )
    return pd.DataFrame({by: rows[by], _GROUP: grp})


def _sorted_groups(values: Iterable[Any], last: Any = _MISSING) -> list[Any]:
    """Distinct values in natural order (``str`` order if mixed), ``last`` (if present) at the end."""

    def is_last(v: Any) -> bool:
        return isinstance(last, str) and isinstance(v, str) and v == last

    distinct = list(pd.unique(pd.Series(list(values), dtype=object)))
    vals = [v for v in distinct if v is not _MISSING and not is_last(v)]
    try:
        vals = sorted(vals)
    except TypeError:
        vals = sorted(vals, key=str)
    return vals + ([last] if any(is_last(v) for v in distinct) else [])


def _sorted_values(series: pd.Series) -> list[Any]:
    vals = [v.item() if isinstance(v, np.generic) else v for v in pd.unique(series.dropna())]
    try:
        return sorted(vals)
    except TypeError:
        return sorted(vals, key=str)


def _restore_dtype(values: list[Any], like: pd.Series) -> pd.Series:
    out = pd.Series(values)
    try:
        return out.astype(like.dtype)
    except (TypeError, ValueError):
        return out


def _count_matrix(frame: pd.DataFrame, by: str, by_vals: list[Any], groups: list[Any]) -> np.ndarray:
    """Papers per ``by`` value (rows) and group (columns), unassigned papers in one more, last column: counted
    in the totals, not reported (when ``groups`` does not list them)."""
    n_by, n_grp = len(by_vals), len(groups)
    by_code = pd.Categorical(frame[by], categories=by_vals).codes.astype(np.int64)
    grp_index = {g: i for i, g in enumerate(groups)}
    grp_code = np.array(
        [grp_index.get(g, n_grp) if g is not _MISSING else n_grp for g in frame[_GROUP]], dtype=np.int64
    )
    return np.bincount(by_code * (n_grp + 1) + grp_code, minlength=n_by * (n_grp + 1)).reshape(n_by, n_grp + 1)


def _bootstrap_interval(
    full: np.ndarray, n_grp: int, confidence: float, n_boot: int, random_state: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of each share from ``n_boot`` multinomial resamples of each row of ``full``."""
    if not isinstance(n_boot, (int, np.integer)) or n_boot < 100:
        raise InvalidValueError(f"n_boot must be an integer >= 100 for a usable bootstrap interval, got {n_boot!r}.")
    rng = np.random.default_rng(random_state)
    alpha = 1.0 - confidence
    totals = full.sum(axis=1)
    lower = np.zeros((len(full), n_grp))
    upper = np.zeros((len(full), n_grp))
    for i in range(len(full)):
        draws = rng.multinomial(totals[i], full[i] / totals[i], size=n_boot)[:, :n_grp] / totals[i]
        lower[i], upper[i] = np.quantile(draws, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    return lower, upper


def _shares_frame(
    full: np.ndarray,
    interval: tuple[np.ndarray, np.ndarray],
    by_vals: list[Any],
    groups: list[Any],
    by_column: tuple[str, pd.Series],
    group: str,
) -> pd.DataFrame:
    """The long ``theme_shares`` table from the count matrix (``_count_matrix``) and the interval bounds;
    ``by_column``: the ``by`` column's name and the input column, whose dtype the output keeps."""
    by, like = by_column
    n_by, n_grp = len(by_vals), len(groups)
    totals, counts = full.sum(axis=1), full[:, :n_grp]
    lower, upper = interval
    out = pd.DataFrame(
        {
            by: _restore_dtype([v for v in by_vals for _ in range(n_grp)], like),
            group: pd.Series(groups * n_by, dtype=object),
            "n": counts.ravel().astype(np.int64),
            "total": np.repeat(totals, n_grp).astype(np.int64),
            "share": (counts / totals[:, None]).ravel(),
            "lower": np.asarray(lower, dtype=float).ravel(),
            "upper": np.asarray(upper, dtype=float).ravel(),
        }
    )
    if all(isinstance(g, str) for g in groups):
        out[group] = out[group].astype("str")
    return out


@accepts_level
def theme_shares(
    documents: pd.DataFrame,
    *,
    by: str = "year",
    group: str = "theme",
    confidence: float = DEFAULT_CONFIDENCE,
    method: Literal["wilson", "bootstrap"] = "wilson",
    n_boot: int = 2000,
    random_state: int | None = 0,
    include_unassigned: bool = False,
) -> pd.DataFrame:
    """Share of papers per ``group`` value within each ``by`` value, with a confidence interval.

    Returns columns ``[by, group, n, total, share, lower, upper]``: one row per (``by``, ``group``)
    combination, zero counts included, sorted by ``by`` then ``group``. ``total`` is the number of
    modelled papers with that ``by`` value. ``method="wilson"`` (default) gives the closed-form Wilson
    score interval, which stays honest for small years (3/38 papers -> 2.7%-20.8%) and gives a
    non-zero upper bound for zero counts. ``method="bootstrap"`` resamples papers within each ``by``
    value ``n_boot`` times (percentile interval); it is degenerate ([0, 0]) for zero counts and
    too narrow for small years, so prefer Wilson unless you need it for comparison.

    Args:
        documents: ``TopicMap.documents_`` (or any table with the columns named below).
        by: the column that defines the periods or groups compared (``"year"``, ``"venue"``, ...).
        group: the column whose values get a share (``"theme"``; ``"topic"`` for fine topics).
        confidence: the confidence level of the intervals (default 0.95; ``level=``, its old name, is deprecated).
        method: ``"wilson"`` or ``"bootstrap"``, as above.
        n_boot: resamples of the bootstrap.
        random_state: the bootstrap's seed.
        include_unassigned: also list papers without a ``group`` value.

    Examples:
        >>> import pandas as pd
        >>> docs = pd.DataFrame({"year": [2019, 2019, 2024], "theme": ["RL", "Vision", "RL"]})
        >>> theme_shares(docs)[["year", "theme", "n", "total"]].values.tolist()
        [[2019, 'RL', 1, 2], [2019, 'Vision', 1, 2], [2024, 'RL', 1, 1], [2024, 'Vision', 0, 1]]
    """
    if method not in ("wilson", "bootstrap"):
        raise InvalidValueError(f"method must be 'wilson' or 'bootstrap', got {method!r}.")
    z_value(confidence)  # validates confidence
    frame = _prepare(documents, by, group, include_unassigned)
    by_vals = _sorted_values(frame[by])
    groups = _sorted_groups(frame[_GROUP], last=_unassigned_label(group) if include_unassigned else _MISSING)
    n_grp = len(groups)
    full = _count_matrix(frame, by, by_vals, groups)
    if method == "wilson":
        interval = wilson_interval(full[:, :n_grp], full.sum(axis=1)[:, None], confidence)
    else:
        interval = _bootstrap_interval(full, n_grp, confidence, n_boot, random_state)
    out = _shares_frame(full, interval, by_vals, groups, (by, documents[by]), group)
    return record_trend_info(out, TrendInfo(by=by, group=group, confidence=float(confidence), method=method))


def _period_counts(
    frame: pd.DataFrame, by: str, values: list[Any], name: str, present: list[Any]
) -> tuple[pd.Series, int]:
    rows = frame[frame[by].isin(values)]
    if rows.empty:
        raise InvalidValueError(
            f"period {name}={period_label(values)} has no modelled documents in column {by!r}; "
            f"values present: {present}. Pass {name}= one or more of them."
        )
    assigned = rows[_GROUP][rows[_GROUP].map(lambda g: g is not _MISSING)]
    return assigned.value_counts(sort=False), len(rows)


def _disjoint_periods(a: Any, b: Any, by: str) -> tuple[list[Any], list[Any]]:
    """The values of periods ``a`` and ``b``, refused when they share one (the interval needs two independent sets)."""
    values_a, values_b = period_values(a, "a"), period_values(b, "b")
    overlap = [v for v in values_a if v in values_b]
    if overlap:
        raise InvalidValueError(
            f"periods a and b overlap in {by} values {plain(overlap)}; the interval assumes two independent "
            "sets of papers, so pass disjoint periods (e.g. a=range(2013, 2020), b=2024)."
        )
    return values_a, values_b


def _movers_frame(
    group: str, groups: list[Any], n_a: np.ndarray, total_a: int, n_b: np.ndarray, total_b: int, confidence: float
) -> pd.DataFrame:
    """One row per group: both shares, their difference with Newcombe's interval, the ratio and the direction."""
    diff, lo, hi = newcombe_interval(n_a, total_a, n_b, total_b, confidence)
    share_a, share_b = n_a / total_a, n_b / total_b
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = share_b / share_a
    out = pd.DataFrame(
        {
            group: pd.Series(groups, dtype=object),
            "n_a": n_a,
            "total_a": np.int64(total_a),
            "share_a": share_a,
            "n_b": n_b,
            "total_b": np.int64(total_b),
            "share_b": share_b,
            "diff": diff,
            "diff_lower": lo,
            "diff_upper": hi,
            "ratio": ratio,
        }
    )
    out["significant"] = (out["diff_lower"] > 0) | (out["diff_upper"] < 0)
    out["direction"] = np.select(
        [out["diff_lower"] > 0, out["diff_upper"] < 0], ["rising", "declining"], default="stable"
    )
    return out


def _ranked(movers: pd.DataFrame, group: str, min_count: int) -> pd.DataFrame:
    """``movers`` without the groups of fewer than ``min_count`` papers, largest rise first (ties by name)."""
    out = movers[(movers["n_a"] + movers["n_b"]) >= min_count]
    out = out.sort_values(["diff", group], ascending=[False, True], kind="mergesort", key=_sort_key).reset_index(
        drop=True
    )
    if all(isinstance(g, str) for g in movers[group]):
        out[group] = out[group].astype("str")
    return out


@accepts_level
def theme_movers(
    documents: pd.DataFrame,
    *,
    by: str = "year",
    a: Hashable | Iterable[Hashable],
    b: Hashable | Iterable[Hashable],
    group: str = "theme",
    confidence: float = DEFAULT_CONFIDENCE,
    min_count: int = 0,
) -> pd.DataFrame:
    """Rank themes by the change in share from period ``a`` to period ``b``, with an interval.

    ``a`` and ``b`` are a single value (``2019``) or several pooled into a period (``[2019, 2020]``,
    ``range(2013, 2020)``). ``diff = share_b - share_a`` with the Newcombe hybrid score interval
    ``[diff_lower, diff_upper]``; ``direction`` is ``"rising"`` / ``"declining"`` when the interval
    excludes 0 (``significant``) and ``"stable"`` otherwise. ``ratio = share_b / share_a`` (inf for
    themes absent in ``a``). Themes present in either period are listed, those with
    ``n_a + n_b < min_count`` dropped; sorted by ``diff``, largest rise first. Every row names its
    ``baseline`` (``a``: ``"2019"``, or ``"2013–2019 pooled"``) and the ``compared`` period. No multiple-testing
    correction is applied: with 20 themes, about one "significant" mover is expected by chance.

    Args:
        documents: ``TopicMap.documents_`` (or any table with the columns named below).
        by: the column that defines the periods.
        a: the earlier period: a value or several pooled.
        b: the later period: a value or several pooled.
        group: the column whose shares are compared.
        confidence: the confidence level of the intervals (default 0.95; ``level=``, its old name, is deprecated).
        min_count: drop themes with fewer papers than this in ``a`` and ``b`` together.

    Examples:
        >>> import pandas as pd
        >>> docs = pd.DataFrame({"year": [2019] * 10 + [2024] * 10,
        ...                      "theme": ["RL"] * 9 + ["LLMs"] + ["RL"] + ["LLMs"] * 9})
        >>> theme_movers(docs, a=2019, b=2024)[["theme", "share_a", "share_b", "direction"]].values.tolist()
        [['LLMs', 0.1, 0.9, 'rising'], ['RL', 0.9, 0.1, 'declining']]
    """
    if not isinstance(min_count, (int, np.integer)) or min_count < 0:
        raise InvalidValueError(f"min_count must be a non-negative integer, got {min_count!r}.")
    frame = _prepare(documents, by, group, include_unassigned=False)
    values_a, values_b = _disjoint_periods(a, b, by)
    present = _sorted_values(frame[by])
    counts_a, total_a = _period_counts(frame, by, values_a, "a", present)
    counts_b, total_b = _period_counts(frame, by, values_b, "b", present)
    groups = _sorted_groups(list(counts_a.index) + list(counts_b.index))
    n_a = counts_a.reindex(groups, fill_value=0).to_numpy(dtype=np.int64)
    n_b = counts_b.reindex(groups, fill_value=0).to_numpy(dtype=np.int64)
    out = _ranked(_movers_frame(group, groups, n_a, total_a, n_b, total_b, confidence), group, min_count)
    out["baseline"], out["compared"] = baseline_label(values_a), baseline_label(values_b)  # a CSV keeps no attrs
    info = TrendInfo(
        by=by,
        group=group,
        confidence=float(confidence),
        a=tuple(values_a),
        b=tuple(values_b),
        a_label=period_label(values_a),
        b_label=period_label(values_b),
    )
    return record_trend_info(out, info)


def _sort_key(col: pd.Series) -> pd.Series:
    return col.map(str) if col.dtype == object else col


@accepts_level
def compare_venues(
    documents: pd.DataFrame,
    a: Hashable | Iterable[Hashable] = "ICML",
    b: Hashable | Iterable[Hashable] = "NeurIPS",
    **kw: Any,
) -> pd.DataFrame:
    """[`theme_movers`][icml_topics.compare.theme_movers] between two venues (``by="venue"``): what NeurIPS has more of than ICML.

    Restrict ``documents`` to the same years first so that a venue difference is not a year one.

    Args:
        documents: ``TopicMap.documents_`` (or any table with the columns named below).
        a: the first venue (or several pooled).
        b: the second venue (or several pooled).
        **kw: passed on to [`theme_movers`][icml_topics.compare.theme_movers] (``group``, ``confidence``,
            ``min_count``).

    Examples:
        >>> import pandas as pd
        >>> docs = pd.DataFrame({"venue": ["ICML"] * 2 + ["NeurIPS"] * 2, "theme": ["RL", "RL", "RL", "GNN"]})
        >>> compare_venues(docs)[["theme", "share_a", "share_b"]].values.tolist()
        [['GNN', 0.0, 0.5], ['RL', 1.0, 0.5]]
    """
    if "by" in kw:
        raise InvalidTypeError("compare_venues always uses by='venue'; call theme_movers(by=...) for another column.")
    return theme_movers(documents, by="venue", a=a, b=b, **kw)


def year_theme_table(
    documents: pd.DataFrame,
    by: str = "year",
    group: str = "theme",
    *,
    values: Literal["share", "n", "lower", "upper"] = "share",
    include_unassigned: bool = False,
) -> pd.DataFrame:
    """Wide table for reports: one row per theme (largest overall first), one column per year.

    Args:
        documents: ``TopicMap.documents_`` (or any table with the columns named below).
        by: the column of the table's columns (the periods).
        group: the column of its rows.
        values: the cell value: ``"share"``, ``"n"``, ``"lower"`` or ``"upper"`` of
            [`theme_shares`][icml_topics.compare.theme_shares].
        include_unassigned: also a row for papers without a ``group`` value.

    Examples:
        >>> import pandas as pd
        >>> docs = pd.DataFrame({"year": [2019, 2019, 2024], "theme": ["RL", "Vision", "RL"]})
        >>> year_theme_table(docs).to_dict()
        {2019: {'RL': 0.5, 'Vision': 0.5}, 2024: {'RL': 1.0, 'Vision': 0.0}}
    """
    if values not in ("share", "n", "lower", "upper"):
        raise InvalidValueError(f"values must be one of 'share', 'n', 'lower', 'upper', got {values!r}.")
    shares = theme_shares(documents, by=by, group=group, include_unassigned=include_unassigned)
    order = (
        shares.groupby(group, sort=False)["n"]
        .sum()
        .reset_index()
        .sort_values(["n", group], ascending=[False, True], kind="mergesort", key=_sort_key)[group]
        .tolist()
    )
    wide = shares.pivot(index=group, columns=by, values=values).reindex(order)
    wide.columns.name, wide.index.name = by, group
    return wide

"""Which periods a comparison compares, checked before any embedding: a comparison needs papers.

A period (one ``by`` value, e.g. a year, or several pooled) is compared only when it holds at least
``min_papers`` modelled papers (default ``MIN_PERIOD_PAPERS`` = 30). Why 30: with fewer, one paper
moves a share by more than 3 points, a 95% Wilson interval of a 10% share spans more than 20 points, and a
taxonomy of about 20 themes has under two papers per theme, so a "mover" is one or two papers. A smaller
period is reported (its count and why), never compared as evidence.

The default periods (``default_periods``): the two latest ``by`` values with at least
``min_align_docs`` papers each (so that each can also be fitted alone for the topic alignment); failing
that, the two latest with at least ``min_papers`` each. ``plan_comparison`` also refuses, before the
fit, a ``by`` column with one usable value, more than ``max_periods`` distinct values (default
``MAX_PERIODS`` = 50: a comparison of that many periods is an id column, not a time axis), and
``a`` / ``b`` that are absent, too small or overlapping.

Example:
    >>> import pandas as pd
    >>> docs = pd.DataFrame({"year": [2013] + [2019] * 99 + [2024] * 100 + [2025]})
    >>> plan = plan_comparison(docs, "year")
    >>> plan.a, plan.b, plan.skipped
    (2019, 2024, {2013: 1, 2025: 1})
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from icml_topics.errors import InvalidTypeError, InvalidValueError
from icml_topics.fitted_tables import modelled_rows

__all__ = [
    "MAX_PERIODS",
    "MIN_PERIOD_PAPERS",
    "ComparisonPlan",
    "check_count",
    "default_periods",
    "period_counts",
    "plain",
    "plan_comparison",
]

MIN_PERIOD_PAPERS = 30  # a period needs this many modelled papers to be compared (see the module docstring)
MAX_PERIODS = 50  # more distinct `by` values than this: refused unless max_periods is raised


def plain(value: Any) -> Any:
    """``value`` as plain Python for a message: ``np.int64(2024)`` -> ``2024``, lists element by element.

    Example:
        >>> plain([np.int64(2024), np.float64(0.5), "ICML"])
        [2024, 0.5, 'ICML']
    """
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    return value


def check_count(value: Any, name: str, minimum: int = 1, *, optional: bool = False, hint: str = "") -> None:
    """Raise unless ``value`` is an integer ``>= minimum`` (or None when ``optional``); the message names
    ``name``, the value, the rule and ``hint``.

    Example:
        >>> check_count(-1, "top", optional=True)
        Traceback (most recent call last):
        ...
        icml_topics.errors.InvalidValueError: top=-1 is not allowed: use None (all rows) or an integer >= 1.
    """
    if value is None and optional:
        return
    rule = ("None (all rows) or " if optional else "") + f"an integer >= {minimum}"
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise InvalidTypeError(f"{name}={plain(value)!r} is not allowed: use {rule}{hint}.")
    if value < minimum:
        raise InvalidValueError(f"{name}={plain(value)!r} is not allowed: use {rule}{hint}.")


def period_counts(documents: pd.DataFrame, by: str) -> tuple[pd.Series, int]:
    """Modelled papers per ``by`` value (sorted, plain Python values) and the number of modelled papers
    without a ``by`` value. Only modelled rows are counted (``fitted_tables.modelled_rows``: all rows of a
    table without ``status``).

    Example:
        >>> counts, missing = period_counts(pd.DataFrame({"year": [2019, 2019, None], "status": "ok"}), "year")
        >>> counts.to_dict(), missing
        ({2019.0: 2}, 1)
    """
    values = modelled_rows(documents)[by]
    missing = int(values.isna().sum())
    counts = values.dropna().value_counts()
    counts.index = pd.Index([plain(v) for v in counts.index], dtype=object)
    try:
        counts = counts.sort_index()
    except TypeError:  # mixed kinds of values: in text order
        counts = counts.iloc[np.argsort([str(v) for v in counts.index], kind="stable")]
    return counts.astype(np.int64), missing


def _listing(counts: pd.Series, limit: int = 12) -> str:
    items = [f"{v} ({n} paper{'s' if n != 1 else ''})" for v, n in counts.items()]
    more = f", ... ({len(items) - limit} more)" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


def default_periods(
    counts: pd.Series, by: str, *, min_papers: int = MIN_PERIOD_PAPERS, min_align_docs: int = 150
) -> tuple[Any, Any]:
    """The two periods compared by default, from papers per ``by`` value (``period_counts``): the two
    latest values with at least ``min_align_docs`` papers each, else the two latest with at least
    ``min_papers``; raises when fewer than two values have ``min_papers``."""
    big = [v for v, n in counts.items() if n >= max(min_align_docs, min_papers)]
    if len(big) >= 2:
        return big[-2], big[-1]
    enough = [v for v, n in counts.items() if n >= min_papers]
    if len(enough) >= 2:
        return enough[-2], enough[-1]
    found = _listing(counts) or "none"
    raise InvalidValueError(
        f"Comparing by {by!r} needs at least two {by} values with at least {min_papers} modelled papers each "
        f"(min_papers); found {found}. Combine inputs from more {by} values, pool values into periods "
        f"(--a 2013-2018 --b 2019), or lower --min-papers (shares from fewer papers are mostly noise)."
    )


@dataclass
class ComparisonPlan:
    """What a comparison compares, decided before the fit: periods ``a`` and ``b``, the papers per ``by``
    value, the values left out for having fewer than ``min_papers`` papers (``skipped``) and the modelled
    papers without a ``by`` value (``missing``), which are fitted but left out of every trend table."""

    by: str
    a: Any
    b: Any
    counts: pd.Series
    min_papers: int
    missing: int = 0
    skipped: dict[Any, int] = field(default_factory=dict)
    latest: Any = None  # the last value with min_papers papers: the topic trends' "latest" period

    def notes(self) -> list[str]:
        """One line per thing left out of the comparison, for the log and the CLI."""
        lines = []
        if self.skipped:
            lines.append(
                f"Not compared ({self.by} values with fewer than {self.min_papers} papers, too few for shares to "
                f"be evidence; --min-papers): {_listing(pd.Series(self.skipped))}."
            )
        if self.missing:
            lines.append(
                f"{self.missing} paper{'s have' if self.missing != 1 else ' has'} no {self.by}: fitted with the "
                f"others, left out of the comparison by {self.by}."
            )
        return lines


def _is_many(period: Any) -> bool:
    return isinstance(period, Iterable) and not isinstance(period, (str, bytes))


def _values(period: Any) -> list[Any]:
    return [plain(v) for v in period] if _is_many(period) else [plain(period)]


def _check_period(name: str, period: Any, counts: pd.Series, by: str, min_papers: int) -> list[Any]:
    values = _values(period)
    label = ", ".join(map(str, values)) if len(values) < 6 else f"{values[0]}-{values[-1]}"
    if not values:
        raise InvalidValueError(f"{name} is an empty period; pass a {by} value (e.g. --{name} 2019) or a range.")
    as_text = {str(v): v for v in counts.index}  # "2019" read from a text column matches --a 2019
    values = [v if v in counts.index else as_text.get(str(v), v) for v in values]
    present = [v for v in values if v in counts.index]
    if not present:
        raise InvalidValueError(
            f"--{name} {label} is not a {by} of the modelled papers; {by} values present: {_listing(counts)}. "
            f"Pass --{name} one or more of them."
        )
    n = int(counts.loc[present].sum())
    if n < min_papers:
        raise InvalidValueError(
            f"--{name} {label} has {n} modelled paper{'s' if n != 1 else ''}; a compared period needs at least "
            f"{min_papers} (min_papers), or its shares are noise. Pool more {by} values into it "
            f"(e.g. --{name} 2013-2018), or lower --min-papers."
        )
    return values


def plan_comparison(
    documents: pd.DataFrame,
    by: str,
    a: Any = None,
    b: Any = None,
    *,
    min_papers: int = MIN_PERIOD_PAPERS,
    max_periods: int = MAX_PERIODS,
    min_align_docs: int = 150,
) -> ComparisonPlan:
    """Check a comparison by ``by`` of ``documents`` (a corpus flagged by ``flag_rows``, or
    ``TopicMap.documents_``) before any work and decide its periods (see the module docstring)."""
    check_count(min_papers, "min_papers", 1, hint=" (papers a period needs to be compared)")
    check_count(max_periods, "max_periods", 2, hint=f" (distinct {by} values a comparison may have)")
    counts, missing = period_counts(documents, by)
    if len(counts) > max_periods:
        raise InvalidValueError(
            f"--by {by} has {len(counts)} distinct values, more than max_periods={max_periods}: a comparison per "
            f"value would write a table of {len(counts)} columns and a trend row per topic and value. Compare by "
            f"a column with few values (year, venue), or pass --max-periods {len(counts)} if you mean it."
        )
    if (a is None) != (b is None):
        given = "--a" if a is not None else "--b"
        raise InvalidValueError(
            f"{given} was given alone; pass both --a and --b, or neither (then the two latest {by} values with "
            f"at least {min_align_docs} papers each are compared, else the two latest with {min_papers})."
        )
    if a is None:
        a, b = default_periods(counts, by, min_papers=min_papers, min_align_docs=min_align_docs)
        values_a, values_b = [a], [b]
    else:
        values_a = _check_period("a", a, counts, by, min_papers)
        values_b = _check_period("b", b, counts, by, min_papers)
        a = values_a if _is_many(a) else values_a[0]
        b = values_b if _is_many(b) else values_b[0]
        overlap = [v for v in values_a if v in values_b]
        if overlap:
            raise InvalidValueError(
                f"--a and --b share the {by} value(s) {', '.join(map(str, overlap))}; a change needs two "
                f"different sets of papers: pass two different periods (e.g. --a 2019 --b 2024)."
            )
    compared = set(values_a) | set(values_b)
    enough = [v for v, n in counts.items() if n >= min_papers]
    skipped = {v: int(n) for v, n in counts.items() if n < min_papers and v not in compared}
    latest = enough[-1] if enough else [v for v in counts.index if v in compared][-1]
    return ComparisonPlan(by, a, b, counts, min_papers, missing, skipped, latest)

"""Which periods a node's status compares: the ``latest`` one, every earlier one, and the baseline's.

``baseline="pooled"`` compares ``latest`` with all earlier periods together (for a ``by`` without an order
in time, such as venues: every other value); ``"previous"`` with the last earlier period that has at least
``MIN_PERIOD_PAPERS`` modelled papers. Nothing after ``latest`` is read.

Examples:
    >>> import pandas as pd
    >>> from icml_topics.compare.node_counts import node_counts
    >>> counts = node_counts(pd.DataFrame({"year": [2019, 2023, 2024], "topic_0": [0, 0, 1]}))
    >>> status_window(counts, 2023, "pooled").before
    [2019]
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from icml_topics.errors import InvalidValueError

from .node_counts import NodeCounts
from .periods import MIN_PERIOD_PAPERS, plain

__all__ = ["BASELINES", "StatusWindow", "status_window"]

BASELINES = ("pooled", "previous")  # all earlier periods together, or the last earlier one with enough papers


@dataclass(frozen=True)
class StatusWindow:
    """The periods of one ``topic_status`` comparison: ``latest``, every ``earlier`` one, the baseline's
    (``before``), and whether the periods are ordered in time."""

    latest: Any
    earlier: list[Any]
    before: list[Any]
    ordered: bool

    def columns(self, counts: NodeCounts, *, with_latest: bool = True) -> list[int]:
        """The positions in ``counts.periods`` of the earlier periods (and of ``latest``)."""
        wanted = set(self.earlier) | ({self.latest} if with_latest else set())
        return [j for j, p in enumerate(counts.periods) if p in wanted]


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


def status_window(counts: NodeCounts, latest: Hashable | None, baseline: str) -> StatusWindow:
    """``latest`` (``None``: the last period) checked against the counted periods, with the earlier ones and
    the baseline's (``baseline``: ``"pooled"`` or ``"previous"``).

    Examples:
        >>> import pandas as pd
        >>> from icml_topics.compare.node_counts import node_counts
        >>> counts = node_counts(pd.DataFrame({"year": [2019] * 30 + [2020] + [2024], "topic_0": 0}))
        >>> w = status_window(counts, None, "previous")
        >>> w.latest, w.earlier, w.before
        (2024, [2019, 2020], [2019])
    """
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
    earlier = _before(counts, latest, ordered)
    if not earlier:
        raise InvalidValueError(
            f"latest={plain(latest)!r} is the first {counts.by}: nothing earlier to compare with; pass a later one."
        )
    return StatusWindow(latest, earlier, _baseline_periods(counts, latest, earlier, baseline, ordered), ordered)

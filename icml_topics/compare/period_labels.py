"""How a comparison names its periods: one value (``2019``), a range (``2013–2019``) or several pooled.

Examples:
    >>> period_label(range(2013, 2020)), baseline_label(range(2013, 2020)), baseline_label(2019)
    ('2013–2019', '2013–2019 pooled', '2019')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from icml_topics.errors import InvalidValueError

__all__ = ["baseline_label", "period_label", "period_values"]


def _natural_order(values: Iterable[Any]) -> list[Any]:
    """Distinct values in natural order (``str`` order if mixed)."""
    distinct = list(pd.unique(pd.Series(list(values), dtype=object)))
    try:
        return sorted(distinct)
    except TypeError:
        return sorted(distinct, key=str)


def period_values(period: Any, name: str) -> list[Any]:
    """The values of ``period``: one value, or several pooled (a set in natural order); ``name`` names it in the
    error for an empty one.

    Examples:
        >>> period_values(range(2019, 2022), "a"), period_values({2024, 2019}, "b"), period_values("ICML", "a")
        ([2019, 2020, 2021], [2019, 2024], ['ICML'])
    """
    if isinstance(period, (str, bytes)) or not isinstance(period, Iterable):
        return [period]
    if isinstance(period, (set, frozenset)):
        return _natural_order(period)
    values = list(period)
    if not values:
        raise InvalidValueError(
            f"{name} is an empty period; pass a value (e.g. {name}=2019) or a range (e.g. {name}=range(2013, 2020))."
        )
    return values


def period_label(period: Any) -> str:
    """Readable label for a period value: ``2019``, ``range(2013, 2020)`` -> ``"2013–2019"``.

    Args:
        period: a value, a ``range`` or a list of values.

    Examples:
        >>> period_label(range(2013, 2020)), period_label([2019, 2021]), period_label("ICML")
        ('2013–2019', '2019, 2021', 'ICML')
    """
    values = period_values(period, "period")
    if len(values) == 1:
        return str(values[0])
    ints = [v for v in values if isinstance(v, (int, np.integer)) and not isinstance(v, bool)]
    if len(ints) == len(values) and sorted(ints) == list(range(min(ints), max(ints) + 1)):
        return f"{min(ints)}–{max(ints)}"
    return ", ".join(map(str, values))


def baseline_label(period: Any) -> str:
    """How a table names its baseline: one period as ``period_label`` gives it, several with " pooled".

    Examples:
        >>> baseline_label(2019), baseline_label(range(2013, 2020))
        ('2019', '2013–2019 pooled')
    """
    values = period_values(period, "baseline")
    return period_label(values) + (" pooled" if len(values) > 1 else "")

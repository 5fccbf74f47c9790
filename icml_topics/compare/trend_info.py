"""What a trend table was computed with: one typed record, written by the producers, read by the consumers.

The tables of ``icml_topics.compare`` (``theme_shares``, ``theme_movers``, ``topic_status``, ``topic_trends``,
``acceptance_shares``, ...) carry a [`TrendInfo`][icml_topics.compare.TrendInfo] under one key of their
``DataFrame.attrs`` (``TREND_INFO``): the ``by`` column, the confidence level of the intervals, the periods
compared, the FDR. The reports, plots and command line read it with
[`read_trend_info`][icml_topics.compare.read_trend_info], which owns the defaults (a table that carries none, e.g.
one read back from a CSV, reads as ``TrendInfo()``) and names what is missing when a value is required.
A CSV keeps none of it: every table of a change also names its ``baseline`` and ``compared`` periods in
columns.

Examples:
    >>> import pandas as pd
    >>> from icml_topics.compare import read_trend_info, theme_shares
    >>> shares = theme_shares(pd.DataFrame({"year": [2019, 2024], "theme": ["RL", "RL"]}), confidence=0.9)
    >>> read_trend_info(shares).confidence, read_trend_info(shares).by
    (0.9, 'year')
    >>> read_trend_info(pd.DataFrame()).confidence  # no record: the defaults
    0.95
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, fields

import pandas as pd

from icml_topics.errors import InvalidTypeError, InvalidValueError

__all__ = ["DEFAULT_CONFIDENCE", "DEFAULT_FDR", "TREND_INFO", "TrendInfo", "read_trend_info", "record_trend_info"]

#: the ``attrs`` key under which a trend table carries its ``TrendInfo``
TREND_INFO = "trend_info"
#: the confidence level of every interval unless ``confidence=`` says otherwise
DEFAULT_CONFIDENCE = 0.95
#: the false-discovery rate of ``topic_status`` unless ``fdr=`` says otherwise
DEFAULT_FDR = 0.05


@dataclass(frozen=True)
class TrendInfo:
    """The statistics metadata of one trend table (``None`` / ``()``: not recorded by its producer).

    Attributes:
        by: the column that defines the periods (``"year"``, ``"venue"``).
        group: the column whose shares were computed (``theme_shares`` / ``theme_movers``: ``"theme"``).
        confidence: the confidence level of the table's intervals.
        method: how the intervals were computed (``"wilson"``, ``"bootstrap"``).
        a: the earlier period of ``theme_movers`` / ``topic_changes``, as its values.
        b: the later period, as its values.
        a_label: ``a`` as ``period_label`` writes it (``"2013–2019"``).
        b_label: ``b`` as ``period_label`` writes it.
        latest: the period ``topic_status`` compared with its baseline.
        before: the periods of that baseline.
        baseline: how the baseline was chosen (``"pooled"``, ``"previous"``).
        baseline_label: the baseline as every row's ``baseline`` column names it (``"2013–2019 pooled"``).
        fdr: the false-discovery rate of ``topic_status``'s Benjamini–Hochberg step.

    Examples:
        >>> info = TrendInfo(by="year", confidence=0.9)
        >>> info.confidence, info.fdr
        (0.9, 0.05)
    """

    by: str | None = None
    group: str | None = None
    confidence: float = DEFAULT_CONFIDENCE
    method: str | None = None
    a: tuple[Hashable, ...] = ()
    b: tuple[Hashable, ...] = ()
    a_label: str | None = None
    b_label: str | None = None
    latest: Hashable | None = None
    before: tuple[Hashable, ...] = ()
    baseline: str | None = None
    baseline_label: str | None = None
    fdr: float = DEFAULT_FDR


_FIELDS = frozenset(f.name for f in fields(TrendInfo))


def record_trend_info(table: pd.DataFrame, info: TrendInfo) -> pd.DataFrame:
    """Write ``info`` into ``table.attrs`` (key ``TREND_INFO``, the table's other attrs kept) and return ``table``.

    Examples:
        >>> record_trend_info(pd.DataFrame(), TrendInfo(by="year")).attrs[TREND_INFO].by
        'year'
    """
    if not isinstance(info, TrendInfo):
        raise InvalidTypeError(f"info must be a TrendInfo, got {type(info).__name__}.")
    table.attrs[TREND_INFO] = info
    return table


def read_trend_info(
    table: pd.DataFrame, *, require: Iterable[str] = (), name: str = "table", hint: str = ""
) -> TrendInfo:
    """The ``TrendInfo`` a producer of ``icml_topics.compare`` recorded on ``table``; ``TrendInfo()`` (the
    defaults: 95% intervals, FDR 5%) for a table that carries none (read from a CSV, built by hand, or passed
    through an operation that drops ``attrs``).

    Args:
        table: a table of ``icml_topics.compare`` (``theme_shares``, ``theme_movers``, ``topic_status``, ...).
        require: fields that must have been recorded (e.g. ``("a", "b")``): ``InvalidValueError`` naming
            them when the table carries no value for one.
        name: how the error message names ``table`` (``"movers"``).
        hint: what the caller can pass instead, appended to the error message.

    Examples:
        >>> import pandas as pd
        >>> from icml_topics.compare import theme_movers
        >>> docs = pd.DataFrame({"year": [2019, 2024], "theme": ["RL", "GNN"]})
        >>> read_trend_info(theme_movers(docs, a=2019, b=2024), require=("a", "b")).a_label
        '2019'
    """
    if not isinstance(table, pd.DataFrame):
        raise InvalidTypeError(f"{name} must be a pandas DataFrame of icml_topics.compare, got {type(table).__name__}.")
    info = table.attrs.get(TREND_INFO)
    if info is None:
        info = TrendInfo()
    elif not isinstance(info, TrendInfo):
        raise InvalidTypeError(
            f"{name}.attrs[{TREND_INFO!r}] holds a {type(info).__name__}, not a TrendInfo; leave that key to "
            "icml_topics.compare."
        )
    wanted = list(require)
    unknown = sorted(set(wanted) - _FIELDS)
    if unknown:
        raise InvalidValueError(f"require names no TrendInfo field: {unknown}; fields: {sorted(_FIELDS)}.")
    missing = [field for field in wanted if getattr(info, field) in (None, ())]
    if missing:
        raise InvalidValueError(
            f"{name} does not record {', '.join(missing)} (the TrendInfo in its attrs, written by the "
            f"icml_topics.compare function that computed it; a table read from a CSV has none){hint}."
        )
    return info

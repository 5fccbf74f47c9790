"""What the trend figures share: which column holds the groups, the interval's level, the order of groups and
the colours of a change's direction (``trends.py`` and ``two_periods.py`` read them)."""

from __future__ import annotations

import pandas as pd

from icml_topics.errors import InvalidValueError

from .._validation import require_columns
from ..compare.trend_info import read_trend_info

# Okabe-Ito blue / orange: told apart with every common colour-vision deficiency (no red/green pair)
DIRECTION_COLOURS = {"rising": "#0072b2", "stable": "#9e9e9e", "declining": "#e69f00"}


def group_column(df: pd.DataFrame, by: str, group: str | None, known: tuple[str, ...]) -> str:
    if group is not None:
        require_columns(df, [group], "the table", "icml_topics.compare")
        return group
    recorded = read_trend_info(df).group
    if recorded is not None and recorded in df.columns:
        return str(recorded)
    candidates = [c for c in df.columns if c != by and c not in known]
    if len(candidates) != 1:
        raise InvalidValueError(
            f"cannot tell which column holds the themes among {candidates}; pass group=... (e.g. group='theme')."
        )
    return str(candidates[0])


def level_text(df: pd.DataFrame) -> str:
    """``"95% CI"``: the confidence level of the table's intervals (``read_trend_info``)."""
    return f"{read_trend_info(df).confidence:.0%} CI"


def group_order(shares: pd.DataFrame, group: str) -> list:
    """Groups by pooled share (all ``by`` values together), largest first; ties by name."""
    pooled = shares.groupby(group, sort=False)[["n", "total"]].sum()
    pooled["pooled"] = pooled["n"] / pooled["total"].where(pooled["total"] > 0)
    pooled = pooled.reset_index()
    pooled["_name"] = pooled[group].map(str)
    return pooled.sort_values(["pooled", "_name"], ascending=[False, True], kind="mergesort")[group].tolist()

"""Numbers as a person writes them in a sentence: "1 topic", "2 topics", "1,234 papers", "23 (60.5%)".

Every count the reports, the static map and the CLI print next to a noun goes through ``counted``, so no
line reads "1 resolutions" or "1 topics".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["count_and_share", "counted", "fit_sentence"]


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` with ``singular`` for exactly one and ``plural`` (default ``singular + "s"``) otherwise.

    Thousands are separated with commas. Several words are fine: the whole phrase is the noun.

    Examples:
        >>> counted(1, "topic"), counted(2, "topic"), counted(0, "paper"), counted(1234, "paper")
        ('1 topic', '2 topics', '0 papers', '1,234 papers')
        >>> counted(1, "broad topic"), counted(3, "fine one"), counted(2, "child", "children")
        ('1 broad topic', '3 fine ones', '2 children')
    """
    n = int(n)
    return f"{n:,} {singular if n == 1 else (plural if plural is not None else singular + 's')}"


def count_and_share(part: int, whole: int) -> str:
    """``part`` and its share of ``whole``: ``"23 (60.5%)"``; ``"0"`` of nothing.

    Examples:
        >>> count_and_share(23, 38), count_and_share(0, 0)
        ('23 (60.5%)', '0')
    """
    part, whole = int(part), int(whole)
    return f"{part:,} ({100 * part / whole:.1f}%)" if whole else f"{part:,}"


def fit_sentence(numbers: Mapping[str, Any]) -> str:
    """What a fit found, in counts that add up, from ``schema.headline_numbers`` (``TopicMap.summary()``): the
    papers in fine topics plus the outliers make the modelled papers; every paper has a theme or is counted
    without one.

    Examples:
        >>> fit_sentence({"modelled": 38, "topics": 3, "themes": 20, "outlier share": 18 / 38, "no-theme share": 0.0})
        '20 of 38 papers in 3 topics, 18 outliers (topic -1); 20 research themes, 0 papers without a theme'
        >>> fit_sentence({"modelled": 1, "topics": 1, "themes": 1, "outlier share": 0.0, "no-theme share": 1.0})
        '1 of 1 paper in 1 topic, 0 outliers (topic -1); 1 research theme, 1 paper without a theme'
    """
    modelled = int(numbers["modelled"])
    outliers = (
        round(float(numbers["outlier share"]) * modelled) if numbers["outlier share"] == numbers["outlier share"] else 0
    )
    no_theme = (
        round(float(numbers["no-theme share"]) * modelled)
        if numbers["no-theme share"] == numbers["no-theme share"]
        else 0
    )
    return (
        f"{modelled - outliers:,} of {counted(modelled, 'paper')} in {counted(numbers['topics'], 'topic')}, "
        f"{counted(outliers, 'outlier')} (topic -1); {counted(numbers['themes'], 'research theme')}, "
        f"{counted(no_theme, 'paper')} without a theme"
    )

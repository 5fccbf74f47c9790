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
    """What a fit found, in counts that add up, from ``fitted_tables.headline_numbers`` (``TopicMap.summary()``): the
    modelled papers, the finest topics of the tree and the research themes above them, the papers without a
    theme, and (only when there are any) papers in no topic.

    Examples:
        >>> fit_sentence({"modelled": 38, "topics": 20, "themes": 20, "outlier share": 0.0, "no-theme share": 0.0})
        '38 papers in 20 topics under 20 research themes, 0 papers without a theme'
        >>> fit_sentence({"modelled": 4, "topics": 1, "themes": 1, "outlier share": 0.5, "no-theme share": 0.25})
        '4 papers in 1 topic under 1 research theme, 1 paper without a theme; 2 papers in no topic (topic -1)'
    """
    modelled = int(numbers["modelled"])

    def count(share: Any) -> int:
        return round(float(share) * modelled) if share == share else 0

    outliers, no_theme = count(numbers["outlier share"]), count(numbers["no-theme share"])
    sentence = (
        f"{counted(modelled, 'paper')} in {counted(numbers['topics'], 'topic')} under "
        f"{counted(numbers['themes'], 'research theme')}, {counted(no_theme, 'paper')} without a theme"
    )
    return sentence + (f"; {counted(outliers, 'paper')} in no topic (topic -1)" if outliers else "")

"""Readable topic names from keyphrases: "offline reinforcement learning and policy optimization",
never ``3_graph_node_gnn``.

    >>> name_topics({0: ["graph neural networks", "graph", "message passing", "expressivity"]})
    {0: 'graph neural networks and message passing'}
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

__all__ = ["OUTLIER_LABEL", "name_topic", "name_topics"]

OUTLIER_LABEL = "Unclustered papers"

_WORD = re.compile(r"[a-z0-9]+")


def _stems(phrase: str) -> set[str]:
    # crude stemming, enough to see that "networks" and "network" overlap
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in _WORD.findall(phrase.lower())}


def name_topic(keyphrases: Sequence[str], *, max_phrases: int = 2, max_chars: int = 60) -> str:
    """Join the best non-overlapping keyphrases (multi-word phrases preferred) into a short name."""
    phrases = [p.strip() for p in keyphrases if p and p.strip()]
    if not phrases:
        return "unnamed topic"
    # prefer a multi-word phrase among the first three as the head
    head = next((p for p in phrases[:3] if len(p.split()) > 1), phrases[0])
    chosen = [head]
    seen = _stems(head)
    for phrase in phrases:
        if len(chosen) >= max_phrases:
            break
        stems = _stems(phrase)
        if phrase in chosen or stems & seen:
            continue
        if len(" and ".join([*chosen, phrase])) > max_chars:
            continue
        chosen.append(phrase)
        seen |= stems
    return " and ".join(chosen)


def name_topics(keywords: Mapping[int, Sequence[str]]) -> dict[int, str]:
    """Name every topic; ``-1`` is the outlier group; duplicate names get a third phrase to tell them apart."""
    names: dict[int, str] = {}
    used: dict[str, int] = {}
    for topic in sorted(keywords):
        if topic == -1:
            names[topic] = OUTLIER_LABEL
            continue
        name = name_topic(keywords[topic])
        if name in used:
            name = name_topic(keywords[topic], max_phrases=3, max_chars=90)
            if name in used:
                name = f"{name} ({topic})"
        used[name] = topic
        names[topic] = name
    return names

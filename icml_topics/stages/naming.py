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

# n-gram fragments read badly as names: "graph neural", "learning causal", "carlo variational inference"
_DANGLING_START = frozenset("learning training learned learn using based via carlo neural deep model models data".split())
_DANGLING_END = frozenset("neural deep large pre-trained graph language via using based".split())


def _dangling(phrase: str) -> bool:
    words = phrase.lower().split()
    return len(words) > 1 and (words[0] in _DANGLING_START or words[-1] in _DANGLING_END)


def _complete(phrase: str, phrases: Sequence[str]) -> str:
    """The longest listed phrase that contains ``phrase`` ("graph neural" -> "graph neural networks")."""
    longer = [p for p in phrases if p != phrase and f" {phrase} " in f" {p} "]
    return max(longer, key=len) if longer else phrase


def _stems(phrase: str) -> set[str]:
    # crude stemming, enough to see that "networks" and "network" overlap
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in _WORD.findall(phrase.lower())}


def name_topic(keyphrases: Sequence[str], *, max_phrases: int = 2, max_chars: int = 60) -> str:
    """Join the best non-overlapping keyphrases (multi-word phrases preferred) into a short name."""
    listed = [p.strip() for p in keyphrases if p and p.strip()]
    if not listed:
        return "unnamed topic"
    phrases = list(dict.fromkeys(_complete(p, listed) for p in listed))
    readable = [p for p in phrases if not _dangling(p)] or phrases
    # prefer a multi-word phrase among the first three as the head
    head = next((p for p in readable[:3] if len(p.split()) > 1), readable[0])
    chosen = [head]
    seen = _stems(head)
    for phrase in readable:
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

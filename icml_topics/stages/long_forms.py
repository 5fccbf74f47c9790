"""The written forms of a name's words: acronyms as written ("KV cache", "LLMs"), and an acronym's long form
where a node's papers write it out (issue 49: "reinforcement learning with verifiable rewards (RLVR)").

    >>> display(["KV", "Cache", "Compression"])
    'KV cache compression'
    >>> long_form("RLHF", ["Reinforcement learning from human feedback (RLHF) aligns.", "We use RLHF.",
    ...                    "Reinforcement Learning from Human Feedback (RLHF) is costly."])
    'reinforcement learning from human feedback'
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from icml_topics.text import acronym_letters, initials

__all__ = ["display", "display_word", "long_form"]


def display(words: Sequence[str]) -> str:
    """The words lower case, but acronyms as written ("KV cache compression", "LLMs")."""
    return " ".join(display_word(w) for w in words)


@lru_cache(maxsize=200_000)
def display_word(word: str) -> str:
    """Lower case, unless the word is an acronym written with two capitals or more."""
    pieces = word.split("-")
    return "-".join(p if sum(c.isupper() for c in p) >= 2 and acronym_letters(p) else p.lower() for p in pieces)


_LONG_SKIP = frozenset("of from for with via and the in on to by a an".split())


def long_form(acronym: str, texts: Sequence[str]) -> str:
    """The words ``acronym`` stands for where the texts define it ("reinforcement learning with verifiable
    rewards" for "RLVR": the words before "(RLVR)" whose initials, connectives aside, are its letters),
    written so in at least two texts; "" when none is."""
    letters = acronym_letters(acronym)
    if not letters or not texts:
        return ""
    pattern = re.compile(r"((?:[^\W\d_][\w'-]*\s+){1,10})\(\s*" + re.escape(letters) + r"s?\s*\)", re.IGNORECASE)
    counts: Counter = Counter()
    for text in texts:
        if letters not in text.lower():
            continue
        for match in pattern.finditer(text):
            run = match.group(1).split()
            for k in range(1, len(run) + 1):
                tail = run[-k:]
                content = [w.lower() for w in tail if w.lower() not in _LONG_SKIP]
                if tail[0].lower() in _LONG_SKIP or not content:
                    continue
                if initials(content) == letters:
                    counts[display(tail)] += 1
                    break
    found = [(n, form) for form, n in counts.items() if n >= 2]
    return max(found, key=lambda x: (x[0], -len(x[1]), x[1]))[1] if found else ""

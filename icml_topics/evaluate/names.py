"""Topic-name quality: flag the five defects that make a name read like machine output.

    >>> name_defects("federated learning fl")
    ['acronym echo']
    >>> name_defects("federated learning (FL)")
    []
    >>> name_defects("policy learning and agent learn")
    ['repeated word', 'dangling word']

The defects: ``repeated word`` (one word in two forms: "forecasting and forecast"), ``acronym echo``
(an acronym repeating the words before it, outside parentheses: "federated learning fl"), ``dangling
word`` (a part ends or starts unfinished: "agents learn", "trained convolutional"), ``too long``
(over 60 characters) and ``unrelated phrases`` (the parts joined by "and" never meet: in ``corpus``,
the papers mentioning one mention the other no more often than chance (NPMI <= 0), as
"bayesian optimization" and "metropolis-hastings" in ICML 2013-2024; phrases too rare to count, in
fewer than 3 papers, are compared by ``embed_fn`` instead). The last needs ``corpus`` or ``embed_fn``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from icml_topics.stages.keyphrases import dangling
from icml_topics.text import acronym_letters, initials, phrase_tokens, stem

__all__ = ["DEFECTS", "MAX_NAME_CHARS", "UNRELATED_BELOW", "PhraseCorpus", "clean_share", "name_defects", "name_parts"]

DEFECTS = ("repeated word", "acronym echo", "dangling word", "too long", "unrelated phrases")
MAX_NAME_CHARS = 60
#: Two parts of a name are "unrelated" below this cosine similarity (all-MiniLM-L6-v2 scale).
UNRELATED_BELOW = 0.35

_STOP = frozenset("and or of for in on to the a an with via by from".split())


def name_parts(name: str) -> list[str]:
    """The phrases a name joins with ``and`` / ``&`` / ``,``."""
    return [p.strip() for p in re.split(r"\s+(?:and|&)\s+|[,:;]\s*", name) if p.strip()]


def _acronym_echo(part: str) -> bool:
    tokens = phrase_tokens(part, parens=True)
    words: list[str] = []
    for tok in tokens:
        bare = tok.strip("()").lower()
        letters = acronym_letters(bare)
        in_parens = tok.startswith("(") and tok.endswith(")")
        if letters and words and not in_parens:
            before = [w for w in words if w not in _STOP]
            k = min(len(letters), len(before))
            if k and any(initials(before[-j:]) == letters[-j:] for j in range(1, k + 1)):
                return True
        words.append(bare)
    return False


def _repeated(name: str) -> bool:
    stems = []
    for tok in phrase_tokens(name, parens=True):
        bare = tok.strip("()").lower()
        for piece in bare.split("-"):
            if piece and piece not in _STOP and acronym_letters(piece) is None:
                stems.append(stem(piece))
    return len(stems) != len(set(stems))


class PhraseCorpus:
    """Papers indexed for phrase co-occurrence (any word form): build once, pass to :func:`name_defects`."""

    def __init__(self, texts: Sequence[str]) -> None:
        from icml_topics.stages.naming import StemIndex

        self.index = StemIndex(list(texts))

    def npmi(self, a: str, b: str) -> tuple[float, int]:
        """Normalised PMI of the two phrases over the papers (-1 when they never meet), and the smaller count."""
        from icml_topics.stages.keyphrases import merge_keyphrases

        pa, pb = (merge_keyphrases([x], drop_covered=False) for x in (a, b))
        if not pa or not pb:
            return -1.0, 0
        ha, hb = self.index.hits(pa[0]), self.index.hits(pb[0])
        n, both = len(ha), int((ha & hb).sum())
        rarer = int(min(ha.sum(), hb.sum()))
        if both == 0:
            return -1.0, rarer
        p_ab, p_a, p_b = both / n, ha.mean(), hb.mean()
        return float(np.log(p_ab / (p_a * p_b)) / -np.log(p_ab)) if p_ab < 1 else 1.0, rarer


def _unrelated(parts: list[str], embed_fn, corpus: PhraseCorpus | None, below: float) -> bool:
    for i in range(len(parts)):
        for j in range(i + 1, len(parts)):
            if corpus is not None:
                npmi, rarer = corpus.npmi(parts[i], parts[j])
                if rarer >= 3:
                    if npmi <= 0:
                        return True
                    continue
            if embed_fn is not None:
                va, vb = np.asarray(embed_fn([parts[i], parts[j]]), dtype=np.float32)
                if float(va @ vb / ((np.linalg.norm(va) * np.linalg.norm(vb)) or 1.0)) < below:
                    return True
    return False


def name_defects(
    name: str,
    embed_fn: Callable[[list[str]], np.ndarray] | None = None,
    *,
    corpus: PhraseCorpus | None = None,
    unrelated_below: float = UNRELATED_BELOW,
    max_chars: int = MAX_NAME_CHARS,
) -> list[str]:
    """The defects of one topic name, in the order of :data:`DEFECTS` (empty list = a clean name)."""
    parts = name_parts(name)
    found = []
    if _repeated(name):
        found.append("repeated word")
    if any(_acronym_echo(p) for p in parts):
        found.append("acronym echo")
    if any(dangling(p) for p in parts):
        found.append("dangling word")
    if len(name) > max_chars:
        found.append("too long")
    if len(parts) > 1 and (embed_fn is not None or corpus is not None):
        if _unrelated(parts, embed_fn, corpus, unrelated_below):
            found.append("unrelated phrases")
    return found


def clean_share(
    names: Iterable[str],
    embed_fn: Callable[[list[str]], np.ndarray] | None = None,
    *,
    corpus: PhraseCorpus | None = None,
) -> tuple[float, dict[str, list[str]]]:
    """Share of names without any defect, and the defects of the others (name -> defects)."""
    names: Sequence[str] = list(names)
    bad = {n: d for n in names if (d := name_defects(n, embed_fn, corpus=corpus))}
    return (1.0 - len(bad) / len(names)) if names else 1.0, bad

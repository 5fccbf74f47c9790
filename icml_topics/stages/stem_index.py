"""Papers as stem strings with an inverted index: the papers that mention a phrase in any of its word forms
("forecast" finds "forecasting"), or its acronym, for topic naming and the name checks.

    >>> index = StemIndex(["Forecasting time series", "Graph networks"])
    >>> index.hits(Phrase(["time", "series", "forecast"])).tolist(), index.hits(Phrase(["forecast"])).tolist()
    ([False, False], [True, False])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np

from icml_topics.stages.keyphrases import Phrase
from icml_topics.text import stem, words

__all__ = ["StemIndex"]


class StemIndex:
    """Papers as padded stem strings plus an inverted index, so that a phrase is found fast in any of
    its word forms ("forecast" finds "forecasting")."""

    def __init__(self, texts: Sequence[str]) -> None:
        stemmed = [_stemmed(text) for text in texts]
        self.docs = [doc for doc, _ in stemmed]
        self._stems = [distinct for _, distinct in stemmed]
        self._postings: dict[str, set[int]] = {}  # filled when phrases ask for their stems
        self._found: dict[tuple[str, ...], set[int]] = {}  # stem run -> the papers holding it (phrases recur)

    def prefetch_stems(self, stems: Iterable[str]) -> None:
        """Index ``stems`` not indexed yet: the papers holding each, found in one pass over the papers for all
        of them (an index is asked for a few thousand stems, not the tens of thousands its papers hold)."""
        missing = {s for s in stems if s not in self._postings}
        if len(missing) <= _FEW_STEMS:  # a pass per stem: a test per paper is cheaper than an intersection
            for s in missing:
                self._postings[s] = {i for i, distinct in enumerate(self._stems) if s in distinct}
            return
        found: dict[str, set[int]] = {s: set() for s in missing}
        for i, distinct in enumerate(self._stems):
            for s in distinct & missing:
                found[s].add(i)
        self._postings.update(found)

    def prefetch(self, phrases: Iterable[Phrase]) -> None:
        """Index the stems of ``phrases`` in one pass (before asking for their ``hits`` one by one: the corpus
        is asked by every topic)."""
        self.prefetch_stems(s for p in phrases for stems in _needles(p) for s in stems)

    def hits(self, phrase: Phrase) -> np.ndarray:
        """Boolean mask over the papers that mention ``phrase`` (its words in order, or its acronym)."""
        found: set[int] = set()
        for stems in _needles(phrase):
            if stems:
                found |= self._holding(stems)
        mask = np.zeros(len(self.docs), dtype=bool)
        mask[list(found)] = True
        return mask

    def _holding(self, stems: tuple[str, ...]) -> set[int]:
        """The papers holding the run of ``stems`` (not to be changed: it is kept for the next phrase)."""
        found = self._found.get(stems)
        if found is None:
            self.prefetch_stems(stems)
            found = set.intersection(*(self._postings[s] for s in stems))
            if len(stems) > 1:  # (one stem: a paper holding it holds it " padded ", as stems have no spaces)
                needle = " " + " ".join(stems) + " "
                found = {i for i in found if needle in self.docs[i]}
            self._found[stems] = found
        return found


_FEW_STEMS = 4  # up to this many stems, a pass over the papers per stem is faster than one for all


def _needles(phrase: Phrase) -> tuple[tuple[str, ...], ...]:
    """The stem runs that say ``phrase`` in a paper: its words in order, its acronym."""
    return _stem_runs(tuple(phrase.words), phrase.acronym)


@lru_cache(maxsize=200_000)
def _stem_runs(words_: tuple[str, ...], acronym: str | None) -> tuple[tuple[str, ...], ...]:
    needles = []
    if words_:
        needles.append(tuple(map(stem, words(" ".join(words_)))))
    if acronym:
        needles.append((stem(acronym.lower()),))
    return tuple(needles)


@lru_cache(maxsize=50_000)
def _stemmed(text: str) -> tuple[str, frozenset[str]]:
    """A paper as a padded stem string and its distinct stems: a topic tree names every paper at each of
    its levels, so each text is stemmed once per process."""
    stems = list(map(stem, words(text)))
    return " " + " ".join(stems) + " ", frozenset(stems)

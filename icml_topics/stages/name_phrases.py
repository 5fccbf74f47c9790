"""The candidate names of a node: the phrases of its papers' titles and author keywords (issues 39 and 49).

A title's phrases are its runs of words between punctuation and stop words (one connective such as "from"
allowed: "reinforcement learning from human feedback"), 1-5 words with content words at both ends; a phrase
said once in a node is no candidate. ``quick_share`` is a first, cheap pass over a node's titles as stems.

    >>> sorted(candidates(["Offline RL with value bounds", "Offline RL from logs"]).values())
    ['RL', 'offline', 'offline RL']
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import chain
from operator import itemgetter

from icml_topics.stages.long_forms import display, display_word
from icml_topics.text import initials, marked_tokens, stem, stop_words

__all__ = ["TitleStems", "candidates", "needed_stems", "phrase_counts", "quick_share"]

_CONNECTIVES = frozenset("of from".split())
_first = itemgetter(0)
_MAX_WORDS = 5


def _runs(title: str) -> list[list[str]]:
    """The title's words in runs: punctuation and stop words other than a connective end a run."""
    stops = _stop_set()
    runs: list[list[str]] = [[]]
    for tok in marked_tokens(title):
        low = tok.lower()
        if not tok[0].isalnum() or (low in stops and low not in _CONNECTIVES):
            runs.append([])
        else:
            runs[-1].append(tok)
    return [r for r in runs if r]


_STOPS: frozenset[str] | None = None


def _stop_set() -> frozenset[str]:
    global _STOPS
    if _STOPS is None:
        _STOPS = frozenset(stop_words()) | frozenset("and or of for in on to the a an with via by from".split())
    return _STOPS


def _spans(run: Sequence[str]) -> Iterator[tuple[int, int]]:
    """The candidate phrases of a run of words, as ``run[i:j]`` bounds: 1-5 words, content words at both
    ends, at most one connective."""
    connective = [w.lower() in _CONNECTIVES for w in run]
    for i in range(len(run)):
        if connective[i]:
            continue
        n_connectives = 0  # in run[i:j]
        for j in range(i + 1, min(len(run), i + _MAX_WORDS) + 1):
            n_connectives += connective[j - 1]
            if connective[j - 1]:
                continue
            if n_connectives > 1:
                break
            yield i, j


def _key(words: Sequence[str]) -> tuple[str, ...]:
    return tuple(s for w in words for s in _word_key(w))


@lru_cache(maxsize=200_000)
def _word_key(word: str) -> tuple[str, ...]:
    return tuple(stem(p) for p in word.lower().split("-") if p)


@lru_cache(maxsize=50_000)  # ~2 kB a title
def _title_forms(title: str) -> tuple[tuple[tuple[str, ...], str], ...]:
    """(key, written form) of each candidate phrase of a title, once per distinct phrase (surface words):
    computed once per title, though a tree names every title at each of its levels."""
    forms: dict[tuple[str, ...], tuple[tuple[str, ...], str]] = {}
    for run in _runs(title):
        keys = [_word_key(w) for w in run]  # each word's once, for all its phrases
        shown = [display_word(w) for w in run]
        for i, j in _spans(run):
            words = tuple(run[i:j])
            if words not in forms:
                forms[words] = (tuple(chain.from_iterable(keys[i:j])), " ".join(shown[i:j]))
    return tuple(forms.values())


@lru_cache(maxsize=200_000)
def _keyword_form(keyword: str) -> tuple[tuple[str, ...], str] | None:
    words = [w for w in marked_tokens(keyword) if w[0].isalnum()]
    return (_key(words), display(words)) if words else None


def candidates(titles: Sequence[str], keywords: Sequence[str] = ()) -> dict[tuple[str, ...], str]:
    """key -> the most frequent written form, over the child's titles and keywords, by title frequency."""
    counts: Counter = Counter()  # (key, written form) -> titles and keywords
    totals: Counter = Counter()  # key -> titles and keywords, in any form
    for title in titles:
        counts.update(title_forms := _title_forms(title))
        totals.update(map(_first, title_forms))
    keyword_forms = [form for form in map(_keyword_form, keywords) if form is not None]
    counts.update(keyword_forms)
    totals.update(map(_first, keyword_forms))
    forms: defaultdict[tuple[str, ...], dict[str, int]] = defaultdict(dict)
    for (key, shown), n in counts.items():
        if totals[key] >= 2:  # most phrases are said once: no forms to compare
            forms[key][shown] = n
    return {k: max(c.items(), key=lambda kv: (kv[1], -len(kv[0]), kv[0]))[0] for k, c in forms.items()}


def phrase_counts(texts: Sequence[str]) -> dict[tuple[str, ...], tuple[int, str]]:
    """key -> (how many of ``texts`` hold the phrase with its words in a row, in any form; its most frequent
    written form), for phrases at least two texts hold. For long texts (abstracts): nothing is cached."""
    counts: Counter = Counter()
    shown: defaultdict[tuple[str, ...], Counter] = defaultdict(Counter)
    for text in texts:
        forms = _title_forms.__wrapped__(text)
        counts.update({key for key, _ in forms})
        for key, form in forms:
            shown[key][form] += 1
    return {
        k: (n, min(shown[k].items(), key=lambda kv: (-kv[1], len(kv[0]), kv[0]))[0])
        for k, n in counts.items()
        if n >= 2
    }


class TitleStems:
    """One child's titles as an index stem -> the titles holding it (``quick_share`` intersects a few sets
    instead of testing every title for every candidate)."""

    def __init__(self, titles: Sequence[str]) -> None:
        self.n = len(titles)
        self.postings: dict[str, set[int]] = {}
        for i, title in enumerate(titles):
            for s in _title_stems(title):
                self.postings.setdefault(s, set()).add(i)


@lru_cache(maxsize=200_000)
def _wanted(key: tuple[str, ...]) -> tuple[frozenset[str], str | None]:
    """The stems a title must hold to say ``key`` (connectives aside), or the acronym of its words."""
    want = frozenset(key) - _CONNECTIVE_STEMS
    alt = stem(initials(["".join(k) for k in key if k not in _CONNECTIVE_STEMS])) if len(want) >= 2 else None
    return want, alt


def needed_stems(key: tuple[str, ...]) -> tuple[frozenset[str], str | None]:
    """The stems a title must all hold for ``quick_share`` to count it (connectives aside), and the acronym
    stem that counts it alone (None for a one-stem key)."""
    return _wanted(key)


def quick_share(key: tuple[str, ...], titles: TitleStems) -> float:
    """Share of titles holding every stem of ``key`` (or its initials as one acronym): a first pass."""
    if not titles.n:
        return 0.0
    want, alt = _wanted(key)
    if not want:
        return 1.0  # no stem to hold: every title holds them all
    held = [titles.postings.get(s) for s in want]
    found = set.intersection(*held) if all(held) else set()  # (no posting is empty)
    if alt is not None and alt in titles.postings:
        found |= titles.postings[alt]
    return len(found) / titles.n


_CONNECTIVE_STEMS = frozenset(stem(c) for c in _CONNECTIVES)


@lru_cache(maxsize=50_000)
def _title_stems(title: str) -> frozenset[str]:
    return frozenset(stem(p) for w in marked_tokens(title.lower()) if w[0].isalnum() for p in w.split("-") if p)

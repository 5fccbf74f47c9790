"""Names that say what a node's papers are about and tell siblings apart, offline (issues 39 and 49).

Candidates are the phrases of the children's titles (runs of words between punctuation and stop words,
one connective such as "from" allowed: "reinforcement learning from human feedback") and their author
keywords. Representative first, distinctive second: a phrase is scored by the share of the child's papers
carrying it (in their titles or author keywords) less half the largest share among its siblings' papers,
while that is at most half the child's (``MAX_SIBLING_RATIO``: the phrase is *distinct*), and less one and
a half times the excess beyond (``_score``), so the phrase most of the node's papers carry wins, not the
one with the widest margin over a sibling (a margin is thin and moves when papers are resampled; a phrase
most papers carry is robust). With the siblings as the classes, as Toponymy names a layer
"collectively" (``evaluate.name_rules.title_share``: any word form; an acronym for its words; the
parent's own words never count, so a child of "Reinforcement learning" is not named "reinforcement
learning ..." for them, though it may keep them around a word of its own: "offline reinforcement
learning"). A phrase with any defect of ``evaluate.names.name_defects`` (fragment, verb start, noun pile,
parent echo, generic name, ...) is skipped; when the best phrase is carried by fewer than half the
child's papers, a second phrase carried by a fifth of them is joined with "and" if the two together are
carried by a tenth more; no two siblings, nor any name in ``taken`` (the rest of the level), share a
``naming.name_key`` or a leading part.

    >>> names = sibling_names("Large language models", {
    ...     "a": ["Jailbreaking LLMs with simple adaptive attacks", "Universal jailbreak backdoors in LLMs"],
    ...     "b": ["Provable robust watermarking for AI-generated text", "Unremovable watermarks for LLMs"],
    ... })
    >>> sorted(names.values())
    ['jailbreak', 'watermarks']
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from operator import itemgetter

from icml_topics.evaluate.name_rules import IndexedTitles, claim_sets, title_share
from icml_topics.evaluate.name_words import load_word_roles
from icml_topics.evaluate.names import MAX_NAME_CHARS, name_defects, name_parts
from icml_topics.stages.long_forms import display, display_word, long_form
from icml_topics.stages.naming import name_key
from icml_topics.text import acronym_letters, initials, marked_tokens, stem, stop_words

__all__ = ["ChildPapers", "sibling_names"]

_CONNECTIVES = frozenset("of from".split())
_first = itemgetter(0)
_MAX_WORDS = 5
_SHORTLIST = 30  # candidates per child scored in full
_PRESELECT = 120  # candidates per child (those its own papers carry most) compared with its siblings'
_JOIN_GAIN = 0.1  # a second phrase must make the name carried by this much more of the child's papers
_JOIN_OWN = 0.2  # ... and be carried by this share of them itself
_GENERIC_RANK = 10.0  # a bare generic word's score is lowered by this: chosen only when nothing else is
#: a name is distinct when no sibling's papers carry it more than this ratio of the child's share
MAX_SIBLING_RATIO = 0.5


@dataclass(frozen=True)
class ChildPapers:
    """One child's papers.

    Args:
        titles: their titles (a child is named from these).
        texts: their cleaned texts (optional: where a name's acronym is written out, "(RLVR)" after its words,
            the name gets the long form; names are chosen from titles and keywords).
        keywords: their authors' keywords (optional: candidate names too).
    """

    titles: Sequence[str]
    texts: Sequence[str] = ()
    keywords: Sequence[str] = ()


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


def _candidates(child: ChildPapers) -> dict[tuple[str, ...], str]:
    """key -> the most frequent written form, over the child's titles and keywords, by title frequency."""
    counts: Counter = Counter()  # (key, written form) -> titles and keywords
    totals: Counter = Counter()  # key -> titles and keywords, in any form
    for title in child.titles:
        counts.update(title_forms := _title_forms(title))
        totals.update(map(_first, title_forms))
    keyword_forms = [form for form in map(_keyword_form, child.keywords) if form is not None]
    counts.update(keyword_forms)
    totals.update(map(_first, keyword_forms))
    forms: defaultdict[tuple[str, ...], dict[str, int]] = defaultdict(dict)
    for (key, shown), n in counts.items():
        if totals[key] >= 2:  # most phrases are said once: no forms to compare
            forms[key][shown] = n
    return {k: max(c.items(), key=lambda kv: (kv[1], -len(kv[0]), kv[0]))[0] for k, c in forms.items()}


class _TitleStems:
    """One child's titles as an index stem -> the titles holding it (``_quick_share`` intersects a few sets
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


def _quick_share(key: tuple[str, ...], titles: _TitleStems) -> float:
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


class _Siblings:
    """The children of one ``sibling_names`` call and what their rankings share: each child's title index,
    each candidate key's quick share and each name's title share in each child (a phrase is a candidate of
    several children: its shares are computed once)."""

    def __init__(self, children: Mapping[Hashable, ChildPapers], parent: str, max_chars: int) -> None:
        self.children, self.parent, self.max_chars = children, parent, max_chars
        self.stems = {k: _TitleStems(c.titles) for k, c in children.items()}
        self._quick: dict[tuple[str, ...], dict[Hashable, float]] = {}
        self._shares: dict[tuple[str, Hashable], float] = {}

    def quick(self, key: tuple[str, ...], me: Hashable) -> float:
        """``key``'s quick score: as ``_scored``, on the stems of the titles."""
        shares = self._quick.get(key)
        if shares is None:
            shares = self._quick[key] = {k: _quick_share(key, s) for k, s in self.stems.items()}
        return _score(shares[me], max((s for k, s in shares.items() if k != me), default=0.0))

    def share(self, name: str, child: Hashable) -> float:
        """``title_share`` of ``name`` in the child's titles."""
        found = self._shares.get((name, child))
        if found is None:
            found = self._shares[name, child] = title_share(name, self.children[child].titles, self.parent)
        return found


def _score(own: float, other: float) -> float:
    """Representative first, distinctive second: my share less half the largest sibling share while that is
    at most half mine (``MAX_SIBLING_RATIO``: the name is *distinct*); beyond, each point a sibling carries
    costs one and a half, so a name my siblings carry as often as my papers scores 0."""
    return own - max(MAX_SIBLING_RATIO * other, 1.5 * other - 0.5 * own)


def _scored(name: str, me: Hashable, sib: _Siblings) -> float:
    """``_score`` of the share of my papers carrying ``name`` and the largest share among my siblings'."""
    own = sib.share(name, me)
    return _score(own, max((sib.share(name, k) for k in sib.children if k != me), default=0.0))


def _ranked(me: Hashable, sib: _Siblings) -> list[tuple[float, str]]:
    """My candidate names, best first, each with its score; defective ones left out. Only the candidates my
    own papers carry most are compared with my siblings' (``_PRESELECT``): the cost per child is bounded by
    that number times the number of siblings, not by every phrase of its papers."""
    parent = sib.parent
    own = [
        (_quick_share(key, sib.stems[me]), len(key), key, text) for key, text in _candidates(sib.children[me]).items()
    ]
    own.sort(key=lambda q: (-q[0], -q[1], q[3]))
    quick = [(sib.quick(key, me), n, text) for share, n, key, text in own[:_PRESELECT] if share > 0]
    quick.sort(key=lambda q: (-q[0], -q[1], q[2]))
    scored = []
    for _, _, text in quick:
        if len(text) > sib.max_chars or _vague(text):
            continue
        claimed = claim_sets(text, parent)
        defects = _defects(text, parent) if claimed else ("none",)
        if defects and defects != ("generic name",):
            continue
        # a little for each word (up to 3), and for the share carrying the whole name, the parent's words too
        # ("preference-based reinforcement learning" over "preference-based RL" where titles write it out)
        whole = title_share(text, sib.children[me].titles)
        score = _scored(text, me, sib) + 0.01 * min(len(claimed[0]), 3) + 0.05 * whole
        if defects:  # a bare generic word: the last resort, before the keyphrase name
            if score <= 0:
                continue
            score -= _GENERIC_RANK
        scored.append((score, text))
        if len(scored) >= _SHORTLIST:
            break
    scored.sort(key=lambda s: (-round(s[0], 6), len(s[1]), s[1]))
    return scored


@lru_cache(maxsize=200_000)
def _defects(name: str, parent: str) -> tuple[str, ...]:
    """``name``'s defects under ``parent`` (cached: siblings rank many of the same phrases)."""
    return tuple(name_defects(name, parent=parent))


def _defective(name: str, parent: str) -> bool:
    return bool(_defects(name, parent))


def _joined(me: Hashable, sib: _Siblings, ranked: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """The best name, and "A and B" where A alone is carried by fewer than half my papers and B, a second
    subject of mine (carried by ``_JOIN_OWN`` of them), makes the name carried by ``_JOIN_GAIN`` more."""
    if not ranked:
        return []
    parent = sib.parent
    best_score, best = ranked[0]
    out = list(ranked)
    if best_score <= 0 or sib.share(best, me) >= 0.5:
        return out  # one phrase covers the node, or none sets it apart
    best_stems = set().union(*claim_sets(best, parent))
    for other_score, other in ranked[1:12]:
        if other_score < -_GENERIC_RANK / 2:  # a bare generic word may say what else the node is about
            other_score += _GENERIC_RANK  # ("watermark and diffusion models"), though not name it alone
        if other_score <= 0 or _overlap(set().union(*claim_sets(other, parent)), best_stems):
            continue
        if sib.share(other, me) < _JOIN_OWN:
            continue  # a second subject of the node, not a phrase of two of its papers
        name = f"{best} and {other}"
        if len(name) > sib.max_chars or _defective(name, parent):
            continue
        score = _scored(name, me, sib) + 0.02
        if score > 0 and sib.share(name, me) >= sib.share(best, me) + _JOIN_GAIN:
            out.insert(0, (score, name))
            break
    return out


def _eligible(score: float) -> bool:
    """A name my papers carry more than my siblings' do, or such a bare generic word (ranked below all)."""
    return score > 0 or -_GENERIC_RANK < score < -_GENERIC_RANK / 2


def _vague(text: str) -> bool:
    """A one-word name whose word mostly modifies another ("matrix", "time", "diffusion")."""
    words = text.split()
    return len(words) == 1 and load_word_roles().get(words[0].lower(), ("",))[0] == "modifier"


def _overlap(a: set[str], b: set[str]) -> bool:
    """Two phrases share a word, or two words begin alike ("fairness" and "fair", "recommendation" and
    "recommender")."""
    return any(len(os.path.commonprefix([x, y])) >= min(5, len(x), len(y)) for x in a for y in b)


def sibling_names(
    parent: str,
    children: Mapping[Hashable, ChildPapers | Sequence[str]],
    *,
    taken: Sequence[str] = (),
    fallback: Mapping[Hashable, str] | None = None,
    max_chars: int = MAX_NAME_CHARS,
) -> dict[Hashable, str]:
    """One name per child of ``parent`` that says what sets the child apart from its siblings.
    Deterministic: the same input gives the same names.

    Args:
        parent: the parent's name ("" at the root).
        children: child -> its ``ChildPapers`` (or just its titles).
        taken: names already given in the level, not to be repeated.
        fallback: child -> the name a child with no phrase of its own (no candidate said more by its papers
            than by a sibling's) keeps, told apart by its id if needed ("..., part 7").
        max_chars: the longest name.

    Examples:
        >>> sibling_names("", {1: ["Offline RL with value bounds", "Offline RL from logs"],
        ...                    2: ["Graph neural networks for molecules", "Graph neural networks at scale"]})
        {1: 'offline RL', 2: 'graph neural networks'}
    """
    papers = {
        k: ChildPapers(IndexedTitles(v.titles), v.texts, v.keywords)
        if isinstance(v, ChildPapers)
        else ChildPapers(IndexedTitles(list(v)))
        for k, v in children.items()
    }
    if not papers:
        return {}
    sib = _Siblings(papers, parent, max_chars)  # once, for every child's ranking
    options = {k: _joined(k, sib, _ranked(k, sib)) for k in papers}
    used: set = set()
    for name in taken:
        used |= _keys(name)
    names: dict[Hashable, str] = {}
    # the child with the clearest name chooses first; ties by id order, for determinism
    order = sorted(papers, key=lambda k: (-(options[k][0][0] if options[k] else -1.0), str(k)))
    for child in order:
        choice = next((name for score, name in options[child] if _eligible(score) and not _keys(name) & used), "")
        if not choice:
            base = (fallback or {}).get(child) or parent or "papers"
            choice = base if not _keys(base) & used else f"{base}, part {child}"
        used |= _keys(choice)
        names[child] = _with_long_forms(choice, papers[child].texts, max_chars) if choice != parent else choice
    return {k: names[k] for k in papers}


def _with_long_forms(name: str, texts: Sequence[str], max_chars: int) -> str:
    """``name`` with each acronym the node's papers define written out before it, "(RLVR)" kept, where the
    name stays within ``max_chars``."""
    out = []
    for word in name.split(" "):
        letters = acronym_letters(word) if sum(c.isupper() for c in word) >= 2 else None
        long = long_form(word, texts) if letters else ""
        out.append(f"{long} ({word})" if long and long.lower() != word.lower() else word)
    expanded = " ".join(out)
    return expanded if len(expanded) <= max_chars and not _defective(expanded, "") else name


@lru_cache(maxsize=200_000)
def _keys(name: str) -> frozenset:
    """What no other name in the level may share: the whole name's key and its leading part's (cached: each
    call tests the level's names given so far)."""
    parts = name_parts(name)
    return frozenset({("name", name_key(name)), ("lead", name_key(parts[0]) if parts else name)})

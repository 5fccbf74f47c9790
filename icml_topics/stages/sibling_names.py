"""Names that tell siblings apart: each child of a tree node is named by what its own papers say and its
siblings' papers do not, offline (issue 39, item 3).

Candidates are the phrases of the children's titles (runs of words between punctuation and stop words,
one connective such as "from" allowed: "reinforcement learning from human feedback") and their author
keywords. Each is scored contrastively, with the siblings as the classes (as Toponymy names a layer
"collectively"): the share of the child's titles that say it minus the largest share among its
siblings' titles (``evaluate.name_rules.title_share``: any word form; an acronym for its words; the
parent's own words never count, so a child of "Reinforcement learning" is not named "reinforcement
learning ..." for them, though it may keep them around a word of its own: "offline reinforcement
learning"). A phrase with any defect of ``evaluate.names.name_defects`` (fragment, verb start, noun pile,
parent echo, ...) is skipped; a second phrase is joined with "and" when it says what the first misses
in the child's papers; no two siblings, nor any name in ``taken`` (the rest of the level), share a
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
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from icml_topics.evaluate.name_rules import IndexedTitles, claims, title_share
from icml_topics.evaluate.name_words import load_word_roles
from icml_topics.evaluate.names import MAX_NAME_CHARS, name_defects, name_parts
from icml_topics.stages.naming import name_key
from icml_topics.text import acronym_letters, initials, marked_tokens, stem, stop_words

__all__ = ["ChildPapers", "sibling_names"]

_CONNECTIVES = frozenset("of from".split())
_MAX_WORDS = 5
_SHORTLIST = 30  # candidates per child scored in full
_JOIN_GAIN = 0.1  # a second phrase must add this much to the contrast to be joined
_JOIN_OWN = 0.15  # ... and be said by this share of the child's own titles


@dataclass(frozen=True)
class ChildPapers:
    """One child's papers.

    Args:
        titles: their titles (a child is named from these).
        texts: their cleaned texts (optional: a quarter of the contrast when given).
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


def _phrases(title: str) -> set[tuple[str, ...]]:
    """The candidate phrases of one title (surface words): 1-5 words, content words at both ends, at
    most one connective."""
    out = set()
    for run in _runs(title):
        for i in range(len(run)):
            if run[i].lower() in _CONNECTIVES:
                continue
            for j in range(i + 1, min(len(run), i + _MAX_WORDS) + 1):
                words = run[i:j]
                if words[-1].lower() in _CONNECTIVES:
                    continue
                if sum(w.lower() in _CONNECTIVES for w in words) > 1:
                    break
                out.add(tuple(words))
    return out


def _key(words: Sequence[str]) -> tuple[str, ...]:
    return tuple(stem(p) for w in words for p in w.lower().split("-") if p)


def _display(words: Sequence[str]) -> str:
    """Lower case, but acronyms as written ("KV cache compression", "LLMs")."""
    out = []
    for w in words:
        pieces = w.split("-")
        shown = [p if sum(c.isupper() for c in p) >= 2 and acronym_letters(p) else p.lower() for p in pieces]
        out.append("-".join(shown))
    return " ".join(out)


def _candidates(child: ChildPapers) -> dict[tuple[str, ...], str]:
    """key -> the most frequent written form, over the child's titles and keywords, by title frequency."""
    forms: defaultdict[tuple[str, ...], Counter] = defaultdict(Counter)
    for title in child.titles:
        for words in _phrases(title):
            forms[_key(words)][_display(words)] += 1
    for keyword in child.keywords:
        words = [w for w in marked_tokens(keyword) if w[0].isalnum()]
        if words:
            forms[_key(words)][_display(words)] += 1
    return {
        k: max(c.items(), key=lambda kv: (kv[1], -len(kv[0]), kv[0]))[0]
        for k, c in forms.items()
        if sum(c.values()) >= 2
    }


def _quick_share(key: tuple[str, ...], titles_keys: Sequence[frozenset[str]]) -> float:
    """Share of titles holding every stem of ``key`` (or its initials as one acronym): a first pass."""
    want = set(key) - _CONNECTIVE_STEMS
    alt = stem(initials(["".join(k) for k in key if k not in _CONNECTIVE_STEMS])) if len(want) >= 2 else None
    if not titles_keys:
        return 0.0
    return sum(want <= t or (alt is not None and alt in t) for t in titles_keys) / len(titles_keys)


_CONNECTIVE_STEMS = frozenset(stem(c) for c in _CONNECTIVES)


def _title_stems(title: str) -> frozenset[str]:
    return frozenset(stem(p) for w in marked_tokens(title.lower()) if w[0].isalnum() for p in w.split("-") if p)


def _contrast(name: str, me: Hashable, children: Mapping[Hashable, ChildPapers], parent: str) -> float:
    """Share of my titles saying ``name`` minus the largest share among my siblings' (texts count a
    quarter, when given)."""
    own = title_share(name, children[me].titles, parent)
    sib = max((title_share(name, c.titles, parent) for k, c in children.items() if k != me), default=0.0)
    score = own - sib
    if children[me].texts:
        own_t = title_share(name, children[me].texts, parent)
        sib_t = max(
            (title_share(name, c.texts, parent) for k, c in children.items() if k != me and c.texts), default=0.0
        )
        score += 0.25 * (own_t - sib_t)
    return score


def _ranked(
    me: Hashable,
    children: Mapping[Hashable, ChildPapers],
    stems: Mapping[Hashable, list],
    parent: str,
    max_chars: int,
) -> list[tuple[float, str]]:
    """My candidate names, best first, each with its contrast; defective ones left out (``stems``: each
    child's title stems)."""
    cands = _candidates(children[me])
    quick = []
    for key, text in cands.items():
        own = _quick_share(key, stems[me])
        sib = max((_quick_share(key, s) for k, s in stems.items() if k != me), default=0.0)
        quick.append((own - sib, len(key), text))
    quick.sort(key=lambda q: (-q[0], -q[1], q[2]))
    scored = []
    for _, _, text in quick[: _SHORTLIST * 2]:
        if len(text) > max_chars or _vague(text):
            continue
        claimed = claims(text, parent)
        if not claimed or name_defects(text, parent=parent):
            continue
        score = _contrast(text, me, children, parent) + 0.02 * min(len(claimed[0]), 3)
        scored.append((score, text))
        if len(scored) >= _SHORTLIST:
            break
    scored.sort(key=lambda s: (-round(s[0], 6), len(s[1]), s[1]))
    return scored


def _joined(me, children, parent, ranked, max_chars) -> list[tuple[float, str]]:
    """The best name, and "A and B" where B says what A leaves out in my papers better than A alone."""
    if not ranked:
        return []
    best_score, best = ranked[0]
    out = list(ranked)
    best_stems = set().union(*claims(best, parent))
    for other_score, other in ranked[1:6]:
        if _overlap(set().union(*claims(other, parent)), best_stems) or other_score < _JOIN_GAIN:
            continue
        if title_share(other, children[me].titles, parent) < _JOIN_OWN:
            continue  # a second subject of the node, not a phrase of two of its papers
        name = f"{best} and {other}"
        if len(name) > max_chars or name_defects(name, parent=parent):
            continue
        score = _contrast(name, me, children, parent) + 0.02
        if score >= best_score + _JOIN_GAIN:
            out.insert(0, (score, name))
            break
    return out


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
    stems = {k: [_title_stems(t) for t in c.titles] for k, c in papers.items()}  # once, for every child's ranking
    options = {k: _joined(k, papers, parent, _ranked(k, papers, stems, parent, max_chars), max_chars) for k in papers}
    used: set = set()
    for name in taken:
        used |= _keys(name)
    names: dict[Hashable, str] = {}
    # the child with the clearest name chooses first; ties by id order, for determinism
    order = sorted(papers, key=lambda k: (-(options[k][0][0] if options[k] else -1.0), str(k)))
    for child in order:
        choice = next((name for score, name in options[child] if score > 0 and not _keys(name) & used), "")
        if not choice:
            base = (fallback or {}).get(child) or parent or "papers"
            choice = base if not _keys(base) & used else f"{base}, part {child}"
        used |= _keys(choice)
        names[child] = choice
    return {k: names[k] for k in papers}


def _keys(name: str) -> set:
    """What no other name in the level may share: the whole name's key and its leading part's."""
    parts = name_parts(name)
    return {("name", name_key(name)), ("lead", name_key(parts[0]) if parts else name)}

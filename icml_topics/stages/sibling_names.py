"""Names that say what a node's papers are about and tell siblings apart, offline (issues 39 and 49).

Candidates are the phrases of the children's titles and their author keywords (``stages/name_phrases.py``).
Representative first, distinctive second: a phrase the child's papers carry (in their titles or author
keywords) more often than any sibling's do (``_score`` above 0; each sibling's share counted with
``sibling_shares.SIBLING_PRIOR`` papers at the siblings' pooled rate: a tiny sibling's share is mostly chance)
is ranked by the share of the child's papers carrying it alone (``_representative``, session 8: until then by
that share less half the largest sibling share, so a sibling gaining or losing papers reordered the child's
phrases), so the phrase most of the node's papers carry wins, not the one with the widest margin over a
sibling (a margin is thin and moves when papers are resampled; a phrase most papers carry is robust). With the
siblings as the classes, as Toponymy names a layer "collectively" (``evaluate.name_rules.title_share``: any
word form; an acronym for its words; the parent's own words never count, so a child of "Reinforcement
learning" is not named "reinforcement learning ..." for them, though it may keep them around a word of its
own: "offline reinforcement learning"). A phrase with any defect of ``evaluate.names.name_defects`` (fragment,
verb start, noun pile, parent echo, ...) is skipped, and so is a phrase fewer than ``MIN_OWN`` (a tenth) of
the child's papers carry (a word chosen for contrast that few of its papers use is not a name) unless the
child's keyphrase name (``fallback``) only repeats the parent's subject; a bare generic word is the last
resort, taken only when no other phrase scores above zero. A phrase is as specific as its papers: the longest
phrase holding its words and more that the child's papers carry nearly as often
(``evaluate.name_papers.SPECIFIC_RATIO``, 0.7 of the papers carrying it) takes its place ("KV cache" for
"cache", "speculative decoding" for "decoding"). When the best phrase is carried by fewer than half the
child's papers, a second phrase carried by a fifth of them is joined with "and" only if the two together are
carried by a fifth more (a join decided by a thin gain flips when papers are resampled); no two children, nor
any name in ``taken`` (the rest of the level), share a ``naming.name_key`` or a leading part. ``group_names``
names several sibling groups of one level at once, in one order over the level (the child with the clearest
name chooses first: ``_clearness``), so a child's name does not hang on the order of the groups.

    >>> names = sibling_names("Large language models", {
    ...     "a": ["Jailbreaking LLMs with simple adaptive attacks", "Universal jailbreak backdoors in LLMs"],
    ...     "b": ["Provable robust watermarking for AI-generated text", "Unremovable watermarks for LLMs"],
    ... })
    >>> sorted(names.values())
    ['jailbreak', 'watermarks']
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Mapping, Sequence
from functools import lru_cache

from icml_topics.evaluate.name_papers import SPECIFIC_RATIO, generic_name
from icml_topics.evaluate.name_rules import IndexedTitles, claim_sets
from icml_topics.evaluate.name_words import load_word_roles
from icml_topics.evaluate.names import MAX_NAME_CHARS, name_defects, name_parts
from icml_topics.stages import sibling_shares
from icml_topics.stages.long_forms import long_form
from icml_topics.stages.name_phrases import candidates, quick_share
from icml_topics.stages.naming import name_key
from icml_topics.stages.sibling_shares import ChildPapers, SiblingShares
from icml_topics.text import acronym_letters, stem, stop_words, words

__all__ = ["ChildPapers", "group_names", "sibling_names"]

_SHORTLIST = 30  # candidates per child scored in full
_PRESELECT = 120  # candidates per child (those its own papers carry most) compared with its siblings'
_JOIN_GAIN = 0.2  # a second phrase must make the name carried by this much more of the child's papers
_JOIN_BELOW = 0.5  # a phrase carried by fewer than this share of the child's papers may be joined with a second
_JOIN_OWN = 0.2  # ... and be carried by this share of them itself
_GENERIC_RANK = 10.0  # a bare generic word's score is lowered by this: chosen only when nothing else is
_RARE_RANK = 100.0  # a phrase few of the child's papers carry: below the keyphrase name, unless that is generic
_SIBLING_COST = 0.5  # what each point of a sibling's share costs a distinct name (``_score``)
_GENERIC_SECOND = True  # a bare generic word may be a join's second part ("watermark and diffusion models")
#: a phrase fewer than this share of the child's papers carry never names it
MIN_OWN = 0.1
#: a name is distinct when no sibling's papers carry it more than this ratio of the child's share
MAX_SIBLING_RATIO = 0.5


def _score(own: float, other: float) -> float:
    """Representative first, distinctive second: my share less half (``_SIBLING_COST``) the largest sibling
    share while that is at most half mine (``MAX_SIBLING_RATIO``: the name is *distinct*); beyond, each point
    a sibling carries costs one and a half, so a name my siblings carry as often as my papers scores 0."""
    w = _SIBLING_COST
    return own - max(w * other, (2 - w) * other - (1 - w) * own)


def _scored(name: str, me: Hashable, sib: SiblingShares) -> float:
    """``_score`` of the share of my papers carrying ``name`` and the largest share among my siblings'
    (``SiblingShares.sibling_share``)."""
    return _score(sib.share(name, me), sib.sibling_share({k: sib.share(name, k) for k in sib.holders(name)}, me))


def _ranked(me: Hashable, sib: SiblingShares) -> list[tuple[float, str]]:
    """My candidate names, best first, each with its score; defective ones left out. Only the candidates my
    own papers carry most are compared with my siblings' (``_PRESELECT``): the cost per child is bounded by
    that number times the number of siblings, not by every phrase of its papers."""
    parent = sib.parent
    own = [
        (quick_share(key, sib.stems[me]), len(key), key, text)
        for key, text in candidates(sib.children[me].titles, sib.children[me].keywords).items()
    ]
    own.sort(key=lambda q: (-q[0], -q[1], q[3]))
    quick = [(_score(*sib.quick(key, me)), n, text) for share, n, key, text in own[:_PRESELECT] if share > 0]
    quick.sort(key=lambda q: (-q[0], -q[1], q[2]))
    scored = []
    for _, _, text in quick:
        if len(text) > sib.max_chars or _vague(text):
            continue
        claimed = claim_sets(text, parent)
        defects = _defects(text, parent) if claimed else ("none",)
        if defects and defects != ("generic name",):
            continue
        # a little for each word (up to 3), and for the share carrying the whole name, the parent's words and
        # words true of most papers too ("preference-based reinforcement learning" over "preference-based RL"
        # where titles write it out; "offline reinforcement learning" over "offline data")
        whole = _literal_share(text, sib.children[me].titles)
        score = _scored(text, me, sib) + 0.01 * min(len(claimed[0]), 3) + 0.05 * whole
        if sib.share(text, me) < MIN_OWN:  # a phrase few of my papers carry: not a name, however few of my
            if score > 0 and not defects:  # siblings' carry it, unless my keyphrase name only repeats the theme
                scored.append((score - _RARE_RANK, text))
            continue
        if defects:  # a bare generic word: the last resort, before the keyphrase name
            if score <= 0:
                continue
            score -= _GENERIC_RANK
        scored.append((score, text))
        if len(scored) >= _SHORTLIST:
            break
    scored = [(_representative(text, me, sib) if score > 0 else score, text) for score, text in scored]
    scored.sort(key=lambda s: (-round(s[0], 6), len(s[1]), s[1]))
    return _specific(me, sib, scored, [(share, text) for share, _, _, text in own])


def _representative(text: str, me: Hashable, sib: SiblingShares) -> float:
    """A phrase's rank once ``_score`` keeps it above 0 (my papers carry it more often than any sibling's):
    1 + the share of my papers carrying it. The siblings are the gate only: how far below mine their share is
    moves nothing, so a sibling that gains or loses papers does not reorder my phrases. (Ranking a phrase a
    sibling carries more than half as often after the others kept fewer names: ``names_tune.md``.)"""
    return 1.0 + sib.share(text, me)


def _specific(
    me: Hashable, sib: SiblingShares, scored: list[tuple[float, str]], own: list[tuple[float, str]]
) -> list[tuple[float, str]]:
    """``scored`` with each phrase replaced, at its rank, by the longest phrase of mine that holds its words
    and more and that my papers carry nearly as often (``SPECIFIC_RATIO`` of its carriers: "KV cache" for
    "cache", "speculative decoding" for "decoding"), still set apart from my siblings; ``own``: my candidates
    with their quick shares, the most carried first."""
    out: list[tuple[float, str]] = []
    seen: set[str] = set()
    for score, text in scored:
        if score > 0:
            text = _refined(text, me, sib, own)
        if text not in seen:
            seen.add(text)
            out.append((score, text))
    return out


def _refined(text: str, me: Hashable, sib: SiblingShares, own: list[tuple[float, str]]) -> str:
    parent = sib.parent
    claimed = claim_sets(text, parent)
    base = sib.share(text, me)
    if not claimed or base <= 0:
        return text
    words = claimed[0]
    best, best_rank = text, (len(words), base)
    for quick, other in own:
        if quick < 0.8 * SPECIFIC_RATIO * base:  # (quick shares run close to the full ones)
            break
        longer = claim_sets(other, parent)
        if not longer or not words < longer[0] or len(other) > sib.max_chars or _vague(other):
            continue
        share = sib.share(other, me)
        rank = (len(longer[0]), share)
        if share < SPECIFIC_RATIO * base or rank <= best_rank or _defective(other, parent):
            continue
        if _scored(other, me, sib) > 0:  # still set apart from my siblings
            best, best_rank = other, rank
    return best


def _literal_share(name: str, titles: IndexedTitles) -> float:
    """Share of ``titles`` holding every word of ``name`` as written (stop words aside)."""
    stems = _literal_stems(name)
    if not stems or not len(titles):
        return 0.0
    return len(set.intersection(*(titles.postings.get(s, set()) for s in stems))) / len(titles)


@lru_cache(maxsize=200_000)
def _literal_stems(name: str) -> frozenset[str]:
    stops = _stops()
    return frozenset(stem(w) for w in words(name) if w not in stops)


@lru_cache(maxsize=1)
def _stops() -> frozenset[str]:
    return frozenset(stop_words())


@lru_cache(maxsize=200_000)
def _defects(name: str, parent: str) -> tuple[str, ...]:
    """``name``'s defects under ``parent`` (cached: siblings rank many of the same phrases)."""
    return tuple(name_defects(name, parent=parent))


def _defective(name: str, parent: str) -> bool:
    return bool(_defects(name, parent))


def _joined(me: Hashable, sib: SiblingShares, ranked: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """The best name, and "A and B" where A alone is carried by fewer than half my papers and B, a second
    subject of mine (carried by ``_JOIN_OWN`` of them), makes the name carried by ``_JOIN_GAIN`` more."""
    if not ranked:
        return []
    parent = sib.parent
    best_score, best = ranked[0]
    out = list(ranked)
    if best_score <= 0 or sib.share(best, me) >= _JOIN_BELOW:
        return out  # one phrase covers the node, or none sets it apart
    best_stems = set().union(*claim_sets(best, parent))
    for other_score, other in ranked[1:12]:
        if other_score < -_GENERIC_RANK / 2 and _GENERIC_SECOND:  # a bare generic word may say what else the
            other_score += _GENERIC_RANK  # node is about ("watermark and diffusion models"), not name it alone
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
    """A one-word name whose word mostly modifies another ("matrix", "time", "diffusion"): a modifier or an
    adjunct (``evaluate.name_words``)."""
    words = text.split()
    return len(words) == 1 and load_word_roles().get(words[0].lower(), ("",))[0] in ("modifier", "adjunct")


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
    return group_names([(parent, children)], taken=taken, fallback=fallback, max_chars=max_chars)


def _indexed(children: Mapping[Hashable, ChildPapers | Sequence[str]]) -> dict[Hashable, ChildPapers]:
    return {
        k: ChildPapers(IndexedTitles(v.titles), v.texts, v.keywords)
        if isinstance(v, ChildPapers)
        else ChildPapers(IndexedTitles(list(v)))
        for k, v in children.items()
    }


def group_names(
    groups: Sequence[tuple[str, Mapping[Hashable, ChildPapers | Sequence[str]]]],
    *,
    taken: Sequence[str] = (),
    fallback: Mapping[Hashable, str] | None = None,
    max_chars: int = MAX_NAME_CHARS,
) -> dict[Hashable, str]:
    """``sibling_names`` of several sibling groups of one level at once (``groups``: (the words their names
    may not rest on, the children), child ids unique across groups): each group's children are ranked
    against their siblings, then the whole level chooses in one order, the child with the clearest name
    first, so that which name a child gets does not hang on the order of the groups.

    Args:
        groups: as above.
        taken: names already given, not to be repeated.
        fallback: as ``sibling_names``.
        max_chars: the longest name.
    """
    indexed = [(parent, _indexed(children)) for parent, children in groups]
    options: dict[Hashable, list[tuple[float, str]]] = {}
    papers: dict[Hashable, ChildPapers] = {}
    parent_of: dict[Hashable, str] = {}
    for parent, kids in indexed:
        if not kids:
            continue
        sib = SiblingShares(kids, parent, max_chars)  # once, for every child's ranking
        for k in kids:
            options[k], papers[k], parent_of[k] = _joined(k, sib, _ranked(k, sib)), kids[k], parent
    used: set = set()
    for name in taken:
        used |= _keys(name)
    names: dict[Hashable, str] = {}
    # the child with the clearest name chooses first; ties by id order, for determinism
    order = sorted(options, key=lambda k: (-_clearness(options[k], len(papers[k].titles)), str(k)))
    for child in order:
        choice = next((n for score, n in options[child] if _eligible(score) and not _keys(n) & used), "")
        parent = parent_of[child]
        if not choice:
            base = (fallback or {}).get(child) or parent or "papers"
            if generic_name(base, parent) or _defects(base, parent):  # it says only the theme again: a
                rare = (n for score, n in options[child] if score < -_RARE_RANK / 2 and not _keys(n) & used)
                base = next(rare, base)  # phrase of the node's own, however few of its papers carry it
            choice = base if not _keys(base) & used else f"{base}, part {child}"
        used |= _keys(choice)
        names[child] = _with_long_forms(choice, papers[child].texts, max_chars) if choice != parent else choice
    return {k: names[k] for _, kids in indexed for k in kids}


def _clearness(options: list[tuple[float, str]], n: int) -> float:
    """How clear a child's best name is, to order the level's choices: its score; a share ranks as if the
    child had ``SIBLING_PRIOR`` more papers not carrying it (two of a 3-paper child's titles are not clearer
    than six of a 10-paper child's: a paper more or less would turn the order over)."""
    if not options:
        return -1.0
    score = options[0][0]
    if score > 1.0:  # 1 + a share (``_representative``); a join's score is below 1: it chooses after
        return 1.0 + (score - 1.0) * n / (n + sibling_shares.SIBLING_PRIOR)
    return score


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

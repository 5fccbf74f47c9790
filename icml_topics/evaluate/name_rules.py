"""The rules behind ``name_defects``' newer defects: how a name reads on its own (a fragment, a clause, a
pile of nouns) and what it claims about a node's papers (the words its titles must hold).

Word roles come from ``name_words`` (measured on ICML abstracts); word forms from ``text.stem``, so
"jailbreak", "jailbreaks" and "jailbreaking" are one word, and an acronym in a title ("RLHF") stands
for the words it abbreviates ("reinforcement learning from human feedback").

    >>> fragment("deep reinforcement"), fragment("imitation and inverse reinforcement learning")
    (True, False)
    >>> claims("offline reinforcement learning", parent="reinforcement learning (RL)")
    [frozenset({'offlin'}), frozenset({'orl'})]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from icml_topics.evaluate.name_words import load_word_roles
from icml_topics.text import NOT_ACRONYMS, acronym_letters, initials, phrase_tokens, stem, stop_words, words

__all__ = [
    "GENERIC_STEMS",
    "claim_sets",
    "claims",
    "fragment",
    "held_stems",
    "noun_pile",
    "parent_echo",
    "parent_stems",
    "split_parts",
    "title_share",
    "verb_start",
]

#: word stems true of most ML papers: a name's claim never rests on them alone
GENERIC_STEMS = frozenset(
    stem(w)
    for w in "learning model models network networks neural deep method methods algorithm algorithms data approach "
    "training framework problem problems system systems task tasks machine analysis".split()
)
_PARENS = re.compile(r"\(([^)]*)\)")
_SPLIT = re.compile(r"\s+(?:and|&)\s+|[,:;]\s*")


#: derivational endings a title may use for a name's word (or the name for a title's): the stems they end are
#: read as the stem left ("fairness" says what "fair" says, "causality" "causal", "interpretability"
#: "interpretable"), ``text.stem`` keeping them apart
_DERIVED = (("abilit", "abl"), ("ibilit", "ibl"), ("alit", "al"), ("ivit", "iv"), ("ness", ""))


@lru_cache(maxsize=200_000)
def _word(word: str) -> str:
    """``text.stem`` of ``word``, a derivational ending of ``_DERIVED`` read as its base (``_DERIVED``).

    >>> _word("fairness") == _word("fair"), _word("causality") == _word("causal"), _word("limit")
    (True, True, 'limit')
    """
    s = stem(word)
    for end, base in _DERIVED:
        if s.endswith(end) and len(s) - len(end) >= 4:
            return s[: -len(end)] + base
    return s


def split_parts(name: str) -> list[str]:
    """The phrases a name joins with ``and`` / ``&`` / ``,`` / ``:`` / ``;`` (parentheses kept in their part)."""
    return [p.strip() for p in _SPLIT.split(name) if p.strip()]


def _content_tokens(part: str) -> list[str]:
    """The part's words outside parentheses, stop words left out (hyphenated words kept whole)."""
    stops = _stops()
    return [t for t in phrase_tokens(_PARENS.sub(" ", part)) if t not in stops]


@lru_cache(maxsize=1)
def _stops() -> frozenset[str]:
    return frozenset(stop_words()) | NOT_ACRONYMS


def _stems(tokens: Sequence[str]) -> set[str]:
    """Stems of the words, hyphenated words split, stop-word pieces left out ("in-context" -> "context")."""
    stops = _stops()
    return {_word(piece) for tok in tokens for piece in tok.split("-") if piece and piece not in stops}


def _gerund_of_verb(token: str, roles: dict) -> bool:
    """``token`` is the -ing form of a listed finite verb ("evaluating": "evaluates")."""
    if not token.endswith("ing") or len(token) < 6:
        return False
    base = token[:-3]
    return any(roles.get(base + end, ("",))[0] == "verb" for end in ("es", "s"))


def fragment(name: str) -> bool:
    """True when a part ends on a bound word ("deep reinforcement", "reinforcement learning human"), the last
    part on a modifier ("sparse", "training-free": the noun it modifies is missing), or a part is a lone verb
    form ("... and evaluating"); a part before "and" may end on a bound word when a later part holds the word
    it binds to, or on a modifier ("imitation and inverse reinforcement learning": imitation [learning]).

        >>> fragment("sparse feature and evaluating"), fragment("training-free"), fragment("sparse autoencoders")
        (True, True, False)
    """
    roles = load_word_roles()
    parts = split_parts(name)
    for i, part in enumerate(parts):
        tokens = phrase_tokens(_PARENS.sub(" ", part))
        if not tokens:
            continue
        last = tokens[-1].split("-")[-1]
        if len(tokens) == 1 and _gerund_of_verb(last, roles):
            return True
        if roles.get(last, ("",))[0] == "modifier" and i == len(parts) - 1 and last not in _theme_heads():
            return True  # earlier: "imitation and inverse RL"; a theme's head word is a noun ("speech", "audio")
        role, binds_to = roles.get(tokens[-1], ("", ""))
        if role != "bound":
            continue
        later = {t for p in parts[i + 1 :] for t in phrase_tokens(p)}
        if i == len(parts) - 1 or not binds_to or binds_to not in later:
            return True
    return False


@lru_cache(maxsize=1)
def _theme_heads() -> frozenset[str]:
    """The last word of each phrase of a research theme's name ("Speech & audio" -> "speech", "audio"): nouns,
    though text writes some of them mostly before another noun ("speech recognition"), with no plural to tell
    them from an adjective (``name_words``: they stay *modifiers*); a word with an adjective's ending is left out
    (the "federated" of "Federated & distributed learning" modifies the elided "learning")."""
    from icml_topics.themes.taxonomy import load_taxonomy  # lazy: the taxonomy is read once, when needed

    heads = set()
    for theme in load_taxonomy().themes:
        for part in re.split(r"\s+(?:and|&)\s+|[,:;()]\s*", theme.name):
            tokens = phrase_tokens(part)
            if tokens and not tokens[-1].endswith(_ADJECTIVE_ENDS):  # "Federated & distributed learning": elided
                heads.add(tokens[-1])
    return frozenset(heads)


_ADJECTIVE_ENDS = ("al", "ive", "ic", "ed", "ous", "able", "ible", "ar")


def verb_start(name: str) -> bool:
    """True when a part starts with a finite verb or a sentence adverb ("learns policies")."""
    roles = load_word_roles()
    return any((toks := phrase_tokens(p)) and roles.get(toks[0], ("",))[0] == "verb" for p in split_parts(name))


def noun_pile(name: str) -> bool:
    """True when a plural head noun is followed straight by another content word, two phrases glued
    without their connective ("policies reinforcement learning", from "policies for reinforcement
    learning"). Parenthesised acronyms do not count."""
    roles, stops = load_word_roles(), _stops()
    for part in split_parts(name):
        tokens = phrase_tokens(part, parens=True)
        for tok, nxt in zip(tokens, tokens[1:]):
            if nxt.startswith("(") or nxt in stops or tok.startswith("("):
                continue
            if roles.get(tok, ("",))[0] == "head" and acronym_letters(tok) is None:
                return True
    return False


def parent_stems(parent: str) -> set[str]:
    """The stems a child's name may not rest on: the parent's content words, its acronyms, and the
    initials of its runs of words ("reinforcement learning" -> also "rl")."""
    return set(_parent_stems(parent))


@lru_cache(maxsize=10_000)
def _parent_stems(parent: str) -> frozenset[str]:
    # cached: every name ranked under a parent (~10^5 in a tree) asks for its stems
    tokens = _content_tokens(parent)
    out = _stems(tokens) | {_word(m.group(1).lower()) for m in _PARENS.finditer(parent) if m.group(1).isalpha()}
    for i in range(len(tokens)):
        for j in range(i + 2, min(len(tokens), i + 5) + 1):
            out.add(stem(initials(tokens[i:j])))
    return frozenset(out)


@lru_cache(maxsize=200_000)
def _alternatives(part: str) -> tuple[frozenset[str], ...]:
    """The stem sets a title may hold to say ``part``: its content words, or with a run of them
    replaced by their acronym ("reinforcement learning from human feedback" -> {"rlhf"}), or by the
    part's parenthesised acronym (cached: the same parts come back in many names)."""
    tokens = _content_tokens(part)
    base = _stems(tokens)
    alts = [base]
    for i in range(len(tokens)):
        for j in range(i + 2, min(len(tokens), i + 6) + 1):
            letters = initials(tokens[i:j])
            if letters not in _stops():  # "or" from "offline reinforcement" is no acronym
                alts.append(base - _stems(tokens[i:j]) | {stem(letters)})
    for match in _PARENS.finditer(part):
        letters = acronym_letters(match.group(1).strip())
        if letters:
            k = len(letters)
            run = tokens[-k:] if initials(tokens[-k:]) == letters else tokens
            alts.append(base - _stems(run) | {stem(letters)})
    return tuple(frozenset(a) for a in alts)


def claims(name: str, parent: str = "") -> list[frozenset[str]]:
    """What a title must hold to say ``name``: for some part, every stem of one of its alternatives
    that is neither generic nor the parent's. An empty list: the name says nothing of its own."""
    outer = _parent_stems(parent) if parent else frozenset()
    found: list[frozenset[str]] = []
    for part in split_parts(name):
        for alt in _alternatives(part):
            own = frozenset(alt - outer - GENERIC_STEMS)
            if own and own not in found:
                found.append(own)
    return found


def parent_echo(name: str, parent: str) -> bool:
    """True when a part of ``name`` says only the parent's subject again ("large language models (LLMs)"
    under "Large language models": a part with a word of the parent and nothing of its own."""
    outer = _parent_stems(parent)
    for part in split_parts(name):
        alts = _alternatives(part)
        if any(alt & outer for alt in alts) and any(not (alt - outer - GENERIC_STEMS) for alt in alts):
            return True
    return False


@lru_cache(maxsize=200_000)
def _title_stems(title: str) -> frozenset[str]:
    return frozenset(_word(w) for w in words(title))


def held_stems(titles: Iterable[str]) -> frozenset[str]:
    """Every stem some of ``titles`` hold (the stems ``IndexedTitles`` indexes): a name none of whose claims
    is a subset has a ``title_share`` of 0 in them."""
    return frozenset().union(*map(_title_stems, titles))


class IndexedTitles(tuple):
    """Titles with an index from each stem to the titles holding it: ``title_share`` on them intersects sets
    instead of testing every title (the same share; naming a tree asks it ~10^5 times)."""

    def __new__(cls, titles: Sequence[str]) -> IndexedTitles:
        self = super().__new__(cls, titles)
        self.postings = {}
        self.memo = {}  # what else is read off these titles once (``name_papers``: their phrase counts)
        for i, title in enumerate(self):
            for s in _title_stems(title):
                self.postings.setdefault(s, set()).add(i)
        return self


@lru_cache(maxsize=200_000)
def claim_sets(name: str, parent: str = "") -> tuple[frozenset[str], ...]:
    """``claims`` as a tuple, cached: naming a tree asks for the same names' claims again and again."""
    return tuple(claims(name, parent))


def title_share(name: str, titles: Sequence[str], parent: str = "") -> float:
    """Share of ``titles`` that say ``name`` (hold one of its ``claims``); 0.0 for no titles or no claim.

    >>> title_share("offline RL", ["Offline RL with value bounds", "Graph nets"])
    0.5
    >>> title_share("offline RL", IndexedTitles(["Offline RL with value bounds", "Graph nets"]))
    0.5
    """
    wanted = claim_sets(name, parent)
    if not titles or not wanted:
        return 0.0
    if not isinstance(titles, IndexedTitles):
        return sum(any(c <= _title_stems(t) for c in wanted) for t in titles) / len(titles)
    hits: set[int] = set()
    for claim in wanted:
        found: set[int] | None = None
        for s in sorted(claim, key=lambda s: len(titles.postings.get(s, ()))):
            found = set(titles.postings.get(s, ())) if found is None else found & titles.postings.get(s, set())
            if not found:
                break
        hits |= found or set()
    return len(hits) / len(titles)

"""Keyphrase clean-up before naming: merge variants, resolve acronyms, drop n-gram fragments.

BERTopic's n-grams come from running text, so a topic's list holds the same idea several times
("graph neural", "graph neural networks", "graph neural network", "networks gnns") and fragments
cut across a parenthesised acronym ("reinforcement learning rl", "learning rl"). This module turns
such a list into distinct phrases a person would write: ``"graph neural networks (GNNs)"``.

    >>> clean_keyphrases(["graph neural", "graph neural networks", "graph neural network", "networks gnns"])
    ['graph neural networks (GNNs)']
    >>> clean_keyphrases(["federated learning fl", "federated learning", "clients"])
    ['federated learning (FL)', 'clients']

Everything here is word arithmetic: offline, deterministic, no model.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from icml_topics.text import (
    KNOWN_ACRONYMS,
    NOT_ACRONYMS,
    acronym_letters,
    american,
    display_acronym,
    initials,
    phrase_tokens,
    stem,
)

__all__ = ["Phrase", "clean_keyphrases", "dangling", "merge_keyphrases", "word_stems"]

# Words that cannot end a name ("agents learn", "trained convolutional") or start one ("learning rl").
_END_WORDS = frozenset(
    "neural deep large small learn learns learned learnt train trains trained using use based via new novel "
    "efficient robust adaptive pre-trained fine-tuned towards toward with without of for and or in on to by "
    "the a an from into under over between across than very highly well better more most less fewer "
    "bayesian gaussian euclidean riemannian non-convex nonconvex convex linear nonlinear non-linear".split()
)
_START_WORDS = frozenset(
    "learning training learned trained learn using based via carlo networks network models model data "
    "and or of for in on to by the a an with from".split()
)
# nouns with adjective-like endings: they may end a phrase
_NOUN_EXCEPTIONS = frozenset(
    "interval intervals signal signals retrieval removal proposal proposals trial trials potential potentials "
    "tutorial goal goals arrival survival manual journal terminal animal animals total capital principal "
    "criterion logic topic topics music metric metrics heuristic heuristics arithmetic clinic epidemic "
    "graphic graphics dynamic dynamics mechanic mechanics traffic panic objective objectives alternative "
    "alternatives derivative derivatives incentive incentives perspective perspectives narrative initiative "
    "archive primitive primitives representative variable variables table tables label labels cable "
    "speed seed seeds need needs feed feeds embed bed red shed bias biases mixed hundred "
    "individual individuals rationale material materials professional original originals "
    "proximal ideal ideals internal external medical clinical chemical physical social spatial temporal "
    "numerical statistical theoretical empirical approval rival rivals denial fractional functional "
    "positional relational sequential residual residuals differential differentials integral integrals "
    "marginal marginals normal normals optimal diagonal orthogonal rational critical vertical horizontal "
    "causal global local reversal dual duals visual visuals nominal real formal".split()
)
_ADJ_SUFFIXES = ("ally", "ly", "ive", "ous", "ful", "able", "ible", "al", "ic", "ed")


def word_stems(phrase: str) -> list[str]:
    """Stems of the content words of ``phrase`` (hyphenated words split, stop words left out)."""
    return list(_word_stems(phrase))


@lru_cache(maxsize=200_000)
def _word_stems(phrase: str) -> tuple[str, ...]:
    # cached: naming asks for the same phrases' stems ~10^6 times (a phrase's key at every comparison)
    return tuple(
        stem(part) for tok in phrase_tokens(phrase) for part in tok.split("-") if part and part not in NOT_ACRONYMS
    )


def _is_adjective_like(word: str) -> bool:
    w = word.lower()
    if w in _NOUN_EXCEPTIONS or len(w) <= 3:
        return False
    return any(w.endswith(s) for s in _ADJ_SUFFIXES) and not w.endswith(("ss",))


@lru_cache(maxsize=200_000)
def dangling(phrase: str) -> bool:
    """True when ``phrase`` ends or starts with a word that leaves it unfinished:
    "agents learn", "trained convolutional", "learning rl", "and adaptive"."""
    words = [w for w in phrase_tokens(phrase.replace("(", " ").replace(")", " "))]
    if not words:
        return True
    last, first = words[-1], words[0]
    if last in _END_WORDS or (acronym_letters(last) is None and _is_adjective_like(last)):
        return True
    return len(words) > 1 and first in _START_WORDS


@dataclass
class Phrase:
    """One keyphrase after clean-up: its ``words`` (lower case), an optional acronym, the variants merged in."""

    words: list[str]
    acronym: str | None = None  # display form, e.g. "RL", "GNNs"
    variants: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, ...]:
        return _word_stems(" ".join(self.words)) if self.words else ((self.acronym or "").lower().rstrip("s"),)

    @property
    def text(self) -> str:
        if not self.words:
            return self.acronym or ""
        body = " ".join(self.words)
        return f"{body} ({self.acronym})" if self.acronym else body

    @property
    def stems(self) -> set[str]:
        return set(self.key) | ({self.acronym.lower().rstrip("s")} if self.acronym else set())


def _split_acronym(phrase: str, context: frozenset[str]) -> Phrase:
    """``"reinforcement learning rl"`` -> words ``reinforcement learning`` + acronym ``RL``;
    a fragment around an acronym (``"learning rl"``, ``"networks gnns"``) -> the acronym alone."""
    words = [american(w) for w in _tokens(phrase)]
    if len(words) >= 2:
        letters = acronym_letters(words[-1], context)
        if letters:
            before = words[:-1]
            k = len(letters)
            if len(before) >= 1 and initials(before[-k:]) == letters and len(initials(before[-k:])) == k:
                expansion = before[-k:] if len(before) > k and before[-k - 1] in _START_WORDS else before
                return Phrase(expansion, display_acronym(words[-1]), [phrase])
            return Phrase([], display_acronym(words[-1]), [phrase])  # a fragment: keep the acronym
        letters = acronym_letters(words[0])
        if letters and words[0] in KNOWN_ACRONYMS and len(words) == 2 and words[1] in _START_WORDS | _END_WORDS:
            return Phrase([], display_acronym(words[0]), [phrase])  # "gans generative"-style fragment
    if len(words) == 1 and acronym_letters(words[0], context):
        return Phrase([], display_acronym(words[0]), [phrase])
    return Phrase(words, None, [phrase])


@lru_cache(maxsize=200_000)
def _tokens(phrase: str) -> tuple[str, ...]:
    """``phrase_tokens``, cached: the same keyphrases come back in many topics."""
    return tuple(phrase_tokens(phrase))


def _complete(words: list[str], pool: Sequence[tuple[list[str], str]]) -> list[str]:
    """The longest phrase of ``pool`` (phrases with their words as " padded text ") that contains ``words``
    as a run ("graph neural" -> "graph neural networks")."""
    text = f" {' '.join(words)} "
    longer = [p for p, padded in pool if len(p) > len(words) and text in padded]
    return max(longer, key=len) if longer else words


def _plain_form(candidate: list[str], kept: list[str]) -> bool:
    """True when ``candidate`` is ``kept`` with an "-ings" word in its "-ing" form."""
    return (
        len(candidate) == len(kept)
        and any(k.endswith("ings") and c == k[:-1] for c, k in zip(candidate, kept))
        and all(c == k or (k.endswith("ings") and c == k[:-1]) for c, k in zip(candidate, kept))
    )


def merge_keyphrases(keyphrases: Iterable[str], *, drop_covered: bool = True) -> list[Phrase]:
    """Clean-up of one topic's keyphrases, best first; see ``clean_keyphrases``. ``drop_covered=False``
    keeps single words found inside longer phrases ("fairness" next to "fairness concerns")."""
    return [Phrase(list(p.words), p.acronym, list(p.variants)) for p in _merged(_normal(keyphrases), drop_covered)]


def _normal(keyphrases: Iterable[str]) -> tuple[str, ...]:
    """The keyphrases stripped and in lower case, empty ones left out."""
    return tuple(p.strip().lower() for p in keyphrases if p and p.strip())


@lru_cache(maxsize=10_000)
def _merged(raw: tuple[str, ...], drop_covered: bool) -> tuple[Phrase, ...]:
    """``merge_keyphrases`` of the stripped, lower-case phrases; cached (a topic's phrases are cleaned several
    times: to name it, tell it apart, list it), so never to be changed: callers get copies."""
    context = frozenset(initials(t) for t in map(_tokens, raw) if len(t) >= 2)
    # acronym -> expansion words, from "x y xy" phrases and from phrases whose initials spell a listed acronym
    parsed = [_split_acronym(p, context) for p in raw]
    expansions: dict[str, list[str]] = {}
    for p in parsed:
        if p.acronym and p.words:
            expansions.setdefault(p.acronym.lower().rstrip("s"), p.words)
    acronyms = {p.acronym.lower().rstrip("s") for p in parsed if p.acronym}
    for p in parsed:
        if p.words and not p.acronym and len(p.words) >= 2:
            ini = initials(p.words)
            if ini in acronyms:
                expansions.setdefault(ini, p.words)
    pool = [(p.words, f" {' '.join(p.words)} ") for p in parsed if p.words]
    merged: dict[tuple[str, ...], Phrase] = {}
    order: list[tuple[str, ...]] = []
    for p in parsed:
        if not p.words:  # acronym alone: attach to its expansion when the topic has one
            letters = (p.acronym or "").lower().rstrip("s")
            if letters in expansions:
                p = Phrase(list(expansions[letters]), p.acronym, p.variants)
        elif dangling(" ".join(p.words)):
            completed = _complete(p.words, pool)
            if completed is not p.words:
                p = Phrase(list(completed), p.acronym, p.variants)
        if p.words and not p.acronym:
            letters = initials(p.words)
            if letters in expansions and expansions[letters] == p.words:
                p = Phrase(
                    p.words,
                    next(q.acronym for q in parsed if q.acronym and q.acronym.lower().rstrip("s") == letters),
                    p.variants,
                )
        key = p.key
        if key in merged:
            kept = merged[key]
            kept.variants.extend(p.variants)
            if p.acronym and not kept.acronym:
                kept.acronym = p.acronym
            if _plain_form(p.words, kept.words):
                kept.words = list(p.words)  # "clustering" rather than "clusterings"
            continue
        # an acronym-less phrase whose acronym form is already kept (or the other way round)
        merged[key] = p
        order.append(key)
    phrases = [merged[k] for k in order]
    for p in phrases:  # "generative adversarial networks (GANs)", not "(GAN)"
        if (
            p.acronym
            and p.words
            and p.words[-1].endswith("s")
            and not p.acronym.endswith("s")
            and not p.words[-1].endswith(("ss", "is", "us"))
        ):
            p.acronym += "s"
    return _uncovered(phrases) if drop_covered else tuple(phrases)


def _uncovered(phrases: list[Phrase]) -> tuple[Phrase, ...]:
    """The phrases but those whose words all lie inside a longer one ("reinforcement" next to "reinforcement
    learning", "component analysis" next to PCA, "networks convolutional neural" next to CNNs)."""
    keys = [p.key for p in phrases]  # once each: the test below compares every pair
    stems = [set(k) for k in keys]
    return tuple(
        p
        for i, p in enumerate(phrases)
        if not any(len(keys[j]) > len(keys[i]) and stems[i] <= stems[j] for j in range(len(phrases)) if j != i)
    )


def clean_keyphrases(keyphrases: Iterable[str]) -> list[str]:
    """Distinct keyphrases, best first: variants (plural, spelling, word form) merged, acronyms attached
    to their expansion ("federated learning (FL)"), fragments completed or reduced to their acronym,
    phrases whose words all lie inside a longer kept phrase dropped. Dangling fragments that cannot be
    completed stay in the list (names skip them) so that no keyword is lost silently.

    >>> clean_keyphrases(["reinforcement learning rl", "reinforcement learning", "learning rl", "reinforcement"])
    ['reinforcement learning (RL)']
    """
    return [p.text for p in _merged(_normal(keyphrases), True)]

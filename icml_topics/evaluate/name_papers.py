"""A name judged for the node it names, by reading the node's own papers and its siblings' (issue 49).

A paper *carries* a name when its text (title, author keywords, abstract: what the caller passes) holds
every word of one of the name's parts, in any form or as an acronym, less the parent's words and words
true of most ML papers (``name_rules.claims``). Five defects:

* ``generic name`` (the name alone): a bare word any ML paper may use. Either the name's own words are one
  word (at most two words written, none hyphenated: "loss", "policy", "representation learning", "RL") found in at least
  ``GENERIC_SHARE`` of ML papers (the bundled ``data/common_words.csv``: document shares measured on the
  titles and abstracts of ICML 2013-2024 and ICLR 2024-2025, 24,003 papers), or every word of the name is a
  word of one research theme's name, or its initials ("language models", "vision", "agents", "RL",
  "optimization", "time series"): a theme is too broad to name a node inside it. A hyphenated term
  ("meta-learning", "self-play") is never generic.
* ``rare in its papers`` (``papers=``): fewer than ``MIN_CARRIED`` of the node's papers carry the name, or a
  word of it is in fewer than ``MIN_WORD_SHARE`` of them ("toxicity" for meta-learning papers). A word is
  in a paper when the paper holds it or says its part another way (an acronym for the part's words): a
  paper saying "LLM" holds "language" of "large language models", not "judges" of "judges and large
  language models".
* ``rare in its latest papers`` (``latest_papers=``: the node's papers of the latest period, for a
  headline): the same two floors on those papers alone. A node that grew is a headline for what its latest
  papers are about: "judges and large language models" on 11 papers of 2025 of which 2 are about LLM judges
  (the others on alignment and poisoning) fails, since "judges" is in 18% of them (ICLR 2024-2025,
  ``benchmarks/results/headline_names.md``).
* ``carried by a sibling`` (``papers=`` and ``sibling_papers=``): some sibling's papers carry the name at
  least as often as the node's own ("optimization" on one of several reinforcement-learning nodes).
* ``bare word`` (``papers=``): a one-word name (not an acronym, not a hyphenated term) whose papers hold a
  longer phrase with the word, its words in a row, nearly as often (``SPECIFIC_RATIO`` of the papers
  carrying the word; in a row, since an abstract holds most words of any phrase somewhere):
  "cache" for KV-cache compression papers (they say "KV cache"), "decoding" for speculative-decoding papers.
  The word may be rare in the corpus ("cache" is in under 3% of ML papers) and still say less than the
  papers do; "RLHF" is an acronym, fine however its papers write it out.

    >>> generic_name("policy"), generic_name("language models"), generic_name("KV cache compression")
    (True, True, False)
    >>> papers = ["Offline RL with value bounds", "Conservative offline RL", "Offline RL at scale", "Graph nets"]
    >>> paper_defects("offline RL", papers), paper_defects("graph nets", papers)
    ([], ['rare in its papers'])
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path

from icml_topics.evaluate.name_rules import (
    GENERIC_STEMS,
    IndexedTitles,
    claim_sets,
    fragment,
    parent_stems,
    split_parts,
    title_share,
    verb_start,
)
from icml_topics.text import NOT_ACRONYMS, acronym_letters, initials, phrase_tokens, stem, stop_words, words

__all__ = [
    "COMMON_WORDS_FILE",
    "GENERIC_SHARE",
    "MIN_CARRIED",
    "MIN_WORD_SHARE",
    "SPECIFIC_RATIO",
    "carried_share",
    "common_word_shares",
    "latest_defects",
    "generic_name",
    "iter_paper_defects",
    "longer_phrase",
    "paper_defects",
    "word_shares",
]

COMMON_WORDS_FILE = Path(__file__).resolve().parents[1] / "data" / "common_words.csv"
#: a one-word name is generic when at least this share of ML papers hold the word (3%: "loss" 11%, "policy"
#: 8%, "kernels" 3.0%, "agents" 7%; "bandits" 1.5%, "quantization" 1.9%, "jailbreak" 0.4% are not)
GENERIC_SHARE = 0.03
#: a name is rare in its node when fewer than this share of the node's papers carry it
MIN_CARRIED = 1 / 3
#: ... or when one of its words is in fewer than this share of them (a second part joined by "and" may
#: cover fewer papers than the first, but each of its words must be a clear share of the node)
MIN_WORD_SHARE = 0.2
#: a longer phrase holding a name's words is the better name when the node's papers carrying it are at least
#: this share of those carrying the name ("KV cache" for "cache", "speculative decoding" for "decoding")
SPECIFIC_RATIO = 0.7
_SPLIT = re.compile(r"\s+(?:and|&)\s+|[,:;()]\s*")


@lru_cache(maxsize=1)
def common_word_shares(path: str | Path = COMMON_WORDS_FILE) -> dict[str, float]:
    """word stem -> the share of papers holding it, for stems in at least 1% of them (the bundled table)."""
    with open(path, newline="", encoding="utf-8") as fh:
        return {row["stem"]: float(row["share"]) for row in csv.DictReader(fh)}


def measure_common_words(texts: Iterable[str], floor: float = 0.01) -> dict[str, float]:
    """stem -> share of ``texts`` holding it (``text.stem`` of each word), for stems in at least ``floor``."""
    counts: dict[str, int] = {}
    n = 0
    for text in texts:
        n += 1
        for s in {stem(w) for w in words(text)}:
            counts[s] = counts.get(s, 0) + 1
    return {s: c / n for s, c in sorted(counts.items()) if n and c / n >= floor}


@lru_cache(maxsize=1)
def _theme_vocabulary() -> tuple[frozenset[str], ...]:
    """Each research theme's name parts as stem sets, and each part's initials ("rl")."""
    from icml_topics.themes.taxonomy import load_taxonomy  # lazy: the taxonomy is read once, when needed

    out: list[frozenset[str]] = []
    for theme in load_taxonomy().themes:
        for part in _SPLIT.split(theme.name):
            tokens = [t for t in phrase_tokens(part) if t not in _stops()]
            if tokens:
                out.append(frozenset(stem(p) for t in tokens for p in t.split("-") if p))
                if len(tokens) >= 2:
                    out.append(frozenset({stem(initials(tokens))}))
    return tuple(out)


@lru_cache(maxsize=1_000)
def _subject_stems(subject: str) -> frozenset[str]:
    """The stems of ``subject`` (a theme's or parent's name), its parenthesised parts included: "quantization"
    is a word of "Efficiency (compression & quantization)" (``name_rules.parent_stems`` leaves a parenthesis
    that is not one acronym out)."""
    parts = [t for part in _SPLIT.split(subject) for t in phrase_tokens(part) if t not in _stops()]
    return frozenset(parent_stems(subject) | {stem(p) for t in parts for p in t.split("-") if p})


@lru_cache(maxsize=1)
def _stops() -> frozenset[str]:
    return frozenset(stop_words()) | NOT_ACRONYMS


@lru_cache(maxsize=50_000)
def generic_name(name: str, parent: str = "", own: str = "") -> bool:
    """True when ``name`` is a bare word any ML paper may use (see the module's docstring). ``own``: the
    subject the node is the whole of (the theme or parent of a node alone under it): its words name the node,
    they are not a broader theme's ("bandits" for the one node of "Bandits & online learning")."""
    tokens = [t for t in phrase_tokens(name) if t not in _stops()]
    if not tokens:
        return True
    stems = frozenset(stem(p) for t in tokens for p in t.split("-") if p)
    compound = any("-" in t for t in tokens)  # "meta-learning", "self-play": a term, however common its part
    mine = _subject_stems(own) if own else frozenset()
    if not compound and any(stems <= part and not part <= mine for part in _theme_vocabulary()):
        return True
    own = stems - GENERIC_STEMS - (parent_stems(parent) if parent else set())
    if not own or not claim_sets(name, parent):
        return True  # nothing but words true of most papers (or the parent's)
    shares = common_word_shares()
    return not compound and len(tokens) <= 2 and len(own) == 1 and shares.get(next(iter(own)), 0.0) >= GENERIC_SHARE


def carried_share(name: str, papers: Sequence[str], parent: str = "") -> float:
    """Share of ``papers`` (texts, or ``IndexedTitles`` of them) that carry ``name`` (plain texts are read
    one by one: for one name that is cheaper than indexing them)."""
    return title_share(name, papers if isinstance(papers, IndexedTitles) else list(papers), parent)


def word_shares(name: str, papers: Sequence[str], parent: str = "") -> dict[str, float]:
    """Each of the name's own word stems (``claims``) -> the share of ``papers`` holding it, or saying the
    word's part another way (an acronym or another alternative of that part: a paper saying "RLHF" holds
    the words of "reinforcement learning from human feedback"; a paper saying "LLM" holds no word of
    "judges" in "judges and large language models").

        >>> word_shares("judges and LLMs", ["LLM judges", "LLM alignment", "LLM agents"])["judg"]
        0.3333333333333333
    """
    index = papers if isinstance(papers, IndexedTitles) else IndexedTitles(papers)
    out: dict[str, float] = {}
    for part in split_parts(name):
        claims = claim_sets(part, parent)
        for s in sorted(set().union(*claims) if claims else ()):
            hits = set(index.postings.get(s, ()))
            for claim in claims:
                if s not in claim:  # a paper saying the part another way holds the word too
                    hits |= set.intersection(*(index.postings.get(c, set()) for c in claim))
            out[s] = max(out.get(s, 0.0), len(hits) / len(index) if len(index) else 0.0)
    return out


def _rare(name: str, index: IndexedTitles, parent: str) -> bool:
    """Fewer than ``MIN_CARRIED`` of the papers carry ``name``, or a word of it is in fewer than
    ``MIN_WORD_SHARE`` of them."""
    own = carried_share(name, index, parent)
    return own < MIN_CARRIED or any(v < MIN_WORD_SHARE for v in word_shares(name, index, parent).values())


def latest_defects(name: str, latest_papers: Sequence[str], parent: str = "") -> list[str]:
    """``["rare in its latest papers"]`` when the node's papers of the latest period (texts) do not carry
    ``name`` by the floors of ``rare in its papers``; [] otherwise, or for no papers.

        >>> latest = ["LLM judges", "LLM alignment", "LLM agents", "LLM safety", "LLM proofs", "LLM reasoning"]
        >>> latest_defects("judges and LLMs", latest), latest_defects("LLM judges", latest[:2])
        (['rare in its latest papers'], [])
    """
    if not len(latest_papers):
        return []
    return ["rare in its latest papers"] if _rare(name, IndexedTitles(latest_papers), parent) else []


def paper_defects(
    name: str, papers: Sequence[str], sibling_papers: Iterable[Sequence[str]] = (), parent: str = ""
) -> list[str]:
    """The defects a name has for the node whose papers (texts) are ``papers``: ``rare in its papers``,
    ``carried by a sibling`` (``sibling_papers``: each sibling's papers)."""
    return list(iter_paper_defects(name, papers, sibling_papers, parent))


def iter_paper_defects(
    name: str, papers: Sequence[str], sibling_papers: Iterable[Sequence[str]] = (), parent: str = ""
) -> Iterator[str]:
    """``paper_defects``, each defect as it is found (the dearest check, ``bare word``, last): whether a name
    has one is known at the first. ``papers`` (and each of ``sibling_papers``) may be ``IndexedTitles``, read
    as they are."""
    if not len(papers):
        return
    index = papers if isinstance(papers, IndexedTitles) else IndexedTitles(papers)
    own = carried_share(name, index, parent)
    if _rare(name, index, parent):
        yield "rare in its papers"
    others = [carried_share(name, s, parent) for s in sibling_papers if len(s)]
    if others and max(others) >= own and max(others) > 0:
        yield "carried by a sibling"
    if own > 0 and longer_phrase(name, papers, index, parent):
        yield "bare word"


def longer_phrase(name: str, papers: Sequence[str], index: IndexedTitles | None = None, parent: str = "") -> str:
    """For a one-word name (no acronym, no hyphenated term), the phrase holding its word and more, its words
    in a row, that at least ``SPECIFIC_RATIO`` as many of the node's papers hold as carry the word: "KV cache"
    for "cache" on KV-cache papers, "speculative decoding" for "decoding"; "" when there is none.

        >>> longer_phrase("cache", ["KV cache eviction", "KV cache quantization", "Paged KV cache", "A cache"])
        'KV cache'
    """
    tokens = [t for t in phrase_tokens(name) if t not in _stops()]
    if len(tokens) != 1 or "-" in tokens[0] or acronym_letters(tokens[0]):
        return ""  # a phrase, a hyphenated term ("meta-learning") or an acronym ("RLHF"): no bare word
    index = index if index is not None else IndexedTitles(papers)
    claimed = claim_sets(name, parent)
    carriers = carried_share(name, index, parent) * len(index)
    if len(claimed) != 1 or carriers <= 0:
        return ""
    word = claimed[0]
    found = []  # (papers holding it, words, phrase)
    for n, phrase in _phrase_counts(papers, index).values():
        if n < SPECIFIC_RATIO * carriers:
            continue
        longer = claim_sets(phrase, parent)
        if longer and word < longer[0] and not fragment(phrase) and not verb_start(phrase):
            found.append((n, len(longer[0]), phrase))
    return max(found)[2] if found else ""


def _phrase_counts(papers: Sequence[str], index: IndexedTitles) -> dict:
    """``name_phrases.phrase_counts`` of the papers, kept with their index (``index.memo``) when the index is
    ``papers`` itself: a node judged for many names reads its papers' phrases once."""
    from icml_topics.stages.name_phrases import phrase_counts  # lazy: the papers' phrases, when asked

    if index is not papers:
        return phrase_counts(papers)
    if "phrase_counts" not in index.memo:
        index.memo["phrase_counts"] = phrase_counts(papers)
    return index.memo["phrase_counts"]


def main(argv: list[str]) -> None:
    """``python -m icml_topics.evaluate.name_papers CORPUS...``: measure the common words on the corpora's
    titles and abstracts and write the bundled table."""
    from icml_topics.corpus import read_corpus  # lazy: only the command reads corpora

    texts = []
    for path in argv:
        frame = read_corpus(path)
        texts += (frame["title"].fillna("") + " " + frame["abstract"].fillna("")).tolist()
    with open(COMMON_WORDS_FILE, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(["stem", "share"])
        for s, share in measure_common_words(texts).items():
            out.writerow([s, f"{share:.4f}"])


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])

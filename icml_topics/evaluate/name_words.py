"""The roles words play in ML writing, measured on real abstracts, for telling a name from a fragment.

A name is cut short when it ends on a word that text nearly always follows with another content word
("deep reinforcement", "reinforcement learning human": a *bound* word); it glues two phrases when a
plural noun that text nearly never follows with another word stands before one ("policies
reinforcement learning": a *head*); it is a clause, not a name, when it starts with a finite verb
("learns policies": a *verb*, found after "we", "it", "that", "which", "who", "also" and hardly ever
after "the", "a", "of", "our", ...); a one-word name is vague when the word is a *modifier* (followed
by another content word in most of its uses: "sparse", "time") or an *adjunct*, a noun used that way ("graph",
"cloud", "protein": unlike a modifier it may end a name, "point cloud"). ``word_roles`` measures these on any texts; the bundled table
``data/name_words.csv`` is ``word_roles`` of the titles and abstracts of ICML 2013-2024 (5,630 papers),
written by ``python -m icml_topics.evaluate.name_words ../shared/data/icml-2013-2024.jsonl.gz``.

    >>> roles = load_word_roles()
    >>> roles["reinforcement"], roles["policies"], roles["learns"]
    (('bound', 'learning'), ('head', ''), ('verb', ''))
"""

from __future__ import annotations

import csv
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from icml_topics.corpus import read_corpus
from icml_topics.text import marked_tokens, stop_words, term_key

__all__ = ["BOUND_SHARE", "HEAD_SHARE", "MODIFIER_SHARE", "WORD_ROLES_FILE", "load_word_roles", "word_roles"]

WORD_ROLES_FILE = Path(__file__).resolve().parents[1] / "data" / "name_words.csv"
#: a word is *bound* when at least this share of its occurrences (of at least 30) precede a content word
BOUND_SHARE = 0.9
#: a plural noun is a *head* when at most this share of its occurrences (of at least 50) do
HEAD_SHARE = 0.15
#: a word is a *modifier* when at least this share of its occurrences (of at least 30) do: alone it is
#: vague ("matrix", "time", "diffusion"), though not cut
MODIFIER_SHARE = 0.5
#: a modifier that is a noun (``_noun``: it follows a determiner and its plural is written) is an *adjunct*:
#: "cloud", "graph", "protein" end a name ("point cloud", "protein"), as "sparse" or "training-free" do not
#: (their noun is missing); alone it is as vague as a modifier
_PLURAL_SEEN = 5  # a plural seen this often marks a noun
_AFTER_DETERMINER = 0.05
#: the next word a bound word takes, when it takes one word this often ("reinforcement" -> "learning")
_DOMINANT_NEXT = 0.5
_VERB_BEFORE = frozenset("we it that which who also".split())
_NOUN_BEFORE = frozenset("the a an of our these their its this such".split())
_NOMINAL = ("tion", "sion", "ment", "ness", "ity")


def _counts(texts: Iterable[str]):
    stops = set(stop_words()) | set("and or of for in on to the a an with via by from".split())
    seen, before_content, after_verb, after_noun = Counter(), Counter(), Counter(), Counter()
    nexts: defaultdict[str, Counter] = defaultdict(Counter)
    for text in texts:
        toks = marked_tokens(text.lower())
        for i, tok in enumerate(toks):
            if not tok[0].isalnum():
                continue
            seen[tok] += 1
            if i + 1 < len(toks) and toks[i + 1][0].isalnum() and toks[i + 1] not in stops:
                before_content[tok] += 1
                nexts[tok][toks[i + 1]] += 1
            if i and toks[i - 1] in _VERB_BEFORE:
                after_verb[tok] += 1
            if i and toks[i - 1] in _NOUN_BEFORE:
                after_noun[tok] += 1
    return stops, seen, before_content, nexts, after_verb, after_noun


def _noun(word: str, seen: Counter, after_noun: Counter) -> bool:
    """``word`` is a noun: text puts it after a determiner ("the graph", in ``_AFTER_DETERMINER`` of its uses)
    and writes its plural ("graphs", "clouds"; an adjective has none). A noun without a plural ("speech") is
    not told from an adjective this way and stays a modifier."""
    plural = max(seen[word + "s"], seen[word + "es"], seen[word[:-1] + "ies"] if word.endswith("y") else 0)
    return after_noun[word] >= _AFTER_DETERMINER * seen[word] and plural >= _PLURAL_SEEN


def word_roles(texts: Iterable[str]) -> dict[str, tuple[str, str]]:
    """word -> (role, the next word a bound word takes or ""); roles "bound", "modifier", "head", "verb" as in
    the module's docstring. Words seen too rarely to tell get no role."""
    stops, seen, before_content, nexts, after_verb, after_noun = _counts(texts)
    roles: dict[str, tuple[str, str]] = {}
    for word, n in seen.items():
        if word in stops or word.isdigit():
            continue
        share = before_content[word] / n
        if n >= 30 and share >= BOUND_SHARE:
            top, k = nexts[word].most_common(1)[0]
            roles[word] = ("bound", top if k >= _DOMINANT_NEXT * n else "")
        elif n >= 30 and share >= MODIFIER_SHARE:
            roles[word] = ("adjunct" if _noun(word, seen, after_noun) else "modifier", "")
        elif after_verb[word] >= 5 and after_verb[word] >= 4 * (after_noun[word] + 1) and not word.endswith(_NOMINAL):
            roles[word] = ("verb", "")
        elif n >= 50 and share <= HEAD_SHARE and term_key(word) != word:
            roles[word] = ("head", "")
    return roles


@lru_cache(maxsize=4)
def load_word_roles(path: str | Path = WORD_ROLES_FILE) -> dict[str, tuple[str, str]]:
    """The table written by this module's command (word -> (role, next word))."""
    with open(path, newline="", encoding="utf-8") as fh:
        return {row["word"]: (row["role"], row["next"]) for row in csv.DictReader(fh)}


def _write(roles: dict[str, tuple[str, str]], path: Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(["word", "role", "next"])
        for word in sorted(roles):
            out.writerow([word, *roles[word]])


def main(argv: list[str]) -> None:
    """``python -m icml_topics.evaluate.name_words CORPUS [OUT]``: measure the roles on a corpus's titles
    and abstracts and write the table (default: the bundled file)."""

    frame = read_corpus(argv[0])
    texts = frame["title"].fillna("").tolist() + frame["abstract"].fillna("").tolist()
    _write(word_roles(texts), Path(argv[1]) if len(argv) > 1 else WORD_ROLES_FILE)


if __name__ == "__main__":
    main(sys.argv[1:])

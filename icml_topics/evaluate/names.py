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

Three more read the name alone (``name_rules``, with word roles measured on ICML abstracts):
``fragment`` (a part ends on a word that text nearly always follows with another: "deep
reinforcement", "reinforcement learning human"), ``verb start`` ("learns policies") and ``noun pile``
(a plural head noun glued to the next phrase: "policies reinforcement learning"). Four need the node's
context, passed as keyword arguments: ``parent echo`` (``parent=``: a part says only the parent's
subject again: "large language models (LLMs)" under "Large language models"), ``same as a sibling``
(``siblings=``: the names of the other nodes under the parent or in the level; the same ``name_key``,
or the same leading part), ``unsupported by its papers`` (``titles=``: the node's papers' titles say the
name in fewer than ``RARE_SUPPORT`` of them, or, given ``sibling_titles=``, no more often than some
sibling's titles do: "adversarial images" for jailbreak papers) and ``mixed node`` (``titles=``: the
name is said by fewer than ``MIN_OWN_SUPPORT`` of the node's titles: a mixed bag named after one part,
as "federated learning (FL)" for 353 papers on attacks, privacy and federated learning). Five more
(``name_papers``) judge a name for the node it names: ``generic name`` (a bare word any ML paper may use,
"loss", "policy", "language models", "RL": decided from word shares measured on ICML and ICLR and from
the research themes' names), and, given the node's papers' texts (``papers=``, ``sibling_papers=``),
``rare in its papers`` (fewer than a third of them carry it, or a word of it is in fewer than a fifth),
``rare in its latest papers`` (``latest_papers=``, for a headline: the same floors on the node's papers of
the latest period, what it grew by), ``carried by a sibling`` (a sibling's papers carry it as often) and ``bare word`` (a one-word name, no
acronym, whose papers carry a longer phrase holding it nearly as often: "cache" for KV-cache papers, whose
name is "KV cache"; ``name_papers.longer_phrase``). The last, ``too few papers to judge``, is not
``name_defects``' own nor a defect: ``compare.name_checks`` gives it as a caveat (``name_caveat``) to a node of
fewer than 10 papers, whose titles' shares it does not ask (it judges such a name by the papers' texts). A name
that says only its parent's subject again is judged as its words say for the checks that read papers
(``parent echo`` is its one defect, not also "mixed node" or "rare in its papers" of a name left with no words). A title says a
name when it holds every word (any form; an acronym for its words) of one of the name's parts, less the
parent's words and words true of most ML papers (``name_rules.claims``).

    >>> name_defects("deep reinforcement"), name_defects("learns policies")
    (['fragment', 'generic name'], ['verb start', 'generic name'])
    >>> name_defects("large language models (LLMs)", parent="Large language models (LLMs)")  # one defect, not five
    ['parent echo']
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from itertools import chain, islice

import numpy as np

from icml_topics.evaluate.name_papers import generic_name, iter_paper_defects, latest_defects
from icml_topics.evaluate.name_rules import fragment, noun_pile, parent_echo, split_parts, title_share, verb_start
from icml_topics.stages.keyphrases import dangling, merge_keyphrases
from icml_topics.stages.naming import name_key
from icml_topics.stages.stem_index import StemIndex
from icml_topics.text import acronym_letters, initials, phrase_tokens, stem

__all__ = [
    "DEFECTS",
    "MAX_NAME_CHARS",
    "MAX_SIBLING_SUPPORT",
    "MIN_OWN_SUPPORT",
    "RARE_SUPPORT",
    "UNRELATED_BELOW",
    "PhraseCorpus",
    "clean_share",
    "name_defects",
    "name_parts",
    "name_support",
    "title_share",
]

DEFECTS = (
    "repeated word",
    "acronym echo",
    "dangling word",
    "too long",
    "unrelated phrases",
    "fragment",
    "verb start",
    "noun pile",
    "parent echo",
    "same as a sibling",
    "unsupported by its papers",
    "mixed node",
    "generic name",
    "rare in its papers",
    "rare in its latest papers",
    "carried by a sibling",
    "bare word",
    "too few papers to judge",
)
#: a name is supported by its node's papers when at least this share of their titles say it ...
MIN_OWN_SUPPORT = 0.4
#: ... and no sibling's titles say it in more than this share (half the floor: twice as common at home)
MAX_SIBLING_SUPPORT = 0.2
#: below this share of its own titles a name is unsupported whatever its siblings say
RARE_SUPPORT = 0.15
MAX_NAME_CHARS = 60
#: Two parts of a name are "unrelated" below this cosine similarity (all-MiniLM-L6-v2 scale).
UNRELATED_BELOW = 0.35

_STOP = frozenset("and or of for in on to the a an with via by from".split())


def name_parts(name: str) -> list[str]:
    """The phrases a name joins with ``and`` / ``&`` / ``,`` (``name_rules.split_parts``)."""
    return split_parts(name)


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
    """One word twice, in any form, or written with and without its hyphen ("oversmoothing and
    over-smoothing")."""
    stems, whole = [], []
    for tok in phrase_tokens(name, parens=True):
        bare = tok.strip("()").lower()
        for piece in bare.split("-"):
            if piece and piece not in _STOP and acronym_letters(piece) is None:
                stems.append(stem(piece))
        if acronym_letters(bare) is None and bare not in _STOP:
            whole.append(stem(bare.replace("-", "")))
    return len(stems) != len(set(stems)) or len(whole) != len(set(whole))


class PhraseCorpus:
    """Papers indexed for phrase co-occurrence (any word form): build once, pass to ``name_defects``."""

    def __init__(self, texts: Sequence[str]) -> None:

        self.index = StemIndex(list(texts))

    def npmi(self, a: str, b: str) -> tuple[float, int]:
        """Normalised PMI of the two phrases over the papers (-1 when they never meet), and the smaller count."""

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
    parent: str = "",
    siblings: Iterable[str] = (),
    titles: Sequence[str] | None = None,
    sibling_titles: Iterable[Sequence[str]] = (),
    papers: Sequence[str] | None = None,
    sibling_papers: Iterable[Sequence[str]] = (),
    latest_papers: Sequence[str] | None = None,
    alone: bool = False,
    first: bool = False,
) -> list[str]:
    """The defects of one topic name, in the order of ``DEFECTS`` (empty list = a clean name).
    ``parent``: the parent node's name; ``siblings``: the other names under it (or in the level);
    ``titles``: the node's papers' titles; ``sibling_titles``: each sibling's titles; ``papers``: the node's
    papers' texts (title, author keywords, abstract); ``sibling_papers``: each sibling's papers' texts
    (``name_papers``: is the name carried by a clear share of its papers, more than by its siblings').

    Args:
        name: the name to check.
        embed_fn: embeds texts, to find two joined phrases that are unrelated; ``None``: not checked that way.
        corpus: the papers' phrases, for the same check without embeddings.
        unrelated_below: the similarity under which two joined phrases count as unrelated.
        max_chars: the longest name that is not "too long".
        parent: as above.
        siblings: as above.
        titles: as above; ``None``: the name is not checked against its papers.
        sibling_titles: as above.
        papers: as above; ``None``: the name is not judged by its papers' texts.
        sibling_papers: as above.
        latest_papers: the node's papers of the latest period (texts), for a headline: the name must be
            carried by them as ``rare in its papers`` asks of all its papers (``rare in its latest papers``);
            ``None``: not checked.
        alone: the node is the only one under its parent (or the only node of its theme at its level): it is
            the parent's papers, so its name may say the parent's subject (no ``parent echo``; the parent's
            words count as the node's own, and are not a broader theme's), as the names of such nodes are
            chosen (``stages/tree_names.py``).
        first: stop at the first defect found, the checks that read the papers last (the list holds that one
            defect, or none): whether a name is clean, at a fraction of the cost.

    Examples:
        >>> from icml_topics.evaluate.names import name_defects
        >>> name_defects("graph graph neural networks"), name_defects("graph neural networks")
        (['repeated word'], [])
    """
    subject, parent = (parent, "") if alone else ("", parent)  # alone: the parent's subject is the node's
    # a name that only says its parent's subject again is one defect, "parent echo": its support is read as
    # its words say (the parent's words counted), not as "mixed node", "rare in its papers", ... of a name left
    # with no words of its own ("graph neural networks (GNNs)" under "graph neural networks", on 30 GNN papers)
    judged = "" if parent and parent_echo(name, parent) else parent
    found = chain(
        _name_checks(
            name, embed_fn, corpus, unrelated_below, max_chars, parent, siblings, titles, sibling_titles, judged
        ),
        _later(lambda: ["generic name"] if generic_name(name, judged, subject) else []),
        _later(lambda: iter_paper_defects(name, papers, sibling_papers, judged) if papers is not None else []),
        _later(lambda: latest_defects(name, latest_papers, judged) if latest_papers is not None else []),
    )  # each check run only when the ones before are read: ``first`` stops at the first defect
    if first:
        return list(islice(found, 1))
    return sorted(found, key=DEFECTS.index)


def _later(checks: Callable[[], Iterable[str]]) -> Iterator[str]:
    """The defects ``checks()`` finds, run when the first of them is asked for."""
    yield from checks()


def _name_checks(
    name: str,
    embed_fn: Callable[[list[str]], np.ndarray] | None,
    corpus: PhraseCorpus | None,
    unrelated_below: float,
    max_chars: int,
    parent: str,
    siblings: Iterable[str],
    titles: Sequence[str] | None,
    sibling_titles: Iterable[Sequence[str]] = (),
    judged: str | None = None,
) -> Iterator[str]:
    """``name_defects``' checks of the name alone and of its titles, each defect as it is found; ``judged``:
    the parent whose words the titles' shares leave out (``parent`` when ``None``)."""
    judged = parent if judged is None else judged
    parts = name_parts(name)
    if _repeated(name):
        yield "repeated word"
    if any(_acronym_echo(p) for p in parts):
        yield "acronym echo"
    if any(dangling(p) for p in parts):
        yield "dangling word"
    if len(name) > max_chars:
        yield "too long"
    if len(parts) > 1 and (embed_fn is not None or corpus is not None):
        if _unrelated(parts, embed_fn, corpus, unrelated_below):
            yield "unrelated phrases"
    checks = (("fragment", fragment), ("verb start", verb_start), ("noun pile", noun_pile))
    yield from (defect for defect, check in checks if check(name))
    if parent and parent_echo(name, parent):
        yield "parent echo"
    if _same_as_sibling(name, siblings):
        yield "same as a sibling"
    if titles is not None:
        own = title_share(name, titles, judged)
        others = [title_share(name, t, judged) for t in sibling_titles if len(t)]
        if own < RARE_SUPPORT or (others and max(others) >= own):
            yield "unsupported by its papers"
        if own < MIN_OWN_SUPPORT:
            yield "mixed node"


def _same_as_sibling(name: str, siblings: Iterable[str]) -> bool:
    """The same ``name_key`` as a sibling's name, or the same leading part ("large language models (LLMs)
    and reasoning" next to "large language model (LLM) and agents")."""

    key, lead = _keys(name)
    for other in siblings:
        other_key, other_lead = _keys(other)
        if other_key == key or (other_lead is not None and other_lead == lead):
            return True
    return False


@lru_cache(maxsize=200_000)
def _keys(name: str) -> tuple[Hashable, Hashable | None]:
    """``name_key`` of the name and of its leading part (None: no part), cached: a level's repair pass judges
    every node's names against the same siblings' names."""
    parts = name_parts(name)
    return name_key(name), name_key(parts[0]) if parts else None


def name_support(
    names: Mapping[Hashable, str],
    titles_by_node: Mapping[Hashable, Sequence[str]],
    siblings: Mapping[Hashable, Sequence[Hashable]],
    *,
    parents: Mapping[Hashable, str] | None = None,
    min_own: float = MIN_OWN_SUPPORT,
    max_sibling: float = MAX_SIBLING_SUPPORT,
) -> tuple[float, dict[Hashable, tuple[float, float]]]:
    """The share of nodes whose name their own papers support and their siblings' papers do not: at
    least ``min_own`` of the node's titles say the name and at most ``max_sibling`` of each sibling's
    titles do (``title_share``; a title says a name when it holds the words of one of its parts, less the
    parent's name's words, ``parents[node]``, and words true of most ML papers). Also node -> (own
    share, largest sibling share). A node without siblings needs only its own support."""
    parents = parents or {}
    per_node: dict[Hashable, tuple[float, float]] = {}
    for node, name in names.items():
        parent = parents.get(node, "")
        own = title_share(name, titles_by_node.get(node, ()), parent)
        sib = [title_share(name, titles_by_node.get(s, ()), parent) for s in siblings.get(node, ()) if s != node]
        per_node[node] = (own, max(sib, default=0.0))
    ok = sum(own >= min_own and sib <= max_sibling for own, sib in per_node.values())
    return (ok / len(per_node) if per_node else 1.0), per_node


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

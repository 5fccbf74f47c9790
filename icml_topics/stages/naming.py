"""Readable topic names from keyphrases: "federated learning (FL)", "offline reinforcement learning and
policy optimization", never ``3_graph_node_gnn`` or "reinforcement learning rl and agents learn".

The keyphrases are first cleaned (``icml_topics.stages.keyphrases``: variants merged, acronyms
attached, fragments dropped). The head phrase is the one that best covers the topic's most
representative papers (those nearest its centroid), weighed with its keyphrase rank; a second phrase
is joined only when it is about the same thing: it co-occurs with the head in the topic's papers (or,
given ``embed_fn``, its embedding is close). Offline and deterministic.

    >>> name_topics({0: ["graph neural networks", "graph", "message passing", "expressivity"]})
    {0: 'graph neural networks'}
    >>> docs = {0: ["Graph neural networks and message passing ...", "Message passing in graph neural networks ..."]}
    >>> name_topics({0: ["graph neural networks", "message passing"]}, texts=docs)
    {0: 'graph neural networks and message passing'}

A language model can name topics instead (off by default): pass ``namer``, a callable that gets a
``TopicInfo`` and returns a name; an empty or over-long answer falls back to the default name.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Container, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from icml_topics.stages.keyphrases import Phrase, dangling, merge_keyphrases, word_stems
from icml_topics.stages.stem_index import StemIndex

__all__ = ["OUTLIER_LABEL", "TopicInfo", "TopicNamer", "name_key", "name_topic", "name_topics"]

logger = logging.getLogger("icml_topics")

OUTLIER_LABEL = "Papers without a theme"
MAX_CHARS = 60
_PARENS = re.compile(r"\([^)]*\)")  # a parenthesised acronym in a name
_ACRONYM = re.compile(r"\((\w+)\)")  # its letters
_RELATED_COSINE = 0.55  # embedding similarity above which two phrases count as the same subject
_MIN_COOCCUR = 0.25  # or: share of the rarer phrase's papers that also mention the other
# phrases true of most ML papers: a name made of them says nothing
GENERIC_PHRASES = frozenset(
    "machine learning|deep learning|neural networks|neural network|deep neural networks|learning models|"
    "neural network models|machine learning models|ai|ml models|deep models|deep model|models|learning|"
    "training|data|algorithms|methods|performance|experiments|datasets|tasks".split("|")
)


@dataclass(frozen=True)
class TopicInfo:
    """What a custom namer sees for one topic."""

    topic: int
    keyphrases: list[str]  # cleaned, best first
    representative_texts: list[str]  # the papers nearest the topic centroid, nearest first
    default_name: str


TopicNamer = Callable[[TopicInfo], str]


def _related(a: Phrase, b: Phrase, ha: np.ndarray, hb: np.ndarray, embed_fn) -> bool:
    both = int((ha & hb).sum())
    rarer = min(int(ha.sum()), int(hb.sum()))
    if both >= 2 and both >= _MIN_COOCCUR * rarer:
        return True
    if embed_fn is not None:
        va, vb = np.asarray(embed_fn([a.text, b.text]), dtype=np.float32)
        cos = float(va @ vb / ((np.linalg.norm(va) * np.linalg.norm(vb)) or 1.0))
        return cos >= _RELATED_COSINE
    return False


def _shares_words(a: Phrase, b: Phrase) -> bool:
    return bool(a.stems & b.stems)


def name_topic(
    keyphrases: Sequence[str],
    texts: Sequence[str] = (),
    *,
    n_representative: int = 10,
    embed_fn: Callable[[list[str]], np.ndarray] | None = None,
    max_chars: int = MAX_CHARS,
    corpus: StemIndex | None = None,
    taken: Container[str] = frozenset(),
    within: str = "",
) -> str:
    """Name one topic from its keyphrases (best first) and its papers' texts (nearest the centroid
    first). ``corpus``: all papers, to discount phrases common everywhere ("machine learning");
    ``taken``: names of other topics, not to be repeated ("" when every candidate is taken);
    ``within``: the name of the topic this one is part of (a tree node's parent): a second phrase made
    only of its words is not joined to the head ("deterministic policy gradient", not "deterministic
    policy gradient and reinforcement learning" under "policy gradient and reinforcement learning")."""
    readable = list(_readable(tuple(keyphrases)))
    if not readable:
        return "unnamed topic"
    index = StemIndex(texts)
    n = len(readable)
    index.prefetch(readable)
    if corpus is not None:
        corpus.prefetch(readable)
    hits = [index.hits(p) for p in readable]
    rep = max(1, min(n_representative, len(texts)))

    def score(i: int) -> float:
        h = hits[i]
        cover_rep = float(h[:rep].mean()) if len(h) else 0.0
        cover_all = float(h.mean()) if len(h) else 0.0
        weight = 1.0
        if corpus is not None and cover_all > 0:  # lift over the whole corpus: generic phrases count less
            base = float(corpus.hits(readable[i]).mean()) or cover_all
            weight = float(np.clip(np.log2(max(cover_all / base, 1.0)) / 2.0, 0.0, 1.0))
        if " ".join(readable[i].words) in GENERIC_PHRASES:
            weight *= 0.2
        multi = 0.3 if len(readable[i].words) > 1 else 0.0
        return 0.6 * (1 - i / n) + weight * (cover_rep + 0.5 * cover_all) + multi

    ranked = sorted(range(n), key=lambda i: (-score(i), i))
    best = ranked[0]
    # a longer phrase holding the head's words, nearly as well covered, says more: "large language models (LLMs)"
    fuller = [
        i
        for i in ranked[1:]
        if len(readable[i].key) > len(readable[best].key)
        and set(readable[best].key) <= set(readable[i].key)
        and hits[i].sum() >= 0.5 * hits[best].sum()
        and len(readable[i].text) <= max_chars
    ]
    if fuller:
        ranked.remove(fuller[0])
        ranked.insert(0, fuller[0])
    outer = _name_stems(within) if within else set()
    for name in _candidate_names(readable, ranked, hits, embed_fn, max_chars, outer):
        if name not in taken:
            return name
    return ""  # every candidate is taken: the caller tells it apart


@lru_cache(maxsize=10_000)
def _readable(keyphrases: tuple[str, ...]) -> tuple[Phrase, ...]:
    """The cleaned phrases a topic's name is made of: readable ones, else its acronyms, else all (cached, and
    never changed: a topic may be named twice, and ``name_topics`` indexes all topics' phrases first)."""
    phrases = merge_keyphrases(keyphrases, drop_covered=False)
    readable = [p for p in phrases if p.words and not dangling(" ".join(p.words))]
    return tuple(readable or [p for p in phrases if p.acronym and not p.words] or phrases)


def _name_stems(name: str) -> set[str]:
    """The content-word stems of a name plus its parenthesised acronyms (lower case, no plural s)."""
    return set(word_stems(_PARENS.sub(" ", name))) | {m.group(1).lower().rstrip("s") for m in _ACRONYM.finditer(name)}


def _candidate_names(readable, ranked, hits, embed_fn, max_chars, outer=frozenset()):
    """Names in order of preference: the best head with a related second phrase, the head alone, then
    the same for the next heads (used when a better name is already taken by another topic). A second
    phrase made only of ``outer`` words (the parent's name) is not joined: it says nothing new."""
    first = readable[ranked[0]]
    for rank, h in enumerate(ranked[:3]):
        head = readable[h]
        if rank and (len(head.words) < 2 or _shares_words(head, first)):
            continue  # another head must be a phrase of its own, not a part of the first
        name = head.text if len(head.text) <= max_chars else " ".join(head.words) or head.text
        considered = 0
        for i in ranked:
            other = readable[i]
            if i == h or not other.words or _shares_words(head, other) or len(hits[i]) == 0:
                continue
            if " ".join(other.words) in GENERIC_PHRASES or len(other.words) == 1 or (outer and set(other.key) <= outer):
                continue  # a second phrase must say something on its own: "bandits and regret bounds"
            considered += 1
            if considered > 4:
                break
            joined = f"{name} and {other.text}"
            if len(joined) > max_chars:
                joined = f"{name} and {' '.join(other.words)}"
            if len(joined) <= max_chars and _related(head, other, hits[h], hits[i], embed_fn):
                yield joined
        yield name
    # last resort, to tell a topic from one with the same best name: "reinforcement learning (RL): planning"
    # a phrase that meets the head in the topic's papers first ("submodular maximization: adaptive
    # submodularity" reads as two subjects when they never meet)
    base = first.text if len(first.text) <= max_chars else " ".join(first.words)
    rest = [
        i
        for i in ranked[1:]
        if readable[i].words
        and not _shares_words(first, readable[i])
        and len(base) + 2 + len(" ".join(readable[i].words)) <= max_chars
    ]
    for i in rest:
        if _related(first, readable[i], hits[ranked[0]], hits[i], embed_fn):
            yield f"{base}: {' '.join(readable[i].words)}"


def name_key(name: str) -> Hashable:
    """What two names must not share to be told apart: their content-word stems, in any order, with
    parenthesised acronyms left out. "generative adversarial networks (GANs)" and "generative adversarial
    network (GAN)" share one key, as do "large language models (LLMs)" and "large language models", and
    "A and B" and "B and A".

        >>> name_key("generative adversarial networks (GANs)") == name_key("generative adversarial network (GAN)")
        True
    """
    stems = frozenset(word_stems(_PARENS.sub(" ", name)))
    return stems or name.lower().strip()


class _TakenNames:
    """The names given so far, compared through a key (``in`` asks whether a name's key is taken), plus
    keys one topic must avoid besides (``avoiding``: e.g. its parent's name in a topic tree)."""

    def __init__(
        self, key: Callable[[str], Hashable], owner: dict | None = None, extra: frozenset = frozenset()
    ) -> None:
        self.key, self.owner, self.extra = key, {} if owner is None else owner, extra

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        key = self.key(name)
        return key in self.owner or key in self.extra

    def avoiding(self, names: Sequence[str]) -> _TakenNames:
        return _TakenNames(self.key, self.owner, frozenset(self.key(n) for n in names))

    def add(self, name: str, topic: int) -> None:
        self.owner[self.key(name)] = topic


def _told_apart(
    base: str,
    keyphrases: Sequence[str],
    taken: _TakenNames,
    docs: Sequence[str] = (),
    max_chars: int = MAX_CHARS,
    related_only: bool = False,
) -> str:
    """``base`` with the first of the topic's own keyphrases that makes it a name not taken yet (as
    Toponymy disambiguates: say what tells the topic apart), or "" when none does. Given the topic's
    papers (``docs``), a phrase that meets ``base`` in them comes first (``related_only``: only such)."""
    base_stems = _name_stems(base)
    phrases = [
        p
        for p in merge_keyphrases(keyphrases, drop_covered=False)
        if p.words and not p.stems & base_stems and " ".join(p.words) not in GENERIC_PHRASES
    ]
    heads = merge_keyphrases([_PARENS.sub(" ", base)], drop_covered=False)
    if docs and heads and phrases:
        index = StemIndex(docs)
        index.prefetch([heads[0], *phrases])
        head_hits = index.hits(heads[0])
        related = [p for p in phrases if _related(heads[0], p, head_hits, index.hits(p), None)]
        phrases = related if related_only else related + [p for p in phrases if p not in related]
    elif related_only:
        return ""
    for phrase in phrases:
        words = " ".join(phrase.words) or phrase.text
        for name in (f"{base}: {phrase.text}", f"{base}: {words}"):
            if len(name) <= max_chars and name not in taken:
                return name
    return ""


def _own_phrase(keyphrases: Sequence[str], taken: _TakenNames, within: str = "", max_chars: int = MAX_CHARS) -> str:
    """The first of the topic's own keyphrases that reads as a name on its own (several words, not
    dangling, not generic, not only the words of ``within``) and is not taken: "local differential
    privacy" for a second "differential privacy" node. "" when none is."""
    outer = _name_stems(within) if within else set()
    for phrase in merge_keyphrases(keyphrases, drop_covered=False):
        text = " ".join(phrase.words)
        if len(phrase.words) < 2 or dangling(text) or text in GENERIC_PHRASES or (outer and set(phrase.key) <= outer):
            continue
        if len(phrase.text) <= max_chars and phrase.text not in taken:
            return phrase.text
    return ""


def name_topics(
    keywords: Mapping[int, Sequence[str]],
    texts: Mapping[int, Sequence[str]] | None = None,
    *,
    embed_fn: Callable[[list[str]], np.ndarray] | None = None,
    namer: TopicNamer | None = None,
    distinct: Callable[[str], Hashable] | None = None,
    avoid: Mapping[int, Sequence[str]] | None = None,
) -> dict[int, str]:
    """Name every topic; ``-1`` is the outlier group. ``texts[t]``: topic ``t``'s papers, nearest its
    centroid first. Duplicate names get a distinguishing phrase (or the topic id). ``distinct``: a key
    two names must not share (e.g. ``name_key``, which also tells plurals, acronyms and word order
    apart); default: the name itself. ``avoid[t]``: names topic ``t`` must not take either (under the same
    key; a topic tree passes each node's parent name), and whose words alone add nothing to a name
    (``within`` of ``name_topic``). Topics are named in id order, so a lower id keeps the plain name.

    Args:
        keywords: topic id -> its cleaned keyphrases, best first.
        texts: topic id -> its papers' texts, nearest the centroid first; ``None``: named from keyphrases only.
        embed_fn: embeds texts (to weigh phrases against the papers); ``None``: no embedding.
        namer: a ``TopicMap(topic_namer=)`` callable naming a topic; ``None``: the offline naming.
        distinct: as above.
        avoid: as above.

    Examples:
        >>> name_topics({0: ["graph neural networks", "message passing"]})
        {0: 'graph neural networks'}
    """
    names: dict[int, str] = {}
    used = _TakenNames(distinct or (lambda s: s))
    texts = texts or {}
    corpus = StemIndex([t for docs in texts.values() for t in docs]) if texts else None
    if corpus is not None:  # every topic asks the corpus for its phrases: their stems indexed in one pass
        corpus.prefetch(p for topic in keywords if topic != -1 for p in _readable(tuple(keywords[topic])))
    for topic in sorted(keywords):
        if topic == -1:
            names[topic] = OUTLIER_LABEL
            continue
        docs = list(texts.get(topic, ()))
        outer = list((avoid or {}).get(topic, ()))
        taken = used.avoiding(outer)
        within = " ".join(outer)
        name = name_topic(keywords[topic], docs, embed_fn=embed_fn, corpus=corpus, taken=taken, within=within)
        if not name:
            base = name_topic(keywords[topic], docs, embed_fn=embed_fn, corpus=corpus, within=within)
            if distinct is not None:
                name = (
                    _told_apart(base, keywords[topic], taken, docs, related_only=True)
                    or _own_phrase(keywords[topic], taken, within)
                    or _told_apart(base, keywords[topic], taken, docs)
                )
            name = name or f"{base} ({topic})"
        if namer is not None:
            name = _custom_name(namer, topic, keywords[topic], docs, name)
        if name in taken and not name.endswith(f" ({topic})"):  # the id suffix is no content word for the key
            name = f"{name} ({topic})"
        used.add(name, topic)
        names[topic] = name
    return names


def _custom_name(namer: TopicNamer, topic: int, keywords: Sequence[str], docs: list[str], default: str) -> str:
    info = TopicInfo(topic, [p.text for p in merge_keyphrases(keywords)], docs[:5], default)
    try:
        answer = namer(info)
    except Exception as exc:  # a failing user hook must not lose the fit
        logger.warning("custom topic namer failed on topic %d (%s); using %r", topic, exc, default)
        return default
    answer = " ".join(str(answer or "").split()).strip(" .\"'")
    if not answer or len(answer) > 80:
        logger.warning("custom topic namer gave %r for topic %d; using %r", answer, topic, default)
        return default
    return answer

"""Each candidate phrase's share in each sibling's titles, computed once for the siblings of one naming call
(issue 49's sibling prior, issue 51's cost at scale).

A share is computed only in the children whose titles hold every stem the phrase needs; in every other child
it is 0. A sibling's share is counted as if it had ``SIBLING_PRIOR`` more papers at the rate of all the
siblings' papers together, so a tiny sibling's share, mostly chance, does not bar a phrase.

    >>> shares = SiblingShares({"a": ChildPapers(["Jailbreaking LLMs"]), "b": ChildPapers(["Watermarks for LLMs"])}, "", 60)
    >>> shares.share("jailbreaking", "a"), shares.share("jailbreaking", "b")
    (1.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from icml_topics.evaluate.name_rules import claim_sets, title_share
from icml_topics.stages.name_phrases import TitleStems, needed_stems, quick_share

__all__ = ["SIBLING_PRIOR", "ChildPapers", "SiblingShares"]

#: a sibling's share is counted as if it had this many more papers at the rate of all the siblings' papers
#: (tuned on ``iclr24_tune``: names kept after a 10% drop 53% -> 56% of the finest nodes, as many supported)
SIBLING_PRIOR = 10.0


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


class SiblingShares:
    """The children of one ``sibling_names`` call and what their rankings share: each child's title index,
    each candidate key's quick share and each name's title share in each child (a phrase is a candidate of
    several children: its shares are computed once).

    A share is computed only in the children whose titles hold every stem the phrase needs (an index stem ->
    children, one for each title index); in every other child it is 0. So a level's group of G children costs
    about G times the candidates, not G squared: a theme's finest level at a million papers has thousands."""

    def __init__(self, children: Mapping[Hashable, ChildPapers], parent: str, max_chars: int) -> None:
        self.children, self.parent, self.max_chars = children, parent, max_chars
        self.stems = {k: TitleStems(c.titles) for k, c in children.items()}
        self._quick: dict[tuple[str, ...], dict[Hashable, float]] = {}
        self._shares: dict[tuple[str, Hashable], float] = {}
        self._stem_children = _holders_index({k: s.postings for k, s in self.stems.items()})
        self._claim_children = _holders_index(
            {k: getattr(c.titles, "postings", None) for k, c in children.items()}
        )  # None: titles without an index (every child is asked)
        self._papers = sum(s.n for s in self.stems.values())
        self._smallest = sorted(self.stems, key=lambda k: self.stems[k].n)  # (a stable sort: ties in input order)

    def quick(self, key: tuple[str, ...], me: Hashable) -> tuple[float, float]:
        """``key``'s quick shares, on the stems of the titles: my papers' and the largest of my siblings'
        (``sibling_share``)."""
        shares = self._quick.get(key)
        if shares is None:
            want, alt = needed_stems(key)
            holders = _holding(self._stem_children, [want], self.stems) if want else list(self.stems)
            if alt is not None and self._stem_children.get(alt):
                extra = self._stem_children[alt]
                holders = [k for k in self.stems if k in extra or k in set(holders)]
            shares = self._quick[key] = {k: quick_share(key, self.stems[k]) for k in holders}
        return shares.get(me, 0.0), self.sibling_share(shares, me)

    def holders(self, name: str) -> list[Hashable]:
        """The children, in order, whose titles may say ``name`` (hold every stem of one of its claims): its
        ``share`` in any other child is 0."""
        claims = claim_sets(name, self.parent)
        return _holding(self._claim_children, claims, self.children) if all(claims) else list(self.children)

    def share(self, name: str, child: Hashable) -> float:
        """``title_share`` of ``name`` in the child's titles."""
        found = self._shares.get((name, child))
        if found is None:
            found = self._shares[name, child] = title_share(name, self.children[child].titles, self.parent)
        return found

    def sibling_share(self, shares: Mapping[Hashable, float], me: Hashable) -> float:
        """The largest share among my siblings' (``shares``: child -> share), each sibling's counted as if it
        had ``SIBLING_PRIOR`` more papers at the rate of all my siblings' papers together: a sibling of five
        papers, two of which say a phrase, does not bar the phrase from me alone (its share moves by a fifth
        with each paper; a 10% resample renamed nodes for such siblings)."""
        if len(self.stems) - (me in self.stems) < 1:
            return 0.0
        # ``shares`` may hold only the children that carry the phrase at all: every other sibling's share is 0
        sizes = {k: self.stems[k].n for k in shares if k != me}
        hits = {k: shares[k] * n for k, n in sizes.items()}
        pooled = sum(hits.values()) / max(self._papers - (self.stems[me].n if me in self.stems else 0), 1)
        best = max(((hits[k] + SIBLING_PRIOR * pooled) / (n + SIBLING_PRIOR) for k, n in sizes.items()), default=0.0)
        absent = next((k for k in self._smallest if k != me and k not in shares), None)  # the smallest sharing 0
        if absent is not None:
            best = max(best, (0.0 + SIBLING_PRIOR * pooled) / (self.stems[absent].n + SIBLING_PRIOR))
        return best


def _holders_index(postings: Mapping[Hashable, Mapping[str, object] | None]) -> dict:
    """Stem -> the children whose titles hold it; the children without an index (``None``) under key ``None``."""
    index: dict = {None: {k for k, p in postings.items() if p is None}}
    for k, p in postings.items():
        for s in p or ():
            index.setdefault(s, set()).add(k)
    return index


def _holding(index: dict, claims: Sequence[frozenset[str]], everyone: Mapping[Hashable, object]) -> list[Hashable]:
    """The children, in ``everyone``'s order, whose titles hold every stem of at least one claim (or that have
    no index: ``index[None]``)."""
    found: set = set(index[None])
    for claim in claims:
        held = [index.get(s, set()) for s in claim]
        found |= set.intersection(*sorted(held, key=len)) if held else set(everyone)
    return [k for k in everyone if k in found]

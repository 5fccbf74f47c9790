"""Names for every node of the topic tree, each told apart from the other nodes of its level and theme
(issues 39 and 49).

Each level is named on its own, its nodes compared with the other nodes of the same level and research
theme ([`group_names`][icml_topics.stages.sibling_names.group_names]: the phrases of the node's own titles
and author keywords that the others' papers carry less often); the words that do not count are
the theme's. No name hangs on another level's: until issue 49 a finer node was named under its parent's new
name, against its parent's other children only, so one parent renamed after a 10% resample renamed its
children too (on tuning data, 39% of the reappearing finest nodes kept their name that way, 58% now). A node
told apart from every node of its theme at its level is told apart from its parent's other children too.
A coarser node may carry the name of its largest child where most of its papers are that child's ("in-context
learning" over "in-context learning"); a name is never repeated within a level. The nodes alone in their theme
at their level are named the same way, compared with each other, their themes' words allowed (such a node
is most of its theme). Until issue 49's stability work they kept their
keyphrase name (``fallback``), which BERTopic ranks against the whole corpus, so dropping 10% of the papers
renamed nodes whose papers had not changed ("multi-agent reinforcement learning (MARL) and markov games" ->
"multi-agent reinforcement learning (MARL)"; on tuning data 9 of the 11 renamed coarser nodes). A node
without a phrase of its own keeps its keyphrase name.
Then a repair pass (``repair_names``), coarsest level first: a node whose
name fails ``evaluate.names.name_defects`` read with its own papers, its parent's name and its siblings' names
and papers (what ``compare.name_checks`` judges it by) takes the first of its own phrases that passes, the
phrase most of its papers carry first (one phrase held by a fifth of its titles and keywords, then the one
they hold most joined by "and" with another, said by at least 40% of them; never a name another node of its
level has). A node for which none passes keeps its name (and stays flagged). Joining any two phrases repairs
more names (what_changed 64 -> 45 failing of 96 judged, ICML 248 -> 206 of 306, against 57 and 227) but keeps
fewer after a 10% drop (tuning data, 90/24 papers a node: 49% and 74% kept at the finest and coarser level,
against 57% and 78% this way and 56% and 80% without the pass; ``benchmarks/results/names_tune.md``).
The pass indexes each sibling group's titles and texts once for every name it judges (``_Group``), compares a
name only with the siblings whose papers hold its words, and stops at a name's first defect
(``name_defects(first=True)``): the same names as judging every name in full, at about half the naming's CPU
on the tuning data (``benchmarks/results/names_cost.md``).
Names are cached by content (they take ~20 s on 5,600 papers and are the same for the same nodes).

    >>> names = name_levels(labels, parents, themes, titles, texts, fallback)  # doctest: +SKIP
    >>> names[-1][labels[0, -1]]  # doctest: +SKIP
    'offline reinforcement learning'
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

from icml_topics.evaluate.name_rules import IndexedTitles, claim_sets, held_stems, title_share
from icml_topics.evaluate.names import name_defects
from icml_topics.stages.defaults import MIN_NODE_SIZE
from icml_topics.stages.name_phrases import phrase_counts
from icml_topics.stages.naming import name_key
from icml_topics.stages.representatives import label_rows
from icml_topics.stages.sibling_names import ChildPapers, group_names
from icml_topics.store.cache import cached_json, content_key
from icml_topics.text import acronym_letters

__all__ = ["name_levels", "node_theme", "repair_names", "shown_titles"]

_VERSION = "tree-names-v26"  # v20, v21 (session 6), v23 and v24 (session 8) were unmerged trials; caches may hold them
_CANDIDATE_SHARE = 0.2  # a repair candidate is held by this share of the node's titles and keywords
_MAX_CANDIDATES = 12  # ... the ones held most (and their pairs joined by "and")
_REPAIR_SHARE = 0.4  # a repaired name is said by this share of them
_SUBJECT_SPLIT = re.compile(r"\s+(?:and|&)\s+|[,:;()]\s*")  # a theme's phrases, its parentheses opened
_TITLE_WORDS = 14  # a paper without a title is represented by the first words of its text


def node_theme(labels: np.ndarray, themes: Sequence[str]) -> dict[int, str]:
    """Each node's theme: the most common theme of its papers (ties: the first in name order).

    >>> node_theme(np.array([3, 3, 4]), ["RL", "RL", "Graphs"])
    {3: 'RL', 4: 'Graphs'}
    """
    out: dict[int, str] = {}
    counts: dict[int, Counter] = {}
    for node, theme in zip(labels.tolist(), themes, strict=True):
        if node >= 0:
            counts.setdefault(node, Counter())[str(theme or "")] += 1
    for node, c in counts.items():
        out[node] = min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return out


_NO_ROWS = np.zeros(0, dtype=np.int64)


def _papers(
    rows: np.ndarray, titles: Sequence[str], author_keywords: Sequence[Sequence[str]] | None, texts: Sequence[str]
) -> ChildPapers:
    """One node's papers: each paper's title and author keywords as one text (a name is carried by a paper
    when either says it)."""
    shown = ["; ".join([titles[i], *(author_keywords[i] if author_keywords is not None else ())]) for i in rows]
    return ChildPapers(shown, [str(texts[i] or "") for i in rows])


def shown_titles(titles: Sequence[str], texts: Sequence[str]) -> list[str]:
    """Titles, or the first words of the text where a paper has none (what a name is chosen from, and judged
    by: ``compare.name_checks``)."""
    out = []
    for title, text in zip(titles, texts, strict=True):
        title = str(title or "").strip()
        out.append(title if title else " ".join(str(text or "").split()[:_TITLE_WORDS]))
    return out


def name_levels(
    labels: np.ndarray,
    parents: Sequence[Mapping[int, int]],
    themes: Sequence[str],
    titles: Sequence[str],
    texts: Sequence[str],
    fallback: Sequence[Mapping[int, str]],
    *,
    author_keywords: Sequence[Sequence[str]] | None = None,
    cache_dir: Path | None = None,
) -> list[dict[int, str]]:
    """One name per node of every level (``labels``: papers x levels, finest first; ``parents[l]``: a
    node's parent one level up, -1 at the top); ``fallback[l][node]``: the name a node keeps when no
    phrase sets it apart."""
    shown = shown_titles(titles, texts)
    n_levels = labels.shape[1]
    key = content_key(
        _VERSION, np.ascontiguousarray(labels), list(themes), shown, [str(t or "") for t in texts],
        [sorted(f.items()) for f in fallback],
        [list(k) for k in author_keywords] if author_keywords is not None else [],
    )  # fmt: skip

    def compute() -> dict:
        names: list[dict[int, str]] = [{} for _ in range(n_levels)]
        top_theme = node_theme(labels[:, -1], themes)  # each node's research theme: its top ancestor's
        themes_of = [top_theme]
        for level in reversed(range(n_levels - 1)):
            themes_of.insert(0, {node: themes_of[0].get(parents[level][node], "") for node in parents[level]})
        for level in range(n_levels):  # each level on its own: no name hangs on another level's
            rows_of = label_rows(labels[:, level])  # each node's rows, in one sort of the column
            theme = themes_of[level]
            groups: dict[object, list[int]] = {}  # compared with each other: the level's nodes of one theme
            for node in sorted(parents[level]):
                groups.setdefault(theme.get(node, ""), []).append(node)
            several: list[tuple[str, dict]] = []
            lone: dict[int, ChildPapers] = {}  # nodes alone in their theme at this level
            for members in groups.values():
                kids = {node: _papers(rows_of.get(node, _NO_ROWS), shown, author_keywords, texts) for node in members}
                if len(kids) == 1:
                    lone.update(kids)
                else:
                    several.append((theme.get(members[0], ""), kids))
            if lone:  # compared with each other, their themes' words allowed (each node is most of its theme)
                several.append(("", lone))
            names[level].update(group_names(several, fallback=fallback[level]))
        said = _papers(np.arange(len(shown)), shown, author_keywords, texts).titles  # as compare.name_checks reads
        judged = [". ".join(p for p in (said[i], str(texts[i] or "")) if p) for i in range(len(shown))]
        repair_names(names, labels, parents, themes_of, said, judged)
        return {"names": [{str(k): v for k, v in level.items()} for level in names]}

    def valid(value: object) -> bool:
        return isinstance(value, dict) and len(value.get("names", ())) == n_levels

    value = cached_json(key, compute, cache_dir, check=valid)
    return [{int(k): v for k, v in level.items()} for level in value["names"]]


def _repair_tries(said: Sequence[str]) -> list[str]:
    """A node's own phrases that may name it, the one most of its papers say first (``said``: each paper's
    title and author keywords)."""
    counts = phrase_counts(said)
    top = sorted((c for c in counts.values() if c[0] >= _CANDIDATE_SHARE * len(said)), reverse=True)
    phrases = [form for _, form in top[:_MAX_CANDIDATES]]
    tries = phrases + [
        f"{phrases[0]} and {b}" for b in phrases[1:]
    ]  # pairs led by the top phrase only: fewer near-ties, steadier names
    shares = {t: title_share(t, said) for t in tries}
    return sorted((t for t in tries if shares[t] >= _REPAIR_SHARE), key=lambda t: (" and " in t, -shares[t]))  # stable


def _subject_tries(subject: str) -> list[str]:
    """The names a node alone under ``subject`` (its theme or its parent's name) may take from it: each of its
    phrases ("Bandits & online learning" -> "bandits", "online learning"; parentheses opened: "Efficiency
    (compression & quantization)" -> "efficiency", "compression", "quantization"), then the whole, joined by
    "and", where it has two. Tried after the node's own phrases, judged by the same checks: a node of three
    causal-inference papers named "estimates" becomes "causality".

    >>> _subject_tries("Bandits & online learning")
    ['bandits', 'online learning', 'bandits and online learning']
    """
    parts = [p.strip() for p in _SUBJECT_SPLIT.split(subject) if p.strip()]
    parts = [p if acronym_letters(p) else p[0].lower() + p[1:] for p in parts]
    return parts + ([" and ".join(parts)] if len(parts) == 2 else [])


class _Group:
    """One group of siblings of a level as the repair pass reads them, for all the names it judges: the stems
    each node's titles and keywords (``said``) hold and those its texts hold (sorted tuples: a level's groups
    interleave in node order, so most of them live through the level), and the node being judged's titles and
    texts as ``IndexedTitles`` (one node's at a time). A name is compared only with the siblings whose papers
    hold every stem of one of its claims (its ``title_share`` is 0 in every other; a share of 0 never fails a
    check that a larger one passes); a sibling's papers are read as they are."""

    def __init__(self, rows: Mapping[int, np.ndarray], said: Sequence[str], texts: Sequence[str]) -> None:
        self.nodes, self._rows, self._all = sorted(rows), rows, {"said": said, "texts": texts}
        self._stems: dict[str, dict[int, tuple[str, ...]]] = {}
        self._own: dict[tuple[str, int], IndexedTitles] = {}

    def own(self, what: str, node: int) -> IndexedTitles:
        """The node's papers' ``said`` or ``texts``, indexed (kept for the last node asked only)."""
        if (what, node) not in self._own:
            self._own = {k: v for k, v in self._own.items() if k[1] == node}
            self._own[what, node] = IndexedTitles(self._of(what, node))
        return self._own[what, node]

    def _of(self, what: str, node: int) -> list[str]:
        return [self._all[what][i] for i in self._rows[node]]

    def _siblings(self, what: str, claims: Sequence[frozenset[str]], kids: Sequence[int]) -> Iterator[list[str]]:
        """The papers (``said`` or ``texts``) of the nodes among ``kids`` that hold every stem of one of
        ``claims`` (each node's stems read when first asked)."""
        if what not in self._stems:
            self._stems[what] = {n: tuple(sorted(held_stems(self._of(what, n)))) for n in self.nodes}
        stems = self._stems[what]
        yield from (self._of(what, k) for k in kids if any(all(_holds(stems[k], s) for s in c) for c in claims))

    def fails(self, name: str, node: int, parent: str, names: Mapping[int, str]) -> bool:
        """Whether ``name`` fails a check of ``name_defects`` for ``node`` among the group's other nodes (a node
        of fewer than ``MIN_NODE_SIZE`` papers is not asked its titles' shares, as ``compare.name_checks``)."""
        kids = [k for k in self.nodes if k != node]
        claims = claim_sets(name, parent)
        few = len(self._rows[node]) < MIN_NODE_SIZE
        found = name_defects(
            name,
            parent=parent,
            siblings=[names[k] for k in kids],
            titles=None if few else self.own("said", node),
            sibling_titles=() if few else self._siblings("said", claims, kids),
            papers=self.own("texts", node),
            sibling_papers=self._siblings("texts", claims, kids),
            alone=not kids,
            first=True,
        )
        return bool(found)


def _holds(stems: tuple[str, ...], stem: str) -> bool:
    """``stem`` is in the sorted ``stems``."""
    i = bisect_left(stems, stem)
    return i < len(stems) and stems[i] == stem


def repair_names(
    names: list[dict[int, str]],
    labels: np.ndarray,
    parents: Sequence[Mapping[int, int]],
    themes_of: Sequence[Mapping[int, str]],
    said: Sequence[str],
    texts: Sequence[str],
) -> None:
    """Rename, in place, each node whose name fails ``name_defects`` (read
    with its papers, its parent's name, or its theme at the top, and its siblings': the other children of its
    parent, or the top nodes of its theme) to the first of its own phrases that passes (``_repair_tries``),
    never a name (``name_key``) another node of its level has. Coarsest level first, so a node is judged under
    its parent's final name. ``said``: each paper's title and author keywords; ``texts``: each paper's text."""
    top = labels.shape[1] - 1
    for level in reversed(range(labels.shape[1])):
        here = names[level]
        group = {n: themes_of[level].get(n, "") if level == top else parents[level][n] for n in parents[level]}
        rows_of = {n: r for n, r in label_rows(labels[:, level]).items() if n in group}
        members: dict[object, dict[int, np.ndarray]] = {}
        for node in sorted(rows_of):
            members.setdefault(group[node], {})[node] = rows_of[node]
        judged = sorted(rows_of)  # a small node too: judged by its papers' texts (``_Group.fails``)
        last = {group[n]: n for n in judged}  # a group's index is dropped after its last judged node
        indexed: dict[object, _Group] = {}
        keys = Counter(name_key(v) for v in here.values())  # every name of the level, by key
        for node in judged:  # in one order over the level: which node takes a name first does not hang on groups
            sibs = indexed.get(group[node]) or indexed.setdefault(
                group[node], _Group(members[group[node]], said, texts)
            )
            parent = themes_of[level].get(node, "") if level == top else names[level + 1].get(parents[level][node], "")
            if sibs.fails(here.get(node, ""), node, parent, here):
                _repair(node, parent, sibs, here, keys)
            if last[group[node]] == node:
                del indexed[group[node]]


def _repair(node: int, parent: str, sibs: _Group, here: dict[int, str], keys: Counter) -> None:
    """Give ``node`` the first of its own phrases that passes and whose ``name_key`` no other node of the
    level has (``keys``: how many of the level's names have each key, kept up to date)."""
    mine = name_key(here[node]) if node in here else None
    alone = len(sibs.nodes) == 1  # the whole of its parent (or theme): the subject's own words may name it
    for name in _repair_tries(sibs.own("said", node)) + (_subject_tries(parent) if alone else []):
        key = name_key(name)
        if keys[key] - (key == mine) <= 0 and not sibs.fails(name, node, parent, here):
            if node in here:
                keys[mine] -= 1
            here[node], keys[key] = name, keys[key] + 1
            return

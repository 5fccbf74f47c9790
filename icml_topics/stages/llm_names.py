"""Tree names from a language model (``TopicMap(topic_namer=OpenAINamer(...))``), checked, with the offline
names kept wherever an answer is missing or not usable.

The tree is named top-down as the offline names are (``stages/tree_names.py``): the children of one parent
(the top level's under their theme) are one ``SiblingGroup``, named together in one request, so the model
sees every sibling and gives names that tell them apart (Toponymy's manner of naming a layer's siblings
collectively). An answer is kept per node only when it is a usable name (1 to ``MAX_WORDS`` words, at most
``MAX_CHARS`` characters, not its parent's name) and no other node of its level has that name
(``name_key``: plurals, case and word order do not make two names different); every other node keeps
its offline name. A namer that cannot be reached is asked once: the rest of the tree keeps its offline
names, and one line at info level says so.

    >>> brief = NodeBrief(node=3, size=40, keyphrases=("kv cache",), titles=("Compressing the KV cache",))
    >>> SiblingGroup(parent="Large language models", level=0, nodes=(brief,)).nodes[0].node
    3
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from icml_topics._progress import STAGE
from icml_topics.stages.keyphrases import merge_keyphrases
from icml_topics.stages.naming import name_key
from icml_topics.stages.tree_names import node_theme

__all__ = ["MAX_CHARS", "MAX_WORDS", "NamerUnavailable", "NodeBrief", "SiblingGroup", "SiblingNamer", "llm_levels"]

logger = logging.getLogger("icml_topics")

MAX_CHARS = 80
"""The longest name kept from a language model's answer (characters)."""
MAX_WORDS = 8
"""The most words a name from a language model may have (the prompt asks for 2 to 6)."""
_TITLE_WORDS = 14  # a paper without a title is shown by the first words of its text
_LETTER = re.compile(r"[^\W\d_]")


@dataclass(frozen=True)
class NodeBrief:
    """What the namer is told about one node: its id, its number of papers, its cleaned keyphrases (best
    first) and its most representative papers' titles (nearest its centroid first)."""

    node: int
    size: int
    keyphrases: tuple[str, ...]
    titles: tuple[str, ...]


@dataclass(frozen=True)
class SiblingGroup:
    """The children of one parent, to be named together: ``parent`` is the parent's name (a research theme
    at the top level, "" for papers without a theme), ``level`` the tree level (0 = finest)."""

    parent: str
    level: int
    nodes: tuple[NodeBrief, ...]


class NamerUnavailable(Exception):
    """Raised by a ``SiblingNamer`` that could not get an answer (timeout, connection refused, an HTTP error,
    a reply that is not a chat completion): the fit asks it no more and keeps the offline names."""


@runtime_checkable
class SiblingNamer(Protocol):
    """A namer of sibling groups (``OpenAINamer`` is one): ``name_siblings`` returns one candidate name per
    node of ``group`` (``None`` where it has none), or raises ``NamerUnavailable``; ``cache_dir`` is the
    fit's cache folder for its answers (``None``: no cache)."""

    def name_siblings(self, group: SiblingGroup, cache_dir: Path | None = None) -> list[str | None]: ...


@dataclass
class _Tally:
    """Why answers were not kept, counted over the whole tree (logged once at the end)."""

    asked: int = 0
    kept: int = 0
    problems: Counter = field(default_factory=Counter)
    unavailable: str = ""


def clean_name(answer: object) -> str | None:
    """A candidate name as shown (spaces collapsed, quotes and a final full stop dropped), or ``None`` when it
    is not a usable name: not text, empty, longer than ``MAX_CHARS`` or ``MAX_WORDS``, or without a letter.

        >>> clean_name('  "KV-cache compression."  '), clean_name("x" * 81), clean_name(3)
        ('KV-cache compression', None, None)
    """
    if not isinstance(answer, str):
        return None
    text = " ".join(answer.split()).strip(" \"'`*.:;,")
    if not text or len(text) > MAX_CHARS or len(text.split()) > MAX_WORDS or not _LETTER.search(text):
        return None
    return text


def _shown_titles(titles: Sequence[str], texts: Sequence[str]) -> list[str]:
    out = []
    for title, text in zip(titles, texts, strict=True):
        title = " ".join(str(title or "").split())
        out.append(title if title else " ".join(str(text or "").split()[:_TITLE_WORDS]))
    return out


def _resolve(
    nodes: Sequence[int], answers: Mapping[int, str | None], offline: Mapping[int, str], parents: Mapping[int, str]
) -> tuple[dict[int, str], set[int], Counter]:
    """Each node's name at one level: its answer where usable and unique, else its offline name (a fixed point:
    a node falling back takes its offline name, which no kept answer may then share)."""
    problems: Counter = Counter()
    back = {n for n in nodes if answers.get(n) is None}
    problems["not a usable name"] = len(back)
    while True:
        kept: dict[int, str] = {}
        given = {name_key(offline[n]) for n in back if n in offline}
        rejected = None
        for n in nodes:
            if n in back:
                continue
            key = name_key(answers[n] or "")
            if key == name_key(parents.get(n, "")) or key in given:
                rejected = n
                problems["its parent's name" if key == name_key(parents.get(n, "")) else "a name given twice"] += 1
                break
            given.add(key)
            kept[n] = answers[n] or ""
        if rejected is None:
            return {n: kept.get(n, offline.get(n, "")) for n in nodes}, set(kept), problems
        back.add(rejected)


def _ask(namer: SiblingNamer, group: SiblingGroup, cache_dir: Path | None, tally: _Tally) -> list[str | None]:
    if tally.unavailable:
        return [None] * len(group.nodes)
    try:
        answer = list(namer.name_siblings(group, cache_dir))
    except NamerUnavailable as exc:
        tally.unavailable = str(exc) or type(exc).__name__
        return [None] * len(group.nodes)
    if len(answer) != len(group.nodes):
        return [None] * len(group.nodes)
    return [clean_name(a) for a in answer]


def llm_levels(
    namer: SiblingNamer,
    labels: np.ndarray,
    parents: Sequence[Mapping[int, int]],
    themes: Sequence[str],
    texts: Sequence[str],
    titles: Sequence[str],
    keywords: Sequence[Mapping[int, Sequence[str]]],
    offline: Sequence[Mapping[int, str]],
    order: Sequence[Mapping[int, Sequence[int]]],
    *,
    cache_dir: Path | None = None,
    n_keyphrases: int = 10,
    n_titles: int = 8,
) -> list[dict[int, str]]:
    """Every node's name from ``namer``, top-down (``labels``, ``parents``: as ``name_levels`` reads them;
    ``keywords[l][node]``: its keyphrases; ``offline[l][node]``: the name it keeps when the answer is not
    usable; ``order[l][node]``: its papers' rows, nearest its centroid first)."""
    shown = _shown_titles(titles, texts)
    n_levels = labels.shape[1]
    names: list[dict[int, str]] = [dict(level) for level in offline]
    top_theme = node_theme(labels[:, -1], themes)
    tally = _Tally()
    n_nodes = sum(len(p) for p in parents)
    logger.info("naming the %d tree nodes with %r", n_nodes, namer, extra={STAGE: True})  # the CLI shows it
    for level in reversed(range(n_levels)):
        column = labels[:, level]
        sizes = Counter(column[column >= 0].tolist())
        groups: dict[str, list[int]] = {}
        parent_of: dict[int, str] = {}
        for node in sorted(parents[level]):
            up = top_theme.get(node, "") if level == n_levels - 1 else names[level + 1].get(parents[level][node], "")
            groups.setdefault(up, []).append(node)
            parent_of[node] = up
        answers: dict[int, str | None] = {}
        for parent in sorted(groups):
            briefs = tuple(
                NodeBrief(
                    node,
                    int(sizes.get(node, 0)),
                    tuple(p.text for p in merge_keyphrases(list(keywords[level].get(node, ()))))[:n_keyphrases],
                    tuple(shown[i] for i in list(order[level].get(node, ()))[:n_titles]),
                )
                for node in groups[parent]
            )
            got = _ask(namer, SiblingGroup(parent, level, briefs), cache_dir, tally)
            answers.update(zip(groups[parent], got, strict=True))
        nodes = sorted(parents[level])
        tally.asked += len(nodes)
        resolved, kept, problems = _resolve(nodes, answers, offline[level], parent_of)
        tally.kept += len(kept)
        tally.problems.update(problems if not tally.unavailable else {})
        names[level].update(resolved)
    _report(namer, tally)
    return names


def _report(namer: SiblingNamer, tally: _Tally) -> None:
    """One line at info level when the namer could not be reached or some answers were not kept."""
    if tally.unavailable:
        logger.info(
            "topic namer %r could not answer (%s); %d of %d tree nodes keep their offline names",
            namer,
            tally.unavailable,
            tally.asked - tally.kept,
            tally.asked,
            extra={STAGE: True},  # shown by the CLI, as a stage line
        )
    elif tally.kept < tally.asked:
        why = ", ".join(f"{reason}: {n}" for reason, n in sorted(tally.problems.items()) if n)
        logger.info(
            "topic namer %r: %d of %d answers not kept (%s); those nodes keep their offline names",
            namer,
            tally.asked - tally.kept,
            tally.asked,
            why or "no answer",
            extra={STAGE: True},
        )
    else:
        logger.debug("topic namer %r named all %d tree nodes", namer, tally.asked)

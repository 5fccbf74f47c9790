"""Topic coherence (NPMI) and topic diversity from topic keywords.

NPMI (normalised pointwise mutual information, Bouma 2009) of two keywords over a reference corpus
split into *units* (whole documents by default, or sliding windows of ``window`` tokens):

    P(w)      = (units containing w) / (number of units)
    P(wi, wj) = (units containing both) / (number of units)
    NPMI      = log(P(wi, wj) / (P(wi) P(wj))) / -log P(wi, wj)

with NPMI = -1 when the pair never co-occurs (P(wi, wj) = 0, which includes a keyword found in no
unit) and NPMI = 1 when both occur in every unit (P(wi, wj) = 1). A topic's coherence is the mean
NPMI over all pairs of its first ``top_n`` distinct keywords; it lies in [-1, 1], higher is better.

Matching is case-insensitive and on token boundaries: text and keywords are split by the same
tokenizer (default: runs of letters/digits, so ``"self-supervised"`` is two tokens) and a keyword of
several tokens (``"graph neural network"``) is present where that token sequence occurs, so
``"network"`` is not found in ``"networks"``.

Examples:
    >>> docs = ["graph neural network", "graph kernel", "policy gradient"]
    >>> mean, per_topic = npmi_coherence([["graph", "neural network"]], docs)
    >>> round(mean, 3)
    0.369
    >>> topic_diversity([["graph neural network"], ["graph neural"]])
    0.6
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Union

import numpy as np
import scipy.sparse as sp

from icml_topics.errors import InvalidTypeError, InvalidValueError
from icml_topics.text import letter_runs

__all__ = ["default_tokenizer", "npmi_coherence", "topic_diversity"]

Tokenizer = Callable[[str], list[str]]
Documents = Union[Sequence[str], Sequence[Sequence[str]]]

_SEP = "\x1f"  # joins tokens for phrase matching; cannot occur inside a token of normal text


def default_tokenizer(text: str) -> list[str]:
    """Lower-cased runs of letters and digits.

    Args:
        text: the text to split.

    Examples:
        >>> default_tokenizer("Self-Supervised GNNs, 2024")
        ['self', 'supervised', 'gnns', '2024']
    """
    return letter_runs(text)


def npmi_coherence(
    topic_words: Sequence[Sequence[str]],
    documents: Documents,
    *,
    top_n: int = 10,
    window: int | None = None,
    tokenizer: Tokenizer | None = None,
) -> tuple[float, list[float]]:
    """Mean and per-topic NPMI coherence of topic keywords over a reference corpus.

    Args:
        topic_words: per topic, its keywords (words or phrases), best first.
        documents: the reference texts, or texts already split into tokens.
        top_n: keywords used per topic (the first ``top_n`` distinct ones).
        window: ``None`` counts co-occurrence within whole documents; an int counts it within
            sliding windows of that many tokens (a document shorter than the window is one window).
        tokenizer: splits text and keywords into tokens; default [`default_tokenizer`][icml_topics.evaluate.default_tokenizer].

    Returns:
        ``(mean, per_topic)``; a topic with fewer than two usable keywords scores NaN and is left
        out of the mean (NaN when no topic has a score).

    Examples:
        >>> mean, per_topic = npmi_coherence([["a", "b"], ["a", "c"]], ["a b", "a b", "c"])
        >>> [round(s, 6) for s in per_topic]  # a and b always together; a and c never
        [1.0, -1.0]
    """
    if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1:
        raise InvalidValueError(f"top_n must be a positive integer, got {top_n!r}")
    if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window < 1):
        raise InvalidValueError(f"window must be None (whole documents) or a positive integer, got {window!r}")
    tok = tokenizer or default_tokenizer
    topics = [_topic_terms(words, top_n, tok) for words in _check_topics(topic_words)]
    vocab: dict[tuple[str, ...], int] = {}
    for terms in topics:
        for term in terms:
            vocab.setdefault(term, len(vocab))
    docs = _tokenised(documents, tok)
    if not docs:
        raise InvalidValueError("documents is empty; NPMI needs the reference corpus the topics were fitted on")
    if window is None:
        counts = _doc_matrix(docs, vocab)
    else:
        counts = _window_matrix(docs, vocab, window)
    n_units = counts.shape[0]
    per_topic = [_topic_npmi(counts, [vocab[t] for t in terms], n_units) for terms in topics]
    scored = [s for s in per_topic if not math.isnan(s)]
    mean = float(np.mean(scored)) if scored else float("nan")
    return mean, per_topic


def topic_diversity(
    topic_words: Sequence[Sequence[str]],
    top_n: int = 25,
    *,
    tokenizer: Tokenizer | None = None,
) -> float:
    """Share of distinct words among the topics' top keywords (Dieng et al., 2020).

    Each topic contributes the set of *words* of its first ``top_n`` keywords (phrases are split
    with ``tokenizer``, so ``"graph neural network"`` and ``"graph neural"`` share two words);
    diversity = |union of the sets| / sum of set sizes. For single-word keywords this is the usual
    "unique words in the top-25 of all topics / (25 x number of topics)". 1 means no word is shared
    between topics; values near 1/K mean K topics repeat the same words. NaN when there are no words.

    Args:
        topic_words: per topic, its keywords (best first).
        top_n: keywords per topic that count.
        tokenizer: splits a keyword into words; ``None``: [`default_tokenizer`][icml_topics.evaluate.default_tokenizer].

    Examples:
        >>> topic_diversity([["a", "b"], ["b", "c"]])
        0.75
    """
    if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1:
        raise InvalidValueError(f"top_n must be a positive integer, got {top_n!r}")
    tok = tokenizer or default_tokenizer
    sets = []
    for words in _check_topics(topic_words):
        sets.append({w for kw in list(words)[:top_n] for w in tok(str(kw))})
    total = sum(len(s) for s in sets)
    if total == 0:
        return float("nan")
    return len(set().union(*sets)) / total


# --- helpers -------------------------------------------------------------------------------------
def _check_topics(topic_words: Sequence[Sequence[str]]) -> list[Sequence[str]]:
    if isinstance(topic_words, str) or not isinstance(topic_words, Iterable):
        raise InvalidTypeError(
            "topic_words must be a list of keyword lists, one per topic, e.g. [['graph', 'node'], ...]"
        )
    topics = list(topic_words)
    for i, words in enumerate(topics):
        if isinstance(words, str):
            raise InvalidTypeError(
                f"topic #{i} is the string {words!r}; give each topic a list of keywords, "
                "e.g. [['graph', 'node'], ['policy', 'reward']]"
            )
    return topics


def _topic_terms(words: Sequence[str], top_n: int, tok: Tokenizer) -> list[tuple[str, ...]]:
    """The first ``top_n`` distinct non-empty keywords of a topic, each as a token tuple."""
    terms: list[tuple[str, ...]] = []
    for kw in words:
        if kw is None or (isinstance(kw, float) and math.isnan(kw)):
            continue
        term = tuple(tok(str(kw)))
        if term and term not in terms:
            terms.append(term)
        if len(terms) == top_n:
            break
    return terms


def _tokenised(documents: Documents, tok: Tokenizer) -> list[list[str]]:
    if isinstance(documents, str):
        raise InvalidTypeError("documents must be a list of texts (or of token lists), not one string")
    out = []
    for doc in documents:
        if doc is None or (isinstance(doc, float) and math.isnan(doc)):
            out.append([])
        elif isinstance(doc, str):
            out.append(tok(doc))
        else:
            out.append([str(t).lower() for t in doc])
    return out


def _by_length(vocab: dict[tuple[str, ...], int]) -> dict[int, dict[tuple[str, ...], int]]:
    groups: dict[int, dict[tuple[str, ...], int]] = {}
    for term, idx in vocab.items():
        groups.setdefault(len(term), {})[term] = idx
    return groups


def _ngrams(tokens: list[str], n: int) -> Iterable[tuple[str, ...]]:
    return zip(*(tokens[k:] for k in range(n)))


def _doc_matrix(docs: list[list[str]], vocab: dict[tuple[str, ...], int]) -> sp.csc_matrix:
    """Binary document x term matrix: does the term occur in the document?"""
    single = {term[0]: idx for term, idx in vocab.items() if len(term) == 1}
    by_first: dict[str, list[tuple[tuple[str, ...], int]]] = {}
    for term, idx in vocab.items():
        if len(term) > 1:
            by_first.setdefault(term[0], []).append((term, idx))
    rows: list[int] = []
    cols: list[int] = []
    for r, tokens in enumerate(docs):
        present = set(tokens)
        for word in single.keys() & present:
            rows.append(r)
            cols.append(single[word])
        joined = None
        for first in by_first.keys() & present:
            for term, idx in by_first[first]:
                if all(t in present for t in term):
                    if joined is None:  # token-boundary phrase test on the joined tokens
                        joined = _SEP + _SEP.join(tokens) + _SEP
                    if _SEP + _SEP.join(term) + _SEP in joined:
                        rows.append(r)
                        cols.append(idx)
    data = np.ones(len(rows), dtype=np.float64)
    return sp.csc_matrix((data, (rows, cols)), shape=(len(docs), max(len(vocab), 1)))


def _window_matrix(docs: list[list[str]], vocab: dict[tuple[str, ...], int], window: int) -> sp.csc_matrix:
    """Binary window x term matrix over sliding windows of ``window`` tokens (step 1)."""
    groups = _by_length(vocab)
    lo: list[int] = []
    hi: list[int] = []
    cols: list[int] = []
    base = 0
    for tokens in docs:
        n_tok = len(tokens)
        n_win = max(1, n_tok - window + 1)
        for n, terms in groups.items():
            for p, gram in enumerate(_ngrams(tokens, n)):
                idx = terms.get(gram)
                if idx is None:
                    continue
                # windows [s, s + window) that contain tokens p .. p + n - 1
                first, last = max(0, p + n - window), min(p, n_win - 1)
                if first <= last:
                    lo.append(base + first)
                    hi.append(base + last)
                    cols.append(idx)
        base += n_win
    lo_a, hi_a = np.asarray(lo, dtype=np.int64), np.asarray(hi, dtype=np.int64)
    lengths = hi_a - lo_a + 1
    starts = np.repeat(lo_a, lengths)
    offsets = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    rows = starts + offsets
    col_a = np.repeat(np.asarray(cols, dtype=np.int64), lengths)
    m = sp.csc_matrix((np.ones(len(rows)), (rows, col_a)), shape=(base, max(len(vocab), 1)))
    m.data[:] = 1.0  # a term occurring twice in one window still counts once
    return m


def _topic_npmi(counts: sp.csc_matrix, idx: list[int], n_units: int) -> float:
    if len(idx) < 2:
        return float("nan")
    sub = counts[:, idx]
    joint = np.asarray((sub.T @ sub).todense(), dtype=np.float64)
    single = np.diag(joint).copy()
    iu, ju = np.triu_indices(len(idx), k=1)
    p_ij = joint[iu, ju] / n_units
    p_i = single[iu] / n_units
    p_j = single[ju] / n_units
    scores = np.full(p_ij.shape, -1.0)
    full = p_ij >= 1.0
    scores[full] = 1.0
    mid = (p_ij > 0) & ~full
    scores[mid] = np.log(p_ij[mid] / (p_i[mid] * p_j[mid])) / -np.log(p_ij[mid])
    return float(scores.mean())

"""Lexical evidence for themes: the taxonomy's phrases found in a paper's title and abstract.

Every phrase of a theme (its seeds, aliases and ``keywords``) is matched by the term keys of its words
(``icml_topics.text.term_keys``), which absorb the usual variants: case, hyphens ("self-supervised" =
"self supervised" = "selfsupervised"), British and American spelling ("optimisation" = "optimization",
"modelling" = "modeling") and plurals ("graph neural networks" = "graph neural network"). A phrase counts
more in the title than in the abstract, and a phrase common in the corpus counts less than a rare one (the
IDF of c-TF-IDF).

Examples:
    >>> lex = build_lexicon([["graph neural network", "GNN"], ["diffusion model"]])
    >>> counts = count_terms(lex, ["GNNs for molecules", "Denoising diffusion models"])
    >>> lexical_evidence(lex, counts, counts.multiply(0), term_weights(counts)).argmax(axis=1).tolist()
    [0, 1]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from icml_topics.text import term_keys

__all__ = [
    "Lexicon",
    "build_lexicon",
    "count_terms",
    "lexical_evidence",
    "lexical_parts",
    "term_weights",
]

_MAX_PHRASE_TOKENS = 6


@dataclass(frozen=True)
class Lexicon:
    """Canonical phrases and the themes they speak for.

    Attributes:
        phrases: canonical phrases (space-joined term keys), one column of the count matrices each.
        theme_matrix: ``(n_phrases, n_themes)``: 1 / (number of themes listing the phrase).
        shown: a readable original spelling of every phrase (for reasons shown to users).
    """

    phrases: tuple[str, ...]
    theme_matrix: np.ndarray
    shown: tuple[str, ...]
    starts: dict[str, list[tuple[tuple[str, ...], int]]] = field(default_factory=dict, compare=False, repr=False)


def build_lexicon(theme_phrases: Sequence[Sequence[str]]) -> Lexicon:
    """Build the lexicon from each theme's phrases (in taxonomy order)."""
    owners: dict[str, set[int]] = {}
    shown: dict[str, str] = {}
    for t, phrases in enumerate(theme_phrases):
        for phrase in phrases:
            variants = {" ".join(term_keys(phrase))}
            if "-" in phrase:  # "non-convex" is also written "nonconvex"
                variants.add(" ".join(term_keys(phrase.replace("-", ""))))
            for v in variants:
                if v and len(v.split()) <= _MAX_PHRASE_TOKENS:
                    owners.setdefault(v, set()).add(t)
                    shown.setdefault(v, phrase)
    phrases = tuple(sorted(owners))
    matrix = np.zeros((len(phrases), len(theme_phrases)), dtype=np.float32)
    starts: dict[str, list[tuple[tuple[str, ...], int]]] = {}
    for i, p in enumerate(phrases):
        for t in owners[p]:
            matrix[i, t] = 1.0 / len(owners[p])
        words = tuple(p.split())
        starts.setdefault(words[0], []).append((words, i))
    return Lexicon(phrases, matrix, tuple(shown[p] for p in phrases), starts)


def count_terms(lexicon: Lexicon, texts: Sequence[str | None]) -> sp.csr_matrix:
    """``(n_texts, n_phrases)`` counts of each phrase in each text (missing texts count nothing)."""
    rows, cols = [], []
    for r, text in enumerate(texts):
        if not isinstance(text, str):
            continue
        tokens = term_keys(text)
        for pos, tok in enumerate(tokens):
            for words, j in lexicon.starts.get(tok, ()):
                if tuple(tokens[pos : pos + len(words)]) == words:
                    rows.append(r)
                    cols.append(j)
    data = np.ones(len(rows), dtype=np.float32)
    counts = sp.csr_matrix((data, (rows, cols)), shape=(len(texts), len(lexicon.phrases)), dtype=np.float32)
    counts.sum_duplicates()
    return counts


def term_weights(counts: sp.spmatrix, *, reference: int = 20) -> np.ndarray:
    """Per phrase, how specific it is in this corpus: an IDF scaled so that a phrase in few documents
    weighs about 1 and one in most documents 0.25 (smoothed by ``reference`` documents, so that in a
    tiny corpus no phrase looks common).

    Examples:
        >>> counts = sp.csr_matrix(np.array([[1, 1]] + [[0, 1]] * 99))
        >>> term_weights(counts).round(2).tolist()
        [1.0, 0.25]
    """
    n = max(counts.shape[0], 1)
    df = np.asarray((counts > 0).sum(axis=0)).ravel().astype(np.float64)
    share = (df + 1.0) / (n + reference)  # smoothed: tiny corpora do not make every phrase look common
    weight = np.log(1.0 / share) / np.log(reference)
    return np.clip(weight, 0.25, 1.0).astype(np.float32)


def lexical_evidence(
    lexicon: Lexicon,
    title_counts: sp.spmatrix,
    abstract_counts: sp.spmatrix,
    weights: np.ndarray,
    *,
    title_weight: float = 2.0,
) -> np.ndarray:
    """``(n_docs, n_themes)`` evidence: per theme, the weighted phrases found, a title hit counting
    ``title_weight`` and abstract hits ``log(1 + count)`` (the sum of ``lexical_parts``)."""
    title, abstract = lexical_parts(lexicon, title_counts, abstract_counts, weights, title_weight=title_weight)
    return title + abstract


def lexical_parts(
    lexicon: Lexicon,
    title_counts: sp.spmatrix,
    abstract_counts: sp.spmatrix,
    weights: np.ndarray,
    *,
    title_weight: float = 2.0,
) -> tuple[np.ndarray, np.ndarray]:
    """``lexical_evidence`` of the title and of the abstract, each ``(n_docs, n_themes)``."""
    title = (title_counts > 0).astype(np.float32) * title_weight
    abstract = abstract_counts.astype(np.float32).log1p()
    return tuple(
        np.asarray(part.multiply(weights[None, :]).tocsr() @ lexicon.theme_matrix, dtype=np.float32)
        for part in (title, abstract)
    )


def matched_phrases(
    lexicon: Lexicon, title_counts: sp.spmatrix, abstract_counts: sp.spmatrix, row: int, theme: int
) -> list[str]:
    """The phrases of ``theme`` found in document ``row`` (title first), as the taxonomy spells them."""
    found = []
    for counts in (title_counts, abstract_counts):
        r = counts.getrow(row)
        for j in r.indices[np.argsort(-r.data, kind="stable")]:
            if lexicon.theme_matrix[j, theme] > 0 and lexicon.shown[j] not in found:
                found.append(lexicon.shown[j])
    return found

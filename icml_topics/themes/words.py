"""The words of a paper, for the supervised head's word classifier: TF-IDF of canonical unigrams and bigrams.

A paper's terms are the term keys of its title and abstract (``icml_topics.text.term_keys``: one
spelling per -ise/-ize word, no plural -s) without English stop words, and the bigrams of neighbouring tokens
that are not stop words; the title's terms count twice. ``WordFeatures`` holds a fixed vocabulary
and IDF (learnt once, from the labelled papers the head is trained on) and turns any papers into
L2-normalised sublinear TF-IDF rows, independently of the corpus they come from.

Examples:
    >>> paper_terms("Graph Neural Networks", "We study GNNs.")[:4]
    ['graph', 'neural', 'network', 'graph neural']
    >>> words = WordFeatures.fit(["Diffusion models", "Graph networks"], ["", ""], min_df=1)
    >>> words.vocabulary
    ('diffusion', 'diffusion model', 'graph', 'graph network', 'model', 'network')
    >>> words.transform(["Diffusion"], [None]).toarray().tolist()
    [[1.0, 0.0, 0.0, 0.0, 0.0, 0.0]]
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from icml_topics.text import english_stop_keys, term_keys

__all__ = ["WordFeatures", "paper_terms"]

TITLE_REPEAT = 2  # a title term counts as this many abstract terms


def _terms(text: str | None) -> list[str]:
    if not isinstance(text, str):
        return []
    stop = english_stop_keys()
    tokens = term_keys(text)
    keep = [t not in stop and len(t) > 1 for t in tokens]
    unigrams = [t for t, k in zip(tokens, keep, strict=True) if k]
    bigrams = [f"{a} {b}" for a, b, ka, kb in zip(tokens, tokens[1:], keep, keep[1:], strict=False) if ka and kb]
    return unigrams + bigrams


def paper_terms(title: str | None, abstract: str | None) -> list[str]:
    """The terms of one paper: its title's terms (``TITLE_REPEAT`` times) and its abstract's."""
    return _terms(title) * TITLE_REPEAT + _terms(abstract)


@dataclass(frozen=True)
class WordFeatures:
    """A fixed vocabulary of terms with their IDF.

    Attributes:
        vocabulary: the terms, one column each.
        idf: ``(n_terms,)`` smoothed inverse document frequency among the papers it was fitted on.
    """

    vocabulary: tuple[str, ...]
    idf: np.ndarray

    @classmethod
    def fit(
        cls,
        titles: Sequence[str | None],
        abstracts: Sequence[str | None],
        *,
        min_df: int = 3,
        max_terms: int = 20_000,
    ) -> WordFeatures:
        """The terms found in at least ``min_df`` papers (the ``max_terms`` most frequent; ties by term)."""
        df: Counter[str] = Counter()
        for title, abstract in zip(titles, abstracts, strict=True):
            df.update(set(paper_terms(title, abstract)))
        kept = sorted((t for t, n in df.items() if n >= min_df), key=lambda t: (-df[t], t))[:max_terms]
        kept.sort()
        n = len(titles)
        idf = np.log((1.0 + n) / (1.0 + np.array([df[t] for t in kept], dtype=np.float64))) + 1.0
        return cls(tuple(kept), idf.astype(np.float32))

    def transform(self, titles: Sequence[str | None], abstracts: Sequence[str | None]) -> sp.csr_matrix:
        """``(n_papers, n_terms)`` L2-normalised rows of ``(1 + log tf) * idf``."""
        index = self.index
        rows, cols, data = [], [], []
        for r, (title, abstract) in enumerate(zip(titles, abstracts, strict=True)):
            counts = Counter(index[t] for t in paper_terms(title, abstract) if t in index)
            rows += [r] * len(counts)
            cols += list(counts)
            data += list(counts.values())
        tf = sp.csr_matrix(
            (np.asarray(data, dtype=np.float32), (rows, cols)), shape=(len(titles), len(self.vocabulary))
        )
        tf.data = (1.0 + np.log(tf.data)) * self.idf[tf.indices]
        norms = np.sqrt(np.asarray(tf.multiply(tf).sum(axis=1)).ravel())
        return sp.diags(1.0 / np.where(norms == 0, 1.0, norms)).astype(np.float32) @ tf

    @cached_property
    def index(self) -> dict[str, int]:
        """Column of each term."""
        return {t: i for i, t in enumerate(self.vocabulary)}

    def to_arrays(self, prefix: str) -> dict[str, np.ndarray]:
        """Named arrays for ``np.savez`` (the vocabulary as one JSON string); ``from_arrays`` reads them."""
        return {f"{prefix}vocabulary": np.array(json.dumps(list(self.vocabulary))), f"{prefix}idf": self.idf}

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], prefix: str) -> WordFeatures:
        vocabulary = tuple(json.loads(str(arrays[f"{prefix}vocabulary"])))
        return cls(vocabulary, np.asarray(arrays[f"{prefix}idf"], dtype=np.float32))

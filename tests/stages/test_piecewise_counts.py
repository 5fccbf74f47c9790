"""The large-corpus c-TF-IDF counts a topic's joined documents piece by piece: the counts must be exactly
scikit-learn's, whatever the piece size (n-grams across a cut included)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

from icml_topics.stages.piecewise_counts import PiecewiseCountVectorizer
from icml_topics.stages.represent import make_vectorizer

WORDS = "graph neural network diffusion model score matching the of a policy gradient regret bound x".split()


def joined_topics(seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    docs = [" ".join(rng.choice(WORDS, size=rng.integers(1, 40))) for _ in range(300)]
    labels = rng.integers(0, 4, len(docs))
    return [" ".join(d for d, t in zip(docs, labels) if t == k) for k in range(4)] + ["", "graph", "  a  b  "]


@pytest.mark.parametrize("piece", [1, 7, 64, 1 << 20])
def test_piecewise_counts_equal_countvectorizer(piece):
    texts = joined_topics()
    base = make_vectorizer(10_000, 4)  # the project's stop words, token pattern, (1, 3)-grams
    kw = dict(stop_words=base.stop_words, ngram_range=base.ngram_range, token_pattern=base.token_pattern)
    vocabulary = sorted(CountVectorizer(**kw).fit(texts).vocabulary_)
    expected = CountVectorizer(**kw, vocabulary=vocabulary).fit_transform(texts)
    got = PiecewiseCountVectorizer(**kw, vocabulary=vocabulary, piece=piece).fit_transform(texts)
    assert got.shape == expected.shape and expected.sum() > 1000
    assert (got != expected).nnz == 0
    np.testing.assert_array_equal(got.indices, expected.indices)


def test_piecewise_analyzer_yields_instead_of_listing():
    analyze = PiecewiseCountVectorizer(ngram_range=(1, 2), piece=16).build_analyzer()
    features = analyze("one two three " * 10)
    assert not isinstance(features, list)
    assert next(features) == "one"

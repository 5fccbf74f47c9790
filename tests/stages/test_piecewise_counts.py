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


@pytest.mark.parametrize("chunk_docs", [1, 50, 20_000])
def test_every_level_counted_over_the_sample_vocabulary_equals_scikit_learns_counts(chunk_docs):
    """Issue 51: a large corpus's levels each tokenised every paper again (``PiecewiseCountVectorizer``, a Python
    generator); ``SampleVocabularyCounts`` counts the same n-grams from each paper's tokens, analysed once, for
    topics joined as BERTopic joins them, in chunks of papers. Expected: scikit-learn's own counts over the
    sample's vocabulary, for two levels of the same papers."""
    from icml_topics.stages.ngram_counts import clear_token_cache
    from icml_topics.stages.piecewise_counts import SampleVocabularyCounts

    clear_token_cache()
    rng = np.random.default_rng(1)
    docs = [" ".join(rng.choice(WORDS, size=rng.integers(1, 40))) for _ in range(300)]
    sample = docs[::3]
    base = make_vectorizer(10_000, 4)
    kw = dict(stop_words=base.stop_words, ngram_range=base.ngram_range, token_pattern=base.token_pattern)
    vocabulary = sorted(CountVectorizer(**kw, min_df=2).fit(sample).vocabulary_)
    for k in (4, 25):  # two levels: 4 and 25 topics
        labels = rng.integers(0, k, len(docs))
        pieces = [[d for d, t in zip(docs, labels) if t == j] for j in range(k)]
        joined = [" ".join(p) for p in pieces]
        expected = CountVectorizer(**kw, vocabulary=vocabulary).fit_transform(joined)
        counter = SampleVocabularyCounts.of(make_vectorizer(10_000, k, min_df=2).fit(sample))
        counter.chunk_docs = chunk_docs
        got = counter.expect_joined(pieces).fit_transform(joined)
        assert list(counter.get_feature_names_out()) == vocabulary and expected.sum() > 1000
        assert got.shape == expected.shape and (got != expected).nnz == 0
        np.testing.assert_array_equal(got.indices, expected.indices)

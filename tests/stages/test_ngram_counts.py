"""``NgramCountVectorizer`` must return exactly what scikit-learn's ``CountVectorizer`` returns (matrix arrays in
their order, ``vocabulary_`` in its order, feature names, errors), joined topic texts included; and the
representation and the wording built on it must not change."""

from __future__ import annotations

import itertools
import pickle
import zlib

import numpy as np
import pytest
from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer

from icml_topics.compare.wording import ClassTfidf
from icml_topics.stages import represent
from icml_topics.stages.ngram_counts import NgramCountVectorizer
from icml_topics.stages.represent import make_vectorizer, represent_topics

WORDS = (
    "graph neural network Network diffusion model score matching the of a we policy gradient regret bound x "
    "self-supervised non-iid -based pre- GNNs 2024 co-training e.g., (LLMs) ΣΑΣ naïve café δ-net"
).split()


def corpus(seed: int = 0, n: int = 200) -> list[str]:
    rng = np.random.default_rng(seed)
    seps = [" ", " ", " ", ", ", ". ", "-", "\n", "  ", "; "]
    docs = []
    for _ in range(n):
        words = rng.choice(WORDS, size=rng.integers(0, 30))
        docs.append("".join(w + rng.choice(seps) for w in words))
    return [*docs, "", "the of a", "graph", " graph neural ", "x y z"]


def assert_same_matrix(expected, got) -> None:
    assert type(got) is type(expected) and got.shape == expected.shape
    assert set(vars(got)) == set(vars(expected))  # no flag cached on one side only
    for name in ("data", "indices", "indptr"):
        a, b = getattr(expected, name), getattr(got, name)
        assert b.dtype == a.dtype, name
        np.testing.assert_array_equal(b, a, err_msg=name)  # same entries in the same order, not only after sorting


def assert_same_fit(reference: CountVectorizer, ours: NgramCountVectorizer, docs: list[str]) -> None:
    assert_same_matrix(reference.fit_transform(docs), ours.fit_transform(docs))
    assert list(ours.vocabulary_.items()) == list(reference.vocabulary_.items())  # keys, values and dict order
    expected_names = reference.get_feature_names_out()
    assert ours.get_feature_names_out().tolist() == expected_names.tolist()
    assert ours.get_feature_names_out().dtype == expected_names.dtype
    assert_same_matrix(reference.transform(docs[::3]), ours.transform(docs[::3]))


SETTINGS = list(
    itertools.product(
        [(1, 1), (1, 2), (1, 3), (2, 3), (3, 3)],  # ngram_range
        [1, 2, 0.05],  # min_df
        [1.0, 0.3, 40],  # max_df
        [False, True],  # binary
    )
)


@pytest.mark.parametrize(("ngram_range", "min_df", "max_df", "binary"), SETTINGS)
def test_counts_vocabulary_and_names_equal_scikit_learns(ngram_range, min_df, max_df, binary):
    base = make_vectorizer(10_000, 4)  # the project's stop words and token pattern
    kw = dict(ngram_range=ngram_range, min_df=min_df, max_df=max_df, binary=binary, stop_words=base.stop_words)
    kw["token_pattern"] = base.token_pattern
    docs = corpus()
    try:
        reference = CountVectorizer(**kw).fit(docs)
    except ValueError as error:  # e.g. every term pruned: the same error
        with pytest.raises(ValueError, match=str(error)[:30]):
            NgramCountVectorizer(**kw).fit_transform(docs)
        return
    assert reference.vocabulary_
    ours = NgramCountVectorizer(**kw)
    assert_same_fit(CountVectorizer(**kw), ours, docs)
    assert ours._fitted is not None  # the numpy path ran, not scikit-learn's


def test_scikit_learns_default_pattern_and_stop_words_too():
    for kw in (dict(), dict(ngram_range=(1, 3), stop_words="english", lowercase=False), dict(dtype=np.float32)):
        assert_same_fit(CountVectorizer(**kw), NgramCountVectorizer(**kw), corpus(1))


def test_joined_documents_count_their_pieces_and_the_ngrams_across_the_joins():
    pieces = corpus(2, 120)
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 5, len(pieces))
    topics = [[p for p, t in zip(pieces, labels) if t == k] for k in range(5)] + [["self-", "-supervised", "", "x"]]
    topics.append(["graph", "neural", "network"])  # a trigram made of three pieces
    joined = [" ".join(t) for t in topics] + ["graph neural network not announced"]
    base = make_vectorizer(10_000, 4)
    ours = make_vectorizer(10_000, 4).expect_joined(topics)
    tokenised: list[str] = []
    tokenize = ours.build_tokenizer()
    ours.build_tokenizer = lambda: lambda text: tokenised.append(text) or tokenize(text)
    assert_same_fit(CountVectorizer(**base.get_params()), ours, joined)
    assert not set(joined[:-1]) & set(tokenised) and joined[-1] in tokenised  # pieces analysed, not announced joins
    assert "graph neural network" in ours.vocabulary_


@pytest.mark.parametrize(
    ("kw", "docs", "message"),
    [
        (dict(), ["the of", "a"], "empty vocabulary"),
        (dict(min_df=2), ["graph neural", "diffusion model", "policy regret"], "After pruning, no terms remain"),
        (dict(min_df=3, max_df=2), ["graph neural", "diffusion model"], "max_df corresponds to < documents"),
    ],
)
def test_the_same_errors(kw, docs, message):
    for cls in (CountVectorizer, NgramCountVectorizer):
        with pytest.raises(ValueError, match=message):
            cls(stop_words="english", **kw).fit_transform(docs)


def test_other_settings_and_a_pickled_vectorizer_are_scikit_learns_own():
    docs = corpus(4)
    for kw in (dict(analyzer="char_wb", ngram_range=(2, 3)), dict(tokenizer=str.split), dict(ngram_range=(1, 4))):
        ours = NgramCountVectorizer(**kw)
        assert_same_matrix(CountVectorizer(**kw).fit_transform(docs), ours.fit_transform(docs))
        assert getattr(ours, "_fitted", None) is None
    ours = NgramCountVectorizer(ngram_range=(1, 2)).fit(docs)
    again = pickle.loads(pickle.dumps(ours))
    assert getattr(again, "_fitted", None) is None
    assert_same_matrix(ours.transform(docs), again.transform(docs))


def test_announced_joined_documents_are_not_kept_as_a_second_copy_of_the_texts():
    """``expect_joined`` held every topic's joined string: a second copy of the corpus's text through the tree
    stage's c-TF-IDF (issue 51's memory). It keeps the pieces (the texts' own strings) and finds a joined string by
    its hash and length, checked against its pieces: the same pieces are found, an unannounced string is not."""
    import tracemalloc

    pieces = [[f"{k} {i} " + "graph neural network " * 500 for i in range(40)] for k in range(10)]
    text_bytes = sum(len(p) for topic in pieces for p in topic)  # ASCII: a byte a character
    vectorizer = make_vectorizer(10_000, 4)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        vectorizer.expect_joined(pieces)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 0.05 * text_bytes, (kept, text_bytes)
    for topic in pieces:
        assert vectorizer.joined_pieces(" ".join(topic)) == tuple(topic)
    assert vectorizer.joined_pieces(" ".join(pieces[0]) + " ") is None
    assert vectorizer.joined_pieces(" ".join(pieces[0][::-1])) is None


def test_representation_is_unchanged_and_every_joined_topic_is_recognised(monkeypatch):
    rng = np.random.default_rng(5)
    texts = [" ".join(rng.choice(WORDS, size=rng.integers(3, 25))) + ".\nAnd\tmore." for _ in range(80)]
    labels = np.array([i % 4 if i % 9 else -1 for i in range(len(texts))])
    emb = rng.standard_normal((len(texts), 16)).astype(np.float32)

    def embed_fn(items):  # synthetic vectors: the counting, not the embedding model, is under test
        out = [np.random.default_rng(zlib.crc32(t.encode())).standard_normal(16) for t in items]
        return np.asarray(out, dtype=np.float32).reshape(len(items), 16)

    seen: list[tuple[int, int]] = []
    fit_transform = NgramCountVectorizer.fit_transform

    def spy(self, docs, y=None):
        docs = list(docs)
        seen.append((len(docs), sum(self.joined_pieces(d) is not None for d in docs)))
        return fit_transform(self, docs, y)

    monkeypatch.setattr(NgramCountVectorizer, "fit_transform", spy)
    ours = represent_topics(texts, emb, labels, embed_fn, n_keywords=5)
    assert seen == [(5, 5)]  # the c-TF-IDF's five joined topics (outliers included), all announced
    monkeypatch.setattr(
        represent, "make_vectorizer", lambda *a, **k: CountVectorizer(**make_vectorizer(*a, **k).get_params())
    )
    theirs = represent_topics(texts, emb, labels, embed_fn, n_keywords=5)
    np.testing.assert_array_equal(ours.labels, theirs.labels)
    assert list(ours.keywords.items()) == list(theirs.keywords.items()) and any(ours.keywords.values())


def test_wording_top_terms_are_the_dense_c_tf_idf_rows_best_terms():
    rng = np.random.default_rng(6)
    dense = rng.poisson(0.3, (60, 40)) * (rng.random((60, 40)) < 0.5)
    dense[:, 7] = dense[:, 3]  # equal scores: ties go to the lower index
    counts = sparse.csr_matrix(dense)
    classes = rng.integers(0, 6, 60)
    classes[classes == 5] = 4  # a class with no documents: no words, no terms
    table = ClassTfidf.of(counts, classes, 6)
    tf = np.zeros((6, 40))
    np.add.at(tf, classes, counts.toarray())
    words = tf.sum(axis=1, keepdims=True)
    freq = tf.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = np.nan_to_num(tf / words) * np.log1p(np.where(freq > 0, words.mean() / freq, 0.0))
    for row in range(6):
        order = np.lexsort((np.arange(40), -scores[row]))[:12]
        expected = [i for i in order if scores[row, i] > 0]
        assert table.top_terms(row, 12).tolist() == expected
    assert table.top_terms(5, 12).tolist() == []

"""``stages/keybert_bounded.py`` gives BERTopic's ``KeyBERTInspired`` keyphrases: both models on one fitted
BERTopic (the real sample's finest level, the real embedding model), and each step against BERTopic's own."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from icml_topics.embedding import embed
from icml_topics.stages.bertopic_import import import_bertopic
from icml_topics.stages.keybert_bounded import bounded_keybert, candidate_words, representative_docs, shared_vocabulary
from icml_topics.stages.represent import passthrough_bertopic


@pytest.fixture(scope="module")
def fitted_bertopic(fitted):
    st = fitted.state_
    texts, labels = list(st.texts), np.asarray(st.tree.labels[:, 0])
    bt = passthrough_bertopic(
        labels,
        lambda t: embed(list(t), precision="fp32"),
        None,
        n_docs=len(texts),
        texts=texts,
        embeddings=np.asarray(st.embeddings),
    )
    bt.fit_transform(texts, embeddings=np.asarray(st.embeddings), y=labels)
    documents = pd.DataFrame({"Document": texts, "ID": range(len(texts)), "Topic": bt.topics_, "Image": None})
    return bt, documents


def test_keyphrases_are_keybert_inspireds_on_a_real_fit(fitted_bertopic):
    bt, documents = fitted_bertopic
    KeyBERTInspired = import_bertopic().representation.KeyBERTInspired
    settings = dict(top_n_words=20, nr_repr_docs=5, nr_samples=200)
    theirs = KeyBERTInspired(**settings).extract_topics(bt, documents, bt.c_tf_idf_, bt.topic_representations_)
    ours = bounded_keybert(**settings).extract_topics(bt, documents, bt.c_tf_idf_, bt.topic_representations_)
    assert len(theirs) > 20 and sorted(ours) == sorted(theirs)
    for topic in theirs:
        assert [w for w, _ in ours[topic]] == [w for w, _ in theirs[topic]], topic
        assert np.allclose([s for _, s in ours[topic]], [s for _, s in theirs[topic]], atol=1e-6)


def test_steps_are_bertopics_own(fitted_bertopic):
    bt, documents = fitted_bertopic
    topics = bt.topic_representations_
    labels = sorted(topics)
    _, their_docs, their_positions, _ = bt._extract_representative_docs(bt.c_tf_idf_, documents, topics, 200, 5)
    docs, positions = representative_docs(
        bt.vectorizer_model, bt.ctfidf_model, bt.c_tf_idf_, documents, labels, nr_samples=200, nr_repr_docs=5
    )
    assert (docs, positions) == (their_docs, their_positions)
    KeyBERTInspired = import_bertopic().representation.KeyBERTInspired
    theirs = KeyBERTInspired(nr_candidate_words=100)._extract_candidate_words(bt, bt.c_tf_idf_, topics)
    words = bt.vectorizer_model.get_feature_names_out()
    assert candidate_words(bt.c_tf_idf_, words, labels, 100) == theirs


class _CountingVectorizer:
    """The fitted vectorizer, recording how many documents each ``transform`` call counts."""

    def __init__(self, inner) -> None:
        self.inner, self.calls = inner, []

    def transform(self, documents):
        self.calls.append(len(documents))
        return self.inner.transform(documents)


def test_representative_docs_are_counted_a_bounded_chunk_at_a_time_with_the_same_result(fitted_bertopic):
    """One count matrix of every node's sample holds about every paper (the tree stage's memory at scale): the
    samples are counted at most ``chunk_docs`` documents at a time (or one node's, when larger), same documents."""
    bt, documents = fitted_bertopic
    topics = bt.topic_representations_
    labels = sorted(topics)
    _, their_docs, their_positions, _ = bt._extract_representative_docs(bt.c_tf_idf_, documents, topics, 200, 5)
    counting = _CountingVectorizer(bt.vectorizer_model)
    settings = dict(nr_samples=200, nr_repr_docs=5)
    whole = representative_docs(counting, bt.ctfidf_model, bt.c_tf_idf_, documents, labels, **settings)
    assert whole == (their_docs, their_positions) and counting.calls == [len(documents)]
    counting.calls.clear()
    largest = int(pd.Series(bt.topics_).value_counts().max())
    chunked = representative_docs(
        counting, bt.ctfidf_model, bt.c_tf_idf_, documents, labels, **settings, chunk_docs=largest + 3
    )
    assert chunked == (their_docs, their_positions)
    assert len(counting.calls) > 3 and max(counting.calls) <= largest + 3 and sum(counting.calls) == len(documents)


def test_candidates_of_short_rows_are_padded_as_bertopic_pads_them():
    """Rows with fewer stored n-grams than asked (and ties) ordered as BERTopic orders them."""
    bertopic = import_bertopic()
    matrix = sp.csr_matrix(np.array([[0.5, 0.0, 0.5, 0.2], [0.0, 0.0, 0.3, 0.0], [0.1, 0.1, 0.1, 0.1]]))

    class Model:  # what KeyBERTInspired reads of the topic model: its vectorizer's words and BERTopic's loops
        vectorizer_model = type("V", (), {"get_feature_names_out": lambda self: np.array(list("abcd"), dtype=object)})()
        _top_n_idx_sparse = staticmethod(bertopic.BERTopic._top_n_idx_sparse)
        _top_n_values_sparse = staticmethod(bertopic.BERTopic._top_n_values_sparse)

    topics = {0: [], 1: [], 2: []}
    theirs = bertopic.representation.KeyBERTInspired(nr_candidate_words=3)._extract_candidate_words(
        Model(), matrix, topics
    )
    assert candidate_words(matrix, list("abcd"), [0, 1, 2], 3) == theirs
    assert theirs[1] == ("c", "", "")


def test_shared_vocabulary_admits_every_nodes_best_candidates_first():
    """A bound on the distinct candidates: rank 0 of every node, then rank 1 in node order, until full; a node
    keeps the deeper candidates another node admitted; padding is kept and not counted."""
    lists = {0: ("x", "a", "b", "c"), 1: ("y", "a", "d", ""), 2: ("z", "e", "f", "g")}  # 10 distinct phrases
    assert shared_vocabulary(lists, 5) == {0: ("x", "a"), 1: ("y", "a", ""), 2: ("z", "e")}
    assert shared_vocabulary(lists, 1) == {0: ("x",), 1: ("y", ""), 2: ("z",)}  # each node keeps its best
    assert shared_vocabulary(lists, 10) == lists and shared_vocabulary(lists, None) == lists

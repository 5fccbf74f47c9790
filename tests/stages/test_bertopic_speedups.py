"""``stages/bertopic_speedups.py`` gives exactly BERTopic's arrays: each rewritten loop against BERTopic's own
method, on random sparse rows and on a real fitted representation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from icml_topics.stages.bertopic_import import import_bertopic
from icml_topics.stages.bertopic_speedups import representative_docs, top_n_values_sparse
from icml_topics.stages.represent import passthrough_bertopic


def test_top_n_values_are_bertopics_including_missing_and_none_entries():
    bertopic = import_bertopic()
    rng = np.random.default_rng(0)
    matrix = sp.random(40, 300, density=0.05, format="csr", random_state=1)
    indices = np.array(
        [[int(c) if rng.random() > 0.2 else None for c in rng.integers(0, 300, 12)] for _ in range(40)], dtype=object
    )
    ours, theirs = top_n_values_sparse(matrix, indices), bertopic.BERTopic._top_n_values_sparse(matrix, indices)
    assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs)
    ints = rng.integers(0, 300, (40, 12))  # BERTopic's usual case: no None
    assert np.array_equal(top_n_values_sparse(matrix, ints), bertopic.BERTopic._top_n_values_sparse(matrix, ints))


def test_representative_docs_are_bertopics_on_a_real_representation(fitted):
    st = fitted.state_
    texts, labels = st.texts, st.tree.labels[:, 0]
    bt = passthrough_bertopic(labels, lambda t: np.zeros((len(t), 4)), None, n_docs=len(texts), texts=texts)
    bt.fit_transform(list(texts), embeddings=np.asarray(st.embeddings), y=np.asarray(labels))
    documents = pd.DataFrame({"Document": texts, "ID": range(len(texts)), "Topic": bt.topics_, "Image": None})
    topics = bt.topic_representations_
    original = bt._extract_representative_docs
    theirs = original(bt.c_tf_idf_, documents, topics, 200, 5)
    ours = representative_docs(bt, original)(bt.c_tf_idf_, documents, topics, 200, 5)
    assert len(topics) > 20 and ours == theirs

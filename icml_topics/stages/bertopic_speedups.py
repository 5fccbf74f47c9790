"""Two of BERTopic's internal loops, rewritten to give the same arrays faster, set on one BERTopic instance.

BERTopic's representation stage reads a sparse matrix one element at a time (``_top_n_values_sparse``:
111k scipy indexing calls on 669 topics of 18k ICLR abstracts) and counts, weighs and compares each topic's
sampled documents in a separate call per topic (``_extract_representative_docs``, which KeyBERTInspired
runs: 848 calls of the vectorizer, the c-TF-IDF model and scikit-learn's ``cosine_similarity``). Here the
first reads each row once, the second counts and weighs every topic's sample in one call and compares
row by row, as BERTopic does. Both are row-wise operations, so the result is the same array (the tests
compare them with BERTopic's own methods, ``tests/stages/test_bertopic_speedups.py``).

Only the instance given to ``use_faster_internals`` changes (BERTopic itself is not patched); a
``diversity`` (MMR) request goes to BERTopic's own method.

    >>> use_faster_internals(topic_model)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize

if TYPE_CHECKING:
    from bertopic import BERTopic

__all__ = ["representative_docs", "top_n_values_sparse", "use_faster_internals"]

_BERTOPIC_SAMPLE_SEED = 42  # BERTopic's own seed for sampling each topic's documents (not the fit's seed)


def top_n_values_sparse(matrix: sp.csr_matrix, indices: np.ndarray) -> np.ndarray:
    """BERTopic's ``_top_n_values_sparse``: each row's values at its ``indices`` (0 for ``None``), the same
    array, reading each row of ``matrix`` once."""
    m = sp.csr_matrix(matrix)
    zero = m.dtype.type(0)
    top_values = []
    for row, values in enumerate(indices):
        lo, hi = m.indptr[row], m.indptr[row + 1]
        at = dict(zip(m.indices[lo:hi].tolist(), m.data[lo:hi], strict=True))
        top_values.append(np.array([at.get(value, zero) if value is not None else 0 for value in values]))
    return np.array(top_values)


def representative_docs(topic_model: BERTopic, original: Callable) -> Callable:
    """BERTopic's ``_extract_representative_docs`` of ``topic_model`` with the sampled documents of every
    topic counted and weighed in one call; ``original``: BERTopic's method (for a ``diversity`` request)."""

    def extract(c_tf_idf, documents, topics, nr_samples=500, nr_repr_docs=5, diversity=None):
        if diversity:
            return original(c_tf_idf, documents, topics, nr_samples, nr_repr_docs, diversity)
        documents_per_topic = (
            documents.drop("Image", axis=1, errors="ignore")
            .groupby("Topic")
            .sample(n=nr_samples, replace=True, random_state=_BERTOPIC_SAMPLE_SEED)
            .drop_duplicates()
        )
        labels = sorted(topics.keys())
        selections = [documents_per_topic.loc[documents_per_topic.Topic == topic, :] for topic in labels]
        stacked = np.concatenate([s["Document"].values for s in selections]) if selections else np.array([])
        weighed = topic_model.ctfidf_model.transform(topic_model.vectorizer_model.transform(stacked))
        unit = normalize(sp.csr_matrix(weighed), copy=True)
        repr_docs, repr_docs_indices, repr_docs_ids, start = [], [], [], 0
        for index, selection in enumerate(selections):
            selected_docs, selected_docs_ids = selection["Document"].values, selection.index.tolist()
            rows = unit[start : start + len(selected_docs)]
            start += len(selected_docs)
            nr_docs = nr_repr_docs if len(selected_docs) > nr_repr_docs else len(selected_docs)
            sim = np.asarray((rows @ normalize(c_tf_idf[index], copy=True).T).todense())  # cosine_similarity's
            docs = [selected_docs[i] for i in np.argpartition(sim.reshape(1, -1)[0], -nr_docs)[-nr_docs:]]
            repr_docs_ids.append([selected_docs_ids[i] for i, doc in enumerate(selected_docs) if doc in docs])
            repr_docs.extend(docs)
            repr_docs_indices.append([repr_docs_indices[-1][-1] + i + 1 if index != 0 else i for i in range(nr_docs)])
        mappings = {topic: repr_docs[i[0] : i[-1] + 1] for topic, i in zip(topics.keys(), repr_docs_indices)}
        return mappings, repr_docs, repr_docs_indices, repr_docs_ids

    return extract


def use_faster_internals(topic_model: BERTopic) -> None:
    """Give ``topic_model`` (a BERTopic instance) the two rewritten loops; its class is left as it is."""
    topic_model._top_n_values_sparse = top_n_values_sparse
    topic_model._extract_representative_docs = representative_docs(
        topic_model, topic_model._extract_representative_docs
    )

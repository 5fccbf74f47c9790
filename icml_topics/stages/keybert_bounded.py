"""BERTopic's ``KeyBERTInspired`` keyphrases at a cost bounded by each node's own candidates.

``KeyBERTInspired`` compares every node with every node's candidates: a dense nodes x distinct-candidates
similarity (1,259 subtopics x 123,425 candidates at 50k papers: 155M floats), and it reads its candidates
through two private BERTopic loops (``_top_n_idx_sparse``, ``_top_n_values_sparse``: one scipy indexing call a
candidate) and its representative documents through ``_extract_representative_docs`` (a vectorizer call a
node). ``BoundedKeyBERT`` runs the same four steps through BERTopic's public plug-in point
(``BaseRepresentation.extract_topics``) and public attributes (``vectorizer_model``, ``ctfidf_model``,
``embedding_model``), with the same result (``tests/stages/test_keybert_bounded.py`` compares it with the
installed ``KeyBERTInspired``):

1. each node's representative documents: BERTopic's sample (``nr_samples`` a node, drawn with its seed 42),
   counted and weighed ``REPRESENTATIVE_CHUNK`` documents at a time (not a call a node, nor one count matrix
   of every node's sample, which holds about every paper of the corpus), the ``nr_repr_docs`` closest to the
   node's c-TF-IDF row;
2. each node's ``nr_candidate_words`` best c-TF-IDF n-grams, in BERTopic's order (ties included);
3. the distinct candidates embedded in one call (the fit's embedder: its cache keeps them across levels and
   runs, so a second level or a rerun embeds only the phrases not seen before);
4. each node compared with its own candidates only.

Cost: candidates are at most ``nodes x nr_candidate_words`` and at most the c-TF-IDF vocabulary (which a
large corpus takes from a fixed-size sample, ``represent_topics(vocabulary_from=...)``); the similarity is
``nodes x nr_candidate_words`` floats (about 400 bytes a node), the phrase vectors ``candidates x dim x 4``
bytes (1.5 kB a phrase for a 384-dimensional model). Both grow linearly with the node count until the
vocabulary caps the phrases. With ``max_candidates`` (a large corpus's levels: ``represent_topics``), the
phrases a level embeds are also at most ``max_candidates``, whatever the node count: when the nodes' candidates
hold more distinct phrases, a shared vocabulary admits them rank by rank (every node's best candidate, then
every node's second, ...) until it is full, and each node keeps its candidates that are in it, in their order
(``shared_vocabulary``; every node keeps its best one, so beyond ``max_candidates`` nodes the bound is the node
count). Below the limit nothing changes.

    >>> model = bounded_keybert(top_n_words=20, nr_repr_docs=5, nr_samples=200)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.preprocessing import normalize

from icml_topics.stages.bertopic_import import import_bertopic

__all__ = [
    "BERTOPIC_SAMPLE_SEED",
    "MAX_CANDIDATES",
    "REPRESENTATIVE_CHUNK",
    "bounded_keybert",
    "candidate_words",
    "representative_docs",
    "shared_vocabulary",
]

BERTOPIC_SAMPLE_SEED = 42  # BERTopic's own seed for sampling each topic's documents (not the fit's seed)
_PADDING = ""  # BERTopic's candidate for a node with fewer n-grams than asked
MAX_CANDIDATES = 50_000  # distinct phrases a large corpus's level embeds at most (75 MiB of 384-d vectors)
REPRESENTATIVE_CHUNK = 20_000  # sampled documents counted at once for the representative documents


def representative_docs(
    vectorizer,
    ctfidf_model,
    c_tf_idf: sp.csr_matrix,
    documents: pd.DataFrame,
    labels: Sequence[int],
    *,
    nr_samples: int,
    nr_repr_docs: int,
    chunk_docs: int = REPRESENTATIVE_CHUNK,
) -> tuple[list[str], list[list[int]]]:
    """BERTopic's ``_extract_representative_docs`` without diversity (the flat list of representative documents
    and each node's positions in it), the nodes' samples counted and weighed ``chunk_docs`` sampled documents at a
    time (a node's whole sample in one chunk; each row's weights do not depend on the others')."""
    sampled = (
        documents.drop("Image", axis=1, errors="ignore")
        .groupby("Topic")
        .sample(n=nr_samples, replace=True, random_state=BERTOPIC_SAMPLE_SEED)
        .drop_duplicates()
    )
    by_topic = dict(tuple(sampled.groupby("Topic", sort=False)["Document"]))
    selections = [by_topic[t].values if t in by_topic else np.array([], dtype=object) for t in labels]
    rows = normalize(sp.csr_matrix(c_tf_idf), copy=True)
    docs: list[str] = []
    positions: list[list[int]] = []
    for first_node, chunk in _chunks(selections, chunk_docs):
        stacked = np.concatenate(chunk)
        unit = normalize(sp.csr_matrix(ctfidf_model.transform(vectorizer.transform(stacked))), copy=True)
        start = 0
        for index, selected in enumerate(chunk, start=first_node):
            block = unit[start : start + len(selected)]
            start += len(selected)
            nr_docs = min(nr_repr_docs, len(selected))
            sim = np.asarray((block @ rows[index].T).todense()).reshape(-1)  # scikit-learn's cosine_similarity
            docs.extend(selected[i] for i in np.argpartition(sim, -nr_docs)[-nr_docs:])
            first = positions[-1][-1] + 1 if positions else 0
            positions.append(list(range(first, first + nr_docs)))
    return docs, positions


def _chunks(selections: list[np.ndarray], size: int):
    """``(index of its first node, nodes' selections)`` of consecutive nodes, as many as hold at most ``size``
    documents together (at least one node a chunk)."""
    first, chunk, held = 0, [], 0
    for index, selected in enumerate(selections):
        if chunk and held + len(selected) > size:
            yield first, chunk
            first, chunk, held = index, [], 0
        chunk.append(selected)
        held += len(selected)
    if chunk:
        yield first, chunk


def candidate_words(
    c_tf_idf: sp.csr_matrix, words: Sequence[str], labels: Sequence[int], n: int
) -> dict[int, tuple[str, ...]]:
    """Each node's ``n`` best c-TF-IDF n-grams, best first, as ``KeyBERTInspired._extract_candidate_words``
    orders them (its row-wise partition and sort; ``""`` where a row has fewer than ``n``)."""
    m = sp.csr_matrix(c_tf_idf)
    indices, scores = [], []
    for row in range(len(labels)):
        lo, hi = m.indptr[row], m.indptr[row + 1]
        k = min(n, hi - lo)
        picked = m.indices[lo + np.argpartition(m.data[lo:hi], -k)[-k:]] if k else np.array([], dtype=np.int32)
        at = dict(zip(m.indices[lo:hi].tolist(), m.data[lo:hi], strict=True))
        indices.append([int(picked[i]) if i < len(picked) else None for i in range(n)])
        scores.append([at[indices[-1][i]] if i < len(picked) else 0 for i in range(n)])
    values = np.array(scores)
    order = np.argsort(values, 1)
    taken = np.take_along_axis(np.array(indices, dtype=object), order, axis=1)
    values = np.take_along_axis(values, order, axis=1)
    return {
        int(label): tuple(
            words[w] if w is not None and s > 0 else _PADDING for w, s in zip(taken[i][::-1], values[i][::-1])
        )
        for i, label in enumerate(labels)
    }


def shared_vocabulary(candidates: Mapping[int, Sequence[str]], limit: int | None) -> dict[int, tuple[str, ...]]:
    """Each node's candidates (best first) restricted to a vocabulary of at most ``max(limit, nodes)`` distinct
    phrases, admitted rank by rank: every node's first candidate (always: no node is left without one), then
    every node's second, ... (nodes in order) until the vocabulary holds ``limit``. A node keeps, in its order,
    those of its candidates the vocabulary holds (its own best ones and any deeper one another node admitted);
    BERTopic's padding ``""`` is kept and not counted. Unchanged when the candidates hold at most ``limit``
    phrases (or ``limit`` is None).

        >>> shared_vocabulary({0: ("a", "b", "c"), 1: ("d", "c", "e")}, 4)
        {0: ('a', 'b', 'c'), 1: ('d', 'c')}
    """
    lists = {int(label): tuple(words) for label, words in candidates.items()}
    if limit is None or len({w for words in lists.values() for w in words if w != _PADDING}) <= limit:
        return lists
    admitted = {words[0] for words in lists.values() if words and words[0] != _PADDING}
    depth = max((len(words) for words in lists.values()), default=0)
    for rank in range(1, depth):
        for words in lists.values():
            if len(admitted) >= limit:
                break
            if rank < len(words) and words[rank] != _PADDING:
                admitted.add(words[rank])
    return {label: tuple(w for w in words if w == _PADDING or w in admitted) for label, words in lists.items()}


def _top_words(
    topic_embeddings: np.ndarray, vectors: np.ndarray, where: Mapping[str, int], candidates: dict, top_n: int
) -> dict[int, list[tuple[str, float]]]:
    """Each node's ``top_n`` candidates by cosine similarity with the node, best first (KeyBERTInspired's
    ``_extract_top_words``), comparing each node with its own candidates only."""
    topics = normalize(np.asarray(topic_embeddings), copy=True)
    updated = {}
    for i, (label, words) in enumerate(candidates.items()):
        values = vectors[[where[w] for w in words]] @ topics[i]
        order = np.argsort(values)[-top_n:]
        updated[label] = [(words[j], v) for j, v in zip(order, np.sort(values)[-top_n:])][::-1]
    return updated


def bounded_keybert(
    *,
    top_n_words: int = 10,
    nr_repr_docs: int = 5,
    nr_samples: int = 500,
    nr_candidate_words: int = 100,
    max_candidates: int | None = None,
):
    """A BERTopic representation model giving ``KeyBERTInspired``'s keyphrases (see the module) at a cost
    bounded by each node's ``nr_candidate_words`` and, when given, by ``max_candidates`` distinct phrases
    (``shared_vocabulary``; None: every node's candidates, as ``KeyBERTInspired``)."""
    import_bertopic()  # the one place a fit imports BERTopic (stages/bertopic_import.py)
    from bertopic.representation import BaseRepresentation

    class BoundedKeyBERT(BaseRepresentation):
        """``KeyBERTInspired``'s four steps, each node compared with its own candidates (module docstring)."""

        def __init__(self, top_n_words=10, nr_repr_docs=5, nr_samples=500, nr_candidate_words=100, max_candidates=None):
            self.top_n_words = top_n_words
            self.nr_repr_docs = nr_repr_docs
            self.nr_samples = nr_samples
            self.nr_candidate_words = nr_candidate_words
            self.max_candidates = max_candidates

        def extract_topics(self, topic_model, documents, c_tf_idf, topics):
            labels = [int(label) for label in sorted(topics)]
            docs, positions = representative_docs(
                topic_model.vectorizer_model,
                topic_model.ctfidf_model,
                c_tf_idf,
                documents,
                labels,
                nr_samples=self.nr_samples,
                nr_repr_docs=self.nr_repr_docs,
            )
            embedder = topic_model.embedding_model
            doc_vectors = embedder.embed_documents(docs, verbose=False)
            topic_embeddings = [np.mean(doc_vectors[p[0] : p[-1] + 1], axis=0) for p in positions]
            names = topic_model.vectorizer_model.get_feature_names_out()
            candidates = shared_vocabulary(
                candidate_words(c_tf_idf, names, labels, self.nr_candidate_words), self.max_candidates
            )
            vocab = list(dict.fromkeys(w for words in candidates.values() for w in words))
            vectors = normalize(np.asarray(embedder.embed_documents(vocab, verbose=False)), copy=True)
            where = {w: i for i, w in enumerate(vocab)}
            return _top_words(np.asarray(topic_embeddings), vectors, where, candidates, self.top_n_words)

    return BoundedKeyBERT(
        top_n_words=top_n_words,
        nr_repr_docs=nr_repr_docs,
        nr_samples=nr_samples,
        nr_candidate_words=nr_candidate_words,
        max_candidates=max_candidates,
    )

"""Topic representation with BERTopic: c-TF-IDF over n-grams, then KeyBERT-style keyphrases + MMR.

We hand BERTopic our own clustering (its "manual topic modelling" mode: ``BaseDimensionalityReduction``
and ``BaseCluster`` with ``y=labels``), so BERTopic does what it is best at, the representation, on
cleaned text, with our cached embedder behind ``KeyBERTInspired`` and ``MaximalMarginalRelevance``.

    >>> rep = represent_topics(texts, embeddings, labels, embedder)      # doctest: +SKIP
    >>> rep.keywords[0][:3]                                            # doctest: +SKIP
    ['reinforcement learning', 'policy optimization', 'offline']
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from icml_topics.stages.stopwords import stop_words

__all__ = ["TopicRepresentation", "represent_topics"]

logger = logging.getLogger("icml_topics")

TOKEN_PATTERN = r"(?u)\b[a-zA-Z][a-zA-Z0-9\-]*[a-zA-Z0-9]\b"

# Single words that are part of good keyphrases but say nothing about a topic on their own.
GENERIC_KEYWORDS = frozenset(
    "learning model models data network networks neural deep training method methods algorithm algorithms "
    "performance problem problems task tasks approach approaches framework results function functions "
    "machine modeling generalization inputs input output outputs".split()
)


def _useful(phrase: str) -> bool:
    return bool(phrase) and phrase not in GENERIC_KEYWORDS


@dataclass
class TopicRepresentation:
    """What BERTopic found: relabelled topics (sorted by size, -1 kept) and keyphrases per topic."""

    labels: np.ndarray  # one topic per document, BERTopic's numbering (largest topic = 0)
    keywords: dict[int, list[str]]  # topic -> keyphrases, best first
    bertopic: object  # the fitted BERTopic model, for users who want its tools


def _embedder_backend(embed_fn: Callable[[list[str]], np.ndarray]):
    from bertopic.backend import BaseEmbedder

    class CachedEmbedder(BaseEmbedder):
        """BERTopic backend that routes every embedding request through ``icml_topics.embed``."""

        def embed(self, documents: Sequence[str], verbose: bool = False) -> np.ndarray:
            return embed_fn(list(documents))

    return CachedEmbedder()


def represent_topics(
    texts: Sequence[str],
    embeddings: np.ndarray,
    labels: np.ndarray,
    embed_fn: Callable[[list[str]], np.ndarray],
    *,
    n_keywords: int = 10,
    ngram_range: tuple[int, int] = (1, 3),
    min_df: int = 2,
    diversity: float = 0.3,
    random_state: int | None = 42,
    vocabulary_from: Sequence[str] | None = None,
) -> TopicRepresentation:
    """Run BERTopic's representation stage on pre-computed clusters.

    ``vocabulary_from``: texts (e.g. a sample of a large corpus) whose n-grams passing ``min_df`` form
    the vocabulary; c-TF-IDF then counts them over all ``texts``, so the vocabulary, and the memory,
    stops growing with the corpus.
    """
    from bertopic import BERTopic
    from bertopic.cluster import BaseCluster
    from bertopic.dimensionality import BaseDimensionalityReduction
    from bertopic.representation import KeyBERTInspired, MaximalMarginalRelevance
    from bertopic.vectorizers import ClassTfidfTransformer
    from sklearn.feature_extraction.text import CountVectorizer

    n_topics = len(set(labels.tolist()) - {-1})
    min_df = min_df if n_topics > 1 and len(texts) >= 4 * min_df else 1
    if min_df == 1:  # every trigram of a small corpus passes min_df=1: keep phrases short there
        ngram_range = (ngram_range[0], min(ngram_range[1], 2))
    vectorizer = CountVectorizer(
        stop_words=stop_words(),
        ngram_range=ngram_range,
        min_df=min_df,
        token_pattern=TOKEN_PATTERN,
        lowercase=True,
    )
    if vocabulary_from is not None:
        vocabulary = vectorizer.fit(list(vocabulary_from)).vocabulary_
        vectorizer = CountVectorizer(stop_words=stop_words(), ngram_range=ngram_range, token_pattern=TOKEN_PATTERN,
                                     lowercase=True, vocabulary=sorted(vocabulary))
    representation = [
        KeyBERTInspired(top_n_words=max(20, 2 * n_keywords), nr_repr_docs=5, nr_samples=200, random_state=random_state or 0),
        MaximalMarginalRelevance(diversity=diversity, top_n_words=n_keywords + 5),
    ]
    model = BERTopic(
        embedding_model=_embedder_backend(embed_fn),
        umap_model=BaseDimensionalityReduction(),
        hdbscan_model=BaseCluster(),
        vectorizer_model=vectorizer,
        ctfidf_model=ClassTfidfTransformer(reduce_frequent_words=True),
        representation_model=representation,
        top_n_words=max(30, 3 * n_keywords),
        calculate_probabilities=False,
        verbose=False,
    )
    topics, _ = model.fit_transform(list(texts), embeddings=np.asarray(embeddings), y=np.asarray(labels))
    keywords = {
        int(t): [w for w, _ in (model.get_topic(t) or []) if _useful(w)][:n_keywords] for t in sorted(set(topics))
    }
    return TopicRepresentation(labels=np.asarray(topics, dtype=np.int64), keywords=keywords, bertopic=model)

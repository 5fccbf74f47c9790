"""The stages of ``TopicMap.fit`` as functions of its parameters: embed, reduce and cluster, represent, themes.

Every function takes the estimator's parameters (``TopicMap.get_params(deep=False)``, a mapping) and
returns plain arrays or a :class:`~icml_topics.state.ThemeState`; none imports ``model.py``, so the
benchmarks and tests run a single stage the way ``fit`` runs it:

    >>> from icml_topics.fitting import Embedder, reduce_and_cluster
    >>> params = TopicMap(random_state=0).get_params()                     # doctest: +SKIP
    >>> labels, coords = reduce_and_cluster(embeddings, params, seed=0)    # doctest: +SKIP
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from icml_topics._progress import embedding_progress, quiet_libraries
from icml_topics._validation import check_embeddings, valid_representation
from icml_topics.corpus.readers import CorpusError, read_corpus
from icml_topics.corpus.validation import flag_rows
from icml_topics.stages import HDBSCANClusterer, MapProjector, Reducer, knn_graph, size_aware_defaults
from icml_topics.stages._base import CacheableReducer, ClustererProtocol, ReducerProtocol, accepts_knn
from icml_topics.stages.large import theme_neighbours
from icml_topics.stages.reduce import distinct_rows
from icml_topics.stages.represent import TopicRepresentation, represent_topics
from icml_topics.stages.result_cache import cached_json, cached_reduction, content_key
from icml_topics.state import FittedState, ThemeState
from icml_topics.themes.assign import ThemeRule, ThemeSettings, embed_prototypes
from icml_topics.themes.taxonomy import Taxonomy

__all__ = [
    "MIN_DOCUMENTS",
    "Embedder",
    "cache_dir",
    "check_plugins",
    "document_embeddings",
    "fit_themes",
    "read_flagged",
    "reduce_and_cluster",
    "represent",
    "supervised_head",
]

logger = logging.getLogger("icml_topics")

MIN_DOCUMENTS = 1  # a single abstract is a map of one topic


class Embedder:
    """Embeds through the cache with the estimator's model settings and counts what it embedded.

    ``counts`` (``{"embedded": n, "from_cache": n}``) is updated in place: ``TopicMap.embedding_counts_``.
    """

    def __init__(self, params: Mapping[str, Any], counts: dict[str, int] | None = None) -> None:
        self.params = params
        self.counts = counts if counts is not None else {"embedded": 0, "from_cache": 0}

    def __call__(self, texts: list[str], *, documents: bool = False) -> np.ndarray:
        """Embed ``texts``; ``documents=True``: on the ``client``'s Dask workers when one is set."""
        from icml_topics.embedding import embed, last_run_info

        p = self.params
        with quiet_libraries():  # no "Loading weights" bar from transformers
            vectors = embed(
                texts,
                model=p.get("embedding_model"),
                cache=p.get("cache", True),
                precision=p.get("precision", "auto"),
                show_progress_bar=embedding_progress(p.get("verbose", False)),
                max_tokens=p.get("max_tokens"),
                client=p.get("client") if documents else None,
            )
        info = last_run_info()
        if info is not None:
            self.counts["embedded"] += info.n_embedded
            self.counts["from_cache"] += info.n_from_cache
        return vectors


def read_flagged(
    corpus: Any, *, columns: dict[str, str] | None = None, prepend_title: bool = True, require: int = 0
) -> pd.DataFrame:
    """The corpus table with its flags and modelled ``text``; at least ``require`` rows must be modelled."""
    flagged = flag_rows(read_corpus(corpus, columns=columns), prepend_title=prepend_title)
    ok = flagged["status"] == "ok"
    if int(ok.sum()) < require:
        raise CorpusError(
            f"Only {int(ok.sum())} of {len(flagged)} rows have an abstract to model; a topic map needs at least "
            f"{require}. Check the abstract column (rows dropped: "
            f"{flagged.loc[~ok, 'drop_reason'].value_counts().to_dict()})."
        )
    return flagged


def document_embeddings(texts: list[str], embeddings: np.ndarray | None, ok: np.ndarray, embed: Embedder) -> np.ndarray:
    """The modelled rows' unit vectors: ``embeddings`` (one row per input or per modelled row) or embedded."""
    if embeddings is None:
        return embed(texts, documents=True)
    emb = check_embeddings(embeddings)
    if emb.ndim != 2 or emb.shape[0] not in (len(ok), len(texts)):
        raise ValueError(
            f"embeddings has shape {emb.shape}; expected one row per input row ({len(ok)}) "
            f"or per modelled row ({len(texts)})."
        )
    emb = emb[ok] if emb.shape[0] == len(ok) and len(ok) != len(texts) else emb
    norms = np.linalg.norm(emb, axis=1, keepdims=True)
    if np.allclose(norms, 1.0, atol=1e-5):
        return emb  # already unit length: keep the exact values (caches are keyed by them)
    return emb / norms  # check_embeddings refused all-zero rows


def cache_dir(cache: Any, kind: str) -> Path | None:
    """Where ``cache`` (the ``cache=`` parameter) keeps ``kind`` (``embeddings``, ``reductions``, ...)."""
    if cache is False:
        return None
    from icml_topics.embedding import default_cache_dir

    if cache is True:  # <root>/embeddings is the embedding cache; siblings hold the others
        return default_cache_dir().parent / kind
    base = Path(cache)
    if base.suffix.lower() in {".sqlite3", ".sqlite", ".db"}:  # the embedding cache file itself
        base = base.parent
    return base if kind == "embeddings" else base / kind


def _stage_cache_dir(params: Mapping[str, Any], kind: str) -> Path | None:
    """Stage results are cached only for a fixed seed: with ``random_state=None`` each fit is fresh."""
    return None if params.get("random_state") is None else cache_dir(params.get("cache", True), kind)


def check_plugins(reducer: Any, clusterer: Any) -> None:
    """Reject a reducer/clusterer that lacks the protocol's method before any work starts."""
    if not isinstance(reducer, str) and not isinstance(reducer, ReducerProtocol):
        raise TypeError(
            f"reducer={type(reducer).__name__} has no fit_transform(embeddings); pass 'auto', 'umap', 'small' "
            "or an object like sklearn.decomposition.PCA(5) (see icml_topics.stages.ReducerProtocol)."
        )
    if clusterer is not None and not isinstance(clusterer, ClustererProtocol):
        raise TypeError(
            f"clusterer={type(clusterer).__name__} has no fit_predict(reduced); pass None (HDBSCAN) or an object "
            "like sklearn.cluster.KMeans(20) (see icml_topics.stages.ClustererProtocol)."
        )


def reduce_and_cluster(
    emb: np.ndarray, params: Mapping[str, Any], *, seed: int, rows: pd.DataFrame | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Fine-topic labels (int64, -1 = outlier) and 2-D map coordinates of ``emb``; ``rows``: the modelled
    corpus rows (strata of the large-corpus sample)."""
    keep, inverse = distinct_rows(emb)
    if len(keep) < len(emb):  # identical abstracts are mapped and clustered once, as one point
        labels, coords = reduce_and_cluster(
            emb[keep], params, seed=seed, rows=None if rows is None else rows.iloc[keep]
        )
        return labels[inverse], coords[inverse]
    d = size_aware_defaults(len(emb))
    chosen, clusterer = params.get("reducer", "auto"), params.get("clusterer")
    method = d.reducer if chosen == "auto" else chosen
    if len(emb) >= params.get("large_corpus_threshold", 50_000) and chosen in ("auto", "umap") and clusterer is None:
        return _reduce_and_cluster_large(emb, params, rows)
    n_neighbors = params.get("n_neighbors") or d.n_neighbors
    if isinstance(method, str):
        reducer = Reducer(params.get("n_components", 5), n_neighbors, method=method, random_state=seed)
        projector = MapProjector(n_neighbors, method=method, random_state=seed)
    else:
        reducer, projector = method, MapProjector(n_neighbors, method=d.reducer, random_state=seed)
    knn: list = []

    def graph():
        if not knn:
            knn.append(knn_graph(emb, n_neighbors))
        return knn[0]

    folder = _stage_cache_dir(params, "reductions")
    logger.debug(
        "reducing %d embeddings (%s) and clustering",
        len(emb),
        method if isinstance(method, str) else type(method).__name__,
    )

    def reduce() -> np.ndarray:
        return np.asarray(
            reducer.fit_transform(emb, knn=graph()) if accepts_knn(reducer) else reducer.fit_transform(emb)
        )

    reduced = (
        cached_reduction(emb, reducer.cache_key(), reduce, folder)
        if isinstance(reducer, CacheableReducer)
        else reduce()
    )
    coords = cached_reduction(emb, projector.cache_key(), lambda: projector.fit_transform(emb, graph()), folder)
    clusterer = clusterer or HDBSCANClusterer(
        params.get("min_topic_size") or d.min_topic_size, params.get("min_samples") or d.min_samples
    )
    return np.asarray(clusterer.fit_predict(reduced), dtype=np.int64), coords


def _reduce_and_cluster_large(
    emb: np.ndarray, params: Mapping[str, Any], rows: pd.DataFrame | None
) -> tuple[np.ndarray, np.ndarray]:
    from icml_topics.stages.large import fit_large, strata_of

    fit = fit_large(
        emb,
        n_components=params.get("n_components", 5),
        n_neighbors=params.get("n_neighbors") or 15,
        min_cluster_size=params.get("min_topic_size"),
        min_samples=params.get("min_samples"),
        sample_size=params.get("sample_size", 50_000),
        strata=strata_of(rows),
        random_state=params.get("random_state"),
    )
    return fit.labels, fit.coords


def represent(
    texts: list[str],
    emb: np.ndarray,
    labels: np.ndarray,
    embed: Callable[[list[str]], np.ndarray],
    params: Mapping[str, Any],
    *,
    seed: int,
) -> TopicRepresentation:
    """BERTopic's representation, or the keyphrases it gave before for the same texts, labels and settings."""
    from icml_topics.embedding import cached_model_identity

    sample_size = params.get("sample_size", 50_000)
    settings = dict(
        n_keywords=params.get("n_keywords", 10), min_df=size_aware_defaults(len(texts)).min_df, random_state=seed
    )
    identity = cached_model_identity(params.get("embedding_model"), cache_dir(params.get("cache", True), "embeddings"))
    large = len(texts) >= params.get("large_corpus_threshold", 50_000)  # vocabulary from a sample: keyed only then
    key = content_key(
        "represent-v1", identity, sorted(settings.items()), texts, labels, *([sample_size] if large else [])
    )
    fresh: list[TopicRepresentation] = []

    def compute() -> dict:
        sample = texts[:: -(-len(texts) // sample_size)] if large else None
        fresh.append(represent_topics(texts, emb, labels, embed, vocabulary_from=sample, **settings))
        return {"labels": fresh[0].labels.tolist(), "keywords": {str(k): v for k, v in fresh[0].keywords.items()}}

    value = cached_json(
        key, compute, _stage_cache_dir(params, "representations"), check=lambda v: valid_representation(v, len(texts))
    )
    if fresh:
        return fresh[0]
    logger.info("reusing cached keyphrases for %d topics", len(value["keywords"]))
    keywords = {int(k): list(v) for k, v in value["keywords"].items()}
    return TopicRepresentation(np.asarray(value["labels"], dtype=np.int64), keywords, None)


def fit_themes(
    state: FittedState,
    taxonomy: Taxonomy,
    settings: ThemeSettings,
    embed: Callable[[list[str]], np.ndarray],
    params: Mapping[str, Any] | None = None,
) -> ThemeState:
    """Fit the theme rule of ``taxonomy`` on the state's documents with ``settings`` (only the
    taxonomy's short texts are embedded) and place every modelled document. From
    ``params["large_corpus_threshold"]`` documents up, the neighbour vote reads the approximate kNN graph
    (``stages.large.theme_neighbours``) and the self-trained classifier sees at most ``sample_size`` papers."""
    params = params or {}
    prototypes = embed_prototypes(taxonomy.theme_texts(), embed)
    modelled = state.modelled
    large = len(state.embeddings) >= params.get("large_corpus_threshold", 50_000)
    neighbours = (
        theme_neighbours(state.embeddings, settings.n_neighbors, random_state=params.get("random_state", 42))
        if large
        else None
    )
    rule, docs = ThemeRule.fit(
        state.embeddings,
        modelled["title"].tolist(),
        modelled["abstract"].tolist(),
        prototypes,
        taxonomy.names,
        taxonomy.theme_phrases(),
        settings,
        neighbours=neighbours,
        max_train_docs=params.get("sample_size", 50_000) if large else None,
        head=supervised_head(taxonomy, settings, params, state.embeddings.shape[1]),
    )
    return ThemeState(taxonomy, rule, docs)


def supervised_head(taxonomy: Taxonomy, settings: ThemeSettings, params: Mapping[str, Any], dim: int):
    """The built-in supervised head when it applies: wanted by the settings, trained for this taxonomy's
    themes and for the embedding model in use; otherwise None (the settings' weights)."""
    from icml_topics.embedding.models import is_default_model
    from icml_topics.themes.head import builtin_head

    if not settings.supervised_head or not is_default_model(params.get("embedding_model")):
        return None
    head = builtin_head()
    return head if head is not None and head.fits(taxonomy, dim) else None

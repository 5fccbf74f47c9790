"""The stages of ``TopicMap.fit`` and their order: ``run_fit`` runs ``FIT_STAGES`` on a corpus.

Every stage is a function of the fit's ``FitConfig`` (the parameters
resolved once) and of what the earlier stages computed (a ``FitRun``); none imports ``model.py``,
so ``fit``, ``set_taxonomy``, ``transform``, the benchmarks and the tests run the very same functions:

    >>> from icml_topics.fit_config import FitConfig
    >>> from icml_topics.fitting import run_fit
    >>> config = FitConfig.from_params({"random_state": 0})
    >>> state = run_fit("papers.jsonl", config, on_stage=lambda name, line: print(name))
    read
    embed
    ...

Adding a stage: write ``def my_stage(run: FitRun) -> None`` (read the fields earlier stages set, set
your own; give ``FitRun`` a field for it) and put ``FitStage("my_stage", describe, my_stage)`` at
its place in ``FIT_STAGES``; ``fit``'s progress lines and the benchmarks' stage timings follow.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from icml_topics._validation import valid_representation
from icml_topics.fit_config import FitConfig
from icml_topics.fit_inputs import MIN_DOCUMENTS, Embedder, EmbedFn, document_embeddings, read_flagged
from icml_topics.stages import (
    HDBSCANClusterer,
    MapProjector,
    Reducer,
    jit_warmup,
    knn_graph,
    name_topics,
    size_aware_defaults,
)
from icml_topics.stages._base import CacheableReducer, accepts_knn
from icml_topics.stages.large import theme_neighbours
from icml_topics.stages.reduce import distinct_rows
from icml_topics.stages.represent import TopicRepresentation, represent_topics
from icml_topics.stages.representatives import representative_order
from icml_topics.stages.result_cache import cached_json, cached_reduction, content_key
from icml_topics.stages.tree import TopicTree, fit_tree
from icml_topics.state import FittedState, ThemeState
from icml_topics.themes.assign import DocumentThemes, ThemeRule, ThemeSettings, embed_prototypes
from icml_topics.themes.taxonomy import Taxonomy

__all__ = [
    "FIT_STAGES",
    "MIN_DOCUMENTS",
    "Embedder",
    "FitRun",
    "FitStage",
    "assign_themes",
    "document_embeddings",
    "fit_themes",
    "neighbour_graph",
    "read_flagged",
    "reduce_and_cluster",
    "represent",
    "run_fit",
    "run_stages",
    "supervised_head",
    "topic_tree",
]

logger = logging.getLogger("icml_topics")

OnStage = Callable[[str, str], None]


def neighbour_graph(emb: np.ndarray, n_neighbors: int, config: FitConfig) -> tuple[np.ndarray, np.ndarray]:
    """The kNN graph of ``emb`` as the fit builds it: approximate (NN-descent) when ``config.is_large``
    says the corpus is large, else exact; same format either way (``stages.reduce.knn_graph``)."""
    return knn_graph(emb, n_neighbors, approximate=config.is_large(len(emb)))


def reduce_and_cluster(
    emb: np.ndarray, config: FitConfig, *, rows: pd.DataFrame | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Fine-topic labels (int64, -1 = outlier) and 2-D map coordinates of ``emb``; ``rows``: the modelled
    corpus rows (strata of the large-corpus sample)."""
    keep, inverse = distinct_rows(emb)
    if len(keep) < len(emb):  # identical abstracts are mapped and clustered once, as one point
        labels, coords = reduce_and_cluster(emb[keep], config, rows=None if rows is None else rows.iloc[keep])
        return labels[inverse], coords[inverse]
    d = size_aware_defaults(len(emb))
    chosen, clusterer = config.reducer, config.clusterer
    method = d.reducer if chosen == "auto" else chosen
    if config.is_large(len(emb)) and chosen in ("auto", "umap") and clusterer is None:
        return _reduce_and_cluster_large(emb, config, rows)
    n_neighbors = config.neighbours(len(emb))
    seed = config.seed
    if isinstance(method, str):
        reducer = Reducer(config.n_components, n_neighbors, method=method, random_state=seed)
        projector = MapProjector(n_neighbors, method=method, random_state=seed)
    else:
        reducer, projector = method, MapProjector(n_neighbors, method=d.reducer, random_state=seed)
    knn: list = []

    def graph():
        if not knn:
            knn.append(neighbour_graph(emb, n_neighbors, config))
        return knn[0]

    folder = config.reductions_dir
    logger.debug(
        "reducing %d embeddings (%s) and clustering",
        len(emb),
        method if isinstance(method, str) else type(method).__name__,
    )

    def reduce() -> np.ndarray:
        jit_warmup.ready("umap")
        return np.asarray(
            reducer.fit_transform(emb, knn=graph()) if accepts_knn(reducer) else reducer.fit_transform(emb)
        )

    reduced = (
        cached_reduction(emb, reducer.cache_key(), reduce, folder)
        if isinstance(reducer, CacheableReducer)
        else reduce()
    )

    def project() -> np.ndarray:
        jit_warmup.ready("umap")
        return projector.fit_transform(emb, graph())

    coords = cached_reduction(emb, projector.cache_key(), project, folder)
    clusterer = clusterer or HDBSCANClusterer(
        config.min_topic_size or d.min_topic_size, config.min_samples or d.min_samples
    )
    return np.asarray(clusterer.fit_predict(reduced), dtype=np.int64), coords


def _reduce_and_cluster_large(
    emb: np.ndarray, config: FitConfig, rows: pd.DataFrame | None
) -> tuple[np.ndarray, np.ndarray]:
    from icml_topics.stages.large import fit_large, strata_of

    jit_warmup.ready("umap")
    fit = fit_large(
        emb,
        n_components=config.n_components,
        n_neighbors=config.neighbours(len(emb)),
        min_cluster_size=config.min_topic_size,
        min_samples=config.min_samples,
        sample_size=config.sample_size,
        strata=strata_of(rows),
        random_state=config.random_state,
    )
    return fit.labels, fit.coords


def represent(
    texts: list[str], emb: np.ndarray, labels: np.ndarray, embed: EmbedFn, config: FitConfig
) -> TopicRepresentation:
    """BERTopic's representation, or the keyphrases it gave before for the same texts, labels and settings."""
    from icml_topics.embedding import cached_model_identity

    sample_size = config.sample_size
    settings = dict(
        n_keywords=config.n_keywords, min_df=size_aware_defaults(len(texts)).min_df, random_state=config.seed
    )
    identity = cached_model_identity(config.embedding_model, config.embeddings_dir)
    large = config.is_large(len(texts))  # vocabulary from a sample: keyed only then
    key = content_key(
        "represent-v1", identity, sorted(settings.items()), texts, labels, *([sample_size] if large else [])
    )
    fresh: list[TopicRepresentation] = []

    def compute() -> dict:
        sample = texts[:: -(-len(texts) // sample_size)] if large else None
        fresh.append(represent_topics(texts, emb, labels, embed, vocabulary_from=sample, **settings))
        return {"labels": fresh[0].labels.tolist(), "keywords": {str(k): v for k, v in fresh[0].keywords.items()}}

    value = cached_json(key, compute, config.representations_dir, check=lambda v: valid_representation(v, len(texts)))
    if fresh:
        return fresh[0]
    logger.info("reusing cached keyphrases for %d topics", len(value["keywords"]))
    keywords = {int(k): list(v) for k, v in value["keywords"].items()}
    return TopicRepresentation(np.asarray(value["labels"], dtype=np.int64), keywords)


def topic_tree(texts: list[str], emb: np.ndarray, embed: EmbedFn, config: FitConfig) -> TopicTree | None:
    """The topic tree stage (``stages/tree.py``: EVoC layers, nested and named), each level's keyphrases
    computed as the fine topics' are (and cached alike); None with ``topic_tree=False``."""
    if not config.topic_tree:
        return None

    def keyphrases(labels: np.ndarray) -> dict[int, list[str]]:
        rep = represent(texts, emb, labels, embed, config)
        ours: dict[int, int] = {}  # BERTopic numbers topics by size: back to the level's node ids
        for new, old in zip(rep.labels.tolist(), labels.tolist()):
            ours.setdefault(new, old)
        return {ours[t]: list(kw) for t, kw in rep.keywords.items() if t in ours}

    return fit_tree(emb, texts, keyphrases, random_state=config.seed, cache_dir=config.trees_dir)


def fit_themes(
    state: FittedState, taxonomy: Taxonomy, settings: ThemeSettings, embed: EmbedFn, config: FitConfig
) -> ThemeState:
    """Fit the theme rule of ``taxonomy`` on the state's documents with ``settings`` (only the
    taxonomy's short texts are embedded) and place every modelled document (``assign_themes``)."""
    modelled = state.modelled
    rule, docs = assign_themes(
        state.embeddings, modelled["title"].tolist(), modelled["abstract"].tolist(), taxonomy, settings, embed, config
    )
    return ThemeState(taxonomy, rule, docs)


def assign_themes(
    embeddings: np.ndarray,
    titles: list,
    abstracts: list,
    taxonomy: Taxonomy,
    settings: ThemeSettings,
    embed: EmbedFn,
    config: FitConfig,
    *,
    head: Any = None,
) -> tuple[ThemeRule, DocumentThemes]:
    """The theme rule fitted on these documents and their themes. On a large corpus (``config.is_large``)
    the neighbour vote reads the approximate kNN graph (``stages.large.theme_neighbours``) and the
    self-trained classifier sees at most ``sample_size`` papers. ``head``: a supervised head to use
    instead of the built-in one (``supervised_head``)."""
    prototypes = embed_prototypes(taxonomy.theme_texts(), embed)
    large = config.is_large(len(embeddings))
    neighbours = theme_neighbours(embeddings, settings.n_neighbors, random_state=config.random_state) if large else None
    return ThemeRule.fit(
        embeddings,
        titles,
        abstracts,
        prototypes,
        taxonomy.names,
        taxonomy.theme_phrases(),
        settings,
        neighbours=neighbours,
        max_train_docs=config.sample_size if large else None,
        head=supervised_head(taxonomy, settings, config.embedding_model, embeddings.shape[1]) if head is None else head,
    )


def supervised_head(taxonomy: Taxonomy, settings: ThemeSettings, embedding_model: Any, dim: int):
    """The built-in supervised head when it applies: wanted by the settings, trained for this taxonomy's
    themes and for the embedding model in use (``embedding_model``: the parameter; ``None`` = the
    default model); otherwise None (the settings' weights)."""
    from icml_topics.embedding.models import is_default_model
    from icml_topics.themes.head import builtin_head

    if not settings.supervised_head or not is_default_model(embedding_model):
        return None
    head = builtin_head()
    return head if head is not None and head.fits(taxonomy, dim) else None


# ----------------------------------------------------------------------------- the stage sequence
@dataclass
class FitRun:
    """One fit in progress: its inputs and what each stage has computed so far (set in stage order)."""

    config: FitConfig
    embed: EmbedFn
    corpus: Any
    columns: dict[str, str] | None = None
    given_embeddings: np.ndarray | None = None  # fit(embeddings=...): then no document is embedded
    flagged: pd.DataFrame | None = None  # read: the corpus table with flags and the modelled text
    texts: list[str] = field(default_factory=list)  # read: the modelled texts
    embeddings: np.ndarray | None = None  # embed: one unit vector per modelled text
    labels: np.ndarray | None = None  # reduce_cluster: fine topics (-1 = outlier)
    coords: np.ndarray | None = None  # reduce_cluster: the 2-D map
    representation: TopicRepresentation | None = None  # represent: keyphrases (labels may be refined)
    state: FittedState | None = None  # naming: the state without themes; themes: the complete state

    @property
    def ok(self) -> np.ndarray:
        """Which corpus rows are modelled."""
        return (self.flagged["status"] == "ok").to_numpy()


@dataclass(frozen=True)
class FitStage:
    """One step of the fit: ``run`` reads and sets ``FitRun`` fields; ``describe`` gives its progress
    line from what the earlier stages computed (``None``: it shares the line of the stage before)."""

    name: str
    run: Callable[[FitRun], None]
    describe: Callable[[FitRun], str] | None = None


def _read(run: FitRun) -> None:
    c = run.config
    run.flagged = read_flagged(run.corpus, columns=run.columns, prepend_title=c.prepend_title, require=MIN_DOCUMENTS)
    run.texts = run.flagged.loc[run.ok, "text"].tolist()


def _embed(run: FitRun) -> None:
    jit_warmup.start(large=run.config.is_large(len(run.texts)))  # numba compiles in a child while this embeds
    run.embeddings = document_embeddings(run.texts, run.given_embeddings, run.ok, run.embed)


def _reduce_cluster(run: FitRun) -> None:
    run.labels, run.coords = reduce_and_cluster(run.embeddings, run.config, rows=run.flagged.loc[run.ok])


def _represent(run: FitRun) -> None:
    run.representation = represent(run.texts, run.embeddings, run.labels, run.embed, run.config)


def _name(run: FitRun) -> None:
    rep, texts = run.representation, run.texts
    order = representative_order(run.embeddings, rep.labels)
    names = name_topics(
        rep.keywords, {t: [texts[i] for i in rows] for t, rows in order.items()}, namer=run.config.topic_namer
    )
    run.state = FittedState(run.flagged, run.embeddings, rep.labels, run.coords, rep.keywords, names)


def _tree(run: FitRun) -> None:
    tree = topic_tree(run.texts, run.embeddings, run.embed, run.config)
    run.state = replace(run.state, tree=tree)


def _themes(run: FitRun) -> None:
    c = run.config
    run.state = run.state.with_themes(fit_themes(run.state, c.taxonomy, c.theme_settings, run.embed, c))


def _embedding_line(run: FitRun) -> str:
    ok = run.ok
    return (
        f"embedding {len(run.texts)} abstracts ({len(run.flagged)} rows read, {int((~ok).sum())} dropped, "
        f"{int(run.flagged['is_duplicate'].sum())} exact duplicates)"
    )


def _clusters_line(run: FitRun) -> str:
    labels = run.labels
    return (
        f"{len(set(labels.tolist()) - {-1})} clusters, {int((labels == -1).sum())} outliers: "
        "extracting keyphrases (c-TF-IDF + KeyBERT + MMR)"
    )


FIT_STAGES: tuple[FitStage, ...] = (
    FitStage("read", _read, lambda run: "reading the corpus"),
    FitStage("embed", _embed, _embedding_line),
    FitStage(
        "reduce_cluster", _reduce_cluster, lambda run: f"reducing {len(run.embeddings)} embeddings and clustering"
    ),
    FitStage("represent", _represent, _clusters_line),
    FitStage("naming", _name),
    FitStage("tree", _tree, lambda run: "building the topic tree"),
    FitStage("themes", _themes, lambda run: "naming topics and assigning research themes"),
)
"""The fit, in order. ``TopicMap.fit`` shows one progress line per stage with a ``describe``."""


def run_stages(run: FitRun, stages: Sequence[FitStage] = FIT_STAGES, on_stage: OnStage | None = None) -> FitRun:
    """Run ``stages`` in order on ``run``; ``on_stage(name, line)`` is called as each one starts
    (``line``: its progress line, ``""`` for a stage that shares the line before)."""
    for stage in stages:
        if on_stage is not None:
            on_stage(stage.name, stage.describe(run) if stage.describe else "")
        stage.run(run)
    return run


def run_fit(
    corpus: Any,
    config: FitConfig,
    on_stage: OnStage | None = None,
    *,
    embeddings: np.ndarray | None = None,
    columns: dict[str, str] | None = None,
    embed: EmbedFn | None = None,
) -> FittedState:
    """Fit on ``corpus`` (anything ``read_corpus`` accepts): every stage of ``FIT_STAGES``, themes
    included; returns the complete ``FittedState`` (nothing is kept from a fit that fails).

    ``embeddings``: precomputed, one row per input row (or per modelled row); ``columns``: the column
    mapping of ``read_corpus``; ``embed``: what embeds texts (default: an ``Embedder`` of ``config``);
    ``on_stage(name, line)``: called as each stage starts (progress lines, timings).
    """
    run = FitRun(config, embed or Embedder(config), corpus, columns=columns, given_embeddings=embeddings)
    state = run_stages(run, FIT_STAGES, on_stage).state
    if state is None or state.themes is None:
        raise RuntimeError("the fit stages ended without a theme assignment; FIT_STAGES must end with themes.")
    return state

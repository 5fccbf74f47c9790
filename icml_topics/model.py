"""TopicMap: the scikit-learn style facade that runs the stages and holds the fitted tables.

    >>> from icml_topics import TopicMap
    >>> tm = TopicMap(random_state=0).fit("../shared/data/icml-2013-2024.jsonl.gz")   # doctest: +SKIP
    >>> tm.themes_[["theme", "share"]].head()                  # doctest: +SKIP
    >>> tm.plot_map()                                          # doctest: +SKIP
    >>> tm.save("icml2024-model")                              # doctest: +SKIP

Parameters are stored as given in ``__init__``; all work happens in ``fit``; fitted attributes end
with ``_``. The stage modules (``corpus``, ``embedding``, ``stages``, ``themes``) never import this one.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from icml_topics import edits, tables
from icml_topics._progress import Stages, embedding_progress, quiet_libraries
from icml_topics._validation import check_embeddings, check_params, valid_representation
from icml_topics.corpus.readers import CorpusError, read_corpus
from icml_topics.corpus.validation import flag_rows
from icml_topics.stages import (
    HDBSCANClusterer,
    MapProjector,
    Reducer,
    knn_graph,
    name_topics,
    size_aware_defaults,
)
from icml_topics.stages._base import (
    CacheableReducer,
    ClustererProtocol,
    ReducerProtocol,
    accepts_knn,
    seed_from,
)
from icml_topics.stages.large import theme_neighbours
from icml_topics.stages.reduce import distinct_rows
from icml_topics.stages.represent import TopicRepresentation, represent_topics
from icml_topics.stages.representatives import representative_order
from icml_topics.stages.result_cache import cached_json, cached_reduction, content_key
from icml_topics.themes.assign import ThemeSettings, assign_themes, embed_prototypes

__all__ = ["MIN_DOCUMENTS", "TopicMap"]

logger = logging.getLogger("icml_topics")

MIN_DOCUMENTS = 1  # a single abstract is a map of one topic


class TopicMap(BaseEstimator):
    """Abstracts in; fine topics, research themes, a 2-D map and tables out.

    Args:
        embedding_model: sentence-transformers model name, local path or object; ``None`` uses the
            bundled all-MiniLM-L6-v2 (offline).
        taxonomy: research themes: ``None`` (built-in), a YAML path, a dict or a ``Taxonomy``.
        min_topic_size, min_samples, n_neighbors: clustering/UMAP settings; ``None`` scales with corpus size.
        n_components: dimensions of the clustering space.
        reducer: ``"auto"``, ``"umap"``, ``"small"`` (PCA + t-SNE, no JIT) or an object following
            :class:`~icml_topics.stages.ReducerProtocol` (``fit_transform(embeddings)``; optional ``knn=``
            and ``cache_key()``), e.g. ``sklearn.decomposition.PCA(5)``.
        clusterer: ``None`` (HDBSCAN) or an object following :class:`~icml_topics.stages.ClustererProtocol`
            (``fit_predict(reduced)`` returning labels, ``-1`` = outlier), e.g. ``sklearn.cluster.KMeans(20)``.
        n_keywords: keyphrases kept per topic.
        theme_settings: thresholds of the theme assignment (:class:`ThemeSettings`).
        prepend_title: embed ``"title. abstract"`` when a title is present.
        cache: embedding/reduction cache: ``True`` (default folder), ``False`` or a folder.
        precision: embedding path, ``"auto"`` picks the fastest that keeps the task on this machine (int8
            ONNX on most CPUs); ``"fp32"`` is plain sentence-transformers. See ``icml_topics.embed``.
        max_tokens: truncate texts for embedding (``128``: the opt-in fast mode); ``None``: the model's limit.
        random_state: scikit-learn's rule: an int fixes every random stage (same data and seed give the
            same result); ``None`` draws fresh randomness on each fit (and caches no stage result).
        verbose: show progress: a bar over the fit's stages (a widget in Jupyter), or one log line per
            stage when the ``icml_topics`` logger has a handler (the CLI). Default: silent.
        topic_namer: optional callable naming topics (e.g. a language model): it gets a
            :class:`~icml_topics.stages.naming.TopicInfo` and returns a name; ``None`` (default) names
            topics offline from their cleaned keyphrases and most representative papers.
            see ``icml_topics.embedding.distributed``); ``None`` embeds in this process.
        large_corpus_threshold: from this many modelled documents up, the large-corpus path runs
            (approximate kNN, UMAP/HDBSCAN fitted on a sample, the rest placed; ``stages/large.py``).
        sample_size: documents UMAP and HDBSCAN are fitted on in the large-corpus path.

    Besides ``documents_``, ``topics_`` and ``themes_``, :meth:`to_bertopic` returns a fitted BERTopic
    model with these topics for BERTopic's own tools (also after a warm fit and after :meth:`load`).
    """

    def __init__(
        self,
        embedding_model: Any = None,
        *,
        taxonomy: Any = None,
        min_topic_size: int | None = None,
        min_samples: int | None = None,
        n_neighbors: int | None = None,
        n_components: int = 5,
        reducer: Any = "auto",
        clusterer: Any = None,
        n_keywords: int = 10,
        theme_settings: ThemeSettings | None = None,
        prepend_title: bool = True,
        cache: bool | str | os.PathLike = True,
        precision: str = "auto",
        max_tokens: int | None = None,
        random_state: int | None = 42,
        topic_namer: Any = None,
        verbose: bool = False,
        client: Any = None,
        large_corpus_threshold: int = 50_000,
        sample_size: int = 50_000,
    ) -> None:
        self.embedding_model = embedding_model
        self.taxonomy = taxonomy
        self.min_topic_size = min_topic_size
        self.min_samples = min_samples
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.reducer = reducer
        self.clusterer = clusterer
        self.n_keywords = n_keywords
        self.theme_settings = theme_settings
        self.prepend_title = prepend_title
        self.cache = cache
        self.precision = precision
        self.max_tokens = max_tokens
        self.random_state = random_state
        self.topic_namer = topic_namer
        self.verbose = verbose
        self.client = client
        self.large_corpus_threshold = large_corpus_threshold
        self.sample_size = sample_size

    # ----------------------------------------------------------------- fitting
    def fit(
        self, corpus: Any, *, embeddings: np.ndarray | None = None, columns: dict[str, str] | None = None
    ) -> TopicMap:
        """Fit on ``corpus`` (anything :func:`read_corpus` accepts).

        ``embeddings``: optional precomputed matrix, one row per input row (or per modelled row), made
        with ``embedding_model``; then no document is embedded.
        """
        check_params(self.get_params(deep=False))
        self._check_plugins()
        self.__dict__.pop("_fit_seed", None)  # random_state=None: a fresh seed for every fit
        with quiet_libraries(), Stages(self.verbose, total=5) as stages:
            return self._fit(corpus, embeddings, columns, stages)

    def _fit(
        self, corpus: Any, embeddings: np.ndarray | None, columns: dict[str, str] | None, stages: Stages
    ) -> TopicMap:
        stages.start("reading the corpus")
        flagged = flag_rows(read_corpus(corpus, columns=columns), prepend_title=self.prepend_title)
        ok = (flagged["status"] == "ok").to_numpy()
        texts = flagged.loc[ok, "text"].tolist()
        self.embedding_counts_ = {"embedded": 0, "from_cache": 0}  # texts embedded / read from the cache
        if len(texts) < MIN_DOCUMENTS:
            raise CorpusError(
                f"Only {len(texts)} of {len(flagged)} rows have an abstract to model; a topic map needs at least "
                f"{MIN_DOCUMENTS}. Check the abstract column (rows dropped: "
                f"{flagged.loc[~ok, 'drop_reason'].value_counts().to_dict()})."
            )
        stages.start(
            "embedding %d abstracts (%d rows read, %d dropped, %d exact duplicates)",
            len(texts),
            len(flagged),
            int((~ok).sum()),
            int(flagged["is_duplicate"].sum()),
        )
        emb = self._document_embeddings(texts, embeddings, ok)
        stages.start("reducing %d embeddings and clustering", len(emb))
        labels, coords = self._reduce_and_cluster(emb, flagged.loc[ok])
        stages.start(
            "%d clusters, %d outliers: extracting keyphrases (c-TF-IDF + KeyBERT + MMR)",
            len(set(labels.tolist()) - {-1}),
            int((labels == -1).sum()),
        )
        rep = self._represent(texts, emb, labels)
        self.embeddings_ = emb
        self.keywords_ = rep.keywords
        self._flagged = flagged
        self._labels = rep.labels
        self._coords = coords
        order = representative_order(emb, rep.labels)
        self.topic_names_ = name_topics(
            rep.keywords, {t: [texts[i] for i in rows] for t, rows in order.items()}, namer=self.topic_namer
        )
        stages.start("naming topics and assigning research themes")
        self.set_taxonomy(self.taxonomy)
        s = self.summary()
        stages.done(
            "%d topics in %d themes; %.1f%% of documents without a theme",
            s["topics"],
            s["themes"],
            100 * s["no-theme share"],
        )
        return self

    def fit_transform(self, corpus: Any, **kwargs: Any) -> pd.DataFrame:
        """Fit, then return ``documents_``."""
        return self.fit(corpus, **kwargs).documents_

    def set_taxonomy(self, taxonomy: Any = None, *, theme_settings: ThemeSettings | None = None) -> TopicMap:
        """(Re-)assign themes with ``taxonomy`` from the stored embeddings: nothing is re-embedded
        but the taxonomy's few short texts (cached)."""
        from icml_topics.themes.taxonomy import load_taxonomy

        self._check_fitted()
        self.taxonomy_ = load_taxonomy(taxonomy)
        settings = theme_settings or self.theme_settings or ThemeSettings()
        prototypes = embed_prototypes(self.taxonomy_.theme_texts(), self._embed)
        modelled = self._flagged[self._flagged["status"] == "ok"]
        large = len(self.embeddings_) >= self.large_corpus_threshold  # approximate neighbours (stages/large.py)
        result = assign_themes(
            self.embeddings_,
            modelled["title"].tolist(),
            modelled["abstract"].tolist(),
            self._labels,
            self.keywords_,
            prototypes,
            self.taxonomy_.names,
            self.taxonomy_.theme_phrases(),
            settings,
            neighbours=theme_neighbours(self.embeddings_, settings.n_neighbors, random_state=self.random_state)
            if large
            else None,
            max_train_docs=self.sample_size if large else None,
        )
        self.theme_rule_ = result.rule
        self.theme_proba_ = result.docs.proba
        self.theme_names_ = result.theme_names
        self.theme_embeddings_ = result.theme_vectors
        self.documents_ = tables.documents_table(
            self._flagged, self._labels, self.topic_names_, result.docs, self._coords
        )
        self.topics_ = tables.topics_table(
            self._labels, self.keywords_, self.topic_names_, result.topic_theme, result.topic_score, result.topic_purity
        )
        self.topics_ = tables.with_representatives(self.topics_, self.documents_, self.embeddings_, self._labels)
        self.topic_embeddings_ = tables.topic_centroids(self.embeddings_, self._labels, self.topics_["topic"].tolist())
        self._refresh_themes()
        return self

    relabel = set_taxonomy

    def _refresh_themes(self) -> None:
        descriptions = {t.name: t.description for t in self.taxonomy_}
        self.themes_ = tables.themes_table(self.documents_, self.topics_, descriptions)

    # ------------------------------------------------------------- new data
    def transform(self, corpus: Any, *, embeddings: np.ndarray | None = None, n_neighbors: int = 10) -> pd.DataFrame:
        """Place new abstracts: topic, theme and map position from their nearest fitted documents."""
        from icml_topics.placement import place_documents

        self._check_fitted()
        flagged = flag_rows(read_corpus(corpus), prepend_title=self.prepend_title)
        ok = (flagged["status"] == "ok").to_numpy()
        texts = flagged.loc[ok, "text"].tolist()
        emb = (
            self._document_embeddings(texts, embeddings, ok)
            if texts
            else np.zeros((0, self.embeddings_.shape[1]), np.float32)
        )
        modelled = flagged[ok]
        placed = place_documents(
            self, emb, modelled["title"].tolist(), modelled["abstract"].tolist(), n_neighbors=n_neighbors
        )
        return tables.documents_table(flagged, placed.labels, self.topic_names_, placed.themes, placed.coords)

    def theme_ranking(self, k: int = 3) -> pd.DataFrame:
        """Top-``k`` themes of every modelled document by probability: columns ``id, rank, theme, score``."""
        self._check_fitted()
        proba, names = self.theme_rule_.grouped(self.theme_proba_), self.theme_rule_.unique_names
        top = np.argsort(-proba, axis=1, kind="stable")[:, :k]
        ids = self.documents_.loc[self.documents_["status"] == "ok", "id"].to_numpy()
        rows = [
            (ids[i], r + 1, names[j], round(float(proba[i, j]), 4))
            for i in range(len(ids))
            for r, j in enumerate(top[i])
        ]
        return pd.DataFrame(rows, columns=["id", "rank", "theme", "score"])

    def representative_docs(self, topic: int) -> pd.DataFrame:
        """The papers nearest ``topic``'s centroid (``topics_``' representative columns), nearest first:
        the ``documents_`` columns ``id, title, year, venue, authors``.

        Example:
            >>> tm.representative_docs(0)["title"].tolist()  # doctest: +SKIP
        """
        self._check_fitted()
        row = self.topics_.loc[self.topics_["topic"] == topic]
        if row.empty:
            raise KeyError(
                f"Unknown topic {topic!r}. Topics are the integers in topics_['topic']: {self.topics_['topic'].tolist()}."
            )
        ids = [str(i) for i in row["representative_ids"].iloc[0]]
        docs = self.documents_.assign(_id=self.documents_["id"].astype(str)).set_index("_id")
        columns = [c for c in ("id", "title", "year", "venue", "authors") if c in docs.columns]
        return docs.loc[ids, columns].reset_index(drop=True)

    # ---------------------------------------------------------------- edits
    def rename_theme(self, old: str, new: str) -> TopicMap:
        """Rename a theme everywhere (tables and taxonomy); no re-fitting."""
        edits.rename_theme(self, old, new)
        return self

    def merge_themes(self, themes: Sequence[str], into: str) -> TopicMap:
        """Merge several themes into one (``into`` may be new or one of them)."""
        edits.merge_themes(self, themes, into)
        return self

    def rename_topic(self, topic: int, label: str) -> TopicMap:
        """Give a fine topic a name of your own."""
        edits.rename_topic(self, topic, label)
        return self

    def merge_topics(self, topics: Sequence[int], label: str | None = None) -> TopicMap:
        """Merge fine topics into the first (largest keeps its theme unless you re-assign)."""
        edits.merge_topics(self, topics, label)
        return self

    # ------------------------------------------------------------- interop
    def to_bertopic(self, *, ngram_range: tuple[int, int] = (1, 2)):
        """A fitted ``bertopic.BERTopic`` with these topics, names and keyphrases, for BERTopic's own API
        (``topics_over_time``, ``hierarchical_topics``, ``find_topics``, ``visualize_*``).

        Example:
            >>> from icml_topics.interop import bertopic_documents
            >>> bt = tm.to_bertopic()                                          # doctest: +SKIP
            >>> docs, years = bertopic_documents(tm, "year")                   # doctest: +SKIP
            >>> bt.topics_over_time(docs, years)                               # doctest: +SKIP
        """
        from icml_topics.interop import to_bertopic

        self._check_fitted()
        return to_bertopic(self, ngram_range=ngram_range)

    @property
    def bertopic_(self):
        """Deprecated: use :meth:`to_bertopic` (this was None after a warm fit and missing after load)."""
        import warnings

        if not hasattr(self, "embeddings_"):
            raise AttributeError(
                "bertopic_: this TopicMap is not fitted yet (and bertopic_ is deprecated: use to_bertopic())."
            )
        warnings.warn("TopicMap.bertopic_ is deprecated; call tm.to_bertopic() instead.", FutureWarning, stacklevel=2)
        return self.to_bertopic()

    # ----------------------------------------------------- plots and reports
    def plot_map(self, **kwargs: Any):
        """The 2-D topic map (points coloured by theme): a ``plotly.graph_objects.Figure``."""
        from icml_topics.plotting import plot_topic_map

        return plot_topic_map(self._checked_documents(), **kwargs)

    def plot_map_static(self, **kwargs: Any):
        """The publication map (DataMapPlot): a matplotlib Figure with theme labels placed around the
        map without overlaps; ``topic_labels=True`` adds topic names. See :func:`~icml_topics.plotting.static_map.plot_map_static`."""
        from icml_topics.plotting.static_map import plot_map_static

        return plot_map_static(self._checked_documents(), **kwargs)

    def save_map(self, path: str | os.PathLike, *, dpi: int = 300, **kwargs: Any) -> Path:
        """Write the publication map as PNG, SVG or PDF (from the suffix) at ``dpi``.

        Example:
            >>> tm.save_map("figures/icml-map.pdf", title="ICML 2013-2024")  # doctest: +SKIP
        """
        from icml_topics.plotting.static_map import save_map

        fig = self.plot_map_static(**kwargs)
        try:
            return save_map(fig, path, dpi=dpi)
        finally:
            import matplotlib.pyplot as plt

            plt.close(fig)

    def plot_hierarchy(self, **kwargs: Any):
        """Themes -> topics as a sunburst (or ``kind="treemap"``)."""
        from icml_topics.plotting import plot_theme_hierarchy

        self._check_fitted()
        return plot_theme_hierarchy(self.topics_, **kwargs)

    def plot_theme_shares(self, by: str = "year", **kwargs: Any):
        """Share of papers per theme per ``by`` value, with 95% intervals."""
        from icml_topics.compare import theme_shares
        from icml_topics.plotting import plot_theme_shares

        return plot_theme_shares(theme_shares(self._checked_documents(), by=by), by=by, **kwargs)

    def report(self, path: str | os.PathLike, *, title: str = "Topic map", tables: bool = True) -> Path:
        """Write a self-contained HTML report (plotly.js inlined, opens offline); with ``tables``, the
        tables it shows also as CSV in ``tables/`` next to it (``fit --out`` writes its own CSVs instead)."""
        from icml_topics.report import build_fit_report

        self._check_fitted()
        extra = {"duplicates": self.summary()["duplicates"]}  # the report computes the other key numbers itself
        report = build_fit_report(
            self.documents_,
            self.topics_,
            self.themes_,
            title=title,
            metrics=extra,
            csv_dir="tables" if tables else None,
        )
        report.write(path)
        return Path(path)

    def summary(self) -> dict[str, Any]:
        """Key numbers: documents, modelled, dropped, topics, themes, outlier and no-theme shares."""
        docs = self._checked_documents()
        ok = docs[docs["status"] == "ok"]
        return {
            "documents": len(docs),
            "modelled": len(ok),
            "dropped": int((docs["status"] != "ok").sum()),
            "duplicates": int(docs["is_duplicate"].sum()),
            "topics": int((self.topics_["topic"] != -1).sum()),
            "themes": int((self.themes_["size"] > 0).sum()),  # themes with at least one paper
            "outlier share": round(float((ok["topic"] == -1).mean()), 4) if len(ok) else 0.0,
            "no-theme share": round(float((ok["theme"] == "").mean()), 4) if len(ok) else 0.0,
        }

    def evaluate(self, reference: pd.DataFrame | None = None) -> dict[str, Any]:
        """Coherence (NPMI), diversity, outlier share and, with reference labels, ARI/NMI."""
        from icml_topics.evaluate import evaluate_model

        self._check_fitted()
        return evaluate_model(self, reference=reference)

    # ---------------------------------------------------------- persistence
    def save(self, path: str | os.PathLike) -> Path:
        """Save the fitted model as plain files (JSON, Parquet, .npy) in folder ``path``."""
        from icml_topics.persistence import save_model

        self._check_fitted()
        return save_model(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> TopicMap:
        """Load a model saved with :meth:`save`."""
        from icml_topics.persistence import load_model

        return load_model(cls, path)

    # -------------------------------------------------------------- helpers
    def _embed(self, texts: list[str], *, documents: bool = False) -> np.ndarray:
        """Embed through the cache; ``documents=True``: on ``client``'s Dask workers when one is set."""
        from icml_topics.embedding import embed, last_run_info

        with quiet_libraries():  # no "Loading weights" bar from transformers
            vectors = embed(
                texts,
                model=self.embedding_model,
                cache=self.cache,
                precision=self.precision,
                show_progress_bar=embedding_progress(self.verbose),
                max_tokens=self.max_tokens,
                client=self.client if documents else None,
            )
        info = last_run_info()
        counts = self.__dict__.setdefault("embedding_counts_", {"embedded": 0, "from_cache": 0})
        if info is not None:
            counts["embedded"] += info.n_embedded
            counts["from_cache"] += info.n_from_cache
        return vectors

    def _document_embeddings(self, texts: list[str], embeddings: np.ndarray | None, ok: np.ndarray) -> np.ndarray:
        if embeddings is None:
            return self._embed(texts, documents=True)
        emb = np.asarray(embeddings, dtype=np.float32)
        check_embeddings(emb)
        if emb.ndim != 2 or emb.shape[0] not in (len(ok), len(texts)):
            raise ValueError(
                f"embeddings has shape {emb.shape}; expected one row per input row ({len(ok)}) "
                f"or per modelled row ({len(texts)})."
            )
        emb = emb[ok] if emb.shape[0] == len(ok) and len(ok) != len(texts) else emb
        norms = np.linalg.norm(emb, axis=1, keepdims=True)
        if np.allclose(norms, 1.0, atol=1e-5):
            return emb  # already unit length: keep the exact values (caches are keyed by them)
        return emb / np.where(norms == 0, 1.0, norms)

    def _cache_dir(self, kind: str) -> Path | None:
        if self.cache is False:
            return None
        from icml_topics.embedding import default_cache_dir

        if self.cache is True:  # <root>/embeddings is the embedding cache; siblings hold the others
            return default_cache_dir().parent / kind
        base = Path(self.cache)
        if base.suffix.lower() in {".sqlite3", ".sqlite", ".db"}:  # the embedding cache file itself
            base = base.parent
        return base if kind == "embeddings" else base / kind

    def _check_plugins(self) -> None:
        """Reject a reducer/clusterer that lacks the protocol's method before any work starts."""
        if not isinstance(self.reducer, str) and not isinstance(self.reducer, ReducerProtocol):
            raise TypeError(
                f"reducer={type(self.reducer).__name__} has no fit_transform(embeddings); pass 'auto', 'umap', 'small' "
                "or an object like sklearn.decomposition.PCA(5) (see icml_topics.stages.ReducerProtocol)."
            )
        if self.clusterer is not None and not isinstance(self.clusterer, ClustererProtocol):
            raise TypeError(
                f"clusterer={type(self.clusterer).__name__} has no fit_predict(reduced); pass None (HDBSCAN) or an object "
                "like sklearn.cluster.KMeans(20) (see icml_topics.stages.ClustererProtocol)."
            )

    def _seed(self) -> int:
        """The seed of this fit: ``random_state`` itself, or a fresh one when it is None."""
        if not hasattr(self, "_fit_seed"):
            self._fit_seed = seed_from(self.random_state)
        return self._fit_seed

    def _stage_cache_dir(self, kind: str) -> Path | None:
        """Stage results are cached only for a fixed seed: with ``random_state=None`` each fit is fresh."""
        return None if self.random_state is None else self._cache_dir(kind)

    def _reduce_and_cluster(self, emb: np.ndarray, rows: pd.DataFrame | None = None) -> tuple[np.ndarray, np.ndarray]:
        keep, inverse = distinct_rows(emb)
        if len(keep) < len(emb):  # identical abstracts are mapped and clustered once, as one point
            labels, coords = self._reduce_and_cluster(emb[keep], None if rows is None else rows.iloc[keep])
            return labels[inverse], coords[inverse]
        d = size_aware_defaults(len(emb))
        method = d.reducer if self.reducer == "auto" else self.reducer
        if len(emb) >= self.large_corpus_threshold and self.reducer in ("auto", "umap") and self.clusterer is None:
            return self._reduce_and_cluster_large(emb, rows)
        n_neighbors = self.n_neighbors or d.n_neighbors
        seed = self._seed()
        if isinstance(method, str):
            reducer = Reducer(self.n_components, n_neighbors, method=method, random_state=seed)
            projector = MapProjector(n_neighbors, method=method, random_state=seed)
        else:
            reducer, projector = method, MapProjector(n_neighbors, method=d.reducer, random_state=seed)
        knn: list = []

        def graph():
            if not knn:
                knn.append(knn_graph(emb, n_neighbors))
            return knn[0]

        cache_dir = self._stage_cache_dir("reductions")
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
            cached_reduction(emb, reducer.cache_key(), reduce, cache_dir)
            if isinstance(reducer, CacheableReducer)
            else reduce()
        )
        coords = cached_reduction(emb, projector.cache_key(), lambda: projector.fit_transform(emb, graph()), cache_dir)
        clusterer = self.clusterer or HDBSCANClusterer(
            self.min_topic_size or d.min_topic_size, self.min_samples or d.min_samples
        )
        labels = np.asarray(clusterer.fit_predict(reduced), dtype=np.int64)
        return labels, coords

    def _reduce_and_cluster_large(self, emb: np.ndarray, rows: pd.DataFrame | None) -> tuple[np.ndarray, np.ndarray]:
        from icml_topics.stages.large import fit_large, strata_of

        fit = fit_large(
            emb,
            n_components=self.n_components,
            n_neighbors=self.n_neighbors or 15,
            min_cluster_size=self.min_topic_size,
            min_samples=self.min_samples,
            sample_size=self.sample_size,
            strata=strata_of(rows),
            random_state=self.random_state,
        )
        return fit.labels, fit.coords

    def _represent(self, texts: list[str], emb: np.ndarray, labels: np.ndarray) -> TopicRepresentation:
        """BERTopic's representation, or the keyphrases it gave before for the same texts, labels and settings."""
        from icml_topics.embedding import cached_model_identity

        settings = dict(
            n_keywords=self.n_keywords, min_df=size_aware_defaults(len(texts)).min_df, random_state=self._seed()
        )
        identity = cached_model_identity(self.embedding_model, self._cache_dir("embeddings"))
        large = len(texts) >= self.large_corpus_threshold  # vocabulary from a sample: part of the key only then
        key = content_key(
            "represent-v1", identity, sorted(settings.items()), texts, labels, *([self.sample_size] if large else [])
        )
        fresh: list[TopicRepresentation] = []

        def compute() -> dict:
            sample = texts[:: -(-len(texts) // self.sample_size)] if large else None
            fresh.append(represent_topics(texts, emb, labels, self._embed, vocabulary_from=sample, **settings))
            return {"labels": fresh[0].labels.tolist(), "keywords": {str(k): v for k, v in fresh[0].keywords.items()}}

        value = cached_json(
            key, compute, self._stage_cache_dir("representations"), check=lambda v: valid_representation(v, len(texts))
        )
        if fresh:
            return fresh[0]
        logger.info("reusing cached keyphrases for %d topics", len(value["keywords"]))
        keywords = {int(k): list(v) for k, v in value["keywords"].items()}
        return TopicRepresentation(np.asarray(value["labels"], dtype=np.int64), keywords, None)

    def _check_fitted(self) -> None:
        if not hasattr(self, "embeddings_"):
            raise RuntimeError("This TopicMap is not fitted yet: call .fit(corpus) or TopicMap.load(path) first.")

    def _checked_documents(self) -> pd.DataFrame:
        self._check_fitted()
        return self.documents_

"""TopicMap: the scikit-learn style facade that runs the stages and holds the fitted tables.

    >>> from icml_topics import TopicMap
    >>> tm = TopicMap(random_state=0).fit("icml-2024.jsonl")   # doctest: +SKIP
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
from icml_topics.corpus.readers import CorpusError, read_corpus
from icml_topics.corpus.validation import flag_rows
from icml_topics.stages import HDBSCANClusterer, MapProjector, Reducer, knn_graph, name_topics, size_aware_defaults
from icml_topics.stages.result_cache import cached_json, cached_reduction, content_key
from icml_topics.stages.represent import TopicRepresentation, represent_topics
from icml_topics.themes.assign import ThemeSettings, assign_themes, embed_taxonomy

__all__ = ["MIN_DOCUMENTS", "TopicMap"]

logger = logging.getLogger("icml_topics")

MIN_DOCUMENTS = 3  # fewer modelled abstracts than this cannot be mapped


class TopicMap(BaseEstimator):
    """Abstracts in; fine topics, research themes, a 2-D map and tables out.

    Args:
        embedding_model: sentence-transformers model name, local path or object; ``None`` uses the
            bundled all-MiniLM-L6-v2 (offline).
        taxonomy: research themes: ``None`` (built-in), a YAML path, a dict or a ``Taxonomy``.
        min_topic_size, min_samples, n_neighbors: clustering/UMAP settings; ``None`` scales with corpus size.
        n_components: dimensions of the clustering space.
        reducer: ``"auto"``, ``"umap"``, ``"small"`` (PCA + t-SNE, no JIT) or an object with ``fit_transform``.
        clusterer: ``None`` (HDBSCAN) or an object with ``fit_predict`` returning labels (``-1`` = outlier).
        n_keywords: keyphrases kept per topic.
        theme_settings: thresholds of the theme assignment (:class:`ThemeSettings`).
        prepend_title: embed ``"title. abstract"`` when a title is present.
        cache: embedding/reduction cache: ``True`` (default folder), ``False`` or a folder.
        precision: embedding precision, ``"auto"`` picks the fastest path that agrees with fp32.
        random_state: seed; the same data and seed give the same result.
        client: a ``distributed.Client``: documents are embedded on its Dask workers (same vectors,
            see ``icml_topics.embedding.distributed``); ``None`` embeds in this process.
        large_corpus_threshold: from this many modelled documents up, the large-corpus path runs
            (approximate kNN, UMAP/HDBSCAN fitted on a sample, the rest placed; ``stages/large.py``).
        sample_size: documents UMAP and HDBSCAN are fitted on in the large-corpus path.

    Besides ``documents_``, ``topics_`` and ``themes_``, ``bertopic_`` holds the fitted BERTopic model
    (None when the keyphrases came from the cache; ``cache=False`` always fits BERTopic).
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
        random_state: int | None = 42,
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
        self.random_state = random_state
        self.client = client
        self.large_corpus_threshold = large_corpus_threshold
        self.sample_size = sample_size

    # ----------------------------------------------------------------- fitting
    def fit(self, corpus: Any, *, embeddings: np.ndarray | None = None, columns: dict[str, str] | None = None) -> TopicMap:
        """Fit on ``corpus`` (anything :func:`read_corpus` accepts).

        ``embeddings``: optional precomputed matrix, one row per input row (or per modelled row), made
        with ``embedding_model``; then no document is embedded.
        """
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
        logger.info(
            "%d rows read: %d to model, %d dropped, %d exact duplicates",
            len(flagged), len(texts), int((~ok).sum()), int(flagged["is_duplicate"].sum()),
        )
        emb = self._document_embeddings(texts, embeddings, ok)
        labels, coords = self._reduce_and_cluster(emb, flagged.loc[ok])
        logger.info("%d clusters, %d outliers; extracting keyphrases (BERTopic c-TF-IDF + KeyBERT + MMR)", len(set(labels.tolist()) - {-1}), int((labels == -1).sum()))
        rep = self._represent(texts, emb, labels)
        self.bertopic_ = rep.bertopic
        self.embeddings_ = emb
        self.keywords_ = rep.keywords
        self._flagged = flagged
        self._labels = rep.labels
        self._coords = coords
        self.topic_names_ = name_topics(rep.keywords)
        self.set_taxonomy(self.taxonomy)
        s = self.summary()
        logger.info("%d topics in %d themes; %.1f%% of documents without a theme", s["topics"], s["themes"], 100 * s["no-theme share"])
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
        vectors = embed_taxonomy(self.taxonomy_.theme_texts(), self._embed)
        result = assign_themes(self.embeddings_, self._labels, self.keywords_, vectors, self.taxonomy_.names, self._embed, settings)
        self.theme_names_ = result.theme_names
        self.theme_embeddings_ = result.theme_vectors
        self.documents_ = tables.documents_table(
            self._flagged, self._labels, self.topic_names_, result.doc_theme, result.doc_score, result.doc_reason, self._coords
        )
        self.topics_ = tables.topics_table(self._labels, self.keywords_, self.topic_names_, result.topic_theme, result.topic_score)
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
        emb = self._document_embeddings(texts, embeddings, ok) if texts else np.zeros((0, self.embeddings_.shape[1]), np.float32)
        placed = place_documents(self, emb, n_neighbors=n_neighbors)
        return tables.documents_table(flagged, placed.labels, self.topic_names_, placed.themes, placed.scores, placed.reasons, placed.coords)

    def theme_ranking(self, k: int = 3) -> pd.DataFrame:
        """Top-``k`` themes of every modelled document: columns ``id, rank, theme, score``."""
        self._check_fitted()
        sims = self.embeddings_ @ self.theme_embeddings_.T
        top = np.argsort(-sims, axis=1, kind="stable")[:, :k]
        ids = self.documents_.loc[self.documents_["status"] == "ok", "id"].to_numpy()
        rows = [(ids[i], r + 1, self.theme_names_[j], round(float(sims[i, j]), 4)) for i in range(len(ids)) for r, j in enumerate(top[i])]
        return pd.DataFrame(rows, columns=["id", "rank", "theme", "score"])

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

    # ----------------------------------------------------- plots and reports
    def plot_map(self, **kwargs: Any):
        """The 2-D topic map (points coloured by theme): a ``plotly.graph_objects.Figure``."""
        from icml_topics.plotting import plot_topic_map

        return plot_topic_map(self._checked_documents(), **kwargs)

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

    def report(self, path: str | os.PathLike, *, title: str = "Topic map") -> Path:
        """Write a self-contained HTML report (plotly.js inlined, opens offline)."""
        from icml_topics.report import build_fit_report

        self._check_fitted()
        extra = {"duplicates": self.summary()["duplicates"]}  # the report computes the other key numbers itself
        build_fit_report(self.documents_, self.topics_, self.themes_, title=title, metrics=extra).write(path)
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
            "themes": len(self.themes_),
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
    def _embed(self, texts: list[str]) -> np.ndarray:
        from icml_topics.embedding import embed, last_run_info

        vectors = embed(texts, model=self.embedding_model, cache=self.cache, precision=self.precision)
        info = last_run_info()
        counts = self.__dict__.setdefault("embedding_counts_", {"embedded": 0, "from_cache": 0})
        if info is not None:
            counts["embedded"] += info.n_embedded
            counts["from_cache"] += info.n_from_cache
        return vectors

    def _embed_on_cluster(self, texts: list[str]) -> np.ndarray:
        from icml_topics.embedding.distributed import embed_distributed, last_distributed_run_info

        vectors = embed_distributed(texts, self.embedding_model, client=self.client, cache=self.cache, precision=self.precision)
        info = last_distributed_run_info()
        counts = self.__dict__.setdefault("embedding_counts_", {"embedded": 0, "from_cache": 0})
        counts["embedded"] += info.n_embedded
        counts["from_cache"] += info.n_from_cache
        return vectors

    def _document_embeddings(self, texts: list[str], embeddings: np.ndarray | None, ok: np.ndarray) -> np.ndarray:
        if embeddings is None:
            return self._embed(texts) if self.client is None else self._embed_on_cluster(texts)
        emb = np.asarray(embeddings, dtype=np.float32)
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

    def _reduce_and_cluster(self, emb: np.ndarray, rows: pd.DataFrame | None = None) -> tuple[np.ndarray, np.ndarray]:
        d = size_aware_defaults(len(emb))
        method = d.reducer if self.reducer == "auto" else self.reducer
        if len(emb) >= self.large_corpus_threshold and self.reducer in ("auto", "umap") and self.clusterer is None:
            return self._reduce_and_cluster_large(emb, rows)
        n_neighbors = self.n_neighbors or d.n_neighbors
        if isinstance(method, str):
            reducer = Reducer(self.n_components, n_neighbors, method=method, random_state=self.random_state)
            projector = MapProjector(n_neighbors, method=method, random_state=self.random_state)
        else:
            reducer, projector = method, MapProjector(n_neighbors, method=d.reducer, random_state=self.random_state)
        knn: list = []

        def graph():
            if not knn:
                knn.append(knn_graph(emb, n_neighbors))
            return knn[0]

        cache_dir = self._cache_dir("reductions")
        logger.info("reducing %d embeddings (%s) and clustering (HDBSCAN)", len(emb), method if isinstance(method, str) else type(method).__name__)
        key = getattr(reducer, "cache_key", None)
        if key is not None:
            reduced = cached_reduction(emb, key(), lambda: reducer.fit_transform(emb, graph()), cache_dir)
        else:
            reduced = reducer.fit_transform(emb)
        coords = cached_reduction(emb, projector.cache_key(), lambda: projector.fit_transform(emb, graph()), cache_dir)
        clusterer = self.clusterer or HDBSCANClusterer(self.min_topic_size or d.min_topic_size, self.min_samples or d.min_samples)
        labels = np.asarray(clusterer.fit_predict(reduced), dtype=np.int64)
        return labels, coords

    def _reduce_and_cluster_large(self, emb: np.ndarray, rows: pd.DataFrame | None) -> tuple[np.ndarray, np.ndarray]:
        from icml_topics.stages.large import fit_large, strata_of

        fit = fit_large(emb, n_components=self.n_components, n_neighbors=self.n_neighbors or 15,
                        min_cluster_size=self.min_topic_size, min_samples=self.min_samples, sample_size=self.sample_size,
                        strata=strata_of(rows), random_state=self.random_state)
        return fit.labels, fit.coords

    def _represent(self, texts: list[str], emb: np.ndarray, labels: np.ndarray) -> TopicRepresentation:
        """BERTopic's representation, or the keyphrases it gave before for the same texts, labels and
        settings (then ``bertopic_`` is None: pass ``cache=False`` to always get the BERTopic object)."""
        from icml_topics.embedding import cached_model_identity

        settings = dict(n_keywords=self.n_keywords, min_df=size_aware_defaults(len(texts)).min_df, random_state=self.random_state)
        identity = cached_model_identity(self.embedding_model, self._cache_dir("embeddings"))
        large = len(texts) >= self.large_corpus_threshold  # vocabulary from a sample: part of the key only then
        key = content_key("represent-v1", identity, sorted(settings.items()), texts, labels, *([self.sample_size] if large else []))
        fresh: list[TopicRepresentation] = []

        def compute() -> dict:
            sample = texts[:: -(-len(texts) // self.sample_size)] if large else None
            fresh.append(represent_topics(texts, emb, labels, self._embed, vocabulary_from=sample, **settings))
            return {"labels": fresh[0].labels.tolist(), "keywords": {str(k): v for k, v in fresh[0].keywords.items()}}

        value = cached_json(key, compute, self._cache_dir("representations"))
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

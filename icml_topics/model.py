"""TopicMap: the scikit-learn style facade that runs the stages and holds the fitted tables.

    >>> from icml_topics import TopicMap
    >>> tm = TopicMap(random_state=0).fit("../shared/data/icml-2013-2024.jsonl.gz")
    >>> tm.themes_[["theme", "share"]].head()
    >>> tm.plot_map()
    >>> tm.save("icml2024-model")

Parameters are stored as given in ``__init__``; all work happens in ``fit``; fitted attributes end
with ``_``. The stage modules (``corpus``, ``embedding``, ``stages``, ``themes``) never import this one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from icml_topics import edits, state, tables
from icml_topics._progress import Stages, quiet_libraries
from icml_topics._validation import check_embeddings
from icml_topics._wording import fit_sentence
from icml_topics.errors import InvalidValueError, NotFittedError, check_fitted
from icml_topics.fit_config import FitConfig
from icml_topics.fitted_tables import headline_numbers, modelled_mask
from icml_topics.fitting import (
    FIT_STAGES,
    MIN_DOCUMENTS,
    Embedder,
    document_embeddings,
    fit_themes,
    read_flagged,
    run_fit,
)
from icml_topics.outputs import run_record
from icml_topics.parameters import DEFAULT_RANDOM_STATE, LARGE_CORPUS, SAMPLE_SIZE
from icml_topics.plot_methods import PlotMethods
from icml_topics.table_methods import TableMethods
from icml_topics.themes.assign import ThemeSettings
from icml_topics.themes.taxonomy import load_taxonomy
from icml_topics.trend_methods import TrendMethods

if TYPE_CHECKING:
    from icml_topics.embedding.models import ModelSpec

__all__ = ["MIN_DOCUMENTS", "NotFittedError", "TopicMap"]


class TopicMap(TableMethods, PlotMethods, TrendMethods, BaseEstimator):
    """Abstracts in; fine topics, research themes, a 2-D map and tables out.

    Args:
        embedding_model: sentence-transformers model name, local path or object; ``None`` uses the
            bundled all-MiniLM-L6-v2 (offline).
        taxonomy: research themes: ``None`` (built-in), a YAML path, a dict or a ``Taxonomy``.
        min_topic_size: the smallest node of the topic tree: a node of fewer papers joins its closest
            sibling; ``None``: 3, or 10 for a corpus under 2,000 papers without ``topic_sizes`` (a node's name
            needs 10 papers to be judged by its titles' shares: ``compare.name_checks``).
        topic_sizes: papers a node of each level under the themes holds on average, coarsest first:
            ``(90, 24)`` gives topics of ~90 papers and, under them, subtopics of ~24 (``topics_`` and
            ``documents_.topic`` are the finest level). ``None``: the shape follows the corpus: finest nodes of
            ~24 papers (fewer below 2,000 papers) and as many levels (1 to 4) as the median paper's theme needs to
            branch at most 8 ways a level; a level repeating the one above it is dropped
            ([`size_aware_defaults`][icml_topics.stages.size_aware_defaults]). A small theme gets fewer nodes.
        n_neighbors: the map's (UMAP's) neighbourhood size; ``None``: 15, capped for tiny corpora.
        reducer: the 2-D map: ``"auto"``, ``"umap"``, ``"small"`` (PCA + t-SNE, no JIT) or an object following
            [`ReducerProtocol`][icml_topics.stages.ReducerProtocol] (``fit_transform(embeddings)``; its first two
            columns are the map), e.g. ``sklearn.decomposition.PCA(2)``.
        n_keywords: keyphrases kept per topic.
        theme_settings: thresholds of the theme assignment ([`ThemeSettings`][icml_topics.ThemeSettings]).
        prepend_title: embed ``"title. abstract"`` when a title is present.
        cache: embedding/reduction cache: ``True`` (default folder), ``False`` or a folder.
        precision: embedding path. ``"auto"``: a corpus of fewer than 1,000 papers is embedded with the packaged
            model directly (fp32, no setup); a larger one on this machine's path, the first of a fixed order that
            keeps the task (int8 on CTranslate2 on most CPUs; decided once per machine). One path per fit, in
            ``embedding_path_`` and the output manifest. ``"fp32"`` is plain sentence-transformers. See
            ``icml_topics.embed``.
        max_tokens: truncate texts for embedding (``128``: the opt-in fast mode); ``None``: the model's limit.
        random_state: scikit-learn's rule: an int (default 42) fixes every random stage (same data and seed give
            the same result); ``None`` draws fresh randomness on each fit (and caches no stage result).
        verbose: show progress: a bar over the fit's stages (a widget in Jupyter), or one log line per
            stage when the ``icml_topics`` logger has a handler (the CLI). Default: silent.
        topic_namer: ``None`` (default) names the tree's nodes offline from their papers' phrases. An
            [`OpenAINamer`][icml_topics.OpenAINamer] asks a language model behind an OpenAI-compatible endpoint
            for the names of each parent's children together (keyphrases, titles, siblings in one prompt; answers
            cached; a node whose answer is not usable, or a fit whose endpoint does not answer, keeps its offline
            name). A plain callable gets each node's ``TopicInfo`` and returns its name.
        client: a ``distributed.Client``: documents are embedded on its Dask workers (same vectors,
            see ``icml_topics.embedding.distributed``); ``None`` embeds in this process.
        large_corpus_threshold: from this many modelled documents up (default 50,000), the large-corpus path runs
            (approximate kNN, the map's UMAP fitted on a sample, the rest placed; ``stages/large.py``).
        sample_size: documents the map's UMAP is fitted on in the large-corpus path (default 50,000).

    Topics come from one hierarchy rooted at the research themes (``stages/hierarchy.py``): inside each theme a
    consensus of perturbed Ward trees gives topics and subtopics that nest, every paper with a theme is placed
    (``topic_similarity`` says how firmly), each node has a ``stability`` (the share of perturbed runs in which
    it reappears) and a name that tells it apart from its siblings.

    The fitted tables (``documents_``, ``topics_``, ``themes_``, ``topic_tree_``) and the arrays aligned with them
    are also one typed object, ``tables_`` ([`FittedTables`][icml_topics.fitted_tables.FittedTables]): the modelled
    rows, the tree's levels, each paper's node per level, node centroids.

    Besides ``documents_``, ``topics_`` and ``themes_``, [`to_bertopic`][icml_topics.TopicMap.to_bertopic] returns a fitted BERTopic
    model with these topics for BERTopic's own tools (also after a warm fit and after [`load`][icml_topics.TopicMap.load]).

    Examples:
        >>> tm = TopicMap(random_state=0).fit("papers.csv")
        >>> tm.themes_[["theme", "share"]].head()
    """

    def __init__(
        self,
        embedding_model: ModelSpec = None,
        *,
        taxonomy: Any = None,
        min_topic_size: int | None = None,
        topic_sizes: tuple[int, ...] | None = None,
        n_neighbors: int | None = None,
        reducer: Any = "auto",
        n_keywords: int = 10,
        theme_settings: ThemeSettings | None = None,
        prepend_title: bool = True,
        cache: bool | str | os.PathLike = True,
        precision: str = "auto",
        max_tokens: int | None = None,
        random_state: int | None = DEFAULT_RANDOM_STATE,
        topic_namer: Any = None,
        verbose: bool = False,
        client: Any = None,
        large_corpus_threshold: int = LARGE_CORPUS,
        sample_size: int = SAMPLE_SIZE,
    ) -> None:
        # stored as given; defaults and rules are icml_topics.parameters' table (a test checks this signature)
        self.embedding_model = embedding_model
        self.taxonomy = taxonomy
        self.min_topic_size = min_topic_size
        self.topic_sizes = topic_sizes
        self.n_neighbors = n_neighbors
        self.reducer = reducer
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
        self,
        corpus: Any,
        *,
        embeddings: np.ndarray | None = None,
        columns: dict[str, str] | None = None,
        on_stage: Callable[[str, str], None] | None = None,
    ) -> TopicMap:
        """Fit on ``corpus``. Every parameter (the taxonomy file included) is checked before any work; a fit
        that fails leaves the model as it was.

        Args:
            corpus: anything [`read_corpus`][icml_topics.read_corpus] accepts: a file, a source such as
                ``pmlr:235``, a DataFrame, a list of abstracts, or a list of files/DataFrames.
            embeddings: optional precomputed matrix, one row per input row (or per modelled row), made
                with ``embedding_model``; then no document is embedded.
            columns: our column name -> your column name, e.g. ``{"abstract": "summary"}``, as in
                [`read_corpus`][icml_topics.read_corpus].
            on_stage: ``on_stage(name, line)`` is called as each stage of ``fitting.FIT_STAGES`` starts
                (``"read"``, ``"embed"``, ...), e.g. to time them.

        Examples:
            >>> tm = TopicMap(random_state=0).fit("papers.jsonl", on_stage=lambda name, line: print(name))
        """
        config = self._config()  # validates and resolves every parameter before any work
        if embeddings is not None:  # shape, dimension, finiteness and norms before any stage
            embeddings = check_embeddings(embeddings, model=config.embedding_model)
        embed = Embedder(config)  # counts the texts embedded / read from the cache
        lines = sum(stage.describe is not None for stage in FIT_STAGES)
        with quiet_libraries(), Stages(config.verbose, total=lines) as stages:

            def progress(name: str, line: str) -> None:
                if line:
                    stages.start("%s", line)
                if on_stage is not None:
                    on_stage(name, line)

            self._set_state(run_fit(corpus, config, progress, embeddings=embeddings, columns=columns, embed=embed))
            self.embedding_counts_ = embed.counts
            self.embedding_path_ = embed.path  # the one path of the fit's vectors (corpus size and machine decide it)
            stages.done("%s", fit_sentence(headline_numbers(self.documents_, self.topics_, self.themes_, digits=None)))
        return self

    def fit_transform(self, corpus: Any, **kwargs: Any) -> pd.DataFrame:
        """Fit, then return ``documents_``.

        Args:
            corpus: as in [`fit`][icml_topics.TopicMap.fit].
            **kwargs: [`fit`][icml_topics.TopicMap.fit]'s keyword arguments (``embeddings``, ``columns``, ``on_stage``).

        Examples:
            >>> docs = TopicMap(random_state=0).fit_transform("../shared/data/icml-2013-2024.jsonl.gz")
            >>> docs[["title", "topic_label", "theme", "theme_score"]].head()
        """
        return self.fit(corpus, **kwargs).documents_

    def set_taxonomy(self, taxonomy: Any = None, *, theme_settings: ThemeSettings | None = None) -> TopicMap:
        """(Re-)assign themes with ``taxonomy`` from the stored embeddings, and build the topic tree again
        under the new themes (its nodes nest in their themes): nothing is re-embedded but the taxonomy's few
        short texts (cached).

        Args:
            taxonomy: as the ``taxonomy`` parameter: ``None`` (built-in), a YAML path, a dict or a
                [`Taxonomy`][icml_topics.Taxonomy].
            theme_settings: the thresholds to use from now on (default: those in use, else the
                ``theme_settings`` parameter); ``save`` and ``transform`` keep them.

        Examples:
            >>> tm.set_taxonomy({"Bandits": ["multi-armed bandits", "regret"], "Graphs": ["graph neural networks"]})
            >>> tm.set_taxonomy()
        """
        check_fitted(self)
        current = self.state_.themes
        settings = theme_settings or (current.settings if current else self.theme_settings) or ThemeSettings()
        config = self._config(fitted=True)
        return self._set_state(
            fit_themes(self.state_, load_taxonomy(taxonomy), settings, self._embedder(config), config)
        )

    relabel = set_taxonomy

    def _set_state(self, fitted: state.FittedState) -> TopicMap:
        """Own ``fitted`` and rebuild every public fitted attribute from it (``state.derive``)."""
        derived = state.derive(fitted)
        themes = fitted.themes
        self.state_ = fitted
        self.embeddings_, self.keywords_, self.topic_names_ = fitted.embeddings, fitted.keywords, fitted.topic_names
        self.taxonomy_, self.theme_rule_, self.theme_proba_ = themes.taxonomy, themes.rule, themes.docs.proba
        self.theme_names_, self.theme_embeddings_ = derived.theme_names, derived.theme_embeddings
        self.documents_, self.topics_, self.themes_ = derived.documents, derived.topics, derived.themes
        self.topic_embeddings_ = derived.topic_embeddings
        self.topic_tree_ = derived.topic_tree
        self.tables_ = derived  # the one object everything downstream reads (icml_topics.fitted_tables)
        return self

    def _config(self, *, fitted: bool = False) -> FitConfig:
        """The parameters, checked and resolved (``FitConfig``); ``fitted``: with
        the taxonomy in use instead of the ``taxonomy`` parameter (a taxonomy file may be gone since the fit)."""
        params = self.get_params(deep=False)
        if fitted and hasattr(self, "state_") and self.state_.themes is not None:
            params["taxonomy"] = self.state_.themes.taxonomy
        return FitConfig.from_params(params)

    def _embedder(self, config: FitConfig | None = None) -> Embedder:
        counts = self.__dict__.setdefault("embedding_counts_", {"embedded": 0, "from_cache": 0})
        config = config or self._config(fitted=True)
        path = self.__dict__.get("embedding_path_")
        if path is not None and config.precision == "auto":  # new texts on the fit's path, never another one
            config = replace(config, precision=path)
        # a loaded model: the fit's corpus size gives the fit's path again (corpus_rule.fit_path)
        fitted = self.__dict__.get("embeddings_")
        return Embedder(config, counts, corpus_size=None if fitted is None else len(fitted))

    # ------------------------------------------------------------- new data
    def transform(self, corpus: Any, *, embeddings: np.ndarray | None = None, n_neighbors: int = 10) -> pd.DataFrame:
        """Place new abstracts: topic, theme and map position from their nearest fitted documents.

        Args:
            corpus: anything [`read_corpus`][icml_topics.read_corpus] takes; a single string that is not an
                existing path and holds spaces is one abstract (``transform("We study ...")``).
            embeddings: optional precomputed matrix, one row per input row, made with ``embedding_model``;
                then nothing is embedded.
            n_neighbors: a new abstract takes the majority topic of this many nearest fitted documents.

        Examples:
            >>> placed = tm.transform(["We learn a world model from pixels and plan with it for robot control."])
            >>> placed[["topic", "topic_label", "theme", "theme_score"]]
        """
        from icml_topics.placement import placed_table, text_twins  # lazy: keeps TopicMap light

        check_fitted(self)
        if isinstance(corpus, str) and not _names_a_file(corpus):
            corpus = [corpus]  # one abstract (it holds spaces and no such file exists), not a file name
        if embeddings is not None:
            embeddings = check_embeddings(embeddings, model=self.embedding_model)
        flagged = read_flagged(corpus, prepend_title=self.prepend_title)
        ok = modelled_mask(flagged)
        texts = flagged.loc[ok, "text"].tolist()
        twins = text_twins(self.state_, flagged.loc[ok])  # the fit's own papers: their stored embeddings
        new = twins < 0
        emb = None
        if texts:
            emb = np.empty((len(texts), self.state_.embeddings.shape[1]), dtype=np.float32)
            emb[~new] = self.state_.embeddings[twins[~new]]
            if new.any():
                given = None if embeddings is None else document_embeddings(texts, embeddings, ok, self._embedder())
                unknown = [t for t, n in zip(texts, new) if n]
                emb[new] = given[new] if given is not None else document_embeddings(unknown, None, ok, self._embedder())
        return placed_table(self.state_, flagged, emb, n_neighbors=n_neighbors)

    def find_topics(self, query: str, k: int = 5) -> pd.DataFrame:
        """The ``k`` topics nearest ``query`` by cosine similarity of its embedding to the topic centroids
        (``topic_embeddings_``), most similar first: ``topic, label, theme, size, similarity``.

        Args:
            query: a text (a phrase or an abstract), embedded as the documents were.
            k: how many topics to return.

        Examples:
            >>> tm.find_topics("offline reinforcement learning", k=3)
        """
        check_fitted(self)
        if not isinstance(query, str) or not query.strip():
            raise InvalidValueError(f"find_topics needs a non-empty text query, got {query!r}.")
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise InvalidValueError(f"k must be a positive integer (how many topics to return), got {k!r}.")
        return tables.nearest_topics(self.topics_, self.topic_embeddings_, self._embedder()([query.strip()])[0], int(k))

    # ---------------------------------------------------------------- edits
    def rename_theme(self, old: str, new: str) -> TopicMap:
        """Rename a theme everywhere (tables and taxonomy); no re-fitting.

        Args:
            old: the theme's name now.
            new: its new name.

        Examples:
            >>> tm.rename_theme("Reinforcement learning", "RL")
        """
        check_fitted(self)
        return self._set_state(edits.rename_theme(self.state_, old, new))

    def merge_themes(self, themes: Sequence[str], into: str) -> TopicMap:
        """Merge several themes into one; no re-fitting.

        Args:
            themes: the names of the themes to merge.
            into: the merged theme's name (a new name or one of ``themes``).

        Examples:
            >>> tm.merge_themes(["Computer vision", "Speech & audio"], into="Perception")
        """
        check_fitted(self)
        return self._set_state(edits.merge_themes(self.state_, themes, into))

    def rename_topic(self, topic: int, label: str) -> TopicMap:
        """Give a fine topic a name of your own.

        Args:
            topic: the fine topic id.
            label: its new name.

        Examples:
            >>> tm.rename_topic(3, "Bayesian optimisation")
        """
        check_fitted(self)
        return self._set_state(edits.rename_topic(self.state_, topic, label))

    def merge_topics(self, topics: Sequence[int], label: str | None = None) -> TopicMap:
        """Merge fine topics into the largest of them, which keeps its id and theme; papers keep their own themes.

        Args:
            topics: the fine topic ids to merge (at least two).
            label: the merged topic's name; ``None`` keeps the largest topic's name.

        Examples:
            >>> tm.merge_topics([3, 7], label="Bayesian methods")
        """
        check_fitted(self)
        return self._set_state(edits.merge_topics(self.state_, topics, label))

    # ------------------------------------------------------------- interop
    def to_bertopic(self, *, ngram_range: tuple[int, int] = (1, 2)):
        """A fitted ``bertopic.BERTopic`` with these topics, names and keyphrases, for BERTopic's own API
        (``topics_over_time``, ``hierarchical_topics``, ``find_topics``, ``visualize_*``).

        Args:
            ngram_range: the n-gram lengths of BERTopic's own c-TF-IDF words (the keyphrases and names come
                from the fit); ``(1, 3)`` is slower, ``(1, 1)`` faster.

        Examples:
            >>> from icml_topics.interop import bertopic_documents
            >>> bt = tm.to_bertopic()
            >>> docs, years = bertopic_documents(tm, "year")
            >>> bt.topics_over_time(docs, years)
        """
        from icml_topics.interop import to_bertopic  # lazy: keeps TopicMap light

        check_fitted(self)
        return to_bertopic(self, ngram_range=ngram_range)

    @property
    def bertopic_(self):
        """Deprecated: use [`to_bertopic`][icml_topics.TopicMap.to_bertopic] (this was None after a warm fit and missing after load).

        Examples:
            >>> tm.to_bertopic().get_topic_info().head()  # instead of tm.bertopic_
        """
        import warnings

        if not hasattr(self, "embeddings_"):
            raise AttributeError(
                "bertopic_: this TopicMap is not fitted yet (and bertopic_ is deprecated: use to_bertopic())."
            )
        warnings.warn("TopicMap.bertopic_ is deprecated; call tm.to_bertopic() instead.", FutureWarning, stacklevel=2)
        return self.to_bertopic()

    def summary(self) -> dict[str, Any]:
        """Key numbers: documents, modelled, dropped, topics, themes, outlier and no-theme shares.

        Examples:
            >>> tm.summary()["outlier share"]
        """
        return headline_numbers(self._checked_documents(), self.topics_, self.themes_)

    def evaluate(self, reference: pd.DataFrame | None = None) -> dict[str, Any]:
        """Coherence (NPMI), diversity, outlier share and, with reference labels, ARI/NMI (a warning when the
        labelled papers trained the shipped theme head: score on ``load_theme_labels("heldout")``).

        Args:
            reference: optional theme labels: a DataFrame with ``id`` and ``theme`` columns (as
                [`load_theme_labels`][icml_topics.evaluate.load_theme_labels] returns); ``None``: no agreement scores.

        Examples:
            >>> from icml_topics.evaluate import load_theme_labels
            >>> tm.evaluate(reference=load_theme_labels("heldout"))["theme_accuracy"]
        """
        from icml_topics.evaluate import evaluate_model  # lazy: keeps TopicMap light

        check_fitted(self)
        return evaluate_model(self, reference=reference)

    # ---------------------------------------------------------- persistence
    def save(self, path: str | os.PathLike) -> Path:
        """Save the fitted model as plain files (JSON, Parquet, .npy) in folder ``path``; returns the folder.
        Its ``manifest.json`` records the embedding path, the CPU and the package version.

        Args:
            path: the folder to write (created when missing).

        Examples:
            >>> folder = tm.save("results/model")
        """
        from icml_topics.persistence import save_model  # lazy: keeps TopicMap light

        check_fitted(self)
        return save_model(self.get_params(deep=False), self.state_, path, record=run_record(self))

    @classmethod
    def load(cls, path: str | os.PathLike, **params: Any) -> TopicMap:
        """Load a model saved with [`save`][icml_topics.TopicMap.save].

        The folder is data, not configuration: every array and parameter is checked before use, and the
        parameters of a machine (``cache``, ``client``) are this machine's defaults, never the saved ones (a
        logged warning names each one ignored).

        Args:
            path: a folder written by [`save`][icml_topics.TopicMap.save].
            **params: parameters for this machine, over the saved ones, e.g. ``cache="/data/cache"``, or
                ``embedding_model=`` a local folder (a saved folder may name a model, never a path to read;
                ``icml_topics.model_trust``).

        Examples:
            >>> tm = TopicMap.load("results/model")
            >>> tm = TopicMap.load("results/model", cache="/scratch/cache", embedding_model="/models/mine")
            >>> tm.themes_.head()
        """
        from icml_topics.persistence import read_model  # lazy: keeps TopicMap light

        saved = read_model(path, params)
        model = cls(**saved.params, theme_settings=saved.theme_settings, taxonomy=saved.taxonomy)
        fitted = saved.state
        if fitted.themes is None or fitted.tree is None:  # saved without its theme rule or tree: build them
            config = model._config()
            fitted = fit_themes(fitted, config.taxonomy, config.theme_settings, model._embedder(config), config)
        return model._set_state(fitted)

    # -------------------------------------------------------------- helpers
    def _checked_documents(self) -> pd.DataFrame:
        check_fitted(self)
        return self.documents_


def _names_a_file(text: str) -> bool:
    """Whether a single string passed as a corpus is a path or source (else it is one abstract)."""
    stripped = text.strip()
    try:
        if Path(stripped).expanduser().exists():
            return True
    except (OSError, ValueError):
        return False
    return len(stripped) < 400 and not any(ch.isspace() for ch in stripped)

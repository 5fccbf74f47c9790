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
your own; give ``FitRun`` a field for it) and put ``FitStage("my_stage", my_stage, describe)`` at
its place in ``FIT_STAGES``; ``fit``'s progress lines and the benchmarks' stage timings follow.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from icml_topics._background import Background, Job, sweep_legacy_folders
from icml_topics._progress import step
from icml_topics.fit_config import FitConfig
from icml_topics.fit_inputs import (
    MIN_DOCUMENTS,
    Embedder,
    EmbedFn,
    FlaggedCorpus,
    document_embeddings,
    read_flagged,
)
from icml_topics.fit_tree import topic_tree
from icml_topics.fitted_tables import modelled_mask
from icml_topics.stages import jit_warmup, knn_graph, size_aware_defaults
from icml_topics.stages.large import strata_of, theme_neighbours
from icml_topics.stages.map2d import MapSettings, draw_map, map_is_cached
from icml_topics.stages.reduce import distinct_rows
from icml_topics.state import FittedState, ThemeState
from icml_topics.themes.assign import DocumentThemes, ThemeRule, ThemeSettings, embed_prototypes
from icml_topics.themes.head import builtin_head
from icml_topics.themes.taxonomy import Taxonomy

if TYPE_CHECKING:
    from icml_topics.embedding.models import ModelSpec
    from icml_topics.stages.tree import TopicTree

__all__ = [
    "FIT_STAGES",
    "MIN_DOCUMENTS",
    "Embedder",
    "FitRun",
    "FitStage",
    "FlaggedCorpus",
    "assign_themes",
    "document_embeddings",
    "fit_themes",
    "neighbour_graph",
    "read_flagged",
    "map_coordinates",
    "run_fit",
    "run_stages",
    "supervised_head",
    "theme_state",
]

logger = logging.getLogger("icml_topics")

OnStage = Callable[[str, str], None]

BACKGROUND_MAP_MIN = 2_000
"""Papers from which an uncached UMAP map is drawn by the background worker while the fit goes on (a smaller one
takes a few seconds: less than starting the worker)."""


def neighbour_graph(emb: np.ndarray, n_neighbors: int, config: FitConfig) -> tuple[np.ndarray, np.ndarray]:
    """The kNN graph of ``emb`` as the fit builds it: approximate (NN-descent) when ``config.is_large``
    says the corpus is large, else exact; same format either way (``stages.reduce.knn_graph``)."""
    return knn_graph(emb, n_neighbors, approximate=config.is_large(len(emb)))


def uses_umap(config: FitConfig, n_documents: int) -> bool:
    """Whether the map of ``n_documents`` papers is drawn by UMAP (numba code): the ``reducer`` parameter, or
    its size-aware default (t-SNE below ``SMALL_CORPUS``, no numba)."""
    chosen = config.reducer
    if not isinstance(chosen, str):
        return False
    return (size_aware_defaults(n_documents).reducer if chosen == "auto" else chosen) == "umap"


def map_settings(config: FitConfig) -> MapSettings:
    """The map's settings of ``config`` (a named ``reducer``), as plain values: what the background worker
    is given."""
    return MapSettings(
        reducer=config.reducer, n_neighbors=config.n_neighbors, large_corpus_threshold=config.large_corpus_threshold,
        sample_size=config.sample_size, seed=config.seed, reductions_dir=config.reductions_dir,
    )  # fmt: skip


def map_coordinates(emb: np.ndarray, config: FitConfig, *, rows: pd.DataFrame | None = None) -> np.ndarray:
    """The 2-D map of ``emb`` (one row per modelled paper): ``stages.map2d.draw_map`` for a named reducer (UMAP,
    t-SNE for a small corpus, a stratified sample with the rest placed for a large one; cached by content and
    settings), or the first two dimensions of a user's ``reducer``. ``rows``: the modelled corpus rows
    (strata of the large-corpus sample)."""
    chosen = config.reducer
    if isinstance(chosen, str):
        return draw_map(emb, map_settings(config), strata_of(rows))
    keep, inverse = distinct_rows(emb)
    if len(keep) < len(emb):  # identical abstracts are mapped once, as one point
        return map_coordinates(emb[keep], config)[inverse]
    out = np.asarray(chosen.fit_transform(emb), dtype=np.float32)  # a user's reducer: its first two dimensions
    return out[:, :2] if out.shape[1] >= 2 else np.hstack([out, np.zeros((len(out), 1), np.float32)])


def fit_themes(
    state: FittedState, taxonomy: Taxonomy, settings: ThemeSettings, embed: EmbedFn, config: FitConfig
) -> FittedState:
    """``state`` with the theme rule of ``taxonomy`` fitted again on its documents with ``settings`` (only
    the taxonomy's short texts are embedded), every document placed (``assign_themes``) and the topic tree
    built again under the new themes (its nodes nest in their themes). Nothing is re-embedded."""
    config = replace(config, taxonomy=taxonomy, theme_settings=settings)
    run = FitRun(config, embed, state.corpus, flagged=state.corpus, texts=state.texts)
    run.embeddings, run.coords = state.embeddings, state.coords
    return run_stages(run, [stage for stage in FIT_STAGES if stage.name in _BELOW_THEMES]).state


def theme_state(
    embeddings: np.ndarray,
    modelled: pd.DataFrame,
    taxonomy: Taxonomy,
    settings: ThemeSettings,
    embed: EmbedFn,
    config: FitConfig,
) -> ThemeState:
    """The theme stage alone: the rule of ``taxonomy`` fitted on the ``modelled`` rows (their ``embeddings``)
    and each row's themes (``assign_themes``)."""
    titles, abstracts = modelled["title"].tolist(), modelled["abstract"].tolist()
    rule, docs = assign_themes(embeddings, titles, abstracts, taxonomy, settings, embed, config)
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
    neighbours = theme_neighbours(embeddings, settings.n_neighbors, random_state=config.seed) if large else None
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


def supervised_head(taxonomy: Taxonomy, settings: ThemeSettings, embedding_model: ModelSpec, dim: int):
    """The built-in supervised head when it applies: wanted by the settings, trained for this taxonomy's
    themes and for the embedding model in use (``embedding_model``: the parameter; ``None`` = the
    default model); otherwise None (the settings' weights)."""
    from icml_topics.embedding.models import is_default_model  # lazy: keeps TopicMap light

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
    coords: np.ndarray | None = None  # map: the 2-D map (or pending: see ``pending``)
    background: Background = field(default_factory=Background)  # the fit's one worker process (if any)
    warmup: Job | None = None  # embed: numba compiling UMAP in the worker (``jit_warmup``)
    pending: dict[str, Job] = field(default_factory=dict)  # a field being computed by the worker, by name
    themes: ThemeState | None = None  # themes: taxonomy, fitted rule, each paper's theme
    tree: TopicTree | None = None  # tree: the hierarchy under the themes, named
    state: FittedState | None = None  # state: the complete state (the hierarchy under the themes, named)

    @property
    def ok(self) -> np.ndarray:
        """Which corpus rows are modelled."""
        return modelled_mask(self.flagged)


@dataclass(frozen=True)
class FitStage:
    """One step of the fit: ``run`` reads and sets ``FitRun`` fields; ``describe`` gives its progress
    line from what the earlier stages computed (``None``: it shares the line of the stage before)."""

    name: str
    run: Callable[[FitRun], None]
    describe: Callable[[FitRun], str] | None = None
    reads: tuple[str, ...] = ()  # FitRun fields an earlier stage may have left pending: resolved before it runs


def _read(run: FitRun) -> None:
    c = run.config
    run.flagged = read_flagged(run.corpus, columns=run.columns, prepend_title=c.prepend_title, require=MIN_DOCUMENTS)
    run.texts = run.flagged.loc[run.ok, "text"].tolist()


def _embed(run: FitRun) -> None:
    wanted = uses_umap(run.config, len(run.texts)) and jit_warmup.wanted()
    if wanted and run.given_embeddings is None and isinstance(run.embed, Embedder):
        run.embed.prepare(len(run.texts))  # the path's setup child ends before the worker starts (issue 50)
    if wanted and run.background.available():  # numba compiles UMAP in the worker while this embeds
        large = run.config.is_large(len(run.texts))
        run.warmup = run.background.submit("numba's compilation of UMAP", jit_warmup.compile_umap, large=large)
    run.embeddings = document_embeddings(run.texts, run.given_embeddings, run.ok, run.embed)
    if run.config.client is not None:  # the workers' model is done: they build the tree's consensus light
        from icml_topics.embedding.distributed import release_model  # lazy: distributed is heavy

        release_model(run.config.client)


def _map(run: FitRun) -> None:
    if _map_in_background(run):  # the worker draws it while themes and tree run: resolved before the state
        settings, strata = map_settings(run.config), strata_of(run.flagged.loc[run.ok])
        run.pending["coords"] = run.background.submit("the 2-D map", draw_map, run.embeddings, settings, strata)
        run.background.finish()  # the map is its last job: the worker ends with it, not with the fit
        return
    if run.warmup is not None:  # the map is drawn here: from the code the worker compiled into numba's cache
        run.warmup.result()
    run.background.close()  # nothing more for the worker
    run.coords = map_coordinates(run.embeddings, run.config, rows=run.flagged.loc[run.ok])


def _map_in_background(run: FitRun) -> bool:
    """A UMAP map of ``BACKGROUND_MAP_MIN`` papers or more, not cached, is drawn by the fit's worker process
    while this one assigns themes and builds the tree (off with ``ICML_TOPICS_BACKGROUND=0``)."""
    n = len(run.embeddings)
    if n < BACKGROUND_MAP_MIN or not uses_umap(run.config, n):
        return False
    return not map_is_cached(run.embeddings, map_settings(run.config))


def _resolve(run: FitRun, names: Sequence[str]) -> None:
    """Set the ``pending`` fields among ``names`` on ``run`` from the worker (computed here when it gives
    none), and end the worker once nothing is pending."""
    resolved = [name for name in names if name in run.pending]
    for name in resolved:
        job, what = run.pending.pop(name), "2-D map" if name == "coords" else name
        if job.future is not None:  # else computed here: no worker ran it (e.g. ICML_TOPICS_BACKGROUND=0)
            step("waiting for the %s (computed by the fit's worker process)", what)
        else:
            step("computing the %s", what)
        setattr(run, name, job.result())
    if resolved and not run.pending:
        run.background.close()


def _themes(run: FitRun) -> None:
    c = run.config
    run.themes = theme_state(run.embeddings, run.flagged.loc[run.ok], c.taxonomy, c.theme_settings, run.embed, c)


def _tree(run: FitRun) -> None:
    modelled = run.flagged.loc[run.ok]
    run.tree = topic_tree(run.config, run.texts, run.embeddings, run.embed, modelled, run.themes.docs.theme)


def _state(run: FitRun) -> None:
    tree = run.tree
    run.state = FittedState(
        run.flagged, run.embeddings, tree.labels[:, 0].copy(), run.coords, tree.keywords[0], tree.names[0],
        themes=run.themes, tree=tree,
    )  # fmt: skip


def _embedding_line(run: FitRun) -> str:
    ok = run.ok
    return (
        f"embedding {len(run.texts)} abstracts ({len(run.flagged)} rows read, {int((~ok).sum())} dropped, "
        f"{int(run.flagged['is_duplicate'].sum())} exact duplicates)"
    )


def _tree_line(run: FitRun) -> str:
    n = len({t for t in run.themes.docs.theme if t})
    return f"topics and subtopics under {n} research themes: clustering, keyphrases, names that tell siblings apart"


FIT_STAGES: tuple[FitStage, ...] = (
    FitStage("read", _read, lambda run: "reading the corpus"),
    FitStage("embed", _embed, _embedding_line),
    FitStage("map", _map, lambda run: f"projecting {len(run.embeddings)} papers onto the 2-D map"),
    FitStage("themes", _themes, lambda run: "assigning research themes"),
    FitStage("tree", _tree, _tree_line),
    FitStage("state", _state, reads=("coords",)),  # the map, drawn beside themes and tree, is needed from here
)
"""The fit, in order. ``TopicMap.fit`` shows one progress line per stage with a ``describe``."""

_BELOW_THEMES = ("themes", "tree", "state")  # what set_taxonomy runs again


def run_stages(run: FitRun, stages: Sequence[FitStage] = FIT_STAGES, on_stage: OnStage | None = None) -> FitRun:
    """Run ``stages`` in order on ``run``; ``on_stage(name, line)`` is called as each one starts
    (``line``: its progress line, ``""`` for a stage that shares the line before).

    The one overlap: a stage may leave a field pending (``run.pending``: a job of the fit's background
    worker, ``_background.py``); it is resolved before the first stage that ``reads`` it, and at the end, so
    no stage sees it unset. The worker ends once nothing is pending, and when a stage fails."""
    try:
        for stage in stages:
            _resolve(run, stage.reads)
            if on_stage is not None:
                on_stage(stage.name, stage.describe(run) if stage.describe else "")
            stage.run(run)
        _resolve(run, list(run.pending))
    finally:
        run.pending.clear()
        run.warmup = None
        run.background.close()  # a stage failed or was interrupted: the worker is stopped
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
    sweep_legacy_folders()  # what earlier versions' killed runs left in the temporary folder
    run = FitRun(config, embed or Embedder(config), corpus, columns=columns, given_embeddings=embeddings)
    state = run_stages(run, FIT_STAGES, on_stage).state
    if state is None or state.themes is None:
        raise RuntimeError("the fit stages ended without a state; FIT_STAGES must end with the tree.")
    return state

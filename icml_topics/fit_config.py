"""The parameters of one fit, resolved once: ``FitConfig`` (every derived decision; each parameter's
default and rule are written once, in the table of ``icml_topics.parameters``).

``TopicMap.fit`` turns ``get_params()`` into a frozen ``FitConfig`` before any work: each parameter is
checked (a bad value is an error in milliseconds, before the corpus is read), the taxonomy is loaded,
the theme settings are filled in, the seed is drawn, the cache folders are decided, and the one rule
"large corpus from ``large_corpus_threshold`` documents up" lives here. The stages (``fitting.py``)
read the config's typed fields, never the parameter dict:

    >>> config = FitConfig.from_params({"random_state": 0, "large_corpus_threshold": 100})
    >>> config.seed, config.is_large(60_000), config.is_large(99)
    (0, True, False)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from icml_topics._validation import check_params
from icml_topics.errors import InvalidTypeError, InvalidValueError
from icml_topics.parameters import DEFAULTS, PARAMETERS
from icml_topics.stages._base import ReducerProtocol, seed_from
from icml_topics.stages.defaults import size_aware_defaults
from icml_topics.stages.hierarchy import HierarchySettings
from icml_topics.themes.assign import ThemeSettings
from icml_topics.themes.taxonomy import Taxonomy, load_taxonomy

if TYPE_CHECKING:
    from icml_topics.embedding.models import ModelSpec

__all__ = ["FitConfig", "cache_dir", "check_plugins"]


@dataclass(frozen=True, kw_only=True)
class FitConfig:
    """A fit's parameters as the stages read them: ``TopicMap``'s parameters (the names of the table in
    ``icml_topics.parameters``, whose defaults ``from_params`` fills in: a test checks) resolved, plus what
    follows from them (``seed``, the cache folders).

    Build one with ``from_params`` (which validates and resolves); fields:

    * the estimator's parameters, ``taxonomy`` loaded into a [`Taxonomy`][icml_topics.Taxonomy] and ``theme_settings``
      always a [`ThemeSettings`][icml_topics.ThemeSettings];
    * ``seed``: the int seed every random stage uses, resolved once from ``random_state`` (an int as given,
      drawn afresh when ``None``; ``stages.seed_from``): stages take ``config.seed``, never ``random_state``;
    * ``embeddings_dir`` / ``reductions_dir`` / ``representations_dir``: where each cache lives
      (``None``: not cached; stage results are cached only for a fixed ``random_state``).
    """

    embedding_model: ModelSpec
    taxonomy: Taxonomy
    min_topic_size: int | None
    topic_sizes: tuple[int, ...] | None
    n_neighbors: int | None
    reducer: Any
    n_keywords: int
    theme_settings: ThemeSettings
    prepend_title: bool
    cache: bool | str | os.PathLike
    precision: str
    max_tokens: int | None
    random_state: Any
    topic_namer: Any
    verbose: bool
    client: Any
    large_corpus_threshold: int
    sample_size: int
    # derived (from_params fills them)
    seed: int
    embeddings_dir: Path | None = None
    reductions_dir: Path | None = None
    representations_dir: Path | None = None
    trees_dir: Path | None = None

    @classmethod
    def parameter_names(cls) -> tuple[str, ...]:
        """The estimator parameters, in the order of ``TopicMap.__init__``'s signature."""
        return tuple(PARAMETERS)

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """Every parameter's default, read from the table (``icml_topics.parameters.DEFAULTS``):
        ``taxonomy`` and ``theme_settings`` default to ``None`` (built-in, defaults)."""
        return dict(DEFAULTS)

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> FitConfig:
        """Validate ``params`` (``TopicMap.get_params()``, or some of them: the rest take their defaults)
        and resolve them. Raises an [`IcmlTopicsError`][icml_topics.IcmlTopicsError] (also a ``ValueError``,
        ``TypeError`` or ``FileNotFoundError``) naming the parameter, the value and the fix."""
        unknown = sorted(set(params) - set(cls.parameter_names()))
        if unknown:
            raise InvalidValueError(f"unknown fit parameters {unknown}; known: {list(cls.parameter_names())}.")
        values = {**cls.defaults(), **params}
        check_params(values)
        check_plugins(values["reducer"])
        settings = values["theme_settings"]
        if settings is not None and not isinstance(settings, ThemeSettings):
            raise InvalidTypeError(
                f"theme_settings={settings!r} is not allowed: use None (the defaults) or a "
                "ThemeSettings(...) (from icml_topics import ThemeSettings)."
            )
        values["taxonomy"] = load_taxonomy(values["taxonomy"])  # a missing file fails here, before any work
        values["theme_settings"] = settings or ThemeSettings()
        cache, random_state = values["cache"], values["random_state"]
        stage_cache = random_state is not None  # with random_state=None every fit is fresh: nothing cached
        return cls(
            **values,
            seed=seed_from(random_state),
            embeddings_dir=cache_dir(cache, "embeddings"),
            reductions_dir=cache_dir(cache, "reductions") if stage_cache else None,
            representations_dir=cache_dir(cache, "representations") if stage_cache else None,
            trees_dir=cache_dir(cache, "trees") if stage_cache else None,
        )

    def is_large(self, n_documents: int) -> bool:
        """The one large-corpus rule: from ``large_corpus_threshold`` documents up, the approximate kNN
        graph, the sample-and-place map, the keyphrase vocabulary from a sample and the
        theme rule's approximate neighbours run (``stages/large.py``)."""
        return n_documents >= self.large_corpus_threshold

    def hierarchy_settings(self, n_documents: int) -> HierarchySettings:
        """How the topic tree under the themes of ``n_documents`` papers is built: ``topic_sizes`` papers a
        node (coarsest level first); by default a depth and sizes that follow the corpus
        (``size_aware_defaults(n)``: finest nodes of ``finest_size`` papers, as many levels as the median
        paper's theme needs to branch at most ``branching`` ways a level, up to four). Nodes under
        ``min_topic_size`` are folded into their closest sibling (default: 3 with ``topic_sizes``, else
        ``size_aware_defaults(n).min_size``: 10 papers below 2,000, so that a node's name can be judged, 3 above)."""
        if self.topic_sizes:
            sizes = tuple(int(s) for s in self.topic_sizes)
            return HierarchySettings(LEVEL_NAMES[: len(sizes)], sizes, min_size=self.min_topic_size or 3)
        defaults = size_aware_defaults(n_documents)
        min_size = self.min_topic_size or defaults.min_size
        return HierarchySettings(LEVEL_NAMES, (defaults.finest_size,), min_size=min_size, branching=defaults.branching)

    def neighbours(self, n_documents: int) -> int:
        """UMAP's / the kNN graph's neighbourhood size: the parameter, else the size-aware default."""
        return self.n_neighbors or size_aware_defaults(n_documents).n_neighbors


#: the tree's level names, coarsest first (at most four levels: ``parameters.py``'s ``topic_sizes`` rule)
LEVEL_NAMES = ("topic", "subtopic", "subtopic 2", "subtopic 3")


def cache_dir(cache: Any, kind: str) -> Path | None:
    """Where ``cache`` (the ``cache=`` parameter) keeps ``kind`` (``embeddings``, ``reductions``, ...)."""
    if cache is False:
        return None
    from icml_topics.embedding import default_cache_dir  # lazy: keeps TopicMap light

    if cache is True:  # <root>/embeddings is the embedding cache; siblings hold the others
        return default_cache_dir().parent / kind
    base = Path(cache)
    if base.suffix.lower() in {".sqlite3", ".sqlite", ".db"}:  # the embedding cache file itself
        base = base.parent
    return base if kind == "embeddings" else base / kind


def check_plugins(reducer: Any) -> None:
    """Reject a reducer that lacks the protocol's method before any work starts."""
    if not isinstance(reducer, str) and not isinstance(reducer, ReducerProtocol):
        raise InvalidTypeError(
            f"reducer={type(reducer).__name__} has no fit_transform(embeddings); pass 'auto', 'umap', 'small' "
            "or an object like sklearn.decomposition.PCA(5) (see icml_topics.stages.ReducerProtocol)."
        )

"""icml_topics: research themes and topic maps for machine-learning conference abstracts.

>>> from icml_topics import TopicMap, read_corpus
>>> tm = TopicMap(random_state=0).fit(read_corpus("../shared/data/icml-2013-2024.jsonl.gz"))
>>> tm.themes_.head()
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from icml_topics import source_registry
from icml_topics._version import __version__

_LAZY = {
    "TopicMap": "icml_topics.model",
    "FittedTables": "icml_topics.fitted_tables",
    "read_corpus": "icml_topics.corpus.readers",
    "CorpusError": "icml_topics.corpus.readers",
    "embed": "icml_topics.embedding",
    "EmbeddingCache": "icml_topics.embedding",
    "Taxonomy": "icml_topics.themes.taxonomy",
    "load_taxonomy": "icml_topics.themes.taxonomy",
    "ThemeSettings": "icml_topics.themes.assign",
    "bertopic_documents": "icml_topics.interop",
    "register_source": "icml_topics.source_registry",
    "IcmlTopicsError": "icml_topics.errors",
    "NotFittedError": "icml_topics.model",
    "OpenAINamer": "icml_topics.stages.llm_namer",
}

__all__ = [*_LAZY, "__version__"]


def _is_proceedings_spec(spec: str) -> bool:
    from icml_topics.datasets.sources import is_source_spec  # lazy: keeps the package import light

    return is_source_spec(spec)


def _load_proceedings(spec: str) -> Any:
    from icml_topics.datasets.sources import load_source  # lazy: keeps the package import light

    return load_source(spec)


# The composition root: read_corpus (corpus/) reads proceedings through datasets/ without importing it.
source_registry.register_source("datasets", _is_proceedings_spec, _load_proceedings)

if TYPE_CHECKING:  # pragma: no cover
    from icml_topics.corpus.readers import CorpusError, read_corpus
    from icml_topics.embedding import EmbeddingCache, embed
    from icml_topics.errors import IcmlTopicsError
    from icml_topics.fitted_tables import FittedTables
    from icml_topics.interop import bertopic_documents
    from icml_topics.model import NotFittedError, TopicMap
    from icml_topics.source_registry import register_source
    from icml_topics.stages.llm_namer import OpenAINamer
    from icml_topics.themes.assign import ThemeSettings
    from icml_topics.themes.taxonomy import Taxonomy, load_taxonomy


def __getattr__(name: str) -> Any:
    """Import heavy submodules (torch, BERTopic) only when they are first used."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'icml_topics' has no attribute {name!r}")


def __dir__() -> list[str]:
    """Tab completion and ``dir(icml_topics)`` list the public API, also before it is imported."""
    return sorted({*__all__, *(n for n in globals() if n.startswith("_"))})

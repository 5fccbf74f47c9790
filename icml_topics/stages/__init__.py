"""Pipeline stages: the map (UMAP), the topic hierarchy under the themes, represent (c-TF-IDF keyphrases), names.

Each stage is a small object or function with a plain interface, so any of them can be swapped:
pass your own map projection to ``TopicMap(reducer=...)``: the contract is the Protocol in ``stages/_base.py``
(``fit_transform(embeddings)`` [+ optional ``knn=``, ``cache_key()``]).
"""

from icml_topics.stages._base import CacheableReducer, ReducerProtocol, seed_from
from icml_topics.stages.defaults import StageDefaults, size_aware_defaults
from icml_topics.stages.hierarchy import HierarchySettings, fit_hierarchy
from icml_topics.stages.naming import name_topics
from icml_topics.stages.reduce import MapProjector, Reducer, knn_graph
from icml_topics.stages.tree import TopicTree

__all__ = [
    "CacheableReducer",
    "ReducerProtocol",
    "seed_from",
    "MapProjector",
    "Reducer",
    "StageDefaults",
    "HierarchySettings",
    "TopicTree",
    "fit_hierarchy",
    "knn_graph",
    "name_topics",
    "size_aware_defaults",
]

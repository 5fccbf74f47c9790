"""Pipeline stages: reduce (UMAP), cluster (HDBSCAN), represent (c-TF-IDF keyphrases), name topics.

Each stage is a small object or function with a plain interface, so any of them can be swapped:
pass your own reducer/clusterer to ``TopicMap``: the contracts are the Protocols in ``stages/_base.py``
(``fit_transform(embeddings)`` [+ optional ``knn=``, ``cache_key()``] / ``fit_predict(reduced)``).
"""

from icml_topics.stages._base import CacheableReducer, ClustererProtocol, ReducerProtocol, seed_from
from icml_topics.stages.cluster import HDBSCANClusterer
from icml_topics.stages.defaults import StageDefaults, size_aware_defaults
from icml_topics.stages.naming import name_topics
from icml_topics.stages.reduce import MapProjector, Reducer, knn_graph

__all__ = [
    "CacheableReducer",
    "ClustererProtocol",
    "ReducerProtocol",
    "seed_from",
    "HDBSCANClusterer",
    "MapProjector",
    "Reducer",
    "StageDefaults",
    "knn_graph",
    "name_topics",
    "size_aware_defaults",
]

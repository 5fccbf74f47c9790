"""Pipeline stages: reduce (UMAP), cluster (HDBSCAN), represent (c-TF-IDF keyphrases), name topics.

Each stage is a small object or function with a plain interface, so any of them can be swapped:
pass your own reducer/clusterer (anything with ``fit_transform`` / ``fit_predict``) to ``TopicMap``.
"""

from icml_topics.stages.cluster import HDBSCANClusterer
from icml_topics.stages.defaults import StageDefaults, size_aware_defaults
from icml_topics.stages.naming import name_topics
from icml_topics.stages.reduce import MapProjector, Reducer, knn_graph

__all__ = [
    "HDBSCANClusterer",
    "MapProjector",
    "Reducer",
    "StageDefaults",
    "knn_graph",
    "name_topics",
    "size_aware_defaults",
]

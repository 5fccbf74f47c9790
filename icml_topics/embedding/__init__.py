"""Document embeddings: the packaged default model, guarded fast paths (int8 ONNX, bf16, fp16), a persistent cache.

Examples:
    >>> from icml_topics.embedding import embed, last_run_info, EmbeddingCache
    >>> vectors = embed(["Graph neural networks.", "Diffusion models."])
    >>> last_run_info().n_embedded, EmbeddingCache().stats()["entries"]
    (2, 2)
"""

from .cache import EmbeddingCache, default_cache_dir, normalize_text
from .identity import cached_model_identity, model_identity
from .models import DEFAULT_MODEL_NAME, ModelNotAvailableError, load_model
from .paths import precision_decisions, resolve_precision
from .pipeline import EmbeddingRunInfo, embed, last_run_info

__all__ = [
    "DEFAULT_MODEL_NAME",
    "EmbeddingCache",
    "EmbeddingRunInfo",
    "ModelNotAvailableError",
    "default_cache_dir",
    "embed",
    "last_run_info",
    "cached_model_identity",
    "load_model",
    "model_identity",
    "normalize_text",
    "precision_decisions",
    "resolve_precision",
]

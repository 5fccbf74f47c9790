"""The CTranslate2 path ``int8-ct2``: the transformer converted to CTranslate2, int8 weights and activations.

CTranslate2 quantises weights per output row and each token's activations on their own (one scale per
row), so a text's vector does not depend on the other texts of a batch; texts still run one per call, as on
ONNX Runtime, which keeps the vectors bit-identical alone, in any batch and on any worker. The conversion
uses CTranslate2's own converter on the already-loaded model (no second read of the weights) and is stored
in the export folder of ``onnx_backend`` (same checksums, probe and atomic rebuild). Offered for BERT
models (all-MiniLM, BGE, E5 ...), on CPU.

On 300 ICML abstracts and a 2-core AMD EPYC with AVX-512 VNNI it ran 1.25x ONNX Runtime's dynamic int8 graph
(3.82x sentence-transformers fp32), with vectors closer to fp32 (``benchmarks/results/embedding_ct2_300.md``).

Examples:
    >>> from icml_topics.embedding import embed
    >>> embed(["Graph neural networks."], precision="int8-ct2", cache=False).shape
    (1, 384)
"""

from __future__ import annotations

import copy
import logging
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .precision import cpu_flags, package_version

if TYPE_CHECKING:
    import ctranslate2
    from sentence_transformers import SentenceTransformer

__all__ = ["CT2_FILES", "CT2_FOLDER", "convert", "ct2_unsupported_reason", "ct2_version", "encoder"]

logger = logging.getLogger("icml_topics")

CT2_FOLDER = "ct2-int8"
"""Subfolder of the export folder holding the converted model."""
CT2_FILES = ("model.bin", "config.json", "vocabulary.json")
"""The converter's files, checksummed in the export manifest."""
MODEL_TYPES = ("bert",)
"""Transformers model types offered on this path (the ones converted and tested here)."""
_AVX512 = {"avx512f", "avx512bw", "avx512dq", "avx512vl"}


def ct2_version() -> str | None:
    """CTranslate2's version without importing it, or None when it is not installed."""

    return package_version("ctranslate2", "ctranslate2")


def ct2_unsupported_reason(st: SentenceTransformer) -> str | None:
    """Why ``st`` cannot run on the CTranslate2 path here (``None`` when it can)."""
    if ct2_version() is None:
        return "ctranslate2 is not installed (pip install ctranslate2)"
    config = getattr(getattr(st[0], "auto_model", None), "config", None)
    model_type = getattr(config, "model_type", None)
    if model_type not in MODEL_TYPES:
        return f"the CTranslate2 path is offered for {', '.join(MODEL_TYPES)} models, not {model_type!r}"
    if getattr(config, "position_embedding_type", "absolute") != "absolute":
        return "CTranslate2 converts BERT models with absolute position embeddings only"
    if str(st.device) != "cpu":
        return f"the CTranslate2 path runs on CPU, the model is on {st.device}"
    return None


def convert(st: SentenceTransformer, out: Path) -> list[str]:
    """Convert ``st``'s transformer into ``out / CT2_FOLDER`` (int8); returns the written files, relative to ``out``.
    ``st`` is left as it was."""
    from ctranslate2.converters import TransformersConverter

    # a copy: the converter's quantisation writes into arrays that share memory with the weights it is given,
    # which would leave the loaded model (the guard's fp32 reference) with other weights
    transformer, tokenizer = copy.deepcopy(st[0].auto_model), st.tokenizer

    class Loaded(TransformersConverter):
        """CTranslate2's converter, handed the model and tokenizer already in memory."""

        def load_model(self, model_class: Any, model_name_or_path: str, **kwargs: Any) -> Any:
            return transformer

        def load_tokenizer(self, tokenizer_class: Any, model_name_or_path: str, **kwargs: Any) -> Any:
            return tokenizer

    target = out / CT2_FOLDER
    with tempfile.TemporaryDirectory(prefix="icml-topics-ct2-config-") as config_dir:
        transformer.config.save_pretrained(config_dir)  # the converter reads only the config from disk
        Loaded(config_dir).convert(str(target), quantization="int8", force=True)
    return [f"{CT2_FOLDER}/{name}" for name in CT2_FILES]


def encoder(folder: Path, workers: int) -> Any:
    """A ``ctranslate2.Encoder`` on ``folder``'s converted model: ``workers`` one-thread replicas (weights shared)."""
    ctranslate2 = _import()
    torch = sys.modules.get("torch")
    threads = torch.get_num_threads() if torch is not None else None
    try:
        return ctranslate2.Encoder(
            str(folder / CT2_FOLDER), device="cpu", compute_type="int8", inter_threads=workers, intra_threads=1
        )
    finally:
        # the constructor sets OpenMP's thread count of the calling thread to intra_threads; where torch shares
        # that OpenMP runtime it then ran on one thread (sentence-transformers fp32 at half speed after it)
        if torch is not None and torch.get_num_threads() != threads:
            torch.set_num_threads(threads)


def hidden_states(model: ctranslate2.Encoder, ids: list[int]) -> np.ndarray:
    """The last hidden states ``(1, tokens, width)`` of one text's token ids."""
    return np.asarray(model.forward_batch([ids]).last_hidden_state)


def _import() -> Any:
    """Import ctranslate2 with its AVX-512 kernels on CPUs that have AVX-512: it picks them by itself on Intel
    only, and on an AMD EPYC with AVX-512 they were 1.12x its AVX2 ones. ``CT2_FORCE_CPU_ISA`` set by the user
    wins (read once, when the library first runs a model)."""

    if _AVX512 <= cpu_flags():
        os.environ.setdefault("CT2_FORCE_CPU_ISA", "AVX512")
    import ctranslate2

    return ctranslate2

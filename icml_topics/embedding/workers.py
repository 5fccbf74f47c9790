"""The worker side of distributed embedding: the model plugin, partitions of whole batches, the task a
worker runs and the driver loop that collects the results (``embed(..., client=...)`` calls
``run_partitions``). Nothing here imports ``pipeline.py``: the worker encodes through ``paths.py``
directly, so ``pipeline`` -> ``workers`` is the only direction (``distributed.py`` is the public face).

    >>> partition_batches(100, 32, 2)
    [slice(0, 32, None), slice(32, 64, None), slice(64, 96, None), slice(96, 100, None)]
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

import numpy as np
from distributed.diagnostics.plugin import WorkerPlugin

from .cache import EmbeddingCache
from .identity import model_identity
from .models import ModelSpec, load_model, unload_models
from .paths import path_encoder, thread_settings
from .precision import validate_precision

__all__ = ["MAX_PARTITION_BATCHES", "ModelPlugin", "encode_partition", "partition_batches", "run_partitions"]

logger = logging.getLogger("icml_topics")


MAX_PARTITION_BATCHES = 16
"""At most this many batches (of ``batch_size`` texts) per partition: a lost worker costs little."""


class ModelPlugin(WorkerPlugin):
    """Dask worker plugin: load the embedding model once per worker, when the worker starts.

    Registered by ``embed_distributed``; a worker that joins later (or a restarted one) loads it too.
    ``load_model`` keeps the model for the life of the worker process, so every partition reuses it, until the
    plugin is unregistered (``release_model``: a fit once its documents are embedded), which unloads it.
    """

    name = "icml-topics-embedding-model"

    def __init__(self, model: ModelSpec = None, device: str | None = None) -> None:
        self.model = model
        self.device = device

    def setup(self, worker: Any) -> None:
        load_model(self.model, device=self.device)

    def teardown(self, worker: Any) -> None:
        """The worker's embedding is done (``release_model``) or it ends: its model's memory goes back."""
        unload_models()


def encode_partition(
    texts: list[str], model: ModelSpec, precision: str, batch_size: int, device: str | None, max_tokens: int | None
) -> np.ndarray:
    """Runs on a worker: one partition (normalised texts, longest first, whole batches of ``embed``'s) on
    the precision path the driver chose, batch by batch exactly as [`embed`][icml_topics.embed] runs them, so the
    vectors are bit-identical. No cache here (the driver keeps it); nothing imports ``pipeline.py``."""
    st = load_model(model, device=device)
    dev = str(st.device)
    validate_precision(precision, dev)
    with thread_settings(dev):
        encode = path_encoder(st, precision, dev, model_id=model_identity(st), max_tokens=max_tokens)
        blocks = [encode(texts[start : start + batch_size]) for start in range(0, len(texts), batch_size)]
    return np.concatenate(blocks).astype(np.float32, copy=False)


def partition_batches(
    n_texts: int, batch_size: int, n_workers: int, max_batches: int = MAX_PARTITION_BATCHES
) -> list[slice]:
    """Cut ``n_texts`` (already in embedding order) into partitions of whole batches.

    About four partitions per worker (so work balances), at most ``max_batches`` batches each; only the
    last partition may end in a short batch, exactly where [`embed`][icml_topics.embed]'s last batch ends.

        >>> partition_batches(100, 32, 2)
        [slice(0, 32, None), slice(32, 64, None), slice(64, 96, None), slice(96, 100, None)]
    """
    n_batches = math.ceil(n_texts / batch_size)
    per = max(1, min(max_batches, math.ceil(n_batches / max(1, 4 * n_workers))))
    step = per * batch_size
    return [slice(start, min(start + step, n_texts)) for start in range(0, n_texts, step)]


def _store(store: EmbeddingCache | None, namespace: str, texts: list[str], block: np.ndarray, vectors: dict) -> None:
    for text, vector in zip(texts, block):
        vectors[text] = vector
    if store is not None:
        store.put_many(namespace, texts, block)


def run_partitions(
    client, remaining, model, precision, batch_size, device, max_tokens, store, namespace, vectors, on_done=None
) -> None:
    """Embed ``remaining`` (in [`embed`][icml_topics.embed]'s order) on ``client``'s workers, whole batches per partition;
    ``on_done(n)`` is called as each partition of ``n`` texts comes back (progress)."""
    from distributed import as_completed

    if not remaining:
        return
    workers = client.scheduler_info().get("workers", {})
    if not workers:
        client.wait_for_workers(1, timeout=120)
        workers = client.scheduler_info().get("workers", {})
    client.register_plugin(ModelPlugin(model, device), name=ModelPlugin.name)
    parts = partition_batches(len(remaining), batch_size, len(workers))
    logger.info("embedding %d texts on %d Dask workers in %d partitions", len(remaining), len(workers), len(parts))
    futures = {
        client.submit(
            encode_partition,
            remaining[p],
            model,
            precision,
            batch_size,
            device,
            max_tokens,
            pure=False,
            key=f"icml-topics-embed-{i}-{time.time_ns()}",
        ): p
        for i, p in enumerate(parts)
    }
    for future in as_completed(futures):
        part = remaining[futures[future]]
        _store(store, namespace, part, future.result(), vectors)  # keep progress as it comes
        if on_done is not None:
            on_done(len(part))

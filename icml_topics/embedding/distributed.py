"""Embed a corpus on a Dask cluster (``dask.distributed``) with the same vectors as :func:`embed`.

The driver (this process) does what :func:`embed` does before embedding: normalises and de-duplicates
the texts, answers what it can from the embedding cache (cached texts are never sent to a worker),
sorts the rest longest first and, for ``precision="auto"``, picks the precision path exactly as
``embed`` does (same guard sample, same decision file). The remaining texts are cut into the very
batches ``embed`` would use, and whole batches are grouped into partitions, so every text is embedded
in the same batch, hence padded to the same length, as on one machine: the vectors are bit-identical
(padding changes bf16 vectors by up to 1e-3, so this matters). Each worker loads the model once (a
worker plugin) and embeds its partitions through the public :func:`embed` on the chosen precision
path. The driver writes every finished partition into the embedding cache, so an interrupted run
keeps its progress and a later single-machine run reuses the vectors. A worker lost mid-run costs only
its partitions: the scheduler runs them again elsewhere.

Example:
    >>> from distributed import Client, LocalCluster
    >>> client = Client(LocalCluster(n_workers=2, threads_per_worker=1))    # doctest: +SKIP
    >>> vectors = embed_distributed(texts, client=client)                   # doctest: +SKIP
    >>> with cluster_client(workers=2) as client:                           # doctest: +SKIP
    ...     TopicMap(client=client).fit("papers.jsonl")
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from distributed.diagnostics.plugin import WorkerPlugin

from icml_topics.errors import InvalidValueError

from .cache import EmbeddingCache
from .models import ModelSpec, load_model
from .pipeline import embed

__all__ = ["ModelPlugin", "cluster_client", "embed_distributed", "partition_batches", "run_partitions"]

logger = logging.getLogger("icml_topics")

MAX_PARTITION_BATCHES = 16
"""At most this many batches (of ``batch_size`` texts) per partition: a lost worker costs little."""


class ModelPlugin(WorkerPlugin):
    """Dask worker plugin: load the embedding model once per worker, when the worker starts.

    Registered by :func:`embed_distributed`; a worker that joins later (or a restarted one) loads it too.
    ``load_model`` keeps the model for the life of the worker process, so every partition reuses it.
    """

    name = "icml-topics-embedding-model"

    def __init__(self, model: ModelSpec = None, device: str | None = None) -> None:
        self.model = model
        self.device = device

    def setup(self, worker: Any) -> None:
        load_model(self.model, device=self.device)

    def teardown(self, worker: Any) -> None:  # nothing to release: the process ends
        pass


def _embed_partition(
    texts: list[str], model: ModelSpec, precision: str, batch_size: int, device: str | None, max_tokens: int | None
) -> np.ndarray:
    """Runs on a worker: one partition through the public ``embed`` (no cache there; the driver keeps it)."""
    options = {"batch_size": batch_size, "precision": precision, "device": device, "max_tokens": max_tokens}
    return embed(texts, model, cache=False, show_progress_bar=False, **options)


def partition_batches(
    n_texts: int, batch_size: int, n_workers: int, max_batches: int = MAX_PARTITION_BATCHES
) -> list[slice]:
    """Cut ``n_texts`` (already in embedding order) into partitions of whole batches.

    About four partitions per worker (so work balances), at most ``max_batches`` batches each; only the
    last partition may end in a short batch, exactly where :func:`embed`'s last batch ends.

        >>> partition_batches(100, 32, 2)
        [slice(0, 32, None), slice(32, 64, None), slice(64, 96, None), slice(96, 100, None)]
    """
    n_batches = math.ceil(n_texts / batch_size)
    per = max(1, min(max_batches, math.ceil(n_batches / max(1, 4 * n_workers))))
    step = per * batch_size
    return [slice(start, min(start + step, n_texts)) for start in range(0, n_texts, step)]


def embed_distributed(texts: Sequence[str], model: ModelSpec = None, *, client: Any, **kwargs: Any) -> np.ndarray:
    """:func:`embed` with the forward passes on the workers of a Dask ``client``; same arguments, same vectors.

    The driver reads the cache (cached texts are never sent), picks the precision path, cuts the rest
    into :func:`embed`'s own batches and writes each finished partition into the cache.

        >>> with cluster_client(workers=2) as client:     # doctest: +SKIP
        ...     vectors = embed_distributed(texts, client=client)
    """
    return embed(texts, model, client=client, **kwargs)


def _store(store: EmbeddingCache | None, namespace: str, texts: list[str], block: np.ndarray, vectors: dict) -> None:
    for text, vector in zip(texts, block):
        vectors[text] = vector
    if store is not None:
        store.put_many(namespace, texts, block)


def run_partitions(
    client, remaining, model, precision, batch_size, device, max_tokens, store, namespace, vectors
) -> None:
    """Embed ``remaining`` (in :func:`embed`'s order) on ``client``'s workers, whole batches per partition."""
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
            _embed_partition,
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
        _store(store, namespace, remaining[futures[future]], future.result(), vectors)  # keep progress as it comes


@contextlib.contextmanager
def cluster_client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A ``distributed.Client``: connected to ``scheduler`` (an address such as ``tcp://host:8786``), or to a
    new ``LocalCluster`` of ``workers`` processes (one thread each) on this machine, closed on exit.

        >>> with cluster_client(workers=2) as client:     # doctest: +SKIP
        ...     vectors = embed_distributed(texts, client=client)
    """
    from distributed import Client, LocalCluster

    if (scheduler is None) == (workers is None):
        raise InvalidValueError(
            "give either a scheduler address (--scheduler tcp://host:8786) or a number of local workers (--workers 2)"
        )
    if workers is not None and workers < 1:
        raise InvalidValueError(f"--workers must be at least 1, got {workers}")
    if scheduler is not None:
        with Client(scheduler) as client:
            yield client
        return
    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        yield client

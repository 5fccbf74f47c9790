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
import os
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from distributed.diagnostics.plugin import WorkerPlugin

from .cache import EmbeddingCache, normalize_text
from .models import (
    ModelSpec,
    embedding_dimension,
    known_identity,
    load_model,
    model_identity,
    remember_identity,
)
from .pipeline import (
    EmbeddingRunInfo,
    _check_texts,
    _choose_precision,
    _resolve_cache,
    embed,
)
from .precision import Precision, validate_precision

__all__ = ["ModelPlugin", "cluster_client", "embed_distributed", "last_distributed_run_info", "partition_batches"]

logger = logging.getLogger("icml_topics")

MAX_PARTITION_BATCHES = 16
"""At most this many batches (of ``batch_size`` texts) per partition: a lost worker costs little."""

_last_run: EmbeddingRunInfo | None = None


def last_distributed_run_info() -> EmbeddingRunInfo | None:
    """What the last :func:`embed_distributed` call in this process did (``None`` before the first)."""
    return _last_run


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


def _embed_partition(texts: list[str], model: ModelSpec, precision: str, batch_size: int, device: str | None) -> np.ndarray:
    """Runs on a worker: one partition through the public ``embed`` (no cache there; the driver keeps it)."""
    return embed(texts, model, batch_size=batch_size, cache=False, precision=precision, device=device,
                 show_progress_bar=False)


def partition_batches(n_texts: int, batch_size: int, n_workers: int, max_batches: int = MAX_PARTITION_BATCHES) -> list[slice]:
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


def embed_distributed(
    texts: Sequence[str],
    model: ModelSpec = None,
    *,
    client: Any,
    batch_size: int = 32,
    cache: bool | str | os.PathLike[str] | EmbeddingCache | None = True,
    precision: Precision = "auto",
    device: str | None = None,
) -> np.ndarray:
    """:func:`embed` with the forward passes on the workers of a Dask ``client``; same arguments, same vectors.

    Args:
        texts, model, batch_size, cache, precision, device: as for :func:`embed`.
        client: a ``distributed.Client`` (see :func:`cluster_client`).

    Returns float32 ``(len(texts), dim)``, rows L2-normalised, identical to ``embed(texts, ...)``.
    """
    global _last_run
    started = time.perf_counter()
    items = _check_texts(texts)
    if batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size}")
    normalized = [normalize_text(t) for t in items]
    unique = list(dict.fromkeys(normalized))
    store, owned = _resolve_cache(cache)
    try:
        folder = store.path.parent if store is not None else None
        known = known_identity(model, folder)
        st = None
        if known is None:
            st = load_model(model, device=device)
            model_id, dim = model_identity(st), embedding_dimension(st)
            remember_identity(model, model_id, dim, folder)
            dev = str(st.device)
        else:
            model_id, dim = known
            from .models import resolve_device

            dev = resolve_device(device)
        validate_precision(precision, dev)
        namespace = model_id if precision in ("auto", "fp32") else f"{model_id}+{precision}"
        vectors: dict[str, np.ndarray] = {}
        if store is not None and unique:
            for text, vector in zip(unique, store.get_many(namespace, unique, dim=dim)):
                if vector is not None:
                    vectors[text] = vector
        n_from_cache = len(vectors)
        missing = sorted((t for t in unique if t not in vectors), key=len, reverse=True)  # embed()'s order

        used, guard_report, embed_seconds = "fp32", None, 0.0
        if missing:
            t0 = time.perf_counter()
            if st is None:
                st = load_model(model, device=device)
            used, guard_report, done = _choose_precision(st, dev, missing, precision, store)
            if done:  # embed() embeds the guard sample first, in fp32, as one batch: so do we
                _store(store, namespace, list(done), np.stack(list(done.values())), vectors)
            remaining = [t for t in missing if t not in done]
            _run_partitions(client, remaining, model, used, batch_size, device, store, namespace, vectors)
            embed_seconds = time.perf_counter() - t0

        out = np.empty((len(items), dim), dtype=np.float32)
        for row, text in enumerate(normalized):
            out[row] = vectors[text]
        info = EmbeddingRunInfo(
            n_texts=len(items), n_unique=len(unique), n_from_cache=n_from_cache, n_embedded=len(missing),
            model=model_id, precision=used, device=f"dask:{len(client.scheduler_info().get('workers', {}))} workers",
            seconds=time.perf_counter() - started, embed_seconds=embed_seconds,
            cache_path=str(store.path) if store is not None else None, guard=guard_report)
    finally:
        if owned and store is not None:
            store.close()
    _last_run = info
    if items:
        logger.log(logging.INFO if info.n_embedded else logging.DEBUG, info.summary())
    return out


def _store(store: EmbeddingCache | None, namespace: str, texts: list[str], block: np.ndarray, vectors: dict) -> None:
    for text, vector in zip(texts, block):
        vectors[text] = vector
    if store is not None:
        store.put_many(namespace, texts, block)


def _run_partitions(client, remaining, model, precision, batch_size, device, store, namespace, vectors) -> None:
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
        client.submit(_embed_partition, remaining[p], model, precision, batch_size, device, pure=False,
                      key=f"icml-topics-embed-{i}-{time.time_ns()}"): p
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
        raise ValueError("give either a scheduler address (--scheduler tcp://host:8786) or a number of local workers (--workers 2)")
    if workers is not None and workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    if scheduler is not None:
        with Client(scheduler) as client:
            yield client
        return
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        yield client

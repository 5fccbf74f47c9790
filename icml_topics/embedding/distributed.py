"""Embed a corpus on a Dask cluster (``dask.distributed``) with the same vectors as [`embed`][icml_topics.embed].

The driver (this process) does what [`embed`][icml_topics.embed] does before embedding: normalises and de-duplicates
the texts, answers what it can from the embedding cache (cached texts are never sent to a worker),
sorts the rest longest first and, for ``precision="auto"``, picks the precision path exactly as
``embed`` does (same guard sample, same decision file). The remaining texts are cut into the very
batches ``embed`` would use, and whole batches are grouped into partitions, so every text is embedded
in the same batch, hence padded to the same length, as on one machine: the vectors are bit-identical
(padding changes bf16 vectors by up to 1e-3, so this matters). Each worker loads the model once (a
worker plugin) and embeds its partitions through the public [`embed`][icml_topics.embed] on the chosen precision
path. The driver writes every finished partition into the embedding cache, so an interrupted run
keeps its progress and a later single-machine run reuses the vectors. A worker lost mid-run costs only
its partitions: the scheduler runs them again elsewhere.

Examples:
    >>> from distributed import Client, LocalCluster
    >>> client = Client(LocalCluster(n_workers=2, threads_per_worker=1))
    >>> vectors = embed_distributed(texts, client=client)
    >>> with cluster_client(workers=2) as client:
    ...     TopicMap(client=client).fit("papers.jsonl")
"""

from __future__ import annotations

import contextlib
import logging
import weakref
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from icml_topics.errors import InvalidValueError

from .models import ModelSpec
from .pipeline import embed
from .workers import MAX_PARTITION_BATCHES, ModelPlugin, encode_partition, partition_batches, run_partitions

__all__ = [
    "MAX_PARTITION_BATCHES",
    "ModelPlugin",
    "cluster_client",
    "embed_distributed",
    "encode_partition",
    "partition_batches",
    "release_cluster",
    "release_model",
    "run_partitions",
]


def embed_distributed(texts: Sequence[str], model: ModelSpec = None, *, client: Any, **kwargs: Any) -> np.ndarray:
    """[`embed`][icml_topics.embed] with the forward passes on the workers of a Dask ``client``; same arguments, same vectors.

    The driver reads the cache (cached texts are never sent), picks the precision path, cuts the rest
    into [`embed`][icml_topics.embed]'s own batches and writes each finished partition into the cache.

        >>> with cluster_client(workers=2) as client:
        ...     vectors = embed_distributed(texts, client=client)
    """
    return embed(texts, model, client=client, **kwargs)


#: clients of the clusters this library started itself (``cluster_client(workers=N)``: the CLI's ``--workers``):
#: only their workers are restarted by ``release_model``; a user's cluster is never restarted
_STARTED_HERE: weakref.WeakSet = weakref.WeakSet()
#: clients of the clusters started here for one fit (``cluster_client(workers=N, one_fit=True)``: the CLI's
#: ``--workers``): ``release_cluster`` closes them after the fit's last use of the workers
_ONE_FIT: weakref.WeakSet = weakref.WeakSet()


def release_model(client: Any) -> bool:
    """Unload the embedding model from ``client``'s workers (unregisters ``ModelPlugin``, whose teardown frees
    it): a fit calls it once its documents are embedded, so the workers do not hold the model (~0.7 GB each)
    idle through the map, the themes and the tree, whose consensus they then build light. Unloading gives back
    only the weights (~0.1 GB; the libraries stay mapped), so on a cluster this library started
    (``cluster_client(workers=N)``, the CLI's ``--workers``) a worker that holds no data and runs no task is then
    restarted by its nanny (a fresh process, ~0.2 GB). A user's cluster (``TopicMap(client=...)``, ``--scheduler``)
    is never restarted: its workers may hold the user's own state. A later ``embed_distributed`` loads the model
    again. Returns whether a model was registered.

        >>> with cluster_client(workers=2) as client:  # doctest: +SKIP
        ...     vectors = embed_distributed(texts, client=client)
        ...     release_model(client)
    """
    try:
        client.unregister_worker_plugin(ModelPlugin.name)
    except ValueError:  # nothing registered: every text came from the cache
        return False
    if client in _STARTED_HERE:
        _restart_idle_workers(client)
    return True


def release_cluster(client: Any) -> bool:
    """Close ``client`` and its cluster when ``cluster_client(workers=N, one_fit=True)`` started it for one fit
    (the CLI's ``--workers``): the fit calls it after its last use of the workers (each theme's consensus tree), so
    they are not held idle through the keyphrases, the names and the outputs. Any other client (a user's cluster:
    ``TopicMap(client=...)``, ``--scheduler``; or a ``cluster_client`` without ``one_fit``) is left as it is.
    Returns whether a cluster was closed.

        >>> with cluster_client(workers=2, one_fit=True) as client:  # doctest: +SKIP
        ...     TopicMap(client=client).fit("papers.jsonl")  # closes the cluster once the tree's levels are built
    """
    if client is None or client not in _ONE_FIT:
        return False
    _ONE_FIT.discard(client)
    cluster = client.cluster
    client.close()
    if cluster is not None:
        cluster.close()
    return True


#: seconds a worker may take to restart (Dask's default, 30, is too short on a busy machine: the scheduler then
#: closes the worker's nanny and the worker never comes back, measured at load 12-17 on 2 cores)
RESTART_TIMEOUT_S = 300


def _restart_idle_workers(client: Any) -> None:
    """Restart (through their nannies) the workers of ``client`` that hold no data and run no task."""
    busy = {w for w, keys in client.has_what().items() if keys} | {w for w, keys in client.processing().items() if keys}
    idle = [w for w in client.scheduler_info().get("workers", {}) if w not in busy]
    if not idle:
        return
    nanny = logging.getLogger("distributed.nanny")  # no "Restarting worker" warning in a fit's output
    level = nanny.level
    nanny.setLevel(logging.ERROR)
    try:
        with contextlib.suppress(Exception):  # a worker without a nanny cannot restart: it keeps its libraries
            client.restart_workers(idle, timeout=RESTART_TIMEOUT_S, raise_for_error=False)
    finally:
        nanny.setLevel(level)


@contextlib.contextmanager
def cluster_client(scheduler: str | None = None, workers: int | None = None, *, one_fit: bool = False) -> Iterator[Any]:
    """A ``distributed.Client``: connected to ``scheduler`` (an address such as ``tcp://host:8786``), or to a
    new ``LocalCluster`` of ``workers`` processes (one thread each) on this machine, closed on exit (only such a
    cluster, started here, has its idle workers restarted by ``release_model``; with ``one_fit``, it serves one fit,
    which closes it after its last use of the workers: ``release_cluster``).

        >>> with cluster_client(workers=2) as client:
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
        _STARTED_HERE.add(client)
        if one_fit:
            _ONE_FIT.add(client)
        yield client

"""Distributed embedding on a real Dask LocalCluster (2 worker processes): same vectors as ``embed``,
the embedding cache filled by the driver, and a killed worker changes nothing. That ``fit --workers 2`` writes
the same documents.csv as the single-process fit, each with fresh caches, is
``tests/reliability/test_rel_embedding_choice.py``'s test."""

from __future__ import annotations

import itertools
import json
import os

import cloudpickle
import numpy as np
import pytest
from distributed.diagnostics.plugin import WorkerPlugin

from icml_topics.embedding import embed, last_run_info
from icml_topics.embedding.distributed import (
    embed_distributed,
    partition_batches,
)

cloudpickle.register_pickle_by_value(__import__(__name__))  # the plugin below travels to the workers by value


@pytest.fixture(scope="module")
def client(dask_client):
    return dask_client


@pytest.fixture(scope="module")
def texts() -> list[str]:
    from pathlib import Path

    import icml_topics

    bundled = Path(icml_topics.__file__).parent / "data" / "icml-2026-seed-abstracts.jsonl"
    rows = [json.loads(line) for line in bundled.read_text(encoding="utf-8").splitlines() if line.strip()]
    # abstracts cut to different lengths, so batches pad differently (padding is what could change vectors)
    return [" ".join(r["abstract"].split()[: 12 + (7 * i) % 140]) for i, r in enumerate(rows)]


def test_partitions_are_whole_batches():
    parts = partition_batches(1000, 32, 2)
    assert parts[0].start == 0 and parts[-1].stop == 1000
    assert all(p.stop - p.start == parts[0].stop for p in parts[:-1]) and parts[0].stop % 32 == 0
    assert all(a.stop == b.start for a, b in itertools.pairwise(parts))


def test_same_vectors_as_embed_and_cache_is_shared(client, texts, tmp_path):
    reference = embed(texts, cache=tmp_path / "single", batch_size=8)
    vectors = embed_distributed(texts + texts[:3], client=client, cache=tmp_path / "dist", batch_size=8)
    info = last_run_info()
    assert info.n_embedded == len(set(texts)) and info.n_from_cache == 0
    assert np.array_equal(vectors[: len(texts)], reference)  # bit-identical, not just close
    assert np.array_equal(vectors[len(texts) :], reference[:3])

    # the driver wrote them to the cache: a single-machine run and a second distributed run embed nothing
    again = embed(texts, cache=tmp_path / "dist", batch_size=8)
    assert last_run_info().n_embedded == 0 and np.array_equal(again, reference)
    embed_distributed(texts, client=client, cache=tmp_path / "dist", batch_size=8)
    assert last_run_info().n_embedded == 0


class _KillOnce(WorkerPlugin):
    """Kills the worker process the first time any worker starts an embedding partition."""

    def __init__(self, flag: str) -> None:
        self.flag = flag

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and "icml-topics-embed" in str(key):
            try:
                fd = os.open(self.flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            os._exit(1)


def test_killed_worker_changes_nothing(client, texts, tmp_path):
    flag = tmp_path / "killed"
    reference = embed(texts, cache=False, batch_size=4)
    client.register_plugin(_KillOnce(str(flag)), name="kill-once")
    try:
        vectors = embed_distributed(texts, client=client, cache=False, batch_size=4)
    finally:
        client.unregister_worker_plugin("kill-once")
    assert flag.exists(), "no worker was killed: the test did not test anything"
    assert np.array_equal(vectors, reference)

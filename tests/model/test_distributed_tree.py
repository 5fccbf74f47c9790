"""The tree stage on a real Dask LocalCluster (2 worker processes, issue 51): each theme's consensus tree is a
task on the workers with the same levels as one process, a fit given a client writes the same documents as
one without, and once the documents are embedded the workers no longer hold the embedding model (restarted only
on a cluster the library started: a user's cluster keeps its workers). The cluster ``fit --workers`` starts is
closed once the themes' trees are built, not held through the rest of the fit: that check, on 2,000 papers, is in
``tests/model/test_large_fit.py``, which compares the cluster's fit with the one-process fit of the large-corpus
paths made there (so the 2,000 papers are fitted in one process once in the suite)."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from distributed import get_task_stream

from icml_topics import TopicMap
from icml_topics.embedding.distributed import embed_distributed, release_model
from icml_topics.stages.distributed import map_over
from icml_topics.stages.hierarchy import HierarchySettings, fit_levels


@pytest.fixture(scope="module")
def client(dask_client):
    return dask_client


def _theme_tasks(stream) -> int:
    return sum("one_theme" in str(task["key"]) for task in stream.data)


def test_each_themes_consensus_runs_on_the_workers_with_the_same_levels(client):
    rng = np.random.default_rng(3)
    centres = rng.standard_normal((30, 24))
    emb = centres[rng.integers(0, 30, 900)] + 0.5 * rng.standard_normal((900, 24))
    themes = np.array([f"theme {i % 4}" for i in range(890)] + [None] * 10, dtype=object)
    settings = HierarchySettings(("topic", "subtopic"), (60, 15), runs=4)
    here = fit_levels(emb, themes, settings)
    with get_task_stream(client) as stream:
        there = fit_levels(emb, themes, settings, client=client)
    assert _theme_tasks(stream) == 4  # one task a theme, run by the workers
    assert np.array_equal(here[0], there[0]) and here[1] == there[1]
    assert [list(s) for s in here[2]] == [list(s) for s in there[2]]
    np.testing.assert_array_equal(
        np.array([v for s in here[2] for v in s.values()]), np.array([v for s in there[2] for v in s.values()])
    )


def test_a_fit_given_a_client_writes_the_same_documents(client, fitted, real_sample, tmp_path):
    """The 240 real papers and their vectors, fresh caches (so the tree is computed, not read): the tree's
    consensus on the workers, every table as the fit in one process."""
    with get_task_stream(client) as stream:
        tm = TopicMap(random_state=0, client=client, cache=tmp_path).fit(real_sample, embeddings=fitted.embeddings_)
    assert _theme_tasks(stream) >= 3
    pd.testing.assert_frame_equal(tm.documents_, fitted.documents_)
    pd.testing.assert_frame_equal(tm.topic_tree_, fitted.topic_tree_)


def _worker_rss(client) -> list[int]:
    import psutil

    return list(client.run(lambda: psutil.Process().memory_info().rss).values())


def _models_loaded(client) -> list[int]:
    from icml_topics.embedding.models import loaded_models

    return list(client.run(lambda: len(loaded_models())).values())


def _markers(client) -> list[object]:
    return list(client.run(lambda dask_worker: getattr(dask_worker, "users_marker", None)).values())


def test_a_users_cluster_keeps_its_workers_and_their_state_after_a_fit(client, tmp_path):
    """A client the user passed (``TopicMap(client=...)``): once the documents are embedded on its workers,
    the model is unloaded there, but no worker is restarted, so what the user keeps on them survives the fit."""
    from conftest import BUNDLED_SEEDS

    def mark(dask_worker, value=None):
        dask_worker.users_marker = value

    client.run(mark, value="the user's state")
    scattered = client.scatter(np.arange(10), broadcast=False)
    tm = TopicMap(random_state=0, client=client, cache=tmp_path).fit(BUNDLED_SEEDS)  # fresh cache: embeds there
    assert len(tm.documents_) == 38
    assert _markers(client) == ["the user's state"] * 2  # no worker was restarted
    assert scattered.result().tolist() == list(range(10))
    assert _models_loaded(client) == [0, 0]  # yet the model was unloaded from them


def test_a_cluster_started_here_gives_the_models_memory_back_once_the_documents_are_embedded():
    """The CLI's ``--workers``: a cluster this library started; its idle workers are restarted once the model is
    unloaded, so each gives back the model and its libraries."""
    from icml_topics.embedding.distributed import cluster_client

    texts = [f"Graph neural networks for molecule {i} property prediction." for i in range(64)]
    with cluster_client(workers=2) as here:
        first = embed_distributed(texts, client=here, cache=False, batch_size=8)
        assert _models_loaded(here) == [1, 1]
        held = _worker_rss(here)
        assert release_model(here)
        assert _models_loaded(here) == [0, 0]
        freed = [a - b for a, b in zip(held, _worker_rss(here), strict=True)]
        assert min(freed) > 200 * 2**20, freed  # each worker gave back the model and its libraries (~0.68 -> 0.21 GB)
        again = embed_distributed(texts, client=here, cache=False, batch_size=8)  # loaded again when needed
        assert np.array_equal(first, again)
        assert release_model(here) and not release_model(here)  # nothing left to release


def test_map_over_gives_each_items_result_in_the_items_order_here_and_on_the_workers(client):
    items = [(2, 10), (3, 4), (7, 2), (5, 3)]
    ran_here: list[int] = []
    assert map_over(pow, items, each=ran_here.append) == [1024, 81, 49, 125]
    assert ran_here == [0, 1, 2, 3]
    with get_task_stream(client) as stream:  # the last item first on the workers, yet gathered in the items' order
        there = map_over(pow, iter(items), client, priority=[0, 1, 2, 3], each=ran_here.append)
    assert there == [1024, 81, 49, 125]
    assert ran_here == [0, 1, 2, 3]  # ``each`` is for the items run here
    assert sum("pow" in str(task["key"]) for task in stream.data) == 4


def test_the_clis_cluster_is_the_one_a_fit_closes_and_a_users_is_not():
    """``fit --workers N`` (``workflows.fit_cluster``) starts a cluster for one fit: ``release_cluster`` closes it (its
    worker processes end); a cluster started without ``one_fit`` (a user's ``cluster_client``) stays open."""
    from icml_topics.embedding.distributed import cluster_client, release_cluster
    from icml_topics.workflows import fit_cluster

    with cluster_client(workers=1) as users:
        assert not release_cluster(users) and not release_cluster(None)
        assert users.submit(sum, [1, 2]).result() == 3
    with fit_cluster(None, 2) as clis:
        workers = list(clis.run(os.getpid).values())
        assert len(workers) == 2 and clis.submit(sum, [1, 2]).result() == 3
        assert release_cluster(clis) and not release_cluster(clis)
        assert clis.status == "closed" and clis.cluster.status.name == "closed"
        assert not [pid for pid in workers if _alive(pid)]  # the worker processes ended


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_map_over_runs_here_when_the_cluster_has_no_worker(monkeypatch, caplog):
    """A task on a cluster without a worker waits for ever (restarted workers that never came back did that to a
    fit): after ``WORKER_WAIT_S`` the items run in this process, with a warning."""
    from distributed import Client, LocalCluster

    import icml_topics.stages.distributed as dist

    monkeypatch.setattr(dist, "WORKER_WAIT_S", 2.0)
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as empty, Client(empty) as nobody:
        assert map_over(pow, [(2, 5), (3, 3)], nobody) == [32, 27]
    assert "no worker after 2 s" in caplog.text

"""The test suite's own set-up: under pytest-xdist each worker's thread pools hold its share of the CPUs
(``conftest.pytest_configure``), read by every pool as it loads (set in the controller, before any worker
imports numpy, torch or numba)."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest
from conftest import THREAD_VARIABLES, pytest_configure


def test_the_controller_gives_each_worker_its_share_of_the_cpus(monkeypatch):
    for name in THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")  # set by the user: kept
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3, 4})
    pytest_configure(SimpleNamespace(option=SimpleNamespace(tx=["popen"] * 2)))
    assert [os.environ[name] for name in THREAD_VARIABLES] == ["2", "3", "2", "2"]
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    monkeypatch.delenv("OMP_NUM_THREADS")
    pytest_configure(SimpleNamespace(option=SimpleNamespace(tx=["popen"] * 4)))
    assert os.environ["OMP_NUM_THREADS"] == "1"  # never zero
    monkeypatch.delenv("OMP_NUM_THREADS")
    pytest_configure(SimpleNamespace(option=SimpleNamespace(tx=[])))  # no xdist: nothing set
    pytest_configure(SimpleNamespace(option=SimpleNamespace(tx=["popen"] * 2), workerinput={}))  # a worker
    assert "OMP_NUM_THREADS" not in os.environ


def test_an_xdist_workers_pools_hold_the_threads_it_was_given():
    if not os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
        pytest.skip("run without pytest-xdist: the pools keep their defaults")
    import numba
    import numpy as np
    import threadpoolctl
    import torch

    np.ones((64, 64)) @ np.ones((64, 64))  # OpenBLAS loaded and used
    assert torch.get_num_threads() == int(os.environ["OMP_NUM_THREADS"])
    assert numba.get_num_threads() == int(os.environ["NUMBA_NUM_THREADS"])
    blas = [p for p in threadpoolctl.threadpool_info() if p["internal_api"] == "openblas"]
    assert blas and all(p["num_threads"] == int(os.environ["OPENBLAS_NUM_THREADS"]) for p in blas), blas

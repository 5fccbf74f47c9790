"""A call run in a child process (``icml_topics._background``): the map drawn there is the map drawn here, and a
child never outlives its use (failed, cancelled, or its parent killed)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from icml_topics._background import BackgroundFailed, start_call
from icml_topics.fit_config import FitConfig
from icml_topics.fitting import map_coordinates, map_is_cached

HERE = Path(__file__).resolve().parent


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").exists() or Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def warn_and_return(value: int) -> int:
    """A target for the child: one library warning, one foreign stderr line."""
    logging.getLogger("icml_topics").warning("half the papers have no year")
    print("some other package's chatter", file=sys.stderr)
    return value * 2


def test_result_is_the_calls_value_and_its_folder_is_removed():
    call = start_call("math:hypot", 3.0, 4.0)
    assert call.result() == 5.0
    assert not call.folder.exists()


def test_a_failing_call_raises_background_failed_with_the_childs_error():
    call = start_call("json:loads", "{not json")
    with pytest.raises(BackgroundFailed, match="JSONDecodeError"):
        call.result()
    assert not call.folder.exists()


def test_arguments_that_cannot_be_pickled_fail_before_any_child_starts():
    with pytest.raises(BackgroundFailed, match="cannot run in a child process"):
        start_call("math:hypot", lambda: 1)


def test_cancel_stops_a_running_child():
    call = start_call("time:sleep", 120)
    time.sleep(0.5)
    call.cancel()
    assert call.process.poll() is not None and not call.folder.exists()


def test_library_warnings_reach_this_process_and_other_stderr_does_not(monkeypatch, caplog):
    monkeypatch.setenv("PYTHONPATH", str(HERE))
    with caplog.at_level(logging.DEBUG, logger="icml_topics"):
        assert start_call("test_rel_background:warn_and_return", 21).result() == 42
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == ["half the papers have no year"]


def test_the_child_ends_when_its_parent_is_killed(tmp_path):
    parent = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent("""
            import sys, time
            from icml_topics._background import start_call
            call = start_call("time:sleep", 120)
            print(call.process.pid, call.folder, flush=True)
            time.sleep(120)
        """)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    pid, folder = parent.stdout.readline().split()
    child = int(pid)
    assert _alive(child) and Path(folder).is_dir()
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 15
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(child)
    assert not Path(folder).exists()  # the child removed its folder: the killed parent could not


def test_the_map_drawn_in_a_child_is_the_map_drawn_here(tmp_path):
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(8, 32))
    emb = centres[rng.integers(0, 8, 2_100)] + 0.5 * rng.normal(size=(2_100, 32))
    emb = (emb / np.linalg.norm(emb, axis=1, keepdims=True)).astype(np.float32)
    config = FitConfig.from_params({"reducer": "umap", "random_state": 7})
    here = map_coordinates(emb, config)
    there = start_call("icml_topics.fitting:map_in_child", emb, config, None).result()
    assert there.shape == (2_100, 2) and np.array_equal(here, there)


def test_map_is_cached_once_the_reduction_is_written(tmp_path):
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(300, 16)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    config = FitConfig.from_params({"reducer": "umap", "random_state": 1, "cache": str(tmp_path)})
    assert config.reductions_dir is not None and not map_is_cached(emb, config)
    map_coordinates(emb, config)
    assert map_is_cached(emb, config)
    other_seed = FitConfig.from_params({"reducer": "umap", "random_state": 2, "cache": str(tmp_path)})
    assert not map_is_cached(emb, other_seed)

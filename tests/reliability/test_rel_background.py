"""The fit's one background worker (``icml_topics._background``): the map drawn there is the map drawn here, a
wait never blocks for ever (a stopped worker is given up and the call computed here, with one info line), and
the worker never outlives its use (closed, failed, or its parent killed)."""

from __future__ import annotations

import json
import logging
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from icml_topics import _background
from icml_topics._background import Background, sweep_legacy_folders
from icml_topics.fit_config import FitConfig
from icml_topics.fitting import map_coordinates, map_settings
from icml_topics.stages.map2d import draw_map, map_is_cached


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().rsplit(")", 1)[-1].split()[0] != "Z"


def _gone(pid: int, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    return not _alive(pid)


def test_result_is_the_calls_value_and_close_ends_the_worker():
    worker = Background()
    job = worker.submit("a hypotenuse", math.hypot, 3.0, 4.0)
    assert job.result() == 5.0
    pid = worker._worker_pid()
    assert pid is not None and pid != os.getpid()
    worker.close()
    assert _gone(pid)


def test_a_finished_worker_ends_with_its_last_job_and_its_results_stay_readable(caplog):
    """The map is the worker's last job: the worker must not hold its memory through the rest of the fit."""
    worker = Background()
    first = worker.submit("a sleep", time.sleep, 1.0)
    last = worker.submit("a hypotenuse", math.hypot, 3.0, 4.0)
    pid = worker._pid.result(timeout=60)  # the worker has started
    worker.finish()
    assert _alive(pid)  # still busy with the queued jobs
    assert _gone(pid)  # ends once they are done, before anyone reads a result or closes it
    assert first.result() is None and last.result() == 5.0
    with caplog.at_level(logging.INFO, logger="icml_topics"):
        later = worker.submit("a late job", math.hypot, 6.0, 8.0)
    assert later.result() == 10.0  # computed here, said once
    assert any("a late job is computed in this process" in r.getMessage() for r in caplog.records)
    worker.close()


def test_a_failing_call_is_computed_here_and_raises_its_own_error(caplog):
    worker = Background()
    with caplog.at_level(logging.INFO, logger="icml_topics"):
        job = worker.submit("reading some JSON", json.loads, "{not json")
        with pytest.raises(json.JSONDecodeError):
            job.result()
    said = [r.getMessage() for r in caplog.records if "reading some JSON" in r.getMessage()]
    assert len(said) == 1 and "computed in this process" in said[0] and "JSONDecodeError" in said[0]


def test_a_stopped_worker_is_given_up_and_the_call_computed_here(monkeypatch, caplog):
    """Issue 48: a child stopped with SIGSTOP made the parent wait for ever. Now the wait watches the
    worker's CPU time: no progress for STALL_SECONDS and the call runs here, with one line saying why."""
    monkeypatch.setattr(_background, "STALL_SECONDS", 2.0)
    worker = Background()
    job = worker.submit("a short nap", time.sleep, 0.2)
    pid = None
    deadline = time.monotonic() + 60
    while pid is None and time.monotonic() < deadline:
        pid = worker._worker_pid()
        time.sleep(0.05)
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        with caplog.at_level(logging.INFO, logger="icml_topics"):
            assert job.result() is None
        assert time.monotonic() - started < 30
    finally:
        os.kill(pid, signal.SIGCONT) if _alive(pid) else None
    said = " ".join(r.getMessage() for r in caplog.records)
    assert f"worker process (pid {pid}) has used no CPU" in said and "a short nap is computed in this process" in said
    assert _gone(pid)  # given up: killed, not left stopped


def test_switched_off_no_worker_starts_and_it_is_said_once(monkeypatch, caplog):
    monkeypatch.setenv("ICML_TOPICS_BACKGROUND", "0")
    monkeypatch.setattr(_background, "_said", set())
    worker = Background()
    with caplog.at_level(logging.INFO, logger="icml_topics"):
        jobs = [worker.submit("a hypotenuse", math.hypot, 3.0, 4.0) for _ in range(2)]
        assert [job.result() for job in jobs] == [5.0, 5.0]
    assert worker._pool is None
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert lines == ["a hypotenuse is computed in this process: worker processes are off (ICML_TOPICS_BACKGROUND=0)"]


def test_a_script_without_a_main_guard_gets_no_worker(tmp_path):
    """A spawned worker imports the main script again: one without ``if __name__ == "__main__":`` would run
    again there, so no worker starts for it (and it says so)."""
    script = tmp_path / "unguarded.py"
    script.write_text(
        textwrap.dedent("""
        import logging, math
        logging.basicConfig(level=logging.INFO, format="%(message)s")
        from icml_topics._background import Background
        worker = Background()
        print(worker.submit("a hypotenuse", math.hypot, 3.0, 4.0).result(), worker._pool is None, flush=True)
    """)
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["5.0", "True"]
    assert 'unguarded.py has no `if __name__ == "__main__":` guard' in done.stderr


def test_the_worker_ends_when_its_parent_is_killed():
    parent = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent("""
            import time
            from icml_topics._background import Background
            worker = Background()
            job = worker.submit("a long nap", time.sleep, 120)
            while worker._worker_pid() is None:
                time.sleep(0.05)
            print(worker._worker_pid(), flush=True)
            time.sleep(120)
        """)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    child = int(parent.stdout.readline())
    assert _alive(child)
    parent.kill()
    parent.wait()
    assert _gone(child)  # the worker watches its parent, even in the middle of a job


def test_legacy_call_folders_of_killed_runs_are_swept_and_recent_ones_kept(tmp_path):
    """Issue 48: a SIGKILL to the whole process group left ``icml-topics-call-*`` folders (pickled embeddings)
    that no later run removed."""
    old = tmp_path / "icml-topics-call-abc123"
    (old / "call.pkl").parent.mkdir()
    (old / "call.pkl").write_bytes(b"embeddings")
    recent = tmp_path / "icml-topics-call-def456"
    recent.mkdir()
    other = tmp_path / "someone-elses-folder"
    other.mkdir()
    hours_ago = time.time() - 2 * 3600
    for path in (old / "call.pkl", old, other):
        os.utime(path, (hours_ago, hours_ago))
    assert sweep_legacy_folders(tmp_path) == [old]
    assert not old.exists() and recent.is_dir() and other.is_dir()


def test_the_map_drawn_by_the_worker_is_the_map_drawn_here():
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(8, 32))
    emb = centres[rng.integers(0, 8, 2_100)] + 0.5 * rng.normal(size=(2_100, 32))
    emb = (emb / np.linalg.norm(emb, axis=1, keepdims=True)).astype(np.float32)
    config = FitConfig.from_params({"reducer": "umap", "random_state": 7, "cache": False})
    here = map_coordinates(emb, config)
    worker = Background()
    there = worker.submit("the 2-D map", draw_map, emb, map_settings(config), None).result()
    worker.close()
    assert there.shape == (2_100, 2) and np.array_equal(here, there)


def test_map_is_cached_once_the_reduction_is_written(tmp_path):
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(300, 16)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    config = FitConfig.from_params({"reducer": "umap", "random_state": 1, "cache": str(tmp_path)})
    assert config.reductions_dir is not None and not map_is_cached(emb, map_settings(config))
    map_coordinates(emb, config)
    assert map_is_cached(emb, map_settings(config))
    other_seed = FitConfig.from_params({"reducer": "umap", "random_state": 2, "cache": str(tmp_path)})
    assert not map_is_cached(emb, map_settings(other_seed))


def test_using_the_worker_again_in_one_process_adds_no_exit_handler():
    """Issue 50: each child registered an ``atexit`` handler, so they piled up across fits in one kernel."""
    import atexit

    def once() -> None:
        worker = Background()
        assert worker.submit("a hypotenuse", math.hypot, 3.0, 4.0).result() == 5.0
        worker.close()

    once()  # the standard library's own handlers, registered once per process at first use
    before = atexit._ncallbacks()
    once()
    once()
    assert atexit._ncallbacks() == before


def test_a_pending_field_is_resolved_before_the_first_stage_that_reads_it():
    """The one overlap seam of ``run_stages``: a field left pending by a stage is set before the first stage
    that declares it in ``reads``, never seen unset there; the worker ends once nothing is pending."""
    from icml_topics.fitting import FitRun, FitStage, run_stages

    seen = {}

    def leave_pending(run: FitRun) -> None:
        run.pending["coords"] = run.background.submit("a hypotenuse", math.hypot, 3.0, 4.0)

    def between(run: FitRun) -> None:
        seen["between"] = run.coords

    def reader(run: FitRun) -> None:
        seen["reader"] = run.coords
        seen["pool"] = run.background._pool

    run = FitRun(FitConfig.from_params({"random_state": 0}), embed=None, corpus=None)
    stages = [FitStage("map", leave_pending), FitStage("themes", between), FitStage("state", reader, reads=("coords",))]
    run_stages(run, stages)
    assert seen == {"between": None, "reader": 5.0, "pool": None} and run.pending == {}


def test_a_pending_field_computed_here_is_not_said_to_be_the_workers(monkeypatch):
    """With the worker off, the map left pending is computed in the fit's process: its step says so, not
    "waiting for the 2-D map (computed by the fit's worker process)"."""
    from icml_topics._progress import Stages
    from icml_topics.fitting import FitRun, FitStage, run_stages

    monkeypatch.setenv("ICML_TOPICS_BACKGROUND", "0")
    seen = {}

    def leave_pending(run: FitRun) -> None:
        run.pending["coords"] = run.background.submit("a hypotenuse", math.hypot, 3.0, 4.0)

    run = FitRun(FitConfig.from_params({"random_state": 0}), embed=None, corpus=None)
    logging.getLogger("icml_topics").addHandler(handler := logging.NullHandler())  # lines, not a bar
    try:
        with Stages(verbose=True, total=2) as stages:
            stages.start("the stages")
            run_stages(run, [FitStage("map", leave_pending), FitStage("state", lambda r: None, reads=("coords",))])
            seen["step"] = stages._step
    finally:
        logging.getLogger("icml_topics").removeHandler(handler)
    assert run.coords == 5.0 and seen["step"] == "computing the 2-D map"

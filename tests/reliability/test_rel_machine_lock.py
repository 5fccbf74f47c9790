"""Once-per-machine work, one process at a time: the lock itself (a waiting process, a killed holder, a
folder that cannot be made), the embedding-path decision made by the process waited for, numba's warm-up child
waiting for another's compilation instead of repeating it. Real processes, real file locks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from icml_topics._machine_lock import machine_lock
from icml_topics.embedding.paths import decide_path, decided_path, decision_file, decision_lock, save_decision
from icml_topics.embedding.precision import hardware_fingerprint
from icml_topics.stages import jit_warmup

HOLDER = """
import sys, time
from icml_topics._machine_lock import machine_lock
with machine_lock(sys.argv[1]) as held:
    print("held" if held else "unlocked", flush=True)
    {work}
    time.sleep(float(sys.argv[2]))
    open(sys.argv[1] + ".released", "w").close()  # the last thing done while holding it
"""


def hold(lock: Path, seconds: float, work: str = "pass", **env: str) -> subprocess.Popen:
    """A process that holds ``lock`` for ``seconds`` (after doing ``work``); returns once it holds it."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER.format(work=work), str(lock), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )
    assert process.stdout.readline().strip() == "held"
    return process


def test_a_second_process_waits_until_the_holder_is_done(tmp_path):
    lock = tmp_path / "locks" / "work.lock"
    holder = hold(lock, 1.5)
    with machine_lock(lock) as held:
        assert held
        assert Path(f"{lock}.released").exists(), "the lock was granted while the other process still held it"
    assert holder.wait(timeout=30) == 0


def test_a_killed_holder_releases_the_lock(tmp_path):
    holder = hold(tmp_path / "work.lock", 600)
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    with machine_lock(tmp_path / "work.lock") as held:
        assert held


def test_a_folder_that_cannot_exist_runs_the_work_unlocked(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    ran = []
    with machine_lock(tmp_path / "file" / "work.lock") as held:
        ran.append(held)
    assert ran == [False]


def test_an_error_inside_the_block_comes_out_as_it_is_and_the_lock_is_released(tmp_path):
    import fcntl

    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(PermissionError, match="raised inside"):  # unlocked (no lock file can be made)
        with machine_lock(tmp_path / "file" / "work.lock"):
            raise PermissionError("raised inside")
    lock = tmp_path / "work.lock"
    with pytest.raises(OSError, match="raised inside"):
        with machine_lock(lock):
            raise OSError("raised inside")
    with open(lock, "a+b") as other:  # a second open file: refused at once while the lock is still held
        fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_the_embedding_path_decided_by_the_process_waited_for_is_taken_without_a_guard(tmp_path, monkeypatch):
    """While another process holds the decision lock and records its decision, decide_path waits, then
    returns that decision; it vets nothing itself (it was given no model: a guard run would fail)."""
    monkeypatch.setenv("ICML_TOPICS_MACHINE_DIR", str(tmp_path))
    model_id, device = "all-MiniLM-L6-v2@0123456789abcdef0123", "cpu"
    assert decided_path(model_id, device) is None
    record = "from icml_topics.embedding.paths import save_decision; " + (
        f"time.sleep(1.0); save_decision({model_id + '|' + hardware_fingerprint(device)!r}, {{'precision': 'fp32-onnx'}})"
    )
    holder = hold(decision_lock(model_id, device), 0, work=record, ICML_TOPICS_MACHINE_DIR=str(tmp_path))
    assert decide_path(None, model_id, device) == ("fp32-onnx", None)
    assert holder.wait(timeout=30) == 0
    assert decision_file().parent == tmp_path and decision_lock(model_id, device).parent == tmp_path / "locks"


def test_a_decision_stored_before_the_lock_is_taken_is_also_used(tmp_path, monkeypatch):
    monkeypatch.setenv("ICML_TOPICS_MACHINE_DIR", str(tmp_path))
    model_id, device = "all-MiniLM-L6-v2@fedcba9876543210fedc", "cpu"
    save_decision(f"{model_id}|{hardware_fingerprint(device)}", {"precision": "int8"})
    assert decide_path(None, model_id, device) == ("int8", None)


def test_a_warm_up_child_waits_for_another_compiling_the_same_step_and_then_does_not_repeat_it(tmp_path):
    """The holder stands for a first process compiling UMAP into this numba cache: it writes the cache's index
    while holding the step's lock. A second process (``compile_umap``) waits for it, finds the step cached
    and compiles nothing."""
    index = tmp_path / "umap_7d4241dc" / "layouts.rdist-31.py311.nbi"  # as numba 0.68 names it
    env = {"NUMBA_CACHE_DIR": str(tmp_path)}
    lock = tmp_path / "icml-topics-warmup-umap.lock"
    work = f"import pathlib; time.sleep(1.0); pathlib.Path({str(index.parent)!r}).mkdir(); pathlib.Path({str(index)!r}).touch()"
    holder = hold(lock, 0, work=work, **env)
    done = subprocess.run(
        [sys.executable, "-c", "from icml_topics.stages import jit_warmup; jit_warmup.compile_umap(large=False)"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert holder.wait(timeout=30) == 0
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert files == [
        "icml-topics-warmup-umap.lock",
        "icml-topics-warmup-umap.lock.released",
        "umap_7d4241dc/layouts.rdist-31.py311.nbi",
    ], files


def test_each_step_has_its_own_lock_beside_numbas_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert {jit_warmup.step_lock(s) for s in jit_warmup.STEPS} == {tmp_path / "icml-topics-warmup-umap.lock"}
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    umap_lock = jit_warmup.step_lock("umap")
    assert umap_lock.parent.name == "__pycache__" and umap_lock.parent.parent.name == "umap"

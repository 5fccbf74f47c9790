"""A SIGKILL to a fit's whole process group (``timeout -s KILL``, a batch scheduler's cancel, the OOM killer) in
the middle of a stage, then a normal run: nothing of the killed run is left behind (issue 48: it left
``icml-topics-call-*`` folders in TMPDIR, one holding pickled embeddings, that no later run removed)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import psutil
import pytest
from _reliability_helpers import cli_env, seeded_cache

from icml_topics import TopicMap
from icml_topics.outputs import write_outputs

N_PAPERS = 2_100  # above the 2,000 from which the map is drawn by the background worker

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import pandas as pd
    from icml_topics import TopicMap
    from icml_topics.outputs import write_outputs

    if __name__ == "__main__":
        corpus, vectors, out = sys.argv[1:4]
        tm = TopicMap(random_state=0, verbose=False)
        tm.fit(pd.read_json(corpus, lines=True), embeddings=np.load(vectors),
               on_stage=lambda name, line: print(name, flush=True))
        write_outputs(tm, out, report=False, static_map=False)
        print("done", flush=True)
""")


def _clustered_vectors(n: int, dim: int = 384, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(24, dim))
    x = centres[rng.integers(0, 24, n)] + 0.8 * rng.normal(size=(n, dim))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _leftovers(tmp: Path, parent: Path) -> list[str]:
    called = [p.name for p in tmp.glob("icml-topics-call-*")]
    staged = [p.name for p in parent.iterdir() if p.name != "out" and ("out." in p.name or p.name.startswith(".out"))]
    return sorted(called + staged)


def test_a_killed_process_group_leaves_nothing_after_the_next_run(tmp_path, icml_frame, monkeypatch):
    rows = icml_frame[icml_frame["abstract"].fillna("").str.len() > 200].head(N_PAPERS)
    assert len(rows) == N_PAPERS
    corpus, vectors = tmp_path / "papers.jsonl", tmp_path / "vectors.npy"
    rows[["id", "title", "abstract", "year"]].to_json(corpus, orient="records", lines=True)
    np.save(vectors, _clustered_vectors(N_PAPERS))
    tmp, outputs = tmp_path / "tmp", tmp_path / "outputs"
    tmp.mkdir()
    outputs.mkdir()
    (tmp_path / "fit_script.py").write_text(SCRIPT)
    env = cli_env(seeded_cache(tmp_path / "cache"), TMPDIR=str(tmp))
    command = [sys.executable, str(tmp_path / "fit_script.py"), str(corpus), str(vectors), str(outputs / "out")]

    run = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)  # fmt: skip
    try:
        seen = []
        for line in run.stdout:  # wait for the themes stage: the map is then being drawn by the worker
            seen.append(line.strip())
            if line.strip() == "themes":
                break
        assert seen[-1:] == ["themes"], (seen, run.stderr.read()[-3000:] if run.poll() is not None else "")
        group = [run.pid, *(p.pid for p in psutil.Process(run.pid).children(recursive=True))]
        assert len(group) >= 2, "the map's worker process runs beside the fit"
        time.sleep(1.0)  # in the middle of the themes stage, the worker projecting
        os.killpg(run.pid, signal.SIGKILL)
        run.wait(timeout=30)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    assert run.returncode == -signal.SIGKILL
    deadline = time.monotonic() + 15
    while any(psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE for pid in group):
        assert time.monotonic() < deadline, "a process of the killed group still runs"
        time.sleep(0.2)
    assert _leftovers(tmp, outputs) == []  # this version writes no temporary folder to leave
    legacy = tmp / "icml-topics-call-k1ll3d"  # what an earlier version's killed run left: pickled embeddings
    legacy.mkdir()
    (legacy / "call.pkl").write_bytes(b"pickled embeddings")
    hours_ago = time.time() - 2 * 3600
    for path in (legacy / "call.pkl", legacy):
        os.utime(path, (hours_ago, hours_ago))

    # the next run: the same fit in this process, on the same cache and temporary folders (what the killed run
    # left is on disk; the kill above is the point of a process group, not this run, which would pay
    # BERTopic's import and a first fit's compiling again in a fresh interpreter)
    monkeypatch.setenv("TMPDIR", str(tmp))  # for the map's worker process
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))  # for this process (tempfile read TMPDIR once)
    monkeypatch.setenv("ICML_TOPICS_CACHE_DIR", env["ICML_TOPICS_CACHE_DIR"])
    tm = TopicMap(random_state=0, verbose=False).fit(pd.read_json(corpus, lines=True), embeddings=np.load(vectors))
    write_outputs(tm, outputs / "out", report=False, static_map=False)
    assert (outputs / "out" / "documents.csv").is_file()
    assert _leftovers(tmp, outputs) == [], "the next run leaves no folder of the killed one"
    assert not legacy.exists()


@pytest.fixture(autouse=True)
def _no_stray_children():
    """Whatever this test started is gone when it ends (multiprocessing's resource tracker, which the fit's worker
    needs and which lives as long as this process, is started first, so it is not killed with the rest)."""
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    yield
    for p in psutil.Process().children(recursive=True):
        if p.pid not in before:
            p.kill()

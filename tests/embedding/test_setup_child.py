"""The once-per-machine embedding setup in child processes, one alive at a time: the decision and export they
leave, and a process that then embeds without loading torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import psutil
from conftest import TEXTS

from icml_topics.embedding import embed, setup_child
from icml_topics.embedding.models import known_identity


def test_a_decided_machine_starts_no_child(tmp_path, monkeypatch):
    monkeypatch.delenv("ICML_TOPICS_SETUP_CHILD", raising=False)  # the default: a child where one is needed
    embed(TEXTS[:2], cache=tmp_path)  # decides (or reads) the path and records the model's identity there

    def no_child(*args, **kwargs):
        raise AssertionError("prepare started a process although the path was decided")

    monkeypatch.setattr(setup_child, "run_module", no_child)
    assert setup_child.prepare(None, device=None, cache=tmp_path) in {"int8", "fp32", "bf16", "fp32-onnx", "int8-ct2"}


def test_setup_child_off_leaves_the_setup_to_this_process(tmp_path, monkeypatch):
    monkeypatch.setenv("ICML_TOPICS_MACHINE_DIR", str(tmp_path / "machine"))  # an undecided machine
    monkeypatch.setenv("ICML_TOPICS_SETUP_CHILD", "0")

    def no_child(*args, **kwargs):
        raise AssertionError("prepare started a process although ICML_TOPICS_SETUP_CHILD=0")

    monkeypatch.setattr(setup_child, "run_module", no_child)
    assert setup_child.prepare(None, device=None, cache=tmp_path) is None


def _descendants(root: int) -> dict[int, str]:
    """Every living process below ``root``: pid -> command line."""
    found: dict[int, str] = {}
    try:
        children = psutil.Process(root).children(recursive=True)
    except psutil.NoSuchProcess:
        return found
    for child in children:
        try:
            found[child.pid] = " ".join(child.cmdline())
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


def _run_watching_children(command: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess, list]:
    """Run ``command``, sampling its descendants every 0.1 s: the result and every sample of two or more alive."""
    overlaps, seen = [], set()
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        started = time.monotonic()
        while process.poll() is None and time.monotonic() - started < 600:
            alive = _descendants(process.pid)
            seen |= set(alive)
            if len(alive) > 1:
                overlaps.append(sorted(alive.values()))
            time.sleep(0.1)
        out, err = process.communicate(timeout=60)
    assert seen, "no child process was seen: the sampling did not work"
    return subprocess.CompletedProcess(command, process.returncode, out, err), overlaps


def test_the_setup_children_run_one_at_a_time_and_the_fit_process_never_loads_torch(tmp_path, monkeypatch):
    machine, cache = tmp_path / "machine", tmp_path / "cache"
    env = {
        **os.environ,
        "ICML_TOPICS_MACHINE_DIR": str(machine),
        "ICML_TOPICS_CACHE_DIR": str(cache),
    }
    script = (
        "import json, sys\n"
        "from icml_topics.embedding import embed, setup_child\n"
        "path = setup_child.prepare(None, device=None, cache=True)\n"
        f"vectors = embed({TEXTS!r}, cache=True)\n"
        "print(json.dumps({'path': path, 'torch': 'torch' in sys.modules, 'shape': list(vectors.shape)}))\n"
    )
    done, overlaps = _run_watching_children([sys.executable, "-c", script], env)
    assert done.returncode == 0, done.stderr[-2000:]
    # the setup's processes run one after another: the ONNX graph passes (about 1.2 GB) never sit beside a
    # process holding torch and the model, so the setup's memory is that of its largest process, not a sum
    assert not overlaps, f"{len(overlaps)} samples with several setup processes alive, e.g. {overlaps[0]}"
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["shape"] == [len(TEXTS), 384]
    decisions = json.loads((machine / "precision.json").read_text())
    assert [d["precision"] for d in decisions.values()] == [result["path"]]
    if result["path"] in ("int8", "fp32-onnx", "int8-ct2"):
        assert result["torch"] is False  # an exported path (ONNX Runtime or CTranslate2): torch stayed in the child
        assert any((machine / "onnx").iterdir())
    # the model's identity is recorded next to the cache: later runs know it without loading the weights
    assert known_identity(None, cache / "embeddings") is not None
    # ... and in the machine folder: a new cache on this machine needs neither the child nor torch
    monkeypatch.setenv("ICML_TOPICS_MACHINE_DIR", str(machine))
    assert known_identity(None, tmp_path / "another-cache" / "embeddings") == known_identity(None, cache / "embeddings")
    again = (
        "import json, sys\n"
        "from icml_topics.embedding import embed, setup_child\n"
        "def no_child(*args, **kwargs):\n"
        "    raise AssertionError('a child was started on a decided machine')\n"
        "setup_child.run_module = no_child\n"
        f"vectors = embed({TEXTS!r}, cache=True)\n"
        "print(json.dumps({'torch': 'torch' in sys.modules, 'shape': list(vectors.shape)}))\n"
    )
    env["ICML_TOPICS_CACHE_DIR"] = str(tmp_path / "another-cache")
    done = subprocess.run([sys.executable, "-c", again], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    second = json.loads(done.stdout.strip().splitlines()[-1])
    assert second["shape"] == [len(TEXTS), 384]
    if result["path"] in ("int8", "fp32-onnx", "int8-ct2"):
        assert second["torch"] is False

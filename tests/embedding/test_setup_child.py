"""The once-per-machine embedding setup in a child process: the decision and export it leaves, and a
process that then embeds without loading torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys

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


def test_the_child_decides_and_exports_and_the_fit_process_never_loads_torch(tmp_path, monkeypatch):
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
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
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

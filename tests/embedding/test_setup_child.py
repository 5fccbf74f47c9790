"""The once-per-machine embedding setup in child processes, one alive at a time: the decision and export they
leave, and a process that then embeds without loading torch."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import psutil
import pytest
from conftest import TEXTS

from icml_topics.embedding import embed, guard_reference, load_model, model_identity, paths, setup_child
from icml_topics.embedding.identity import known_identity


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


def _loads_torch(pid: int) -> bool:
    """Whether process ``pid`` has torch's library mapped (it imported torch)."""
    try:
        return any("libtorch" in m.path for m in psutil.Process(pid).memory_maps())
    except (psutil.Error, OSError):
        return False


def _run_watching_children(command: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess, list, dict]:
    """Run ``command``, sampling its descendants every 0.1 s: the result, every sample of two or more Python
    processes alive, and
    the command line of every process (``command``'s own included) seen with torch loaded."""
    overlaps, seen, torch_loaded = [], set(), {}
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        started = time.monotonic()
        while process.poll() is None and time.monotonic() - started < 600:
            alive = _descendants(process.pid)
            seen |= set(alive)
            pythons = sorted(
                line for line in alive.values() if os.path.basename(line.split(" ")[0]).startswith("python")
            )
            if len(pythons) > 1:  # not a short helper a child runs (``uname -p`` for platform.processor())
                overlaps.append(pythons)
            for pid, line in [(process.pid, "the fit's process"), *alive.items()]:
                if pid not in torch_loaded and _loads_torch(pid):
                    torch_loaded[pid] = line
            time.sleep(0.1)
        out, err = process.communicate(timeout=60)
    assert seen, "no child process was seen: the sampling did not work"
    return subprocess.CompletedProcess(command, process.returncode, out, err), overlaps, torch_loaded


@pytest.fixture(scope="module")
def cold_setup(tmp_path_factory) -> dict:
    """A process that runs the setup on a new machine (``prepare``), then embeds, its children sampled."""
    tmp = tmp_path_factory.mktemp("cold-setup")
    machine, cache = tmp / "machine", tmp / "cache"
    env = {
        **os.environ,
        "ICML_TOPICS_MACHINE_DIR": str(machine),
        "ICML_TOPICS_CACHE_DIR": str(cache),
    }
    env.pop("ICML_TOPICS_SETUP_CHILD", None)
    script = (
        "import json, sys\n"
        "from icml_topics.embedding import embed, setup_child\n"
        "path = setup_child.prepare(None, device=None, cache=True)\n"
        f"vectors = embed({TEXTS!r}, cache=True)\n"
        "print(json.dumps({'path': path, 'torch': 'torch' in sys.modules, 'shape': list(vectors.shape)}))\n"
    )
    done, overlaps, torch_loaded = _run_watching_children([sys.executable, "-c", script], env)
    assert done.returncode == 0, done.stderr[-2000:]
    return {"done": done, "overlaps": overlaps, "torch": torch_loaded, "tmp": tmp, "env": env}


def test_the_setup_children_run_one_at_a_time_and_the_fit_process_never_loads_torch(cold_setup, monkeypatch):
    done, overlaps, tmp, env = cold_setup["done"], cold_setup["overlaps"], cold_setup["tmp"], dict(cold_setup["env"])
    machine, cache = tmp / "machine", tmp / "cache"
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
    # the guard's reference (kept in the export's work folder) is not left in the installed export
    assert not list(machine.rglob(guard_reference.FILE))
    # the model's identity is recorded next to the cache: later runs know it without loading the weights
    assert known_identity(None, cache / "embeddings") is not None
    # ... and in the machine folder: a new cache on this machine needs neither the child nor torch
    monkeypatch.setenv("ICML_TOPICS_MACHINE_DIR", str(machine))
    assert known_identity(None, tmp / "another-cache" / "embeddings") == known_identity(None, cache / "embeddings")
    again = (
        "import json, sys\n"
        "from icml_topics.embedding import embed, setup_child\n"
        "def no_child(*args, **kwargs):\n"
        "    raise AssertionError('a child was started on a decided machine')\n"
        "setup_child.run_module = no_child\n"
        f"vectors = embed({TEXTS!r}, cache=True)\n"
        "print(json.dumps({'torch': 'torch' in sys.modules, 'shape': list(vectors.shape)}))\n"
    )
    env["ICML_TOPICS_CACHE_DIR"] = str(tmp / "another-cache")
    done = subprocess.run([sys.executable, "-c", again], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    second = json.loads(done.stdout.strip().splitlines()[-1])
    assert second["shape"] == [len(TEXTS), 384]
    if result["path"] in ("int8", "fp32-onnx", "int8-ct2"):
        assert second["torch"] is False


def test_a_cold_setup_loads_torch_and_the_model_in_one_process(cold_setup):
    """The setup child that exports also makes what the guard needs from torch; the guard after the graph passes
    reads it and loads neither torch nor the model again (it did, at 7-27 s a setup)."""
    loaded = cold_setup["torch"]
    assert len(loaded) == 1, f"{len(loaded)} processes loaded torch: {sorted(loaded.values())}"
    (line,) = loaded.values()
    assert "embedding.setup_child" in line and '"staged"' not in line, line


def test_the_guard_on_the_reference_made_ahead_decides_as_with_the_model_loaded(cold_setup, tmp_path, monkeypatch):
    """Same figures, to the last bit, and the same path: the guard with the model loaded in its process (the
    setup where no child can be started) against the guard on the saved reference, on the export the cold setup
    made."""
    machine = tmp_path / "machine"
    shutil.copytree(cold_setup["tmp"] / "machine" / "onnx", machine / "onnx")
    monkeypatch.setenv("ICML_TOPICS_MACHINE_DIR", str(machine))
    monkeypatch.setattr(paths, "_decisions", {})
    st = load_model()
    model_id, device = model_identity(st), str(st.device)
    loaded_path, loaded = paths.decide_path(st, model_id, device)
    guard_reference.save(guard_reference.measure(st, model_id=model_id, device=device), tmp_path / "ref.npz")
    del st
    (machine / "precision.json").unlink()
    monkeypatch.setattr(paths, "_decisions", {})
    reference = guard_reference.load(tmp_path / "ref.npz", model_id=model_id, device=device)
    assert reference is not None and reference.candidates == tuple(c["candidate"] for c in loaded["candidates"])
    ahead_path, ahead = paths.decide_path(None, model_id, device, reference=reference)
    assert ahead_path == loaded_path
    figures = ("candidate", "passed", "min_cosine", "mean_cosine", "knn_agreement", "n_sample")
    assert [[c[k] for k in figures] for c in ahead["candidates"]] == [
        [c[k] for k in figures] for c in loaded["candidates"]
    ]
    # a reference for another model, or a damaged file, is not used: the guard then loads the model itself
    assert guard_reference.load(tmp_path / "ref.npz", model_id="another@1", device=device) is None
    (tmp_path / "ref.npz").write_bytes(b"not a zip file")
    assert guard_reference.load(tmp_path / "ref.npz", model_id=model_id, device=device) is None

"""Fault injection: the real CLI is SIGKILLed at each stage (embedding, map, tree, writing).

After every kill: no half-written output is trusted (the --out folder is absent, or is a complete
earlier run whose manifest checks out), and the run after the kills writes a documents.csv
byte-identical to an uninterrupted run's. Kill points are found from the progress lines on stderr (real signals, no hooks).
The killed runs are real child processes running the CLI's entry point (``icml_topics.cli.main``), killed by a
real SIGKILL: each is forked from one server process (multiprocessing's ``forkserver``, as
``tests/reliability/test_rel_kill_steps.py`` does) that has imported the CLI and the libraries a fit loads (torch,
sentence-transformers, UMAP, BERTopic) once; a fresh interpreter per child paid those imports again, BERTopic's
alone about 14 CPU seconds, in each of the 5 children. (A fresh ``icml-topics`` interpreter is killed in
``tests/reliability/test_rel_kill_steps.py`` and interrupted in ``test_rel_cli_checks.py``.) The uninterrupted run
and the runs after the kills are the CLI in this process (the same code and vectors: fp32 vectors are
bit-identical across processes and thread counts, ``tests/embedding/test_distributed.py``), each with its own
cache folder.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import shutil
import signal
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import pytest
from _reliability_helpers import SEEDS, cli_env, run_cli, seed_texts, seeded_cache

from icml_topics.embedding.cache import normalize_text, text_key

STAGES = {  # stage -> (progress line that starts it, seconds to wait before the kill)
    "embedding": ("rows read", 1.0),
    "map": ("onto the 2-D map", 0.0),
    "tree": ("names that tell siblings apart", 0.5),
    "writing": ("writing outputs", 0.0),
}


def verify_complete(folder: Path) -> dict:
    """The folder's manifest lists exactly its files, with matching checksums."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest.get("complete") is True
    files = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} - {"manifest.json"}
    assert files == set(manifest["files"]), files ^ set(manifest["files"])
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name
    return manifest


#: what the children's server imports once: the CLI and the libraries a fit loads (each child forks from it)
PRELOAD = ["icml_topics.cli", "torch", "sentence_transformers", "umap", "bertopic"]


def _cli_child(argv: list[str], env: dict[str, str], stderr: str) -> None:
    """A child's work: ``icml-topics ARGV`` as the console script runs it, its stderr into the file ``stderr``
    (its stdout discarded), in the environment a CLI subprocess gets (``cli_env``)."""
    os.dup2(os.open(stderr, os.O_WRONLY | os.O_APPEND), 2)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    os.environ.clear()
    os.environ.update(env)
    sys.argv = ["icml-topics", *argv]
    from icml_topics.cli import main

    main()


def kill_at(stage: str, out: Path, cache: Path, *extra: str) -> str:
    """``icml-topics fit`` of the seeds into ``out`` in a child process, SIGKILLed once its stderr shows the
    progress line that starts ``stage`` (after that stage's delay); returns what it printed on stderr."""
    marker, delay = STAGES[stage]
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)  # read when this process starts its server (the first child)
    handle, stderr = tempfile.mkstemp(prefix="icml-topics-fault-", suffix=".stderr")
    os.close(handle)
    argv = ["fit", str(SEEDS), "--out", str(out), *extra]
    proc = context.Process(target=_cli_child, args=(argv, cli_env(cache), stderr))
    proc.start()
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.is_alive():
            if marker in Path(stderr).read_text(encoding="utf-8", errors="replace"):
                time.sleep(delay)
                proc.kill()  # SIGKILL
                break
            time.sleep(0.05)
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(timeout=60)
        log = Path(stderr).read_text(encoding="utf-8", errors="replace")
        os.unlink(stderr)
    assert proc.exitcode == -signal.SIGKILL, f"the run ended before the {stage} stage:\n{log}"
    assert "Traceback" not in log
    return log


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[bytes, Path]:
    """documents.csv of an uninterrupted run (its cache starts from the session's embeddings) and the
    run's folder (``out``: the outputs, ``cache``: every cache it wrote), copied by the tests that need an
    earlier run or filled caches."""
    root = tmp_path_factory.mktemp("reference")
    result = run_cli("fit", str(SEEDS), "--out", str(root / "out"), cache=fresh_cache(root / "cache"), process=False)
    assert result.returncode == 0, result.stderr
    verify_complete(root / "out")
    return (root / "out" / "documents.csv").read_bytes(), root


def fresh_cache(folder: Path) -> Path:
    """The session's embeddings without the seed abstracts: a run embeds those 38 and reduces,
    clusters and names from scratch."""
    return seeded_cache(folder, forget_texts=seed_texts())


def test_kill_at_each_stage_then_rerun_gives_the_uninterrupted_result(tmp_path, reference):
    """One output folder and cache, killed at each stage in turn: every run starts from what the kill before
    it left (a partly filled embedding cache, half-made stage results, a staging folder), and the run after
    the last kill writes the uninterrupted result."""
    out, cache = tmp_path / "out", fresh_cache(tmp_path / "cache")
    for stage in STAGES:
        kill_at(stage, out, cache)
        assert not out.exists() or verify_complete(out), f"after the kill at {stage}"
    result = run_cli("fit", str(SEEDS), "--out", str(out), cache=cache, process=False)
    assert result.returncode == 0, result.stderr
    verify_complete(out)
    assert (out / "documents.csv").read_bytes() == reference[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "out"]  # no staging folder left


def test_kill_while_replacing_an_earlier_run_keeps_one_whole_run(tmp_path, reference):
    documents, root = reference
    out, cache = tmp_path / "out", tmp_path / "cache"
    shutil.copytree(root / "out", out)  # an earlier run, whole (its caches too)
    shutil.copytree(root / "cache", cache)
    earlier = verify_complete(out)
    kill_at("writing", out, cache, "--title", "later run", "--csv-safe")
    now = verify_complete(out)  # the earlier run, whole, or the new one, whole
    assert now == earlier or (out / "documents.csv").read_bytes() == documents
    result = run_cli("fit", str(SEEDS), "--out", str(out), cache=cache, process=False)
    assert result.returncode == 0, result.stderr
    assert (out / "documents.csv").read_bytes() == documents
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "out"]


def test_corrupt_cache_files_of_every_kind_are_recomputed_by_the_cli(tmp_path, reference):
    documents, root = reference
    out, cache = tmp_path / "out", tmp_path / "cache"
    shutil.copytree(root / "cache", cache)  # every cache kind, filled by the reference run
    for kind in ("reductions", "representations"):  # bytes overwritten in the middle of every file
        for path in (cache / kind).iterdir():
            data = bytearray(path.read_bytes())
            middle = len(data) // 2
            data[middle : middle + 64] = b"\xff" * 64
            path.write_bytes(bytes(data))
    keys = [(text_key(normalize_text(t)),) for t in seed_texts()]  # the seeds' stored vectors damaged
    with sqlite3.connect(cache / "embeddings" / "embeddings.sqlite3") as conn:
        conn.executemany("UPDATE vectors SET vector = zeroblob(length(vector)) WHERE text_key = ?", keys)
    result = run_cli("fit", str(SEEDS), "--out", str(out), cache=cache, process=False)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.count("recomput") >= 3, result.stderr  # embeddings, 2 reductions, keyphrases
    assert (out / "documents.csv").read_bytes() == documents

"""Issue 40 item 1: a small first fit embeds with the packaged model directly, never waits for the one-time
setup (the ONNX/CTranslate2 export and the guard), records its path, and shows per-batch progress."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from icml_topics.errors import InvalidValueError

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "icml_topics" / "data" / "icml-2026-seed-abstracts.jsonl"  # 38 abstracts: two batches of 32


def test_the_path_is_a_function_of_the_corpus_size(monkeypatch):
    from icml_topics.embedding.corpus_rule import corpus_path, direct_below

    monkeypatch.delenv("ICML_TOPICS_DIRECT_BELOW", raising=False)
    assert corpus_path("auto", 38) == "fp32"
    assert corpus_path("auto", 5630) is None  # the machine's path
    assert corpus_path("int8", 38) == "int8" and corpus_path("fp32", 10**6) == "fp32"  # a forced path stays
    monkeypatch.setenv("ICML_TOPICS_DIRECT_BELOW", "0")
    assert corpus_path("auto", 38) is None
    monkeypatch.setenv("ICML_TOPICS_DIRECT_BELOW", "some")
    with pytest.raises(InvalidValueError, match="ICML_TOPICS_DIRECT_BELOW must be a count of documents"):
        direct_below()


MARK = "-- next run --"


@pytest.fixture(scope="module")
def first_fit(tmp_path_factory) -> dict:
    """One fresh process (each costs Python, the model and BERTopic's import), three runs with empty caches on an
    empty machine folder, each run's stdout and stderr told apart by a marker line: a Python fit of the first 12
    bundled abstracts, untouched by any CLI setting (it loads the model: the moment transformers would print its
    "Loading weights" bar); ``icml-topics fit -q`` of the same 12 with its own empty embedding cache; then
    ``icml-topics fit`` of the 38 bundled abstracts with a third empty cache (the cold CLI fit)."""
    tmp = tmp_path_factory.mktemp("first")
    small = tmp / "seeds-12.jsonl"
    small.write_text("".join(SEEDS.read_text(encoding="utf-8").splitlines(keepends=True)[:12]), encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "ICML_TOPICS_CACHE_DIR": str(tmp / "python-cache"),
        "ICML_TOPICS_MACHINE_DIR": str(tmp / "machine"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    env.pop("ICML_TOPICS_DIRECT_BELOW", None)
    quiet = ["fit", str(small), "--out", str(tmp / "quiet-out"), "-q", "--min-topic-size", "3"]
    quiet += ["--cache-dir", str(tmp / "quiet-cache")]
    cold = ["fit", str(SEEDS), "--out", str(tmp / "out"), "--min-topic-size", "3", "--cache-dir", str(tmp / "cache")]
    code = (
        "import sys\n"
        "from icml_topics import TopicMap\n"
        "from icml_topics.cli import main\n"
        "def cli(argv):\n"
        "    sys.argv = ['icml-topics', *argv]\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit as exit:\n"
        "        assert not exit.code, exit.code\n"
        "def mark():\n"
        f"    print({MARK!r}, flush=True)\n"
        f"    print({MARK!r}, file=sys.stderr, flush=True)\n"
        f"print(TopicMap(min_topic_size=3).fit({str(small)!r}).summary()['modelled'], flush=True)\n"
        "mark()\n"
        f"cli({quiet!r})\n"
        "mark()\n"
        f"cli({cold!r})\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    out, err = done.stdout.split(MARK + "\n"), done.stderr.split(MARK + "\n")
    assert len(out) == len(err) == 3, (done.stdout[-2000:], done.stderr[-3000:])
    return {
        "stderr": err[2],
        "machine": tmp / "machine",
        "out": tmp / "out",
        "python": (out[0], err[0]),
        "quiet": (out[1], err[1], tmp / "quiet-cache"),
    }


def test_python_fit_is_silent_by_default_and_cli_quiet_prints_nothing_on_stderr(first_fit):
    """(From ``tests/model/test_progress.py``: one process for both files.) A Python fit with an empty cache
    prints nothing, and ``icml-topics fit -q`` prints its summary on stdout and nothing on stderr."""
    (modelled, python_err), (summary, quiet_err, quiet_cache) = first_fit["python"], first_fit["quiet"]
    assert python_err.strip() == "" and quiet_err.strip() == ""  # no "Loading weights", no stage lines
    assert int(modelled) == 12
    assert "papers in" in summary and "research theme" in summary  # the summary is the command's output
    assert any(quiet_cache.rglob("*")), "the CLI did not embed into its own empty cache"


def test_a_small_first_fit_makes_no_export_and_records_the_direct_path(first_fit):
    machine = first_fit["machine"]
    made = (
        sorted(p.relative_to(machine).as_posix() for p in machine.rglob("*") if p.is_file()) if machine.exists() else []
    )
    assert not [p for p in made if p.startswith("onnx/") or p.endswith((".onnx", ".bin")) or "ct2" in p], made
    assert not (machine / "precision.json").exists(), made  # no guard ran
    assert "first run on this machine" not in first_fit["stderr"]
    manifest = json.loads((first_fit["out"] / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["embedding_path"] == "fp32"


def test_the_cli_shows_per_batch_embedding_progress(first_fit):
    lines = [line for line in first_fit["stderr"].splitlines() if "embedding: " in line and " texts (" in line]
    assert len(lines) >= 2, first_fit["stderr"]  # after the first batch, and after the last
    assert "32 of 38 texts (84%)" in lines[0] and "texts/s" in lines[0] and "s left" in lines[0], lines
    assert "38 of 38 texts (100%)" in lines[-1] and lines[-1].endswith("done"), lines


STAGES = 7  # reading, embedding, map, themes, tree, the closing line, writing outputs


def test_the_cli_prints_one_line_per_stage(first_fit):
    """The cold fit above, as ``tests/model/test_progress.py`` would see it (moved here: one process for both):
    one line per stage, besides the embedding's per-batch progress lines, and nothing else."""
    stderr = first_fit["stderr"]
    lines = [line for line in stderr.splitlines() if line.strip()]
    if lines and lines[0].startswith("first run on this machine"):  # a machine without the one-time setup
        assert "about 20-40 s on 2 idle cores, a few minutes on a busy machine" in lines.pop(0)
    lines = [line for line in lines if " s so far" not in line]  # a stage silent for 10 s says what it does
    assert "Loading weights" not in stderr and "embedded" not in stderr and "\r" not in stderr
    batches = [line for line in lines if "embedding: " in line and " texts (" in line]
    stages = [line for line in lines if line not in batches]
    assert len(stages) == STAGES and len(batches) == 2, lines  # 38 texts: two batches of 32
    assert all(line.startswith("[") for line in lines), lines
    assert "papers in" in lines[-2] and "research theme" in lines[-2] and "writing outputs" in lines[-1]

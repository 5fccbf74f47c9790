"""Issue 38 case 15: the embedding path of ``precision="auto"`` is a fixed rule, not a timing race.

Two fits of the same real abstracts, each with a fresh cache and a fresh machine folder (so each runs the
once-per-machine setup and its guard), one in this process and one on 2 Dask workers, wrote ``int8-ct2`` in
one folder and ``int8`` in the other (the guard timed the paths on a busy machine and took the fastest),
and other topics. Now the first path of a fixed preference order that keeps the task is taken.

The check keeps two setups run independently on this machine: the fit in this process uses the test
session's machine folder, whose export and guard ran once for the session (``icml-topics info --decide``
in ``tests/cli/test_cli_info.py``, or whichever process needed the path first), and the Dask fit runs the
guard again in a fresh machine folder of its own (given a copy of the session's export, so that the export is
not made a second time: the guard, not the export, once chose by timing). Both are the CLI in this process;
for the Dask fit its memory of the session's decision is emptied, and the guard runs in the setup's child
process, as on any new machine.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from _reliability_helpers import run_cli

from icml_topics.embedding import onnx_backend, paths
from icml_topics.embedding.guard import GuardReport, choose_path
from icml_topics.embedding.identity import known_identity
from icml_topics.embedding.onnx_backend import export_dir
from icml_topics.embedding.paths import decided_path, decision_key, save_decision

CPU_ORDER = ("int8-ct2", "int8", "fp32-onnx", "bf16")  # the documented order (docs/how-to/speed.md)


def _report(path: str, passed: bool, speedup: float) -> GuardReport:
    return GuardReport(path, passed, 0.99, 0.995, 0.93, speedup, 10 * speedup, 128, "made up for the rule")


def test_the_preferred_passing_path_wins_whatever_the_timings():
    # int8 and fp32-onnx timed faster than int8-ct2 on this (imagined) busy run: the order decides, not speed
    reports = [_report("int8", True, 4.9), _report("fp32-onnx", True, 6.0), _report("int8-ct2", True, 1.1)]
    assert choose_path(reports) == "int8-ct2"
    assert choose_path(list(reversed(reports))) == "int8-ct2"  # nor the order the guard ran them in


def test_a_path_that_fails_the_guard_is_skipped():
    reports = [_report("int8-ct2", False, 9.0), _report("int8", True, 1.2), _report("fp32-onnx", True, 3.0)]
    assert choose_path(reports) == "int8"
    assert choose_path([_report("int8-ct2", False, 9.0), _report("fp32-onnx", True, 0.9)]) == "fp32-onnx"
    assert choose_path([_report("int8", False, 3.0)]) == "fp32"
    assert choose_path([]) == "fp32"


def test_a_decision_recorded_by_the_timed_rule_is_read_by_the_preference(tmp_path, monkeypatch):
    """A machine folder decided before the rule (int8 taken for being faster, int8-ct2 kept the task too)
    gives the path a fresh folder would get, without running the guard again."""
    monkeypatch.setenv("ICML_TOPICS_MACHINE_DIR", str(tmp_path))
    model_id = "all-MiniLM-L6-v2@timed-rule-test"
    old = {
        "precision": "int8",
        "guard": [
            {"candidate": "int8", "passed": True, "speedup": 3.2, "reason": "int8 keeps the task: ..."},
            {"candidate": "int8-ct2", "passed": True, "speedup": 3.0, "reason": "int8-ct2 keeps the task: ..."},
            {"candidate": "fp32-onnx", "passed": True, "speedup": 2.1, "reason": "fp32-onnx keeps the task: ..."},
        ],
    }
    save_decision(decision_key(model_id, "cpu"), old)  # a model id of its own: nothing remembered for it
    assert decided_path(model_id, "cpu") == "int8-ct2"
    # ... and one where int8-ct2 failed only the old speed condition: it kept the task, so it is taken
    model_id = "all-MiniLM-L6-v2@timed-rule-test-2"
    slow = {
        "precision": "int8",
        "guard": [
            {"candidate": "int8", "passed": True, "speedup": 3.2, "reason": "int8 keeps the task: ..."},
            {"candidate": "int8-ct2", "passed": False, "reason": "int8-ct2 is not faster than fp32 here: ..."},
        ],
    }
    save_decision(decision_key(model_id, "cpu"), slow)
    assert decided_path(model_id, "cpu") == "int8-ct2"


@pytest.fixture(scope="module")
def two_fresh_fits(icml_frame, tmp_path_factory) -> dict[str, Path]:
    """``fit`` and ``fit --workers 2`` of 150 real ICML abstracts, each with a fresh embedding cache, both the CLI
    in this process: the first on the session's machine folder (its path decided once for the session), the
    second on a fresh machine folder holding a copy of the session's export only, with this process's memory of
    the decisions and of the loaded ONNX sessions emptied, so that its setup (a child process, as for any fit)
    runs the guard and decides the path again. The Dask fit's workers are processes of their own."""
    tmp = tmp_path_factory.mktemp("choice")
    corpus = tmp / "icml-150.jsonl"
    icml_frame.sample(n=150, random_state=11).to_json(corpus, orient="records", lines=True)
    session_machine = Path(os.environ["ICML_TOPICS_MACHINE_DIR"])  # conftest: the session's cache folder
    outs = {}
    for name, extra, machine in (
        ("single", (), session_machine),
        ("dask", ("--workers", "2"), tmp / "machine-dask"),
    ):
        with pytest.MonkeyPatch.context() as mp:
            if name == "dask":  # a new machine for this process: nothing of the session's decision in memory
                mp.setattr(paths, "_decisions", {})
                onnx_backend.forget_sessions()
            try:
                result = run_cli(
                    "fit",
                    str(corpus),
                    "--out",
                    str(tmp / name),
                    "-q",
                    *extra,
                    cache=tmp / f"cache-{name}",
                    process=False,
                    ICML_TOPICS_MACHINE_DIR=str(machine),
                    ICML_TOPICS_DIRECT_BELOW="0",  # the machine's path (and its setup) even for 150 abstracts
                )
            finally:
                onnx_backend.forget_sessions()  # the next test reads the session's export again
        assert result.returncode == 0, result.stderr[-3000:]
        outs[name] = tmp / name
        outs[f"{name}-machine"] = machine
        outs[f"{name}-cache"] = tmp / f"cache-{name}"
        if name == "single":  # the Dask fit's folder gets the session's export (made once, verified by its
            # checksums and probe vector where it is read), so its setup runs the guard, not a second export
            model_id, _ = known_identity(None, tmp / "cache-single" / "embeddings")
            export = export_dir(model_id, session_machine / "onnx")
            shutil.copytree(export, export_dir(model_id, tmp / "machine-dask" / "onnx"))
    return outs


@pytest.mark.slow
def test_fit_and_fit_on_dask_with_fresh_caches_write_the_same_documents(two_fresh_fits):
    single = (two_fresh_fits["single"] / "documents.csv").read_bytes()
    dask = (two_fresh_fits["dask"] / "documents.csv").read_bytes()
    assert len(single) > 10_000
    if single != dask:
        a, b = (pd.read_csv(two_fresh_fits[n] / "documents.csv") for n in ("single", "dask"))
        differ = {c: int((a[c].astype(str) != b[c].astype(str)).sum()) for c in a.columns}
        pytest.fail(f"documents.csv differs: { ({c: k for c, k in differ.items() if k}) }")


@pytest.mark.slow
def test_each_output_records_the_preferred_path_that_passed_its_guard(two_fresh_fits):
    for name in ("single", "dask"):
        manifest = json.loads((two_fresh_fits[name] / "manifest.json").read_text(encoding="utf-8"))
        decisions = json.loads((two_fresh_fits[f"{name}-machine"] / "precision.json").read_text(encoding="utf-8"))
        if name == "dask":
            (record,) = decisions.values()  # one model on a fresh machine folder: one decision
        else:  # the session's folder: the decision of the model the fit's cache recorded
            model_id, _ = known_identity(None, two_fresh_fits[f"{name}-cache"] / "embeddings")
            record = decisions[decision_key(model_id, "cpu")]
        passed = {g["candidate"] for g in record["guard"] if g.get("passed")}
        expected = next((p for p in CPU_ORDER if p in passed), "fp32")
        assert manifest["embedding_path"] == record["precision"] == expected, (name, record["guard"])
        assert manifest["cpu"] and manifest["package_version"]

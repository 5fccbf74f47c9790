"""A run killed at any step of replacing its output folder leaves nothing the next run cannot repair (issue 38,
case 7): ``TopicMap.save``, ``fit --out`` and ``compare --out`` are stopped by SIGKILL at each named step of the
swap (``ICML_TOPICS_KILL_AT``, the one test hook in ``icml_topics.store.swap``) in a real child process; the next
run leaves exactly one valid folder (the earlier output or the new one) and no ``*.tmp-*``, ``.*.old-*``,
``.*.trash-*`` or ``.*.probe-*`` folder.

The children that save, write or compare are forked from one server process (multiprocessing's ``forkserver``)
that has imported the library once: a fresh interpreter per child spent about 2.6 CPU seconds importing numpy,
pandas and icml_topics before it reached the swap (16 children). Each is still a process of its own, killed by a
real SIGKILL. The CLI's child is a fresh interpreter (``icml-topics fit``, as a user starts it)."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import subprocess
import traceback
from pathlib import Path

import pandas as pd
import pytest
from _reliability_helpers import SEEDS, cli_command, cli_env, run_cli, session_cache

from icml_topics import TopicMap
from icml_topics.outputs import write_outputs
from icml_topics.store.folders import verify_folder
from icml_topics.store.swap import KILL_AT, KILL_STEPS
from icml_topics.workflows import compare

#: the steps that leave each kind of leftover once: a marked staging folder, an unmarked complete one, the
#: earlier output moved aside, a deletion cut short (every step is run for save, the cheapest child)
SOME_STEPS = ("mid-staging", "after-unmark", "after-rename-old", "mid-delete")


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> tuple[Path, Path]:
    """The bundled seed abstracts as two years (19 papers each), fitted once and saved: the children load
    this model instead of fitting; returns (corpus file, model folder)."""
    root = tmp_path_factory.mktemp("kill-steps")
    corpus = pd.read_json(SEEDS, lines=True)
    corpus["year"] = [2025 if i % 2 else 2026 for i in range(len(corpus))]
    path = root / "corpus.jsonl"
    corpus.to_json(path, orient="records", lines=True)
    tm = TopicMap(random_state=0).fit(path)
    return path, tm.save(root / "model")


@pytest.fixture(scope="module")
def compared(saved, tmp_path_factory) -> tuple[TopicMap, Path]:
    """The saved model and a ``compare --out`` folder written from it (2025 vs 2026)."""
    corpus, model = saved
    tm = TopicMap.load(model)
    out = tmp_path_factory.mktemp("compared") / "out"
    compare(corpus, by="year", model=tm, out=out, align=False, min_papers=10)
    return tm, out


#: the library's modules the children use, imported once by the server they are forked from
PRELOAD = ["icml_topics", "icml_topics.outputs", "icml_topics.store.folders", "icml_topics.workflows"]


def _in_child(step: str, errors: str, action, *args) -> None:
    """A child's work: ``action(*args)`` with the kill hook set to ``step`` (a traceback goes to ``errors``)."""
    os.environ[KILL_AT] = step
    try:
        action(*args)
    except BaseException:
        Path(errors).write_text(traceback.format_exc(), encoding="utf-8")
        raise


def _killed(step: str, action, *args) -> None:
    """Run ``action(*args)`` (a function of this module) in a child process that kills itself at ``step``."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)  # read when this process starts its server (the first child)
    errors = Path(args[-1]).parent / f"child-{step}.err"
    child = context.Process(target=_in_child, args=(step, str(errors), action, *args))
    child.start()
    child.join(timeout=300)
    if child.exitcode is None:
        child.kill()
        child.join()
    said = errors.read_text(encoding="utf-8") if errors.exists() else ""
    errors.unlink(missing_ok=True)
    assert child.exitcode == -signal.SIGKILL, f"not killed at {step} (exit code {child.exitcode}):\n{said[-3000:]}"


def _save(model: str, dst: str) -> None:
    TopicMap.load(model).save(dst)


def _write(model: str, out: str) -> None:
    write_outputs(TopicMap.load(model), out, title="later", report=False, static_map=False)


def _compare(corpus: str, model: str, out: str) -> None:
    compare(corpus, by="year", model=TopicMap.load(model), out=out, align=False, min_papers=10)


def _leftovers(folder: Path, name: str) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != name)


@pytest.mark.parametrize("step", KILL_STEPS)
def test_save_killed_at_every_step_is_repaired_by_the_next_run(tmp_path, saved, step):
    _, model = saved
    dst = tmp_path / "k9"
    shutil.copytree(model, dst)  # an earlier save, replaced by the killed one
    _killed(step, _save, str(model), str(dst))
    assert _leftovers(tmp_path, "k9"), f"the kill at {step} left nothing to repair"
    tm = TopicMap.load(model)
    tm.save(dst)  # the next run
    verify_folder(dst)
    assert _leftovers(tmp_path, "k9") == [], f"left after a kill at {step}"
    assert TopicMap.load(dst).summary() == tm.summary()


@pytest.mark.parametrize("step", SOME_STEPS)
def test_fit_outputs_killed_at_a_step_are_repaired_by_the_next_run(tmp_path, saved, step):
    _, model = saved
    tm = TopicMap.load(model)
    out = tmp_path / "out"
    write_outputs(tm, out, report=False, static_map=False)
    earlier = verify_folder(out)
    _killed(step, _write, str(model), str(out))
    assert _leftovers(tmp_path, "out"), f"the kill at {step} left nothing to repair"
    write_outputs(tm, out, report=False, static_map=False)
    now = verify_folder(out)
    assert set(now["files"]) == set(earlier["files"])
    assert _leftovers(tmp_path, "out") == [], f"left after a kill at {step}"


@pytest.mark.parametrize("step", SOME_STEPS)
def test_compare_out_killed_at_a_step_is_repaired_by_the_next_run(tmp_path, saved, compared, step):
    corpus, model = saved
    out = tmp_path / "k9c"
    shutil.copytree(compared[1], out)  # an earlier compare --out folder
    _killed(step, _compare, str(corpus), str(model), str(out))
    assert _leftovers(tmp_path, "k9c"), f"the kill at {step} left nothing to repair"
    compare(corpus, by="year", model=compared[0], out=out, align=False, min_papers=10)
    manifest = verify_folder(out)
    assert {"theme_table.csv", "report.html", "model/model.json"} <= set(manifest["files"])
    assert _leftovers(tmp_path, "k9c") == [], f"left after a kill at {step}"


def test_the_cli_fit_killed_between_its_renames_is_repaired_by_the_next_cli_run(tmp_path, saved):
    """The real CLI: an earlier ``fit --out`` folder, a run killed (a real child process) when it has moved it
    aside, a run after it."""
    _, model = saved
    out = tmp_path / "out"
    write_outputs(TopicMap.load(model), out, report=False, static_map=False)
    env = cli_env(session_cache(), ICML_TOPICS_KILL_AT="after-rename-old")
    args = cli_command("fit", str(SEEDS), "--out", str(out), "--maps", "none")
    killed = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-3000:]
    assert not out.exists() and len(_leftovers(tmp_path, "out")) == 2  # .out.old-<pid> and out.tmp-<pid>
    # the run after it: the CLI in this process (the kill above is the point of a child process, not this run)
    done = run_cli("fit", str(SEEDS), "--out", str(out), "--maps", "none", cache=session_cache(), process=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert {"documents.csv", "report.html", "model/model.json"} <= set(verify_folder(out)["files"])
    assert _leftovers(tmp_path, "out") == []

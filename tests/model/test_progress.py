"""How a fit talks: silent in Python by default, quiet on the CLI with ``-q``, widgets in Jupyter.

The silent Python fit, the quiet CLI (``-q``) and the CLI's one line per stage are checked on
``tests/embedding/test_first_run.py``'s fresh process (one process, and one BERTopic import, for both files).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from icml_topics._progress import STAGE, StageFilter, Stages, quiet_libraries, step
from icml_topics.cli.demo import sample_path

REPO = Path(__file__).resolve().parents[2]


def test_stage_lines_pass_the_cli_filter_and_details_do_not(caplog):
    record = logging.LogRecord("icml_topics", logging.INFO, "", 0, "detail", None, None)
    stage = logging.LogRecord("icml_topics", logging.INFO, "", 0, "stage", None, None)
    setattr(stage, STAGE, True)
    warning = logging.LogRecord("icml_topics", logging.WARNING, "", 0, "warn", None, None)
    assert [StageFilter().filter(r) for r in (record, stage, warning)] == [False, True, True]


def test_quiet_libraries_restores_transformers_progress_bars():
    import transformers.utils.logging as tl

    tl.enable_progress_bar()
    with quiet_libraries():
        assert not tl.is_progress_bar_enabled()
    assert tl.is_progress_bar_enabled()
    tl.disable_progress_bar()
    with quiet_libraries():
        pass
    assert not tl.is_progress_bar_enabled()
    tl.enable_progress_bar()


def test_verbose_progress_is_a_widget_in_jupyter(tmp_path):
    """tqdm.auto in a real kernel: an ipywidgets bar, no 'IProgress not found' warning."""
    cell = (
        "from icml_topics._progress import Stages\n"
        "with Stages(verbose=True, total=2) as stages:\n"
        "    stages.start('embedding'); stages.start('clustering'); stages.done('done')\n"
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env_path]))
    try:
        NotebookClient(
            nb, kernel_name="python3", timeout=300, resources={"metadata": {"path": str(tmp_path)}}
        ).execute()
    finally:
        os.environ["PYTHONPATH"] = env_path
    outputs = nb.cells[0].outputs
    text = "".join(o.get("text", "") for o in outputs)
    assert "IProgress not found" not in text and "TqdmWarning" not in text
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs), outputs


def test_stages_without_verbose_draw_nothing(capsys):
    with Stages(verbose=False, total=3) as stages:
        stages.start("embedding")
        stages.done("done")
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_a_long_stage_says_what_it_does_while_it_runs(caplog, monkeypatch):
    """A stage silent for HEARTBEAT_SECONDS gets a line with its current step and the time so far (the tree
    stage once printed nothing for minutes); a step after such a silence is shown at once."""
    import time

    caplog.set_level(logging.INFO, logger="icml_topics")
    with Stages(verbose=True, total=1, heartbeat=1.0) as stages:
        stages.start("building the tree")
        step("clustering the topics of theme %d (%s, %d papers)", 1, "Graph learning", 210)
        time.sleep(2.5)
        stages.done("done")
    lines = [r.getMessage() for r in caplog.records if getattr(r, STAGE, False)]
    beats = [line for line in lines if line.startswith("building the tree: clustering the topics of theme 1")]
    assert beats and all(line.endswith("s so far") for line in beats), lines
    step("outside a fit")  # no stages running: nothing, no error
    assert not any("outside a fit" in r.getMessage() for r in caplog.records)


def test_a_verbose_fit_shows_each_part_of_the_tree_stage(caplog, monkeypatch):
    """A real verbose fit with no stage cache (random_state=None) and a heartbeat of 0 s: every part of the tree
    stage (each theme's clustering, the keyphrases, the names) is shown as a line of its stage."""
    from icml_topics import TopicMap, _progress

    monkeypatch.setattr(_progress, "HEARTBEAT_SECONDS", 0.0)
    caplog.set_level(logging.INFO, logger="icml_topics")
    tm = TopicMap(random_state=None, verbose=True).fit(sample_path())
    lines = [r.getMessage() for r in caplog.records if getattr(r, STAGE, False)]
    tree = [line for line in lines if line.startswith("topics and subtopics under") and "so far" in line]
    themes = {t for t in tm.documents_["theme"] if t}
    clustering = [line for line in tree if ": clustering the topics of theme" in line]
    assert len(clustering) >= len(themes) >= 2, lines
    assert any(": keyphrases of" in line for line in tree) and any(": naming" in line for line in tree), lines

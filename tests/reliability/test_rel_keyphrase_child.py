"""The keyphrase child (``fit_tree.start_keyphrase_child``, ``_background.start_child``): a child started before
its call is known runs that call when it is given, the keyphrases it computes are the ones this process
computes, and a child that is never given a call ends without a trace."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest

from icml_topics._background import BackgroundFailed, start_child
from icml_topics.fit_config import FitConfig
from icml_topics.fit_inputs import Embedder
from icml_topics.fit_tree import start_keyphrase_child, topic_tree


def test_a_waiting_child_runs_the_call_it_is_given_later():
    child = start_child(prepare="importlib:invalidate_caches")
    assert child.process.poll() is None  # started, waiting
    assert child.submit("math:hypot", 6.0, 8.0).result() == 10.0
    assert not child.folder.exists()


def test_a_failing_prepare_only_loses_the_head_start():
    child = start_child(prepare="json:loads")  # fails: no argument
    assert child.submit("math:hypot", 3.0, 4.0).result() == 5.0


def test_a_child_given_no_call_ends_on_cancel_and_has_no_result():
    child = start_child()
    with pytest.raises(BackgroundFailed, match="given no call"):
        child.result()
    assert child.process.poll() is not None and not child.folder.exists()


def test_a_call_that_cannot_be_pickled_stops_the_waiting_child():
    child = start_child()
    with pytest.raises(BackgroundFailed, match="cannot run in a child process"):
        child.submit("math:hypot", lambda: 1)
    assert child.process.poll() is not None and not child.folder.exists()


def test_the_keyphrases_computed_in_the_child_are_the_ones_computed_here(fitted, caplog):
    st = fitted.state_
    config = replace(FitConfig.from_params({"random_state": 0}), representations_dir=None, trees_dir=None)
    args = (st.texts, st.embeddings)
    here_embed, there_embed = Embedder(config), Embedder(config)
    here = topic_tree(config, *args, here_embed, st.modelled, st.themes.docs.theme)
    with caplog.at_level(logging.DEBUG, logger="icml_topics"):
        there = topic_tree(config, *args, there_embed, st.modelled, st.themes.docs.theme, start_keyphrase_child())
    messages = [r.getMessage() for r in caplog.records]
    assert any("represent_levels done in a child process" in m for m in messages), messages
    assert not any("computing the keyphrases in this process" in m for m in messages)
    assert (here.labels == there.labels).all()
    assert here.keywords == there.keywords and here.names == there.names
    # the child's embedding work is counted in this fit's Embedder (every keyphrase text, embedded or cached)
    assert sum(there_embed.counts.values()) == sum(here_embed.counts.values()) > 0


def test_a_waiting_child_whose_parent_is_killed_ends_and_removes_its_folder():
    parent = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent("""
            import time
            from icml_topics._background import start_child
            child = start_child()
            print(child.process.pid, child.folder, flush=True)
            time.sleep(120)
        """)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    pid, folder = parent.stdout.readline().split()
    assert Path(folder).is_dir()
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 15
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not Path(folder).exists()

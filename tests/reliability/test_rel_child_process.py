"""A child process of icml_topics (the embedding setup, the ONNX graph passes) and Ctrl-C: the parent
stops, and the child is told first, so it removes what it half-made."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from icml_topics._child import run_module

CHILD = """
import pathlib, sys, time
folder = pathlib.Path(sys.argv[1])
(folder / "started").write_text("yes")
try:
    time.sleep(60)
finally:
    (folder / "cleaned up").write_text("yes")
"""


@pytest.fixture
def child_module(tmp_path, monkeypatch):
    (tmp_path / "sleepy_child.py").write_text(CHILD)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    # a suite started in the background inherits SIGINT ignored, and so would its children (exec keeps an
    # ignored signal ignored); with Python's own handler here, the children start with the default
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield tmp_path
    signal.signal(signal.SIGINT, previous)


def test_an_interrupted_parent_lets_the_child_clean_up_before_it_stops(child_module):
    def interrupt_when_started() -> None:
        deadline = time.monotonic() + 30
        while not (child_module / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)  # to this process only, as `kill -INT` would

    threading.Thread(target=interrupt_when_started, daemon=True).start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_module("sleepy_child", str(child_module))
    assert (child_module / "cleaned up").read_text() == "yes"
    assert time.monotonic() - started < 30  # the child was stopped, not waited out


def test_a_child_stopped_by_ctrl_c_stops_the_parent(child_module):
    (child_module / "interrupted_child.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGINT)\n")
    with pytest.raises(KeyboardInterrupt):
        run_module("interrupted_child")


def test_a_failing_child_returns_its_exit_code_and_error(tmp_path, monkeypatch):
    (tmp_path / "failing_child.py").write_text("raise SystemExit('no luck: exit 3')\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    done = run_module("failing_child")
    assert done.returncode == 1
    assert "no luck" in done.stderr

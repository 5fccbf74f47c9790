"""Run a Python module of icml_topics as a child process and wait for it, passing a Ctrl-C on.

Used for the work whose memory should not stay in the caller (the embedding setup, the ONNX graph passes).
A Ctrl-C in a terminal reaches the child too (one process group); one sent to this process alone (``kill
-INT``) is passed on, and the child gets a few seconds to remove its half-made files before it is killed.

Examples:
    >>> from icml_topics._child import run_module
    >>> run_module("json.tool", "--help").returncode
    0
"""

from __future__ import annotations

import signal
import subprocess
import sys

__all__ = ["CLEANUP_SECONDS", "run_module", "stop_process"]

CLEANUP_SECONDS = 10.0
"""How long an interrupted child may take to clean up before it is killed."""


def run_module(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m module *args`` with this interpreter, output captured, no stdin.

    Raises ``KeyboardInterrupt`` when this process or the child was interrupted, ``OSError`` when no
    child can be started.
    """
    command = [sys.executable, "-m", module, *args]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True
    ) as process:
        try:
            out, err = process.communicate()
        except KeyboardInterrupt:
            try:  # a terminal's Ctrl-C reached the child as well: let it stop by itself first
                process.communicate(timeout=1.0)
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGINT)
                try:
                    process.communicate(timeout=CLEANUP_SECONDS)
                except subprocess.TimeoutExpired:
                    process.kill()
            raise
    if process.returncode in (-signal.SIGINT, 130):
        raise KeyboardInterrupt
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def stop_process(process: subprocess.Popen, grace: float = 5.0) -> None:
    """End ``process`` if it still runs: terminate, then kill after ``grace`` seconds; reaped either way."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

"""Run one function call in a child process while this process goes on, and collect its result later.

The fit uses it for the 2-D map: UMAP is single-core numba code that nothing before the end of the fit
needs, so a child projects while this process assigns the themes and builds the topic tree, on a second
core. The call is named by its dotted path (``"package.module:function"``), so this module imports
nothing of the package but a leaf (``_child``); its arguments and result travel as pickles in a private
temporary folder.

The child computes exactly what the call would compute here (same code, same inputs), so the result is
the same either way. If the child cannot start, fails, or its arguments cannot be pickled, ``result``
raises ``BackgroundFailed`` and the caller computes in its own process. The child ends itself when this
process ends (it watches its parent), and ``cancel`` (also run at exit) stops it and removes the folder.

Examples:
    >>> call = start_call("math:hypot", 3.0, 4.0)
    >>> call.result()
    5.0
"""

from __future__ import annotations

import atexit
import importlib
import logging
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from icml_topics._child import stop_process

__all__ = ["BackgroundCall", "BackgroundFailed", "start_call"]

logger = logging.getLogger("icml_topics")

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])  # the folder holding icml_topics/, for the child
_WATCH_SECONDS = 1.0
_MARK = "icml_topics warning: "  # how the child writes the library's warnings on its stderr


class BackgroundFailed(RuntimeError):
    """The child gave no result (it could not start, failed or was stopped): compute in this process."""


class BackgroundCall:
    """A call running in a child process; ``result`` waits for it."""

    def __init__(self, target: str, process: subprocess.Popen, folder: Path) -> None:
        self.target = target
        self.process = process
        self.folder = folder
        self.started = time.monotonic()

    def result(self) -> Any:
        """The call's return value, once the child is done; ``BackgroundFailed`` when it gave none."""
        try:
            code = self.process.wait()
            out = self.folder / "result.pkl"
            if code != 0 or not out.exists():
                problem = (self.folder / "error.txt").read_text() if (self.folder / "error.txt").exists() else ""
                raise BackgroundFailed(f"{self.target} ended with code {code} in its child process. {problem}")
            with out.open("rb") as handle:
                value = pickle.load(handle)
            _relay_warnings(self.folder / "stderr.txt")
            logger.debug("%s done in a child process after %.1f s", self.target, time.monotonic() - self.started)
            return value
        finally:
            self.cancel()

    def cancel(self) -> None:
        """Stop the child if it still runs and remove its folder (a no-op once done)."""
        stop_process(self.process)
        shutil.rmtree(self.folder, ignore_errors=True)


def start_call(target: str, *args: Any, **kwargs: Any) -> BackgroundCall:
    """Start ``target(*args, **kwargs)`` in a child process; ``target``: ``"package.module:function"``.

    Raises ``BackgroundFailed`` when the arguments cannot be pickled or no child can be started.
    """
    folder = Path(tempfile.mkdtemp(prefix="icml-topics-call-"))
    try:
        with (folder / "call.pkl").open("wb") as handle:
            pickle.dump((target, args, kwargs), handle, protocol=pickle.HIGHEST_PROTOCOL)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH", "")) if p)
        with (folder / "stderr.txt").open("wb") as stderr:
            process = subprocess.Popen(
                [sys.executable, "-m", "icml_topics._background", str(folder), str(os.getpid())],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr, env=env,
            )  # fmt: skip
    except (OSError, pickle.PicklingError, TypeError, AttributeError) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise BackgroundFailed(f"{target} cannot run in a child process: {exc}") from exc
    call = BackgroundCall(target, process, folder)
    atexit.register(call.cancel)
    return call


def _relay_warnings(path: Path) -> None:
    """The library's warnings from the child, logged here, where the user sees this process's log (anything
    else the child wrote on stderr, such as another package's warnings, only at debug level)."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return
    for line in lines:
        if line.startswith(_MARK):
            logger.warning("%s", line[len(_MARK) :])
        elif line.strip():
            logger.debug("child process: %s", line)


def _watch_parent(parent: int) -> None:
    """End this child when its parent is gone (killed, or ended without collecting the result)."""
    while True:
        time.sleep(_WATCH_SECONDS)
        if os.getppid() != parent:
            os._exit(3)


def _run(folder: Path) -> int:
    with (folder / "call.pkl").open("rb") as handle:
        target, args, kwargs = pickle.load(handle)
    module, _, name = target.partition(":")
    try:
        value = getattr(importlib.import_module(module), name)(*args, **kwargs)
        partial = folder / "result.pkl.part"
        with partial.open("wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(partial, folder / "result.pkl")  # whole or absent
    except Exception:
        (folder / "error.txt").write_text(traceback.format_exc(limit=5))
        return 1
    return 0


def _main(argv: list[str]) -> int:  # pragma: no cover - run in the child process by start_call
    folder, parent = Path(argv[0]), int(argv[1])
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    handler = logging.StreamHandler(sys.stderr)  # warnings only: the parent relays them
    handler.setFormatter(logging.Formatter(_MARK + "%(message)s"))
    handler.setLevel(logging.WARNING)
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    return _run(folder)


if __name__ == "__main__":  # pragma: no cover - the child process
    sys.exit(_main(sys.argv[1:]))

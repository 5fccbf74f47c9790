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

A child can also be started before its call is known (``start_child``): it runs a ``prepare`` call at once
(an import, say), then waits until ``submit`` hands it the call. The fit uses that for the keyphrases:
importing BERTopic takes seconds that a child spends while this process is still clustering.

Examples:
    >>> call = start_call("math:hypot", 3.0, 4.0)
    >>> call.result()
    5.0
    >>> child = start_child(prepare="importlib:invalidate_caches")  # starts now; its call comes later
    >>> child.submit("math:hypot", 6.0, 8.0).result()
    10.0
"""

from __future__ import annotations

import atexit
import contextlib
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

__all__ = [
    "BACKGROUND_ENV",
    "BackgroundCall",
    "BackgroundFailed",
    "background_allowed",
    "prepared_child",
    "start_call",
    "start_child",
]

logger = logging.getLogger("icml_topics")

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])  # the folder holding icml_topics/, for the child
_WATCH_SECONDS = 1.0
_MARK = "icml_topics warning: "  # how the child writes the library's warnings on its stderr


BACKGROUND_ENV = "ICML_TOPICS_BACKGROUND"
"""``ICML_TOPICS_BACKGROUND=0`` (or ``false``, ``no``, ``off``): no child process is started; every call is
computed in the caller's process (the results are the same)."""


def background_allowed() -> bool:
    """Whether child processes may be started (``BACKGROUND_ENV``)."""
    return os.environ.get(BACKGROUND_ENV, "").strip().lower() not in ("0", "false", "no", "off")


class BackgroundFailed(RuntimeError):
    """The child gave no result (it could not start, failed or was stopped): compute in this process."""


class BackgroundCall:
    """A call running (or, from ``start_child``, waiting to be given) in a child process; ``result`` waits
    for it."""

    def __init__(self, target: str, process: subprocess.Popen, folder: Path) -> None:
        self.target = target
        self.process = process
        self.folder = folder
        self.started = time.monotonic()

    def submit(self, target: str, *args: Any, **kwargs: Any) -> BackgroundCall:
        """Hand the waiting child its call, ``target(*args, **kwargs)`` (once); returns ``self``.

        Raises ``BackgroundFailed`` (and stops the child) when the arguments cannot be pickled or the child
        is gone.
        """
        try:
            self._send(target, _pickled(target, args, kwargs))
        except BackgroundFailed:
            self.cancel()
            raise
        return self

    def _send(self, target: str, payload: bytes) -> None:
        try:
            (self.folder / "call.pkl").write_bytes(payload)
            self.process.stdin.write(b"go\n")  # the child reads the call once it gets this line
            self.process.stdin.close()
        except (OSError, ValueError) as exc:
            raise BackgroundFailed(f"{target} cannot run in a child process: {exc}") from exc
        self.target = target

    def result(self) -> Any:
        """The call's return value, once the child is done; ``BackgroundFailed`` when it gave none."""
        try:
            if not (self.folder / "call.pkl").exists():
                raise BackgroundFailed("the child process was given no call (BackgroundCall.submit)")
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
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def start_call(target: str, *args: Any, **kwargs: Any) -> BackgroundCall:
    """Start ``target(*args, **kwargs)`` in a child process; ``target``: ``"package.module:function"``.

    Raises ``BackgroundFailed`` when the arguments cannot be pickled (before any child starts) or no child
    can be started.
    """
    payload = _pickled(target, args, kwargs)
    call = start_child()
    try:
        call._send(target, payload)
    except BackgroundFailed:
        call.cancel()
        raise
    return call


def prepared_child(prepare: str, instead: str) -> BackgroundCall | None:
    """``start_child(prepare)``, or None when no child can start (logged at debug level with ``instead``:
    what the caller does then)."""
    try:
        return start_child(prepare=prepare)
    except BackgroundFailed as exc:
        logger.debug("%s: %s", instead, exc)
        return None


def _pickled(target: str, args: tuple, kwargs: dict) -> bytes:
    try:
        return pickle.dumps((target, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        raise BackgroundFailed(f"{target} cannot run in a child process: {exc}") from exc


def start_child(prepare: str | None = None) -> BackgroundCall:
    """Start a child process that calls ``prepare`` (``"package.module:function"``, no arguments; its errors
    are ignored) at once and then waits for ``submit`` to give it its call.

    Raises ``BackgroundFailed`` when no child can be started (or ``ICML_TOPICS_BACKGROUND=0``).
    """
    if not background_allowed():
        raise BackgroundFailed(f"child processes are off ({BACKGROUND_ENV}=0)")
    folder = Path(tempfile.mkdtemp(prefix="icml-topics-call-"))
    try:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH", "")) if p)
        with (folder / "stderr.txt").open("wb") as stderr:
            process = subprocess.Popen(
                [sys.executable, "-m", "icml_topics._background", str(folder), str(os.getpid()), prepare or ""],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=stderr, env=env,
            )  # fmt: skip
    except OSError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise BackgroundFailed(f"no child process could be started: {exc}") from exc
    call = BackgroundCall(prepare or "(waiting for a call)", process, folder)
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


def _watch_parent(parent: int, folder: Path) -> None:
    """End this child, and remove its folder, when its parent is gone (killed, or ended without collecting
    the result)."""
    while True:
        time.sleep(_WATCH_SECONDS)
        if os.getppid() != parent:
            shutil.rmtree(folder, ignore_errors=True)
            os._exit(3)


def _resolve(target: str) -> Any:
    module, _, name = target.partition(":")
    value: Any = importlib.import_module(module)
    for part in name.split("."):
        value = getattr(value, part)
    return value


def _run(folder: Path, prepare: str) -> int:
    if prepare:
        try:
            _resolve(prepare)()
        except Exception:  # only a head start: the call itself reports what fails
            logger.debug("prepare %s failed in the child", prepare, exc_info=True)
    if sys.stdin.readline().strip() != "go":  # the parent cancelled, or is gone, before giving a call
        shutil.rmtree(folder, ignore_errors=True)
        return 0
    with (folder / "call.pkl").open("rb") as handle:
        target, args, kwargs = pickle.load(handle)
    try:
        value = _resolve(target)(*args, **kwargs)
        partial = folder / "result.pkl.part"
        with partial.open("wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(partial, folder / "result.pkl")  # whole or absent
    except Exception:
        (folder / "error.txt").write_text(traceback.format_exc(limit=5))
        return 1
    return 0


def _main(argv: list[str]) -> int:  # pragma: no cover - run in the child process by start_child
    folder, parent, prepare = Path(argv[0]), int(argv[1]), argv[2] if len(argv) > 2 else ""
    threading.Thread(target=_watch_parent, args=(parent, folder), daemon=True).start()
    handler = logging.StreamHandler(sys.stderr)  # warnings only: the parent relays them
    handler.setFormatter(logging.Formatter(_MARK + "%(message)s"))
    handler.setLevel(logging.WARNING)
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    return _run(folder, prepare)


if __name__ == "__main__":  # pragma: no cover - the child process
    sys.exit(_main(sys.argv[1:]))

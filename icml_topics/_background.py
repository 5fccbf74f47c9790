"""The fit's one background worker: a function of arrays and plain settings run in one worker process
while the fit goes on (``concurrent.futures.ProcessPoolExecutor``, spawn context, one worker).

This is the one module that starts a process for the fit (the embedding setup has its own, ``_child.py``).
The fit uses it for the 2-D map: UMAP is single-core numba code that nothing before the tree stage needs,
so the worker projects while this process assigns the themes and builds the topic tree, on a second core
(``fitting.run_stages`` resolves the map before the first stage that reads it). On a machine whose numba
cache is cold the same worker first compiles UMAP's code while this process embeds
(``stages/jit_warmup.py``).

A job is a module-level function and its arguments (arrays, numbers, strings, small frozen dataclasses of
them): never the fit's settings or a user's objects. The worker computes exactly what the call computes
here (same code, same inputs), so the result is the same either way; when it cannot give one (no process
can start, it fails, it is killed, it stops making progress), ``Job.result`` says so in one info line and
computes the call in this process. A wait never blocks for ever: while it waits it checks that the worker
still uses CPU time (``STALL_SECONDS``). Nothing is written to disk: arguments and results travel through
the executor's pipes, and the worker ends with its parent's pipe.

Examples:
    >>> import math
    >>> worker = Background()
    >>> job = worker.submit("a hypotenuse", math.hypot, 3.0, 4.0)
    >>> job.result()
    5.0
    >>> worker.close()
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

__all__ = [
    "BACKGROUND_ENV",
    "LEGACY_FOLDER_PREFIX",
    "STALL_SECONDS",
    "Background",
    "BackgroundFailed",
    "Job",
    "background_allowed",
    "say_once",
    "sweep_legacy_folders",
]

logger = logging.getLogger("icml_topics")

BACKGROUND_ENV = "ICML_TOPICS_BACKGROUND"
"""``ICML_TOPICS_BACKGROUND=0`` (or ``false``, ``no``, ``off``): no worker process is started; every job is
computed in the caller's process (the results are the same)."""

STALL_SECONDS = 120.0
"""A worker whose CPU time has not grown for this long (stopped, deadlocked) is given up: the job is
computed in this process."""

WAIT_SECONDS = 3600.0
"""The longest wait for one job where the worker's CPU time cannot be read (no ``/proc``)."""

POLL_SECONDS = 1.0
"""How often a wait checks the worker's progress."""

PARENT_CHECK_SECONDS = 1.0
"""How often the worker checks that its parent is alive (it ends itself when not)."""

LEGACY_FOLDER_PREFIX = "icml-topics-call-"
"""The temporary folders of earlier versions' child processes (pickled arguments, embeddings among them)."""

LEGACY_FOLDER_AGE = 3600.0
"""A legacy folder untouched for this long belongs to no running fit: ``sweep_legacy_folders`` removes it."""

_said: set[str] = set()  # the info lines already logged in this process (each is said once)


def background_allowed() -> bool:
    """Whether a worker process may be started (``BACKGROUND_ENV``)."""
    return os.environ.get(BACKGROUND_ENV, "").strip().lower() not in ("0", "false", "no", "off")


def say_once(message: str) -> None:
    """Log ``message`` at info level, once per process."""
    if message not in _said:
        _said.add(message)
        logger.info("%s", message)


class BackgroundFailed(RuntimeError):
    """The worker gave no result (it could not start, failed, was killed or stopped making progress)."""


class Job:
    """One call submitted to a ``Background``: ``result`` gives its value (computed here when the worker
    gives none)."""

    def __init__(self, what: str, fn: Callable[..., Any], args: tuple, kwargs: dict, owner: Background) -> None:
        self.what, self.fn, self.args, self.kwargs = what, fn, args, kwargs
        self.owner = owner
        self.future: Future | None = None
        self._done = False
        self._value: Any = None

    def result(self) -> Any:
        """The call's value: the worker's, or, when it gives none, computed in this process (one info line
        says why)."""
        if not self._done and self.future is None:  # never submitted: said so at submit
            self._value = self.fn(*self.args, **self.kwargs)
        elif not self._done:
            try:
                self._value = self.owner.wait(self)
            except BackgroundFailed as exc:
                say_once(f"{self.what} is computed in this process: {exc}")
                self.owner.close()
                self._value = self.fn(*self.args, **self.kwargs)
            self._done = True
            self.args = self.kwargs = ()  # the inputs are no longer needed
        return self._value


class Background:
    """At most one worker process (started with the first job, spawn context), for the jobs of one fit, in
    the order submitted; ``close`` ends it (a job still running is stopped)."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._pid: Future | None = None
        self._futures: list[Future] = []
        self._broken: str | None = None
        self._finished = False

    def available(self) -> bool:
        """Whether a job submitted now would run in a worker process (else it is computed here)."""
        return self._unavailable() is None

    def submit(self, what: str, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Job:
        """Start ``fn(*args, **kwargs)`` in the worker (``what``: its name in messages); ``fn`` must be a
        module-level function and the arguments plain data. When no worker can run it, the job is computed
        when its result is asked for (one info line says why)."""
        job = Job(what, fn, args, kwargs, self)
        reason = self._unavailable()
        if reason is not None:
            say_once(f"{what} is computed in this process: {reason}")
            return job
        try:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_watch_parent,
                    initargs=(os.getpid(),),
                )
                self._pid = self._pool.submit(os.getpid)  # the worker's pid: its progress is watched
            job.future = self._pool.submit(fn, *args, **kwargs)
            self._futures.append(job.future)
        except Exception as exc:  # no process can start here, or the arguments cannot be sent
            self._broken = f"no worker process could be started ({exc})"
            say_once(f"{what} is computed in this process: {self._broken}")
            self.close()
        return job

    def finish(self) -> None:
        """No more jobs: the worker ends as soon as the submitted ones are done (their results stay readable),
        so it holds no memory while the fit goes on without it."""
        if self._pool is not None and not self._finished:
            self._finished = True
            self._pool.shutdown(wait=False)

    def _unavailable(self) -> str | None:
        if self._finished:
            return "the fit's worker has finished its jobs"
        if not background_allowed():
            return f"worker processes are off ({BACKGROUND_ENV}=0)"
        if self._broken:
            return self._broken
        return _main_module_problem()

    def wait(self, job: Job) -> Any:
        """``job``'s value from the worker; ``BackgroundFailed`` when it gives none, or when the worker uses no
        CPU for ``STALL_SECONDS`` (checked every ``POLL_SECONDS``)."""
        if job.future is None:
            raise BackgroundFailed(self._broken or "no worker process ran it")  # Job.result computes it here
        started = last_change = time.monotonic()
        last_cpu: float | None = None
        told = False
        while True:
            try:
                return job.future.result(timeout=POLL_SECONDS)
            except FutureTimeout:
                pass
            except Exception as exc:  # the call raised, or the worker died (BrokenProcessPool)
                raise BackgroundFailed(f"its worker process gave no result ({type(exc).__name__}: {exc})") from exc
            now = time.monotonic()
            pid = self._worker_pid()
            cpu = _cpu_seconds(pid) if pid is not None else None
            if not told and now - started > 10.0:
                logger.debug("waiting for %s from the worker process (pid %s)", job.what, pid)
                told = True
            if cpu is None:
                if now - started > WAIT_SECONDS:
                    raise BackgroundFailed(f"its worker process gave no result in {WAIT_SECONDS:.0f} s")
                continue
            if cpu != last_cpu:
                last_cpu, last_change = cpu, now
            elif now - last_change > STALL_SECONDS:
                raise BackgroundFailed(
                    f"its worker process (pid {pid}) has used no CPU for {STALL_SECONDS:.0f} s (stopped or stuck)"
                )

    def _worker_pid(self) -> int | None:
        try:
            return self._pid.result(timeout=0) if self._pid is not None else None
        except Exception:
            return None

    def close(self) -> None:
        """End the worker: a job still running is stopped (its process killed), queued ones cancelled."""
        pool, self._pool = self._pool, None
        futures, self._futures = self._futures, []
        if pool is None:
            return
        if all(f.done() for f in futures):  # an idle worker ends by itself, at once
            pool.shutdown(wait=False)
            return
        pid = self._worker_pid()
        if pid is not None:
            try:  # a stopped or busy worker would keep shutdown (and this process's exit) waiting
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass  # already gone
        pool.shutdown(wait=False, cancel_futures=True)


def _watch_parent(parent: int) -> None:
    """In the worker: end it when its parent is gone (killed in the middle of a job, say)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(3)

    threading.Thread(target=watch, name="icml-topics-parent-watch", daemon=True).start()


def _cpu_seconds(pid: int) -> float | None:
    """The CPU time ``pid`` has used (``/proc``); a stopped process counts as making no progress: None where
    it cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    if fields[0] in ("T", "t"):  # stopped (SIGSTOP) or traced: report the same time as before
        return -1.0
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    return (int(fields[11]) + int(fields[12])) / ticks


_GUARD = re.compile(r"""__name__\s*==\s*['"]__main__['"]""")


def _main_module_problem() -> str | None:
    """Why a spawned worker cannot start safely here, or None: it imports the main module again, so a
    script run by path must keep its work under ``if __name__ == "__main__":`` (Python's rule for
    ``multiprocessing``); a script without that guard would run again in the worker."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is None or getattr(getattr(main, "__spec__", None), "name", None):
        return None  # Jupyter, python -c, python -m: nothing is run again
    try:
        source = Path(path).read_text(errors="replace")
    except OSError:
        return None
    if _GUARD.search(source):
        return None
    return f'{Path(path).name} has no `if __name__ == "__main__":` guard, which a worker process needs'


def sweep_legacy_folders(root: str | os.PathLike | None = None, *, age: float = LEGACY_FOLDER_AGE) -> list[Path]:
    """Remove the ``icml-topics-call-*`` folders that earlier versions' child processes left in the temporary
    folder (``root``: ``tempfile.gettempdir()``) when a run was killed: those untouched for ``age`` seconds.
    Returns the folders removed."""
    base = Path(root or tempfile.gettempdir())
    removed = []
    try:
        candidates = list(base.glob(f"{LEGACY_FOLDER_PREFIX}*"))
    except OSError:
        return removed
    now = time.time()
    for folder in candidates:
        try:
            if not folder.is_dir() or folder.is_symlink() or now - _newest_mtime(folder) < age:
                continue
        except OSError:
            continue
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            removed.append(folder)
    if removed:
        logger.debug("removed %d temporary folders of killed runs from %s", len(removed), base)
    return removed


def _newest_mtime(folder: Path) -> float:
    times = [folder.stat().st_mtime]
    for child in folder.iterdir():
        try:
            times.append(child.lstat().st_mtime)
        except OSError:
            continue
    return max(times)

"""One process at a time for once-per-machine work (the embedding-path decision, numba's first compilation).

Two fits started together on a new machine (two notebooks, a test suite's workers, a script and its
subprocesses) would otherwise both export the model, both run the guard and both compile numba's code: the
same minutes of CPU twice, each slowing the other. ``machine_lock`` is an advisory lock on a file
(``flock`` on POSIX, ``msvcrt.locking`` on Windows): the second process waits, then finds the work done. The
operating system releases it when its holder ends, killed or not, so a crashed run never blocks a later one.
Where no lock file can be made (a read-only folder) the work runs unlocked, as it would without this module.

    >>> from pathlib import Path
    >>> import tempfile
    >>> with machine_lock(Path(tempfile.mkdtemp()) / "setup.lock") as held:
    ...     held
    True
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["machine_lock"]

logger = logging.getLogger("icml_topics")

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
try:  # pragma: no cover - Windows
    import msvcrt
except ImportError:
    msvcrt = None  # type: ignore[assignment]


@contextlib.contextmanager
def machine_lock(path: str | os.PathLike[str], *, what: str = "once-per-machine work") -> Iterator[bool]:
    """Hold the lock file ``path`` for the block (waiting while another process holds it); yields whether
    the lock is held (False where the file cannot be made: the block then runs unlocked)."""
    path = Path(path)
    handle = _open(path, what)
    if handle is None:
        yield False
        return
    try:
        waited = _acquire(handle, path, what)
        if waited is None:
            yield False
            return
        if waited > 0.5:
            logger.debug("waited %.1f s for another process's %s", waited, what)
        try:
            yield True
        finally:
            _release(handle)
    finally:
        handle.close()


def _open(path: Path, what: str):
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return open(path, "a+b")  # noqa: SIM115 - the caller closes it, after the lock is released
    except OSError as exc:
        logger.debug("no lock for %s (%s): running without one", what, exc)
        return None


def _acquire(handle, path: Path, what: str) -> float | None:
    """Block until ``handle`` is locked; the seconds waited, or None when this platform cannot lock it."""
    t0 = time.monotonic()
    try:
        if fcntl is not None:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                logger.info("waiting for another process's %s to finish (%s)", what, path)
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        elif msvcrt is not None:  # pragma: no cover - Windows: LK_LOCK retries for 10 s, so loop
            handle.seek(0)  # the lock covers the file's first byte
            while True:
                try:
                    msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)
                    break
                except OSError:
                    continue
        else:  # pragma: no cover - neither: unlocked
            return None
    except OSError as exc:  # a file system without locks (some network mounts)
        logger.debug("cannot lock %s for %s (%s): running without the lock", path, what, exc)
        return None
    return time.monotonic() - t0


def _release(handle) -> None:
    try:
        if fcntl is not None:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        elif msvcrt is not None:  # pragma: no cover - Windows
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
    except OSError:  # closing the file releases it anyway
        pass

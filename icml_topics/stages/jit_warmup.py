"""Numba's first-use compilation, done by a child process while the fit reads and embeds.

UMAP and pynndescent (the 2-D map) compile their numba functions the first time a process uses them and
keep the machine code in numba's on-disk cache. On a new machine (or after an upgrade) that is tens of
seconds of single-core work at the map stage. ``start`` runs it in a child process on a small synthetic
corpus while the fit embeds, so the fit's own process then loads the compiled code from the cache and
never holds the compiler's memory. A small corpus's map (t-SNE) and the topic tree (scipy) use no numba,
so a small demo compiles nothing. ``ready`` waits for a
step's code before the stage that needs it, so the two processes never compile the same function. Two
fits started together on a new machine (two notebooks, a test suite's workers) compile each step once: a
child holds a lock per step beside numba's cache, and the other waits for it, then finds the code cached.

Nothing is started when numba's cache already holds UMAP's code (every later run), or with
``ICML_TOPICS_JIT_WARMUP=0``. The child writes only numba's cache; it fits no user data, and if it fails
or is killed the fit compiles what it needs itself, as without it.

    >>> from icml_topics.stages import jit_warmup
    >>> warmup = jit_warmup.start(large=False)
    >>> jit_warmup.ready("umap")
    True
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from icml_topics._child import stop_process
from icml_topics._machine_lock import machine_lock
from icml_topics.stages.reduce import MapProjector, knn_graph

__all__ = ["STEPS", "Warmup", "cache_is_warm", "ready", "start", "step_is_cached", "step_lock"]

logger = logging.getLogger("icml_topics")

STEPS = ("umap",)
"""What the child compiles, in this order; it prints each name on its stdout once that code is cached."""
WAIT_SECONDS = 900.0
"""The longest ``ready`` waits for one step; then the stage compiles for itself."""
_ENV = "ICML_TOPICS_JIT_WARMUP"
# one numba-cached source file per step: its index exists once that step's code was compiled here
_PROBES = {"umap": ("umap", "layouts")}

_current: Warmup | None = None
_lock = threading.Lock()


class Warmup:
    """A running warm-up child: ``ready`` blocks until it has compiled a step (or has ended)."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.process = process
        self.done: set[str] = set()
        self.started = time.monotonic()
        self._lock = threading.Lock()

    def ready(self, step: str, timeout: float = WAIT_SECONDS) -> bool:
        """True once the child has compiled ``step``; False when it ended without it or ``timeout`` passed."""
        if step not in STEPS:
            raise ValueError(f"unknown warm-up step {step!r}; use one of {', '.join(STEPS)}")
        deadline = time.monotonic() + timeout
        with self._lock:
            while step not in self.done:
                line = self._next_line(deadline)
                if line is None:
                    return False
                self.done.add(line)
        return True

    def _next_line(self, deadline: float) -> str | None:
        stdout = self.process.stdout
        if stdout is None or time.monotonic() > deadline:
            return None
        line = stdout.readline()  # the child flushes one short line per step, then exits
        if not line:
            self.process.wait()
            return None
        return line.strip()

    def stop(self) -> None:
        """End the child if it still runs (the fit is over or was interrupted)."""
        stop_process(self.process)


def cache_is_warm() -> bool:
    """Whether numba's on-disk cache already holds UMAP's compiled code on this machine."""
    return all(step_is_cached(step) for step in STEPS)


def step_is_cached(step: str) -> bool:
    """Whether numba's on-disk cache holds the code of warm-up step ``step`` (``"umap"``)."""
    return _indexed(*_PROBES[step])


def start(*, large: bool) -> Warmup | None:
    """Start the warm-up child unless numba's cache is warm, it is switched off, or one already runs.

    ``large``: the fit takes the large-corpus path (approximate kNN graph), so compile that one too.
    """
    global _current
    if os.environ.get(_ENV, "").strip().lower() in ("0", "false", "no", "off"):
        return None
    with _lock:
        if _current is not None and _current.process.poll() is None:
            return _current
        if cache_is_warm():
            return None
        command = [sys.executable, "-m", "icml_topics.stages.jit_warmup", *(["--large"] if large else [])]
        try:
            process = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True
            )
        except OSError as exc:  # no fork/exec here: the stages compile in this process, as without the child
            logger.debug("numba warm-up child not started: %s", exc)
            return None
        _current = Warmup(process)
        atexit.register(_current.stop)
        logger.debug("compiling UMAP's numba code in a child process (pid %d), once", process.pid)
        return _current


def ready(step: str) -> bool:
    """Wait until the running warm-up (if any) has compiled ``step``; True when it did, False when none
    runs or it ended without it (the caller then compiles for itself)."""
    warmup = _current
    if warmup is None:
        return False
    t0 = time.monotonic()
    done = warmup.ready(step)
    logger.debug(
        "numba warm-up %s: %s after waiting %.1f s", step, "ready" if done else "not done", time.monotonic() - t0
    )
    return done


def _indexed(package: str, module: str) -> bool:
    """Whether numba's cache holds an index for ``package/module.py`` in the folder numba itself would use
    (``$NUMBA_CACHE_DIR``, the package's ``__pycache__``, or the per-user cache, first that is writable)."""
    spec = importlib.util.find_spec(package)  # a top-level name: found without importing (and compiling) it
    if spec is None or not spec.submodule_search_locations:
        return True  # not installed: nothing to compile
    folder = Path(next(iter(spec.submodule_search_locations)))
    root = os.environ.get("NUMBA_CACHE_DIR", "").strip()
    quick = list(Path(root).glob(f"{package}_*")) if root else [folder / "__pycache__"]  # numba's usual places
    if any(any(place.glob(f"{module}.*.nbi")) for place in quick):
        return True  # found without importing numba (a warm run need not)
    if root:
        return False  # numba uses $NUMBA_CACHE_DIR alone when it is set
    source = str(folder / f"{module}.py")
    try:
        from numba.core import caching

        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.6x
        for locator_class in impl._locator_classes:
            locator = locator_class.from_function(_indexed, source)
            if locator is not None:
                return any(Path(locator.get_cache_path()).glob(f"{module}.*.nbi"))
    except Exception as exc:  # another numba: assume cold, the child then finds its code cached quickly
        logger.debug("cannot locate numba's cache (%s)", exc)
    return False


def _synthetic_corpus(n: int = 600, dim: int = 384, n_groups: int = 12, seed: int = 0) -> np.ndarray:
    """Unit vectors around ``n_groups`` centres: clustered like abstracts, so every stage runs its whole path."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_groups, dim))
    x = centres[rng.integers(0, n_groups, n)] + 0.6 * rng.normal(size=(n, dim))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def step_lock(step: str) -> Path | None:
    """The lock file of warm-up step ``step``, beside the numba cache it fills (``$NUMBA_CACHE_DIR``, else the
    package's ``__pycache__``), so two processes never compile one step into one cache."""
    package, _ = _PROBES[step]
    root = os.environ.get("NUMBA_CACHE_DIR", "").strip()
    if root:
        return Path(root) / f"icml-topics-warmup-{step}.lock"
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None  # not installed
    # a read-only package folder (numba then caches per user): machine_lock runs the step unlocked
    return Path(next(iter(spec.submodule_search_locations))) / "__pycache__" / "icml-topics-warmup.lock"


def _compile(step: str, emb: np.ndarray, large: bool) -> None:

    knn = knn_graph(emb, 15, approximate=False)
    if large:
        knn_graph(emb, 15, approximate=True)
    MapProjector(15, method="umap", random_state=0).fit_transform(emb, knn)


def _main(large: bool, steps: tuple[str, ...] = STEPS) -> None:
    """Compile each step that numba's cache lacks, one process at a time per step (another warm-up child
    compiling it is waited for: then the step is cached); print the step's name once it is."""
    emb = _synthetic_corpus()
    for step in (s for s in STEPS if s in steps):
        lock = step_lock(step)
        with machine_lock(lock, what=f"numba compilation of {step}") if lock else contextlib.nullcontext():
            # the large path's approximate kNN graph has no probe of its own: compiled (or loaded) each time
            if not step_is_cached(step) or (large and step == "umap"):
                _compile(step, emb, large)
        print(step, flush=True)


if __name__ == "__main__":  # pragma: no cover - run as the child process by start()
    args = sys.argv[1:]
    _main("--large" in args, tuple(a for a in args if a in STEPS) or STEPS)

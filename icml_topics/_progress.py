"""How a fit talks: silent by default in Python, a progress bar with ``verbose=True``, one line per stage on the CLI.

* ``Stages(verbose)``: the fit's stages. With ``verbose=True`` and a handler on the ``icml_topics``
  logger (the CLI installs one), each stage is one log line; without a handler (Jupyter, a script)
  it is one ``tqdm.auto`` bar, a widget in Jupyter (ipywidgets, the ``notebook`` extra).
* ``quiet_libraries()``: while a model loads and runs, transformers' and huggingface_hub's own
  progress bars ("Loading weights") stay hidden; their state is restored afterwards.
* ``StageFilter``: the CLI's log filter: stage lines, warnings and errors pass, other chatter does not.
* ``step(message)``: what a long stage is doing now (a theme of the tree, the keyphrases, the names), called
  deep in the stage code with no handle on the fit: while a verbose fit runs, a stage silent for
  ``HEARTBEAT_SECONDS`` gets a line ``<stage>: <step>, <n> s so far`` (in Jupyter, the bar shows the step).

    >>> with quiet_libraries():
    ...     with Stages(verbose=True, total=4) as stages:
    ...         stages.start("embedding 5,630 abstracts")
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import sys
import threading
import time
from collections.abc import Iterator
from typing import Literal

__all__ = [
    "HEARTBEAT_SECONDS",
    "StageFilter",
    "Stages",
    "embedding_progress",
    "interactive",
    "quiet_libraries",
    "stage_line",
    "step",
    "ticking",
]

logger = logging.getLogger("icml_topics")
STAGE = "icml_topics_stage"  # attribute set on the log records of stage lines
HEARTBEAT_SECONDS = 10.0
"""A verbose fit's stage silent this long gets a line saying what it does and how long it has run."""


def interactive() -> bool:
    """True in Jupyter/IPython kernels and on a terminal: places where a redrawn bar is readable."""
    if "ipykernel" in sys.modules:
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def embedding_progress(verbose: bool, *, lines: bool = False) -> bool | Literal["log"] | None:
    """``show_progress_bar`` for [`icml_topics.embed`][icml_topics.embed]: never when quiet, its own rule (a
    tqdm bar with texts/s and time left) when interactive; in a log file (a bar that cannot redraw writes one
    line per update) nothing, or with ``lines`` (a fit's documents) a stage line every few seconds (``"log"``)."""
    if not verbose:
        return False
    if interactive():
        return None
    return "log" if lines else False


def stage_line(message: str, *args: object) -> None:
    """One line the CLI shows (it passes ``StageFilter``); in Python, an INFO record of ``icml_topics``."""
    logger.info(message, *args, extra={STAGE: True})


@contextlib.contextmanager
def ticking(what: str, verbose: bool, every: float = 10.0) -> Iterator[None]:
    """While the block runs, show that ``what`` is still going: with a log handler (the CLI) a stage line every
    ``every`` seconds with the time so far; without one (Jupyter, a script) a ``tqdm.auto`` bar counting
    seconds; nothing when not ``verbose``."""
    if not verbose:
        yield
        return
    bar = None
    if not _has_handler():
        from tqdm.auto import tqdm

        bar = tqdm(desc=what, bar_format="{desc}: {elapsed}", leave=False)
    stop = threading.Event()
    started = time.monotonic()

    def tick() -> None:
        while not stop.wait(1.0 if bar is not None else every):
            if bar is not None:
                bar.refresh()
            else:
                stage_line("%s: %d s so far", what, time.monotonic() - started)

    thread = threading.Thread(target=tick, name="icml-topics-ticking", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        if bar is not None:
            bar.close()


class Stages:
    """The stages of one fit, shown as one line each (with a log handler) or as one progress bar; while a
    stage runs, ``step`` lines (see the module) keep it from falling silent for more than ``heartbeat`` s."""

    def __init__(self, verbose: bool, total: int, *, heartbeat: float | None = None) -> None:
        self.verbose = verbose
        self.total = total
        self.heartbeat = HEARTBEAT_SECONDS if heartbeat is None else heartbeat
        self._bar = None
        self._count = 0
        self._stage = ""
        self._step = ""
        self._started = self._last_line = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._token: contextvars.Token | None = None

    def __enter__(self) -> Stages:  # noqa: PYI034 - Stages is final
        if self.verbose and not _has_handler():
            from tqdm.auto import tqdm

            self._bar = tqdm(total=self.total, desc="icml_topics", unit="stage", leave=False)
        if self.verbose:
            self._token = _ACTIVE.set(self)
            logger.addFilter(self._seen)
            self._thread = threading.Thread(target=self._beat, name="icml-topics-heartbeat", daemon=True)
            self._thread.start()
        return self

    def start(self, message: str, *args: object) -> None:
        """Announce the next stage: ``start("embedding %d abstracts", n)``."""
        self._stage, self._step = (message % args if args else message), ""
        self._started = time.monotonic()
        if self._bar is not None:
            if self._count:
                self._bar.update(1)
            self._bar.set_description_str(self._stage)
        elif self.verbose:
            logger.info(message, *args, extra={STAGE: True})
        self._count += 1

    def step(self, message: str) -> None:
        """What the current stage is doing now: on the bar at once; as a line at once when the stage has been
        silent for ``heartbeat`` s, else by the heartbeat when it stays silent that long."""
        self._step = message
        if self._bar is not None:
            self._bar.set_postfix_str(message, refresh=True)
        elif self.verbose and self._stage:
            self._line_if_silent()

    def done(self, message: str, *args: object) -> None:
        """The closing line (the CLI's summary of the fit); a bar just completes."""
        self._stage = ""
        if self._bar is not None:
            self._bar.update(self.total - self._bar.n)
        elif self.verbose:
            logger.info(message, *args, extra={STAGE: True})

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            logger.removeFilter(self._seen)
        if self._token is not None:
            _ACTIVE.reset(self._token)
        if self._bar is not None:
            self._bar.close()

    def _seen(self, record: logging.LogRecord) -> bool:
        """A logger filter that passes everything and notes when the last stage line was shown."""
        if getattr(record, STAGE, False):
            self._last_line = time.monotonic()
        return True

    def _beat(self) -> None:
        while not self._stop.wait(1.0):
            if self._bar is not None:
                self._bar.refresh()
            elif self._stage:
                self._line_if_silent()

    def _line_if_silent(self) -> None:
        if time.monotonic() - self._last_line >= self.heartbeat:
            doing = f"{self._stage}: {self._step}" if self._step else self._stage
            stage_line("%s, %d s so far", doing, time.monotonic() - self._started)


_ACTIVE: contextvars.ContextVar[Stages | None] = contextvars.ContextVar("icml_topics_stages", default=None)


def step(message: str, *args: object) -> None:
    """Say what the running stage of a verbose fit is doing now (``step("clustering theme %d of %d", i, n)``);
    nothing outside a fit or when it is quiet. Cheap: call it at each part of a long stage."""
    stages = _ACTIVE.get()
    if stages is not None:
        stages.step(message % args if args else message)


def _has_handler() -> bool:
    log: logging.Logger | None = logger
    while log is not None:
        if log.handlers:
            return True
        log = log.parent if log.propagate else None
    return False


class StageFilter(logging.Filter):
    """Pass stage lines and warnings/errors; drop the per-step INFO chatter of the stages."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or bool(getattr(record, STAGE, False))


@contextlib.contextmanager
def quiet_libraries() -> Iterator[None]:
    """Hide transformers' / huggingface_hub's progress bars (e.g. "Loading weights") inside the block."""
    from huggingface_hub import utils as hub

    hub_was_disabled = hub.are_progress_bars_disabled()
    transformers_logging = sys.modules.get("transformers.utils.logging")
    tf_was_enabled = transformers_logging.is_progress_bar_enabled() if transformers_logging else None
    hub.disable_progress_bars()  # transformers imported inside the block reads this state
    if transformers_logging is not None:
        transformers_logging.disable_progress_bar()
    try:
        yield
    finally:
        transformers_logging = sys.modules.get("transformers.utils.logging")
        if transformers_logging is not None and (tf_was_enabled or (tf_was_enabled is None and not hub_was_disabled)):
            transformers_logging.enable_progress_bar()  # also re-enables huggingface_hub's bars
        if hub_was_disabled:
            hub.disable_progress_bars()
        else:
            hub.enable_progress_bars()

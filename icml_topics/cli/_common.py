"""Shared CLI plumbing: logging to the terminal, turning the library's own errors into one clear line.

Errors icml_topics raises on purpose ([`IcmlTopicsError`][icml_topics.IcmlTopicsError]: the message names the
value, the rule and the fix) and the machine's own (``OSError``: disk full, permission denied) are one
line and exit code 2. Anything else is a bug: its traceback is shown (the last frames; ``--debug``: all
of it) with a line asking to report it, exit code 1.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
import traceback
from collections.abc import Iterator
from typing import Any

import typer

from icml_topics.errors import IcmlTopicsError, InvalidValueError

__all__ = [
    "DEBUG_HELP",
    "EXPECTED_ERRORS",
    "NAMER_KEY_HELP",
    "NAMER_MODEL_HELP",
    "NAMER_URL_HELP",
    "cli_errors",
    "setup_logging",
    "topic_namer",
]

EXPECTED_ERRORS: tuple[type[BaseException], ...] = (IcmlTopicsError, OSError)
"""Shown as one line: the library's own errors and the machine's (a full disk, a folder without write access)."""
DEBUG_HELP = "Show the full traceback of any error (for bug reports)."
BUG_FRAMES = 6  # frames of an unexpected error's traceback shown without --debug
NAMER_URL_HELP = (
    "Name the topic tree with a language model behind this OpenAI-compatible API (e.g. http://127.0.0.1:8080/v1 "
    "for llama.cpp, http://localhost:11434/v1 for Ollama); with --namer-model. Default: offline names only."
)
NAMER_MODEL_HELP = "The model --namer-url serves, e.g. llama-3.1-8b-instruct."
NAMER_KEY_HELP = "Environment variable holding the API key for --namer-url (e.g. OPENAI_API_KEY). Default: no key."


def topic_namer(url: str | None, model: str | None, key_env: str | None) -> Any:
    """The ``TopicMap(topic_namer=...)`` of ``--namer-url``, ``--namer-model`` and ``--namer-key-env``: an
    ``OpenAINamer``, or ``None`` when no URL is given (no request is ever sent then).

        >>> topic_namer(None, None, None) is None
        True
    """
    if url is None and model is None and key_env is None:
        return None
    if not url or not model:
        raise InvalidValueError(
            f"--namer-url {url!r} and --namer-model {model!r}: give both (the API's address and the model it "
            "serves), or neither for the offline names."
        )
    if key_env is not None and key_env not in os.environ:
        raise InvalidValueError(
            f"--namer-key-env {key_env}: no such environment variable is set; export it (export {key_env}=...) "
            "or leave the option out for an API without a key."
        )
    from icml_topics.stages.llm_namer import OpenAINamer  # lazy: keeps the CLI light

    return OpenAINamer(url, model, api_key_env=key_env)


def setup_logging(quiet: bool = False, verbose: bool = False) -> None:
    """Progress lines on stderr: ``[  12.3s] embedding 5,630 abstracts``."""
    start = time.perf_counter()

    class _Elapsed(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            return f"[{time.perf_counter() - start:7.1f}s] {record.getMessage()}"

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Elapsed())
    if not verbose:  # one line per stage (and warnings), not every step's detail
        from icml_topics._progress import StageFilter  # lazy: keeps the CLI light

        handler.addFilter(StageFilter())
    logger = logging.getLogger("icml_topics")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.WARNING if quiet else logging.DEBUG if verbose else logging.INFO)
    logger.propagate = False


@contextlib.contextmanager
def cli_errors(cache: Any = True, *, debug: bool = False) -> Iterator[None]:
    """One clear line (exit 2) for the errors in ``EXPECTED_ERRORS``, whose message tells the fix; a
    traceback (exit 1) for anything else, which is a bug. ``debug``: the full traceback of every error.

    Ctrl-C exits with 130 and one line saying what was kept (``cache``: the embedding cache in use)
    and how to resume.
    """
    previous = _on_sigterm(_terminate)
    try:
        yield
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (kill, a job scheduler): the same line
        typer.secho(
            f"interrupted: {_kept(cache)}; run the same command again to resume.", fg=typer.colors.YELLOW, err=True
        )
        raise typer.Exit(code=143 if isinstance(exc, _Terminated) else 130) from None
    except EXPECTED_ERRORS as exc:
        if debug:
            traceback.print_exception(exc, file=sys.stderr)
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
        raise typer.Exit(code=2) from None
    except Exception as exc:  # noqa: BLE001 - not one of ours: a bug, shown as one
        traceback.print_exception(exc, limit=None if debug else -BUG_FRAMES, file=sys.stderr)
        more = "" if debug else " (the last frames above; --debug shows all of them)"
        typer.secho(
            f"internal error: {type(exc).__name__}: {exc}. This is a bug in icml_topics or a library it uses, "
            f"not a problem with your input{more}; please report it with the traceback.",
            fg=typer.colors.RED,
            err=True,
        )
        raise typer.Exit(code=1) from None
    finally:
        _on_sigterm(previous)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program runs so that staging folders are cleaned up as for Ctrl-C."""


def _terminate(signum: int, frame: Any) -> None:
    raise _Terminated


def _on_sigterm(handler: Any) -> Any:
    """Install ``handler`` for SIGTERM (main thread only); returns the previous one."""
    import signal
    import threading

    if handler is None or threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, handler)


def _kept(cache: Any) -> str:
    """What an interrupted run leaves behind: never a half-written output folder; cached embeddings."""
    if cache is False or cache is None:
        return "nothing was written (the cache is off)"
    try:
        from icml_topics.embedding import EmbeddingCache, default_cache_dir  # lazy: keeps the CLI light

        with EmbeddingCache(default_cache_dir() if cache is True else cache) as store:
            entries = store.stats()["entries"] if store.path.exists() else 0
            return f"no output folder was written; {entries:,} embeddings are kept in the cache {store.path}"
    except Exception:  # noqa: BLE001 - the message must not fail
        return "no output folder was written; embeddings computed so far are kept in the cache"

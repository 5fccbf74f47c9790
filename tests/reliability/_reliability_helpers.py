"""Shared helpers of the reliability tests: run the CLI (in this process, or as a real subprocess where the
process boundary is the point), read a seed corpus."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "icml_topics" / "data" / "icml-2026-seed-abstracts.jsonl"


def cli_env(cache: Path, **extra: str) -> dict[str, str]:
    """The environment of a CLI subprocess: this checkout importable, offline, its own cache."""
    env = dict(os.environ)
    env.update(
        PYTHONPATH=str(REPO) + os.pathsep + env.get("PYTHONPATH", ""),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        ICML_TOPICS_CACHE_DIR=str(cache),
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def cli_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "icml_topics", *args]


def run_cli(
    *args: str, cache: Path, timeout: float = 300, process: bool = True, **extra: str
) -> subprocess.CompletedProcess:
    """``icml-topics ARGS`` with ``cache`` as its cache folder: as a subprocess, or with ``process=False`` in this
    process through typer's ``CliRunner`` (no new interpreter paying BERTopic's import; ``timeout`` applies to a
    subprocess only). An exception the CLI lets through shows as a traceback on stderr, as it would."""
    if process:
        return subprocess.run(
            cli_command(*args), env=cli_env(cache, **extra), capture_output=True, text=True, timeout=timeout
        )
    import logging
    import traceback

    from typer.testing import CliRunner

    from icml_topics.cli.app import app

    logger = logging.getLogger("icml_topics")
    kept = (list(logger.handlers), logger.level, logger.propagate)  # the CLI sets its own stderr handler
    env = {**{k: v for k, v in cli_env(cache, **extra).items() if k != "PYTHONPATH"}}
    try:
        result = CliRunner().invoke(app, list(args), env=env, prog_name="icml-topics")
    finally:
        logger.handlers[:], logger.level, logger.propagate = kept
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    return subprocess.CompletedProcess(cli_command(*args), result.exit_code, result.stdout, stderr)


def session_cache() -> Path:
    """The test session's cache folder (tests/conftest.py sets it), shared so texts are embedded once."""
    return Path(os.environ["ICML_TOPICS_CACHE_DIR"])


def run_python(code: str, cache: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (a crash there cannot take pytest down with it)."""
    env = cli_env(cache or session_cache())
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=timeout)


def seeded_cache(folder: Path, *, forget_texts: list[str] = ()) -> Path:
    """A fresh cache folder holding a copy of the session's embeddings, minus ``forget_texts``
    (so that a run embeds those again, and nothing else)."""
    import sqlite3

    from icml_topics.embedding.cache import normalize_text, text_key

    source = session_cache() / "embeddings" / "embeddings.sqlite3"
    (folder / "embeddings").mkdir(parents=True, exist_ok=True)
    if source.exists():
        with sqlite3.connect(source) as src, sqlite3.connect(folder / "embeddings" / "embeddings.sqlite3") as dst:
            src.backup(dst)
            keys = [(text_key(normalize_text(t)),) for t in forget_texts]
            dst.executemany("DELETE FROM vectors WHERE text_key = ?", keys)
    return folder


def seed_texts() -> list[str]:
    """The texts the model embeds for the bundled seed abstracts."""
    from icml_topics.corpus import read_corpus
    from icml_topics.corpus.validation import flag_rows

    flagged = flag_rows(read_corpus(SEEDS))
    return flagged.loc[flagged["status"] == "ok", "text"].tolist()


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_fit(tmp_path: Path, sig: int, cache: Path | None = None) -> tuple[int, str]:
    """``icml-topics fit`` on the seeds into ``tmp_path/o``, sent ``sig`` once it has started embedding;
    returns its exit code and stderr.

    The child starts with SIGINT at its default: a suite started in the background (``nohup make test &``)
    hands its workers SIGINT ignored, and the CLI, like every Unix program, keeps an ignored SIGINT.
    """
    proc = subprocess.Popen(
        cli_command("fit", str(SEEDS), "--out", str(tmp_path / "o")),
        env=cli_env(cache or tmp_path / "c"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )
    deadline = time.monotonic() + 120
    line = ""
    while time.monotonic() < deadline and "rows read" not in line:
        line = proc.stderr.readline()
        assert line or proc.poll() is None
    time.sleep(0.5)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err

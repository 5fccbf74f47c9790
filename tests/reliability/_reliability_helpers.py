"""Shared helpers of the reliability tests: run the CLI as a real subprocess, read a seed corpus."""

from __future__ import annotations

import os
import subprocess
import sys
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


def run_cli(*args: str, cache: Path, timeout: float = 300, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(cli_command(*args), env=cli_env(cache, **extra), capture_output=True, text=True, timeout=timeout)


def run_python(code: str, cache: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (a crash there cannot take pytest down with it)."""
    return subprocess.run([sys.executable, "-c", code], env=cli_env(cache), capture_output=True, text=True, timeout=timeout)

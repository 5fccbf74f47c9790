"""Running embedding variants side by side: texts shared out among one-thread workers, and variants timed
interleaved chunk by chunk (chunk 1 on every variant, then chunk 2, ...), so load from other processes hits
them alike. Used by the scripts that compare ways of running the model (``int8_graph_options.py``,
``bf16_amx_options.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

__all__ = ["emit", "share_out", "time_interleaved"]


def share_out(
    pool: ThreadPoolExecutor, workers: int, one: Callable[[int, str], np.ndarray], texts: list[str]
) -> np.ndarray:
    """Embed ``texts`` one per run, worker ``k`` taking texts ``k, k + workers, ...``; rows in the texts' order.

    ``one(k, text)`` embeds one text on worker ``k``."""
    shares = list(pool.map(lambda k: [one(k, t) for t in texts[k::workers]], range(workers)))
    out = np.empty((len(texts), shares[0][0].shape[0]), dtype=np.float32)
    for k, rows in enumerate(shares):
        out[k::workers] = rows
    return out


def time_interleaved(
    runners: Mapping[str, Callable[[list[str]], np.ndarray]], texts: list[str], chunk: int, rounds: int
) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """Seconds each runner spent on ``rounds`` passes over ``texts``, interleaved chunk by chunk after one
    uncounted warm-up call each, and each runner's vectors of the first pass."""
    for runner in runners.values():
        runner(texts[:4])
    seconds = dict.fromkeys(runners, 0.0)
    vectors: dict[str, list[np.ndarray]] = {k: [] for k in runners}
    for round_ in range(rounds):
        for start in range(0, len(texts), chunk):
            part = texts[start : start + chunk]
            for label, runner in runners.items():
                t0 = time.perf_counter()
                rows = np.asarray(runner(part), dtype=np.float32)
                seconds[label] += time.perf_counter() - t0
                if round_ == 0:
                    vectors[label].append(rows)
    return seconds, {label: np.vstack(parts) for label, parts in vectors.items()}


def emit(text: str, out: Path | None) -> None:
    """Print a result and write it to ``out`` when one is given."""
    print(text)
    if out:
        out.write_text(text, encoding="utf-8")

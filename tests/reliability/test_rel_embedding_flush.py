"""A SIGKILL during document embedding keeps nearly all finished batches: the cache commits every
couple of seconds of work, not only every 512 texts."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys

from _reliability_helpers import cli_env

CHILD = r"""
import sys, time
import icml_topics.embedding.pipeline as pipeline
from icml_topics.embedding import embed
real = pipeline.path_encoder
done = [0]
def path_encoder(*args, **kwargs):
    encode = real(*args, **kwargs)
    def counted(batch):
        out = encode(batch)
        done[0] += len(batch)
        print(done[0], time.monotonic(), flush=True)
        return out
    return counted
pipeline.path_encoder = path_encoder
words = "graph kernel policy reward diffusion privacy bandit transformer attention sparse convex regret".split()
texts = [" ".join(words[(i * 7 + j) % len(words)] + str(i) for j in range(120)) for i in range(1500)]
embed(texts, cache=sys.argv[1], batch_size=16, precision="fp32", show_progress_bar=False)
"""


def test_sigkill_during_embedding_keeps_finished_batches(tmp_path):
    cache = tmp_path / "emb"
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(cache)], env=cli_env(tmp_path), stdout=subprocess.PIPE, text=True
    )
    reports: list[tuple[int, float]] = []
    try:
        while True:
            line = proc.stdout.readline()
            assert line, "the embedding ended before it could be killed"
            count, at = line.split()
            reports.append((int(count), float(at)))
            if at and reports[-1][1] - reports[0][1] > 6.0:
                break
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    killed_at = reports[-1][1]
    done_2s_before = max(c for c, t in reports if t <= killed_at - 2.5)
    with sqlite3.connect(cache / "embeddings.sqlite3") as conn:
        kept = conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
    assert reports[-1][0] < 1500
    assert kept >= done_2s_before > 0, (kept, done_2s_before, reports[-1])

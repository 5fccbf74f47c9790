"""How fast `icml-topics fit` reports a bad argument or file on a real corpus (target: < 5 s).

    python benchmarks/early_errors.py ../shared/data/icml-2013-2024.jsonl.gz

Each case runs the real CLI in a fresh process with an empty cache folder; the script prints the
wall time, the exit code, the error line, and whether anything was embedded (it must not be).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cases(corpus: str, tmp: Path) -> dict[str, list[str]]:
    bad_yaml = tmp / "bad.yaml"
    bad_yaml.write_text("themes: 42\n", encoding="utf-8")
    a_file = tmp / "a-file.txt"
    a_file.write_text("x", encoding="utf-8")
    out = str(tmp / "out")
    return {
        "missing taxonomy": [corpus, "--taxonomy", str(tmp / "missing.yaml"), "--out", out],
        "malformed taxonomy": [corpus, "--taxonomy", str(bad_yaml), "--out", out],
        "--out is a file": [corpus, "--out", str(a_file)],
        "--out not writable": [corpus, "--out", "/proc/icml-topics-out"],
        "unknown column": [corpus, "--abstract-column", "summary", "--out", out],
        "min_topic_size=-3": [corpus, "--min-topic-size", "-3", "--out", out],
        "missing input": [str(tmp / "missing.jsonl"), "--out", out],
    }


def main(corpus: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        env = dict(os.environ, ICML_TOPICS_CACHE_DIR=str(tmp / "cache"), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
        print(f"load average: {os.getloadavg()[0]:.1f}")
        for name, args in cases(corpus, tmp).items():
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "icml_topics", "fit", *args], env=env, capture_output=True, text=True
            )
            seconds = time.perf_counter() - start
            error = next((line for line in done.stderr.splitlines() if line.startswith("error:")), done.stderr[-200:])
            embedded = (tmp / "cache" / "embeddings").exists()
            print(f"{seconds:5.1f} s  exit {done.returncode}  embedded={embedded}  {name}: {error[:150]}")


if __name__ == "__main__":
    main(
        sys.argv[1]
        if len(sys.argv) > 1
        else str(Path(__file__).resolve().parents[2] / "shared/data/icml-2013-2024.jsonl.gz")
    )

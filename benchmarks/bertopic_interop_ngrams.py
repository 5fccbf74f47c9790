"""``to_bertopic(ngram_range=...)``: how the c-TF-IDF n-gram range sets the speed of BERTopic's calls.

Loads a TopicMap saved by ``benchmarks/bertopic_interop.py --model DIR`` and, in rounds, times
``to_bertopic``, ``topics_over_time(docs, years)`` and ``hierarchical_topics(docs)`` for each range.

    python benchmarks/bertopic_interop_ngrams.py --model /tmp/icml-model \
        --out benchmarks/results/bertopic_interop_ngrams.md
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", default="benchmarks/results/bertopic_interop_ngrams.md")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    from icml_topics import TopicMap
    from icml_topics.interop import bertopic_documents

    tm = TopicMap.load(args.model)
    docs, years = bertopic_documents(tm, "year")
    lines = [
        "# `to_bertopic(ngram_range=...)` on a saved TopicMap",
        "",
        f"{len(docs)} abstracts, {len(set(years))} years; seconds per call, rounds interleaved.",
        "",
        "| round | ngram_range | vocabulary | to_bertopic | topics_over_time | hierarchical_topics | load avg |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for round_ in range(args.repeats):
        for ngram in [(1, 1), (1, 2), (1, 3)]:
            t = time.perf_counter()
            bt = tm.to_bertopic(ngram_range=ngram)
            t_build = time.perf_counter() - t
            t = time.perf_counter()
            bt.topics_over_time(docs, years)
            t_time = time.perf_counter() - t
            t = time.perf_counter()
            bt.hierarchical_topics(docs)
            t_hier = time.perf_counter() - t
            lines.append(
                f"| {round_} | {ngram} | {len(bt.vectorizer_model.vocabulary_)} | {t_build:.2f} | {t_time:.2f} | "
                f"{t_hier:.2f} | {os.getloadavg()[0]:.1f} |"
            )
            print(lines[-1], flush=True)
    Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

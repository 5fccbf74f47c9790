"""The large-corpus c-TF-IDF counts of a tree's levels: ``PiecewiseCountVectorizer`` (every paper tokenised again
for every level) against ``SampleVocabularyCounts`` (each paper tokenised once), CPU seconds, same matrices.

The scaling benchmark's base texts (``scaling.py``'s ``--work`` folder: base.parquet), tiled to each size, cleaned
as BERTopic cleans them; three levels of random topics (papers a topic: 300, 80, 24) joined as BERTopic joins
them; the vocabulary from all papers (the sample a 50,000-paper fit takes).

    python benchmarks/sample_counts.py --work /tmp/s6-work --sizes 20000 50000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from _machine import cpu_model  # noqa: E402

from icml_topics.stages.piecewise_counts import PiecewiseCountVectorizer, SampleVocabularyCounts  # noqa: E402
from icml_topics.stages.represent import make_vectorizer  # noqa: E402


def _cleaned(text: str) -> str:
    """BERTopic's cleaning of a text when it is given an embedding model (no language): tabs and newlines to spaces."""
    return text.replace("\n", " ").replace("\t", " ")


def run(texts: list[str], sizes: tuple[int, ...] = (300, 80, 24)) -> list[dict]:
    n = len(texts)
    rng = np.random.default_rng(0)
    levels = [rng.integers(0, max(1, n // s), n) for s in sizes]
    base = make_vectorizer(n, 100)
    fitted = base.fit(texts)
    vocabulary = sorted(fitted.vocabulary_)
    rows, matrices = [], {}
    for name in ("piecewise", "sample-counts"):
        cpu = time.process_time()
        out = []
        for labels in levels:
            pieces: list[list[str]] = [[] for _ in range(int(labels.max()) + 1)]
            for text, label in zip(texts, labels.tolist(), strict=True):
                pieces[label].append(text)
            joined = [" ".join(p) for p in pieces]
            if name == "piecewise":
                v = PiecewiseCountVectorizer(
                    stop_words=base.stop_words, ngram_range=base.ngram_range, token_pattern=base.token_pattern,
                    lowercase=True, vocabulary=vocabulary,
                )  # fmt: skip
            else:
                v = SampleVocabularyCounts.of(fitted).expect_joined(pieces)
            out.append(v.fit_transform(joined))
        matrices[name] = out
        rows.append({"n": n, "variant": name, "cpu_s": round(time.process_time() - cpu, 1)})
    same = all((a != b).nnz == 0 for a, b in zip(matrices["piecewise"], matrices["sample-counts"], strict=True))
    for row in rows:
        row["same_counts"] = same
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", type=Path, default=Path("/tmp/icml-topics-scaling"))
    p.add_argument("--sizes", type=int, nargs="*", default=[20_000, 50_000])
    p.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "sample_counts.md")
    args = p.parse_args()
    base = pd.read_parquet(args.work / "base.parquet")["text"].tolist()
    rows = []
    for n in args.sizes:
        rows += run([_cleaned(base[i % len(base)]) for i in range(n)])
        print(rows[-2:], flush=True)
    lines = [
        "# Large-corpus c-TF-IDF counts of three levels: tokenised per level or once",
        "",
        f"`python benchmarks/sample_counts.py --work {args.work} --sizes {' '.join(map(str, args.sizes))}` on "
        f"{cpu_model()} (a shared 2-core machine; CPU seconds of this process). See the script's docstring.",
        "",
        "| n | variant | CPU s | same counts |",
        "|---|---|---|---|",
        *[f"| {r['n']:,} | {r['variant']} | {r['cpu_s']} | {'yes' if r['same_counts'] else 'NO'} |" for r in rows],
    ]
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

"""Time of topic trends at every tree level on a fitted model (issue 22: <= 5 s on 13,725 papers).

    python benchmarks/topic_trends_speed.py [--model DIR | --fit | --nested N0,N1,...] [--repeats 5]

``--fit`` fits (and saves under ``--save``) a TopicMap on the shared ICML 2013-2024 + NeurIPS 1987-2018 +
ICML 2026 seed papers (13,725); ``--model`` loads a saved model; ``--nested 400,120,40,12`` (no fit: for
a machine where the fit does not fit in the time) gives the same 13,725 papers with their real years
random nested node assignments of those sizes per level, which is all the trend computation reads. Then times
``tm.topic_trends(by="year")`` (every node of every level x every year: counts, Wilson intervals, the
status of each node in the last year with its Newcombe interval, growth GLM and BH-adjusted exact
test) ``--repeats`` times and reports the median. Writes ``benchmarks/results/topic_trends_speed.md``.
The machine may be shared: the load average is recorded.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
DATA = REPO.parent / "shared" / "data"
from _machine import machine_line  # noqa: E402
from _report import write_markdown  # noqa: E402

INPUTS = ["icml-2013-2024.jsonl.gz", "neurips-1987-2018.jsonl.gz", "icml-2026-seed-abstracts.jsonl"]


def main() -> None:
    from icml_topics import TopicMap

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, help="a saved model folder; default: fit the shared corpora")
    parser.add_argument("--save", type=Path, default=None, help="where to save the fitted model (with no --model)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--fit", action="store_true", help="fit the shared corpora first")
    parser.add_argument("--nested", default=None, help="node counts per level, finest first, e.g. 400,120,40,12")
    args = parser.parse_args()
    if args.model or args.fit:
        if args.model:
            tm = TopicMap.load(args.model)
            source = f"saved model {args.model}"
        else:
            from icml_topics import read_corpus

            tm = TopicMap(random_state=42).fit(read_corpus([str(DATA / name) for name in INPUTS]))
            if args.save:
                tm.save(args.save)
            source = " + ".join(INPUTS)
        docs = tm.documents_
        run = lambda: tm.topic_trends(by="year")  # noqa: E731
    else:
        import numpy as np
        import pandas as pd

        from icml_topics.compare.topic_trends import topic_trends

        years = pd.concat([pd.read_json(DATA / name, lines=True)["year"] for name in INPUTS], ignore_index=True)
        sizes = [int(x) for x in (args.nested or "400,120,40,12").split(",")]
        rng = np.random.default_rng(0)
        finest = rng.integers(-1, sizes[0], len(years))  # -1: outliers
        docs = pd.DataFrame({"year": years.astype("Int64"), "status": "ok"})
        for level, size in enumerate(sizes):
            docs[f"topic_{level}"] = np.where(finest >= 0, finest * size // sizes[0], -1)
        source = f"real years of {' + '.join(INPUTS)}, random nested nodes {sizes} per level (no fit)"
        run = lambda: topic_trends(docs, by="year")  # noqa: E731
    n = int((docs["status"] == "ok").sum())
    run()  # warm-up: imports, scipy
    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        trends = run()
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    nodes = trends[["level", "topic"]].drop_duplicates()
    lines = [
        "# Topic trends at every level: time on a fitted model",
        "",
        f"Command: `python benchmarks/topic_trends_speed.py {' '.join(sys.argv[1:])}`",
        "",
        f"Model: {source}; {n:,} modelled papers, {trends['period'].nunique()} years, {len(nodes):,} nodes on "
        f"{nodes['level'].nunique()} levels; the trends table has {len(trends):,} rows (node x year).",
        "",
        f"`tm.topic_trends(by='year')`: median {median:.3f} s over {args.repeats} runs "
        f"(min {min(times):.3f}, max {max(times):.3f}); target <= 5 s: {'met' if median <= 5 else 'NOT met'}.",
        f"Machine at the end: {machine_line()}.",
    ]
    out = REPO / "benchmarks" / "results" / "topic_trends_speed.md"
    previous = out.read_text(encoding="utf-8") + "\n" if out.exists() and args.model else ""
    write_markdown(out, [previous.rstrip("\n"), "", *lines] if previous else lines)


if __name__ == "__main__":
    main()

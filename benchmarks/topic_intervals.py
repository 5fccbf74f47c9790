"""Do the topic trends' 95% intervals cover 95%? Binomial resampling of a fitted model's shares (issue 22).

    python benchmarks/topic_intervals.py --model DIR/model [--by year] [--draws 2000]

Loads a saved model (``icml-topics compare --out DIR`` writes ``DIR/model``), takes every tree node's
share in every period as the truth ``p`` (the period's ``total`` papers as ``N``), draws ``--draws``
binomial counts ``n ~ Bin(N, p)`` per cell and checks how often the Wilson interval of ``n / N`` holds
``p``; likewise how often the Newcombe interval of the change from the earlier periods to the latest
holds the true change. Cells with ``p = 0`` are left out (their interval always holds 0 and would only
flatter the result). Writes ``benchmarks/results/topic_intervals.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from _machine import machine_line  # noqa: E402

from icml_topics.compare.intervals import newcombe_interval, wilson_interval  # noqa: E402
from icml_topics.compare.topic_trends import node_counts  # noqa: E402


def coverage(model_dir: Path, by: str, draws: int, seed: int) -> dict:
    from icml_topics import TopicMap
    from icml_topics.trend_methods import tree_table

    tm = TopicMap.load(model_dir)
    counts = node_counts(tm.documents_, tree_table(tm), by=by)
    rng = np.random.default_rng(seed)
    p = counts.counts / counts.totals
    cells = p > 0
    n_true, big_n = p[cells], np.broadcast_to(counts.totals, p.shape)[cells]
    hits = np.zeros(len(n_true))
    for _ in range(draws):
        lo, hi = wilson_interval(rng.binomial(big_n, n_true), big_n)
        hits += (lo <= n_true) & (n_true <= hi)
    wilson = hits / draws
    latest = len(counts.periods) - 1
    pa = counts.counts[:, :latest].sum(1) / counts.totals[:latest].sum()
    pb = p[:, latest]
    ta, tb = int(counts.totals[:latest].sum()), int(counts.totals[latest])
    keep = (pa > 0) | (pb > 0)
    pa, pb = pa[keep], pb[keep]
    diff_hits = np.zeros(len(pa))
    for _ in range(draws):
        _, lo, hi = newcombe_interval(rng.binomial(ta, pa), ta, rng.binomial(tb, pb), tb)
        diff_hits += (lo <= pb - pa) & (pb - pa <= hi)
    newcombe = diff_hits / draws
    both = (pa > 0) & (pb > 0)  # a true share of 0 in one period: its side of the interval always holds it
    levels = {int(lv): int((counts.nodes["level"] == lv).sum()) for lv in counts.nodes["level"].unique()}
    return {
        "model": str(model_dir),
        "by": by,
        "periods": [str(v) for v in counts.periods],
        "totals": counts.totals.tolist(),
        "nodes_per_level": levels,
        "draws": draws,
        "wilson_cells": int(cells.sum()),
        "wilson_coverage": float(wilson.mean()),
        "wilson_coverage_p10_p90": [float(np.quantile(wilson, 0.1)), float(np.quantile(wilson, 0.9))],
        "wilson_coverage_expected_count_lt_5": float(wilson[n_true * big_n < 5].mean()),
        "newcombe_nodes": int(keep.sum()),
        "newcombe_coverage": float(newcombe.mean()),
        "newcombe_coverage_p10_p90": [float(np.quantile(newcombe, 0.1)), float(np.quantile(newcombe, 0.9))],
        "newcombe_nodes_both_positive": int(both.sum()),
        "newcombe_coverage_both_positive": float(newcombe[both].mean()) if both.any() else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="a saved model folder (compare --out DIR/model)")
    parser.add_argument("--by", default="year")
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.perf_counter()
    result = coverage(args.model, args.by, args.draws, args.seed)
    result["seconds"] = round(time.perf_counter() - start, 1)
    result["machine"] = machine_line()
    out = REPO / "benchmarks" / "results"
    (out / "topic_intervals.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    ok = 0.94 <= result["wilson_coverage"] <= 0.96 and 0.94 <= result["newcombe_coverage"] <= 0.96
    lines = [
        "# Coverage of the topic trends' 95% intervals (binomial resampling of a fitted model's shares)",
        "",
        f"Command: `python benchmarks/topic_intervals.py --model {args.model} --by {args.by} --draws {args.draws}`",
        "",
        f"Model: {result['nodes_per_level']} nodes per tree level; periods {result['periods']} with "
        f"{result['totals']} papers. Truth = each node's fitted share per period; {args.draws} binomial draws each.",
        "",
        "| interval | cells | mean coverage | 10th-90th percentile over cells |",
        "|---|---|---|---|",
        f"| Wilson, share per node and period (p > 0) | {result['wilson_cells']} | "
        f"{result['wilson_coverage']:.4f} | {result['wilson_coverage_p10_p90'][0]:.3f}-"
        f"{result['wilson_coverage_p10_p90'][1]:.3f} |",
        f"| Newcombe, change earlier -> latest per node | {result['newcombe_nodes']} | "
        f"{result['newcombe_coverage']:.4f} | {result['newcombe_coverage_p10_p90'][0]:.3f}-"
        f"{result['newcombe_coverage_p10_p90'][1]:.3f} |",
        "",
        f"Newcombe coverage of the {result['newcombe_nodes_both_positive']} nodes with a true share above 0 in both "
        f"(earlier and latest): {result['newcombe_coverage_both_positive']:.4f}.",
        "",
        f"Wilson coverage of cells expected to hold fewer than 5 papers: "
        f"{result['wilson_coverage_expected_count_lt_5']:.4f}.",
        "",
        f"Target 0.94-0.96 for both means: {'met' if ok else 'NOT met'}. ({result['seconds']} s on {result['machine']})",
    ]
    (out / "topic_intervals.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

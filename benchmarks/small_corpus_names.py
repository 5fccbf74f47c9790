"""Which name checks fail on small corpora, and on what node sizes (issue 49's Done-when, issue 51 item 1).

    python benchmarks/small_corpus_names.py [--samples quickstart what_changed] [--tag after]

The ``before`` rows of the results file: this script copied into ``git archive 39a9176`` (main before the
change) and run there with ``--tag before --commit 39a9176 --out <this checkout>/benchmarks/results/...``.
The ``repair`` rows: ``--samples what_changed icml_all --tag repair`` with the tree names' repair pass
(``stages/tree_names.py``, ``repair_names``); compare them with the ``after`` rows (main before the pass).

Fits ``TopicMap`` on the samples the shipped notebooks fit, exactly as they do:

* ``quickstart``: 240 ICML abstracts (120 of 2019 + 120 of 2024, ``random_state=7``),
  ``TopicMap(random_state=42)`` (``notebooks/quickstart.ipynb``);
* ``what_changed``: 1,500 ICLR submissions (750 of 2024 + 750 of 2025, ``random_state=0``),
  ``TopicMap(random_state=0, topic_sizes=(80, 20))`` (``notebooks/what_changed.ipynb``);
* ``cross_year``: the quickstart's 240 and the 38 ICML 2026 seed abstracts, ``TopicMap(random_state=42)``
  (``notebooks/cross_year_comparison.ipynb``);
* ``demo``: the 38 bundled ICML 2026 abstracts, ``TopicMap(random_state=0)``;
* ``icml<N>`` (e.g. ``icml600``): the quickstart's years and seed, ``N / 2`` papers a year, the quickstart's
  ``TopicMap``: how the share of flagged names moves with the corpus size;
* ``icml_all``: every ICML paper (5,630), ``TopicMap(random_state=0)``: above 2,000 papers the tree is as before.

For each it runs ``TopicMap.name_checks()`` and writes, per level, the tree's shape (nodes, papers a node:
min / quartiles / max) and the nodes whose name fails a check, by node size and by check. A node counts as
judged when ``name_checks`` judges it (a node below ``MIN_JUDGED`` papers is marked ``too few papers to
judge``, not passed). Each run is stored under its ``--tag`` in ``benchmarks/results/small_corpus_names.json``
(earlier tags are kept, so ``before`` and ``after`` sit side by side) and the whole file is rendered to
``benchmarks/results/small_corpus_names.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks._machine import git_state, machine_line  # noqa: E402
from icml_topics import TopicMap  # noqa: E402
from icml_topics.compare.name_checks import name_checks, node_rows, paper_said  # noqa: E402
from icml_topics.evaluate.name_rules import title_share  # noqa: E402
from icml_topics.fitted_tables import modelled_rows  # noqa: E402
from icml_topics.stages.name_phrases import phrase_counts  # noqa: E402

DATA = REPO.parent / "shared" / "data"
OUT = REPO / "benchmarks" / "results" / "small_corpus_names"
#: what ``name_checks`` says of a node too small to judge (a string here, so the script runs on code before it)
TOO_FEW = "too few papers to judge"
#: node-size buckets (papers), lower bounds
BUCKETS = (1, 5, 8, 12, 20, 40)


def sample(name: str, data: Path) -> tuple[pd.DataFrame, dict]:
    """The notebook's sample and the ``TopicMap`` arguments it fits with."""
    if name == "quickstart":
        icml = pd.read_json(data / "icml-2013-2024.jsonl.gz", lines=True)
        rows = [icml[icml.year == y].sample(n=120, random_state=7) for y in (2019, 2024)]
        return pd.concat(rows, ignore_index=True), {"random_state": 42}
    if name == "what_changed":
        iclr = pd.read_json(data / "iclr-2024-2025-areas.jsonl.gz", lines=True)
        rows = [iclr[iclr.year == y].sample(n=750, random_state=0) for y in (2024, 2025)]
        return pd.concat(rows, ignore_index=True), {"random_state": 0, "topic_sizes": (80, 20)}
    if name == "cross_year":  # the quickstart's sample and the 38 seed abstracts of 2026, as cross_year_comparison
        icml = pd.read_json(data / "icml-2013-2024.jsonl.gz", lines=True)
        rows = [icml[icml.year == y].sample(n=120, random_state=7) for y in (2019, 2024)]
        seeds = pd.read_json(data / "icml-2026-seed-abstracts.jsonl", lines=True)
        return pd.concat([*rows, seeds], ignore_index=True), {"random_state": 42}
    if name == "icml_all":  # every ICML paper (5,630): a corpus the small-corpus floor leaves as it was
        return pd.read_json(data / "icml-2013-2024.jsonl.gz", lines=True), {"random_state": 0}
    if name.startswith("icml"):  # icml<N>: the quickstart's years and seed, N / 2 papers a year, default TopicMap
        icml = pd.read_json(data / "icml-2013-2024.jsonl.gz", lines=True)
        half = int(name[4:]) // 2
        rows = [icml[icml.year == y].sample(n=half, random_state=7) for y in (2019, 2024)]
        return pd.concat(rows, ignore_index=True), {"random_state": 42}
    if name == "demo":
        from icml_topics.cli.demo import sample_path

        return pd.read_json(sample_path(), lines=True), {"random_state": 0}
    raise SystemExit(f"unknown sample {name!r}: quickstart, what_changed, cross_year, icml<N>, icml_all or demo")


def bucket(size: int) -> str:
    """The size bucket's label ("5-7", "40+")."""
    i = int(np.searchsorted(BUCKETS, size, side="right")) - 1
    return f"{BUCKETS[i]}+" if i == len(BUCKETS) - 1 else f"{BUCKETS[i]}-{BUCKETS[i + 1] - 1}"


#: the candidate phrases tried for a node: those its titles (with keywords) hold in a row in at least this share
#: (a part of a name must be in a fifth of its papers), the most common first
CANDIDATE_SHARE, MAX_CANDIDATES = 0.2, 12


def passing_names(tree: pd.DataFrame, documents: pd.DataFrame, flagged: np.ndarray) -> dict[int, str]:
    """For each flagged, judged node (row of ``tree``): a name that passes every check, if one exists among its
    own phrases (one phrase, or two joined by "and", held by a fifth of its titles and keywords each, a name
    said by at least 40% of them together); "" where none does. An upper bound on what a better choice of
    phrase could do: where none passes, the node is too mixed for any name."""
    rows = modelled_rows(documents)
    out: dict[int, str] = {}
    for i in np.flatnonzero(flagged):
        node = tree.iloc[i]
        said = paper_said(node_rows(rows, int(node.level), int(node.topic)))
        counts = phrase_counts(said)
        top = sorted((c for c in counts.values() if c[0] >= CANDIDATE_SHARE * len(said)), reverse=True)
        phrases = [form for _, form in top[:MAX_CANDIDATES]]
        tries = phrases + [f"{a} and {b}" for j, a in enumerate(phrases) for b in phrases[j + 1 :]]
        tries = [t for t in tries if title_share(t, said) >= 0.4]
        out[i] = ""
        for name in tries:
            trial = tree.copy()
            trial.iloc[i, trial.columns.get_loc("label")] = name
            mask = np.zeros(len(tree), bool)
            mask[i] = True
            if name_checks(trial, documents, check=mask)["name_defects"].iloc[i] == "":
                out[i] = name
                break
    return out


def measure(name: str, data: Path) -> dict:
    """Fit the sample, check the names; the shape, the per-node verdicts and the aggregates."""
    frame, kwargs = sample(name, data)
    started = time.perf_counter()
    tm = TopicMap(verbose=False, **kwargs).fit(frame)
    seconds = time.perf_counter() - started
    checks = tm.name_checks()
    if "name_caveat" in checks.columns:  # the caveat apart (session 9 on): counted with the defects, as before
        pairs = zip(checks["name_defects"].astype(str), checks.pop("name_caveat").astype(str))
        checks["name_defects"] = ["; ".join(x for x in pair if x) for pair in pairs]
    defects = checks["name_defects"].astype(str)
    flagged = ((defects != "") & ~defects.str.contains(TOO_FEW)).to_numpy()
    better = passing_names(checks.drop(columns="name_defects").reset_index(drop=True), tm.documents_, flagged)
    nodes = [
        {
            "level": int(r.level),
            "topic": int(r.topic),
            "size": int(r.size),
            "theme": str(r.theme),
            "label": str(r.label),
            "defects": [d for d in str(r.name_defects).split("; ") if d],
            "passing_name": better.get(i),
        }
        for i, r in enumerate(checks.itertuples())
    ]
    return {
        "sample": name,
        "papers": len(frame),
        "kwargs": {k: list(v) if isinstance(v, tuple) else v for k, v in kwargs.items()},
        "fit_seconds": round(seconds, 1),
        "themes": int(tm.themes_["theme"].nunique()),
        "nodes": nodes,
    }


def _judged(node: dict) -> bool:
    return TOO_FEW not in node["defects"]


def _failed(node: dict) -> bool:
    return _judged(node) and bool(node["defects"])


def shape_table(nodes: list[dict]) -> str:
    """Per level: nodes and papers a node."""
    lines = [
        "| level | nodes | min | 25% | median | 75% | max | nodes < 8 papers | nodes < 12 papers |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for level in sorted({n["level"] for n in nodes}):
        sizes = np.array([n["size"] for n in nodes if n["level"] == level])
        q = np.percentile(sizes, [25, 50, 75])
        lines.append(
            f"| {level} | {len(sizes)} | {sizes.min()} | {q[0]:g} | {q[1]:g} | {q[2]:g} | {sizes.max()} | "
            f"{int((sizes < 8).sum())} | {int((sizes < 12).sum())} |"
        )
    return "\n".join(lines)


def size_table(nodes: list[dict]) -> str:
    """Per size bucket: nodes, judged, failed."""
    lines = [
        "| papers a node | nodes | judged | failing | failing share of judged | failing, yet a phrase of its own passes |",
        "|---|---|---|---|---|---|",
    ]
    for lo in BUCKETS:
        rows = [n for n in nodes if bucket(n["size"]) == bucket(lo)]
        if not rows:
            continue
        judged = [n for n in rows if _judged(n)]
        failed = sum(_failed(n) for n in rows)
        share = f"{failed / len(judged):.0%}" if judged else "-"
        exists = sum(bool(n.get("passing_name")) for n in rows if _failed(n))
        lines.append(f"| {bucket(lo)} | {len(rows)} | {len(judged)} | {failed} | {share} | {exists} |")
    return "\n".join(lines)


def defect_table(nodes: list[dict]) -> str:
    """Per check: the judged nodes failing it, and their median size."""
    judged = [n for n in nodes if _judged(n)]
    counts: dict[str, list[int]] = {}
    for n in judged:
        for d in n["defects"]:
            counts.setdefault(d, []).append(n["size"])
    lines = ["| check failed | nodes | share of judged | median papers of those nodes |", "|---|---|---|---|"]
    for d, sizes in sorted(counts.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"| {d} | {len(sizes)} | {len(sizes) / max(len(judged), 1):.0%} | {np.median(sizes):g} |")
    return "\n".join(lines)


def render(runs: dict[str, dict]) -> str:
    """The results file: a summary row per tag and sample, then each run's tables."""
    out = [
        "# Name checks on the notebooks' small samples",
        "",
        "Written by `python benchmarks/small_corpus_names.py` (see its docstring). A node *fails* when "
        "`TopicMap.name_checks()` flags its name; nodes under the check's minimum size are counted apart "
        "(*too few papers to judge*), never as passing.",
        "",
        "| tag | sample | papers | levels | nodes | median papers (finest) | too few to judge | judged | failing | "
        "failing, yet a phrase of its own passes | failing share of judged | flagged share of all nodes |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in runs.values():
        nodes = run["nodes"]
        finest = [n["size"] for n in nodes if n["level"] == 0]
        judged = [n for n in nodes if _judged(n)]
        failed = sum(_failed(n) for n in nodes)
        out.append(
            f"| {run['tag']} | {run['sample']} | {run['papers']} | {len({n['level'] for n in nodes})} | "
            f"{len(nodes)} | {np.median(finest):g} | {len(nodes) - len(judged)} | {len(judged)} | {failed} | "
            f"{sum(bool(n.get('passing_name')) for n in nodes)} | {failed / max(len(judged), 1):.0%} | "
            f"{(failed + len(nodes) - len(judged)) / len(nodes):.0%} |"
        )
    out.append("")
    out.append(
        "*flagged share of all nodes*: nodes whose name fails a check or that are too small to judge, of all "
        "nodes (what a reader of the notebook sees flagged). *failing, yet a phrase of its own passes*: failing "
        'nodes for which one of their own phrases (or two joined by "and") passes every check '
        "(`passing_names`): what a better choice of name could win; the rest are too mixed for any name."
    )
    for run in runs.values():
        out += [
            "",
            f"## {run['tag']}: {run['sample']} ({run['papers']} papers, `TopicMap({run['kwargs']})`)",
            "",
            f"{run['machine']}; commit {run['commit']}; fit {run['fit_seconds']} s; {run['themes']} themes.",
            "",
            "### Shape",
            "",
            shape_table(run["nodes"]),
            "",
            "### Failing names by node size",
            "",
            size_table(run["nodes"]),
            "",
            "### Checks failed (judged nodes)",
            "",
            defect_table(run["nodes"]),
        ]
    return "\n".join(out) + "\n"


def dump(runs: dict[str, dict]) -> str:
    """The runs as JSON, one node a line."""
    parts = []
    for key, run in runs.items():
        head = json.dumps({k: v for k, v in run.items() if k != "nodes"})[1:-1]
        nodes = ",\n".join("  " + json.dumps(n) for n in run["nodes"])
        parts.append(f' {json.dumps(key)}: {{{head}, "nodes": [\n{nodes}\n ]}}')
    return "{\n" + ",\n".join(parts) + "\n}\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", nargs="+", default=["quickstart", "what_changed"])
    parser.add_argument("--tag", default="after", help="the label of this run (a run of the same tag is replaced)")
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument("--commit", help="the code's commit, when it runs outside a checkout (e.g. a git archive)")
    parser.add_argument("--out", type=Path, default=OUT, help="the results' path, without .json / .md")
    args = parser.parse_args()
    path = args.out.with_suffix(".json")
    runs = json.loads(path.read_text()) if path.exists() else {}
    for name in args.samples:
        run = measure(name, args.data_dir)
        run.update(tag=args.tag, machine=machine_line(), commit=args.commit or git_state(REPO))
        runs[f"{args.tag}/{name}"] = run
        failed = sum(_failed(n) for n in run["nodes"])
        print(f"{args.tag}/{name}: {failed} of {len(run['nodes'])} nodes fail a check ({run['fit_seconds']} s)")
        path.write_text(dump(runs))
    args.out.with_suffix(".md").write_text(render(runs))


if __name__ == "__main__":
    main()

"""The topic tree on ICML 2013-2024 + the 38 ICML 2026 seeds: its shape, its names, and what it adds to a
warm fit, timed side by side with the commit before it (issue 22, item 1).

    python benchmarks/topic_tree.py --base <commit before the tree | off> [--repeats 2] [--warmups 1]

Runs ``python -m icml_topics fit ICML SEEDS --out DIR --quiet`` from this checkout and from ``--base``
(exported with ``git archive`` to a temporary folder), or with ``--base off`` this checkout's
``fit_to_folder`` (what that command runs) with ``topic_tree=False`` against ``True``; once each to warm
the caches (``--warmups``), then A B A B ...
(``--repeats`` pairs), and reports the median wall time of each and their ratio. Then reads this
checkout's ``topic_tree.csv`` and model: levels, nodes and median size per level, the share of names
passing ``evaluate.names.name_defects``, near-copy names within a level (``stages.naming.name_key``),
and the subtopics of the largest reinforcement-learning node. Writes ``benchmarks/results/topic_tree.md``
and ``.json``. The machine may be shared: the load average is recorded with every run.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DATA = REPO.parent / "shared" / "data"
INPUTS = ["icml-2013-2024.jsonl.gz", "icml-2026-seed-abstracts.jsonl"]


def export(commit: str, into: Path) -> Path:
    """The package at ``commit`` as plain files in ``into`` (no worktree, nothing left in .git)."""
    blob = subprocess.run(["git", "archive", commit, "icml_topics"], cwd=REPO, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(into, filter="data")
    return into


#: ``--base off``: both sides run this checkout's fit_to_folder (what ``icml-topics fit`` calls), with
#: ``topic_tree=False`` on one side and ``True`` on the other, so the ratio is the tree stage and nothing else.
_DRIVER = (
    "import sys; from icml_topics.workflows import fit_to_folder; "
    "fit_to_folder(sys.argv[1:-2], sys.argv[-2], random_state=42, verbose=False, topic_tree=sys.argv[-1] == 'on')"
)


def fit_seconds(code: Path, out: Path, data: Path, tree: str | None = None) -> tuple[float, str]:
    """Wall time of one fit of ``code`` (``tree``: "on"/"off" through fit_to_folder; None: the CLI)."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    inputs = [str(data / f) for f in INPUTS]
    if tree is None:
        command = [sys.executable, "-m", "icml_topics", "fit", *inputs, "--out", str(out), "--quiet"]
    else:
        command = [sys.executable, "-c", _DRIVER, *inputs, str(out), tree]
    t0 = time.perf_counter()
    subprocess.run(command, env=env, cwd=code, check=True, capture_output=True)
    return time.perf_counter() - t0, os.getloadavg().__repr__()


def tree_quality(out: Path) -> dict:
    import pandas as pd

    from icml_topics import TopicMap, embed
    from icml_topics.evaluate.names import PhraseCorpus, name_defects
    from icml_topics.stages.naming import name_key

    tree = pd.read_csv(out / "topic_tree.csv")
    tm = TopicMap.load(out / "model")
    corpus = PhraseCorpus(tm.state_.texts)
    levels = []
    for level, rows in tree.groupby("level"):
        keys = [name_key(n) for n in rows["label"]]
        flagged = {n: name_defects(n, embed, corpus=corpus) for n in rows["label"]}
        levels.append(
            {
                "level": int(level),
                "nodes": len(rows),
                "median_size": float(rows["size"].median()),
                "papers_in_a_node": int(rows["size"].sum()),
                "clean_names": sum(not d for d in flagged.values()),
                "near_copies": len(keys) - len(set(keys)),
                "flagged": {n: d for n, d in flagged.items() if d},
            }
        )
    rl = tree[tree["label"].str.contains("reinforcement learning", case=False) & (tree["level"] > 0)]
    rl_split = []
    for node in rl.sort_values(["size", "level"], ascending=False).itertuples():
        kids = tree[(tree["level"] == node.level - 1) & (tree["parent"] == node.topic)].sort_values(
            "size", ascending=False
        )
        rl_split.append({"level": int(node.level), "label": node.label, "size": int(node.size), "children": [
            {"label": k.label, "size": int(k.size)} for k in kids.itertuples()
        ]})  # fmt: skip
    best = max(rl_split, key=lambda r: len(r["children"]), default=None)
    modelled = int((tm.documents_["status"] == "ok").sum())
    return {"modelled": modelled, "levels": levels, "reinforcement_learning": best, "rl_nodes": rl_split[:5]}


def markdown(result: dict) -> str:
    t = result["timing"]
    base_label = "tree off (topic_tree=False)" if result["base"] == "off" else f"before the tree ({result['base']})"
    lines = [
        "# Topic tree (issue 22, item 1): ICML 2013-2024 + 38 ICML 2026 seeds",
        "",
        f"Command: `{result['command']}`  ",
        "Each fit: `python -m icml_topics fit icml-2013-2024.jsonl.gz icml-2026-seed-abstracts.jsonl --out DIR --quiet`, "
        f"caches warm ({result.get('warmups', 1)} untimed run(s) of each first; 0: warm from an earlier fit of the same "
        "corpus: embeddings, UMAP/HDBSCAN, keyphrases and EVoC layers cached), runs alternating A B A B. The machine "
        "was shared with other work: compare the ratio, not the seconds.",
        "",
        "| | median warm fit (s) | runs (s) |",
        "|---|---|---|",
        f"| {base_label} | {t['base_median_s']:.1f} | {', '.join(f'{s:.1f}' for s in t['base_s'])} |",
        f"| with the tree | {t['tree_median_s']:.1f} | {', '.join(f'{s:.1f}' for s in t['tree_s'])} |",
        "",
        f"Tree / before: **{t['ratio']:.2f}x** (target: at most 1.30x). Load averages: {t['load']}",
        "",
        f"## Shape and names ({result['quality']['modelled']:,} modelled papers)",
        "",
        "| level | nodes | median size | papers in a node | names passing name_defects | near-copy names |",
        "|---|---|---|---|---|---|",
    ]
    for lv in result["quality"]["levels"]:
        lines.append(
            f"| {lv['level']} | {lv['nodes']} | {lv['median_size']:.0f} | {lv['papers_in_a_node']:,} "
            f"| {lv['clean_names']} / {lv['nodes']} | {lv['near_copies']} |"
        )
    rl = result["quality"]["reinforcement_learning"]
    if rl:
        lines += [
            "",
            f"## *{rl['label']}* (level {rl['level']}, {rl['size']} papers): its {len(rl['children'])} subtopics",
            "",
        ]
        lines += [f"- {k['label']} ({k['size']})" for k in rl["children"]]
    flagged = [f"- {n!r}: {', '.join(d)}" for lv in result["quality"]["levels"] for n, d in lv["flagged"].items()]
    lines += ["", "## Names flagged by name_defects", "", *(flagged or ["- none"])]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--base", required=True, help="the commit before the tree, or 'off': this checkout with topic_tree=False"
    )
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--warmups", type=int, default=1, help="untimed runs of each first (0: caches already warm)")
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "topic_tree")
    args = parser.parse_args()
    if not (args.data_dir / INPUTS[0]).exists():
        sys.exit(f"shared corpus not found in {args.data_dir}; pass --data-dir")
    with tempfile.TemporaryDirectory(prefix="topic-tree-bench-") as tmp:
        work = Path(tmp)
        off = args.base == "off"
        base = REPO if off else export(args.base, work / "base")
        modes = {"base": "off" if off else None, "tree": "on" if off else None}
        runs: dict[str, list[float]] = {"base": [], "tree": []}
        loads = []
        for _ in range(args.warmups):  # warm every cache first
            for code, key in ((base, "base"), (REPO, "tree")):
                fit_seconds(code, work / f"out-{key}", args.data_dir, modes[key])
        for _ in range(args.repeats):
            for code, key in ((base, "base"), (REPO, "tree")):
                seconds, load = fit_seconds(code, work / f"out-{key}", args.data_dir, modes[key])
                runs[key].append(round(seconds, 2))
                loads.append(load)
                print(key, f"{seconds:.1f}s", load, flush=True)
        timing = {
            "base_s": runs["base"],
            "tree_s": runs["tree"],
            "base_median_s": statistics.median(runs["base"]),
            "tree_median_s": statistics.median(runs["tree"]),
            "load": loads,
        }
        timing["ratio"] = timing["tree_median_s"] / timing["base_median_s"]
        quality = tree_quality(work / "out-tree")
    command = "python benchmarks/topic_tree.py " + " ".join(sys.argv[1:])
    result = {"command": command, "base": args.base, "warmups": args.warmups, "timing": timing, "quality": quality}
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=1, ensure_ascii=False))
    args.out.with_suffix(".md").write_text(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()

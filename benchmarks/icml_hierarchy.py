"""The one hierarchy on ICML 2013-2024 + the 38 ICML 2026 seed abstracts (issue 39): the shape the issue asks for,
the names, and the warm fit's time.

    python benchmarks/icml_hierarchy.py [--out benchmarks/results/icml_hierarchy.md]

Fits ``TopicMap(random_state=42)`` twice in this process on the same corpus (the first fills the caches; the
second is the warm fit a user re-running a notebook gets) and reports, per level of ``topic_tree_``: nodes,
median and largest node size, the share of papers without a node, labels repeated within the level (by
``naming.name_key``), names with a defect of ``evaluate.names.name_defects`` (given the parent's name and the
level's other names), the median ``stability``; whether ``documents_.topic`` equals ``topic_0``; and the
subtree of one theme (its topics and their subtopics, with sizes and stability).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

SHARED = Path(os.environ.get("ICML_TOPICS_SHARED_DATA") or REPO.parent / "shared" / "data")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "icml_hierarchy.md")
    parser.add_argument("--theme", default="Reinforcement learning", help="the theme whose subtree is listed")
    args = parser.parse_args()
    from _machine import cpu_model

    from icml_topics import TopicMap, read_corpus
    from icml_topics.evaluate.names import name_defects
    from icml_topics.stages.naming import name_key

    corpus = pd.concat(
        [read_corpus(SHARED / "icml-2013-2024.jsonl.gz"), read_corpus(SHARED / "icml-2026-seed-abstracts.jsonl")],
        ignore_index=True,
    )
    load = os.getloadavg()[0]
    start = time.perf_counter()
    TopicMap(random_state=42).fit(corpus)
    first = time.perf_counter() - start
    start = time.perf_counter()
    tm = TopicMap(random_state=42).fit(corpus)
    warm = time.perf_counter() - start
    docs = tm.documents_[tm.documents_["status"] == "ok"]
    tree = tm.topic_tree_
    top = int(tree["level"].max())
    names = tree.set_index(["level", "topic"])["label"]
    lines = [
        "# The one hierarchy on ICML 2013-2024 + the 38 seeds (issue 39)",
        "",
        f"Command: `python benchmarks/icml_hierarchy.py`; machine: {cpu_model()}, {os.cpu_count()} CPUs, load average "
        f"{load:.1f} at the start; embedding path `{tm.embedding_path_}`. {len(docs):,} papers modelled.",
        "",
        f"First fit in this process {first:.0f} s (with whatever the caches held before); the same fit again "
        f"(warm: every stage cached) **{warm:.1f} s**. `documents_.topic` equals `topic_0`: "
        f"{bool((docs['topic'] == docs['topic_0']).all())}.",
        "",
        "| level | nodes | median size | largest | papers without a node | labels repeated | names with a defect "
        "| median stability |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for level, rows in tree.groupby("level"):
        labels = rows["label"].tolist()
        keys = [name_key(x) for x in labels]
        parent = [
            rows_theme if level == top else names[(level + 1, int(p))]
            for p, rows_theme in zip(rows["parent"], rows["theme"])
        ]
        defective = sum(
            bool(name_defects(x, parent=p, siblings=[y for y in labels if y != x])) for x, p in zip(labels, parent)
        )
        unplaced = float((docs[f"topic_{level}"] == -1).mean())
        lines.append(
            f"| {level} | {len(rows)} | {rows['size'].median():.0f} | {rows['size'].max()} | {unplaced:.1%} | "
            f"{len(keys) - len(set(keys))} | {defective} | {np.nanmedian(rows['stability']):.2f} |"
        )
    lines += ["", f"## The subtree of *{args.theme}* (topics, then their subtopics: papers, stability)", ""]
    for r in tree[(tree["level"] == top) & (tree["theme"] == args.theme)].itertuples():
        lines.append(f"* **{r.label}** ({r.size} papers, stability {r.stability:.2f})")
        for c in tree[(tree["level"] == top - 1) & (tree["parent"] == r.topic)].itertuples():
            lines.append(f"  * {c.label} ({c.size}, {c.stability:.2f})")
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

"""Names that tell siblings apart (issue 39, item 3): the share of tree nodes whose name their own papers
support and their siblings' papers do not (``evaluate.names.name_support``), level by level, finest
first, for two namings of the same nodes of the fitted hierarchy:

* ``keyphrase``: the keyphrase names, ``stages.naming.name_topics`` on each node's keyphrases and its papers
  nearest its centroid first, every name distinct within its level (``name_key``): what the tree stage
  computes as the fallback of the sibling names, and what every node was called before them;
* ``sibling``: the fitted tree's own names (``topic_tree_["label"]``), which come from
  ``stages.tree_names.name_levels``: ``stages.sibling_names`` top-down, the top level under each node's
  research theme, each lower level under its parent's name, a node with no phrase of its own (or no
  sibling) keeping its keyphrase name.

    python benchmarks/sibling_names.py [--data icml iclr24_3000] [--cache DIR]

Each data set is ``benchmarks/_embedded.py``'s ``<name>.parquet`` (the modelled rows of a corpus, in order) with
its embeddings ``<name>.npy`` (computed when missing); the tree is fitted once (``TopicMap(random_state=42).fit(frame,
embeddings=...)``) and its ``topic_tree_`` (with the keyphrase names as ``keyphrase_label``) and ``documents_``
cached under ``--cache``. Writes ``benchmarks/results/sibling_names.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from _embedded import FOLDER, prepared  # noqa: E402

EMB = FOLDER


def keyphrase_names(state) -> list[dict[int, str]]:
    """Per level of ``state.tree`` (a fitted ``FittedState``), each node's keyphrase name: ``name_topics`` on
    its keyphrases and its papers nearest its centroid first, distinct within the level (``name_key``), as
    the tree stage computes the fallback of its sibling names (``stages.tree.build_tree``; here on the
    fitted node ids, whose finest level is numbered as BERTopic numbers it)."""
    from icml_topics.stages.naming import name_key, name_topics
    from icml_topics.stages.representatives import representative_order

    tree, texts = state.tree, state.texts
    out = []
    for level in range(tree.n_levels):
        order = representative_order(state.embeddings, tree.labels[:, level])
        docs = {t: [texts[i] for i in rows] for t, rows in order.items() if t != -1}
        out.append(name_topics(tree.keywords[level], docs, distinct=name_key))
    return out


def fitted(name: str, cache: Path):
    """(topic_tree_ with a ``keyphrase_label`` column, documents_' titles and levels) of one fit, computed once."""
    import numpy as np
    import pandas as pd

    # "hierarchy_": files cached by this script before issue 39 hold the EVoC tree and are not read
    tree_file, docs_file = cache / f"{name}_hierarchy_tree.parquet", cache / f"{name}_hierarchy_docs.parquet"
    if not tree_file.exists():
        from icml_topics import TopicMap

        frame = pd.read_parquet(prepared(name).with_suffix(".parquet"))
        tm = TopicMap(random_state=42, verbose=False).fit(frame, embeddings=np.load(EMB / f"{name}.npy"))
        names = keyphrase_names(tm.state_)
        tree = tm.topic_tree_.copy()
        tree["keyphrase_label"] = [names[int(lv)].get(int(t), "") for lv, t in zip(tree["level"], tree["topic"])]
        cache.mkdir(parents=True, exist_ok=True)
        tree.to_parquet(tree_file)
        keep = [c for c in tm.documents_.columns if c.startswith("topic") or c in ("id", "title")]
        tm.documents_[keep].to_parquet(docs_file)
    return pd.read_parquet(tree_file), pd.read_parquet(docs_file)


def measure(tree, docs, names: dict, parent_names: dict) -> list[dict]:
    """Per level, finest first: name_support's share, names with a defect, labels repeated in the level."""
    from icml_topics.evaluate.names import name_defects, name_support
    from icml_topics.stages.naming import name_key

    out = []
    top = int(tree["level"].max())
    for level in sorted(tree["level"].unique()):
        rows = tree[tree["level"] == level]
        nodes = [(level, int(t)) for t in rows["topic"]]
        titles = {
            (level, int(t)): g["title"].fillna("").tolist()
            for t, g in docs[docs[f"topic_{level}"] >= 0].groupby(f"topic_{level}")
        }
        by_parent = {}
        for r in rows.itertuples():
            by_parent.setdefault(int(r.parent) if level < top else -1, []).append((level, int(r.topic)))
        siblings = {n: by_parent[p] for p, group in by_parent.items() for n in group}
        parent_of = {(level, int(r.topic)): int(r.parent) for r in rows.itertuples()}
        parents = {n: parent_names.get((level + 1, parent_of[n]), "") if level < top else "" for n in nodes}
        share, _ = name_support({n: names[n] for n in nodes}, titles, siblings, parents=parents)
        share_plain, _ = name_support({n: names[n] for n in nodes}, titles, siblings)
        level_names = [names[n] for n in nodes]
        defective = sum(
            bool(name_defects(names[n], parent=parents[n], siblings=[names[m] for m in nodes if m != n])) for n in nodes
        )
        keys = [name_key(x) for x in level_names]
        out.append(
            {
                "level": level,
                "nodes": len(nodes),
                "support": share,
                "support_no_parent": share_plain,
                "defective": defective / len(nodes),
                "repeated": len(keys) - len(set(keys)),
            }
        )
    return out


def pairs(tree, old: dict, new: dict, words: tuple[str, ...], limit: int = 10) -> list[str]:
    """Keyphrase (``old``) and sibling (``new``) names of the children of the node, among those whose keyphrase
    name holds one of ``words``, with the most children (the largest first)."""
    rows = tree[(tree["level"] > 0) & tree["keyphrase_label"].str.lower().str.contains("|".join(words))]
    best, kids = None, None
    for r in rows.sort_values(["level", "size"], ascending=False).itertuples():
        k = tree[(tree["level"] == r.level - 1) & (tree["parent"] == r.topic)]
        if kids is None or len(k) > len(kids):
            best, kids = r, k
    if best is None:
        return []
    lines = [
        f"Under level-{best.level} node {old[(best.level, int(best.topic))]!r} "
        f"(sibling name {new[(best.level, int(best.topic))]!r}):",
        "",
        "| papers | keyphrase name | sibling name |",
        "|---:|---|---|",
    ]
    for k in kids.sort_values("size", ascending=False).head(limit).itertuples():
        node = (best.level - 1, int(k.topic))
        lines.append(f"| {k.size} | {old[node]} | {new[node]} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", nargs="+", default=["icml", "iclr24_3000"])
    parser.add_argument("--cache", type=Path, default=REPO / "benchmarks" / "results" / "raw" / "sibling_names")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "sibling_names.md")
    args = parser.parse_args()
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    lines = [
        "# Names that tell siblings apart (issue 39, item 3)",
        "",
        f"Command: `python benchmarks/sibling_names.py --data {' '.join(args.data)}`; machine: {cpu}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}.",
        "",
        "Support (``evaluate.names.name_support``): a node's name is supported when at least 40% of its",
        "papers' titles say it and at most 20% of each sibling's titles do (a title says a name when it holds",
        "every word, in any form or as an acronym, of one of the name's parts, less the parent's name's words",
        "and words true of most ML papers). 'no parent' counts the parent's words too. Defective: any",
        "``name_defects`` defect given the parent's name and the level's other names.",
        "",
        "The tree is the `TopicMap` hierarchy under the research themes (level 0 finest), fitted once with the",
        "cached embeddings. 'keyphrase' names each node from its keyphrases (``stages.naming.name_topics``, the",
        "fallback of the sibling names); 'sibling' is the fitted tree's own names (``stages.tree_names.name_levels``:",
        "``stages.sibling_names`` top-down, the top level under each node's theme, each lower level under its",
        "parent's name). Each naming is measured with its own parents' names. Thresholds and word roles were",
        "chosen on ICML 2013-2024.",
        "",
    ]
    for name in args.data:
        t0 = time.perf_counter()
        tree, docs = fitted(name, args.cache)
        old = {(int(r.level), int(r.topic)): r.keyphrase_label for r in tree.itertuples()}
        new = {(int(r.level), int(r.topic)): r.label for r in tree.itertuples()}
        seconds = time.perf_counter() - t0
        dump = [{"level": k[0], "topic": k[1], "keyphrase": old[k], "sibling": v} for k, v in sorted(new.items())]
        (args.cache / f"{name}_names.json").write_text(json.dumps(dump, indent=1))
        before, after = measure(tree, docs, old, old), measure(tree, docs, new, new)
        lines += [
            f"## {name}: {len(docs):,} papers, {len(tree)} nodes (fit/cache read {seconds:.0f} s)",
            "",
            "| level | nodes | supported: keyphrase | supported: sibling | no parent: keyphrase | no parent: sibling "
            "| defective: keyphrase | defective: sibling | repeated: keyphrase | repeated: sibling |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for b, a in zip(before, after):
            lines.append(
                f"| {b['level']} | {b['nodes']} | {100 * b['support']:.0f}% | {100 * a['support']:.0f}% "
                f"| {100 * b['support_no_parent']:.0f}% | {100 * a['support_no_parent']:.0f}% "
                f"| {100 * b['defective']:.0f}% | {100 * a['defective']:.0f}% | {b['repeated']} | {a['repeated']} |"
            )
        lines.append("")
        for words in (("reinforcement", "policy", "rl"), ("language model", "llm")):
            lines += [*pairs(tree, old, new, words), ""]
        print(f"{name} done", flush=True)
    args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

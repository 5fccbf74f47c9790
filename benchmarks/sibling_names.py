"""The name benchmark of issue 49: are the hierarchy's names carried by their own papers and not by their
siblings', which names sit under Reinforcement learning and LLMs, and do names survive dropping 10% of papers.

    python benchmarks/sibling_names.py --label after                          # this checkout's names
    PYTHONPATH=/work/main python benchmarks/sibling_names.py --label before   # the same script on old main
    python benchmarks/sibling_names.py --report                              # sibling_names.md from both
    python benchmarks/sibling_names.py --label after --data iclr24_3000 --sizes 90 24   # two fixed levels

Data: ``benchmarks/_embedded.py``'s ``iclr24_3000`` (3,000 ICLR 2024 submissions, with the authors' keywords)
and ``icml`` (ICML 2013-2024), with their cached embeddings; the tree is ``TopicMap(random_state=42).fit(frame,
embeddings=...)``. A paper *carries* a name when its title or one of its author keywords holds every word of one
of the name's parts (any form, an acronym for its words, words true of most ML papers aside:
``evaluate.name_rules.title_share``, the same test on old main and now). A node's name is *supported* when at
least 50% of its papers carry it and each sibling's papers (the other children of its parent; at the top level,
the other nodes of its theme) carry it at most half as often. Stability (``--drop``): the fit on the papers less
a random 10% (``numpy.random.default_rng(0)``); a node reappears when a node of the same level holds its
remaining papers with Jaccard >= 0.5, and keeps its name when that node's name has the same ``name_key``.
Each run writes ``benchmarks/results/raw/names_<label>_<data>.json`` (ignored by git) and
``benchmarks/results/names_<label>.json``; ``--report`` writes ``benchmarks/results/sibling_names.md``, with the
hand judgments of ``benchmarks/results/name_judgments.csv`` (level, node name, judgment) where given.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Hashable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from _embedded import prepared  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
THEMES = ("Reinforcement learning", "Large language models & reasoning")


def carriers(frame: pd.DataFrame) -> list[str]:
    """Each paper's title and author keywords, as one text a name is looked for in."""
    kws = frame["keywords"] if "keywords" in frame else pd.Series([None] * len(frame))
    out = []
    for title, kw in zip(frame["title"].fillna(""), kws, strict=True):
        words = list(kw) if isinstance(kw, list | tuple | np.ndarray) else []
        out.append("; ".join([str(title), *map(str, words)]))
    return out


def fit(
    frame: pd.DataFrame, emb: np.ndarray, sizes: tuple[int, ...] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    from icml_topics import TopicMap

    tm = TopicMap(random_state=42, verbose=False, topic_sizes=sizes).fit(frame, embeddings=emb)
    keep = [c for c in tm.documents_.columns if c.startswith("topic_") or c in ("id", "title")]
    return tm.topic_tree_.copy(), tm.documents_[keep].copy()


def node_rows(tree: pd.DataFrame, docs: pd.DataFrame, texts: dict[str, str]) -> list[dict]:
    """One row per node: name, size, theme, own share, largest sibling share, five titles."""
    from icml_topics.evaluate.name_rules import IndexedTitles, title_share

    top = int(tree["level"].max())
    papers, titles = {}, {}
    for level in sorted(tree["level"].unique()):
        col = f"topic_{level}"
        for t, g in docs[docs[col] >= 0].groupby(col):
            papers[(int(level), int(t))] = IndexedTitles([texts[i] for i in g["id"]])
            titles[(int(level), int(t))] = g["title"].fillna("").astype(str).tolist()
    groups: dict = {}
    for r in tree.itertuples():
        key = (int(r.level), int(r.parent) if r.level < top else str(r.theme))
        groups.setdefault(key, []).append((int(r.level), int(r.topic)))
    out = []
    for r in tree.itertuples():
        node = (int(r.level), int(r.topic))
        key = (int(r.level), int(r.parent) if r.level < top else str(r.theme))
        own = title_share(r.label, papers.get(node, ()))
        sib = [title_share(r.label, papers.get(s, ())) for s in groups[key] if s != node]
        out.append(
            {
                "level": node[0],
                "topic": node[1],
                "parent": int(r.parent),
                "theme": str(r.theme),
                "size": int(r.size),
                "name": str(r.label),
                "own": round(own, 4),
                "sibling": round(max(sib, default=0.0), 4),
                "titles": _five(list(r.representative_titles), titles.get(node, [])),
            }
        )
    return out


def _five(representative: list, titles: list[str]) -> list[str]:
    """The node's representative titles, then its other papers' in table order, five in all."""
    out = [str(t) for t in representative[:5]]
    return out + [t for t in titles if t not in out][: 5 - len(out)]


def renamed_after_drop(
    before: Mapping[Hashable, set],
    after: Mapping[Hashable, set],
    name_before: Mapping[Hashable, str],
    name_after: Mapping[Hashable, str],
) -> tuple[int, int, list[tuple[int, str, str]]]:
    """One level's name stability: ``before`` maps each node of the full fit to its papers that the 10% drop
    kept, ``after`` each node of the fit on those papers to its papers (the same ids). A node *reappears*
    when a node of ``after`` holds its papers with Jaccard >= 0.5 (the best such node is its match) and
    *keeps its name* when the match's name has the same ``name_key``. Returns (reappearing nodes, those
    keeping their name, (papers, name before, name after) of each renamed one). ``names_tune.py`` and
    ``stability`` below both measure with this one function."""
    from icml_topics.stages.naming import name_key

    back = same = 0
    changed = []
    for t, ids in before.items():
        best = max(after, key=lambda u: len(ids & after[u]) / max(len(ids | after[u]), 1), default=None)
        if best is None or len(ids & after[best]) / max(len(ids | after[best]), 1) < 0.5:
            continue
        back += 1
        kept = name_key(name_before[t]) == name_key(name_after[best])
        same += kept
        if not kept:
            changed.append((len(ids), name_before[t], name_after[best]))
    return back, same, changed


def stability(frame: pd.DataFrame, emb: np.ndarray, tree, docs, drop: float, sizes=None) -> list[dict]:
    """Per level: nodes, reappearing nodes (Jaccard >= 0.5) and how many keep their name (same name_key)."""
    keep = np.sort(np.random.default_rng(0).permutation(len(frame))[int(round(drop * len(frame))) :])
    tree2, docs2 = fit(frame.iloc[keep].reset_index(drop=True), emb[keep], sizes)
    kept_ids = set(docs2["id"])
    out = []
    for level in sorted(tree["level"].unique()):
        col = f"topic_{level}"
        a = {int(t): set(g["id"]) & kept_ids for t, g in docs[docs[col] >= 0].groupby(col)}
        b = {int(t): set(g["id"]) for t, g in docs2[docs2[col] >= 0].groupby(col)} if col in docs2 else {}
        names = {int(r.topic): r.label for r in tree[tree["level"] == level].itertuples()}
        names2 = {int(r.topic): r.label for r in tree2[tree2["level"] == level].itertuples()}
        back, same, changed = renamed_after_drop(a, b, names, names2)
        out.append(
            {
                "level": int(level),
                "nodes": len(a),
                "reappear": back,
                "same_name": same,
                "changed": [[before, after] for _, before, after in changed],
            }
        )
    return out


def run(label: str, data: list[str], drop: float, sizes: tuple[int, ...] | None = None) -> None:
    out = RESULTS / f"names_{label}.json"
    summary = json.loads(out.read_text()) if out.exists() else {"label": label, "data": {}}  # other data kept
    summary["machine"] = _machine()
    for data_name in data:
        name = data_name + (f"@{'_'.join(map(str, sizes))}" if sizes else "")
        base = prepared(data_name)
        frame, emb = pd.read_parquet(base.with_suffix(".parquet")), np.load(base.with_suffix(".npy"))
        t0 = time.perf_counter()
        tree, docs = fit(frame, emb, sizes)
        seconds = time.perf_counter() - t0
        texts = dict(zip(frame["id"], carriers(frame), strict=True))
        rows = node_rows(tree, docs, texts)
        entry = {"papers": len(frame), "fit_s": round(seconds, 1), "levels": _levels(rows)}
        if drop and name.startswith("iclr"):
            entry["stability"] = stability(frame, emb, tree, docs, drop, sizes)
            changed = {str(x["level"]): x.pop("changed") for x in entry["stability"]}
            (RESULTS / "raw" / f"names_{label}_{name}_renamed.json").write_text(json.dumps(changed, indent=1))
        summary["data"][name] = entry
        raw = RESULTS / "raw"
        raw.mkdir(parents=True, exist_ok=True)
        (raw / f"names_{label}_{name}.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False))
        print(name, json.dumps(entry), flush=True)
        out.write_text(json.dumps(summary, indent=1))


def _levels(rows: list[dict]) -> list[dict]:
    out = []
    for level in sorted({r["level"] for r in rows}):
        at = [r for r in rows if r["level"] == level]
        ok = sum(r["own"] >= 0.5 and r["sibling"] <= r["own"] / 2 for r in at)
        out.append(
            {"level": level, "nodes": len(at), "supported": ok, "own_median": float(np.median([r["own"] for r in at]))}
        )
    return out


def _machine() -> str:
    from _machine import machine_line  # the one harness's: CPU, CPUs, flags, load

    return machine_line()


def report(labels: tuple[str, str] = ("before", "after")) -> None:
    from _names_report import write_report  # the markdown, beside this script

    write_report(RESULTS, labels, THEMES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--label", default="after")
    parser.add_argument("--data", nargs="+", default=["iclr24_3000", "icml"])
    parser.add_argument("--drop", type=float, default=0.1, help="share of papers dropped for stability (0: skip)")
    parser.add_argument("--report", action="store_true", help="write sibling_names.md from the runs' results")
    parser.add_argument(
        "--sizes", type=int, nargs="*", help="TopicMap(topic_sizes=...), coarsest first: fixed levels (data@90_24)"
    )
    args = parser.parse_args()
    if args.report:
        report()
    else:
        run(args.label, args.data, args.drop, tuple(args.sizes) if args.sizes else None)


if __name__ == "__main__":
    main()

"""The fit's state stage alone (``state.derive``: every fitted table from the state) at a tiled corpus size (issue 51).

``benchmarks/scaling.py`` times the whole fit; its state stage grew as n^1.76 from 50,000 to 200,000. This loads a
saved fit (``TopicMap.load``), tiles its state ``k`` times (each copy's papers get new ids, its tree nodes new
node ids, so a copy has the base's node sizes and the node count grows with n as a real fit's does), and times
``derive`` on it (``_measure.measure_call``): CPU seconds of this process, its peak RSS so far, optionally a cProfile of the call, and a
digest of every table it returns (to compare two versions of the code on the same input).

    python benchmarks/state_stage.py --model /work/iclr-out/model --copies 3 11 --profile /tmp/state.prof
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import pickle
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from _machine import cpu_model  # noqa: E402


def _shift(mapping: dict, by: int, values: bool = False) -> dict:
    return {k + by: (v + by if values and v != -1 else v) for k, v in mapping.items()}


def tiled_state(state, copies: int):
    """``state`` repeated ``copies`` times: rows, arrays and themes stacked, every copy's node ids shifted."""
    from icml_topics.stages.tree import TopicTree
    from icml_topics.themes.assign import DocumentThemes

    tree, docs = state.tree, state.themes.docs
    step = int(max(max(p, default=0) for p in tree.parents)) + 1
    corpus = []
    for c in range(copies):
        part = state.corpus.copy()
        part["id"] = part["id"].astype(str) + f"~{c}"
        corpus.append(part)
    labels = np.vstack([np.where(tree.labels == -1, -1, tree.labels + c * step) for c in range(copies)])
    new_tree = TopicTree(
        labels,
        tuple({k: v for c in range(copies) for k, v in _shift(p, c * step, values=True).items()} for p in tree.parents),
        tuple({k: v for c in range(copies) for k, v in _shift(m, c * step).items()} for m in tree.names),
        tuple({k: v for c in range(copies) for k, v in _shift(m, c * step).items()} for m in tree.keywords),
        tuple({k: v for c in range(copies) for k, v in _shift(m, c * step).items()} for m in tree.stability),
        None if tree.similarity is None else np.vstack([tree.similarity] * copies),
    )
    new_docs = DocumentThemes(
        list(docs.theme) * copies,
        np.concatenate([docs.score] * copies),
        list(docs.theme_2) * copies,
        np.concatenate([docs.score_2] * copies),
        list(docs.reason) * copies,
        np.vstack([docs.proba] * copies),
    )
    return replace(
        state,
        corpus=pd.concat(corpus, ignore_index=True),
        embeddings=np.vstack([state.embeddings] * copies),
        labels=labels[:, 0].copy(),
        coords=np.vstack([state.coords] * copies),
        keywords=new_tree.keywords[0],
        topic_names=new_tree.names[0],
        themes=replace(state.themes, docs=new_docs),
        tree=new_tree,
    )


def digest(tables) -> dict[str, str]:
    """A sha256 of each table and array ``derive`` returns (pickled: values, dtypes, index and column order)."""
    out = {}
    for name in ("documents", "topics", "themes", "topic_tree", "topic_embeddings", "theme_names", "theme_embeddings"):
        value = getattr(tables, name)
        out[name] = hashlib.sha256(pickle.dumps(value, protocol=5)).hexdigest()[:16]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="a folder TopicMap.save wrote")
    parser.add_argument("--copies", type=int, nargs="+", default=[1], help="tile the saved state this many times")
    parser.add_argument("--profile", type=Path, default=None, help="write a cProfile of the largest size's derive")
    parser.add_argument("--out", type=Path, default=None, help="write the results (json) here")
    args = parser.parse_args()

    from _measure import measure_call

    from icml_topics import TopicMap
    from icml_topics.state import derive

    base = TopicMap.load(args.model).state_
    rows = []
    for copies in args.copies:
        state = tiled_state(base, copies)
        call = derive
        if args.profile is not None and copies == max(args.copies):
            import cProfile

            profiler = cProfile.Profile()
            call = functools.partial(profiler.runcall, derive)
        tables, cost = measure_call(call, state)
        if args.profile is not None and copies == max(args.copies):
            profiler.dump_stats(args.profile)
        row = {
            "n": len(state.labels),
            "nodes": [len(p) for p in state.tree.parents],
            "cpu_s": round(cost.cpu_s, 2),
            "wall_s": round(cost.wall_s, 2),
            "load": round(os.getloadavg()[0], 1),
            "peak_rss_gb": round(cost.peak_rss_mib / 1024, 2),
            "digest": digest(tables),
        }
        print(json.dumps(row), flush=True)
        rows.append(row)
        del state, tables
    if len(rows) > 1:
        n, t = np.log([r["n"] for r in rows]), np.log([max(r["cpu_s"], 1e-3) for r in rows])
        print(f"CPU exponent b over {rows[0]['n']}-{rows[-1]['n']}: {np.polyfit(n, t, 1)[0]:.2f}")
    if args.out is not None:
        args.out.write_text(json.dumps({"machine": cpu_model(), "model": str(args.model), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()

"""The one hierarchy on the ICLR 2024-2025 submissions (issue 39): speed against BERTopic, and whether the
strongest new / emerging nodes of ICLR 2025 come back under another seed and under perturbed embeddings.

    python benchmarks/iclr_hierarchy.py --cache DIR [--repeat N] [--out benchmarks/results/iclr_hierarchy.md]

1. **Speed**, side by side in one run, each a fresh process on the same cached embeddings (``--cache``: a
   cache folder whose ``embeddings.sqlite3`` already holds the corpus; it is copied into an empty cache, so
   no stage result is cached): ``icml-topics compare <corpus> --by year --out DIR`` against BERTopic's
   default pipeline on the same vectors (``fit_transform``, ``topics_over_time`` by year,
   ``hierarchical_topics``; ``_bertopic_baseline.fit_default``). Both are timed as whole processes, from start
   to exit (a user pays BERTopic's import and reading the data as well); BERTopic's pipeline alone, as it
   times itself, is reported too. ``--repeat N``: N runs of each, alternating, medians reported.
2. **Reappearance**: the 10 strongest ``new`` / ``emerging`` nodes of 2025 (``whats_new``, any level) of the
   compare run's joint model; the same corpus fitted with ``random_state=1`` and with every embedding
   perturbed to mean cosine 0.997 (``stages.hierarchy.perturb``, the int8-vs-fp32 scale; themes assigned
   again on the perturbed vectors, as a user on another CPU would get them). A node reappears when a node
   of the other fit holds the same papers with Jaccard >= 0.5; also counted: when that node is itself
   ``new`` / ``emerging`` there.

Every number in the results file is computed here; the header names the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

SHARED = Path(os.environ.get("ICML_TOPICS_SHARED_DATA") or REPO.parent / "shared" / "data")
CORPUS = SHARED / "iclr-2024-2025-areas.jsonl.gz"
TOP = 10

_BERTOPIC = r"""
import sys, time, json
import numpy as np, pandas as pd
sys.path.insert(0, sys.argv[1])
from _bertopic_baseline import fit_default
frame = pd.read_parquet(sys.argv[2]); emb = np.load(sys.argv[3])
docs = frame["text"].tolist(); t0 = time.perf_counter()
model, topics = fit_default(docs, emb)
model.topics_over_time(docs, frame["year"].tolist())
model.hierarchical_topics(docs)
print(json.dumps({"seconds": time.perf_counter() - t0, "topics": int(len(set(topics.tolist()) - {-1})),
                  "outliers": float((topics == -1).mean())}))
"""


_STAGE_CACHES = ("reductions", "representations", "trees", "outputs")  # what a run computes; left out


def _cache_with_embeddings(source: Path) -> Path:
    """A new cache folder with ``source``'s embeddings and this machine's one-time setup (the decided
    embedding path, the exported models), without any stage result."""
    fresh = Path(tempfile.mkdtemp(prefix="iclr-hierarchy-cache-"))
    for name in os.listdir(source):
        if name not in _STAGE_CACHES and name != "locks":
            src = source / name
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, fresh / name)
    return fresh


def _timed(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command[:3]} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds, done.stdout


def _side_by_side(compare_cmd: list[str], bertopic_cmd: list[str], env: dict, repeat: int, cache: Path) -> dict:
    """Both pipelines ``repeat`` times, alternating, each a fresh process (ours on a fresh stage cache each
    time): their whole-process seconds, and BERTopic's pipeline alone as it timed itself."""
    out: dict[str, list] = {"compare": [], "bertopic": [], "bertopic_pipeline": [], "bertopic_info": []}
    for _ in range(repeat):
        run_env = {**env, "ICML_TOPICS_CACHE_DIR": str(_cache_with_embeddings(cache))}
        out["compare"].append(_timed(compare_cmd, run_env)[0])
        seconds, printed = _timed(bertopic_cmd, env)
        info = json.loads(printed.strip().splitlines()[-1])
        out["bertopic"].append(seconds)
        out["bertopic_pipeline"].append(info["seconds"])
        out["bertopic_info"].append(info)
    return out


def _speed_lines(timings: dict, load: float) -> list[str]:
    median = {k: float(np.median(v)) for k, v in timings.items() if k != "bertopic_info"}
    info = timings["bertopic_info"][0]

    def runs(key: str) -> str:
        return ", ".join(f"{x:.0f}" for x in timings[key])

    return [
        "## Speed, side by side (same cached embeddings and machine setup, empty stage caches, fresh processes)",
        "",
        f"Load average {load:.1f} at the start; {len(timings['compare'])} runs of each, alternating; medians.",
        "",
        "| pipeline | seconds (median) | runs |",
        "|---|---:|---|",
        f"| `icml-topics compare --by year --out DIR`, the whole process (start, imports, read, map, themes, tree, "
        f"trends, report, CSVs) | {median['compare']:.0f} | {runs('compare')} |",
        f"| BERTopic default, the whole process (start, `import bertopic`, read the texts and embeddings, "
        f"`fit_transform` + `topics_over_time` + `hierarchical_topics`; {info['topics']} topics, "
        f"{info['outliers']:.1%} outliers) | {median['bertopic']:.0f} | {runs('bertopic')} |",
        f"| BERTopic default, the pipeline alone (its three calls, as it timed them) | "
        f"{median['bertopic_pipeline']:.0f} | {runs('bertopic_pipeline')} |",
        "",
        f"Ratio, whole process to whole process: {median['compare'] / median['bertopic']:.2f}; to BERTopic's "
        f"pipeline alone: {median['compare'] / median['bertopic_pipeline']:.2f}.",
    ]


def _nodes(tm) -> dict[tuple[int, int], frozenset]:
    docs = tm.documents_[tm.documents_["status"] == "ok"]
    out = {}
    for column in [c for c in docs.columns if c.startswith("topic_") and c[6:].isdigit()]:
        level = int(column[6:])
        for node, rows in docs[docs[column] >= 0].groupby(column):
            out[(level, int(node))] = frozenset(rows["id"].astype(str))
    return out


def _reappear(reference: pd.DataFrame, ref_nodes: dict, other, other_new: set) -> list[dict]:
    nodes = _nodes(other)
    rows = []
    for r in reference.itertuples():
        mine = ref_nodes[(int(r.level), int(r.topic))]
        best, key = 0.0, None
        for k, papers in nodes.items():
            j = len(mine & papers) / len(mine | papers)
            if j > best:
                best, key = j, k
        rows.append({"jaccard": best, "also_flagged": key in other_new and best >= 0.5})
    return rows


def _section(path: Path, start: str, end: str | None) -> list[str]:
    """The lines of an earlier results file from the heading ``start`` up to ``end`` (None: the end)."""
    text = path.read_text(encoding="utf-8")
    i = text.index(start)
    return text[i : text.index(end, i) if end else len(text)].rstrip().splitlines()


def _reused(path: Path) -> list[str]:
    """The reappearance section of an earlier results file (``--reappear``), saying so under its heading."""
    heading, *rest = _section(path, "## Do the", None)
    rest = [line for line in rest if not line.startswith("(Reused with `--reappear`")]  # one note, not a stack
    note = (
        f"(Reused with `--reappear` from an earlier run of this script, `{path.name}`: its fits were not repeated "
        "in this run.)"
    )
    return [heading, "", note, *rest]


def _reappearance(tm, frame: pd.DataFrame, emb: np.ndarray) -> list[str]:
    """The reappearance section: the joint model's strongest new / emerging 2025 nodes, fitted again with
    another seed and with perturbed embeddings."""
    from icml_topics import TopicMap
    from icml_topics.stages.hierarchy import perturb

    flagged = ("new", "emerging")
    reference = tm.whats_new(2025, top=TOP)
    ref_nodes = _nodes(tm)
    seed = TopicMap(random_state=1).fit(frame, embeddings=emb)
    moved = perturb(emb, 0.997, np.random.default_rng(0)).astype(np.float32)
    cosine = float((moved * emb).sum(axis=1).mean())
    perturbed = TopicMap(random_state=42, cache=False).fit(frame, embeddings=moved)
    results = {}
    for name, other in (("another seed (random_state=1)", seed), (f"perturbed (mean cosine {cosine:.4f})", perturbed)):
        new = other.whats_new(2025, top=10**6)
        other_new = {(int(r.level), int(r.topic)) for r in new.itertuples() if r.status in flagged}
        results[name] = _reappear(reference, ref_nodes, other, other_new)
    lines = [
        f"## Do the {TOP} strongest new / emerging nodes of 2025 come back?",
        "",
        "`whats_new(2025, top=10)` of the joint model: nodes with stability >= 0.5 only (a node reappearing in fewer "
        "of the hierarchy's own perturbed runs is never a headline).",
        "",
        "| level | node | papers | status | stability | " + " | ".join(f"Jaccard, {n}" for n in results) + " |",
        "|---:|---|---:|---|---:|" + "---:|" * len(results),
    ]
    for i, r in enumerate(reference.itertuples()):
        cells = [
            f"{results[n][i]['jaccard']:.2f}{' (flagged)' if results[n][i]['also_flagged'] else ''}" for n in results
        ]
        size = len(ref_nodes[(int(r.level), int(r.topic))])
        lines.append(f"| {r.level} | {r.label} | {size} | {r.status} | {r.stability:.2f} | " + " | ".join(cells) + " |")
    lines.append("")
    for n, rows in results.items():
        back = sum(x["jaccard"] >= 0.5 for x in rows)
        flagged_too = sum(x["also_flagged"] for x in rows)
        lines.append(
            f"* {n}: {back} of {len(rows)} reappear (Jaccard >= 0.5); {flagged_too} of them new or emerging there too."
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True, help="cache folder holding the corpus' embeddings")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "iclr_hierarchy.md")
    parser.add_argument("--speed", type=Path, default=None, help="reuse the speed table of this results file")
    parser.add_argument("--reappear", type=Path, default=None, help="reuse the reappearance table of this file")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each pipeline, alternating (medians reported)")
    args = parser.parse_args()
    from _machine import cpu_model

    from icml_topics import TopicMap, read_corpus

    work = Path(tempfile.mkdtemp(prefix="iclr-hierarchy-"))
    env = {**os.environ, "ICML_TOPICS_CACHE_DIR": str(_cache_with_embeddings(args.cache)), "HF_HUB_OFFLINE": "1"}
    load = os.getloadavg()[0]
    compare_cmd = [str(Path(sys.executable).parent / "icml-topics"), "compare", str(CORPUS), "--by", "year",
                   "--out", str(work / "compare"), "--quiet"]  # fmt: skip
    os.environ["ICML_TOPICS_CACHE_DIR"] = str(args.cache)
    frame = read_corpus(CORPUS)
    tm = TopicMap(random_state=42).fit(frame)  # the compare run's joint model (its stages cached in args.cache)
    ok = tm.documents_[tm.documents_["status"] == "ok"]
    emb = tm.embeddings_
    ok.assign(text=tm.state_.texts).to_parquet(work / "docs.parquet")
    np.save(work / "emb.npy", emb)
    if not args.speed:
        bertopic_cmd = [sys.executable, "-c", _BERTOPIC, str(REPO / "benchmarks"), str(work / "docs.parquet"),
                        str(work / "emb.npy")]  # fmt: skip
        timings = _side_by_side(compare_cmd, bertopic_cmd, env, args.repeat, args.cache)

    reappear = _reappearance(tm, frame, emb) if args.reappear is None else None

    if args.speed:  # the speed section of an earlier run, as it was measured
        speed = _section(args.speed, "## Speed", "## Do the")
    else:
        speed = _speed_lines(timings, load)
    lines = [
        "# The one hierarchy on ICLR 2024-2025 (issue 39)",
        "",
        f"Command: `python benchmarks/iclr_hierarchy.py --cache DIR --repeat {args.repeat}"
        f"{' --reappear FILE' if args.reappear else ''}`; machine: {cpu_model()}, {os.cpu_count()} CPUs. "
        f"{len(frame):,} submissions, {len(ok):,} modelled.",
        "",
        *speed,
        "",
        *(reappear if reappear is not None else _reused(args.reappear)),
    ]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

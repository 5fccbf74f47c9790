"""Topic-name quality on real corpora: the share of names with none of the five defects of issue 11
(a word repeated in another form, an acronym echoing the words before it, a dangling word, more than
60 characters, two unrelated phrases), for the new naming and for the previous one on the same fit.

    ICML_TOPICS_CACHE_DIR=/work/cache/shared python benchmarks/topic_names.py \
        --map docs/map-icml-2013-2024.png

Corpora: ``icml+seeds`` = ICML 2013-2024 (5,630) + the 38 ICML 2026 seed abstracts; ``slice800`` =
400 ICML 2019 + 400 ICML 2024 abstracts (``DataFrame.sample(n=400, random_state=0)`` per year).
Writes ``benchmarks/results/topic_names.md`` and ``.json``. "Unrelated" is judged by co-occurrence
in the fitted corpus (NPMI <= 0), and by the embedding model for phrases in fewer than 3 papers.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import types
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from icml_topics import TopicMap, embed
from icml_topics.evaluate.names import PhraseCorpus, name_defects

DATA = REPO.parent / "shared" / "data"
BASELINE_COMMIT = "70e7ad1"  # naming before issue 11


def corpora(data: Path) -> dict[str, pd.DataFrame]:
    icml = pd.read_json(data / "icml-2013-2024.jsonl.gz", lines=True)
    seeds = pd.read_json(data / "icml-2026-seed-abstracts.jsonl", lines=True)
    slice800 = pd.concat(
        [icml[icml["year"] == y].sample(n=400, random_state=0) for y in (2019, 2024)], ignore_index=True
    )
    return {"icml+seeds": pd.concat([icml, seeds], ignore_index=True), "slice800": slice800}


def baseline_namer():
    """``name_topics`` as it was before issue 11, loaded from git."""
    source = subprocess.run(
        ["git", "show", f"{BASELINE_COMMIT}:icml_topics/stages/naming.py"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType("old_naming")
    exec(compile(source, "old_naming.py", "exec"), module.__dict__)
    return module.name_topics


def measure(name: str, frame: pd.DataFrame, map_path: Path | None) -> dict:
    t0 = time.time()
    tm = TopicMap(random_state=42).fit(frame)
    fit_s = time.time() - t0
    texts = tm.state_.texts
    corpus = PhraseCorpus(texts)
    topics = tm.topics_[tm.topics_["topic"] != -1].sort_values("size", ascending=False)
    new = dict(zip(topics["topic"], topics["label"]))
    old = {t: n for t, n in baseline_namer()(tm.keywords_).items() if t != -1}
    result = {"corpus": name, "papers": len(frame), "topics": len(new), "fit_s": round(fit_s, 1)}
    for which, names in (("new", new), ("previous", old)):
        defects = {t: name_defects(n, embed, corpus=corpus) for t, n in names.items()}
        bad = {int(t): {"name": names[t], "defects": d} for t, d in defects.items() if d}
        result[which] = {"clean_share": round(1 - len(bad) / max(len(names), 1), 4), "flagged": bad}
    result["examples"] = [
        {
            "topic": int(r.topic),
            "size": int(r.size),
            "name": r.label,
            "previous": old.get(r.topic, ""),
            "keywords": "; ".join(r.keywords[:6]),
            "representative": list(r.representative_titles)[:1],
        }
        for r in topics.head(10).itertuples()
    ]
    if map_path is not None:
        from icml_topics.plotting.static_map import (
            overlapping_labels,
            plot_map_static,
            save_map,
        )

        fig = plot_map_static(tm.documents_, title="ICML 2013–2024 + ICML 2026 seeds")
        save_map(fig, map_path, dpi=100)
        result["map"] = {"path": str(map_path), "overlapping_labels": overlapping_labels(fig)}
    return result


def markdown(results: list[dict], command: str, load: str) -> str:
    lines = ["# Topic-name quality (issue 11)", "", f"Command: `{command}`  ", f"Load at start: `{load}`", ""]
    lines += [
        "| corpus | papers | topics | clean names (new) | clean names (previous naming, same fit) |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['corpus']} | {r['papers']:,} | {r['topics']} | {100 * r['new']['clean_share']:.1f}% "
            f"| {100 * r['previous']['clean_share']:.1f}% |"
        )
    for r in results:
        lines += [
            "",
            f"## {r['corpus']}: the 10 largest topics",
            "",
            "| size | name | previous name | cleaned keywords |",
            "|---|---|---|---|",
        ]
        for e in r["examples"]:
            lines.append(f"| {e['size']} | {e['name']} | {e['previous']} | {e['keywords']} |")
        lines += ["", "Names flagged (new naming):", ""]
        lines += [f"- {v['name']!r}: {', '.join(v['defects'])}" for v in r["new"]["flagged"].values()] or ["- none"]
        if "map" in r:
            lines += [
                "",
                f"Static map: `{r['map']['path']}`, overlapping labels: {r['map']['overlapping_labels'] or 'none'}",
            ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument("--corpora", nargs="+", default=["slice800", "icml+seeds"])
    parser.add_argument("--map", type=Path, default=None, help="write the icml+seeds static map here (PNG)")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "topic_names")
    args = parser.parse_args()
    if not (args.data_dir / "icml-2013-2024.jsonl.gz").exists():
        sys.exit(f"shared corpus not found in {args.data_dir}; pass --data-dir")
    load = os.popen("uptime").read().strip()
    frames = corpora(args.data_dir)
    results = []
    for name in args.corpora:
        results.append(measure(name, frames[name], args.map if name == "icml+seeds" else None))
        print(json.dumps({k: v for k, v in results[-1].items() if k != "examples"}, indent=1)[:3000], flush=True)
    command = "python benchmarks/topic_names.py " + " ".join(sys.argv[1:])
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=1, ensure_ascii=False))
    args.out.with_suffix(".md").write_text(markdown(results, command, load))


if __name__ == "__main__":
    main()
